module github.com/pathcover/pathcover

go 1.25.0

require (
	golang.org/x/mod v0.39.0
	golang.org/x/net v0.58.0
	golang.org/x/tools v0.49.0
)

require golang.org/x/sync v0.22.0 // indirect
