package main_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHelp runs the help that the command table gives, and checks that the
// analyzer's own calls still reach it.
func TestHelp(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"help"}, 0, []string{"The commands are:", "\ttest ", "\thtml ", "\tpppexec ", "pathcover help <command>"}},
		{[]string{"help", "report"}, 0, []string{"usage: pathcover report [-dir D] [-json] [-interprocedural] [packages]\n", "  -interprocedural\n"}},
		{[]string{"help", "test"}, 0, []string{"[-dir D] [-json] [build flags]", "  -ipppdepth n\n", "  -shard copies\n"}},
		{[]string{"help", "pppexec"}, 0, []string{"usage: pathcover pppexec [flags] tool args...\n"}},
		{[]string{"report", "-h"}, 2, []string{"usage: pathcover report [-dir D]", "  -json\n"}},
		{[]string{"test", "-h"}, 0, []string{"usage: pathcover test [-dir D]", "  -pkgs patterns\n"}},
		{[]string{"gate", "-nosuchflag"}, 2, []string{"flag provided but not defined: -nosuchflag", "usage: pathcover gate -min percent"}},
		{[]string{"pppexec", "-h"}, 2, []string{"-toolexec='pathcover pppexec [flags]'", "-interesting"}},
		// The analyzer's: its help, and what go vet asks a vet tool.
		{[]string{"help", "pathcover"}, 0, []string{"pathcover: report functions with too many acyclic paths", "pathcover.maxpaths"}},
		{[]string{"-V=full"}, 0, []string{"version"}},
	} {
		out, code := run(t, dir, bin, tc.args...)
		if code != tc.code {
			t.Errorf("pathcover %s: exit %d, want %d\n%s", strings.Join(tc.args, " "), code, tc.code, out)
		}
		for _, want := range tc.want {
			if !strings.Contains(out, want) {
				t.Errorf("pathcover %s: output lacks %q:\n%s", strings.Join(tc.args, " "), want, out)
			}
		}
	}
	out, code := run(t, dir, bin, "-flags")
	var flags []struct{ Name string }
	if err := json.Unmarshal([]byte(out), &flags); code != 0 || err != nil || len(flags) == 0 {
		t.Errorf("pathcover -flags: exit %d, %v:\n%s", code, err, out)
	}
}
