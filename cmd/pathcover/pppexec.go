package main

import (
	"flag"

	"github.com/pathcover/pathcover/internal/driver"
)

var cmdPPPExec = &Command{
	UsageLine: "pathcover pppexec [flags] tool args...",
	Short:     "instrument packages to profile their paths, as go build's -toolexec",
	Long: `
Runs as the -toolexec program of go build, go run and go test, as the
pppexec command does: go build -toolexec='pathcover pppexec [flags]'. It
instruments the main module's packages (-pkgs chooses others) to count
their paths, with a runtime that writes the counts into $PATHCOVERDIR, or
the directory that -o gives. -interesting makes a PPP build, -ippp an
interprocedural one. 'pathcover pppexec -h' lists its flags.
`,
	Flags: func(*flag.FlagSet) Run {
		return func(cmd *Command, args []string) int { return driver.Main(cmd.LongName(), args) }
	},
	CustomFlags: true,
}
