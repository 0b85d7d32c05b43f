package main

import (
	"fmt"

	"example.com/oracle/constructs"
)

func main() {
	fmt.Println(constructs.Drive())
	constructs.Exit()
}
