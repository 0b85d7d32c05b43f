package export

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/pathcover/pathcover/internal/report"
)

// The coverprofile format is what go test -coverprofile writes, and what
// go tool cover, golang.org/x/tools/cover and the services that take Go
// coverage read:
//
//	mode: count
//	example.com/m/a/a.go:12.34,14.2 2 7
//
// A mode line (set, count or atomic), then a line per statement block:
// file, start line.column, end line.column (exclusive), the block's
// statements and its count (in set mode 1 if it ran, else 0). The blocks
// are those of cmd/cover, which pppexec records with each function
// (profile.Unit), and the file is named as cover names it (file.goName).
// go test sorts the blocks as internal/coverage/cformat does: by package,
// file, start line, end line, start column, end column, statements; so
// does this. It writes a block once, its counts added up over the builds
// that ran it, where go test -coverpkg writes one line per test binary
// that every reader adds up itself. Go's counters are 32 bits, and its
// formatter saturates their sums there: so does this.

// WriteCoverProfile writes the report's statement blocks in the
// -coverprofile format, in opt.Mode.
func WriteCoverProfile(w io.Writer, r *report.Report, opt *Options) error {
	mode := cmp.Or(opt.Mode, ModeCount)
	if _, ok := modeNames[mode]; !ok {
		return fmt.Errorf("no cover mode %s", mode)
	}
	fs, err := files(r, opt)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "mode: %s\n", mode)
	for _, b := range coverBlocks(fs) {
		count := min(b.Count, math.MaxUint32)
		if mode == ModeSet && count > 0 {
			count = 1
		}
		fmt.Fprintf(bw, "%s:%d.%d,%d.%d %d %d\n", b.file, b.Line, b.Col, b.EndLine, b.EndCol, b.Stmts, count)
	}
	return bw.Flush()
}

// A coverBlock is a unit in its file.
type coverBlock struct {
	report.Unit
	pkg, file string
}

// coverBlocks returns the units of the files in go test's order.
func coverBlocks(fs []*file) []coverBlock {
	var blocks []coverBlock
	for _, f := range fs {
		for _, fn := range f.funcs {
			for _, u := range fn.units {
				blocks = append(blocks, coverBlock{u, f.pkg, f.goName()})
			}
		}
	}
	slices.SortFunc(blocks, func(a, b coverBlock) int {
		return cmp.Or(cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.file, b.file),
			cmp.Compare(a.Line, b.Line), cmp.Compare(a.EndLine, b.EndLine),
			cmp.Compare(a.Col, b.Col), cmp.Compare(a.EndCol, b.EndCol), cmp.Compare(a.Stmts, b.Stmts))
	})
	return blocks
}
