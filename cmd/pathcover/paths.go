package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/pathcover/pathcover/report"
)

var cmdPaths = &Command{
	UsageLine: "pathcover paths [-dir D] [-untested] [-limit n] [PKG.]FUNC",
	Short:     "list a function's paths that ran, or that never ran, decoded",
	Long: `
Lists every path of a function that ran, hottest first, with its count and
its branches in the source; or, with -untested, the paths that never ran.
`,
	Flags: func(fs *flag.FlagSet) Run {
		dir := profileFlag(fs)
		untested := fs.Bool("untested", false, "list the paths that never ran")
		limit := fs.Uint64("limit", 1000, "list at most `n` paths (with -untested, refuse functions with more)")
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
			for i, f := range funcs {
				paths, err := f.Decoded(*untested, *limit)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
					return exitFail
				}
				if i > 0 {
					fmt.Println()
				}
				if code := write(cmd, report.Paths{Func: f, Paths: paths}, false); code != 0 {
					return code
				}
			}
			return 0
		}
	},
}
