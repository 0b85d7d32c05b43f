package main

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// TestTestToolexec: pathcover test's own flags become pppexec's, in the
// -toolexec command it gives go test.
func TestTestToolexec(t *testing.T) {
	for _, c := range []struct {
		args      []string
		want, not []string
	}{
		{args: nil, want: []string{" pppexec", " -tests"}, not: []string{"-shard", "-wpp"}},
		{args: []string{"-shard=p"}, want: []string{" -shard=p"}},
		{args: []string{"-shard", "./..."}, want: []string{" -shard=p"}}, // the old boolean, for a release
		{args: []string{"-shard=true"}, want: []string{" -shard=p"}},
		{args: []string{"-shard=false", "-wpp", "-tests=false"}, want: []string{" -wpp"}, not: []string{"-shard", "-tests"}},
		{args: []string{"-shard", "none", "-wet"}, want: []string{" -wet", " -deps", " -wpp"}, not: []string{"-shard"}},
		{args: []string{"-flight=64"}, want: []string{" -flight=64"}, not: []string{"-tests"}},
		{args: []string{"-hot=64", "-atomic", "-run", "X"}, want: []string{" -hot=64", " -atomic"}, not: []string{"-run"}},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		tf := newTestFlags(fs)
		if _, _, err := tf.parse("pathcover test", c.args); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		arg, _, err := tf.toolexec(nil)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		for _, w := range c.want {
			if !strings.Contains(arg, w) {
				t.Errorf("%q: -toolexec=%s has no %q", c.args, arg, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(arg, n) {
				t.Errorf("%q: -toolexec=%s has %q", c.args, arg, n)
			}
		}
	}
	// What pppexec refuses, pathcover test refuses, before it runs go test.
	for _, args := range [][]string{{"-flight=64", "-wpp"}, {"-wpp", "-interesting=."}, {"-shard=q"}} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		if _, _, err := newTestFlags(fs).parse("pathcover test", args); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

// TestCountFlag: -n is how many to show in every command, and the old
// spellings still set it, for a release.
func TestCountFlag(t *testing.T) {
	for _, args := range [][]string{{"-n", "7"}, {"-show", "7"}, {"-show=7"}} {
		fs := flag.NewFlagSet("gate", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		n := countFlag(fs, 3, "decode `n`", "show")
		if err := fs.Parse(args); err != nil || *n != 7 {
			t.Errorf("%q: n = %d, %v", args, *n, err)
		}
	}
	for _, c := range []string{"gate", "residual", "html"} {
		fs, _ := lookup(c).flagSet()
		if fs.Lookup("n") == nil {
			t.Errorf("%s has no -n", c)
		}
	}
	if fs, _ := cmdWPP.sub("hot").flagSet(); fs.Lookup("n") == nil || fs.Lookup("k") == nil {
		t.Errorf("wpp hot: no -n, or no -k for the old spelling")
	}
}

// TestTestLateFlags: pathcover test's own flags after go test's would be
// handed to go test (-dir to every test binary): refused, naming them,
// with the command in the right order. -json there is go test's, and
// what follows -args is the test binary's.
func TestTestLateFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // in the error; "" for none
	}{
		{args: []string{"-wpp", "-short", "-dir", "D", "./..."}, want: "-dir comes after go test's flags or packages (-short), where go test would be handed them: pathcover test's own flags come first: pathcover test -wpp -dir D -short ./..."},
		{args: []string{"./...", "-wet", "-tests=false"}, want: "-wet and -tests come after go test's flags or packages (./...)"},
		{args: []string{"-wpp", "-short", "-json", "./..."}},
		{args: []string{"-run", "X", "./...", "-args", "-dir", "D"}},
		{args: []string{"-dir", "D", "-wpp", "-count=1", "./..."}},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		_, _, err := newTestFlags(fs).parse("pathcover test", c.args)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want one with %q", c.args, err, c.want)
		}
	}
}
