package funcgraph

import (
	"fmt"
	"go/ast"
	"go/token"

	"github.com/pathcover/pathcover/numbering"
)

// A Func is the control-flow graph of one function declaration or literal.
type Func struct {
	// Name is the function's name as the compiler spells it in stack
	// traces: F, T.M, (*T).M, init.0, F.func1, F.func1.2, glob..func1.
	Name string
	// Node is the *ast.FuncDecl or *ast.FuncLit.
	Node ast.Node
	Body *ast.BlockStmt
	// Graph is the graph to number: Blocks and Edges are indexed by its
	// block and edge ids.
	Graph  numbering.Graph
	Blocks []Block
	Edges  []Edge
	// Preferred lists the edges into loop post blocks: the cuts to make
	// first (numbering.Options.Preferred).
	Preferred []numbering.EdgeID
	// Regions lists the compound statements with the blocks they span, for
	// reports that attribute paths to constructs.
	Regions []Region
	// StmtBlock gives, for each statement of the body (nested ones too, but
	// not those of function literals), the block that is current when it
	// begins: the statement ran if that block ran.
	StmtBlock map[ast.Stmt]numbering.BlockID
}

// EntrySite is where the code that starts the function's first path goes.
func (f *Func) EntrySite() Site { return Site{Kind: Head, List: f.Body, Index: 0} }

// A Block is a basic block: nodes evaluated one after the other.
type Block struct {
	Kind BlockKind
	// Nodes are the statements and expressions evaluated in the block, in
	// order: simple statements, conditions, switch tags and case lists,
	// range expressions, and the branch statements that end blocks.
	Nodes []ast.Node
	// Stmt is the statement that made the block, if any.
	Stmt ast.Stmt
}

// A BlockKind says what part of a statement a block is.
type BlockKind uint8

const (
	BlockBody BlockKind = iota // statements in sequence
	BlockEntry
	BlockExit
	BlockIfThen
	BlockIfElse
	BlockIfDone
	BlockForHead
	BlockForBody
	BlockForPost
	BlockForDone
	BlockRangeHead
	BlockRangeBody
	BlockRangePost
	BlockRangeDone
	BlockSwitchNext // a clause's test after the first
	BlockSwitchCase
	BlockSwitchDone
	BlockSelectCase
	BlockSelectDone
	BlockLabel
	BlockUnreachable // code after a jump
)

var blockKindNames = [...]string{
	BlockBody: "body", BlockEntry: "entry", BlockExit: "exit",
	BlockIfThen: "if.then", BlockIfElse: "if.else", BlockIfDone: "if.done",
	BlockForHead: "for.head", BlockForBody: "for.body", BlockForPost: "for.post", BlockForDone: "for.done",
	BlockRangeHead: "range.head", BlockRangeBody: "range.body", BlockRangePost: "range.post", BlockRangeDone: "range.done",
	BlockSwitchNext: "switch.next", BlockSwitchCase: "switch.case", BlockSwitchDone: "switch.done",
	BlockSelectCase: "select.case", BlockSelectDone: "select.done",
	BlockLabel: "label", BlockUnreachable: "unreachable",
}

func (k BlockKind) String() string {
	if int(k) < len(blockKindNames) {
		return blockKindNames[k]
	}
	return fmt.Sprintf("BlockKind(%d)", k)
}

// An Edge is a transfer of control, with what it means and where its code
// can go.
type Edge struct {
	Kind EdgeKind
	// Node is what takes the edge: the *ast.IfStmt, *ast.ForStmt or
	// *ast.RangeStmt of a condition, the *ast.CaseClause or *ast.CommClause
	// chosen, the switch statement whose cases all failed, the branch or
	// return statement, the call that does not return.
	Node ast.Node
	Site Site
}

// An EdgeKind is the meaning of an edge: a branch outcome or a jump.
type EdgeKind uint8

const (
	EdgeFlow        EdgeKind = iota // straight on
	EdgeTrue                        // an if or for condition held
	EdgeFalse                       // it did not
	EdgeCase                        // a case clause matched
	EdgeNextCase                    // it did not; test the next one
	EdgeNoMatch                     // no case matched: to default, or past the switch
	EdgeComm                        // a select case was chosen
	EdgeRangeNext                   // a range loop has another element
	EdgeRangeDone                   // it has no more
	EdgeBreak                       // break
	EdgeContinue                    // continue
	EdgeGoto                        // goto
	EdgeFallthrough                 // fallthrough
	EdgeReturn                      // return, or the end of the body
	EdgeNoReturn                    // a call that never returns
	EdgeBlock                       // select {} blocks forever
	EdgeLoop                        // from a loop's post block back to its head
)

var edgeKindNames = [...]string{
	EdgeFlow: "flow", EdgeTrue: "true", EdgeFalse: "false", EdgeCase: "case",
	EdgeNextCase: "next case", EdgeNoMatch: "no match", EdgeComm: "comm",
	EdgeRangeNext: "next", EdgeRangeDone: "done", EdgeBreak: "break",
	EdgeContinue: "continue", EdgeGoto: "goto", EdgeFallthrough: "fallthrough",
	EdgeReturn: "return", EdgeNoReturn: "no return", EdgeBlock: "blocks forever",
	EdgeLoop: "loop",
}

func (k EdgeKind) String() string {
	if int(k) < len(edgeKindNames) {
		return edgeKindNames[k]
	}
	return fmt.Sprintf("EdgeKind(%d)", k)
}

// A Site is where an edge's code can be inserted: before statement Index of
// the statement list of List (Index may be the list's length: its end).
type Site struct {
	Kind SiteKind
	// List holds the statement list: an *ast.BlockStmt, *ast.CaseClause or
	// *ast.CommClause; or an *ast.IfStmt for its else branch when that is
	// synthesized (no else, or else if: the rewriter wraps it in a block);
	// or a switch statement for its synthesized default clause.
	List  ast.Node
	Index int
}

// Stmt returns the statement that code at the site goes before: statement
// Index of a statement list; nil at a list's end, and for the synthesized
// else and default branches.
func (s Site) Stmt() ast.Stmt {
	var list []ast.Stmt
	switch l := s.List.(type) {
	case *ast.BlockStmt:
		list = l.List
	case *ast.CaseClause:
		list = l.Body
	case *ast.CommClause:
		list = l.Body
	}
	if s.Index < len(list) {
		return list[s.Index]
	}
	return nil
}

// A SiteKind says why a site can hold code.
type SiteKind uint8

const (
	NoSite  SiteKind = iota // the edge cannot hold code
	Head                    // the start of a block with no other incoming edge
	Before                  // just before a branch statement or a call that never returns
	Else                    // a synthesized else branch
	Default                 // a synthesized default clause
	FallEnd                 // the end of a block that falls through
	// headIfSingle is a Head site that is kept only if the block turns out
	// to have one incoming edge; Build resolves it.
	headIfSingle
)

var siteKindNames = [...]string{
	NoSite: "none", Head: "head", Before: "before", Else: "else",
	Default: "default", FallEnd: "fall", headIfSingle: "head?",
}

func (k SiteKind) String() string {
	if int(k) < len(siteKindNames) {
		return siteKindNames[k]
	}
	return fmt.Sprintf("SiteKind(%d)", k)
}

// A Region is the part of the graph a compound statement spans: Start, the
// block that decides where control goes first (an if's condition block, a
// loop's head, a switch's first test), and the blocks in [First, Last].
// Control leaves the region for Done, the statement's continuation, or by a
// jump.
type Region struct {
	Stmt        ast.Stmt
	Start       numbering.BlockID
	First, Last numbering.BlockID
	Done        numbering.BlockID
}

// Contains reports whether block b is in the region.
func (r *Region) Contains(b numbering.BlockID) bool {
	return b == r.Start || (b >= r.First && b <= r.Last && b != r.Done)
}

// Pos returns a position for block b: its first node's, or for an empty
// block, its statement's.
func (f *Func) Pos(b numbering.BlockID) token.Pos {
	blk := &f.Blocks[b]
	if len(blk.Nodes) > 0 {
		return blk.Nodes[0].Pos()
	}
	if blk.Stmt != nil {
		return blk.Stmt.Pos()
	}
	if b == f.Graph.Exit {
		return f.Body.Rbrace
	}
	return f.Body.Lbrace
}
