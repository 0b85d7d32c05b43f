module github.com/pathcover/pathcover

go 1.25.0

require golang.org/x/tools v0.49.0 // indirect
