package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/pathcover/pathcover/internal/report"
)

var cmdReport = &Command{
	UsageLine: "pathcover report [-dir D] [-json] [-interprocedural] [packages]",
	Short:     "print path coverage per function and package",
	Long: `
Prints, per function, the acyclic paths that ran out of all its paths, worst
covered first, with totals per package and overall, and the statement
coverage that the same counts give (as go test -cover counts statements).

With -interprocedural it prints, for a profile of an interprocedural build,
each caller's supergraph: its callees inlined at the call sites on paths that
ran, and the segments (caller path, callee path, rest of the caller path)
that ran out of all.
`,
	Flags: func(fs *flag.FlagSet) Run {
		dir := profileFlag(fs)
		asJSON := jsonFlag(fs)
		inter := fs.Bool("interprocedural", false, "report the supergraphs of an interprocedural build (pppexec -ippp) instead: per caller, the interprocedural path segments that ran; 'pathcover paths CALLER@ippp' lists them")
		return func(cmd *Command, patterns []string) int {
			r, _, code := openReport(cmd.LongName(), dir.dirs, patterns)
			if code != 0 {
				return code
			}
			if !*inter {
				return write(cmd, r, *asJSON)
			}
			if r.Segments.Total == 0 && !*asJSON {
				fmt.Fprintf(os.Stderr, "%s: the profile has no supergraphs: build with pppexec -ippp=PROFILE\n", cmd.LongName())
				return exitFail
			}
			return write(cmd, report.SegmentReport{Report: r}, *asJSON)
		}
	},
}
