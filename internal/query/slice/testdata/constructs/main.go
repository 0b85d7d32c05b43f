// Command constructs runs one small function for each kind of dependence
// that slicing follows. Its slices are checked by hand: a line marked
// //@slice(v) a b ... is a criterion, the last execution of its statement
// and the value of v it reads, and a b ... are the labels (//@name) of the
// other lines its slice must hold, no more and no fewer (TestHandSlices);
// //@relevant(v) a b ... is one of its relevant slice (with potential
// dependences).
package main

import "fmt"

func main() { //@main
	fmt.Println(locals(5))                //@call_locals
	fmt.Println(calls(4, 9))              //@call_calls
	fmt.Println(pointers())               //@call_pointers
	fmt.Println(slicesMaps())             //@call_sm
	fmt.Println(concurrent())             //@call_conc
	fmt.Println(recovered())              //@call_rec
	fmt.Println(kinds(7), kinds("seven")) //@call_kinds
	fmt.Println(methods())                //@call_meth
	fmt.Println(selects())                //@call_sel
	fmt.Println(ranges())                 //@call_rg
	fmt.Println(stackMoves())             //@call_st
	fmt.Println(tails())                  //@call_tails
	fmt.Println(bodies())                 //@call_bodies
	fmt.Println(reached())                //@call_reached
	fmt.Println(literals())               //@call_literals
	fmt.Println(relevant("9.x"))          //@call_rv
}

// Locals and control dependence: t never reaches u.
func locals(n int) int { //@locals
	s := 0 //@l_s0
	t := 0
	for i := 0; i < n; i++ { //@l_for
		if i%2 == 0 { //@l_if
			s += i //@l_sadd
		} else {
			t += i
		}
	}
	u := s * 2 //@l_u
	_ = t
	return u //@slice(u) l_u l_sadd l_s0 l_if l_for locals call_locals main
}

// Arguments to parameters, results to the caller: b never reaches y.
func double(x int) int { //@double
	return x * 2 //@double_ret
}

func calls(a, b int) int { //@calls
	y := double(a) //@c_y
	z := b + 1
	_ = z
	return y //@slice(y) c_y double double_ret calls call_calls main
}

// Memory through pointers and globals: p.y never reaches counter.
type point struct{ x, y int }

var counter int

func setX(q *point, v int) { //@setX
	q.x = v //@setX_store
}

func pointers() int { //@pointers
	p := &point{} //@p_new
	setX(p, 5)    //@p_set
	p.y = 7
	counter = p.x  //@p_counter
	return counter //@slice(counter) p_counter setX_store setX p_set p_new pointers call_pointers main
}

// Sub-slices alias, copy and append, map entries: m["j"] never reaches
// m["k"].
func slicesMaps() int { //@sm
	a := []int{1, 2, 3}   //@sm_a
	b := a[1:]            //@sm_b
	b[0] = 10             //@sm_store
	c := make([]int, 2)   //@sm_c
	copy(c, a)            //@sm_copy
	c = append(c, 4)      //@sm_app
	m := map[string]int{} //@sm_m
	m["k"] = c[1]         //@sm_mk
	m["j"] = 99
	return m["k"] //@slice() sm_mk sm_app sm_copy sm_c sm_store sm_b sm_a sm_m sm call_sm main
}

// A goroutine, a channel, captured variables.
func concurrent() int { //@conc
	ch := make(chan int) //@cc_ch
	base := 3            //@cc_base
	unused := 4
	go func() { //@cc_go
		ch <- base * 2 //@cc_send
	}()
	_ = unused
	got := <-ch //@cc_recv
	return got  //@slice(got) cc_recv cc_send cc_go cc_base cc_ch conc call_conc main
}

// A deferred function that recovers.
func recovered() (r int) { //@rec
	defer func() { //@rec_defer
		if e := recover(); e != nil { //@rec_if
			r = 42 //@slice(r) rec_if rec_defer rec call_rec main
		}
	}()
	panic("boom")
}

// A type switch binds its variable in each clause.
func kinds(x any) int { //@kinds
	switch v := x.(type) { //@k_sw
	case int: //@k_int
		return v + 1 //@slice(v) k_int k_sw kinds call_kinds main
	case string:
		return len(v)
	}
	return 0
}

// A pointer method on a variable: its address is taken.
type acc struct{ total int }

func (a *acc) add(n int) { a.total += n } //@acc_add

func methods() int { //@meth
	var a acc      //@m_var
	a.add(2)       //@m_add1
	a.add(3)       //@m_add2
	return a.total //@slice(a) acc_add m_add1 m_add2 m_var meth call_meth main
}

// A select receives what was sent.
func selects() int { //@sel
	ch := make(chan int, 1) //@s_ch
	quit := make(chan bool, 1)
	ch <- 5 //@s_send
	var got int
	select { //@s_select
	case got = <-ch: //@s_recv
	case <-quit:
	}
	return got //@slice(got) s_recv s_send s_ch s_select sel call_sel main
}

// Range loops: over an integer, and over a channel, receiving each value
// sent.
func ranges() int { //@rg
	ch := make(chan int, 3) //@r_ch
	for i := range 3 {      //@r_for
		ch <- i * i //@r_send
	}
	close(ch)
	sum := 0            //@r_sum0
	for v := range ch { //@r_range
		sum += v //@r_add
	}
	m := map[int]int{} //@r_m
	m[1] = sum         //@r_m1
	m[2] = 7
	total := 0            //@r_total0
	for k, v := range m { //@r_mrange
		if k == 1 { //@r_k
			total += v //@r_total
		}
	}
	return total //@slice(total) r_total r_k r_mrange r_total0 r_m r_m1 r_add r_sum0 r_range r_send r_for r_ch rg call_rg main
}

// An address-taken local on the stack, read after a deep recursion has
// made the stack grow (and so move): its writer is found by its distance
// from the stack's top, which the move keeps.
func deep(n int, p *int) int { //@deep
	if n == 0 { //@d_if
		return *p //@slice() d_if deep d_rec st st_x st_p st_call call_st main
	}
	var pad [64]int
	pad[n%64] = n
	return deep(n-1, p) + pad[0]*0 //@d_rec
}

func stackMoves() int { //@st
	x := 5               //@st_x
	p := &x              //@st_p
	return deep(2000, p) //@st_call
}

// A store after the branches of a loop's round, and a load in a return
// statement: both run after their path's count (the path's tail), and
// each is that path's, so out[0] was written in the first round, from
// v = 100, and v = 200 is not in the slice.
func tails() int { //@tails
	out := make([]int, 2) //@t_make
	for i := range 2 {    //@t_for
		v := 0
		if i == 0 { //@t_if
			v = 100 //@t_v100
		} else {
			v = 200
		}
		out[i] = v //@t_store
	}
	return out[0] //@slice() t_store t_v100 t_if t_for t_make tails call_tails main
}

// A store in the body of a range-over-func loop runs inside the
// iterator's call, but is the loop's function's: it reaches the load
// after the loop. hits[1] was written in the rounds of v = 1 and v = 3,
// the second reading the first's, the first reading what make wrote. The
// range value v depends on the range expression, the iterator upTo made,
// not on the argument the iterator passed yield (an approximation: the
// iterator's loop is not in the slice).
func upTo(n int) func(func(int) bool) { //@upTo
	return func(yield func(int) bool) { //@u_ret
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func bodies() int { //@bodies
	hits := make([]int, 2)   //@b_make
	for v := range upTo(4) { //@b_range
		hits[v%2] += v //@b_store
	}
	return hits[1] //@slice() b_store b_range b_make u_ret upTo bodies call_bodies main
}

// A calling statement met first as the caller of a callee in the slice,
// and only later as the definition of a value the slice uses, is in the
// slice with what its result depends on, whichever the walk meets first:
// bump's return is in the slice of reached's result. Breadth first, bump's
// entry leads to x := bump(p, 1) (as its caller) two steps before x1 does
// (as x's definition); from the last node back, x1 comes after it too
// (through viaResult's return, taken once y := viaResult(&s) is).
func bump(p *int, v int) int { //@bump
	*p += v   //@bump_store
	return *p //@bump_ret
}

func viaResult(p *int) int { //@vr
	x := bump(p, 1) //@vr_x
	x1 := x + 1     //@vr_x1
	return x1 + 1   //@vr_ret
}

func reached() int { //@reached
	s := 10            //@r2_s
	y := viaResult(&s) //@r2_y
	y1 := y + 1        //@r2_y1
	return y1 + s      //@slice() r2_y1 r2_y vr_ret vr_x1 vr_x vr bump_ret bump_store bump r2_s reached call_reached main
}

// A statement's node stands for all of it, before its call and after: a
// read inside the call of what the statement wrote before it (the literal
// it passes) depends on that, not on what the call went on to return, so
// head's return is not in the slice of its own read.
func head(xs []int) int { //@head
	v := xs[0] //@slice() head hd_call literals call_literals main
	w := v * 2
	return w
}

func literals() int { //@literals
	n := head([]int{7, 8}) //@hd_call
	return n
}

// Potential dependences: on "9.x" the digit check (wrong: '9' is not a
// digit to it) kept n = ... from running, so the n that m reads, n := 0's,
// potentially depends on its last execution and on the loop's, which
// decides whether the check runs. The check for 'x' decides k, never n:
// it stays out, as k does. The dynamic slice holds neither.
func relevant(s string) int { //@rv
	n := 0 //@rv_n0
	k := 0
	for i := 0; i < len(s); i++ { //@rv_for
		if s[i] >= '0' && s[i] < '9' { //@rv_if
			n = n*10 + int(s[i]-'0')
		}
		if s[i] == 'x' {
			k++
		}
	}
	m := n //@rv_m
	d := n //@slice(n) rv_n0 rv call_rv main
	q := n //@relevant(n) rv_n0 rv_if rv_for rv call_rv main
	_ = k
	return m + d*0 + q*0 //@relevant(m) rv_m rv_n0 rv_if rv_for rv call_rv main
}
