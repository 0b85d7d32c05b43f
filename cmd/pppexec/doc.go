// Command pppexec is a -toolexec wrapper that profiles the acyclic paths of
// Go programs:
//
//	go test -toolexec=pppexec ./...
//	go build -toolexec="pppexec -o $PWD/profile" ./cmd/app
//
// Profiled programs write path counts into $PATHCOVERDIR, or the directory
// given with -o; `pathcover report` reads them. With neither set, a profiled
// program writes nothing and runs like an unprofiled one.
//
// Usage:
//
//	pppexec [flags] /path/to/tool [tool args]
//
// The flags:
//
//	-pkgs patterns   comma-separated import path patterns of the packages to
//	                 instrument (... wildcards; "main" for the main module's
//	                 packages, the default; "std" for the standard library)
//	-o dir           where profiled programs write counts when $PATHCOVERDIR
//	                 is not set
//	-atomic          count atomically (always on with -race)
//	-arraylimit n    functions with more paths than n count in a hash table
//	-hashslots n     the size of those hash tables
//	-shard p         a copy of each package's counters per P, so that
//	                 goroutines running at once on several cores never write
//	                 the same cache line (by default, -shard=none, all share
//	                 one); $PATHCOVERSHARDS, when the program runs, bounds
//	                 how many
//	-strict          fail the build if a package cannot be instrumented,
//	                 or a file of the -interesting or -ippp profile cannot
//	                 be read (without it, such a file is skipped with one
//	                 warning naming it)
//	-v               report each package instrumented
//	-interesting p   PPP build: the paths that profile p ran are the tested
//	                 ones; every other path is recorded as residual
//	-ippp p          interprocedural build: follow the calls on the paths
//	                 that profile p ran into their callees
//	-profilekey gcflags
//	                 key the -interesting and -ippp profiles in the
//	                 instrumented packages' -gcflags instead of pppexec's
//	                 build ID, so that a build after a new profile compiles
//	                 only those packages again; the go command must then be
//	                 given the flags that -printgcflags prints:
//
//	go build -toolexec="pppexec -interesting=$P -profilekey=gcflags" $(pppexec -interesting=$P -printgcflags) ./cmd/app
//
// pppexec -h lists them all.
//
// pppexec compiles the runtime it links into programs once per build
// configuration, and keeps it in $PATHCOVERCACHE, or else pathcover in the
// user cache directory, or else, with neither HOME nor XDG_CACHE_HOME set,
// pathcover in $GOCACHE. That directory must be the user's alone (not a
// symbolic link, not writable by group or others, nor in a directory that
// others can write): pppexec refuses any other, and then builds without
// instrumenting, saying why once (-strict: the build fails).
package main
