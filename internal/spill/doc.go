// Package spill sorts fixed-size records that do not fit in memory, by a
// uint64 key and stably: it holds a bounded number of them, and past
// that sorts them (a radix sort of their keys) and writes them to a
// temporary file as a run, then merges the runs when the records are
// read back. The slicer sorts a run's memory accesses and
// its dependences through memory with it, so that a recording of
// hundreds of millions of accesses is read in bounded memory.
//
// The temporary files are made with os.CreateTemp (a random name, created
// exclusively, never an existing file or link) and removed at once where
// the system allows it (Unix), else when the sorter is closed: nothing
// another user planted is written, and nothing is left behind.
package spill
