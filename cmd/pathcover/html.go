package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/pathcover/pathcover/report"
)

func htmlMain(args []string) int {
	fs := flag.NewFlagSet("pathcover html", flag.ContinueOnError)
	dir := profileFlag(fs)
	out := fs.String("o", "", "write the page to `file` (- for standard output)")
	paths := fs.Int("paths", 100, "list at most `n` paths of each kind per function")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: pathcover html [-dir D] -o FILE [-paths n] [packages]\n\n"+
			"Writes one HTML page, which needs no network and no other file: an index of\n"+
			"packages and functions, worst covered first, and for each function its\n"+
			"source and its control-flow graph. Choosing a path (hottest of those that\n"+
			"ran, those that never ran, or the residual paths of a PPP build's profile)\n"+
			"highlights the lines, the branches and the edges it takes.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "pathcover html: give -o FILE (or -o - for standard output)")
		return exitUsage
	}
	r, _, code := openReport("pathcover html", dir.dirs, fs.Args())
	if code != 0 {
		return code
	}
	wd, _ := os.Getwd()
	var page bytes.Buffer
	if err := r.WriteHTML(&page, report.HTMLOptions{Paths: *paths, Sources: report.NewSources(wd)}); err != nil {
		fmt.Fprintf(os.Stderr, "pathcover html: %v\n", err)
		return 1
	}
	if *out == "-" {
		os.Stdout.Write(page.Bytes())
		return 0
	}
	// Built in memory first: a profile that fails to render leaves any old
	// page alone.
	if err := writeFile(*out, page.Bytes()); err != nil {
		fmt.Fprintf(os.Stderr, "pathcover html: %v\n", err)
		return 1
	}
	return 0
}
