package toolexec

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pathcover/pathcover/profile"
)

// TestConfigBuildID changes each field of the configuration in turn, the
// options' too, and checks that the build ID's text changes with it (a
// field that did not would let the build cache serve objects built another
// way), but for Verbose, which only prints.
func TestConfigBuildID(t *testing.T) {
	profA, profB := configProfile(t, 1), configProfile(t, 2)
	base := func() *Config {
		c := &Config{Pkgs: []string{"main"}, Dir: "/d", Interesting: profA, Sites: profA}
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
				case "Interesting", "Sites":
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
	unused.PPPSlots, unused.Depth, unused.FlightLimit = 3, 3, 3
	if plain.String() != unused.String() {
		t.Errorf("PPP options without -interesting, a depth without -ippp, or a flight limit without -flight change the build ID")
	}
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
