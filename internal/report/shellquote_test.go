package report

import (
	"os/exec"
	"strings"
	"testing"
)

// FuzzShellQuote: a POSIX shell reads ShellQuote(s) back as the one word
// s, whatever s holds (quotes, backticks, $(...), backslashes, newlines):
// sh itself is the oracle, printing the word it parsed.
func FuzzShellQuote(f *testing.F) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		f.Skip("no sh")
	}
	for _, s := range []string{"", "TestA", "^(TestA|TestB)$", "it's", "`touch pwned`", "$(id)", "a b", `back\slash`, "new\nline", "'", "''", `"`, "example.com/m", "-v", "*", "~user", "!x", "#c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, 0) {
			return // no argument of a command can hold a NUL
		}
		q := ShellQuote(s)
		out, err := exec.Command(sh, "-c", "printf '%s|' "+q).Output()
		if err != nil {
			t.Fatalf("sh -c printf %s: %v", q, err)
		}
		if got := strings.TrimSuffix(string(out), "|"); got != s || strings.Count(string(out), "|") != strings.Count(s, "|")+1 {
			t.Fatalf("ShellQuote(%q) = %s; sh read %q", s, q, out)
		}
	})
}
