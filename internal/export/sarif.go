package export

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/pathcover/pathcover/internal/report"
)

// The SARIF format is the Static Analysis Results Interchange Format,
// version 2.1.0 (OASIS), which GitHub code scanning, Azure DevOps and IDEs
// read. What it gets is the gate's findings (report.Shortfall): a result
// per function that has less than the gate's share of its paths run.
//
//	{"$schema": ".../sarif-2.1.0.json", "version": "2.1.0", "runs": [{
//	  "tool": {"driver": {"name": "pathcover", "rules": [{"id": "PC0001", ...}]}},
//	  "originalUriBaseIds": {"%SRCROOT%": {"uri": "file:///ROOT/"}},
//	  "results": [{
//	    "ruleId": "PC0001", "ruleIndex": 0, "level": "error",
//	    "message": {"text": "F: 3 of 4 paths untested (...): path 0 [...], ..."},
//	    "locations": [{"physicalLocation": {
//	        "artifactLocation": {"uri": "dir/file.go", "uriBaseId": "%SRCROOT%"},
//	        "region": {"startLine": 12, "endLine": 30}},
//	      "logicalLocations": [{"fullyQualifiedName": "example.com/m/dir.F", "kind": "function"}]}],
//	    "codeFlows": [{"message": {"text": "path 0, never ran"}, "threadFlows": [{"locations": [
//	      {"location": {"physicalLocation": {..., "region": {"startLine": 14, "startColumn": 2}},
//	                    "message": {"text": "condition true"}}}, ...]}]}]}]}]}
//
// The message is the gate's line for the function. Its location is the
// function, its file relative to ROOT (the repository's root, which code
// scanning wants) where it is inside it. Each untested path the gate
// decoded is a code flow: the function's start (or the loop head it starts
// from) and the branches it takes, in order, each with what taking it
// means. Columns count bytes, as Go's do.

// untestedPathsRule is the one rule: too few of a function's paths ran.
const untestedPathsRule = "PC0001"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                `json:"tool"`
	OriginalURIBaseIDs map[string]sarifArtifact `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult            `json:"results"`
	ColumnKind         string                   `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	InformationURI  string      `json:"informationUri"`
	Version         string      `json:"version"`
	SemanticVersion string      `json:"semanticVersion"`
	Rules           []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	Name                 string       `json:"name"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	FullDescription      sarifMessage `json:"fullDescription"`
	Help                 sarifMessage `json:"help"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
	CodeFlows []sarifCodeFlow `json:"codeFlows,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	Message          *sarifMessage  `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

type sarifCodeFlow struct {
	Message     sarifMessage      `json:"message"`
	ThreadFlows []sarifThreadFlow `json:"threadFlows"`
}

type sarifThreadFlow struct {
	Locations []sarifThreadFlowLocation `json:"locations"`
}

type sarifThreadFlowLocation struct {
	Location sarifLocation `json:"location"`
}

// srcRoot names the root that results' files are relative to.
const srcRoot = "%SRCROOT%"

// WriteSARIF writes the gate's findings as a SARIF log, the files
// relative to root, the tool's version being version, the module version
// that the go command stamped into the binary (sarifVersions).
func WriteSARIF(w io.Writer, findings []report.Shortfall, root, version string) error {
	numeric, semantic := sarifVersions(version)
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:            "pathcover",
			InformationURI:  "https://github.com/pathcover/pathcover",
			Version:         numeric,
			SemanticVersion: semantic,
			Rules:           []sarifRule{untestedPaths()},
		}},
		Results:    []sarifResult{},
		ColumnKind: "unicodeCodePoints",
	}
	if root != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifact{srcRoot: {URI: dirURI(root)}}
	}
	for _, s := range findings {
		run.Results = append(run.Results, sarifFinding(s, root))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	})
}

// sarifVersions returns a module version as SARIF's driver wants it: its
// version dotted numbers only (readers such as the SARIF multitool and code
// scanning compare them as numbers), and its semanticVersion SemVer 2.0,
// without Go's leading v. A tag gives its release ("v1.2.3": 1.2.3 and
// 1.2.3; "v1.3.0-rc.1": 1.3.0 and 1.3.0-rc.1); a pseudo-version, which the
// go command stamps into every build of a commit that no tag names, gives
// the release it follows ("v1.2.4-0.20261128095244-63406ac01ea5": 1.2.3,
// and the whole as semanticVersion; "v0.0.0-...", which follows none:
// 0.0.0); a build that is no module version ("(devel)", or none) gives
// 0.0.0 and 0.0.0-devel.
func sarifVersions(v string) (numeric, semantic string) {
	if !semver.IsValid(v) {
		return "0.0.0", "0.0.0-devel"
	}
	semantic = strings.TrimPrefix(semver.Canonical(v)+semver.Build(v), "v")
	release := v
	if module.IsPseudoVersion(v) {
		release, _ = module.PseudoVersionBase(v) // "" when it follows no release
	}
	if release == "" {
		return "0.0.0", semantic
	}
	canon := semver.Canonical(release) // no build metadata
	return strings.TrimPrefix(strings.TrimSuffix(canon, semver.Prerelease(canon)), "v"), semantic
}

func untestedPaths() sarifRule {
	r := sarifRule{
		ID:               untestedPathsRule,
		Name:             "UntestedPaths",
		ShortDescription: sarifMessage{"Too few of the function's paths ran in the tests."},
		FullDescription: sarifMessage{"Less than the gate's minimum share of the function's acyclic paths " +
			"(from its start or a loop's head to a return or the loop's next round) ran in the profiled tests."},
		Help: sarifMessage{"Add tests that take the untested paths: each code flow is one, " +
			"as the branches it takes. 'pathcover paths -untested FUNC' lists them all."},
	}
	r.DefaultConfiguration.Level = "error"
	return r
}

func sarifFinding(s report.Shortfall, root string) sarifResult {
	f := s.Func
	res := sarifResult{
		RuleID:  untestedPathsRule,
		Level:   "error",
		Message: sarifMessage{s.Message() + "."},
		Locations: []sarifLocation{{
			PhysicalLocation: sarifPhysical{
				ArtifactLocation: artifact(root, f.File),
				Region:           sarifRegion{StartLine: f.Line, EndLine: max(f.Line, f.EndLine)},
			},
			LogicalLocations: []sarifLogical{{FullyQualifiedName: f.Package + "." + f.Name, Kind: "function"}},
		}},
	}
	for _, p := range s.First {
		tf := sarifThreadFlow{}
		for _, st := range p.Steps {
			if !st.Branch() && st.Kind != "start" {
				continue
			}
			tf.Locations = append(tf.Locations, sarifThreadFlowLocation{Location: sarifLocation{
				PhysicalLocation: sarifPhysical{
					ArtifactLocation: artifact(root, st.File),
					Region:           sarifRegion{StartLine: st.Line, StartColumn: st.Col},
				},
				Message: &sarifMessage{st.Describe()},
			}})
		}
		res.CodeFlows = append(res.CodeFlows, sarifCodeFlow{
			Message:     sarifMessage{fmt.Sprintf("Path %d, which never ran.", p.ID)},
			ThreadFlows: []sarifThreadFlow{tf},
		})
	}
	return res
}

// artifact locates a file: relative to the root where it is inside it.
func artifact(root, name string) sarifArtifact {
	rel := relativeTo(root, name)
	if rel != name || !filepath.IsAbs(name) {
		return sarifArtifact{URI: (&url.URL{Path: rel}).String(), URIBaseID: srcRoot}
	}
	return sarifArtifact{URI: fileURI(name)}
}

// dirURI is the file URI of a directory, which ends in a slash so that
// relative references resolve inside it.
func dirURI(dir string) string {
	u := fileURI(dir)
	if u[len(u)-1] != '/' {
		u += "/"
	}
	return u
}

func fileURI(name string) string {
	p := filepath.ToSlash(name)
	if p != "" && p[0] != '/' {
		p = "/" + p // a Windows drive
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
