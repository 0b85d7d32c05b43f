package slice

// ReplayInWindows makes o replay its calls in windows of n statements,
// and hold at most 64 kilobytes of them, so that tests of small
// programs check calls of many windows, replayed again once dropped.
func ReplayInWindows(o *Compact, n int) {
	o.replayed.r.windowStmts = n
	o.replayed.limit = 64 << 10
}
