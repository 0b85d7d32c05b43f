package instrument

// A PPP build (Config.Interesting set) counts each function's interesting
// paths, those its tests ran, in an array indexed by their preferential
// (PPP) ids, and records every other path, its residual paths, with its
// Ball-Larus id in the package's residual tables (package rt). The PPP
// register runs beside the Ball-Larus one, with its increments on the same
// chords, and each slot of the array holds the Ball-Larus id (+1) of its
// path, so a path whose PPP id aliases an interesting path's is caught
// (thesis §3.2.3):
//
//	if q := Q+c; q < S && slots[q][0] == R+c'+1 { slots[q][1]++ } else { residual(fn, R+c') }
//
// where slots is the function's array seen as a *[S][2]uint64, so that once
// q < S holds the compiler checks no bounds.
//
// Functions get, by their interesting paths I:
//   - none (I empty): no counters; every path is residual, so only the
//     Ball-Larus register runs;
//   - every path interesting: a Ball-Larus array, as in a Ball-Larus build;
//     no path can be residual;
//   - a small Ball-Larus array: no larger than the PPP array would be
//     (N ≤ 2S words), or at most Config.PPPSmall paths: the Ball-Larus
//     array, which costs one register and no check on every path, and
//     records the residual paths itself, exactly and by Ball-Larus id
//     (reports tell them from the interesting ones). PPP pays where
//     Ball-Larus numbering is sparse and large, as the thesis found (§3.6:
//     no gain where hot functions have few paths); for a few hundred
//     words, the second register and the alias check on every path cost
//     more than the cache lines they save. Config.PPPAlways turns this off;
//   - otherwise the PPP array of S = PPPSize slots; for a numbering with
//     more than Config.PPPSlots slots, the policy PPPLarge decides (thesis
//     §3.6, hash table usage policy): PPPTruncate keeps the first PPPSlots
//     slots and lets the interesting paths past them be recorded as
//     residual (reports, which know I, count them as tested again); PPPHashTable
//     counts I in a hash table keyed by Ball-Larus id, filled in at
//     registration, so only the Ball-Larus register runs and a miss is
//     residual.

import (
	"fmt"
	"strconv"

	"github.com/pathcover/pathcover/numbering"
	"github.com/pathcover/pathcover/profile"
)

// A LargePPP is what a function whose PPP numbering needs more than
// Config.PPPSlots slots gets; pppexec's -ppplarge flag spells it as the
// constant's value.
type LargePPP string

const (
	PPPTruncate  LargePPP = "truncate" // the first slots; interesting paths past them are residual
	PPPHashTable LargePPP = "hash"     // a hash table of the interesting paths
)

// String and Set make a LargePPP a flag.Value.
func (l *LargePPP) String() string { return string(*l) }

func (l *LargePPP) Set(s string) error {
	switch v := LargePPP(s); v {
	case PPPTruncate, PPPHashTable:
		*l = v
		return nil
	}
	return fmt.Errorf("want %s or %s", PPPTruncate, PPPHashTable)
}

// Defaults of Config.PPPSlots and Config.PPPSmall.
const (
	DefaultPPPSlots = 1 << 12
	DefaultPPPSmall = 256 // 2 KiB of counters
)

// counting is how one function counts its paths.
type counting struct {
	fn  int // the function's index in the package's metadata
	c   profile.Counters
	ppp *numbering.PPP // for CounterPPP
	// reg and preg are the Ball-Larus and PPP registers: a function's own
	// locals when empty, or a supergraph's (see ippp.go).
	reg, preg string
	// sink, if set, is the function that counts a path, given its
	// Ball-Larus and PPP ids, in a clone for another package.
	sink string
}

func (ct *counting) registers() (bl, ppp string) {
	if ct.reg == "" {
		return register, pppReg
	}
	return ct.reg, ct.preg
}

// layoutPPP decides how a function of a PPP build counts, fills in its
// metadata's PPP fields and counters, and returns init with the words
// Register must set.
func layoutPPP(ct *counting, pkg string, mf *profile.Func, p *numbering.Placement, offset int, cfg *Config, init []uint64) []uint64 {
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
		if n := p.NumPaths(); !cfg.PPPAlways && n <= cfg.MaxArrayPaths && (n <= cfg.PPPSmall || n <= 2*min(q.Size(), cfg.PPPSlots)) {
			ct.c.Kind, ct.c.Size = profile.CounterArray, int(n)
			return init
		}
	}
	if err == nil && (q.Size() <= cfg.PPPSlots || cfg.PPPLarge == PPPTruncate) {
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

// pppCount is the code of a count op of a function with a PPP array.
func pppCount(op numbering.Op, ct *counting, cfg *Config) string {
	slots := uint64(ct.c.Size / 2)
	view := slotView + strconv.Itoa(ct.fn)
	pinc := ct.ppp.Inc(op.Edge)
	if op.Kind == numbering.OpCountConst {
		// Both ids are known here: the check is made now.
		if bl, ok := ct.ppp.BL(pinc); ok && bl == op.Inc && pinc < slots {
			return increment(fmt.Sprintf("%s[%d][1]", view, pinc), cfg)
		}
		return fmt.Sprintf("%s(%d, %d)", residFunc, ct.fn, op.Inc)
	}
	reg, preg := ct.registers()
	return slotCount(ct, cfg, pathID(reg, op), pathID(preg, numbering.Op{Kind: numbering.OpCount, Inc: pinc}))
}

// slotCount is the code that counts path bl, with PPP id ppp, in a PPP
// array; bl and ppp are expressions without side effects.
func slotCount(ct *counting, cfg *Config, bl, ppp string) string {
	slots := uint64(ct.c.Size / 2)
	view := slotView + strconv.Itoa(ct.fn)
	return fmt.Sprintf("if %s := %s; %s < %d && %s[%s][0] == %s+1 { %s } else { %s(%d, %s) }",
		pppID, ppp, pppID, slots, view, pppID, bl,
		increment(fmt.Sprintf("%s[%s][1]", view, pppID), cfg),
		residFunc, ct.fn, bl)
}
