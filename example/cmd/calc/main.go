// Command calc evaluates the expressions on its standard input, one a line,
// with variables set as name=value arguments. It is the example's "field"
// workload: what users run, beyond what the tests try.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/pathcover/pathcover/example/expr"
)

func main() {
	env := map[string]float64{}
	for _, arg := range os.Args[1:] {
		name, value, ok := strings.Cut(arg, "=")
		v, err := strconv.ParseFloat(value, 64)
		if !ok || err != nil {
			fmt.Fprintf(os.Stderr, "calc: bad variable %q (want name=number)\n", arg)
			os.Exit(2)
		}
		env[name] = v
	}
	sc := bufio.NewScanner(os.Stdin)
	status := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := expr.Eval(line, env)
		if err != nil {
			fmt.Printf("%s: error: %v\n", line, err)
			status = 1
			continue
		}
		fmt.Printf("%s = %g\n", line, v)
	}
	os.Exit(status)
}
