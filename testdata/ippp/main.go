// Command ippp drives package ip. With IPPP_FIELD=1 it also runs inputs that
// take segments the plain run does not: the "field" of a PPP build whose
// interesting segments are the plain run's.
package main

import (
	"fmt"
	"os"

	"example.com/ippp/ip"
)

func main() {
	inputs := [][]int{{1, -2, 3}, {0}, {4, 5, -6, 7}, {-1, -1}, {}, {2, 2, 2, 9, 10}}
	if os.Getenv("IPPP_FIELD") == "1" {
		inputs = append(inputs, []int{-9, -8, -7, -6}, []int{3, 3, 3, 3, 3, 3, 3})
	}
	sum := 0
	for _, xs := range inputs {
		sum += ip.Drive(xs)
	}
	sum += ip.Tail(5) + ip.Tail(2)
	var wide [64]bool
	for i := range wide {
		wide[i] = i%3 == 0
	}
	sum += ip.Wide(wide, 4) + ip.Wide([64]bool{}, -1)
	fmt.Println("sum", sum)
}
