package driver

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pathcover/pathcover/internal/buildspec"
)

// Main parses pppexec's flags from args, then runs the tool command that
// follows them, and returns the exit code. name is the command's name for
// messages: pppexec, or "pathcover pppexec".
func Main(name string, args []string) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	cfg, printGcflags := addFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := cfg.complete(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, strings.ReplaceAll(err.Error(), "\n", "\n"+name+": "))
		return 2
	}
	if *printGcflags {
		if fs.NArg() > 0 {
			fmt.Fprintf(os.Stderr, "%s: -printgcflags runs no tool\n", name)
			return 2
		}
		// A profile that cannot be read has a key too (its error's):
		// the build says what is wrong with it.
		if flags := cfg.GcflagsKey(); len(flags) > 0 {
			fmt.Println(strings.Join(flags, " "))
		}
		return 0
	}
	x := &Exec{Config: cfg, Self: selfCommand(fs.NArg())}
	return x.Main(fs.Args())
}

// addFlags declares pppexec's flags on fs: the build's (buildspec), -o,
// -dir's old spelling, and -printgcflags.
func addFlags(fs *flag.FlagSet) (*Config, *bool) {
	cfg := &Config{Spec: buildspec.Default()}
	cfg.AddPPPExecFlags(fs)
	fs.Func("o", "deprecated: -dir, which it means", func(v string) error {
		cfg.deprecated = append(cfg.deprecated, "-o is deprecated and will be removed: use -dir (the profile's directory)")
		return fs.Set("dir", v)
	})
	printGcflags := fs.Bool("printgcflags", false, "print the go command's -gcflags flags that give the instrumented packages the key of the -interesting and -ippp profiles, for -profilekey=gcflags, and exit (nothing for a build without profiles)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go build -toolexec='%s [flags]' ...\n\n", fs.Name())
		fs.PrintDefaults()
		fmt.Fprintf(fs.Output(), "\nThe runtime linked into programs is compiled once and kept in $PATHCOVERCACHE,\n"+
			"or else pathcover in the user cache directory, or else (no HOME) in $GOCACHE;\n"+
			"a directory that is not yours alone is refused, and the build is not instrumented.\n"+
			"The compiles and vet runs that pppexec does not change (the standard library's)\n"+
			"are kept there too, keyed by what they read, so that a build with a new profile\n"+
			"or new flags does not redo them: at most 5G, or PATHCOVERCOMPILECACHE (a size\n"+
			"such as 20G, or off). What no build used for five days is removed.\n")
	}
	return cfg, printGcflags
}

// complete applies what the flags imply, checks the build (buildspec's
// Check), and makes the directories and profiles it names absolute.
func (cfg *Config) complete() error {
	cfg.Imply()
	if err := cfg.Check(); err != nil {
		return err
	}
	for _, f := range []struct {
		flag string
		path *string
	}{{"dir", &cfg.Dir}, {"interesting", &cfg.PPPProfile}, {"ippp", &cfg.IPPPProfile}} {
		if *f.path == "" {
			continue
		}
		abs, err := filepath.Abs(*f.path)
		if err == nil && f.flag != "dir" {
			_, err = os.Stat(abs)
		}
		if err != nil {
			return fmt.Errorf("-%s: %v", f.flag, err)
		}
		*f.path = abs
	}
	return nil
}

// parseFlags parses pppexec's flags, as Main does, for tests.
func parseFlags(name string, args []string) (*Config, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg, _ := addFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return cfg, cfg.complete()
}
