// Package version compares dotted version strings such as 1.10.2.
package version

// Compare returns -1, 0 or +1 as version a is older than, the same as or
// newer than version b.
func Compare(a, b string) int {
	for a != "" || b != "" {
		x, restA := next(a)
		y, restB := next(b)
		switch {
		case x < y:
			return -1
		case x > y:
			return +1
		}
		a, b = restA, restB
	}
	return 0
}

// next returns the number before the first dot of s, and what follows
// the dot. Anything but a digit or a dot is skipped.
//
// (These two lines were added: the functions' lines moved.)
func next(s string) (int, string) {
	num := 0
	i := 0
	for ; i < len(s) && s[i] != '.'; i++ {
		if s[i] >= '0' && s[i] <= 0x39 {
			num = num*10 + int(s[i]-'0')
		}
	}
	if i < len(s) {
		i++
	}
	return num, s[i:]
}
