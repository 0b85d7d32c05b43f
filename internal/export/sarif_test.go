package export

import (
	"regexp"
	"testing"

	"golang.org/x/mod/semver"
)

// TestSARIFVersions: the driver's version is dotted numbers for every
// version the go command can stamp (SARIF readers compare it as numbers),
// and its semanticVersion is the whole version as SemVer 2.0.
func TestSARIFVersions(t *testing.T) {
	for _, c := range []struct{ in, numeric, semantic string }{
		{"v1.2.3", "1.2.3", "1.2.3"},
		{"v1.3.0-rc.1", "1.3.0", "1.3.0-rc.1"},
		{"v2.0.0+incompatible", "2.0.0", "2.0.0+incompatible"},
		{"v0.0.0-20261128095244-63406ac01ea5", "0.0.0", "0.0.0-20261128095244-63406ac01ea5"},
		{"v1.2.4-0.20261128095244-63406ac01ea5", "1.2.3", "1.2.4-0.20261128095244-63406ac01ea5"},
		{"v1.2.4-0.20261128095244-63406ac01ea5+dirty", "1.2.3", "1.2.4-0.20261128095244-63406ac01ea5+dirty"},
		{"v1.3.0-pre.0.20261128095244-63406ac01ea5", "1.3.0", "1.3.0-pre.0.20261128095244-63406ac01ea5"},
		{"(devel)", "0.0.0", "0.0.0-devel"},
		{"", "0.0.0", "0.0.0-devel"},
	} {
		numeric, semantic := sarifVersions(c.in)
		if numeric != c.numeric || semantic != c.semantic {
			t.Errorf("sarifVersions(%q) = %q, %q; want %q, %q", c.in, numeric, semantic, c.numeric, c.semantic)
		}
	}
}

var dottedNumbers = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`)

// FuzzSARIFVersions: whatever the version, the driver's version is dotted
// numbers and its semanticVersion is valid SemVer.
func FuzzSARIFVersions(f *testing.F) {
	for _, v := range []string{"v1.2.3", "v0.0.0-20261128095244-63406ac01ea5", "(devel)", "v1", "v1.2", "v1.2.3-0.1+x"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		numeric, semantic := sarifVersions(v)
		if !dottedNumbers.MatchString(numeric) {
			t.Errorf("sarifVersions(%q): version %q is not dotted numbers", v, numeric)
		}
		if !semver.IsValid("v" + semantic) {
			t.Errorf("sarifVersions(%q): semanticVersion %q is not SemVer", v, semantic)
		}
	})
}
