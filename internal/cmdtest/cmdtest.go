// Package cmdtest runs commands for end-to-end tests.
package cmdtest

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

// Run runs a command in dir, with env added to the environment, and returns
// its combined output and exit code. A command that cannot start fails the
// test.
func Run(t testing.TB, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
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
