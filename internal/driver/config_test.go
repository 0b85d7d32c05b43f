package driver

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/buildspec"
	"github.com/pathcover/pathcover/profile"
)

// TestConfigBuildID changes each field of the configuration in turn, the
// options' too, and checks that the build ID's text changes with it (a
// field that did not would let the build cache serve objects built another
// way), but for Verbose, which only prints.
func TestConfigBuildID(t *testing.T) {
	profA, profB := configProfile(t, 1), configProfile(t, 2)
	base := func() *Config {
		c := &Config{Spec: buildspec.Spec{Pkgs: []string{"main"}, Dir: "/d", PPPProfile: profA, IPPPProfile: profA}}
		c.Atomic, c.MaxArrayPaths, c.HashSlots, c.Trace = true, 9, 9, true
		c.PPPSlots, c.PPPLarge, c.PPPAlways, c.PPPSmall, c.Depth = 9, "truncate", true, 9, 2
		c.WPP, c.WPPLimit = true, 9<<20
		c.Flight, c.FlightLimit, c.HotEntries = 8, 9<<20, 16
		return c
	}
	want := base().String()
	if again := base().String(); again != want {
		t.Fatalf("the build ID of one configuration differs: %q and %q", want, again)
	}
	var fields func(v reflect.Value, path []int)
	fields = func(v reflect.Value, path []int) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			p := append(append([]int(nil), path...), i)
			if f.Anonymous {
				fields(v.Field(i), p)
				continue
			}
			if !f.IsExported() {
				continue
			}
			c := base()
			changed := reflect.ValueOf(c).Elem().FieldByIndex(p)
			switch changed.Kind() {
			case reflect.Bool:
				changed.SetBool(!changed.Bool())
			case reflect.Int, reflect.Int64:
				changed.SetInt(changed.Int() + 1)
			case reflect.Uint64:
				changed.SetUint(changed.Uint() + 1)
			case reflect.String:
				switch f.Name {
				case "PPPProfile", "IPPPProfile":
					changed.SetString(profB) // another profile's content
				case "PPPLarge":
					changed.SetString("hash")
				default:
					changed.SetString(changed.String() + "x")
				}
			case reflect.Slice:
				changed.Set(reflect.Append(changed, reflect.ValueOf("std")))
			default:
				t.Fatalf("field %s of kind %s: teach this test to change it", f.Name, changed.Kind())
			}
			got := c.String()
			if f.Name == "Verbose" {
				if got != want {
					t.Errorf("Verbose changes the build ID: %q", got)
				}
			} else if got == want {
				t.Errorf("changing %s leaves the build ID %q", f.Name, want)
			}
		}
	}
	fields(reflect.ValueOf(base()).Elem(), nil)

	// The options a build does not use are not in its ID.
	plain, unused := &Config{}, &Config{}
	unused.PPPSlots, unused.Depth, unused.FlightLimit, unused.ProfileKey = 3, 3, 3, buildspec.KeyInGcflags
	if plain.String() != unused.String() {
		t.Errorf("PPP options without -interesting, a depth without -ippp, a flight limit without -flight, or a profile key without profiles change the build ID")
	}
}

// TestProfileKey: with -profilekey=gcflags, the profiles' content leaves
// the build ID for the key that instrumented compiles are given, and
// every change of what they say (another profile, one more file that
// cannot be read) changes that key; a compile given no key, or another
// profile's, is refused.
func TestProfileKey(t *testing.T) {
	profA, profB := configProfile(t, 1), configProfile(t, 2)
	broken := CopyProfile(t, profA)
	if err := os.WriteFile(filepath.Join(broken, "pathcover.9.0.counts"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	keyed := func(interesting, sites string) *Config {
		return &Config{Spec: buildspec.Spec{PPPProfile: interesting, IPPPProfile: sites, ProfileKey: buildspec.KeyInGcflags, Pkgs: []string{"example.com/p/..."}}}
	}
	ids, keys := map[string]bool{}, map[string]string{}
	for _, c := range []struct{ name, interesting, sites string }{
		{"A", profA, ""}, {"B", profB, ""}, {"A+broken", broken, ""},
		{"sites A", "", profA}, {"sites B", "", profB}, {"A and sites A", profA, profA}, {"A and sites B", profA, profB},
	} {
		cfg := keyed(c.interesting, c.sites)
		ids[cfg.String()] = true
		key := cfg.profilesKey()
		if other, ok := keys[key]; ok || len(key) != 32 {
			t.Errorf("%s: key %q (also %s's)", c.name, key, other)
		}
		keys[key] = c.name
		flags := cfg.GcflagsKey()
		if want := "-gcflags=example.com/p/...=-pathcover.profiles=" + key; len(flags) != 1 || flags[0] != want {
			t.Errorf("%s: -gcflags %q; want %q", c.name, flags, want)
		}
		if err := cfg.checkProfileKey("example.com/p", key); err != nil {
			t.Errorf("%s: its own key refused: %v", c.name, err)
		}
		if err := cfg.checkProfileKey("example.com/p", ""); err == nil || !strings.Contains(err.Error(), "was not given -pathcover.profiles=KEY") {
			t.Errorf("%s: a compile without the key: %v", c.name, err)
		}
	}
	// Three build IDs: profiles only, sites only, both; whatever they say.
	if len(ids) != 3 {
		t.Errorf("%d build IDs for 7 keyed configurations; want 3 (profiles out of the ID):\n%v", len(ids), ids)
	}
	a, b := keyed(profA, ""), keyed(profB, "")
	if err := a.checkProfileKey("example.com/p", b.profilesKey()); err == nil || !strings.Contains(err.Error(), "but the profiles now say -pathcover.profiles="+a.profilesKey()) {
		t.Errorf("another profile's key: %v", err)
	}
	inID := &Config{Spec: buildspec.Spec{PPPProfile: profA}}
	if err := inID.checkProfileKey("example.com/p", ""); err != nil {
		t.Errorf("-profilekey=buildid needs no key: %v", err)
	}
	if flags := (&Config{Spec: buildspec.Spec{ProfileKey: buildspec.KeyInGcflags}}).GcflagsKey(); flags != nil {
		t.Errorf("a build without profiles gets -gcflags %q", flags)
	}

	args := []string{"/go/compile", "-o", "x.a", "-pathcover.profiles=1", "-N", "-pathcover.profiles=2", "/p/a.go"}
	stripped, key := takeProfileKey(args)
	if key != "2" || strings.Join(stripped, " ") != "/go/compile -o x.a -N /p/a.go" || args[3] != "-pathcover.profiles=1" {
		t.Errorf("takeProfileKey(%q) = %q, %q", args, stripped, key)
	}
}

// CopyProfile copies the files of a profile directory into a new one
// (exported for the external tests too).
func CopyProfile(t *testing.T, dir string) string {
	t.Helper()
	to := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// configProfile writes a profile directory whose function ran path n.
func configProfile(t *testing.T, n uint64) string {
	t.Helper()
	m := profile.Meta{Format: profile.MetaFormat, Package: "example.com/p", Mode: profile.ModeBallLarus, Files: []string{"/p.go"}, Words: 4}
	m.Funcs = []profile.Func{{
		Name: "F", Line: 1, EndLine: 2, Entry: 0, Exit: 3, Paths: 4, Total: "4",
		Blocks: make([]profile.Block, 4),
		Edges: []profile.Edge{
			{Src: 0, Dst: 1, Probe: true}, {Src: 0, Dst: 2, Probe: true},
			{Src: 1, Dst: 3, Probe: true}, {Src: 2, Dst: 3, Probe: true}, {Src: 1, Dst: 2, Probe: true},
		},
		Counters: profile.Counters{Kind: profile.CounterArray, Size: 4},
	}}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	hash := profile.Hash(raw)
	if err := os.WriteFile(filepath.Join(dir, hash+".meta"), raw, 0o666); err != nil {
		t.Fatal(err)
	}
	words := make([]uint64, 4)
	words[n] = 1
	var b bytes.Buffer
	if err := profile.WriteCounts(&b, &profile.CountFile{PID: 1, Segments: []profile.Segment{profile.NewSegment(hash, words)}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pathcover.1.0.counts"), b.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDeprecatedO: pppexec's -o, -dir's old spelling, still sets the
// directory, and is said deprecated at each link (Exec.Main), not at each
// of a build's hundreds of compiles.
func TestDeprecatedO(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"-o", dir}, {"-dir", dir}} {
		cfg, err := parseFlags("pppexec", args)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if cfg.Dir != dir || (args[0] == "-o") != (len(cfg.deprecated) == 1) {
			t.Errorf("%q: dir %q, deprecated %q", args, cfg.Dir, cfg.deprecated)
		}
	}
}
