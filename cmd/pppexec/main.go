// Command pppexec is a -toolexec wrapper that profiles the acyclic paths of
// Go programs:
//
//	go test -toolexec=pppexec ./...
//	go build -toolexec="pppexec -o $PWD/profile" ./cmd/app
//
// Profiled programs write path counts into $PATHCOVERDIR, or the directory
// given with -o; `pathcover report` reads them. With neither set, a profiled
// program writes nothing and runs like an unprofiled one.
//
// Usage:
//
//	pppexec [flags] /path/to/tool [tool args]
//
// The flags:
//
//	-pkgs patterns   comma-separated import path patterns of the packages to
//	                 instrument (... wildcards; "main" for the main module's
//	                 packages, the default; "std" for the standard library)
//	-o dir           where profiled programs write counts when $PATHCOVERDIR
//	                 is not set
//	-atomic          count atomically (always on with -race)
//	-arraylimit n    functions with more paths than n count in a hash table
//	-hashslots n     the size of those hash tables
//	-strict          fail the build if a package cannot be instrumented
//	-v               report each package instrumented
package main

import (
	"os"

	"github.com/pathcover/pathcover/toolexec"
)

func main() {
	os.Exit(toolexec.Main("pppexec", os.Args[1:]))
}
