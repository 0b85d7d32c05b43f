// Package buildspec says what a pppexec build records and how it counts it:
// one Spec for every kind of build (Ball-Larus counts, PPP, IPPP, hot path
// tables, the flight recorder, whole program paths, slicing's and whole
// execution traces' recordings, per-test attribution, sharded and atomic
// counters).
//
// It is the one home of the build's flags, as cmd/go's work.AddBuildFlags
// is of the go command's build flags:
//
//   - AddFlags registers them, for pppexec and for pathcover test alike, with
//     one spelling, type and help each;
//   - Check says which combinations are builds, for the flag parser and for
//     the rewriter (instrument.Package refuses what the flags refuse);
//   - Args spells a Spec as pppexec's command line, for pathcover test, the
//     harness (bench) and, through pathcover test, the GitHub Action;
//   - Records says what a profile of the build can answer, which the
//     metadata keeps (profile.Meta.Records).
package buildspec
