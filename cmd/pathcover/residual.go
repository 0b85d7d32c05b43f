package main

import (
	"flag"
	"fmt"
	"os"
)

func residualMain(args []string) int {
	fs := flag.NewFlagSet("pathcover residual", flag.ContinueOnError)
	dir := profileFlag(fs)
	asJSON := fs.Bool("json", false, "write JSON")
	show := fs.Int("show", 10, "decode at most `n` residual paths of each function")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: pathcover residual [-dir D] [-json] [-show n] [packages]\n\n"+
			"Lists the residual paths of a PPP build's profile: paths that ran (in the\n"+
			"field) but not in the tests whose profile the build was made with\n"+
			"(pppexec -interesting). Each function's, decoded to its branches in the\n"+
			"source, most runs first; then a summary: untested paths and their share of\n"+
			"the paths and of the runs, untested edges, and the untested paths of\n"+
			"functions with no untested edge, which only path profiling finds.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	r, _, code := openReport("pathcover residual", dir.dirs, fs.Args())
	if code != 0 {
		return code
	}
	res, err := r.Residual(*show)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pathcover residual: %v\n", err)
		return 1
	}
	if *asJSON {
		err = res.WriteJSON(os.Stdout)
	} else {
		err = res.WriteText(os.Stdout)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pathcover residual: %v\n", err)
		return 1
	}
	return 0
}
