package cmdtest

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/report"
)

// Run runs a command in dir, with env added to the environment, and returns
// its combined output and exit code. A command that cannot start fails the
// test, and so does output that says a path proved infeasible ran
// (report.ProofError): every report a test makes is checked so against
// what the program ran.
func Run(t testing.TB, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), report.ProofErrorText) {
		t.Errorf("%s %v: a path proved infeasible ran:\n%s", name, args, out)
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	}
	t.Fatalf("%s %v: %v", name, args, err)
	return "", 0
}

// OracleModule writes the oracle test program, module example.com/oracle,
// into a new directory and returns it; root is the repository's root,
// relative to the test's package.
func OracleModule(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	WriteFiles(t, dir, map[string]string{
		"go.mod":                        "module example.com/oracle\n\ngo 1.25\n",
		"main.go":                       ReadFile(t, root+"/testdata/oracle/main.go"),
		"trap/trap.go":                  ReadFile(t, root+"/testdata/oracle/trap/trap.go"),
		"constructs/constructs.go":      ReadFile(t, root+"/testdata/src/constructs/constructs.go"),
		"constructs/driver.go":          ReadFile(t, root+"/testdata/oracle/driver.go"),
		"constructs/constructs_test.go": ReadFile(t, root+"/testdata/oracle/constructs_test.go"),
	})
	return dir
}
