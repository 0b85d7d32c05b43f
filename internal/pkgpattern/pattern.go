package pkgpattern

import "strings"

// Match reports whether path matches pattern. As in go list, "p/..." also
// matches p itself.
func Match(pattern, path string) bool {
	if pattern == path {
		return true
	}
	if strings.HasSuffix(pattern, "/...") && path == strings.TrimSuffix(pattern, "/...") {
		return true
	}
	parts := strings.Split(pattern, "...")
	if len(parts) == 1 || !strings.HasPrefix(path, parts[0]) {
		return false
	}
	rest := path[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return strings.HasSuffix(rest, parts[len(parts)-1])
}
