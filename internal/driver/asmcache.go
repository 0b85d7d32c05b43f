package driver

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"regexp"
	"slices"
)

// The go command assembles a package's .s files in every action it runs
// for the package (once for their symbol ABIs, -gensymabis, then once a
// file), so a build of a new configuration of pppexec, which misses the go
// command's cache for every package, assembles the standard library again
// too: a few dozen packages, each a few runs. pppexec passes the assembler
// through unchanged, and keeps its runs in the compile cache
// (compilecache.go) like compiles, keyed by what it reads:
//
//   - the tool, the environment and every argument, as a compile's
//     (compileKey), the .s files by their content; the go command runs the
//     assembler in the package's directory, with the files named
//     relative to it, so that directory is part of the key;
//   - every file that a source includes, found as the assembler finds it
//     (cmd/asm/internal/lex: the name itself, then in the directory of the
//     source given on the command line, then in each -I directory), and
//     the files those include, by name and content: the go command's
//     go_asm.h, which the package's compile wrote, among them;
//   - not -o, the output, which is kept: an object, or the symbol ABIs.
//
// An include that cannot be found, or a flag that prints (-S, -debug, -v),
// leaves the run uncached, and so does any output (compilecache.go).

// asmWritingFlags are assembler flags that print or write besides -o.
var asmWritingFlags = []string{"S", "debug", "v", "d"}

// asmKey returns the key of an assembler command, or false if it cannot
// be cached.
func asmKey(args []string, version string) (toolKey, bool) {
	t := &toolArgs{args: args[1:]}
	k := toolKey{outputs: map[string]string{}}
	out, ok := t.flag("o")
	if !ok {
		return k, false
	}
	k.outputs["o"] = out
	normalize, work, ok := workNormalizer(filepath.Dir(out))
	if !ok {
		return k, false
	}
	h, ok := toolHash(args[0], version, relativeFiles(t.args))
	if !ok {
		return k, false
	}
	var includeDirs, sources []string
	for i := 0; i < len(t.args); i++ {
		a := t.args[i]
		name, value, hasValue := flagParts(a)
		if name != "" && !hasValue && i+1 < len(t.args) && asmTakesValue(name) {
			i++
			value, hasValue = t.args[i], true
		}
		switch {
		case name == "o":
			fmt.Fprintf(h, "flag o\n")
			continue
		case slices.Contains(asmWritingFlags, name):
			return k, false
		case name == "I":
			includeDirs = append(includeDirs, value)
		case name == "":
			sources = append(sources, a)
		}
		fmt.Fprintf(h, "arg %s\n", normalize(a))
		if hasValue {
			fmt.Fprintf(h, "value %s\n", normalize(value))
		}
		if name == "trimpath" || name == "I" {
			continue // not files: the includes are hashed below
		}
		for _, s := range []string{a, value} {
			if !hashIfFile(h, s, work) {
				return k, false
			}
		}
	}
	for _, src := range sources {
		if !hashIncludes(h, src, includeDirs, normalize) {
			return k, false
		}
	}
	k.sum = hex.EncodeToString(h.Sum(nil))
	return k, true
}

// asmTakesValue reports whether an assembler flag given as -name takes the
// next argument as its value.
func asmTakesValue(name string) bool {
	switch name {
	case "o", "p", "trimpath", "I", "D", "d", "spectre":
		return true
	}
	return false
}

// includeLine matches an #include of the assembler's preprocessor.
var includeLine = regexp.MustCompile(`^\s*#\s*include\s+"([^"]+)"`)

// hashIncludes adds to h the files that source includes, and those that
// they include, each by the name it is included as, where it was found,
// and its content. It returns false if an include cannot be found or
// read. Every #include line counts, whatever #ifdef it is in: at worst a
// file more is hashed.
func hashIncludes(h hash.Hash, source string, dirs []string, normalize func(string) string) bool {
	// The assembler's search path for every file that source pulls in.
	search := append([]string{filepath.Dir(source)}, dirs...)
	seen := map[string]bool{}
	queue := []string{source}
	for len(queue) > 0 {
		file := queue[0]
		queue = queue[1:]
		f, err := os.Open(file)
		if err != nil {
			return false
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			m := includeLine.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			found := findInclude(m[1], search)
			if found == "" {
				f.Close()
				return false
			}
			fmt.Fprintf(h, "include %s %s\n", m[1], normalize(found))
			if !seen[found] {
				seen[found] = true
				if !hashFile(h, found) {
					f.Close()
					return false
				}
				queue = append(queue, found)
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return false
		}
	}
	return true
}

// findInclude returns the file that the assembler opens for #include
// "name": name itself if it opens, else name in the first of dirs where
// it is; "" if none.
func findInclude(name string, dirs []string) string {
	candidates := []string{name}
	for _, d := range dirs {
		candidates = append(candidates, filepath.Join(d, name))
	}
	for _, c := range candidates {
		if info, err := os.Stat(c); err == nil && info.Mode().IsRegular() {
			return c
		}
	}
	return ""
}
