package driver

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// An importcfg is the file the go command gives compile and link with
// -importcfg: lines `packagefile path=file`, `importmap path=actual` (vendored
// and replaced imports), `modinfo "..."` (link only), `packageshlib`, and
// # comments. Unknown lines are kept as they are.
type importcfg struct {
	lines       []string          // as read, to write back
	packagefile map[string]string // import path → archive
	importmap   map[string]string // import path as written → actual path
}

func readImportcfg(name string) (*importcfg, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	cfg := &importcfg{packagefile: make(map[string]string), importmap: make(map[string]string)}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24) // modinfo lines can be long
	for sc.Scan() {
		line := sc.Text()
		cfg.lines = append(cfg.lines, line)
		verb, args, _ := strings.Cut(strings.TrimSpace(line), " ")
		before, after, ok := strings.Cut(args, "=")
		switch verb {
		case "packagefile":
			if !ok {
				return nil, fmt.Errorf("%s: bad line %q", name, line)
			}
			cfg.packagefile[before] = after
		case "importmap":
			if !ok {
				return nil, fmt.Errorf("%s: bad line %q", name, line)
			}
			cfg.importmap[before] = after
		}
	}
	return cfg, sc.Err()
}

// archive returns the archive of an import as written in source.
func (cfg *importcfg) archive(path string) (string, bool) {
	if actual, ok := cfg.importmap[path]; ok {
		path = actual
	}
	file, ok := cfg.packagefile[path]
	return file, ok
}

// write writes the importcfg with extra packagefile lines for the packages
// it does not already list.
func (cfg *importcfg) write(name string, extra map[string]string) error {
	var b strings.Builder
	for _, line := range cfg.lines {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	for _, path := range sortedKeys(extra) {
		if _, ok := cfg.packagefile[path]; !ok {
			fmt.Fprintf(&b, "packagefile %s=%s\n", path, extra[path])
		}
	}
	return os.WriteFile(name, []byte(b.String()), 0o666)
}
