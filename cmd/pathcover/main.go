package main

import (
	"fmt"
	"os"

	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/pathcover/pathcover/analyzer/pathcover"
)

// subcommands run instead of the analyzers when named first. vet's own
// calls (-V=full, -flags, a .cfg file) never start with one of them.
var subcommands = map[string]func(args []string) int{
	"cfg":       cfgMain,
	"test":      testMain,
	"report":    reportMain,
	"paths":     pathsMain,
	"merge":     mergeMain,
	"residual":  residualMain,
	"stats":     statsMain,
	"callsites": callsitesMain,
	"gate":      gateMain,
	"html":      htmlMain,
	"pppexec":   pppexecMain,
}

func main() {
	if len(os.Args) > 1 {
		if cmd, ok := subcommands[os.Args[1]]; ok {
			os.Exit(cmd(os.Args[2:]))
		}
		if os.Args[1] == "help" && len(os.Args) == 2 {
			usage()
			os.Exit(0)
		}
	}
	multichecker.Main(pathcover.Analyzer)
}

func usage() {
	fmt.Fprint(os.Stderr, `pathcover measures the acyclic paths of Go functions.

Usage:
	pathcover test [-dir D] [-json] [go test flags] [packages]
	pathcover report [-dir D] [-json] [-interprocedural] [packages]
	pathcover paths [-dir D] [-untested] [PKG.]FUNC
	pathcover merge [-o file] profiles...
	pathcover html [-dir D] -o FILE [-paths n] [packages]
	pathcover residual [-dir D] [-json] [packages]
	pathcover stats [-dir D] [-json] [packages]
	pathcover callsites [-dir D] [-k n] [-supergraph] [-json] [packages]
	pathcover gate -min N [-since REV] [-dir D] [-json] [-github] [packages]
	pathcover cfg [-dot] [-test] [PKG.]FUNC
	go vet -vettool=$(which pathcover) [-pathcover.maxpaths=N] [packages]
	go vet -vettool=$(which pathcover) -pathcover.profile=D [-pathcover.min=N] [packages]
	pathcover [-pathcover.maxpaths=N] [-json] [packages]

Run 'pathcover help pathcover' for the analyzer's flags,
and 'pathcover CMD -h' for a subcommand's.
`)
}
