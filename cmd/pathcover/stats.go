package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/pathcover/pathcover/internal/report"
)

var cmdStats = &Command{
	UsageLine: "pathcover stats [-dir D] [-json] [packages]",
	Short:     "compare the compactness δ of PPP and Ball-Larus path ids",
	Long: `
Prints how δ is distributed over functions under preferential (PPP) and
Ball-Larus numbering (the PPP thesis's Figs. 3.17 and 3.18), then each
function's δs, those PPP improves most first.
δ = (max id − min id + 1)/|I| measures how compactly a numbering packs the
ids of a function's interesting paths I (those a PPP build counts, or those
that ran). It is 1 when the ids leave no hole, and otherwise the factor by
which an array of counters indexed by id outgrows the paths it counts.
`,
	Flags: func(fs *flag.FlagSet) Run {
		dir := profileFlag(fs)
		asJSON := jsonFlag(fs)
		return func(cmd *Command, patterns []string) int {
			p, _, code := loadProfile(cmd.LongName(), dir.dirs)
			if code != 0 {
				return code
			}
			pkgs, code := selectPackages(cmd.LongName(), metaPackages(p), patterns)
			if code != 0 {
				return code
			}
			st, errs := report.Stats(p, pkgs)
			for _, err := range errs {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
			}
			return write(cmd, st, *asJSON)
		}
	},
}
