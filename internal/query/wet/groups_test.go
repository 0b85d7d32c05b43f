package wet

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/pathcover/pathcover/profile"
)

// TestStaticGroupsPaper groups the sites of the paper's two examples of
// value groups (section 3.2): x, then y = f(x), then z = g(x, y), all one
// group; and x read from memory with u = x+a and v = x+b, a and b from
// outside the block (Fig. 3): two groups, x in one of them only.
func TestStaticGroupsPaper(t *testing.T) {
	vars := []profile.DepVar{{Name: "p"}, {Name: "x"}, {Name: "y"}, {Name: "z"}, {Name: "a"}, {Name: "b"}}
	const p, x, y, z, a, b = 0, 1, 2, 3, 4, 5
	chain := &profile.Deps{
		Vars: vars,
		Stmts: []profile.DepStmt{
			{Defs: []int32{p}},
			{Defs: []int32{x}, Uses: []int32{p}, Memory: []string{"*p"}}, // x = *p
			{Defs: []int32{y}, Uses: []int32{x}},                         // y = x * 2
			{Defs: []int32{z}, Uses: []int32{x, y}},                      // z = x + y
		},
		Blocks: [][]int32{{0}, {1, 2, 3}},
		Values: []profile.DepValue{{Var: x, Stmt: 1, After: true}, {Var: y, Stmt: 2, After: true}, {Var: z, Stmt: 3, After: true}},
	}
	if got, want := staticGroups(chain), [][]uint32{{0, 1, 2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("x, y = f(x), z = g(x, y): groups %v, want %v", got, want)
	}
	fig3 := &profile.Deps{
		Vars: vars,
		Stmts: []profile.DepStmt{
			{Defs: []int32{p, a, b}},
			{Defs: []int32{x}, Uses: []int32{p}, Memory: []string{"*p"}}, // x = *p
			{Defs: []int32{y}, Uses: []int32{x, a}},                      // u = x + a
			{Defs: []int32{z}, Uses: []int32{x, b}},                      // v = x + b
		},
		Blocks: [][]int32{{0}, {1, 2, 3}},
		Values: []profile.DepValue{{Var: x, Stmt: 1, After: true}, {Var: y, Stmt: 2, After: true}, {Var: z, Stmt: 3, After: true}},
	}
	if got, want := staticGroups(fig3), [][]uint32{{0, 1}, {2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Fig. 3: groups %v, want %v", got, want)
	}
	// A value recorded before its statement is the one reaching it; sites
	// in different blocks are never grouped.
	split := &profile.Deps{
		Vars: vars,
		Stmts: []profile.DepStmt{
			{Defs: []int32{a}},
			{Defs: []int32{x}, Uses: []int32{a}}, // x = a + 1
			{Defs: []int32{x}, Uses: []int32{b}}, // x = b
			{Defs: []int32{y}, Uses: []int32{a}}, // y = a
		},
		Blocks: [][]int32{{0}, {1, 2}, {3}},
		Values: []profile.DepValue{{Var: x, Stmt: 1, After: true}, {Var: x, Stmt: 2}, {Var: y, Stmt: 3, After: true}},
	}
	if got, want := staticGroups(split), [][]uint32{{0, 1}, {2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("before and after: groups %v, want %v", got, want)
	}
}

// TestValueGroups groups random value sites, some recorded together with
// values that repeat as tuples, some with values that do not, some whose
// timestamps part (a block cut short), and checks that every site's
// values read back as recorded, directly and through the file, that a
// group's members are of one static group and were recorded at the same
// timestamps, and that both kinds of group were made.
func TestValueGroups(t *testing.T) {
	patterned, plain, multi := 0, 0, 0
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 77))
		b := newBuilder(t.TempDir(), nil)
		defer b.cols.Close()
		static := make(map[int][][]uint32)
		want := make(map[[2]int][]Value)
		for fn := range 1 + r.IntN(3) {
			b.w.Funcs = append(b.w.Funcs, Func{Hash: "h", Index: uint32(fn)})
			site := uint32(0)
			for range 1 + r.IntN(4) {
				members := 1 + r.IntN(4)
				var sg []uint32
				n := r.IntN(200)
				var times []uint64
				for i := range n {
					times = append(times, uint64(3*i+r.IntN(3)))
				}
				// Tuples from a few, or values at random.
				var tuples [][]uint64
				repeat := r.IntN(2) == 0
				for range 1 + r.IntN(5) {
					tup := make([]uint64, 2*members)
					for k := range tup {
						tup[k] = r.Uint64N(1 << 40)
					}
					tuples = append(tuples, tup)
				}
				for m := range members {
					words := 1 + r.IntN(2)
					sv := struct {
						times []uint64
						words [][]uint64
					}{times: times, words: make([][]uint64, words)}
					if m > 0 && r.IntN(6) == 0 && n > 0 {
						sv.times = times[:n-1] // this site's last value never came
					}
					var vals []Value
					for i := range sv.times {
						tup := tuples[i%len(tuples)]
						if !repeat {
							tup = []uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()}
						}
						v := Value{T: sv.times[i]}
						for k := range words {
							sv.words[k] = append(sv.words[k], tup[2*m+k])
							v.Words = append(v.Words, tup[2*m+k])
						}
						vals = append(vals, v)
					}
					if len(vals) > 0 {
						want[[2]int{fn, int(site)}] = vals
					} else {
						want[[2]int{fn, int(site)}] = []Value{}
					}
					b.w.Values = append(b.w.Values, ValueLabel{Func: fn, Site: site})
					b.addValues(sv.times, sv.words)
					sg = append(sg, site)
					site++
				}
				static[fn] = append(static[fn], sg)
			}
		}
		r.Shuffle(len(b.w.Values), func(i, j int) {
			b.w.Values[i], b.w.Values[j] = b.w.Values[j], b.w.Values[i]
			b.vals[i], b.vals[j] = b.vals[j], b.vals[i]
		})
		if err := b.groupValues(nil, func(fn int) [][]uint32 { return static[fn] }); err != nil {
			t.Fatal(err)
		}
		// A group shares its members' timestamps and keeps a pattern only
		// where it pays: never larger than each site alone.
		if st := b.w.Stats; st.GroupedValueBytes > st.SiteValueBytes || st.GroupedValueBytes < st.ValueBytes {
			t.Fatalf("seed %d: grouped values take %d bytes (words and patterns %d), %d without groups", seed, st.GroupedValueBytes, st.ValueBytes, st.SiteValueBytes)
		}

		check := func(w *WET, how string) {
			t.Helper()
			if len(w.Values) != len(want) {
				t.Fatalf("seed %d, %s: %d value sites, want %d", seed, how, len(w.Values), len(want))
			}
			for i := range w.Values {
				l := &w.Values[i]
				got := w.ValuesOf(l)
				if len(got) == 0 {
					got = []Value{}
				}
				if exp := want[[2]int{l.Func, int(l.Site)}]; !reflect.DeepEqual(got, exp) {
					t.Fatalf("seed %d, %s: function %d, site %d: %d values, want %d\n%v\n%v", seed, how, l.Func, l.Site, len(got), len(exp), got, exp)
				}
			}
		}
		check(b.w, "built")
		for _, g := range b.w.ValueGroups {
			in := -1
			for k, sg := range static[g.Func] {
				if slices.Contains(sg, g.Sites[0]) {
					in = k
				}
			}
			for _, s := range g.Sites {
				if !slices.Contains(static[g.Func][in], s) {
					t.Fatalf("seed %d: group %v mixes static groups %v", seed, g.Sites, static[g.Func])
				}
				if got, exp := len(want[[2]int{g.Func, int(s)}]), g.count(); got != exp {
					t.Fatalf("seed %d: site %d has %d values in a group of %d timestamps", seed, s, got, exp)
				}
			}
			if g.Pattern != nil {
				patterned++
			} else {
				plain++
			}
			if len(g.Sites) > 1 {
				multi++
			}
		}
		var buf bytes.Buffer
		if err := b.w.Write(&buf); err != nil {
			t.Fatal(err)
		}
		w, err := Parse(buf.Bytes())
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		check(w, "read back")
	}
	if patterned == 0 || plain == 0 || multi == 0 {
		t.Errorf("%d groups with a pattern, %d without, %d of several sites: want some of each", patterned, plain, multi)
	}
}

// addValues gives the builder a value label's entries: times, and
// words[k] the k-th word of each (the caller adds its ValueLabel).
func (b *builder) addValues(times []uint64, words [][]uint64) {
	vl := &valueLabel{times: b.column(), skips: skips{col: b.column(), gone: true}, doomed: -1}
	for range words {
		vl.words = append(vl.words, b.column())
	}
	for i, t := range times {
		vl.times.add(t)
		for k, w := range words {
			vl.words[k].add(w[i])
		}
	}
	b.vals = append(b.vals, vl)
}
