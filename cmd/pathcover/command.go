package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pathcover/pathcover/internal/report"
)

// A Command is one of pathcover's subcommands, as cmd/go's base.Command is
// one of go's. The table of them is commands, in main.go; 'pathcover help',
// 'pathcover help CMD', each command's -h and doc.go are made from it.
type Command struct {
	// UsageLine is the one-line usage message; its second word is the
	// command's name.
	UsageLine string

	// Short is the one-line description that 'pathcover help' lists.
	Short string

	// Long is the description that 'pathcover help CMD', CMD -h and doc.go
	// print after the usage line, and before the flags.
	Long string

	// Flags declares the command's flags on fs, a new set for each run,
	// and returns the function that runs the command once they are parsed:
	// a closure over their values, so that the command keeps no state
	// between runs. The flags that several commands share are declared by
	// profileFlag (-dir) and jsonFlag (-json).
	Flags func(fs *flag.FlagSet) Run

	// CustomFlags says that the command's Run parses its arguments itself:
	// test's, after its own flags, are go test's; pppexec's are those of
	// driver.Main.
	CustomFlags bool

	// Sub are the commands of a command of commands (wpp, wet), from
	// which its help, dispatch and doc.go are made as the top level's are
	// from the table; such a command has no Flags of its own.
	Sub []*Command

	parent *Command // the command whose Sub this is
}

// init links each subcommand to its command.
func init() {
	var link func(cs []*Command, parent *Command)
	link = func(cs []*Command, parent *Command) {
		for _, c := range cs {
			c.parent = parent
			link(c.Sub, c)
		}
	}
	link(commands, nil)
}

// allCommands returns the commands and their subcommands, each command
// before its own.
func allCommands() []*Command {
	var all []*Command
	var add func(cs []*Command)
	add = func(cs []*Command) {
		for _, c := range cs {
			all = append(all, c)
			add(c.Sub)
		}
	}
	add(commands)
	return all
}

// A Run runs a command on the arguments left after its flags (all of them,
// with CustomFlags) and returns the exit status.
type Run func(cmd *Command, args []string) int

// Name returns the command's name: the word of its usage line after its
// parents' names (the second word of a top-level command's).
func (c *Command) Name() string {
	depth := 1
	for p := c.parent; p != nil; p = p.parent {
		depth++
	}
	return strings.Fields(c.UsageLine)[depth]
}

// LongName returns "pathcover NAME" ("pathcover wpp NAME" for a
// subcommand), which prefixes the command's messages.
func (c *Command) LongName() string {
	if c.parent != nil {
		return c.parent.LongName() + " " + c.Name()
	}
	return "pathcover " + c.Name()
}

// sub returns c's subcommand named name, or nil.
func (c *Command) sub(name string) *Command {
	for _, s := range c.Sub {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

// flagSet declares the command's flags on a new flag set, whose Usage
// prints the command's help (to standard error), and returns it with the
// command's Run.
func (c *Command) flagSet() (*flag.FlagSet, Run) {
	fs := flag.NewFlagSet(c.LongName(), flag.ContinueOnError)
	var run Run
	if c.Flags != nil {
		run = c.Flags(fs)
	}
	fs.Usage = func() { c.help(fs.Output()) }
	return fs, run
}

// Main runs the command with args, the arguments after its name, and
// returns its exit status: exitUsage for flags that do not parse, -h
// included, as the flag package has it.
func (c *Command) Main(args []string) int {
	if len(c.Sub) > 0 {
		if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
			c.help(os.Stderr)
			return exitUsage
		}
		s := c.sub(args[0])
		if s == nil {
			var names []string
			for _, s := range c.Sub {
				names = append(names, s.Name())
			}
			fmt.Fprintf(os.Stderr, "%s: no subcommand %s (%s)\n", c.LongName(), printable(args[0]), strings.Join(names, ", "))
			return exitUsage
		}
		return s.Main(args[1:])
	}
	fs, run := c.flagSet()
	if !c.CustomFlags {
		if err := fs.Parse(args); err != nil {
			return exitUsage
		}
		args = fs.Args()
	}
	return run(c, args)
}

// help writes what 'pathcover help CMD' and -h print: the usage line, the
// long description and the flags.
func (c *Command) help(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.UsageLine, strings.TrimSpace(c.Long))
	if len(c.Sub) > 0 {
		fmt.Fprintf(w, "\nThe commands are:\n\n")
		c.writeSubList(w)
		fmt.Fprintf(w, "\nUse \"pathcover help %s <command>\" for more information about a command.\n", c.Name())
		return
	}
	if fs, _ := c.flagSet(); hasFlags(fs) {
		fmt.Fprintln(w)
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

// writeSubList writes c's subcommands with their short descriptions.
func (c *Command) writeSubList(w io.Writer) {
	for _, s := range c.Sub {
		fmt.Fprintf(w, "\t%-11s %s\n", s.Name(), s.Short)
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// lookup returns the command named name, or nil.
func lookup(name string) *Command {
	for _, c := range commands {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

// dirFlag declares -dir, the profile directory that a command reads or
// writes, whose default is $PATHCOVERDIR (or else what orElse says, if not
// ""). The report commands' -dir, which takes several, is dirsFlag's.
func dirFlag(fs *flag.FlagSet, orElse string) *string {
	def := "$PATHCOVERDIR"
	if orElse != "" {
		def += ", or else " + orElse
	}
	return fs.String("dir", os.Getenv("PATHCOVERDIR"), "the profile `dir` (default "+def+")")
}

// countFlag declares -n, how many of something a command shows: one
// spelling in every command. old are its former spellings, which still
// work, saying that they will not for long.
func countFlag(fs *flag.FlagSet, def int, usage string, old ...string) *int {
	n := fs.Int("n", def, usage)
	for _, o := range old {
		fs.Func(o, "deprecated: -n", func(v string) error {
			fmt.Fprintf(os.Stderr, "%s: -%s is deprecated and will be removed: use -n\n", fs.Name(), o)
			return fs.Set("n", v)
		})
	}
	return n
}

// jsonFlag declares -json, which the commands that print a report share.
func jsonFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("json", false, "write JSON")
}

// write prints out to standard output, as JSON if asJSON, and returns the
// exit status: exitFail, after a message, if it could not.
func write(cmd *Command, out report.Output, asJSON bool) int {
	var err error
	if asJSON {
		err = out.WriteJSON(os.Stdout)
	} else {
		err = out.WriteText(os.Stdout)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.LongName(), err)
		return exitFail
	}
	return 0
}

// usage writes what 'pathcover help' prints: the ways to run pathcover and
// the commands.
func usage(w io.Writer) {
	fmt.Fprintf(w, "pathcover measures the acyclic paths of Go functions.\n\n")
	writeCommandList(w)
}

// writeCommandList writes the usage lines of pathcover, its commands with
// their short descriptions, and where to read more.
func writeCommandList(w io.Writer) {
	fmt.Fprintf(w, "Usage:\n\n")
	fmt.Fprintf(w, "\tpathcover <command> [arguments]\n")
	for _, line := range analyzerUsage {
		fmt.Fprintf(w, "\t%s\n", line)
	}
	fmt.Fprintf(w, "\nThe commands are:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-11s %s\n", c.Name(), c.Short)
	}
	fmt.Fprintf(w, "\nUse \"pathcover help <command>\" for more information about a command,\n"+
		"and \"pathcover help pathcover\" for the analyzer's flags.\n")
}

// docFile returns doc.go, the package documentation that go doc shows: the
// overview, the command list, then each command's usage line, description
// and flags as 'pathcover help CMD' prints them. TestDocsUpToDate checks
// doc.go against it (gofmt'd), and rewrites doc.go with -fixdocs, which go
// generate gives.
func docFile() []byte {
	var doc strings.Builder
	fmt.Fprintf(&doc, "%s\n\n", strings.TrimSpace(docOverview))
	writeCommandList(&doc)
	for _, text := range docTopics {
		fmt.Fprintf(&doc, "\n%s\n", strings.TrimSpace(text))
	}
	for _, c := range allCommands() {
		fmt.Fprintf(&doc, "\n# %s\n\nUsage:\n\n\t%s\n\n%s\n", capitalize(c.Short), c.UsageLine, strings.TrimSpace(c.Long))
		if len(c.Sub) > 0 {
			fmt.Fprintf(&doc, "\nThe commands are:\n\n")
			c.writeSubList(&doc)
		}
		fs, _ := c.flagSet()
		if hasFlags(fs) {
			var flags strings.Builder
			fs.SetOutput(&flags)
			fs.PrintDefaults()
			// PrintDefaults indents a flag by two spaces and its
			// description by four and a tab; a comment's code block is
			// indented by tabs.
			fmt.Fprintf(&doc, "\nThe flags are:\n\n")
			for _, line := range strings.Split(strings.TrimSuffix(flags.String(), "\n"), "\n") {
				if desc, ok := strings.CutPrefix(line, "    \t"); ok {
					line = "\t" + desc
				}
				fmt.Fprintf(&doc, "\t%s\n", strings.TrimPrefix(line, "  "))
			}
		}
	}
	var file strings.Builder
	file.WriteString("// Code generated by 'go test -run=^TestDocsUpToDate$ -fixdocs'; DO NOT EDIT.\n" +
		"// Edit the commands' texts in main.go and in each command's file, then run\n" +
		"// 'go generate' in cmd/pathcover to make this file again.\n\n")
	for _, line := range strings.Split(strings.TrimSuffix(doc.String(), "\n"), "\n") {
		if line == "" {
			file.WriteString("//\n")
		} else {
			file.WriteString("// " + line + "\n")
		}
	}
	file.WriteString("package main\n")
	return []byte(file.String())
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToTitle(r)) + s[n:]
}
