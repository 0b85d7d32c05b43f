package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/pathcover/pathcover/analyzer/pathnumber"
)

var cmdCfg = &Command{
	UsageLine: "pathcover cfg [-dot] [-test] [PKG.]FUNC",
	Short:     "print a function's control-flow graph and its numbering",
	Long: `
Prints a function's control-flow graph, Ball-Larus numbering and counter
placement: each block with its statements; each edge with its branch
outcome, its probe site, its Ball-Larus weight, whether it is a chord and
its increment, and its profiling code; the cut edges; and, for a function
with few paths, every path. With -dot it writes Graphviz DOT instead.
FUNC is spelled as in stack traces: F, T.M, (*T).M, F.func1; without PKG,
it is looked up in the package in the current directory. With -test the
package's tests are loaded too, for functions in _test.go files.
`,
	Flags: func(fs *flag.FlagSet) Run {
		dot := fs.Bool("dot", false, "write Graphviz DOT instead of text")
		tests := fs.Bool("test", false, "also load the package's tests")
		return func(cmd *Command, args []string) int {
			if len(args) != 1 {
				fs.Usage()
				return exitUsage
			}
			pkg, f, err := findFunc(args[0], *tests)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitFail
			}
			if f.Err != nil {
				fmt.Fprintf(os.Stderr, "%s: %s cannot be numbered: %v\n", cmd.LongName(), args[0], f.Err)
			}
			if *dot {
				f.FormatDOT(os.Stdout, pkg.Fset, f.Placement)
			} else {
				f.Format(os.Stdout, pkg.Fset, f.Placement)
			}
			return 0
		}
	},
}

// findFunc loads the package of a PKG.FUNC name and returns the function. A
// package path may itself contain dots after its last slash (gopkg.in/yaml.v3),
// so each split is tried, shortest package path first; last, the whole name
// is tried as a function of the package in the current directory.
func findFunc(name string, tests bool) (*pathnumber.Package, *pathnumber.Func, error) {
	type split struct{ path, fn string }
	var splits []split
	for i := strings.LastIndex(name, "/") + 1; i < len(name); i++ {
		if name[i] == '.' && i > 0 && name[i-1] != '/' && name[i-1] != '.' {
			splits = append(splits, split{name[:i], name[i+1:]})
		}
	}
	splits = append(splits, split{".", name})
	var tried []string
	for _, s := range splits {
		if s.fn == "" {
			continue
		}
		pkgs, err := pathnumber.Load("", tests, s.path)
		if err != nil {
			tried = append(tried, err.Error())
			continue
		}
		for _, p := range pkgs {
			if f := p.Result.Lookup(s.fn); f != nil {
				return p, f, nil
			}
		}
		tried = append(tried, fmt.Sprintf("package %s has no function %s", s.path, s.fn))
	}
	return nil, nil, fmt.Errorf("no function %s:\n\t%s", name, strings.Join(tried, "\n\t"))
}
