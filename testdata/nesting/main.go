package main

import (
	"fmt"
	"os"

	"example.com/nesting/nesting"
)

func main() {
	tested := os.Getenv("NESTING_TESTED") != ""
	fmt.Println(nesting.Examples(), nesting.Drive(tested))
}
