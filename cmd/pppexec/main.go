package main

import (
	"os"

	"github.com/pathcover/pathcover/internal/driver"
)

func main() {
	os.Exit(driver.Main("pppexec", os.Args[1:]))
}
