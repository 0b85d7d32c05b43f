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
	traceFile   = -1 // the trace file's descriptor
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
	if traceFile < 0 && !traceFailed {
		dir, _ := syscall.Getenv("PATHCOVERDIR")
		if dir == "" {
			traceFailed = true
			return
		}
		base := dir + "/pathcover." + itoa(uint64(syscall.Getpid())) + "."
		for n := uint64(0); n < 1000; n++ {
			fd, err := createNew(base+itoa(n)+".trace", syscall.O_WRONLY|syscall.O_APPEND, 0o644)
			if err == nil {
				traceFile = fd
				break
			}
			if err != syscall.EEXIST {
				break
			}
		}
		traceFailed = traceFile < 0
	}
	if traceFile >= 0 {
		writeAll(traceFile, []byte(rec))
	}
}
