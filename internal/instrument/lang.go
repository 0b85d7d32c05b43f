package instrument

// The helpers a -deps, -wet or -wpp build calls are generic, and the calls
// need type inference as Go 1.21 has it (a go statement's wrappers need
// generics, Go 1.18). A module whose go line is older still gets them: the
// caller (pppexec) sets Input.FileLang to go1.21, and every file pppexec
// rewrites, and the generated file, is compiled at that version, which a
// //go:build line in a file may raise it to since Go 1.21 (go.dev/issue/59033;
// types2 takes max(the line's version, go1.21) as the file's). Go 1.21, and
// not newer, since no language change from an older version to 1.21 alters
// what a program that compiles at the older one does (1.22 gives each loop
// iteration its own variables), so the rewritten files mean what they meant.
// Files pppexec leaves alone keep the module's version, and so does a
// file whose own //go:build line raises it to go1.21 or later (a file
// behind //go:build go1.23 that ranges over functions): a second line would
// lower it.

// fileVersion returns the line that raises a file to language version lang,
// inserted just before the package clause, after any //go:build line of the
// original: the compiler takes the last such line before the clause. The
// newline before it puts it on a line of its own, which a directive must be
// on.
//
//	//go:build go1.21
func fileVersion(lang string) string {
	return "\n//go:build " + lang + "\n"
}
