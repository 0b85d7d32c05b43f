package rt

import (
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
)

// Tracing is the oracle that checks path counting (pppexec -trace): each
// function call gets an invocation id, and each edge with a probe site
// writes a witness. Package profile defines the format; records are written
// with one system call each, so a trace survives os.Exit and kills.

var (
	traceMu     sync.Mutex
	traceFile   = ownFile{fd: -1} // made at the first record
	traceDir    string
	traceFailed bool
	invocations atomic.Uint64
)

// TraceEnter records a call of function fn of the package with metadata
// hash, by the calling goroutine, and returns its invocation id. The
// goroutine, and the one that created it, are read from runtime.Stack's
// text: slow, and independent of the goroutine accessor that whole program
// paths use, which the oracle checks.
func TraceEnter(hash string, fn int) uint64 {
	inv := invocations.Add(1)
	g, parent := stackGoroutine()
	traceWrite("call " + hash + " " + itoa(uint64(fn)) + " " + itoa(inv) + " " + itoa(g) + " " + itoa(parent) + "\n")
	return inv
}

// TraceReturn records that invocation inv returned; a -trace -wpp build
// defers it, so that the oracle knows how calls nest.
func TraceReturn(inv uint64) {
	traceWrite("ret " + itoa(inv) + "\n")
}

// stackGoroutine returns the calling goroutine's id and its creator's
// (0 for none), from the header and the "created by ... in goroutine N"
// line of its stack trace.
func stackGoroutine() (g, parent uint64) {
	var buf [8192]byte
	s := buf[:runtime.Stack(buf[:], false)]
	g, _ = leadingNumber(s, "goroutine ")
	const created = " in goroutine "
	for i := len(s) - len(created); i >= 0; i-- {
		if string(s[i:i+len(created)]) == created {
			parent, _ = leadingNumber(s[i:], created)
			break
		}
	}
	return g, parent
}

// leadingNumber parses the decimal number that follows prefix at the start
// of s.
func leadingNumber(s []byte, prefix string) (uint64, bool) {
	if len(s) < len(prefix) || string(s[:len(prefix)]) != prefix {
		return 0, false
	}
	var n uint64
	i := len(prefix)
	for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		n = n*10 + uint64(s[i]-'0')
	}
	return n, i > len(prefix)
}

// TraceEdge records that invocation inv took edge e.
func TraceEdge(inv uint64, e int) {
	traceWrite("edge " + itoa(inv) + " " + itoa(uint64(e)) + "\n")
}

// traceWrite appends a record to the trace file, made in $PATHCOVERDIR at
// the first record. The file stays open across the program's code, so each
// write first checks that the descriptor still is the trace file (see
// ownFile); if the file is lost, tracing stops with a warning.
func traceWrite(rec string) {
	traceMu.Lock()
	defer traceMu.Unlock()
	if traceFailed {
		return
	}
	if !traceFile.made() {
		if traceDir = profileDir(""); traceDir == "" {
			traceFailed = true
			return
		}
		if err := traceFile.create(traceDir, ".trace", syscall.O_WRONLY|syscall.O_APPEND); err != nil {
			traceFail(err)
			return
		}
	}
	fd, _, err := traceFile.descriptor()
	if err == nil {
		err = writeAll(fd, []byte(rec))
	}
	if err != nil {
		traceFail(err)
	}
}

// traceFail reports that the trace cannot be written, and stops tracing.
func traceFail(err error) {
	writeStderr("pathcover: cannot write trace to " + traceDir + ": " + err.Error() + "\n")
	traceFailed = true
}
