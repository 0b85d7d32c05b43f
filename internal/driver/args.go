package driver

import (
	"path/filepath"
	"strings"
)

// toolArgs are a compile or link command line as the go command writes it:
// flags, then (for compile) the Go files, absolute and last.
type toolArgs struct {
	args []string
}

// flag returns the value of a flag given as -name value or -name=value.
func (t *toolArgs) flag(name string) (string, bool) {
	for i, a := range t.args {
		if a == "-"+name && i+1 < len(t.args) {
			return t.args[i+1], true
		}
		if v, ok := strings.CutPrefix(a, "-"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// has reports whether a boolean flag is set.
func (t *toolArgs) has(name string) bool {
	for _, a := range t.args {
		if a == "-"+name || a == "-"+name+"=true" {
			return true
		}
	}
	return false
}

// setFlag replaces the value of a flag given as -name value.
func (t *toolArgs) setFlag(name, value string) bool {
	for i, a := range t.args {
		if a == "-"+name && i+1 < len(t.args) {
			t.args[i+1] = value
			return true
		}
		if strings.HasPrefix(a, "-"+name+"=") {
			t.args[i] = "-" + name + "=" + value
			return true
		}
	}
	return false
}

// goFiles returns the indexes of the trailing .go file arguments.
func (t *toolArgs) goFiles() []int {
	var idx []int
	for i := len(t.args) - 1; i >= 0 && strings.HasSuffix(t.args[i], ".go") && !strings.HasPrefix(t.args[i], "-"); i-- {
		idx = append([]int{i}, idx...)
	}
	return idx
}

// objdir is the directory of the -o output: the action's scratch space.
func (t *toolArgs) objdir() string {
	o, _ := t.flag("o")
	return filepath.Dir(o)
}
