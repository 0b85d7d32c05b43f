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
		{args: []string{"-shard"}, want: []string{" -shard=p"}},
		{args: []string{"-shard=false", "-wpp", "-tests=false"}, want: []string{" -wpp"}, not: []string{"-shard", "-tests"}},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		tf := newTestFlags(fs)
		if err := fs.Parse(c.args); err != nil {
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
}
