package graph

import (
	"fmt"
	"strconv"
	"strings"

	gonum "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/encoding"
	"gonum.org/v1/gonum/graph/encoding/dot"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/hlo-opt/hlo-opt/hlo"
)

var (
	_ dot.Graph       = (*dotGraph)(nil)
	_ dot.Structurer  = (*dotGraph)(nil)
	_ dot.Attributers = (*dotGraph)(nil)
	_ dot.Node        = (*dotNode)(nil)
	_ dot.Graph       = (*CallGraph)(nil)
	_ dot.Attributers = (*CallGraph)(nil)
)

// DOTOptions control DOT rendering of a computation.
type DOTOptions struct {
	// ExpandFusions draws each fusion's fused computation as a cluster
	// linked to the fusion's node; by default a fusion is one node that
	// names its kind and size.
	ExpandFusions bool
	// MaxNodes caps the instructions drawn (DefaultMaxNodes when 0, no cap
	// when negative): the instructions nearest the root are kept and a note
	// says how many were cut.
	MaxNodes int
	// Annotate, when set, adds an analysis's figures to each box of the
	// computation drawn (not to a fused computation's) and may fill it.
	Annotate func(*hlo.Instruction) Annotation
}

// Annotation is what an analysis adds to a box: a line of its figures
// ("4.0MiB, 12.3 µs") and a fill color ("" keeps the box's own).
type Annotation struct {
	Line, Fill string
}

// apply adds a to a box's attributes: its line under the label, its fill.
func (a Annotation) apply(attrs []encoding.Attribute) []encoding.Attribute {
	out := make([]encoding.Attribute, 0, len(attrs)+2)
	for _, at := range attrs {
		switch {
		case at.Key == "label" && a.Line != "":
			l, err := strconv.Unquote(at.Value)
			if err != nil {
				l = at.Value
			}
			at.Value = strconv.Quote(l + "\n" + cutLabel(a.Line))
		case (at.Key == "style" || at.Key == "fillcolor") && a.Fill != "":
			continue // the annotation's fill replaces the box's
		}
		out = append(out, at)
	}
	if a.Fill != "" {
		out = append(out, encoding.Attribute{Key: "style", Value: "filled"}, encoding.Attribute{Key: "fillcolor", Value: strconv.Quote(a.Fill)})
	}
	return out
}

// DefaultMaxNodes is the instruction count DOT draws at most by default:
// Graphviz lays out a thousand boxes in seconds, many thousands in minutes.
const DefaultMaxNodes = 1000

// Labels are cut to this many runes per line so that a wide shape or a long
// generated name does not widen the whole rank.
const maxLabelRunes = 36

// DOT renders computation c as a DOT digraph: one box per instruction
// ("name", "opcode", "shape"), operands above their users, control edges
// dashed. Fusions are single nodes unless opts.ExpandFusions.
func DOT(c *hlo.Computation, opts DOTOptions) ([]byte, error) {
	d, err := NewDAG(c)
	if err != nil {
		return nil, err
	}
	g := newDOTGraph(c.Name)
	keep := d.nearestRoot(opts.maxNodes())
	g.addDAG(d, "", keep, opts.Annotate)
	if cut := len(c.Instructions) - len(keep); keep != nil && cut > 0 {
		g.note(fmt.Sprintf("%d of %d instructions drawn, the %d nearest the root; %d cut (--max-nodes)",
			len(keep), len(c.Instructions), len(keep), cut))
	}
	if opts.ExpandFusions {
		_ = g.attrs.SetAttribute(encoding.Attribute{Key: "compound", Value: "true"})
		for _, in := range c.Instructions {
			if in.Opcode != hlo.OpFusion || keep != nil && !keep[in] {
				continue
			}
			for _, fc := range in.Called {
				if fc == nil {
					continue
				}
				sub, err := NewDAG(fc)
				if err != nil {
					return nil, err
				}
				cl := newDOTGraph("cluster_" + in.Name)
				cl.next = g.next // node IDs are unique across the clusters
				_ = cl.attrs.SetAttribute(encoding.Attribute{Key: "label", Value: strconv.Quote(fc.Name)})
				_ = cl.attrs.SetAttribute(encoding.Attribute{Key: "style", Value: "rounded"})
				prefix := in.Name + "/"
				cl.addDAG(sub, prefix, nil, nil)
				g.subs = append(g.subs, cl)
				if fc.Root != nil {
					// The fused root feeds the fusion's node.
					g.link(prefix+fc.Root.Name, in.Name, "cluster_"+in.Name)
				}
			}
		}
	}
	g.bound()
	return dot.Marshal(g, "", "", "  ")
}

// Graphviz's defaults lay out a few hundred boxes in seconds, but spend
// minutes placing a thousand (network simplex) and routing their splines.
// Above bigGraph boxes the drawing uses straight edges and caps the simplex
// iterations (llama 70B's 1,063-instruction entry: over 2 minutes before,
// 3.7 s after). maxWidthInches bounds every drawing's width (Graphviz
// scales a larger one down): 100 in is 7,200 pt, 9,600 px at 96 dpi.
const (
	bigGraph       = 300
	maxWidthInches = 100
)

// bound sets the graph attributes that keep a drawing's layout time and
// width bounded.
func (g *dotGraph) bound() {
	set := func(k, v string) { _ = g.attrs.SetAttribute(encoding.Attribute{Key: k, Value: v}) }
	set("size", strconv.Quote(strconv.Itoa(maxWidthInches)+",10000"))
	n := g.Nodes().Len()
	for _, s := range g.subs {
		n += s.Nodes().Len()
	}
	if n > bigGraph {
		set("splines", "line")
		set("nslimit", "2")
		set("nslimit1", "2")
	}
}

func (o DOTOptions) maxNodes() int {
	switch {
	case o.MaxNodes == 0:
		return DefaultMaxNodes
	case o.MaxNodes < 0:
		return -1
	}
	return o.MaxNodes
}

// nearestRoot returns the n instructions nearest the root (breadth first
// from the root over operands, then the unreachable ones, latest first), or
// nil when all are kept (n < 0 or n >= the count).
func (d *DAG) nearestRoot(n int) map[*hlo.Instruction]bool {
	if n < 0 || n >= len(d.nodes) {
		return nil
	}
	keep := make(map[*hlo.Instruction]bool, n)
	seen := make([]bool, len(d.nodes))
	var queue []int
	visit := func(i int) {
		if !seen[i] {
			seen[i] = true
			queue = append(queue, i)
		}
	}
	if r, ok := d.index[d.comp.Root]; ok {
		visit(r)
	}
	next := len(d.nodes) - 1 // the latest instruction not reached yet
	for len(keep) < n {
		if len(queue) == 0 {
			for next >= 0 && seen[next] {
				next--
			}
			if next < 0 {
				break
			}
			visit(next)
		}
		i := queue[0]
		queue = queue[1:]
		keep[d.nodes[i].Instr] = true
		for _, j := range d.preds[i] {
			visit(j)
		}
	}
	return keep
}

// dotGraph is what DOT marshals: a gonum graph of labelled boxes, with
// graph attributes and fusion clusters.
type dotGraph struct {
	*simple.DirectedGraph
	name  string
	attrs encoding.Attributes
	ids   map[string]int64
	subs  []*dotGraph
	// next is the next node id; cluster nodes share the parent's ids.
	next *int64
}

func newDOTGraph(name string) *dotGraph {
	var next int64
	g := &dotGraph{DirectedGraph: simple.NewDirectedGraph(), name: name, ids: map[string]int64{}, next: &next}
	_ = g.attrs.SetAttribute(encoding.Attribute{Key: "nodesep", Value: "0.12"})
	_ = g.attrs.SetAttribute(encoding.Attribute{Key: "ranksep", Value: "0.3"})
	return g
}

// dotNode is one box.
type dotNode struct {
	id    int64
	name  string
	attrs []encoding.Attribute
}

func (n *dotNode) ID() int64                        { return n.id }
func (n *dotNode) DOTID() string                    { return n.name }
func (n *dotNode) Attributes() []encoding.Attribute { return n.attrs }

// dotEdge is one arrow.
type dotEdge struct {
	f, t  *dotNode
	attrs []encoding.Attribute
}

func (e *dotEdge) From() gonum.Node                 { return e.f }
func (e *dotEdge) To() gonum.Node                   { return e.t }
func (e *dotEdge) ReversedEdge() gonum.Edge         { return &dotEdge{f: e.t, t: e.f, attrs: e.attrs} }
func (e *dotEdge) Attributes() []encoding.Attribute { return e.attrs }

func (g *dotGraph) DOTID() string { return g.name }

// DOTAttributers gives graph-wide attributes: small boxes, top to bottom.
func (g *dotGraph) DOTAttributers() (ga, na, ea encoding.Attributer) {
	n := &encoding.Attributes{}
	_ = n.SetAttribute(encoding.Attribute{Key: "shape", Value: "box"})
	_ = n.SetAttribute(encoding.Attribute{Key: "fontsize", Value: "10"})
	_ = n.SetAttribute(encoding.Attribute{Key: "margin", Value: `"0.06,0.02"`})
	return &g.attrs, n, &encoding.Attributes{}
}

// Structure returns the fusion clusters.
func (g *dotGraph) Structure() []dot.Graph {
	out := make([]dot.Graph, len(g.subs))
	for i, s := range g.subs {
		out[i] = s
	}
	return out
}

func (g *dotGraph) node(name string, attrs []encoding.Attribute) *dotNode {
	n := &dotNode{id: *g.next, name: name, attrs: attrs}
	*g.next++
	g.ids[name] = n.id
	g.AddNode(n)
	return n
}

// addDAG adds d's instructions (those in keep; all when keep is nil) with
// their names qualified by prefix, annotated when annotate is set, and
// the edges between them.
func (g *dotGraph) addDAG(d *DAG, prefix string, keep map[*hlo.Instruction]bool, annotate func(*hlo.Instruction) Annotation) {
	nodes := make([]*dotNode, len(d.nodes))
	for i, n := range d.nodes {
		if keep != nil && !keep[n.Instr] {
			continue
		}
		attrs := instrAttributes(n.Instr)
		if annotate != nil {
			attrs = annotate(n.Instr).apply(attrs)
		}
		nodes[i] = g.node(prefix+n.Instr.Name, attrs)
	}
	for i, n := range d.nodes {
		if nodes[i] == nil {
			continue
		}
		for _, j := range d.preds[i] {
			if nodes[j] == nil {
				continue
			}
			g.SetEdge(&dotEdge{f: nodes[j], t: nodes[i], attrs: edgeAttributes(d.nodes[j].Instr, n.Instr)})
		}
	}
}

// note adds a box that tells the reader what the drawing leaves out.
func (g *dotGraph) note(text string) {
	g.node("note", []encoding.Attribute{
		{Key: "label", Value: strconv.Quote(text)},
		{Key: "shape", Value: "note"},
	})
}

// link draws a dashed arrow from a node of a cluster to a node of g.
func (g *dotGraph) link(from, to, cluster string) {
	t, ok := g.ids[to]
	if !ok {
		return
	}
	var f *dotNode
	for _, s := range g.subs {
		if id, ok := s.ids[from]; ok {
			f = s.Node(id).(*dotNode)
		}
	}
	if f == nil {
		return
	}
	g.SetEdge(&dotEdge{f: f, t: g.Node(t).(*dotNode), attrs: []encoding.Attribute{
		{Key: "style", Value: "dashed"},
		{Key: "ltail", Value: strconv.Quote(cluster)},
	}})
}

// instrAttributes labels an instruction's box "name\nopcode\nshape" (a
// fusion names its kind and size), each line cut to maxLabelRunes; the
// root is drawn bold and fusions filled.
func instrAttributes(in *hlo.Instruction) []encoding.Attribute {
	op := string(in.Opcode)
	if in.Opcode == hlo.OpFusion {
		if in.Typed.FusionKind != "" {
			op += " " + in.Typed.FusionKind
		}
		if len(in.Called) > 0 && in.Called[0] != nil {
			op += ", " + strconv.Itoa(len(in.Called[0].Instructions)) + " ops"
		}
	}
	label := cutLabel(in.Name) + "\n" + cutLabel(op) + "\n" + cutLabel(shortShape(&in.Shape))
	attrs := []encoding.Attribute{{Key: "label", Value: strconv.Quote(label)}}
	if in.Name != "" && len([]rune(in.Name)) > maxLabelRunes {
		attrs = append(attrs, encoding.Attribute{Key: "tooltip", Value: strconv.Quote(in.Name)})
	}
	if in.IsRoot() {
		attrs = append(attrs, encoding.Attribute{Key: "penwidth", Value: "2"})
	}
	if in.Opcode == hlo.OpFusion {
		attrs = append(attrs, encoding.Attribute{Key: "style", Value: "filled"}, encoding.Attribute{Key: "fillcolor", Value: "lightgrey"})
	}
	return attrs
}

// shortShape prints an array shape without its layout, and a tuple as its
// element count.
func shortShape(s *hlo.Shape) string {
	if s.IsTuple() {
		return "(" + strconv.Itoa(len(s.Tuple)) + " elements)"
	}
	return s.StringNoLayout()
}

// cutLabel keeps the first maxLabelRunes runes of s, marking a cut with "…".
func cutLabel(s string) string {
	r := []rune(s)
	if len(r) <= maxLabelRunes {
		return s
	}
	return string(r[:maxLabelRunes-1]) + "…"
}

// edgeAttributes styles a control edge dashed and labels an edge that fills
// several operand slots with them.
func edgeAttributes(from, to *hlo.Instruction) []encoding.Attribute {
	var slots []string
	for k, op := range to.Operands {
		if op == from {
			slots = append(slots, strconv.Itoa(k))
		}
	}
	switch {
	case len(slots) == 0:
		return []encoding.Attribute{{Key: "style", Value: "dashed"}}
	case len(slots) > 1:
		return []encoding.Attribute{{Key: "label", Value: strconv.Quote(strings.Join(slots, ","))}}
	}
	return nil
}

// DOTID names the call graph after the module.
func (g *CallGraph) DOTID() string { return g.mod.Name }

// DOTAttributers gives graph-wide attributes.
func (g *CallGraph) DOTAttributers() (ga, na, ea encoding.Attributer) {
	n := &encoding.Attributes{}
	_ = n.SetAttribute(encoding.Attribute{Key: "shape", Value: "box"})
	return &encoding.Attributes{}, n, &encoding.Attributes{}
}

// Attributes marks the entry computation and counts instructions.
func (n *CompNode) Attributes() []encoding.Attribute {
	label := n.Comp.Name + "\n" + strconv.Itoa(len(n.Comp.Instructions)) + " instructions"
	attrs := []encoding.Attribute{{Key: "label", Value: strconv.Quote(label)}}
	if n.Comp.IsEntry {
		attrs = append(attrs, encoding.Attribute{Key: "penwidth", Value: "2"})
	}
	return attrs
}

// Attributes labels a call edge with its kinds and call count.
func (e *CallEdge) Attributes() []encoding.Attribute {
	ks := e.Kinds()
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = k.String()
	}
	label := strings.Join(s, ",")
	if len(e.Sites) > 1 {
		label += " x" + strconv.Itoa(len(e.Sites))
	}
	return []encoding.Attribute{{Key: "label", Value: strconv.Quote(label)}}
}

// DOT renders the call graph as a DOT digraph.
func (g *CallGraph) DOT() ([]byte, error) { return dot.Marshal(g, "", "", "  ") }

// DOTAnnotated renders the call graph as DOT with an analysis's figures
// on each computation's box (see Annotation).
func (g *CallGraph) DOTAnnotated(annotate func(*hlo.Computation) Annotation) ([]byte, error) {
	return dot.Marshal(annotatedCallGraph{g, annotate}, "", "", "  ")
}

// annotatedCallGraph is a call graph whose nodes carry annotations.
type annotatedCallGraph struct {
	*CallGraph
	annotate func(*hlo.Computation) Annotation
}

// annotatedNode is a computation's node with its annotation.
type annotatedNode struct {
	*CompNode
	a Annotation
}

func (n annotatedNode) Attributes() []encoding.Attribute { return n.a.apply(n.CompNode.Attributes()) }

func (g annotatedCallGraph) wrap(n gonum.Node) gonum.Node {
	if c, ok := n.(*CompNode); ok {
		return annotatedNode{c, g.annotate(c.Comp)}
	}
	return n
}

// Node returns the annotated node of id.
func (g annotatedCallGraph) Node(id int64) gonum.Node { return g.wrap(g.CallGraph.Node(id)) }

// Nodes returns the annotated nodes.
func (g annotatedCallGraph) Nodes() gonum.Nodes {
	var ns []gonum.Node
	for it := g.CallGraph.Nodes(); it.Next(); {
		ns = append(ns, g.wrap(it.Node()))
	}
	return iterator.NewOrderedNodes(ns)
}

// compile-time check that the edge types carry attributes.
var (
	_ encoding.Attributer = (*dotEdge)(nil)
	_ encoding.Attributer = (*CallEdge)(nil)
	_ gonum.Edge          = (*CallEdge)(nil)
)
