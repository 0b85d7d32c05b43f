// Package docs is pathcover's documentation for users: the pages of this
// folder, which the repository's README.md links to. It holds no code; its
// tests keep the pages true: every command that a ```sh block of the README
// or of a page shows runs, as a user would run it, from the repository
// root (the README's go install ...@latest against a module proxy made
// from the working tree), and every link between them resolves.
package docs
