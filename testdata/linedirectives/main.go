package main

import (
	"fmt"
	"strings"

	"example.com/lines/lines"
)

func main() {
	sum := lines.Drive()
	fmt.Println(sum)
	fmt.Println(strings.Join(lines.Positions, "\n"))
}
