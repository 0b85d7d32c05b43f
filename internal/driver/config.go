package driver

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pathcover/pathcover/internal/buildspec"
	"github.com/pathcover/pathcover/internal/pkgpattern"
	"github.com/pathcover/pathcover/profile"
)

// Config is pppexec's configuration: the build's Spec, from its flags, and
// the profiles it names, loaded once. All of the Spec but Verbose changes
// what a compile or link produces, and String puts it in the build ID (a
// test checks that every field does).
type Config struct {
	buildspec.Spec
	// deprecated are what the flags spelled the old way, said at each
	// link (once a program, not once a compile).
	deprecated               []string
	interestingRun, sitesRun pathsSource
}

// A pathsSource is the profile a flag names, loaded once.
type pathsSource struct {
	once     sync.Once
	run      *profile.PathsRun
	problems []string // the files it skipped, one line each
	err      error
}

// load loads the profile at path, named by flag, once. Like the reports,
// it skips the files it cannot read (a counter file that a test killed at
// start left empty) and keeps them in problems, unless strict: then they
// are an error. Only a profile with nothing readable, or one that cannot
// be read at all, is an error otherwise.
func (s *pathsSource) load(flag, path string, strict bool) (*profile.PathsRun, error) {
	s.once.Do(func() {
		p, problems, err := profile.Load(path)
		for _, pr := range problems {
			s.problems = append(s.problems, pr.Error())
		}
		switch {
		case err != nil:
			s.err = fmt.Errorf("-%s: %v", flag, err)
		case len(p.Metas) == 0 && len(problems) > 0:
			s.err = fmt.Errorf("-%s: %s holds no profile that can be read: %s", flag, path, strings.Join(s.problems, "; "))
		case len(p.Metas) == 0:
			s.err = fmt.Errorf("-%s: %s holds no profile", flag, path)
		case strict && len(problems) > 0:
			s.err = fmt.Errorf("-%s: %s cannot be read whole (-strict): %s", flag, path, strings.Join(s.problems, "; "))
		default:
			s.run = p.PathsRun()
		}
	})
	return s.run, s.err
}

// fingerprint identifies what the profile says, for the build ID: the
// paths it ran, and the files it skipped (whose names the build's warning
// gives), or the error that stops it (which the build's warning says), so
// that the go command never replays what was said of another profile.
func (s *pathsSource) fingerprint() string {
	h := func(text string) string {
		sum := sha256.Sum256([]byte(text))
		return hex.EncodeToString(sum[:16])
	}
	if s.err != nil {
		return "error-" + h(s.err.Error())
	}
	fp := s.run.Fingerprint()
	if len(s.problems) > 0 {
		fp += "-skipped-" + h(strings.Join(s.problems, "\n"))
	}
	return fp
}

// warnings are the lines that name the files skipped, for the build to say
// once.
func (s *pathsSource) warnings(flag string) []string {
	var lines []string
	for _, pr := range s.problems {
		lines = append(lines, fmt.Sprintf("-%s: skipping %s", flag, pr))
	}
	return lines
}

// String is the configuration as it changes what compile and link
// produce (with -strict, a failure instead of an uninstrumented object),
// for the build ID of -V=full: every field but Verbose, the options by
// name, and the profiles by their content, not their names (a new test
// run makes new objects). The options that a build does not use (PPP's
// without -interesting, the depth without -ippp) are left out, so that
// setting them recompiles nothing. With buildspec.KeyInGcflags, the profiles are
// in the key that each instrumented compile is given, not here: only
// whether there are any.
func (c *Config) String() string {
	o := c.Spec
	o.Verbose = false
	if o.PPP() {
		o.PPPProfile = "in-gcflags"
		if c.ProfileKey != buildspec.KeyInGcflags {
			c.interesting()
			o.PPPProfile = c.interestingRun.fingerprint()
		}
	} else {
		o.PPPSlots, o.PPPLarge, o.PPPAlways, o.PPPSmall = 0, "", false, 0
	}
	if o.IPPP() {
		o.IPPPProfile = "in-gcflags"
		if c.ProfileKey != buildspec.KeyInGcflags {
			c.sites()
			o.IPPPProfile = c.sitesRun.fingerprint()
		}
	} else {
		o.Depth, o.ShareBlocks = 0, 0
	}
	if !o.WPP && o.WPPLimit != 0 {
		o.WPPLimit = 0 // unused without -wpp
	}
	if o.Flight == 0 && o.FlightLimit != 0 {
		o.FlightLimit = 0 // unused without -flight
	}
	o.ProfileKey = cmp.Or(o.ProfileKey, buildspec.KeyInBuildID)
	if !o.PPP() && !o.IPPP() {
		o.ProfileKey = "" // unused without profiles
	}
	return fmt.Sprintf("%+v", o)
}

// sites loads the profile of -ippp, once.
func (c *Config) sites() (*profile.PathsRun, error) {
	return c.sitesRun.load("ippp", c.IPPPProfile, c.Strict)
}

// interesting loads the profile of -interesting, once.
func (c *Config) interesting() (*profile.PathsRun, error) {
	return c.interestingRun.load("interesting", c.PPPProfile, c.Strict)
}

// selected reports whether the package that compile builds is to be
// instrumented. importPath is TOOLEXEC_IMPORTPATH: "p", "p [p.test]",
// "p_test [p.test]", or "p.test" for the generated test main.
func (x *Exec) selected(importPath string, t *toolArgs) bool {
	path, _, _ := strings.Cut(importPath, " ")
	if p, _ := t.flag("p"); p == "main" && strings.HasSuffix(path, ".test") {
		return false // the generated test main
	}
	path = strings.TrimSuffix(path, "_test")
	if path == RuntimePath {
		return false
	}
	patterns := x.Config.Pkgs
	if len(patterns) == 0 {
		patterns = []string{"main"}
	}
	for _, pat := range patterns {
		switch pat {
		case "main":
			if path == "command-line-arguments" {
				return true
			}
			for _, mod := range mainModules() {
				if path == mod || strings.HasPrefix(path, mod+"/") {
					return true
				}
			}
		case "std":
			if t.has("std") {
				return true
			}
		default:
			if pkgpattern.Match(pat, path) {
				return true
			}
		}
	}
	return false
}

// mainModules returns the module paths of the main modules: those of
// go.work's use directives, or of the go.mod above the current directory
// (where the go command runs compile and link).
//
// As the go command does, it looks for go.work in every directory up from
// the current one (unless GOWORK names one, or is off) before it falls
// back to the nearest go.mod.
func mainModules() []string {
	dir, err := os.Getwd()
	if err != nil {
		return nil
	}
	work := os.Getenv("GOWORK")
	if work == "" {
		for d := dir; ; d = filepath.Dir(d) {
			if fileExists(filepath.Join(d, "go.work")) {
				work = filepath.Join(d, "go.work")
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if work != "" && work != "off" {
		var mods []string
		for _, use := range workUses(work) {
			if !filepath.IsAbs(use) {
				use = filepath.Join(filepath.Dir(work), use)
			}
			if m := modulePath(filepath.Join(use, "go.mod")); m != "" {
				mods = append(mods, m)
			}
		}
		return mods
	}
	for d := dir; ; d = filepath.Dir(d) {
		if m := modulePath(filepath.Join(d, "go.mod")); m != "" {
			return []string{m}
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// modulePath reads the module line of a go.mod file.
func modulePath(gomod string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	return ""
}

// workUses reads the directories of a go.work file's use directives.
func workUses(gowork string) []string {
	data, err := os.ReadFile(gowork)
	if err != nil {
		return nil
	}
	var uses []string
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "//")
		line = strings.TrimSpace(line)
		switch {
		case line == "use (":
			inBlock = true
		case inBlock && line == ")":
			inBlock = false
		case inBlock && line != "":
			uses = append(uses, strings.Trim(line, `"`))
		case strings.HasPrefix(line, "use "):
			uses = append(uses, strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, "use ")), `"`))
		}
	}
	return uses
}
