// Command pathcover measures and reports the acyclic paths of Go functions.
//
// It is a vet tool and a standalone analyzer:
//
//	go vet -vettool=$(which pathcover) ./...   # report functions with too many paths
//	pathcover ./...                            # the same, without vet
//	pathcover -pathcover.maxpaths=200 ./...    # a lower limit
//
// and it has subcommands, which take precedence over package patterns (write
// ./cfg for a package named cfg):
//
//	pathcover cfg [-dot] [-test] [PKG.]FUNC
//
// cfg prints a function's control-flow graph, Ball-Larus numbering and
// counter placement: each block with its statements; each edge with its
// branch outcome, its probe site, its Ball-Larus weight, whether it is a
// chord and its increment, and its profiling code; the cut edges; and, for
// a function with few paths, every path. With -dot it writes Graphviz DOT
// instead. FUNC is spelled as in stack traces: F, T.M, (*T).M, F.func1;
// without PKG it is looked up in the package in the current directory.
// With -test the package's tests are loaded too, for functions in _test.go
// files.
package main
