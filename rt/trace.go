package rt

import (
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
// hash and returns its invocation id.
func TraceEnter(hash string, fn int) uint64 {
	inv := invocations.Add(1)
	traceWrite("call " + hash + " " + itoa(uint64(fn)) + " " + itoa(inv) + "\n")
	return inv
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
