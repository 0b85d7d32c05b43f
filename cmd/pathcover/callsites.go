package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/pathcover/pathcover/report"
)

func callsitesMain(args []string) int {
	fs := flag.NewFlagSet("pathcover callsites", flag.ContinueOnError)
	dir := profileFlag(fs)
	depth := fs.Int("k", 1, "follow calls `k` deep: sites in the callees of sites, to k levels")
	asJSON := fs.Bool("json", false, "write JSON")
	sizes := fs.Bool("supergraph", false, "print, per caller, its paths and those of its supergraph, the callees of its sites inlined")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: pathcover callsites [-dir D] [-k n] [-supergraph] [-json] [packages]\n\n"+
			"Lists the static calls between profiled functions that lie on paths the\n"+
			"profile ran, most runs first: the call sites that interprocedural path\n"+
			"profiling follows into their callees (the PPP thesis's depth-k segments,\n"+
			"3.4.2 and 3.5.2). With -k above 1, each site lists the sites on the\n"+
			"paths its callee ran, indented under it. Calls through interfaces and\n"+
			"function values, deferred calls, go statements and calls of functions\n"+
			"the profile does not cover are not sites. Packages select the callers;\n"+
			"callees can be in any profiled package.\n\n"+
			"With -supergraph it prints instead, per caller, how many acyclic paths it\n"+
			"has and how many its supergraph has: the graph that interprocedural PPP\n"+
			"numbers, the caller with the callees of its sites inlined (thesis 3.4.3).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *depth < 1 {
		fmt.Fprintf(os.Stderr, "pathcover callsites: -k %d: want 1 or more\n", *depth)
		return 2
	}
	// Callees are looked for in every package; patterns choose the callers.
	r, _, code := openReport("pathcover callsites", dir.dirs, nil)
	if code != 0 {
		return code
	}
	var have []string
	for _, pkg := range r.Packages {
		have = append(have, pkg.Path)
	}
	pkgs, code := selectPackages("pathcover callsites", have, fs.Args())
	if code != 0 {
		return code
	}
	sites, err := r.CallSites(*depth, pkgs)
	if err == nil && *sizes {
		var sz []*report.SupergraphSize
		if sz, err = r.SupergraphSizes(sites); err == nil {
			if *asJSON {
				err = report.WriteSupergraphSizesJSON(os.Stdout, sz)
			} else {
				err = report.WriteSupergraphSizes(os.Stdout, sz)
			}
		}
	} else if err == nil {
		if *asJSON {
			err = report.WriteCallSitesJSON(os.Stdout, sites)
		} else {
			err = report.WriteCallSites(os.Stdout, sites)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pathcover callsites: %v\n", err)
		return 1
	}
	return 0
}
