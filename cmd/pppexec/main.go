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
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pathcover/pathcover/toolexec"
	"github.com/pathcover/pathcover/toolexec/instrument"
)

func main() {
	fs := flag.NewFlagSet("pppexec", flag.ContinueOnError)
	pkgs := fs.String("pkgs", "", "comma-separated import path `patterns` of the packages to instrument (default main)")
	dir := fs.String("o", "", "`dir` where profiled programs write counts when $PATHCOVERDIR is not set")
	cfg := &toolexec.Config{}
	fs.BoolVar(&cfg.Atomic, "atomic", false, "count atomically (always on with -race)")
	fs.Uint64Var(&cfg.MaxArrayPaths, "arraylimit", instrument.DefaultMaxArrayPaths, "functions with more than `n` paths count in a hash table")
	fs.IntVar(&cfg.HashSlots, "hashslots", instrument.DefaultHashSlots, "`n` slots in each hash table")
	fs.BoolVar(&cfg.Strict, "strict", false, "fail the build if a package cannot be instrumented")
	fs.BoolVar(&cfg.Verbose, "v", false, "report each package instrumented")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go build -toolexec='pppexec [flags]' ...\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if *pkgs != "" {
		cfg.Pkgs = strings.Split(*pkgs, ",")
	}
	if *dir != "" {
		abs, err := filepath.Abs(*dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "pppexec: %v\n", err)
			os.Exit(2)
		}
		cfg.Dir = abs
	}
	if cfg.HashSlots < 1 || cfg.MaxArrayPaths < 1 {
		fmt.Fprintln(os.Stderr, "pppexec: -arraylimit and -hashslots must be positive")
		os.Exit(2)
	}
	x := &toolexec.Exec{Config: cfg}
	os.Exit(x.Main(fs.Args()))
}
