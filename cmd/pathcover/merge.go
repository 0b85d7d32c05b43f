package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/pathcover/pathcover/internal/atomicfile"
)

var cmdMerge = &Command{
	UsageLine: "pathcover merge [-o file] profiles...",
	Short:     "merge profiles into one text profile",
	Long: `
Merges profile directories and text profiles into one text profile, the
format documented in package profile (like go test's -coverprofile).
`,
	Flags: func(fs *flag.FlagSet) Run {
		out := fs.String("o", "", "write the merged profile to `file` (default standard output)")
		return func(cmd *Command, sources []string) int {
			if len(sources) == 0 {
				fs.Usage()
				return exitUsage
			}
			p, _, code := loadProfile(cmd.LongName(), sources)
			if code != 0 {
				return code
			}
			if *out == "" {
				if err := p.WriteText(os.Stdout); err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
					return exitFail
				}
				return 0
			}
			var buf bytes.Buffer
			if err := p.WriteText(&buf); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitFail
			}
			if err := atomicfile.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
				return exitFail
			}
			return 0
		}
	},
}
