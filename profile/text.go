package profile

// A text profile, which pathcover merge writes, holds a whole profile in one
// file, like go test's -coverprofile. It is UTF-8 lines of space-separated
// fields:
//
//	pathcover-profile 1
//	processes <n>
//	meta <hash> <metadata>
//	paths <hash> <func> <id> <count>
//	lost <hash> <func> <count>
//	error <hash> <func> <id> <error>
//
// The first line names the format. processes is the number of processes
// whose counts went in. Each meta line carries a package's metadata file as
// it was (one line of JSON), which hash must name; then each paths line says
// that path id of function func (an index in that metadata's functions) ran
// count times, and each lost line how many runs of a function found its
// hash table full. An error line says that the count of a path of a hot
// path table (pppexec -hot) may exceed its true count by at most error.
// Counts are decimal. Lines are sorted, so equal profiles
// give equal files.

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

const textHeader = "pathcover-profile 1"

// WriteText writes p as a text profile.
func (p *Profile) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\nprocesses %d\n", textHeader, p.Processes)
	hashes := make([]string, 0, len(p.Raw))
	for h := range p.Raw {
		hashes = append(hashes, h)
	}
	slices.Sort(hashes)
	for _, h := range hashes {
		fmt.Fprintf(bw, "meta %s %s\n", h, p.Raw[h])
	}
	for _, h := range hashes {
		byFunc := p.Counts[h]
		for _, fn := range sortedKeys(byFunc) {
			for _, id := range sortedKeys(byFunc[fn]) {
				fmt.Fprintf(bw, "paths %s %d %d %d\n", h, fn, id, byFunc[fn][id])
			}
		}
		for _, fn := range sortedKeys(p.Lost[h]) {
			fmt.Fprintf(bw, "lost %s %d %d\n", h, fn, p.Lost[h][fn])
		}
		for _, fn := range sortedKeys(p.Errors[h]) {
			for _, id := range sortedKeys(p.Errors[h][fn]) {
				fmt.Fprintf(bw, "error %s %d %d %d\n", h, fn, id, p.Errors[h][fn][id])
			}
		}
	}
	return bw.Flush()
}

func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ReadText adds a text profile to p. An error names the line at fault.
func (p *Profile) ReadText(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<30) // a metadata line can be long
	line := 0
	fail := func(format string, args ...any) error {
		return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			if text != textHeader {
				return errors.New("not a pathcover text profile")
			}
			continue
		}
		kind, rest, _ := strings.Cut(text, " ")
		switch kind {
		case "processes":
			n, err := strconv.Atoi(rest)
			if err != nil || n < 0 {
				return fail("bad process count %q", rest)
			}
			p.Processes = satInc(p.Processes, n)
		case "meta":
			hash, raw, ok := strings.Cut(rest, " ")
			if !ok {
				return fail("meta line without metadata")
			}
			if err := p.AddMeta(hash, []byte(raw)); err != nil {
				return fail("%v", err)
			}
		case "paths", "lost", "error":
			f := strings.Fields(rest)
			if (kind != "lost" && len(f) != 4) || (kind == "lost" && len(f) != 3) {
				return fail("%s line with %d fields", kind, len(f))
			}
			m := p.Metas[f[0]]
			if m == nil {
				return fail("no meta line for hash %s before it", f[0])
			}
			fn, err := strconv.Atoi(f[1])
			if err != nil || fn < 0 || fn >= len(m.Funcs) {
				return fail("bad function index %q for %s", f[1], m.Package)
			}
			nums := make([]uint64, len(f)-2)
			for i, s := range f[2:] {
				if nums[i], err = strconv.ParseUint(s, 10, 64); err != nil {
					return fail("bad number %q", s)
				}
			}
			if kind == "lost" {
				p.addLost(f[0], fn, nums[0])
				continue
			}
			if nums[0] >= m.Funcs[fn].Paths {
				return fail("path %d of %s, which has %d paths", nums[0], m.Funcs[fn].Name, m.Funcs[fn].Paths)
			}
			if kind == "error" {
				p.addError(f[0], fn, nums[0], nums[1])
				continue
			}
			p.Add(f[0], fn, nums[0], nums[1])
		default:
			return fail("unknown line kind %q", kind)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if line == 0 {
		return errors.New("empty file, not a pathcover text profile")
	}
	return nil
}
