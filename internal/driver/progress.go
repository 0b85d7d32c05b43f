package driver

import (
	"os"
	"path/filepath"
	"strings"
)

// ProgressEnv names a file that pathcover test makes to show its progress
// on a terminal: each link of a test binary appends a line, its name, so
// that pathcover counts the test binaries built (cmd/pathcover/progress.go).
const ProgressEnv = "PATHCOVER_PROGRESS"

// noteLinked appends the name of the test binary that link args made to
// the progress file, if there is one. It says nothing on failure: progress
// is for the eye, and must never change a build.
func noteLinked(args []string) {
	name := os.Getenv(ProgressEnv)
	if name == "" || os.Getenv(nestedEnv) != "" {
		return
	}
	t := &toolArgs{args: args[1:]}
	out, ok := t.flag("o")
	if !ok || !strings.HasSuffix(out, ".test") {
		return
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(filepath.Base(out) + "\n")
}
