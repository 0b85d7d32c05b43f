package pkgpattern

import "testing"

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"a/b", "a/b", true},
		{"a/b", "a/bc", false},
		{"a/...", "a", true},
		{"a/...", "a/b/c", true},
		{"a/...", "ab", false},
		{"...", "anything/at/all", true},
		{"a/.../c", "a/b/c", true},
		{"a/.../c", "a/b/d", false},
		{"net/...", "net/http", true},
		{"x...y", "xy", true},
		{"x...y", "x", false},
	} {
		if got := Match(tc.pattern, tc.path); got != tc.want {
			t.Errorf("Match(%q, %q) = %v; want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}
