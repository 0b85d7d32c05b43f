package export

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/pathcover/pathcover/internal/report"
)

// The Cobertura format is the XML of Cobertura's coverage-04.dtd, which
// Jenkins, GitLab, Azure DevOps and many coverage services read:
//
//	<coverage line-rate=".." branch-rate=".." lines-covered=".." lines-valid=".."
//	          branches-covered=".." branches-valid=".." complexity="0" version="pathcover" timestamp="ms">
//	  <sources><source>ROOT</source></sources>
//	  <packages>
//	    <package name="IMPORT PATH" line-rate=".." branch-rate=".." complexity="0">
//	      <classes>
//	        <class name="IMPORT PATH/FILE.go" filename="DIR/FILE.go" line-rate=".." branch-rate=".." complexity="0">
//	          <methods>
//	            <method name="FUNC" signature="" line-rate=".." branch-rate=".." complexity="0">
//	              <lines>..the function's lines..</lines>
//	            </method>
//	          </methods>
//	          <lines>
//	            <line number="14" hits="5" branch="true" condition-coverage="50% (1/2)">
//	              <conditions><condition number="0" type="jump" coverage="50%"/></conditions>
//	            </line>
//	          </lines>
//	        </class>
//	      </classes>
//	    </package>
//	  </packages>
//	</coverage>
//
// A class is a source file (Go has no classes, and Go's Cobertura
// converters use files too), named as cover names it, its filename
// relative to the one source, ROOT, when it is inside it. A method is a
// function, with the lines whose first code is its own. A line has its
// count (file.lines); a line that holds decisions (report.Decision) is a
// branch line: condition-coverage gives the outcomes taken out of all of
// them there, and each decision is a condition with its share. Rates are
// fractions of 1, and 1 where there is nothing to cover, which is 100%
// as the reports count it.

type cbCoverage struct {
	XMLName         xml.Name `xml:"coverage"`
	LineRate        string   `xml:"line-rate,attr"`
	BranchRate      string   `xml:"branch-rate,attr"`
	LinesCovered    int      `xml:"lines-covered,attr"`
	LinesValid      int      `xml:"lines-valid,attr"`
	BranchesCovered int      `xml:"branches-covered,attr"`
	BranchesValid   int      `xml:"branches-valid,attr"`
	Complexity      string   `xml:"complexity,attr"`
	Version         string   `xml:"version,attr"`
	Timestamp       int64    `xml:"timestamp,attr"`
	Sources         []string `xml:"sources>source"`
	Packages        struct {
		Package []*cbPackage `xml:"package"`
	} `xml:"packages"`
}

type cbPackage struct {
	Name       string `xml:"name,attr"`
	LineRate   string `xml:"line-rate,attr"`
	BranchRate string `xml:"branch-rate,attr"`
	Complexity string `xml:"complexity,attr"`
	Classes    struct {
		Class []*cbClass `xml:"class"`
	} `xml:"classes"`
}

type cbClass struct {
	Name       string `xml:"name,attr"`
	Filename   string `xml:"filename,attr"`
	LineRate   string `xml:"line-rate,attr"`
	BranchRate string `xml:"branch-rate,attr"`
	Complexity string `xml:"complexity,attr"`
	Methods    struct {
		Method []*cbMethod `xml:"method"`
	} `xml:"methods"`
	Lines cbLines `xml:"lines"`
}

type cbMethod struct {
	Name       string  `xml:"name,attr"`
	Signature  string  `xml:"signature,attr"`
	LineRate   string  `xml:"line-rate,attr"`
	BranchRate string  `xml:"branch-rate,attr"`
	Complexity string  `xml:"complexity,attr"`
	Lines      cbLines `xml:"lines"`
}

type cbLines struct {
	Line []*cbLine `xml:"line"`
}

type cbLine struct {
	Number            int           `xml:"number,attr"`
	Hits              uint64        `xml:"hits,attr"`
	Branch            bool          `xml:"branch,attr"`
	ConditionCoverage string        `xml:"condition-coverage,attr,omitempty"`
	Conditions        *cbConditions `xml:"conditions"`

	// What the rates are made of.
	outcomes, taken int
}

type cbConditions struct {
	Condition []cbCondition `xml:"condition"`
}

type cbCondition struct {
	Number   int    `xml:"number,attr"`
	Type     string `xml:"type,attr"`
	Coverage string `xml:"coverage,attr"`
}

// tally counts lines and branch outcomes, and covered ones, for a rate.
type tally struct {
	lines, linesHit, outcomes, taken int
}

func (t *tally) add(l *cbLine) {
	t.lines++
	if l.Hits > 0 {
		t.linesHit++
	}
	t.outcomes += l.outcomes
	t.taken += l.taken
}

func (t *tally) addTally(u tally) {
	t.lines += u.lines
	t.linesHit += u.linesHit
	t.outcomes += u.outcomes
	t.taken += u.taken
}

func (t tally) lineRate() string   { return rate(t.linesHit, t.lines) }
func (t tally) branchRate() string { return rate(t.taken, t.outcomes) }

func rate(covered, total int) string {
	if total == 0 {
		return "1"
	}
	return strconv.FormatFloat(float64(covered)/float64(total), 'f', 4, 64)
}

// WriteCobertura writes the report's lines and branch outcomes as
// Cobertura XML, its file names relative to opt.Root where they are inside
// it.
func WriteCobertura(w io.Writer, r *report.Report, opt *Options) error {
	fs, err := files(r, opt)
	if err != nil {
		return err
	}
	root := opt.Root
	cov := &cbCoverage{Complexity: "0", Version: "pathcover", Timestamp: opt.Now.UnixMilli(), Sources: []string{root}}
	var total tally
	var pkg *cbPackage
	var pkgTally tally
	endPackage := func() {
		if pkg != nil {
			pkg.LineRate, pkg.BranchRate = pkgTally.lineRate(), pkgTally.branchRate()
			total.addTally(pkgTally)
		}
	}
	for _, f := range fs {
		if pkg == nil || pkg.Name != f.pkg {
			endPackage()
			pkg, pkgTally = &cbPackage{Name: f.pkg, Complexity: "0"}, tally{}
			cov.Packages.Package = append(cov.Packages.Package, pkg)
		}
		class, t := coberturaClass(f, root)
		pkg.Classes.Class = append(pkg.Classes.Class, class)
		pkgTally.addTally(t)
	}
	endPackage()
	cov.LineRate, cov.BranchRate = total.lineRate(), total.branchRate()
	cov.LinesCovered, cov.LinesValid = total.linesHit, total.lines
	cov.BranchesCovered, cov.BranchesValid = total.taken, total.outcomes
	if _, err := io.WriteString(w, xml.Header+`<!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">`+"\n"); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "\t")
	if err := enc.Encode(cov); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}

// coberturaClass returns the class of a file, and what its rates are
// made of.
func coberturaClass(f *file, root string) (*cbClass, tally) {
	class := &cbClass{Name: f.goName(), Filename: relativeTo(root, f.name), Complexity: "0"}
	byFunc := make(map[*function][]*cbLine)
	decisions := f.decisionsByLine()
	var t tally
	for _, l := range f.lines() {
		cl := &cbLine{Number: l.number, Hits: l.count}
		addConditions(cl, decisions[l.number])
		delete(decisions, l.number)
		class.Lines.Line = append(class.Lines.Line, cl)
		byFunc[l.fn] = append(byFunc[l.fn], cl)
		t.add(cl)
	}
	// A decision is on a line of its function's statements; should one
	// not be, its line is still listed, counted as the decision.
	for _, n := range slices.Sorted(maps.Keys(decisions)) {
		cl := &cbLine{Number: n}
		for _, d := range decisions[n] {
			cl.Hits = max(cl.Hits, d.Runs)
		}
		addConditions(cl, decisions[n])
		class.Lines.Line = append(class.Lines.Line, cl)
		t.add(cl)
	}
	slices.SortStableFunc(class.Lines.Line, func(a, b *cbLine) int { return cmp.Compare(a.Number, b.Number) })
	for _, fn := range f.funcs {
		m := &cbMethod{Name: fn.Name, Complexity: "0", Lines: cbLines{byFunc[fn]}}
		if len(m.Lines.Line) == 0 {
			// A method has a line, for readers that take its first
			// as where it is: the one it is declared on.
			m.Lines.Line = []*cbLine{{Number: fn.Line, Hits: fn.calls}}
		}
		var mt tally
		for _, l := range m.Lines.Line {
			mt.add(l)
		}
		m.LineRate, m.BranchRate = mt.lineRate(), mt.branchRate()
		class.Methods.Method = append(class.Methods.Method, m)
	}
	class.LineRate, class.BranchRate = t.lineRate(), t.branchRate()
	return class, t
}

// addConditions makes l a branch line if decisions are on it.
func addConditions(l *cbLine, decisions []report.Decision) {
	if len(decisions) == 0 {
		return
	}
	l.Branch = true
	l.Conditions = &cbConditions{}
	for i, d := range decisions {
		taken := 0
		for _, o := range d.Outcomes {
			if o.Count > 0 {
				taken++
			}
		}
		l.outcomes += len(d.Outcomes)
		l.taken += taken
		l.Conditions.Condition = append(l.Conditions.Condition, cbCondition{Number: i, Type: "jump", Coverage: percent(taken, len(d.Outcomes))})
	}
	l.ConditionCoverage = fmt.Sprintf("%s (%d/%d)", percent(l.taken, l.outcomes), l.taken, l.outcomes)
}

// percent is a share as Cobertura writes it: whole percent, rounded down,
// so that 100% means all.
func percent(covered, total int) string {
	if total == 0 {
		return "100%"
	}
	return fmt.Sprintf("%d%%", covered*100/total)
}

// relativeTo returns name relative to root, with slashes, when it is
// inside root; otherwise name.
func relativeTo(root, name string) string {
	if root == "" {
		return name
	}
	if rel, err := filepath.Rel(root, name); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return name
}
