package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/pathcover/pathcover/report"
)

var cmdHTML = &Command{
	UsageLine: "pathcover html [-dir D] -o FILE [-paths n] [packages]",
	Short:     "write one HTML page of the coverage, the source and the paths",
	Long: `
Writes one HTML page, which needs no network and no other file: an index of
packages and functions, worst covered first, and for each function its
source and its control-flow graph. Choosing a path (hottest of those that
ran, those that never ran, or the residual paths of a PPP build's profile)
highlights the lines, the branches and the edges it takes.
`,
	Flags: func(fs *flag.FlagSet) Run {
		dir := profileFlag(fs)
		out := fs.String("o", "", "write the page to `file` (- for standard output)")
		paths := fs.Int("paths", 100, "list at most `n` paths of each kind per function")
		return func(cmd *Command, patterns []string) int {
			if *out == "" {
				fmt.Fprintf(os.Stderr, "%s: give -o FILE (or -o - for standard output)\n", cmd.LongName())
				return exitUsage
			}
			r, _, code := openReport(cmd.LongName(), dir.dirs, patterns)
			if code != 0 {
				return code
			}
			wd, _ := os.Getwd()
			var page bytes.Buffer
			if err := r.WriteHTML(&page, report.HTMLOptions{Paths: *paths, Sources: report.NewSources(wd)}); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitFail
			}
			if *out == "-" {
				os.Stdout.Write(page.Bytes())
				return 0
			}
			// Built in memory first: a profile that fails to render leaves
			// any old page alone.
			if err := writeFile(*out, page.Bytes()); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitFail
			}
			return 0
		}
	},
}
