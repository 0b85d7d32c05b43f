package export

import (
	"bufio"
	"fmt"
	"io"

	"github.com/pathcover/pathcover/internal/report"
)

// The LCOV format is the tracefile of lcov and genhtml (geninfo(1)), which
// most coverage services, editors and CI systems read. A record per
// source file:
//
//	TN:
//	SF:/abs/path/a.go
//	FN:12,Sum
//	FNDA:3,Sum
//	FNF:1
//	FNH:1
//	BRDA:14,0,0,5
//	BRDA:14,0,1,-
//	BRF:2
//	BRH:1
//	DA:12,3
//	LF:1
//	LH:1
//	end_of_record
//
// SF is the file as the profile names it (an absolute path, unless the
// build trimmed paths). FN gives each function's first line and name, and
// FNDA how many times it was entered; a name that a file declares more
// than once (init) gets #2, #3, ... after it, since LCOV knows a function
// by file and name. BRDA is one outcome of a decision (report.Decision):
// its line, the decision's number in the file (LCOV's block), the
// outcome's number in the decision, and how often it was taken, or - if
// the decision was never reached. DA is a line and its count (file.lines).
// FNF, BRF and LF count the functions, outcomes and lines listed, and FNH,
// BRH and LH those of them that ran.

// WriteLCOV writes the report's functions, lines and branch outcomes as an
// LCOV tracefile.
func WriteLCOV(w io.Writer, r *report.Report, opt *Options) error {
	fs, err := files(r, opt)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for _, f := range fs {
		writeLCOVFile(bw, f)
	}
	return bw.Flush()
}

func writeLCOVFile(w io.Writer, f *file) {
	fmt.Fprintf(w, "TN:\nSF:%s\n", f.name)
	names := lcovNames(f.funcs)
	hit := 0
	for i, fn := range f.funcs {
		fmt.Fprintf(w, "FN:%d,%s\n", fn.Line, names[i])
	}
	for i, fn := range f.funcs {
		fmt.Fprintf(w, "FNDA:%d,%s\n", fn.calls, names[i])
		if fn.calls > 0 {
			hit++
		}
	}
	fmt.Fprintf(w, "FNF:%d\nFNH:%d\n", len(f.funcs), hit)

	found, hit := 0, 0
	for block, d := range f.decisions() {
		for i, o := range d.Outcomes {
			taken := "-"
			if d.Runs > 0 {
				taken = fmt.Sprint(o.Count)
			}
			fmt.Fprintf(w, "BRDA:%d,%d,%d,%s\n", d.Line, block, i, taken)
			found++
			if o.Count > 0 {
				hit++
			}
		}
	}
	fmt.Fprintf(w, "BRF:%d\nBRH:%d\n", found, hit)

	lines := f.lines()
	hit = 0
	for _, l := range lines {
		fmt.Fprintf(w, "DA:%d,%d\n", l.number, l.count)
		if l.count > 0 {
			hit++
		}
	}
	fmt.Fprintf(w, "LF:%d\nLH:%d\nend_of_record\n", len(lines), hit)
}

// lcovNames returns the functions' names, made unique within the file.
func lcovNames(funcs []*function) []string {
	seen := make(map[string]int)
	names := make([]string, len(funcs))
	for i, fn := range funcs {
		seen[fn.Name]++
		names[i] = fn.Name
		if n := seen[fn.Name]; n > 1 {
			names[i] = fmt.Sprintf("%s#%d", fn.Name, n)
		}
	}
	return names
}
