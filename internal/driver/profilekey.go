package driver

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/pathcover/pathcover/internal/buildspec"
)

// Where a PPP or interprocedural build's profiles are keyed.
//
// What an instrumented compile produces depends on the -interesting and
// -ippp profiles; what every other compile produces does not. The go
// command keys a compile's cached object on the compiler's tool ID (what
// pppexec answers to -V=full, one line for all packages), the package's
// inputs, and the package's own -gcflags. Two places can therefore carry
// the profiles' fingerprint:
//
//   - buildspec.KeyInBuildID (the default): in pppexec's build ID. Always safe, but
//     every action ID of the build changes with the profile, so each new
//     tests' profile runs every compile again, the standard library's too
//     (pppexec answers those from its compile cache, compilecache.go, but
//     the go command still runs each action).
//
//   - buildspec.KeyInGcflags (-profilekey=gcflags): in the -gcflags of the packages
//     pppexec instruments, as one flag of pppexec's own,
//
//     -pathcover.profiles=KEY
//
//     which pppexec removes before running the compiler. The build ID then
//     leaves the profiles out, so a new profile changes only the action IDs
//     of the packages whose -gcflags carry the key (and of what depends on
//     them, and the link): the go command reuses the rest from its cache.
//     `pppexec -printgcflags` prints the go command's -gcflags flags for it
//     (one per main module, or per -pkgs pattern), and pathcover test
//     passes them itself.
//
// The invariant that makes buildspec.KeyInGcflags safe: no object that instrumenting
// with one profile produced is ever reused for another. Two checks keep
// it, each failing the build (a failed action is never cached):
//
//   - at -V=full, which every go command asks once before it looks in its
//     cache, pppexec reads the go command's -gcflags (its command line,
//     from /proc, and GOFLAGS) and requires that every profile key in them
//     be the key of the profiles as they are now: a key printed before the
//     tests ran again would otherwise find the objects built for the old
//     profile, whose action IDs it names. Where that command line cannot
//     be read, or pppexec's parent is not a go command, the build ID
//     covers the profiles after all (KeyInBuildID), which is always safe;
//   - every compile that pppexec instruments requires the key among its
//     flags: a go command without the flag, or with a pattern that misses
//     the package, cannot cache an object under an action ID that does not
//     cover its profile.
//
// The place is a buildspec.ProfileKey (-profilekey).

// profileKeyFlag is the compiler flag, pppexec's own, that carries the key
// through the go command's -gcflags.
const profileKeyFlag = "-pathcover.profiles="

// profilesKey is the key of the configuration's profiles: a hash of what
// the -interesting and -ippp profiles say (their fingerprints, which cover
// the files skipped and the errors met too), or "" for a build without
// either.
func (c *Config) profilesKey() string {
	if !c.PPP() && !c.IPPP() {
		return ""
	}
	var interesting, sites string
	if c.PPP() {
		c.interesting()
		interesting = c.interestingRun.fingerprint()
	}
	if c.IPPP() {
		c.sites()
		sites = c.sitesRun.fingerprint()
	}
	sum := sha256.Sum256([]byte("interesting=" + interesting + "\nippp=" + sites))
	return hex.EncodeToString(sum[:16])
}

// GcflagsKey returns the go command flags that give the configuration's
// profile key to the packages it instruments (see buildspec.KeyInGcflags): one
// -gcflags flag per pattern of Pkgs, the main module's path with /... for
// "main" (each workspace module's), as the go command matches them; none
// for a build without profiles. Since the last -gcflags flag that matches
// a package is the one the go command gives it, they must come after the
// user's own, which they then override for those packages.
func (c *Config) GcflagsKey() []string {
	key := c.profilesKey()
	if key == "" {
		return nil
	}
	patterns := c.Pkgs
	if len(patterns) == 0 {
		patterns = []string{"main"}
	}
	var flags []string
	for _, pat := range patterns {
		switch pat {
		case "main":
			for _, mod := range mainModules() {
				flags = append(flags, "-gcflags="+mod+"/..."+"="+profileKeyFlag+key)
			}
		default:
			flags = append(flags, "-gcflags="+pat+"="+profileKeyFlag+key)
		}
	}
	return flags
}

// takeProfileKey removes the profile key flags from a compile command
// (args: the tool and its arguments) and returns the command the compiler
// is to run and the last key given ("" if none).
func takeProfileKey(args []string) ([]string, string) {
	var key string
	found := false
	for _, a := range args[1:] {
		if v, ok := strings.CutPrefix(a, profileKeyFlag); ok {
			key, found = v, true
		}
	}
	if !found {
		return args, ""
	}
	return slices.DeleteFunc(slices.Clone(args), func(a string) bool { return strings.HasPrefix(a, profileKeyFlag) }), key
}

// checkProfileKey reports whether an instrumented compile of importPath,
// given key through -gcflags, may read the profiles: always with
// buildspec.KeyInBuildID, and with buildspec.KeyInGcflags if key is the profiles' own.
func (c *Config) checkProfileKey(importPath, key string) error {
	if c.ProfileKey != buildspec.KeyInGcflags {
		return nil
	}
	want := c.profilesKey()
	switch {
	case want == "":
		return nil
	case key == "":
		return fmt.Errorf("-profilekey=gcflags: the compile of %s was not given %s by -gcflags, so the go command's cache would not tell its profile; pass go the flags that `pppexec -printgcflags` prints with the same flags, after any -gcflags of your own", importPath, profileKeyFlag+"KEY")
	case key != want:
		return fmt.Errorf("-profilekey=gcflags: the compile of %s was given %s, but the profiles now say %s (they changed since the flags were printed): print them again with `pppexec -printgcflags`", importPath, profileKeyFlag+key, profileKeyFlag+want)
	}
	return nil
}

// checkGoCommandKey is the check at -V=full (see ProfileKey): it returns
// an error if the go command that runs pppexec gives the instrumented
// packages no profile key, or another one than the profiles', and false
// if it cannot tell (the key must then be in the build ID).
func (c *Config) checkGoCommandKey() (known bool, err error) {
	want := c.profilesKey()
	if want == "" {
		return true, nil
	}
	args, known := goCommandArgs()
	if !known || len(args) == 0 || !isGoCommand(parentExecutable()) {
		return false, nil
	}
	var given []string
	for _, value := range gcflagsValues(args) {
		_, flags, _ := strings.Cut(value, "=")
		for _, f := range strings.Fields(flags) {
			if key, ok := strings.CutPrefix(f, profileKeyFlag); ok {
				given = append(given, key)
			}
		}
	}
	if len(given) == 0 {
		return true, fmt.Errorf("-profilekey=gcflags: the go command gives no package %s in its -gcflags; pass it the flags that `pppexec -printgcflags` prints with the same flags, after any -gcflags of your own", profileKeyFlag+"KEY")
	}
	for _, key := range given {
		if key != want {
			return true, fmt.Errorf("-profilekey=gcflags: the go command's -gcflags give %s, but the profiles now say %s (they changed since the flags were printed): print them again with `pppexec -printgcflags`", profileKeyFlag+key, profileKeyFlag+want)
		}
	}
	return true, nil
}
