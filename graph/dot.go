package graph

import (
	"strconv"
	"strings"

	gonum "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/encoding"
	"gonum.org/v1/gonum/graph/encoding/dot"

	"github.com/hlo-opt/hlo-opt/hlo"
)

var (
	_ dot.Graph       = (*DAG)(nil)
	_ dot.Structurer  = (*DAG)(nil)
	_ dot.Attributers = (*DAG)(nil)
	_ dot.Node        = (*Node)(nil)
	_ dot.Graph       = (*CallGraph)(nil)
	_ dot.Attributers = (*CallGraph)(nil)
)

// DOTID names the instruction in DOT output; inside a fusion cluster it is
// qualified by the fusion's name.
func (n *Node) DOTID() string { return n.dag.dotPrefix + n.Instr.Name }

// Attributes labels the node "name\nopcode shape".
func (n *Node) Attributes() []encoding.Attribute {
	label := n.Instr.Name + "\n" + string(n.Instr.Opcode) + " " + n.Instr.Shape.StringNoLayout()
	attrs := []encoding.Attribute{{Key: "label", Value: strconv.Quote(label)}}
	if n.Instr.IsRoot() {
		attrs = append(attrs, encoding.Attribute{Key: "penwidth", Value: "2"})
	}
	if n.Instr.Opcode == "fusion" {
		attrs = append(attrs, encoding.Attribute{Key: "style", Value: "filled"}, encoding.Attribute{Key: "fillcolor", Value: "lightgrey"})
	}
	return attrs
}

// Attributes styles control edges dashed and labels an edge that fills
// several operand slots with them.
func (e *Edge) Attributes() []encoding.Attribute {
	var attrs []encoding.Attribute
	if e.Kind&EdgeControl != 0 {
		attrs = append(attrs, encoding.Attribute{Key: "style", Value: "dashed"})
	}
	if len(e.Slots) > 1 {
		s := make([]string, len(e.Slots))
		for i, k := range e.Slots {
			s[i] = strconv.Itoa(k)
		}
		attrs = append(attrs, encoding.Attribute{Key: "label", Value: strconv.Quote(strings.Join(s, ","))})
	}
	return attrs
}

// DOTID names the graph (the computation, or a fusion cluster).
func (d *DAG) DOTID() string {
	if d.dotName != "" {
		return d.dotName
	}
	return d.comp.Name
}

// DOTAttributers gives graph-wide attributes: boxes, top to bottom.
func (d *DAG) DOTAttributers() (g, n, e encoding.Attributer) {
	ga := &encoding.Attributes{}
	if d.dotPrefix != "" {
		_ = ga.SetAttribute(encoding.Attribute{Key: "label", Value: strconv.Quote(d.comp.Name)})
		_ = ga.SetAttribute(encoding.Attribute{Key: "style", Value: "rounded"})
	}
	na := &encoding.Attributes{}
	_ = na.SetAttribute(encoding.Attribute{Key: "shape", Value: "box"})
	return ga, na, &encoding.Attributes{}
}

// Structure returns the fusion clusters, when DOT asked for them.
func (d *DAG) Structure() []dot.Graph {
	out := make([]dot.Graph, len(d.clusters))
	for i, c := range d.clusters {
		out[i] = c
	}
	return out
}

// DOTOptions control DOT rendering of a computation.
type DOTOptions struct {
	// FusionClusters draws each fusion's fused computation as a cluster
	// next to the fusion instruction.
	FusionClusters bool
}

// DOT renders computation c as a DOT digraph.
func DOT(c *hlo.Computation, opts DOTOptions) ([]byte, error) {
	d, err := NewDAG(c)
	if err != nil {
		return nil, err
	}
	if opts.FusionClusters {
		for _, in := range c.Instructions {
			if in.Opcode != "fusion" {
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
				sub.dotPrefix = in.Name + "/"
				sub.dotName = "cluster_" + in.Name
				d.clusters = append(d.clusters, sub)
			}
		}
	}
	return dot.Marshal(d, "", "", "  ")
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

// compile-time check that the edge types carry attributes.
var (
	_ encoding.Attributer = (*Edge)(nil)
	_ encoding.Attributer = (*CallEdge)(nil)
	_ gonum.Edge          = (*CallEdge)(nil)
)
