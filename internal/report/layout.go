package report

import (
	"cmp"
	"slices"

	"github.com/pathcover/pathcover/numbering"
)

// A graphLayout places a function's control-flow graph for drawing: the
// blocks in layers down the page, each edge of the acyclic part from one
// layer to a lower one, and the cut edges (where loops go round) drawn back
// up along the right side.
type graphLayout struct {
	Width, Height float64
	Nodes         []layoutNode
	Edges         []layoutEdge
}

type layoutNode struct {
	Block        numbering.BlockID
	Layer, Index int     // layer from the top, position in it from the left
	X, Y         float64 // the box's centre
}

type layoutEdge struct {
	Edge     numbering.EdgeID
	Src, Dst int  // indexes into Nodes
	Back     bool // a cut edge, drawn up the right side
	// Path is the SVG path; LabelX and LabelY where its count goes.
	Path           string
	LabelX, LabelY float64
}

// Sizes of the drawing, in SVG units.
const (
	nodeWidth  = 64.0
	nodeHeight = 26.0
	layerGap   = 64.0
	nodeGap    = 86.0
	margin     = 24.0
	backGap    = 14.0 // between the lanes of the edges that go back up
)

// layOut lays out the reachable blocks of n's graph. Layers come from the
// longest path from a block where paths start, over the edges of the DAG,
// so every such edge goes down; the order within a layer is improved by a
// few barycenter sweeps, which keeps edges short and crossings few.
func layOut(n *numbering.Numbering) *graphLayout {
	g := n.Graph()
	layer := make(map[numbering.BlockID]int)
	var order []numbering.BlockID
	for _, v := range n.Topo() {
		if v == n.Root() || !n.Reachable(v) {
			continue
		}
		order = append(order, v)
		layer[v] = 0
	}
	// Topo is a topological order of the DAG, so one pass finds the
	// longest paths.
	for _, v := range order {
		for _, e := range n.Out(v) {
			if n.Edge(e).Kind != numbering.RealEdge {
				continue
			}
			if w := n.Edge(e).Dst; layer[w] < layer[v]+1 {
				layer[w] = layer[v] + 1
			}
		}
	}
	var layers [][]numbering.BlockID
	for _, v := range order {
		l := layer[v]
		for len(layers) <= l {
			layers = append(layers, nil)
		}
		layers[l] = append(layers[l], v)
	}
	pos := make(map[numbering.BlockID]float64)
	setPos := func() {
		for _, row := range layers {
			for i, v := range row {
				pos[v] = float64(i) - float64(len(row)-1)/2
			}
		}
	}
	setPos()
	var preds, succs = map[numbering.BlockID][]numbering.BlockID{}, map[numbering.BlockID][]numbering.BlockID{}
	for id, e := range g.Edges {
		if n.InDAG(numbering.EdgeID(id)) && n.Reachable(e.Src) {
			preds[e.Dst] = append(preds[e.Dst], e.Src)
			succs[e.Src] = append(succs[e.Src], e.Dst)
		}
	}
	barycenter := func(v numbering.BlockID, nbrs []numbering.BlockID) float64 {
		if len(nbrs) == 0 {
			return pos[v]
		}
		sum := 0.0
		for _, w := range nbrs {
			sum += pos[w]
		}
		return sum / float64(len(nbrs))
	}
	for sweep := range 4 {
		for i := range layers {
			l := i
			nbrs := preds
			if sweep%2 == 1 {
				l, nbrs = len(layers)-1-i, succs
			}
			row := layers[l]
			key := make(map[numbering.BlockID]float64, len(row))
			for _, v := range row {
				key[v] = barycenter(v, nbrs[v])
			}
			slices.SortStableFunc(row, func(a, b numbering.BlockID) int { return cmp.Compare(key[a], key[b]) })
			for j, v := range row {
				pos[v] = float64(j) - float64(len(row)-1)/2
			}
		}
	}

	widest := 1
	for _, row := range layers {
		widest = max(widest, len(row))
	}
	lay := &graphLayout{}
	index := make(map[numbering.BlockID]int)
	centre := margin + nodeWidth/2 + float64(widest-1)*nodeGap/2
	for l, row := range layers {
		for i, v := range row {
			index[v] = len(lay.Nodes)
			lay.Nodes = append(lay.Nodes, layoutNode{
				Block: v, Layer: l, Index: i,
				X: centre + (float64(i)-float64(len(row)-1)/2)*nodeGap,
				Y: margin + nodeHeight/2 + float64(l)*(nodeHeight+layerGap),
			})
		}
	}
	right := centre + float64(widest-1)*nodeGap/2 + nodeWidth/2
	lanes := 0
	for id, e := range g.Edges {
		eid := numbering.EdgeID(id)
		si, ok1 := index[e.Src]
		di, ok2 := index[e.Dst]
		if !ok1 || !ok2 {
			continue
		}
		s, d := lay.Nodes[si], lay.Nodes[di]
		le := layoutEdge{Edge: eid, Src: si, Dst: di}
		if n.InDAG(eid) {
			x1, y1 := s.X, s.Y+nodeHeight/2
			x2, y2 := d.X, d.Y-nodeHeight/2
			my := (y1 + y2) / 2
			le.Path = svgf("M%.1f %.1f C%.1f %.1f %.1f %.1f %.1f %.1f", x1, y1, x1, my, x2, my, x2, y2)
			le.LabelX, le.LabelY = (x1+x2)/2, my
		} else {
			// Down out of the source, right to a lane of its own beside
			// every block, up, and down into the target: the horizontal
			// runs lie between layers, so they cross no block.
			lanes++
			lane := right + float64(lanes)*backGap
			dy := 8 + float64(lanes%4)*5
			x1, y1 := s.X+nodeWidth/4, s.Y+nodeHeight/2
			x2, y2 := d.X+nodeWidth/4, d.Y-nodeHeight/2
			le.Back = true
			le.Path = svgf("M%.1f %.1f L%.1f %.1f L%.1f %.1f L%.1f %.1f L%.1f %.1f L%.1f %.1f",
				x1, y1, x1, y1+dy, lane, y1+dy, lane, y2-dy, x2, y2-dy, x2, y2)
			le.LabelX, le.LabelY = lane, (y1+y2)/2
		}
		lay.Edges = append(lay.Edges, le)
	}
	lay.Width = right + float64(lanes)*backGap + margin + 24
	lay.Height = 2*margin + float64(len(layers))*(nodeHeight+layerGap) - layerGap
	return lay
}
