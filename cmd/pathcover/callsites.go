package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/pathcover/pathcover/internal/report"
)

var cmdCallSites = &Command{
	UsageLine: "pathcover callsites [-dir D] [-k n] [-supergraph] [-json] [packages]",
	Short:     "list the calls between profiled functions on paths that ran",
	Long: `
Lists the static calls between profiled functions that lie on paths the
profile ran, most runs first: the call sites that interprocedural path
profiling follows into their callees (the PPP thesis's depth-k segments,
3.4.2 and 3.5.2). With -k above 1, each site lists the sites on the
paths its callee ran, indented under it. Calls through interfaces and
function values, deferred calls, go statements and calls of functions
the profile does not cover are not sites. Packages select the callers;
callees can be in any profiled package.

With -supergraph it prints instead, per caller, how many acyclic paths it
has and how many its supergraph has: the graph that interprocedural PPP
numbers, the caller with the callees of its sites inlined (thesis 3.4.3).
`,
	Flags: func(fs *flag.FlagSet) Run {
		dir := profileFlag(fs)
		depth := fs.Int("k", 1, "follow calls `k` deep: sites in the callees of sites, to k levels")
		asJSON := jsonFlag(fs)
		sizes := fs.Bool("supergraph", false, "print, per caller, its paths and those of its supergraph, the callees of its sites inlined")
		return func(cmd *Command, patterns []string) int {
			if *depth < 1 {
				fmt.Fprintf(os.Stderr, "%s: -k %d: want 1 or more\n", cmd.LongName(), *depth)
				return exitUsage
			}
			// Callees are looked for in every package; patterns choose the
			// callers.
			r, _, code := openReport(cmd.LongName(), dir.dirs, nil)
			if code != 0 {
				return code
			}
			var have []string
			for _, pkg := range r.Packages {
				have = append(have, pkg.Path)
			}
			pkgs, code := selectPackages(cmd.LongName(), have, patterns)
			if code != 0 {
				return code
			}
			sites, err := r.CallSites(*depth, pkgs)
			var out report.Output = sites
			if err == nil && *sizes {
				out, err = r.SupergraphSizes(sites)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitFail
			}
			return write(cmd, out, *asJSON)
		}
	},
}
