package wpp

import (
	"fmt"
	"strings"
	"testing"
)

// TestHotMaximal: HotMaximal lists Hot's sequences in Hot's order but for
// those that lie within one listed before (or in its next round, if it
// repeats), here found on the sequences written as text.
func TestHotMaximal(t *testing.T) {
	text := func(h HotPath) []string {
		var s []string
		for _, st := range h.Steps {
			s = append(s, fmt.Sprintf("%s/%d", st.Func, st.Path))
		}
		return s
	}
	// holds reports whether long, or long followed by its last period
	// if it repeats one, has short's steps together.
	holds := func(long, short []string) bool {
		for p := 1; p < len(long); p++ {
			if strings.Join(long[p:], " ") == strings.Join(long[:len(long)-p], " ") {
				long = append(append([]string(nil), long...), long[len(long)-p:]...)
				break
			}
		}
		return strings.Contains(" "+strings.Join(long, " ")+" ", " "+strings.Join(short, " ")+" ")
	}
	for seed := range uint64(200) {
		src := []*memSource{randomLoops(seed)}
		if seed%2 == 1 {
			src = append(src, randomSource(seed))
		}
		tw := roundTrip(t, src)
		maxLen := 2 + int(seed%6)
		all, err := tw.Hot(1<<30, maxLen, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{1, 3, 10} {
			var want HotPaths
			var kept [][]string
			for _, h := range all {
				if len(want) == k {
					break
				}
				s := text(h)
				within := false
				for _, l := range kept {
					within = within || holds(l, s)
				}
				if !within {
					want, kept = append(want, h), append(kept, s)
				}
			}
			got, err := tw.HotMaximal(k, maxLen, nil)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("seed %d, k %d, len %d: HotMaximal\n%v\nwant\n%v", seed, k, maxLen, got, want)
			}
		}
	}
}
