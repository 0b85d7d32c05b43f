module github.com/pathcover/pathcover

go 1.25
