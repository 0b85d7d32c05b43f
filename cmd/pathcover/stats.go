package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/pathcover/pathcover/report"
)

func statsMain(args []string) int {
	fs := flag.NewFlagSet("pathcover stats", flag.ContinueOnError)
	dir := profileFlag(fs)
	asJSON := fs.Bool("json", false, "write JSON")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: pathcover stats [-dir D] [-json] [packages]\n\n"+
			"Prints how δ is distributed over functions under preferential (PPP) and\n"+
			"Ball-Larus numbering (the PPP thesis's Figs. 3.17 and 3.18), then each\n"+
			"function's δs, those PPP improves most first.\n"+
			"δ = (max id − min id + 1)/|I| measures how compactly a numbering packs the\n"+
			"ids of a function's interesting paths I (those a PPP build counts, or those\n"+
			"that ran). It is 1 when the ids leave no hole, and otherwise the factor by\n"+
			"which an array of counters indexed by id outgrows the paths it counts.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	p, _, code := loadProfile("pathcover stats", dir.dirs)
	if code != 0 {
		return code
	}
	pkgs, code := selectPackages("pathcover stats", metaPackages(p), fs.Args())
	if code != 0 {
		return code
	}
	st, errs := report.Stats(p, pkgs)
	for _, err := range errs {
		fmt.Fprintf(os.Stderr, "pathcover stats: %v\n", err)
	}
	var err error
	if *asJSON {
		err = st.WriteJSON(os.Stdout)
	} else {
		err = st.WriteText(os.Stdout)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pathcover stats: %v\n", err)
		return 1
	}
	return 0
}
