package wet

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFilePlantedLink: profile.wet planted as a link to another file
// is replaced by the WET, not written through.
func TestWriteFilePlantedLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("the victim's"), 0o600)
	target := filepath.Join(dir, "profile.wet")
	os.Symlink(victim, target)
	if err := (&WET{}).WriteFile(target); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "the victim's" {
		t.Errorf("the victim's file now holds %q", b)
	}
	if _, err := ReadFile(target); err != nil {
		t.Errorf("the WET written: %v", err)
	}
}
