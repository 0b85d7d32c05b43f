package driver

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// wholeFileFingerprint finds the fingerprint the simplest way, for
// fingerprint to be checked against: the 8 bytes after the object file's
// magic, wherever the whole file first has it after a header's end.
func wholeFileFingerprint(data []byte) (string, bool) {
	const magic = "\n!\n\x00go120ld"
	i := bytes.Index(data, []byte(magic))
	if i < 0 || len(data) < i+len(magic)+8 {
		return "", false
	}
	return string(data[i+len(magic) : i+len(magic)+8]), true
}

// TestFingerprint: fingerprint reads only headers, yet finds what a scan
// of the whole archive finds, on standard packages with megabytes of
// export data before their object (runtime, net/http).
func TestFingerprint(t *testing.T) {
	out, err := exec.Command("go", "list", "-export", "-f", "{{.Export}}", "runtime", "fmt", "net/http").Output()
	if err != nil {
		t.Skipf("go list -export: %v", err)
	}
	archives := strings.Fields(string(out))
	seen := map[string]bool{}
	for _, archive := range archives {
		data, err := os.ReadFile(archive)
		if err != nil {
			t.Fatal(err)
		}
		want, ok := wholeFileFingerprint(data)
		got, err := fingerprint(archive)
		if !ok || err != nil || got != want {
			t.Errorf("%s: fingerprint %x, %v; the whole file says %x", archive, got, err, want)
		}
		seen[got] = true
	}
	if len(archives) != 3 || len(seen) != 3 {
		t.Errorf("%d archives of 3 packages, %d fingerprints", len(archives), len(seen))
	}
}

// FuzzFingerprint: on any file, fingerprint returns an error or the
// fingerprint a scan of the whole file finds; it never panics.
func FuzzFingerprint(f *testing.F) {
	obj := "go object linux amd64 go1.26.8 X:none\nbuild id \"x\"\n\n!\n\x00go120ld12345678rest"
	arch := func(members ...string) []byte {
		var b bytes.Buffer
		b.WriteString("!<arch>\n")
		for i := 0; i+1 < len(members); i += 2 {
			fmt.Fprintf(&b, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", members[i], "0", "0", "0", "644", len(members[i+1]))
			b.WriteString(members[i+1])
			if len(members[i+1])%2 == 1 {
				b.WriteByte('\n')
			}
		}
		return b.Bytes()
	}
	f.Add(arch("__.PKGDEF", "go object export data\n$$B\nxyz", "_go_.o", obj))
	f.Add(arch("_go_.o", obj))
	f.Add(arch("__.PKGDEF", "odd"))
	f.Add([]byte("!<arch>\n"))
	f.Add([]byte("not an archive"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		name := filepath.Join(dir, "a.a")
		if err := os.WriteFile(name, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := fingerprint(name)
		if err != nil {
			return
		}
		if want, ok := wholeFileFingerprint(data); !ok || got != want {
			t.Errorf("fingerprint %x; the whole file says %x (found: %v)", got, want, ok)
		}
	})
}
