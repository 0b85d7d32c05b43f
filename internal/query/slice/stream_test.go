package slice

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestGorNumbering numbers random call trees as the build replay does
// (each call entered in preorder, returned after its subtree) and checks
// every call's fields against the tree, read while blocks are open,
// packed and still ahead, and after: the blocks packed as they close
// must give back exactly what was numbered. The large trees span many
// chunks of the read form and of the packed data, and one deep tree
// keeps its first blocks open to the end.
func TestGorNumbering(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		n    int
		deep bool
	}{{1, false}, {2, false}, {31, false}, {32, false}, {33, false}, {1000, false}, {70_000, true}, {700_000, false}} {
		n := tc.n
		want := randomTree(rng, n, tc.deep)
		g := readTree(t, want)
		if n >= 700_000 && len(g.read.data) < 2 {
			t.Fatalf("n=%d: read into %d chunks: the test does not cross a chunk", n, len(g.read.data))
		}
		read := g.read
		g.numbering(newBlockCache())
		checks := 0
		check := func(c int32) {
			got, w := g.call(c), want[c]
			if got.fn != w.fn || got.parent != w.parent || got.next != w.next || got.paths != w.paths {
				t.Fatalf("n=%d: call %d during numbering: %+v, want %+v", n, c, got, w)
			}
			if got.end >= 0 && (got.first != w.first || got.end != w.end || got.ret != w.ret || got.shape != w.shape) {
				t.Fatalf("n=%d: call %d returned: %+v, want %+v", n, c, got, w)
			}
			checks++
		}
		var enter func(c int32)
		enter = func(c int32) {
			g.enter(c, want[c].first)
			for ch := c + 1; ch < want[c].next; ch = want[ch].next {
				enter(ch)
				// A call just returned (packed, maybe), its parent (open)
				// and a call ahead (read form).
				check(ch)
				check(c)
				if ahead := want[ch].next; ahead < g.n {
					check(ahead)
				}
			}
			if err := g.exit(c, want[c].end, want[c].ret, want[c].shape); err != nil {
				t.Fatal(err)
			}
		}
		for c := int32(0); c < g.n; c = want[c].next {
			enter(c)
		}
		for k, d := range read.data {
			if d != nil {
				t.Fatalf("n=%d: chunk %d of the read form kept after the replay took every block", n, k)
			}
		}
		if err := g.numbered(); err != nil {
			t.Fatal(err)
		}
		if g.read != nil || g.open != nil {
			t.Fatalf("n=%d: numbered, but read form or open blocks kept", n)
		}
		for c := range g.n {
			if got := g.call(c); got != want[c] {
				t.Fatalf("n=%d: call %d packed: %+v, want %+v", n, c, got, want[c])
			}
		}
		k := int32(0)
		g.each(func(c int32, cc *ccall) {
			if c != k || *cc != want[c] {
				t.Fatalf("n=%d: each gave call %d %+v, want call %d %+v", n, c, *cc, k, want[k])
			}
			k++
		})
		if k != g.n {
			t.Fatalf("n=%d: each gave %d calls", n, k)
		}
		// A suite has thousands of goroutines of a few calls: each must
		// hold about what its calls take, not a chunk's room.
		room := 0
		for _, d := range g.data {
			room += cap(d)
		}
		if n <= 1000 && room > 64*n+1024 {
			t.Fatalf("n=%d: the packed calls hold %d bytes of room", n, room)
		}
		if n >= 700_000 && len(g.data) < 2 {
			t.Fatalf("n=%d: packed into %d chunks: the test does not cross a chunk", n, len(g.data))
		}
		if checks == 0 && n > 1 {
			t.Fatalf("n=%d: nothing checked during numbering", n)
		}
	}
}

// TestSmallGorsHoldLittle: a suite's recording has thousands of
// goroutines of a few calls, each numbered in turn; each must hold about
// what its calls take once numbered (the heap they keep, after a
// collection), not the room of a chunk.
func TestSmallGorsHoldLittle(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cache := newBlockCache()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	gors := make([]*gor, 500)
	for i := range gors {
		want := randomTree(rng, 10, false)
		g := readTree(t, want)
		g.numbering(cache)
		for c := int32(0); c < g.n; c = want[c].next {
			numberTree(t, g, want, c)
		}
		if err := g.numbered(); err != nil {
			t.Fatal(err)
		}
		gors[i] = g
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(gors)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 4<<20 {
		t.Fatalf("500 goroutines of 10 calls keep %d bytes", grew)
	}
}

// numberTree enters and exits call c and its subtree as the replay does.
func numberTree(t *testing.T, g *gor, want []ccall, c int32) {
	g.enter(c, want[c].first)
	for ch := c + 1; ch < want[c].next; ch = want[ch].next {
		numberTree(t, g, want, ch)
	}
	if err := g.exit(c, want[c].end, want[c].ret, want[c].shape); err != nil {
		t.Fatal(err)
	}
}

// TestGorNumberingUnfinished: a numbering whose replay leaves a call
// without its return is an error, not a goroutine with holes.
func TestGorNumberingUnfinished(t *testing.T) {
	want := randomTree(rand.New(rand.NewPCG(3, 4)), 100, false)
	g := readTree(t, want)
	g.numbering(newBlockCache())
	g.enter(0, 0)
	if err := g.numbered(); err == nil {
		t.Fatal("numbered with a call open: no error")
	}
}

// readTree reads calls as readGor does: each added when entered, its
// subtree's end and paths given when it returns.
func readTree(t *testing.T, calls []ccall) *gor {
	g := &gor{read: newReadCalls(), start: -1}
	var stack []int32
	ret := func(to int32) {
		for len(stack) > 0 && calls[stack[len(stack)-1]].next <= to {
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if err := g.read.returned(c, calls[c].next, calls[c].paths); err != nil {
				t.Fatal(err)
			}
		}
	}
	for c, cc := range calls {
		ret(int32(c))
		if err := g.read.add(rcall{fn: cc.fn, parent: cc.parent, next: -1}); err != nil {
			t.Fatal(err)
		}
		stack = append(stack, int32(c))
	}
	ret(int32(len(calls)))
	if len(stack) > 0 {
		t.Fatalf("calls %v never return", stack)
	}
	if err := g.read.done(); err != nil {
		t.Fatal(err)
	}
	g.n = g.read.n
	return g
}

// randomTree returns n calls in preorder, numbered as the replay numbers
// them: each call has a node of its own or none (a function without
// statements), its subtree's nodes follow, with a few nodes after its
// children, and its return node is one of its own nodes or none. Deep
// makes a chain as deep as a tenth of the calls.
func randomTree(rng *rand.Rand, n int, deep bool) []ccall {
	calls := make([]ccall, n)
	var stack []int32
	node := int32(0)
	for c := range int32(n) {
		// Pop to a random depth (at least one level kept unless the
		// stack is a root's).
		if len(stack) > 0 {
			keep := rng.IntN(len(stack) + 1)
			if deep && len(stack) < n/10 {
				keep = len(stack)
			}
			for len(stack) > keep {
				closeCall(rng, calls, stack[len(stack)-1], c, &node)
				stack = stack[:len(stack)-1]
			}
		}
		parent := int32(-1)
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		calls[c] = ccall{fn: int32(rng.IntN(300)), parent: parent, paths: uint32(rng.IntN(1 << 30)), first: node, ret: -1, shape: int32(rng.IntN(1 << 21))}
		if rng.IntN(4) > 0 {
			node++ // its entry node
		}
		stack = append(stack, c)
	}
	for len(stack) > 0 {
		closeCall(rng, calls, stack[len(stack)-1], int32(n), &node)
		stack = stack[:len(stack)-1]
	}
	return calls
}

// closeCall ends call c, whose subtree ends before call next.
func closeCall(rng *rand.Rand, calls []ccall, c, next int32, node *int32) {
	*node += int32(rng.IntN(3))
	cc := &calls[c]
	cc.next, cc.end = next, *node
	if cc.end > cc.first && rng.IntN(2) == 0 {
		cc.ret = cc.end - 1
	}
}
