package instrument

// Counter layout: how each function counts its paths, in which words of
// the package's counters.
//
// A Ball-Larus build counts a function's paths in an array indexed by
// Ball-Larus id (profile.CounterArray), or, for a function with more than
// Options.MaxArrayPaths paths, in a hash table (profile.CounterHash), or,
// with Options.HotEntries, in a hot path table (profile.CounterHot).
//
// A PPP build (Config.Interesting set) counts each function's interesting
// paths, those its tests ran, in an array indexed by their preferential
// (PPP) ids, and records every other path, its residual paths, with its
// Ball-Larus id in the package's residual tables (package rt). The PPP
// register runs beside the Ball-Larus one, with its increments on the same
// chords, and each slot of the array holds the Ball-Larus id (+1) of its
// path, so a path whose PPP id aliases an interesting path's is caught
// (thesis §3.2.3; the statement is slotStmt's, in codegen.go).
//
// Functions get, by their interesting paths I:
//   - none (I empty): no counters (profile.CounterNone); every path is
//     residual, so only the Ball-Larus register runs;
//   - every path interesting: a Ball-Larus array, as in a Ball-Larus build;
//     no path can be residual;
//   - a small Ball-Larus array: no larger than the PPP array would be
//     (N ≤ 2S words), or at most Options.PPPSmall paths: the Ball-Larus
//     array, which costs one register and no check on every path, and
//     records the residual paths itself, exactly and by Ball-Larus id
//     (reports tell them from the interesting ones). PPP pays where
//     Ball-Larus numbering is sparse and large, as the thesis found (§3.6:
//     no gain where hot functions have few paths); for a few hundred
//     words, the second register and the alias check on every path cost
//     more than the cache lines they save. A supergraph gets one up to
//     Options.MaxArrayPaths paths, as a Ball-Larus build gives it: its
//     untested segments are not rare as a function's untested paths are
//     (every pairing of tested caller and callee paths that the tests did
//     not make is one), and each run of one in a PPP array misses and
//     probes a residual table. Options.PPPAlways turns this off;
//   - otherwise the PPP array of S = PPPSize slots (profile.CounterPPP);
//     for a numbering with more than Spec.PPPSlots slots, the policy
//     PPPLarge decides (thesis §3.6, hash table usage policy): buildspec.PPPTruncate
//     keeps the first PPPSlots slots and lets the interesting paths past
//     them be recorded as residual (reports, which know I, count them as
//     tested again); buildspec.PPPHashTable counts I in a hash table keyed by
//     Ball-Larus id (profile.CounterPPPHash), filled in at registration, so
//     only the Ball-Larus register runs and a miss is residual.

import (
	"github.com/pathcover/pathcover/internal/buildspec"
	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// counting is how one function, or one supergraph, counts its paths.
type counting struct {
	fn int // its index in the package's metadata
	// sharded says that its array or PPP array is counted in the shard of
	// the P that runs the goroutine (Options.Shard).
	sharded bool
	c       profile.Counters
	ppp     *numbering.PPP // for profile.CounterPPP
	// reg and preg are the Ball-Larus and PPP registers: a function's own
	// locals when empty, or a supergraph's (see supergraph.go).
	reg, preg string
	// sink, if set, is the function that counts a path, given its
	// Ball-Larus and PPP ids, in a clone for another package.
	sink string
	// local says that the counts index the function's local copy of its
	// view (localViewDecl), which a function's own counting, in its own
	// body, has.
	local bool
	// likely gives the id of the path most likely counted at the end of a
	// loop's round (a cut's end edge; numbering.Placement's LikelyPath),
	// and false at other edges: set for a function's own counting when it
	// has local, and for a supergraph's in its package's counters.
	likely func(numbering.EdgeID) (uint64, bool)
	// paths is the number of the function's Ball-Larus paths, which tells
	// a -flight build whether an id fits in a ring's entry (flightStmt).
	paths uint64
	// flight, in a -flight build that counts plainly, says where a
	// function that holds its ring's position in a local may use it
	// (flightPositions); nil if it does not hold it.
	flight *flightPositions
}

// registers returns the Ball-Larus and PPP registers' names.
func (ct *counting) registers() (bl, ppp string) {
	if ct.reg == "" {
		return register, pppReg
	}
	return ct.reg, ct.preg
}

// layout gives a function or a supergraph, whose metadata mf is complete
// but for its counters and whose placement is p, its counters after the
// package's others; adds its metadata; and returns how it counts, in
// registers reg and preg (its own locals when empty).
func (b *builder) layout(mf *profile.Func, p *numbering.Placement, reg, preg string) *counting {
	ct := &counting{fn: len(b.meta.Funcs), reg: reg, preg: preg, paths: p.NumPaths(), sharded: b.cfg.Shard.Sharded()}
	b.init = layoutCounters(ct, b.cfg, b.cfg.Package, mf, mf.Super != nil, p, b.meta.Words, b.init)
	mf.Counters = ct.c
	b.meta.Words += mf.Counters.Size
	b.meta.Funcs = append(b.meta.Funcs, *mf)
	return ct
}

// layoutCounters decides how a function of package pkg, or a supergraph
// if super, counts, with its counters at offset in the package's words:
// as a Ball-Larus build does, or, in a PPP build, as its interesting paths
// say (filling in mf's PPP fields). It returns init with the words
// Register must set.
func layoutCounters(ct *counting, cfg *Config, pkg string, mf *profile.Func, super bool, p *numbering.Placement, offset int, init []uint64) []uint64 {
	if cfg.Interesting == nil {
		if p.NumPaths() <= cfg.MaxArrayPaths {
			ct.c = profile.Counters{Offset: offset, Kind: profile.CounterArray, Size: int(p.NumPaths())}
		} else if cfg.HotEntries > 0 {
			sets := 1
			for sets*profile.HotWays < cfg.HotEntries {
				sets *= 2
			}
			ct.c = profile.Counters{Offset: offset, Kind: profile.CounterHot, Size: 3 * profile.HotWays * sets}
		} else {
			ct.c = profile.Counters{Offset: offset, Kind: profile.CounterHash, Size: 2*cfg.HashSlots + 1}
		}
		return init
	}
	ids, stale := cfg.Interesting(pkg, mf.Name, mf)
	mf.Stale = stale
	if stale {
		ids = nil
	}
	mf.Interesting = ids
	ct.c = profile.Counters{Offset: offset, Kind: profile.CounterNone}
	switch {
	case len(ids) == 0:
		return init
	case uint64(len(ids)) == p.NumPaths():
		ct.c.Kind, ct.c.Size = profile.CounterArray, len(ids)
		return init
	}
	// From here on the function has residual paths.
	q, err := p.PPP(ids)
	if err == nil {
		mf.PPPSize = q.Size()
		if n := p.NumPaths(); !cfg.PPPAlways && n <= cfg.MaxArrayPaths && (super || n <= cfg.PPPSmall || n <= 2*min(q.Size(), cfg.PPPSlots)) {
			ct.c.Kind, ct.c.Size = profile.CounterArray, int(n)
			return init
		}
	}
	if err == nil && (q.Size() <= cfg.PPPSlots || cfg.PPPLarge == buildspec.PPPTruncate) {
		ct.ppp = q
		slots := min(q.Size(), cfg.PPPSlots)
		ct.c.Kind, ct.c.Size = profile.CounterPPP, int(2*slots)
		for pid := range slots {
			if bl, ok := q.BL(pid); ok {
				init = append(init, uint64(offset)+2*pid, bl+1)
			}
		}
		return init
	}
	// A hash table of the interesting paths, at most half full.
	n := uint64(2 * len(ids))
	table := make([]uint64, n)
	for _, id := range ids {
		i := profile.HashHome(id, n)
		for table[i] != 0 {
			if i++; i == n {
				i = 0
			}
		}
		table[i] = id + 1
		init = append(init, uint64(offset)+2*i, id+1)
	}
	ct.c.Kind, ct.c.Size = profile.CounterPPPHash, int(2*n)
	return init
}
