// Package analysisdoc gives an analyzer its documentation from its
// package's doc.go, as the analyzers of golang.org/x/tools do: the section
// of the package comment under the heading "# Analyzer NAME", whose first
// line is "NAME: summary". go doc and the analyzer's help then say the same.
package analysisdoc
