package wet

import (
	"encoding/binary"
	"maps"
	"slices"

	"github.com/pathcover/pathcover/internal/query/wet/bidi"
	"github.com/pathcover/pathcover/internal/spill"
	"github.com/pathcover/pathcover/profile"
)

// Value groups (the paper's tier 1, 3.2). The value sites of one block run
// together, so they share one label of timestamps; and those whose values
// follow from the same inputs repeat together: where x takes the values
// x1 x2 x1 x2, y = f(x) and z = g(x, y) take y1 y2 y1 y2 and z1 z2 z1 z2.
// Such a group keeps each distinct tuple of its sites' values once
// (Words) and, per execution, the index of its tuple (Pattern).
//
// A site's inputs are found within its block, statement by statement: the
// variable it records was set by an earlier statement of the block (or its
// own, for a value recorded after it), whose inputs are those of the
// variables that statement reads, or by none, and then the variable is an
// input itself. A statement whose result the block cannot see (a call, a
// read through memory, the function's entry) is an input of its own.
// Sites with the same inputs form a group, and a group whose inputs are a
// proper subset of another's joins it (the first such, in the order of
// the sites), which also puts a statement that several groups read into
// one of them only (the paper's three rules).
//
// The grouping is what the metadata says runs together; the recording has
// the last word. Sites of a static group whose timestamps differ (a panic
// in the middle of a block) are grouped apart, and a group keeps a pattern
// only if its second-tier streams come out smaller with it than without:
// a pattern pays when tuples repeat, and costs a stream when they do not.

// A ValueGroup is value sites of one function recorded at the same path
// executions: their timestamps (Times, or as executions of their
// statement, Execs, as an access label's), and their values, either each
// site's every value (Pattern nil: Words[m][k] is the k-th word of member
// m's values, one per timestamp) or, with a pattern, the distinct tuples
// of the members' values (Words[m][k] the k-th word of member m's value
// in each tuple) and for each timestamp the index of its tuple (Pattern).
type ValueGroup struct {
	Func    int
	Sites   []uint32 // the members, indexes in the function's Deps.Values
	Times   *bidi.Stream
	Execs   *Execs // when Times is nil
	Pattern *bidi.Stream
	Words   [][]*bidi.Stream
	// Constant[m][k] is the value of word k of member m where its every
	// entry is the same and Words[m][k] is nil (a stream spends its
	// header and some bits a run at least; a constant nothing).
	Constant [][]uint64
}

// tuples returns the entries of each word stream: a value per timestamp
// without a pattern, a distinct tuple each with one (the length of a word
// stream, or 1 if every word is a constant); -1 if the members have no
// word.
func (g *ValueGroup) tuples() int {
	words := false
	for _, ws := range g.Words {
		for _, s := range ws {
			if s != nil {
				return s.Len()
			}
			words = true
		}
	}
	switch {
	case !words:
		return -1
	case g.Pattern == nil:
		return g.count()
	}
	return 1
}

// count returns the group's number of values.
func (g *ValueGroup) count() int {
	if g.Execs != nil {
		return g.Execs.N
	}
	return g.Times.Len()
}

// wordValues returns the entries of word k of member m.
func (g *ValueGroup) wordValues(m, k int) []uint64 {
	if s := g.Words[m][k]; s != nil {
		return s.Values()
	}
	out := make([]uint64, max(0, g.tuples()))
	for i := range out {
		out[i] = g.Constant[m][k]
	}
	return out
}

// staticGroups partitions the value sites of a function by block and
// inputs (see above); each part's sites are in the order of d.Values.
func staticGroups(d *profile.Deps) [][]uint32 {
	stmtBlock := make(map[int32]int, len(d.Stmts))
	stmtIndex := make(map[int32]int, len(d.Stmts))
	for b, list := range d.Blocks {
		for i, st := range list {
			stmtBlock[st], stmtIndex[st] = b, i
		}
	}
	type groupKey struct {
		block  int
		inputs string
	}
	var groups [][]uint32
	var inputs []map[input]bool
	var blocks []int
	byKey := make(map[groupKey]int)
	for s, v := range d.Values {
		b, ok := stmtBlock[v.Stmt]
		if !ok {
			// Not in a block the metadata lists: a group of its own.
			groups = append(groups, []uint32{uint32(s)})
			inputs = append(inputs, nil)
			blocks = append(blocks, -1-s)
			continue
		}
		// The value reaching the site: set by a statement of the block
		// before it, or by its own if recorded after it.
		upTo := stmtIndex[v.Stmt]
		if v.After {
			upTo++
		}
		in := inputsOf(d, d.Blocks[b][:upTo], v.Var)
		k := groupKey{b, inputKey(in)}
		if g, ok := byKey[k]; ok {
			groups[g] = append(groups[g], uint32(s))
			continue
		}
		byKey[k] = len(groups)
		groups = append(groups, []uint32{uint32(s)})
		inputs = append(inputs, in)
		blocks = append(blocks, b)
	}
	// A group whose inputs another's hold and more joins the first such.
	joined := make([]int, len(groups))
	for g := range groups {
		joined[g] = g
		if inputs[g] == nil {
			continue
		}
		for h := range groups {
			if h != g && blocks[h] == blocks[g] && len(inputs[h]) > len(inputs[g]) && subset(inputs[g], inputs[h]) {
				joined[g] = h
				break
			}
		}
	}
	// Follow chains of joins (g into h into i) to their end.
	root := func(g int) int {
		for n := 0; joined[g] != g && n < len(groups); n++ {
			g = joined[g]
		}
		return g
	}
	parts := make(map[int][]uint32)
	var order []int
	for g := range groups {
		r := root(g)
		if _, ok := parts[r]; !ok {
			order = append(order, r)
		}
		parts[r] = append(parts[r], groups[g]...)
	}
	out := make([][]uint32, 0, len(order))
	for _, r := range order {
		p := parts[r]
		slices.Sort(p)
		out = append(out, p)
	}
	return out
}

// An input is what a value depends on from outside its block's
// statements before it: a variable (stmt -1) or a statement's results.
type input struct {
	v, stmt int32
}

// inputsOf returns the inputs of variable v after the statements stmts,
// in order, have run.
func inputsOf(d *profile.Deps, stmts []int32, v int32) map[input]bool {
	// The inputs of each variable the statements set, statement by
	// statement.
	cur := make(map[int32]map[input]bool)
	of := func(v int32) map[input]bool {
		if in, ok := cur[v]; ok {
			return in
		}
		return map[input]bool{{v: v, stmt: -1}: true}
	}
	for _, st := range stmts {
		if int(st) >= len(d.Stmts) {
			continue
		}
		s := &d.Stmts[st]
		var in map[input]bool
		if st == 0 || len(s.Calls) > 0 || len(s.Memory) > 0 {
			in = map[input]bool{{v: -1, stmt: st}: true}
		} else {
			in = make(map[input]bool)
			for _, u := range s.Uses {
				maps.Copy(in, of(u))
			}
		}
		for _, def := range s.Defs {
			cur[def] = in
		}
	}
	return of(v)
}

// inputKey is a set of inputs as a map key.
func inputKey(in map[input]bool) string {
	keys := slices.SortedFunc(maps.Keys(in), func(a, b input) int {
		if a.v != b.v {
			return int(a.v) - int(b.v)
		}
		return int(a.stmt) - int(b.stmt)
	})
	b := make([]byte, 0, 8*len(keys))
	for _, k := range keys {
		b = append(b, byte(k.v), byte(k.v>>8), byte(k.v>>16), byte(k.v>>24), byte(k.stmt), byte(k.stmt>>8), byte(k.stmt>>16), byte(k.stmt>>24))
	}
	return string(b)
}

// subset reports whether every input of a is in b.
func subset(a, b map[input]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// siteValues are one site's values as the builder holds them: its
// timestamps, them as its statement's executions (skips) and its words
// (words[k] the k-th word of each value).
type siteValues struct {
	site  uint32
	times *column
	skips *skips
	words []*column
}

// dynamicGroups splits a static group by what the recording shows: the
// sites whose timestamps are the same, in the order of their first site.
func dynamicGroups(sites []*siteValues) ([][]*siteValues, error) {
	var out [][]*siteValues
next:
	for _, s := range sites {
		for i, g := range out {
			same, err := g[0].times.equal(s.times)
			if err != nil {
				return nil, err
			}
			if same {
				out[i] = append(g, s)
				continue next
			}
		}
		out = append(out, []*siteValues{s})
	}
	return out, nil
}

// encodedGroup is a group made streams, with the bytes of its second
// tier: its values' (words and pattern) and its timestamps'.
type encodedGroup struct {
	ValueGroup
	tier1Words           int64
	valueBytes, allBytes int64
	// timeBytes are the first member's timestamps' bytes, and wordBytes
	// each member's words' without a pattern (siteBytes).
	timeBytes int64
	wordBytes []int64
}

// maxPatternTuples bounds the distinct tuples of a group's values that
// encodeGroup holds to make a pattern: past it the group keeps each
// member's values (a pattern pays where tuples repeat; with more than
// this many distinct ones, it would hold them all in memory to find out).
const maxPatternTuples = 1 << 20

// encodeGroup makes the group of sites (all with the same timestamps)
// streams, with a pattern if that makes its values' streams smaller; when
// encodes the timestamps (builder.when).
func (b *builder) encodeGroup(fn int, sites []*siteValues, opt *bidi.Options, when func(s *siteValues) (*bidi.Stream, *Execs, int64, error)) (encodedGroup, error) {
	enc := func(c *column) (*bidi.Stream, int64, error) {
		s, err := bidi.CompressSource(c, opt)
		if err != nil {
			return nil, 0, err
		}
		b, _ := s.MarshalBinary()
		return s, int64(len(b)), nil
	}
	// word encodes a word's values: a constant, or a stream.
	word := func(c *column) (*bidi.Stream, uint64, int64, error) {
		if v, ok := c.constant(); ok {
			return nil, v, constBytes(v), nil
		}
		s, size, err := enc(c)
		return s, 0, size, err
	}
	g := encodedGroup{ValueGroup: ValueGroup{Func: fn}}
	var timeBytes int64
	var err error
	if g.Times, g.Execs, timeBytes, err = when(sites[0]); err != nil {
		return g, err
	}
	n := sites[0].times.Len()

	// Every value of every site.
	plain := make([][]*bidi.Stream, len(sites))
	plainConst := make([][]uint64, len(sites))
	var plainBytes, plainWords int64
	g.timeBytes, g.wordBytes = timeBytes, make([]int64, len(sites))
	for m, s := range sites {
		g.Sites = append(g.Sites, s.site)
		for _, w := range s.words {
			st, c, size, err := word(w)
			if err != nil {
				return g, err
			}
			plain[m], plainConst[m] = append(plain[m], st), append(plainConst[m], c)
			plainBytes += size
			plainWords += int64(w.Len())
			g.wordBytes[m] += size
		}
	}
	// The distinct tuples and the pattern.
	tuples := make(map[string]uint64)
	pattern := b.column()
	unique := make([][]*column, len(sites))
	var readers []*spill.ColumnReader
	for m, s := range sites {
		for range s.words {
			unique[m] = append(unique[m], b.column())
		}
		for _, w := range s.words {
			readers = append(readers, w.Reader())
		}
	}
	var key []byte
	row := make([]uint64, len(readers))
	for range n {
		key = key[:0]
		for k, r := range readers {
			x, _ := r.Next()
			row[k] = x
			key = append(key, byte(x), byte(x>>8), byte(x>>16), byte(x>>24), byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56))
		}
		t, ok := tuples[string(key)]
		if !ok {
			if len(tuples) == maxPatternTuples {
				tuples = nil // no pattern: see maxPatternTuples
				break
			}
			t = uint64(len(tuples))
			tuples[string(key)] = t
			k := 0
			for m := range sites {
				for _, u := range unique[m] {
					u.add(row[k])
					k++
				}
			}
		}
		pattern.add(t)
	}
	if err := b.cols.Err(); err != nil {
		return g, err
	}
	var patBytes, patWords int64
	var patStream *bidi.Stream
	grouped := make([][]*bidi.Stream, len(sites))
	groupedConst := make([][]uint64, len(sites))
	if tuples != nil && len(tuples) < n {
		if patStream, patBytes, err = enc(pattern); err != nil {
			return g, err
		}
		patWords = int64(n)
		for m := range sites {
			for _, w := range unique[m] {
				st, c, size, err := word(w)
				if err != nil {
					return g, err
				}
				grouped[m], groupedConst[m] = append(grouped[m], st), append(groupedConst[m], c)
				patBytes += size
				patWords += int64(w.Len())
			}
		}
	}
	g.tier1Words = int64(n)
	if patStream != nil && patBytes < plainBytes {
		g.Pattern, g.Words, g.Constant = patStream, grouped, groupedConst
		g.valueBytes, g.tier1Words = patBytes, g.tier1Words+patWords
	} else {
		g.Words, g.Constant = plain, plainConst
		g.valueBytes, g.tier1Words = plainBytes, g.tier1Words+plainWords
	}
	g.allBytes = timeBytes + g.valueBytes
	return g, nil
}

// metaGroups are the static groups of function fn's metadata.
func (b *builder) metaGroups(fn int) [][]uint32 {
	if mf := b.meta(fn); mf != nil && mf.Deps != nil {
		return staticGroups(mf.Deps)
	}
	return nil
}

// groupValues makes the builder's value sites groups (w.ValueGroups) and
// their labels (w.Values), counting their sizes, and what each site's own
// streams would take without groups (Stats.SiteValueBytes, against
// Stats.GroupedValueBytes). The function
// static gives a function's static groups (staticGroups of its metadata),
// nil if it has none.
func (b *builder) groupValues(opt *bidi.Options, static func(fn int) [][]uint32) error {
	st := &b.w.Stats
	byFunc := make(map[int][]int) // a function's site labels
	var fns []int
	for v, l := range b.w.Values {
		if _, ok := byFunc[l.Func]; !ok {
			fns = append(fns, l.Func)
		}
		byFunc[l.Func] = append(byFunc[l.Func], v)
	}
	// Each function's sites are grouped and encoded as a task of its
	// own, and gathered in the order of the functions.
	type encoded struct {
		g         encodedGroup
		siteBytes int64
	}
	results := make([][]encoded, len(fns))
	sizes := make([]Stats, len(fns))
	err := parallel(len(fns), func(i int) error {
		fn := fns[i]
		sites := make(map[uint32]*siteValues)
		var order []uint32
		for _, v := range byFunc[fn] {
			l, vl := b.w.Values[v], b.vals[v]
			sizes[i].ValueRecords += int64(vl.times.Len())
			sites[l.Site] = &siteValues{site: l.Site, times: vl.times, skips: &vl.skips, words: vl.words}
			order = append(order, l.Site)
		}
		slices.Sort(order)
		// The sites of the static groups that ran, then any the metadata
		// does not list, each alone.
		placed := make(map[uint32]bool)
		var parts [][]*siteValues
		for _, sg := range static(fn) {
			var part []*siteValues
			for _, s := range sg {
				if sv, ok := sites[s]; ok && !placed[s] {
					part = append(part, sv)
					placed[s] = true
				}
			}
			if len(part) > 0 {
				parts = append(parts, part)
			}
		}
		for _, s := range order {
			if !placed[s] {
				parts = append(parts, []*siteValues{sites[s]})
			}
		}
		for _, part := range parts {
			dgs, err := dynamicGroups(part)
			if err != nil {
				return err
			}
			for _, dg := range dgs {
				g, err := b.encodeGroup(fn, dg, opt, func(s *siteValues) (*bidi.Stream, *Execs, int64, error) {
					return b.when(fn, b.siteStmt(fn, s.site), s.times, s.skips, opt)
				})
				if err != nil {
					return err
				}
				e := encoded{g: g, siteBytes: g.allBytes} // alone, the same streams
				if len(dg) > 1 || g.Pattern != nil {
					if e.siteBytes, err = b.siteBytes(fn, dg, &g, opt); err != nil {
						return err
					}
				}
				results[i] = append(results[i], e)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var labels []ValueLabel
	for i, fn := range fns {
		st.add(sizes[i])
		for _, e := range results[i] {
			g := e.g
			st.Tier1Words += g.tier1Words
			st.Tier2Bytes += g.allBytes
			st.ValueBytes += g.valueBytes
			st.GroupedValueBytes += g.allBytes
			st.SiteValueBytes += e.siteBytes
			gi := len(b.w.ValueGroups)
			b.w.ValueGroups = append(b.w.ValueGroups, g.ValueGroup)
			for m, s := range g.Sites {
				labels = append(labels, ValueLabel{Func: fn, Site: s, Group: gi, Member: m})
			}
		}
	}
	b.w.Values = labels
	return nil
}

// siteBytes returns what the sites' values would take in the second tier
// without groups: each its own timestamps and words (a constant word as
// in a group). Their words are those of the group g without a pattern,
// and the first member's timestamps g's.
func (b *builder) siteBytes(fn int, sites []*siteValues, g *encodedGroup, opt *bidi.Options) (int64, error) {
	n := g.timeBytes
	for m, s := range sites {
		if m > 0 {
			_, _, size, err := b.when(fn, b.siteStmt(fn, s.site), s.times, s.skips, opt)
			if err != nil {
				return 0, err
			}
			n += size
		}
		n += g.wordBytes[m]
	}
	return n, nil
}

// constBytes is what a constant field or word takes in the file: its tag
// and its value.
func constBytes(c uint64) int64 {
	return 1 + int64(len(binary.AppendUvarint(nil, c)))
}
