package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pathcover/pathcover/internal/report"
)

const svcHandler = `package svc

import (
	"fmt"
	"net/http"
	"strconv"
)

// Classify has 4 paths, one a call.
func Classify(n int) string {
	if n < 0 {
		return "negative"
	}
	if n > 100 {
		return "large"
	}
	if n%2 == 0 {
		return "even"
	}
	return "odd"
}

// Describe names a class.
func Describe(s string) string {
	return "class " + s
}

func Handler(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.URL.Query().Get("n"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fmt.Fprintln(w, Describe(Classify(n)))
}
`

const svcServer = `package main

import (
	"fmt"
	"net"
	"net/http"
	"os"

	"example.com/m/svc"
)

func main() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(l.Addr())
	http.Serve(l, http.HandlerFunc(svc.Handler))
}
`

// TestIntegrationRun follows the integration workflow of docs/reference.md
// (Integration runs): the unit
// tests' profile (pathcover test), then two builds of a server with
// pppexec, each driven over HTTP and killed, their profiles in their own
// directories; the second build changed one function. The reports of the
// three directories together must add up each path's runs, as each
// directory alone counts them, name the function whose builds differ, and
// tell the tests' runs from the server's.
func TestIntegrationRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds under pathcover test")
	}
	dir := module(t, map[string]string{
		"svc/svc.go": svcHandler,
		"svc/svc_test.go": `package svc

import "testing"

func TestClassify(t *testing.T) {
	if Classify(1) != "odd" || Classify(50) != "even" {
		t.Fatal("wrong")
	}
}
`,
		"cmd/server/main.go": svcServer,
	})
	tmp := t.TempDir()
	unit := filepath.Join(tmp, "unit")
	if out, code := run(t, dir, bin, "test", "-dir", unit, "./..."); code != 0 {
		t.Fatalf("pathcover test: exit %d\n%s", code, out)
	}
	requests := [][]string{{"-1", "7", "500", "50", "x"}, {"-5", "1000", "1001"}}
	var integ []string
	for i, ns := range requests {
		if i == 1 {
			// The second build changed Describe: its graph is the same but
			// its source is not, and a new statement gives it another graph.
			src := strings.Replace(svcHandler, `return "class " + s`, `if s == "" {
		return "none"
	}
	return "class " + s`, 1)
			if err := os.WriteFile(filepath.Join(dir, "svc/svc.go"), []byte(src), 0o666); err != nil {
				t.Fatal(err)
			}
		}
		exe := filepath.Join(tmp, fmt.Sprintf("server%d", i))
		if out, code := run(t, dir, "go", "build", "-toolexec="+bin+" pppexec", "-o", exe, "./cmd/server"); code != 0 {
			t.Fatalf("go build -toolexec: exit %d\n%s", code, out)
		}
		prof := filepath.Join(tmp, fmt.Sprintf("integration%d", i))
		integ = append(integ, prof)
		serve(t, exe, prof, ns)
	}

	counts := func(dirs ...string) (map[uint64]uint64, string) {
		t.Helper()
		args := []string{"paths", "-json"}
		for _, d := range dirs {
			args = append(args, "-dir", d)
		}
		cmd := exec.Command(bin, append(args, "Classify")...)
		cmd.Dir = dir
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("pathcover %v: %v\n%s", args, err, stderr.String())
		}
		var lists []struct{ Paths []report.Path }
		if err := json.Unmarshal(out, &lists); err != nil || len(lists) != 1 {
			t.Fatalf("pathcover paths -json: %v\n%s", err, out)
		}
		c := make(map[uint64]uint64)
		for _, p := range lists[0].Paths {
			c[p.ID] = p.Count
		}
		return c, stderr.String()
	}
	all, stderr := counts(append([]string{unit}, integ...)...)
	sum := make(map[uint64]uint64)
	var total uint64
	for _, d := range append([]string{unit}, integ...) {
		c, _ := counts(d)
		for id, n := range c {
			sum[id] += n
			total += n
		}
	}
	if fmt.Sprint(all) != fmt.Sprint(sum) {
		t.Errorf("Classify's paths in the three profiles together %v, each alone adds up to %v", all, sum)
	}
	// Each call of Classify is one path: 2 from the test, one per request
	// with a number.
	if want := uint64(2 + 4 + 3); total != want {
		t.Errorf("Classify ran %d paths, the test and the requests made %d calls", total, want)
	}
	if len(all) != 4 {
		t.Errorf("Classify's 4 paths did not all run: %v", all)
	}
	merged := filepath.Join(tmp, "all.txt")
	if out, code := run(t, dir, bin, append([]string{"merge", "-o", merged, unit}, integ...)...); code != 0 {
		t.Fatalf("pathcover merge: exit %d\n%s", code, out)
	}
	if m, _ := counts(merged); fmt.Sprint(m) != fmt.Sprint(all) {
		t.Errorf("the merged text profile counts %v, the directories %v", m, all)
	}
	if !strings.Contains(stderr, "functions changed between them (Describe)") {
		t.Errorf("the report does not name Describe, changed between the builds:\n%s", stderr)
	}

	// The test's runs and the server's are told apart.
	args := []string{"tests", "-dir", unit}
	for _, d := range integ {
		args = append(args, "-dir", d)
	}
	out, code := run(t, dir, bin, append(args, "Classify")...)
	if code != 0 || !strings.Contains(out, "TestClassify\t2 runs") || !strings.Contains(out, "(processes that record no tests: programs, integration runs)\t7 runs") {
		t.Errorf("pathcover tests: exit %d\n%s", code, out)
	}
}

// serve runs a server, asks it to classify each of ns, and kills it.
func serve(t *testing.T, exe, prof string, ns []string) {
	t.Helper()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "PATHCOVERDIR="+prof)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill() // counts survive a kill
		cmd.Wait()
	}()
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the server printed no address: %v", err)
	}
	for _, n := range ns {
		resp, err := http.Get("http://" + strings.TrimSpace(addr) + "/?n=" + n)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
