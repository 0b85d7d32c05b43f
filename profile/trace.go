package profile

// A trace file, pathcover.<pid>.<n>.trace, is what a program built with
// pppexec -trace writes besides its counters: the witnesses from which the
// path oracle regenerates every call's edges. It is text, one record a line:
//
//	call <hash> <func> <inv> <g> <parent>
//	                           a call of function <func> (an index in the
//	                           metadata <hash>), given invocation id <inv>,
//	                           by goroutine <g>, which goroutine <parent>
//	                           created (0: none); the last two as
//	                           runtime.Stack tells them (older traces have
//	                           neither)
//	edge <inv> <edge>          that call took edge <edge>, which has a
//	                           probe site
//	ret <inv>                  that call returned (-trace -wpp builds only)
//
// Invocation ids are unique in the process; the edges of one call are in
// the order it took them, and the records of one goroutine are in the
// order it wrote them.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// A Call is one invocation of a function in a trace.
type Call struct {
	Hash  string
	Func  int
	Edges []int32 // the witnesses, in order
	// EdgeLines are the lines of the witnesses' records.
	EdgeLines []int
	// Goroutine and Parent are the calling goroutine and its creator, if
	// the trace says.
	Goroutine, Parent uint64
	// Line is the line of the call's record, and Return that of its ret
	// record (0 if none): the order of a goroutine's calls and returns.
	Line, Return int
}

// ReadTrace reads a trace file.
func ReadTrace(name string) ([]*Call, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseTrace(f)
}

// ParseTrace parses a trace. An error names the line at fault.
func ParseTrace(r io.Reader) ([]*Call, error) {
	var calls []*Call
	byInv := make(map[uint64]*Call)
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		switch {
		case (len(f) == 4 || len(f) == 6) && f[0] == "call":
			fn, err1 := strconv.Atoi(f[2])
			inv, err2 := strconv.ParseUint(f[3], 10, 64)
			if err1 != nil || err2 != nil || fn < 0 || len(f[1]) != 32 {
				return nil, fmt.Errorf("line %d: bad call record", line)
			}
			if byInv[inv] != nil {
				return nil, fmt.Errorf("line %d: invocation %d called twice", line, inv)
			}
			c := &Call{Hash: f[1], Func: fn, Line: line}
			if len(f) == 6 {
				g, err1 := strconv.ParseUint(f[4], 10, 64)
				parent, err2 := strconv.ParseUint(f[5], 10, 64)
				if err1 != nil || err2 != nil {
					return nil, fmt.Errorf("line %d: bad call record", line)
				}
				c.Goroutine, c.Parent = g, parent
			}
			byInv[inv] = c
			calls = append(calls, c)
		case len(f) == 2 && f[0] == "ret":
			inv, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: bad ret record", line)
			}
			c := byInv[inv]
			if c == nil || c.Return != 0 {
				return nil, fmt.Errorf("line %d: return of invocation %d, never called or returned already", line, inv)
			}
			c.Return = line
		case len(f) == 3 && f[0] == "edge":
			inv, err1 := strconv.ParseUint(f[1], 10, 64)
			e, err2 := strconv.ParseInt(f[2], 10, 32)
			if err1 != nil || err2 != nil || e < 0 {
				return nil, fmt.Errorf("line %d: bad edge record", line)
			}
			c := byInv[inv]
			if c == nil {
				return nil, fmt.Errorf("line %d: edge of invocation %d, never called", line, inv)
			}
			c.Edges = append(c.Edges, int32(e))
			c.EdgeLines = append(c.EdgeLines, line)
		default:
			return nil, fmt.Errorf("line %d: not a trace record", line)
		}
	}
	return calls, sc.Err()
}
