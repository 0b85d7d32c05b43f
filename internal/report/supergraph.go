package report

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/pathcover/pathcover/numbering"
)

// A SupergraphSize compares a caller's acyclic paths with those of its
// supergraph: the caller with the callees of its call sites inlined, to the
// depth the sites were found to (thesis 3.4.3). Interprocedural PPP numbers
// the supergraph, so this is how many more paths it has to tell apart.
type SupergraphSize struct {
	Caller string // package path + "." + name
	File   string
	Line   int
	Sites  int    // call sites inlined, at every depth
	Paths  string // the caller's acyclic paths, exactly
	// SuperPaths are the supergraph's acyclic paths, exactly, and Numbered
	// its Ball-Larus paths once cut to fit the default limit; Err says why
	// it could not be numbered, if it could not.
	SuperPaths string `json:",omitempty"`
	Numbered   uint64 `json:",omitempty"`
	Err        string `json:",omitempty"`
}

// SupergraphSizes builds the supergraph of each caller of sites (as
// CallSites returns them) and numbers it, biggest supergraph first.
func (r *Report) SupergraphSizes(sites []*CallSite) (SupergraphSizes, error) {
	byCaller := make(map[*Func][]*CallSite)
	var callers []*Func
	for _, s := range sites {
		if byCaller[s.caller] == nil {
			callers = append(callers, s.caller)
		}
		byCaller[s.caller] = append(byCaller[s.caller], s)
	}
	var sizes []*SupergraphSize
	for _, f := range callers {
		sz := &SupergraphSize{Caller: f.Package + "." + f.Name, File: f.File, Line: f.Line, Paths: f.Acyclic}
		sg, n, err := supergraph(f, byCaller[f])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sz.Caller, err)
		}
		sz.Sites = n
		num, err := numbering.Number(&sg.Graph, &numbering.Options{Preferred: sg.Preferred})
		if err != nil {
			sz.Err = err.Error()
		} else {
			sz.SuperPaths, sz.Numbered = num.Total().String(), num.NumPaths()
		}
		sizes = append(sizes, sz)
	}
	slices.SortStableFunc(sizes, func(a, b *SupergraphSize) int {
		return cmp.Or(cmp.Compare(len(b.SuperPaths), len(a.SuperPaths)), cmp.Compare(b.SuperPaths, a.SuperPaths),
			cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	return sizes, nil
}

// supergraph inlines into f the callees of its sites, each callee with
// its own inner sites inlined in turn (numbering.InlineNested, as pppexec
// makes supergraphs). It returns how many sites it inlined at every depth.
func supergraph(f *Func, sites []*CallSite) (*numbering.Supergraph, int, error) {
	var nested []numbering.NestedSite
	var add func(parent int, sites []*CallSite)
	add = func(parent int, sites []*CallSite) {
		ordered := slices.Clone(sites)
		// Sites that share a block are inlined in the order the block makes
		// its calls.
		slices.SortFunc(ordered, func(a, b *CallSite) int { return cmp.Or(cmp.Compare(a.Block, b.Block), cmp.Compare(a.Index, b.Index)) })
		for _, s := range ordered {
			nested = append(nested, numbering.NestedSite{
				Parent: parent, Block: numbering.BlockID(s.Block),
				Callee: s.callee.meta.Graph(), Preferred: s.callee.meta.PreferredCuts(),
			})
			add(len(nested)-1, s.Inner)
		}
	}
	add(-1, sites)
	sg, err := numbering.InlineNested(f.meta.Graph(), f.meta.PreferredCuts(), nested)
	return sg, len(nested), err
}

// SupergraphSizes are the sizes of supergraphs, as Report.SupergraphSizes
// gives them, to print.
type SupergraphSizes []*SupergraphSize

// WriteJSON writes the sizes as a JSON array.
func (sizes SupergraphSizes) WriteJSON(w io.Writer) error {
	if sizes == nil {
		sizes = SupergraphSizes{}
	}
	return writeJSON(w, sizes)
}

// WriteText writes the sizes, one caller a line.
func (sizes SupergraphSizes) WriteText(w io.Writer) error {
	cwd, _ := os.Getwd()
	for _, s := range sizes {
		super := s.SuperPaths
		if s.Err != "" {
			super = "not numbered: " + s.Err
		}
		sites := "sites"
		if s.Sites == 1 {
			sites = "site"
		}
		paths := "paths"
		if s.Paths == "1" {
			paths = "path"
		}
		if _, err := fmt.Fprintf(w, "%s:%d: %s: %d %s inlined, %s %s → %s\n",
			relative(cwd, s.File), s.Line, shortName(s.Caller), s.Sites, sites, s.Paths, paths, super); err != nil {
			return err
		}
	}
	return nil
}
