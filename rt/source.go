package rt

import "embed"

// Source is this package's source, which pppexec compiles into the programs
// it instruments. It leaves out this file and the tests: the copy in a
// profiled program imports only the packages listed in the package doc.
//
//go:embed *.go
var Source embed.FS
