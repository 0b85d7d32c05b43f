// Package w starts goroutines in every way a -wpp build tells apart.
package w

import (
	"fmt"
	"iter"
	"sync"
)

type worker struct{ wg *sync.WaitGroup }

func (w worker) run(n int) { defer w.wg.Done() }

func sum(xs ...int) (n int) {
	for _, x := range xs {
		n += x
	}
	return n
}

func pair[T any](a, b T) (T, T) { return b, a }

// Start starts goroutines: a method value, a variadic function, a literal
// with arguments, an explicit instance, an implicit one and a builtin
// (these two unwrapped).
func Start(wg *sync.WaitGroup, c chan int) {
	w := worker{wg}
	wg.Add(1)
	go w.run(1)
	go sum(1, 2, 3)
	go func(n int) {
		if n > 0 {
			go fmt.Println(n)
		}
	}(len(c))
	go pair[int](1, 2)
	go pair(1, 2)
	go close(c)
}

// Evens's loop body runs inside the iterator's call.
func Evens(seq iter.Seq[int]) (n int) {
	for x := range seq {
		if x%2 == 0 {
			n++
		}
	}
	return n
}
