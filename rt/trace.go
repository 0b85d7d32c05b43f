package rt

import (
	"os"
	"sync"
	"sync/atomic"
)

// Tracing is the oracle that checks path counting (pppexec -trace): each
// function call gets an invocation id, and each edge with a probe site
// writes a witness. Package profile defines the format; records are written
// with one system call each, so a trace survives os.Exit and kills.

var (
	traceMu     sync.Mutex
	traceFile   *os.File
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

func traceWrite(rec string) {
	traceMu.Lock()
	defer traceMu.Unlock()
	if traceFile == nil && !traceFailed {
		dir := os.Getenv("PATHCOVERDIR")
		if dir == "" {
			traceFailed = true
			return
		}
		base := dir + string(os.PathSeparator) + "pathcover." + itoa(uint64(os.Getpid())) + "."
		for n := uint64(0); n < 1000; n++ {
			f, err := os.OpenFile(base+itoa(n)+".trace", os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
			if err == nil {
				traceFile = f
				break
			}
			if !os.IsExist(err) {
				break
			}
		}
		traceFailed = traceFile == nil
	}
	if traceFile != nil {
		traceFile.WriteString(rec)
	}
}
