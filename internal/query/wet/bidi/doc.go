// Package bidi compresses streams of 64-bit values so that they can be
// walked both ways from any point without decompressing them: the second
// tier of a whole execution trace (Zhang and Gupta, "Whole Execution
// Traces and their Applications", TACO 2005, section 4), where every
// label left after the first tier (a statement's timestamps and values, an
// edge's timestamps) is one such stream.
//
// # A cursor between two stacks
//
// A Stream of n values v[0..n) has a cursor at a position p. It holds the
// W values v[p..p+W) plainly (its window, W depending on the method,
// padded with zeros past the end), the values before the window on a left
// stack and those after it on a right stack, each stack of bits, each with
// its own table. A value after the window is pushed on the right stack as
// predicted from its left context, the W values before it; a value before
// the window is pushed on the left stack as predicted from its right
// context, the W values after it. Stepping forward pops v[p+W] from the
// right stack, whose left context is the window, shifts the window, and
// pushes v[p] on the left stack, whose right context is the new window;
// stepping back does the mirror image. This is the paper's BFCM (its
// forward-compressed part FR is the left stack, its backward-compressed
// part BL the right stack, its BUF the room each stack grows into); here
// the two stacks are two slices, which grow as they need to, so the
// buffer sizing of the paper's Fig. 12 is not needed.
//
// # Lossless in both directions
//
// A predictor with a table (FCM, DFCM, FCM2, DFCM2) must give back, when it pops a
// value, the table it had before pushing it: the next pop reads that
// table. The paper's Figs. 9 and 10 do not: a miss writes the value
// itself, and decoding it sets table[index] = v, so the entry the miss
// evicted is lost, and an earlier hit at that index then decodes the wrong
// value (TestPaperBFCMIsLossy shows a stream where this happens). Here,
// after a push, table[index] always holds the value pushed, so a pop reads
// the value from the table in both cases, and a miss stores instead the
// entry it evicted (as its XOR with the value, which is small when the two
// are alike), which the pop puts back. A hit costs one bit, a miss one bit,
// seven bits of length and the XOR's significant bits. Every method here
// keeps the invariant that a pop undoes exactly the push before it, which
// TestWalks and FuzzWalk check on random streams walked both ways.
//
// # Methods and selection
//
// The paper's four predictors and three of ours, each with several
// context sizes:
//
//   - FCM(n): the value that followed the last n values the last time
//     they occurred (a hashed table);
//   - DFCM(n): the same over differences: the difference that followed
//     the last n differences, added to the nearest value;
//   - FCM2(n) and DFCM2(n), beyond the paper: the same with the last two
//     values (differences) that followed each context, the latest first,
//     so that a context followed by one of two values (a branch taken
//     either way, a call from one of two sites) costs one or two bits
//     where FCM's misses cost a payload each time the two alternate;
//   - LastN(n): one of the n nearest values, by index;
//   - LastNStride(n): the nearest value plus one of the n nearest
//     strides, by index;
//   - Runs(1) and Runs(2), beyond the paper: the nearest value, or it
//     plus the nearest stride, with hits counted in runs of up to 255,
//     for streams that it fits but for a few values, which the others
//     code in a bit a value at least;
//
// and Raw, each value's bits as a miss would store them, which short
// streams and streams of noise need. Compress tries every candidate on a
// sample of a stream (Options.WarmUp values; the paper does not say how
// many, and takes the first ones: here a quarter from each of four places,
// as a stream's start can mislead) and keeps the one that took the fewest
// bits for them.
//
// # The encoding
//
// Stream.MarshalBinary writes a stream with its cursor at 0 (the left
// stack empty, the left table zero), drawn in encode.go; Parse reads it
// and walks it to the end and back once, so that a stream it accepts can
// be walked without errors.
package bidi
