// Package spill holds on disk what does not fit in memory.
//
// A Sorter sorts fixed-size records by a uint64 key, stably: it holds a
// bounded number of them, and past that sorts them (a radix sort of their
// keys) and writes them to a temporary file as a run, then merges the
// runs when the records are read back. The slicer sorts a run's memory
// accesses and its dependences through memory with it, and a WET's
// accesses by timestamp, so that a recording of hundreds of millions of
// accesses is read in bounded memory.
//
// Columns are sequences of numbers that grow, each holding its last
// values in memory and writing them to one temporary file a chunk at a
// time; a column is read forwards from any value, or backwards. A WET's
// labels are written to them as the recording is read, and compressed
// from them.
//
// The temporary files are made with os.CreateTemp (a random name, created
// exclusively, never an existing file or link) and removed at once where
// the system allows it (Unix), else when the sorter or store is closed:
// nothing another user planted is written, and nothing is left behind.
package spill
