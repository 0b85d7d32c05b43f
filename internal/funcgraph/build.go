package funcgraph

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"github.com/pathcover/pathcover/numbering"
)

// Config holds what Build needs beyond the syntax.
type Config struct {
	// Info resolves calls, to find those that never return. With nil Info
	// only a call of an identifier named panic counts.
	Info *types.Info
	// NoReturn reports functions known not to return beyond the built-in
	// list (see the package doc); the analyzer passes ctrlflow's facts. It
	// may be nil.
	NoReturn func(*types.Func) bool
}

// Build builds the graph of a function: fn is an *ast.FuncDecl with a body
// or an *ast.FuncLit. It returns an error for syntax that a type-checked
// package cannot have, such as a break outside a loop.
func Build(name string, fn ast.Node, cfg *Config) (f *Func, err error) {
	var body *ast.BlockStmt
	switch fn := fn.(type) {
	case *ast.FuncDecl:
		body = fn.Body
	case *ast.FuncLit:
		body = fn.Body
	}
	if body == nil {
		return nil, fmt.Errorf("%s: no function body", name)
	}
	if cfg == nil {
		cfg = &Config{}
	}
	b := &builder{
		cfg:    cfg,
		f:      &Func{Name: name, Node: fn, Body: body, StmtBlock: make(map[ast.Stmt]numbering.BlockID)},
		labels: make(map[string]numbering.BlockID),
		gotos:  gotoTargets(body),
		fallTo: -1,
	}
	defer func() {
		if r := recover(); r != nil {
			if be, ok := r.(buildError); ok {
				f, err = nil, fmt.Errorf("%s: %s", name, string(be))
				return
			}
			panic(r)
		}
	}()
	entry := b.newBlock(BlockEntry, nil)
	b.exit = b.newBlock(BlockExit, nil)
	b.f.Graph.Entry, b.f.Graph.Exit = entry, b.exit
	b.cur = entry
	b.stmtList(body, body.List)
	b.edge(b.cur, b.exit, EdgeReturn, body, Site{FallEnd, body, len(body.List)})
	b.resolveHeads()
	return b.f, nil
}

// buildError is raised by the builder for impossible syntax and turned into
// Build's error.
type buildError string

type builder struct {
	cfg    *Config
	f      *Func
	cur    numbering.BlockID
	exit   numbering.BlockID
	labels map[string]numbering.BlockID // blocks of goto targets
	gotos  map[string]bool              // labels that some goto names
	// targets of break and continue, innermost last
	targets []target
	// fallTo is the body a fallthrough in the current case goes to.
	fallTo numbering.BlockID
	// label is the label of the statement being built, for its targets.
	label string
}

type target struct {
	label     string
	brk, cont numbering.BlockID // cont is -1 for switch and select
}

// A pos is a statement's place in its list: code inserted there runs just
// before the statement. ok is false for a statement in no list, the
// statement of a label that starts a block.
type pos struct {
	list  ast.Node
	index int
	ok    bool
}

func (p pos) site(kind SiteKind) Site {
	if !p.ok {
		return Site{}
	}
	return Site{kind, p.list, p.index}
}

// after is the head of the code after the statement, which is a site only
// if nothing else jumps there.
func (p pos) after() Site {
	if !p.ok {
		return Site{}
	}
	return Site{headIfSingle, p.list, p.index + 1}
}

func (b *builder) newBlock(kind BlockKind, stmt ast.Stmt) numbering.BlockID {
	b.f.Blocks = append(b.f.Blocks, Block{Kind: kind, Stmt: stmt})
	return b.f.Graph.AddBlock()
}

func (b *builder) add(n ast.Node) {
	b.f.Blocks[b.cur].Nodes = append(b.f.Blocks[b.cur].Nodes, n)
}

func (b *builder) edge(from, to numbering.BlockID, kind EdgeKind, node ast.Node, site Site) numbering.EdgeID {
	b.f.Edges = append(b.f.Edges, Edge{Kind: kind, Node: node, Site: site})
	return b.f.Graph.AddEdge(from, to, site.Kind != NoSite)
}

// jump ends the current block with an edge; what follows is unreachable.
func (b *builder) jump(to numbering.BlockID, kind EdgeKind, node ast.Node, site Site) {
	b.edge(b.cur, to, kind, node, site)
	b.cur = b.newBlock(BlockUnreachable, nil)
}

func (b *builder) stmtList(list ast.Node, stmts []ast.Stmt) {
	for i, s := range stmts {
		b.stmt(s, pos{list, i, true})
	}
}

// takeLabel returns the label of the statement being built and clears it,
// so that nested statements do not see it.
func (b *builder) takeLabel() string {
	l := b.label
	b.label = ""
	return l
}

func (b *builder) stmt(s ast.Stmt, at pos) {
	b.f.StmtBlock[s] = b.cur
	switch s := s.(type) {
	case *ast.BlockStmt:
		b.takeLabel()
		b.stmtList(s, s.List)
	case *ast.LabeledStmt:
		inner := at
		if b.gotos[s.Label.Name] {
			lb := b.labelBlock(s.Label.Name)
			b.f.Blocks[lb].Stmt = s
			b.edge(b.cur, lb, EdgeFlow, s, at.site(FallEnd))
			b.cur = lb
			inner = pos{} // nothing can go between the label and its statement
		}
		b.label = s.Label.Name
		b.stmt(s.Stmt, inner)
		b.label = ""
	case *ast.ExprStmt:
		b.takeLabel()
		b.add(s)
		if call, ok := ast.Unparen(s.X).(*ast.CallExpr); ok && b.noReturn(call) {
			b.jump(b.exit, EdgeNoReturn, s, at.site(Before))
		}
	case *ast.ReturnStmt:
		b.takeLabel()
		b.add(s)
		b.jump(b.exit, EdgeReturn, s, at.site(Before))
	case *ast.BranchStmt:
		b.takeLabel()
		b.branch(s, at)
	case *ast.IfStmt:
		b.takeLabel()
		b.ifStmt(s)
	case *ast.ForStmt:
		b.forStmt(s, at)
	case *ast.RangeStmt:
		b.rangeStmt(s, at)
	case *ast.SwitchStmt:
		var tag ast.Node
		if s.Tag != nil {
			tag = s.Tag
		}
		b.switchStmt(s, s.Init, tag, s.Body)
	case *ast.TypeSwitchStmt:
		b.switchStmt(s, s.Init, s.Assign, s.Body)
	case *ast.SelectStmt:
		b.selectStmt(s, at)
	default:
		// Assignments, declarations, sends, inc/dec, go, defer, empty.
		b.takeLabel()
		b.add(s)
	}
}

func (b *builder) branch(s *ast.BranchStmt, at pos) {
	b.add(s)
	site := at.site(Before)
	switch s.Tok {
	case token.BREAK:
		b.jump(b.target(s, false).brk, EdgeBreak, s, site)
	case token.CONTINUE:
		b.edge(b.cur, b.target(s, true).cont, EdgeContinue, s, site)
		// The edge into the post block is a preferred cut.
		b.f.Preferred = append(b.f.Preferred, numbering.EdgeID(len(b.f.Edges)-1))
		b.cur = b.newBlock(BlockUnreachable, nil)
	case token.GOTO:
		b.jump(b.labelBlock(s.Label.Name), EdgeGoto, s, site)
	case token.FALLTHROUGH:
		if b.fallTo < 0 {
			panic(buildError("fallthrough outside a switch case"))
		}
		b.jump(b.fallTo, EdgeFallthrough, s, site)
	default:
		panic(buildError(fmt.Sprintf("unknown branch %s", s.Tok)))
	}
}

// target finds what a break or continue goes to.
func (b *builder) target(s *ast.BranchStmt, isContinue bool) target {
	for i := len(b.targets) - 1; i >= 0; i-- {
		t := b.targets[i]
		if s.Label != nil {
			if t.label == s.Label.Name {
				if isContinue && t.cont < 0 {
					break
				}
				return t
			}
			continue
		}
		if isContinue && t.cont < 0 {
			continue
		}
		return t
	}
	panic(buildError(fmt.Sprintf("%s without a target", s.Tok)))
}

func (b *builder) labelBlock(name string) numbering.BlockID {
	lb, ok := b.labels[name]
	if !ok {
		lb = b.newBlock(BlockLabel, nil)
		b.labels[name] = lb
	}
	return lb
}

func (b *builder) ifStmt(s *ast.IfStmt) {
	if s.Init != nil {
		b.add(s.Init)
	}
	b.add(s.Cond)
	cond := b.cur
	done := b.newBlock(BlockIfDone, s)
	then := b.newBlock(BlockIfThen, s)
	b.edge(cond, then, EdgeTrue, s, Site{Head, s.Body, 0})
	b.cur = then
	b.stmtList(s.Body, s.Body.List)
	b.edge(b.cur, done, EdgeFlow, s.Body, Site{FallEnd, s.Body, len(s.Body.List)})
	switch els := s.Else.(type) {
	case nil:
		b.edge(cond, done, EdgeFalse, s, Site{Else, s, 0})
	case *ast.BlockStmt:
		e := b.newBlock(BlockIfElse, s)
		b.edge(cond, e, EdgeFalse, s, Site{Head, els, 0})
		b.cur = e
		b.stmtList(els, els.List)
		b.edge(b.cur, done, EdgeFlow, els, Site{FallEnd, els, len(els.List)})
	case *ast.IfStmt:
		// else if: the rewriter wraps the inner if in a block, whose
		// statement list has the inner if at index 0.
		e := b.newBlock(BlockIfElse, s)
		b.edge(cond, e, EdgeFalse, s, Site{Else, s, 0})
		b.cur = e
		b.stmt(els, pos{s, 0, true})
		b.edge(b.cur, done, EdgeFlow, els, Site{FallEnd, s, 1})
	}
	b.region(s, cond, done)
	b.cur = done
}

func (b *builder) forStmt(s *ast.ForStmt, at pos) {
	label := b.takeLabel()
	if s.Init != nil {
		b.add(s.Init)
	}
	b.loop(s, at, label, s.Body, s.Post, loopKinds{BlockForDone, BlockForHead, BlockForBody, BlockForPost},
		func(head, body, done numbering.BlockID) {
			if s.Cond == nil {
				b.edge(head, body, EdgeFlow, s, Site{Head, s.Body, 0})
				return
			}
			b.add(s.Cond)
			b.edge(head, body, EdgeTrue, s, Site{Head, s.Body, 0})
			b.edge(head, done, EdgeFalse, s, at.after())
		})
}

func (b *builder) rangeStmt(s *ast.RangeStmt, at pos) {
	label := b.takeLabel()
	b.add(s.X)
	b.loop(s, at, label, s.Body, nil, loopKinds{BlockRangeDone, BlockRangeHead, BlockRangeBody, BlockRangePost},
		func(head, body, done numbering.BlockID) {
			b.edge(head, body, EdgeRangeNext, s, Site{Head, s.Body, 0})
			b.edge(head, done, EdgeRangeDone, s, at.after())
		})
}

type loopKinds struct{ done, head, body, post BlockKind }

// loop builds a for or range loop: the current block goes to the head,
// decide adds the head's edges, the body runs from body to post (the
// preferred cut), and post, after the post statement, goes back to the head.
func (b *builder) loop(s ast.Stmt, at pos, label string, list *ast.BlockStmt, postStmt ast.Stmt, kinds loopKinds, decide func(head, body, done numbering.BlockID)) {
	done := b.newBlock(kinds.done, s)
	head := b.newBlock(kinds.head, s)
	body := b.newBlock(kinds.body, s)
	post := b.newBlock(kinds.post, s)
	b.edge(b.cur, head, EdgeFlow, s, at.site(FallEnd))
	b.cur = head
	decide(head, body, done)
	b.targets = append(b.targets, target{label, done, post})
	b.cur = body
	b.stmtList(list, list.List)
	b.f.Preferred = append(b.f.Preferred, b.edge(b.cur, post, EdgeFlow, list, Site{FallEnd, list, len(list.List)}))
	b.targets = b.targets[:len(b.targets)-1]
	if postStmt != nil {
		b.f.Blocks[post].Nodes = append(b.f.Blocks[post].Nodes, postStmt)
	}
	b.edge(post, head, EdgeLoop, s, Site{})
	b.region(s, head, done)
	b.cur = done
}

// switchStmt builds an expression or type switch. The clauses' tests run in
// source order, default last; each clause's list is one decision.
func (b *builder) switchStmt(s ast.Stmt, init ast.Stmt, tag ast.Node, body *ast.BlockStmt) {
	label := b.takeLabel()
	if init != nil {
		b.add(init)
	}
	if tag != nil {
		b.add(tag)
	}
	start := b.cur
	done := b.newBlock(BlockSwitchDone, s)
	clauses := make([]*ast.CaseClause, len(body.List))
	bodies := make([]numbering.BlockID, len(body.List))
	def := -1
	for i, st := range body.List {
		clauses[i] = st.(*ast.CaseClause)
		bodies[i] = b.newBlock(BlockSwitchCase, s)
		if clauses[i].List == nil {
			def = i
		}
	}
	test := start
	last := -1
	for i := range clauses {
		if i != def {
			last = i
		}
	}
	for i, cc := range clauses {
		if i == def {
			continue
		}
		for _, e := range cc.List {
			b.f.Blocks[test].Nodes = append(b.f.Blocks[test].Nodes, e)
		}
		b.edge(test, bodies[i], EdgeCase, cc, Site{headIfSingle, cc, 0})
		if i != last {
			next := b.newBlock(BlockSwitchNext, s)
			b.edge(test, next, EdgeNextCase, cc, Site{})
			test = next
		}
	}
	if def >= 0 {
		b.edge(test, bodies[def], EdgeNoMatch, s, Site{headIfSingle, clauses[def], 0})
	} else {
		b.edge(test, done, EdgeNoMatch, s, Site{Default, s, 0})
	}
	b.targets = append(b.targets, target{label, done, -1})
	saved := b.fallTo
	for i, cc := range clauses {
		b.cur = bodies[i]
		b.fallTo = -1
		if i+1 < len(clauses) {
			b.fallTo = bodies[i+1]
		}
		b.stmtList(cc, cc.Body)
		b.edge(b.cur, done, EdgeFlow, cc, Site{FallEnd, cc, len(cc.Body)})
	}
	b.fallTo = saved
	b.targets = b.targets[:len(b.targets)-1]
	b.region(s, start, done)
	b.cur = done
}

func (b *builder) selectStmt(s *ast.SelectStmt, at pos) {
	label := b.takeLabel()
	b.add(s)
	if len(s.Body.List) == 0 {
		b.jump(b.exit, EdgeBlock, s, at.site(Before))
		return
	}
	start := b.cur
	done := b.newBlock(BlockSelectDone, s)
	b.targets = append(b.targets, target{label, done, -1})
	for _, st := range s.Body.List {
		cc := st.(*ast.CommClause)
		body := b.newBlock(BlockSelectCase, s)
		b.edge(start, body, EdgeComm, cc, Site{Head, cc, 0})
		b.cur = body
		if cc.Comm != nil {
			b.add(cc.Comm)
		}
		b.stmtList(cc, cc.Body)
		b.edge(b.cur, done, EdgeFlow, cc, Site{FallEnd, cc, len(cc.Body)})
	}
	b.targets = b.targets[:len(b.targets)-1]
	b.region(s, start, done)
	b.cur = done
}

// region records the blocks of a compound statement: done was made first,
// so the statement's own blocks are done+1 up to the newest.
func (b *builder) region(s ast.Stmt, start, done numbering.BlockID) {
	b.f.Regions = append(b.f.Regions, Region{
		Stmt:  s,
		Start: start,
		First: done,
		Last:  numbering.BlockID(b.f.Graph.NumBlocks - 1),
		Done:  done,
	})
}

// resolveHeads keeps a provisional head site only where its block has no
// other incoming edge from a reachable block.
func (b *builder) resolveHeads() {
	g := &b.f.Graph
	reachable := make([]bool, g.NumBlocks)
	reachable[g.Entry] = true
	for changed := true; changed; {
		changed = false
		for _, e := range g.Edges {
			if reachable[e.Src] && !reachable[e.Dst] {
				reachable[e.Dst], changed = true, true
			}
		}
	}
	in := make([]int, g.NumBlocks)
	for _, e := range g.Edges {
		if reachable[e.Src] {
			in[e.Dst]++
		}
	}
	for id := range b.f.Edges {
		site := &b.f.Edges[id].Site
		if site.Kind != headIfSingle {
			continue
		}
		if in[g.Edges[id].Dst] == 1 {
			site.Kind = Head
		} else {
			*site = Site{}
		}
		g.Edges[id].Probe = site.Kind != NoSite
	}
}

// gotoTargets returns the labels that goto statements in body name.
func gotoTargets(body *ast.BlockStmt) map[string]bool {
	targets := make(map[string]bool)
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // its own function
		case *ast.BranchStmt:
			if n.Tok == token.GOTO && n.Label != nil {
				targets[n.Label.Name] = true
			}
		}
		return true
	})
	return targets
}
