package main

//go:generate go test -run=^TestDocsUpToDate$ -fixdocs

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/pathcover/pathcover/analyzer/pathcover"
)

// commands are pathcover's subcommands, in the order that 'pathcover help'
// and doc.go list them. Each is declared in its own file.
var commands = []*Command{
	cmdTest,
	cmdReport,
	cmdPaths,
	cmdTests,
	cmdAffected,
	cmdMerge,
	cmdHTML,
	cmdResidual,
	cmdStats,
	cmdCallSites,
	cmdWPP,
	cmdSlice,
	cmdWET,
	cmdFlight,
	cmdGate,
	cmdExport,
	cmdCfg,
	cmdPPPExec,
}

// analyzerUsage are the ways to run pathcover as an analyzer, which 'pathcover
// help' lists after the commands'.
var analyzerUsage = []string{
	"pathcover [-pathcover.maxpaths=N] [-json] [packages]",
	"go vet -vettool=$(which pathcover) [-pathcover.maxpaths=N] [packages]",
	"go vet -vettool=$(which pathcover) -pathcover.profile=D [-pathcover.min=N] [packages]",
}

// docOverview begins doc.go, before the command list; docTopics follow it.
const docOverview = `
Command pathcover measures and reports the acyclic paths of Go functions.

It is a vet tool and a standalone analyzer:

	go vet -vettool=$(which pathcover) ./...   # report functions with too many paths
	pathcover ./...                            # the same, without vet
	pathcover -pathcover.maxpaths=200 ./...    # a lower limit

With a profile, the vet tool is a gate on untested paths:

	go vet -vettool=$(which pathcover) -pathcover.profile=DIR -pathcover.min=80 ./...

reports each function whose tests ran less than 80% of its paths, with
its first untested paths decoded.

It has commands, which take precedence over package patterns (write
./cfg for a package named cfg); each prints its usage and flags with -h.
`

// docTopics follow the command list in doc.go: what several commands share.
var docTopics = []string{`
# Profiles and packages

The commands that read a profile take it from -dir (repeated, or
comma-separated, for several) or $PATHCOVERDIR, and packages as the go
command names them from the current directory (./..., ., ./sub, import
paths, all, std). They exit with status 3 when there is nothing to
report on: no profile, one that is empty, unreadable or without counts,
or patterns that match none of its packages; with 2 for usage errors;
gate with 1 when functions fall short, and with 3 too when a metadata
file cannot be read.
`, `
# Interprocedural path segments

Interprocedural path segments (PPP thesis 3.4) are counted by a build
that pppexec -ippp=SITES makes, SITES being the profile of an earlier
run: pathcover test -ippp SITES does that for tests. Each caller with
static calls of instrumented functions on paths that ran in SITES
gets a supergraph, named CALLER@ippp: its graph with those callees
inlined, whose paths are the segments caller path, callee path, rest of
the caller path. report -interprocedural lists the supergraphs with the
segments that ran out of all; paths CALLER@ippp decodes them, naming the
function each run of branches is in; residual lists, for a PPP build made
with -ippp=SITES -interesting=SEGMENTS, the segments that SEGMENTS never
ran; stats gives the δ of their numberings.
`}

// main runs the command named first, or prints help; anything else goes to
// the analyzer, as vet's own calls (-V=full, -flags, a .cfg file) do.
func main() {
	softMemoryLimit()
	if len(os.Args) > 1 {
		if cmd := lookup(os.Args[1]); cmd != nil {
			os.Exit(cmd.Main(os.Args[2:]))
		}
		if os.Args[1] == "help" {
			switch args := os.Args[2:]; {
			case len(args) == 0:
				usage(os.Stderr)
				os.Exit(0)
			case len(args) >= 1 && lookup(args[0]) != nil:
				// 'pathcover help pathcover' and other names are the
				// analyzers'; 'pathcover help wpp traces' a subcommand's.
				c := lookup(args[0])
				for _, name := range args[1:] {
					if c = c.sub(name); c == nil {
						fmt.Fprintf(os.Stderr, "pathcover help: no command %s\n", printable(strings.Join(args, " ")))
						os.Exit(exitUsage)
					}
				}
				c.help(os.Stdout)
				os.Exit(0)
			}
		}
	}
	multichecker.Main(pathcover.Analyzer)
}

// softMemoryLimit asks the collector to keep the heap under 1.5 GiB
// (debug.SetMemoryLimit), so that the commands that read whole recordings
// (slice, wet build, wpp compact) stay within 2 GB where what they hold
// allows, at the cost of more collections near it. GOMEMLIMIT, if set,
// decides instead.
func softMemoryLimit() { setSoftMemoryLimit(1536 << 20) }

// setSoftMemoryLimit sets the collector's soft limit to bytes unless
// GOMEMLIMIT decides.
func setSoftMemoryLimit(bytes int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(bytes)
	}
}
