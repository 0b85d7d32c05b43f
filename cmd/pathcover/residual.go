package main

import (
	"flag"
	"fmt"
	"os"
)

var cmdResidual = &Command{
	UsageLine: "pathcover residual [-dir D] [-json] [-n n] [packages]",
	Short:     "list the residual paths of a PPP build's profile",
	Long: `
Lists the residual paths of a PPP build's profile: paths that ran (in the
field) but not in the tests whose profile the build was made with
(pppexec -interesting). Each function's, decoded to its branches in the
source, most runs first; then a summary: untested paths and their share of
the paths and of the runs, untested edges, and the untested paths of
functions with no untested edge, which only path profiling finds.
`,
	Flags: func(fs *flag.FlagSet) Run {
		dir := profileFlag(fs)
		asJSON := jsonFlag(fs)
		show := countFlag(fs, 10, "decode at most `n` residual paths of each function", "show")
		return func(cmd *Command, patterns []string) int {
			r, _, code := openReport(cmd.LongName(), dir.dirs, patterns)
			if code != 0 {
				return code
			}
			res, err := r.Residual(*show)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitFail
			}
			return write(cmd, res, *asJSON)
		}
	},
}
