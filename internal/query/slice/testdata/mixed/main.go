// Command mixed exercises what the slicers must agree on rather than
// what a hand can check: goroutines that share memory under a mutex and
// pass values on channels, a select loop, callbacks from code that is not
// instrumented (sort.Slice's less), deferred calls and a recovered panic
// in the middle of a loop, interface calls, closures, a range-over-func
// iterator, maps, recursion and slices that grow. TestOracle slices every
// statement of its run with each graph and requires the same slices.
package main

import (
	"fmt"
	"iter"
	"sort"
	"strings"
	"sync"
)

type shape interface{ area() int }

type rect struct{ w, h int }
type square struct{ s int }

func (r rect) area() int    { return r.w * r.h }
func (s *square) area() int { return s.s * s.s }

type stats struct {
	mu    sync.Mutex
	total int
	seen  map[string]int
}

func (s *stats) add(name string, v int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total += v
	s.seen[name] += v
}

func workers(n int) int {
	st := &stats{seen: map[string]int{}}
	jobs := make(chan int)
	results := make(chan int, n)
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			for j := range jobs {
				v := j * j
				if j%2 == 0 {
					v += id * 0
				}
				st.add(fmt.Sprint(j%3), v)
				results <- v
			}
		}(w)
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(results)
	sum := 0
	for v := range results {
		sum += v
	}
	return sum + st.total + st.seen["1"]
}

func pump(n int) int {
	a, b := make(chan int), make(chan int)
	done := make(chan bool)
	go func() {
		for i := 0; i < n; i++ {
			if i%2 == 0 {
				a <- i
			} else {
				b <- i
			}
		}
		close(done)
	}()
	got := 0
	for {
		select {
		case x := <-a:
			got += x
		case y := <-b:
			got -= y
		case <-done:
			return got
		}
	}
}

func sorted(xs []int) []int {
	ys := append([]int(nil), xs...)
	sort.Slice(ys, func(i, j int) bool { return ys[i] > ys[j] })
	return ys
}

func risky(i int) (r int) {
	defer func() {
		if e := recover(); e != nil {
			r = -i
		}
	}()
	if i%3 == 0 {
		var m map[string]int
		m["boom"] = i // panics: a nil map
	}
	return i * 10
}

func evens(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < n; i += 2 {
			if !yield(i) {
				return
			}
		}
	}
}

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func grow(n int) []int {
	var s []int
	for i := range n {
		s = append(s, i*i)
	}
	t := s[2:5]
	t[1] = 99
	return s
}

func main() {
	shapes := []shape{rect{2, 3}, &square{4}, rect{5, 1}}
	total := 0
	for _, s := range shapes {
		total += s.area()
	}
	fmt.Println("areas", total)
	fmt.Println("workers", workers(7))
	fmt.Println("pump", pump(9))
	fmt.Println("sorted", sorted([]int{3, 1, 4, 1, 5, 9, 2, 6}))
	acc := 0
	for i := range 7 {
		acc += risky(i)
	}
	fmt.Println("risky", acc)
	count := 0
	mult := 3
	hits := make([]int, 2)
	for v := range evens(10) {
		if v > 6 {
			break
		}
		count += v * mult
		hits[v%4/2]++ // memory, in the body the iterator's call runs
	}
	fmt.Println("evens", count, hits)
	fmt.Println("fib", fib(9))
	g := grow(12)
	var b strings.Builder
	for k, v := range map[string]int{"a": g[3], "b": g[5]} {
		b.WriteString(k)
		count += v
	}
	fmt.Println("grow", g[3], count, len(b.String()))
}
