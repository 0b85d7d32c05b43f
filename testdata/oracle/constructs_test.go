package constructs

import "testing"

// TestDrive runs the driver, for go test -cover to compare with.
func TestDrive(t *testing.T) {
	if Drive() == 0 {
		t.Fatal("nothing ran")
	}
}
