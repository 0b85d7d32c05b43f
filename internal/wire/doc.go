// Package wire reads what pathcover's binary formats are made of
// (variable-length numbers, counts, indexes and byte strings: the TWPP's
// and the WET's sections, the tests files' records), bounding every count
// by what is left to read, so that no input makes a reader allocate more
// than the input holds, and keeping the first error with where it
// happened. Each format's layout is drawn where the format is defined;
// this is only its reader's alphabet.
package wire
