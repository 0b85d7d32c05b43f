// Command pathcover measures and reports the acyclic paths of Go functions.
//
// It is a vet tool and a standalone analyzer:
//
//	go vet -vettool=$(which pathcover) ./...   # report functions with too many paths
//	pathcover ./...                            # the same, without vet
//	pathcover -pathcover.maxpaths=200 ./...    # a lower limit
//
// With a profile, the vet tool is a gate on untested paths:
//
//	go vet -vettool=$(which pathcover) -pathcover.profile=DIR -pathcover.min=80 ./...
//
// reports each function whose tests ran less than 80% of its paths, with
// its first untested paths decoded.
//
// It has subcommands, which take precedence over package patterns (write
// ./cfg for a package named cfg); each prints its flags with -h:
//
//	pathcover test [-dir D] [-ippp D] [go test flags] [packages]   profile tests, report
//	pathcover report [-dir D] [-json] [-interprocedural] [packages]   path coverage
//	pathcover paths [-dir D] [-untested] [PKG.]FUNC      a function's paths
//	pathcover merge [-o file] profiles...                one text profile
//	pathcover residual [-dir D] [-json] [packages]       residual paths of a PPP build
//	pathcover stats [-dir D] [-json] [packages]          δ of PPP and Ball-Larus ids
//	pathcover callsites [-dir D] [-k n] [-supergraph]    calls on paths that ran
//	pathcover gate -min N [-since REV] [packages]        the gate, for CI
//	pathcover cfg [-dot] [-test] [PKG.]FUNC              a function's graph
//	pathcover pppexec [flags] tool args...               the -toolexec wrapper
//
// The commands that read a profile take it from -dir (repeated, or
// comma-separated, for several) or $PATHCOVERDIR, and packages as the go
// command names them from the current directory (./..., ., ./sub, import
// paths, all, std). They exit with status 3 when there is nothing to
// report on: no profile, one that is empty, unreadable or without counts,
// or patterns that match none of its packages; with 2 for usage errors;
// gate with 1 when functions fall short, and with 3 too when a metadata
// file cannot be read.
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
//
// callsites lists the static calls between profiled functions that lie on
// paths the profile ran, with how many of the caller's paths pass through
// each and how often: the call sites that interprocedural path profiling
// follows into their callees. -k n also lists, under each site, the sites
// on the paths its callee ran, n levels deep. -supergraph prints instead,
// per caller, its acyclic paths and those of its supergraph: the caller
// with the callees of its sites inlined, which interprocedural PPP numbers.
//
// Interprocedural path segments (PPP thesis 3.4) are counted by a build
// that pppexec -ippp=SITES makes, SITES being the profile of an earlier
// run: pathcover test -ippp SITES does that for tests. Each caller with
// static calls of instrumented functions on paths that ran in SITES
// gets a supergraph, named CALLER@ippp: its graph with those callees
// inlined, whose paths are the segments caller path, callee path, rest of
// the caller path. report -interprocedural lists the supergraphs with the
// segments that ran out of all; paths CALLER@ippp decodes them, naming the
// function each run of branches is in; residual lists, for a PPP build made
// with -ippp=SITES -interesting=SEGMENTS, the segments that SEGMENTS never
// ran; stats gives the δ of their numberings.
package main
