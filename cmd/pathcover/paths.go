package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/pathcover/pathcover/internal/report"
)

var cmdPaths = &Command{
	UsageLine: "pathcover paths [-dir D] [-untested] [-limit n] [-json] [PKG.]FUNC",
	Short:     "list a function's paths that ran, or that never ran, decoded",
	Long: `
Lists every path of a function that ran, hottest first, with its count and
its branches in the source; or, with -untested, the paths that never ran.

An untested path is listed with what it needs: each of its branches with
the source of its condition and the outcome the path takes there
("len(args) != 1 is false", "case "min", "max" matches"), those that follow
from the branches before them marked. A path that pppexec proved
infeasible (no input takes those branches together: the conditions
contradict) is marked so, with the branches that contradict and why.
`,
	Flags: func(fs *flag.FlagSet) Run {
		dir := profileFlag(fs)
		untested := fs.Bool("untested", false, "list the paths that never ran")
		limit := fs.Uint64("limit", 1000, "list at most `n` paths (with -untested, refuse functions with more)")
		asJSON := jsonFlag(fs)
		return func(cmd *Command, args []string) int {
			if len(args) != 1 {
				fs.Usage()
				return exitUsage
			}
			r, _, code := openReport(cmd.LongName(), dir.dirs, nil)
			if code != 0 {
				return code
			}
			funcs := r.Lookup(args[0])
			if len(funcs) == 0 {
				fmt.Fprintf(os.Stderr, "%s: no function %s in the profile\n", cmd.LongName(), printable(args[0]))
				return exitNoData
			}
			var lists report.PathLists
			for _, f := range funcs {
				paths, err := f.Decoded(*untested, *limit)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
					return exitFail
				}
				lists = append(lists, report.Paths{Func: f, Paths: paths})
			}
			return write(cmd, lists, *asJSON)
		}
	},
}
