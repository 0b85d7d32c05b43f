package driver

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// go test vets the package under test, and for that runs vet on every
// package it imports, for their facts (VetxOnly). The go command keys those
// runs on the compiles of the packages' dependencies, so a build in a new
// configuration of pppexec vets the whole standard library again, which
// takes as long as compiling it. pppexec passes vet through unchanged, and
// keeps its runs in the compile cache (compilecache.go) like compiles,
// keyed by what vet reads: the vet.cfg file that the go command writes
// (one JSON object, the only argument that is not a flag), with
//
//   - the package's files by their content (Go files, and the non-Go and
//     ignored files that the asmdecl and buildtag checks read);
//   - each dependency's export data by its content ID, and each
//     dependency's facts (PackageVetx) by their content;
//   - the outputs, VetxOutput (facts) and Stdout (diagnostics, which the go
//     command prints), left out of the key, and kept.
//
// A vet.cfg with a field not listed here, or asking for fixes
// (FixArchive), is not cached: whatever it names would not be in the key.

// vetConfig is the part of vet.cfg (cmd/go/internal/work: vetConfig) that
// the key treats specially; every other known field is hashed as it is.
type vetConfig struct {
	GoFiles, NonGoFiles, IgnoredFiles []string
	PackageFile, PackageVetx          map[string]string
	VetxOutput, Stdout, FixArchive    string
}

// vetLiteralFields are the fields of vet.cfg hashed as they are, with $WORK
// normalised: they name nothing that vet reads.
var vetLiteralFields = []string{"ID", "Compiler", "Dir", "ImportPath", "ModulePath", "ModuleVersion",
	"ImportMap", "Standard", "VetxOnly", "GoVersion", "SucceedOnTypecheckFailure"}

// vetKey returns the key of a vet command, or false if it cannot be cached.
func vetKey(args []string, version string) (toolKey, bool) {
	k := toolKey{outputs: map[string]string{}}
	var cfgFile string
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			if cfgFile != "" {
				return k, false
			}
			cfgFile = a
		}
	}
	if !strings.HasSuffix(cfgFile, "vet.cfg") {
		return k, false
	}
	data, err := os.ReadFile(cfgFile)
	if err != nil {
		return k, false
	}
	var fields map[string]json.RawMessage
	var cfg vetConfig
	if json.Unmarshal(data, &fields) != nil || json.Unmarshal(data, &cfg) != nil {
		return k, false
	}
	if cfg.FixArchive != "" || cfg.VetxOutput == "" {
		return k, false
	}
	normalize, _, ok := workNormalizer(filepath.Dir(cfg.VetxOutput))
	if !ok {
		return k, false
	}
	k.outputs["x"] = cfg.VetxOutput
	if cfg.Stdout != "" {
		k.outputs["s"] = cfg.Stdout
		k.optional = map[string]bool{"s": true}
	}
	h, ok := toolHash(args[0], version, true) // vet prints positions, some relative to it
	if !ok {
		return k, false
	}
	for _, a := range args[1:] {
		if a != cfgFile {
			fmt.Fprintf(h, "arg %s\n", normalize(a))
		}
	}
	special := []string{"GoFiles", "NonGoFiles", "IgnoredFiles", "PackageFile", "PackageVetx", "VetxOutput", "Stdout", "FixArchive"}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		switch {
		case slices.Contains(vetLiteralFields, name):
			fmt.Fprintf(h, "field %s %s\n", name, normalize(string(fields[name])))
		case !slices.Contains(special, name):
			return k, false
		}
	}
	for _, list := range [][]string{cfg.GoFiles, cfg.NonGoFiles, cfg.IgnoredFiles} {
		fmt.Fprintf(h, "files %d\n", len(list))
		for _, f := range list {
			fmt.Fprintf(h, "file %s\n", normalize(f))
			if !filepath.IsAbs(f) || !hashFile(h, f) {
				return k, false
			}
		}
	}
	for _, path := range sortedKeys(cfg.PackageFile) {
		id, ok := contentID(cfg.PackageFile[path])
		if !ok {
			return k, false
		}
		fmt.Fprintf(h, "packagefile %s %s\n", path, id)
	}
	for _, path := range sortedKeys(cfg.PackageVetx) {
		fmt.Fprintf(h, "packagevetx %s\n", path)
		if !hashFile(h, cfg.PackageVetx[path]) {
			return k, false
		}
	}
	k.sum = fmt.Sprintf("%x", h.Sum(nil))
	return k, true
}
