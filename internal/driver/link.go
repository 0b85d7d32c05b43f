package driver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// link runs a link command with rt and the packages it needs added to the
// importcfg. The linker only loads packages that some object imports, so
// the lines cost nothing in a program with nothing instrumented; and every
// package a linked package imports must be listed, so rt's dependencies go
// in too where the program does not already have them.
func (x *Exec) link(args []string) int {
	t := &toolArgs{args: slices.Clone(args[1:])}
	cfgFile, ok := t.flag("importcfg")
	if !ok {
		return run(args, x.Stderr)
	}
	cfg, err := readImportcfg(cfgFile)
	if err != nil {
		x.warnf("link: %v", err)
		return run(args, x.Stderr)
	}
	// The link's flags say nothing of -trimpath or -gcflags: the runtime
	// compiled for this build is the one built against standard packages
	// with the same fingerprints as the program's. Without one, the best
	// guess is the plain build, whose failure the linker will explain.
	var rtb *runtimeBuild
	for _, b := range x.cachedRuntimes() {
		if b.matches(cfg) && b.verify() == nil {
			rtb = b
			break
		}
	}
	if rtb == nil {
		var err error
		if rtb, err = x.runtime(args[0], configOf(t, false, nil)); err != nil {
			var be *buildError
			if !errors.As(err, &be) {
				x.warnf("link: %v", err)
				return run(args, x.Stderr)
			}
			// The compiles said it, and instrumented nothing, unless
			// their objects came from a time the runtime was there:
			// then the link fails for want of it, and this says why.
			var stderr bytes.Buffer
			code := run(args, &stderr)
			io.Copy(x.Stderr, &stderr)
			if code != 0 && strings.Contains(stderr.String(), RuntimePath) {
				x.sayOnce(t, be.key, fmt.Sprintf("link: %v", be.err))
			}
			return code
		}
	}
	extra := map[string]string{RuntimePath: rtb.Archive}
	for p, a := range rtb.Deps {
		extra[p] = a
	}
	newCfg := filepath.Join(filepath.Dir(cfgFile), "importcfg.pathcover")
	if err := cfg.write(newCfg, extra); err != nil {
		x.warnf("link: %v", err)
		return run(args, x.Stderr)
	}
	t.setFlag("importcfg", newCfg)
	defer os.Remove(newCfg)
	return run(append([]string{args[0]}, t.args...), x.Stderr)
}
