package buildspec

import (
	"flag"
	"reflect"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/profile"
	"github.com/pathcover/pathcover/rt"
)

// parse parses pppexec's flags into a Spec, as pppexec does.
func parse(t *testing.T, args []string) (Spec, error) {
	t.Helper()
	s := Default()
	fs := flag.NewFlagSet("pppexec", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	s.AddPPPExecFlags(fs)
	if err := fs.Parse(args); err != nil {
		return s, err
	}
	if fs.NArg() != 0 {
		t.Fatalf("%q: %d arguments left", args, fs.NArg())
	}
	return s, nil
}

// FuzzArgs: a Spec spelled by Args and parsed again by the flags is the
// same Spec, whatever its fields hold (Args and AddFlags are one list).
func FuzzArgs(f *testing.F) {
	f.Add([]byte{}, "", "")
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, "a/...,b", "/prof ile")
	f.Fuzz(func(t *testing.T, bits []byte, pkgs, path string) {
		at := func(i int) int {
			if i < len(bits) {
				return int(bits[i])
			}
			return 0
		}
		s := Default()
		if pkgs != "" && !strings.HasPrefix(pkgs, ",") && !strings.HasSuffix(pkgs, ",") && !strings.Contains(pkgs, ",,") {
			s.Pkgs = strings.Split(pkgs, ",")
		}
		s.Dir = path
		s.Strict, s.Verbose, s.Trace, s.Atomic = at(0)&1 != 0, at(0)&2 != 0, at(0)&4 != 0, at(0)&8 != 0
		s.WPP, s.Deps, s.Values, s.Tests, s.PPPAlways = at(0)&16 != 0, at(0)&32 != 0, at(0)&64 != 0, at(0)&128 != 0, at(1)&1 != 0
		if at(1)&2 != 0 {
			s.Shard = ShardPerP
		}
		if at(1)&4 != 0 {
			s.PPPLarge = PPPHashTable
		}
		if at(1)&8 != 0 {
			s.ProfileKey = KeyInGcflags
		}
		if at(1)&16 != 0 {
			s.PPPProfile = path
		}
		if at(1)&32 != 0 {
			s.IPPPProfile = path + "x"
		}
		s.MaxArrayPaths, s.HashSlots, s.HotEntries = uint64(at(2)+1), at(3)+1, at(4)
		s.PPPSlots, s.PPPSmall, s.Depth, s.ShareBlocks = uint64(at(5)+1), uint64(at(6)), at(7)+1, at(8)
		s.Flight, s.WPPLimit, s.FlightLimit = at(9), int64(at(10))<<20, int64(at(11))<<20
		// A size's default is written 0 (size.Set): the one spelling.
		if s.WPPLimit == DefaultWPPLimit {
			s.WPPLimit = 0
		}
		if s.FlightLimit == DefaultFlightLimit {
			s.FlightLimit = 0
		}
		got, err := parse(t, s.Args())
		if err != nil {
			t.Fatalf("%q: %v", s.Args(), err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Fatalf("%q\nparsed %+v\nwant   %+v", s.Args(), got, s)
		}
	})
}

// TestArgsDefault: the default build has no flags, and Toolexec quotes
// what the go command would split.
func TestArgsDefault(t *testing.T) {
	s := Default()
	if args := s.Args(); len(args) != 0 {
		t.Errorf("Default().Args() = %q", args)
	}
	s.PPPProfile, s.Shard = "/a b/prof", ShardPerP
	if got, want := s.Toolexec("/bin/path cover", "pppexec"), `-toolexec="/bin/path cover" pppexec "-interesting=/a b/prof" -shard=p`; got != want {
		t.Errorf("Toolexec = %s, want %s", got, want)
	}
}

// TestCheck: the builds pppexec refused before its flags had one home are
// refused, with the flags named; those it built are built.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" for a build
	}{
		{nil, ""},
		{[]string{"-wpp", "-tests", "-shard=p", "-atomic", "-hot=64"}, ""},
		{[]string{"-wet"}, ""},
		{[]string{"-interesting=/p", "-ippp=/q", "-ppplarge=hash", "-shard=p"}, ""},
		{[]string{"-flight=64", "-flightmax=1M", "-atomic"}, ""},
		{[]string{"-flight=64", "-wpp"}, "-flight records Ball-Larus paths alone"},
		{[]string{"-flight=64", "-tests"}, "-flight records Ball-Larus paths alone"},
		{[]string{"-flight=64", "-hot=8"}, "-hot is for Ball-Larus builds"},
		{[]string{"-flight=2000000"}, "a ring holds 1 to"},
		{[]string{"-wpp", "-interesting=/p"}, "-wpp records Ball-Larus builds only"},
		{[]string{"-deps", "-ippp=/p"}, "-wpp records Ball-Larus builds only"},
		{[]string{"-hot=8", "-interesting=/p"}, "-hot is for Ball-Larus builds"},
		{[]string{"-hot=99999999"}, "hot path table holds"},
		{[]string{"-hashslots=0"}, "must be positive"},
		{[]string{"-ipppdepth=0"}, "-ipppdepth must be at least 1"},
		{[]string{"-ipppshare=-1"}, "-ipppshare must be at least 0"},
		{[]string{"-wppmax=12"}, "at least 1K"},
		{[]string{"-flightmax=1K"}, "at least 64K"},
	} {
		s, err := parse(t, tc.args)
		if err == nil {
			s.Imply()
			err = s.Check()
		}
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
	// Check does not imply: a Spec made by hand must say what it records.
	if err := (&Spec{Values: true, MaxArrayPaths: 1, HashSlots: 1, PPPSlots: 1, Depth: 1}).Check(); err == nil {
		t.Errorf("Values without Deps and WPP passes Check")
	}
	// Flags that are not sizes or kinds are refused by the parser.
	for _, args := range [][]string{{"-shard=q"}, {"-ppplarge=x"}, {"-profilekey=x"}, {"-wppmax=1T"}} {
		if _, err := parse(t, args); err == nil {
			t.Errorf("%q parsed", args)
		}
	}
}

// TestLimits: the limits written here are rt's.
func TestLimits(t *testing.T) {
	if MaxFlightEntries != rt.FlightMaxEntries {
		t.Errorf("MaxFlightEntries %d, rt.FlightMaxEntries %d", MaxFlightEntries, rt.FlightMaxEntries)
	}
}

// TestRecords: each kind of build says what it records.
func TestRecords(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want profile.Records
	}{
		{nil, profile.RecordsCounts},
		{[]string{"-wet", "-tests"}, profile.RecordsCounts | profile.RecordsWPP | profile.RecordsDeps | profile.RecordsValues | profile.RecordsTests},
		{[]string{"-flight=8"}, profile.RecordsFlight},
		{[]string{"-interesting=/p", "-ippp=/q", "-shard=p", "-atomic"}, profile.RecordsCounts | profile.RecordsPPP | profile.RecordsIPPP | profile.RecordsSharded | profile.RecordsAtomic},
		{[]string{"-hot=8"}, profile.RecordsCounts | profile.RecordsHot},
	} {
		s, err := parse(t, tc.args)
		if err != nil {
			t.Fatal(err)
		}
		s.Imply()
		if got := s.Records(); got != tc.want {
			t.Errorf("%q: records %v, want %v", tc.args, got, tc.want)
		}
	}
}
