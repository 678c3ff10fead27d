package graph

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	gonum "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/topo"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// Compile-time conformance with gonum's interfaces.
var (
	_ gonum.Directed = (*DAG)(nil)
	_ gonum.Node     = (*Node)(nil)
	_ gonum.Edge     = (*Edge)(nil)
)

// Node is an instruction as a gonum node; its ID is the instruction's index
// in its computation's program order.
type Node struct {
	Instr *hlo.Instruction
	id    int64
	dag   *DAG
}

// ID returns the instruction's index in program order.
func (n *Node) ID() int64 { return n.id }

// EdgeKind says why one instruction depends on another.
type EdgeKind uint8

// Edge kinds; an edge may be both (an operand that is also a control
// predecessor).
const (
	EdgeData    EdgeKind = 1 << iota // the source is an operand of the target
	EdgeControl                      // the source is a control predecessor of the target
)

// String returns "data", "control" or "data+control".
func (k EdgeKind) String() string {
	switch k {
	case EdgeData:
		return "data"
	case EdgeControl:
		return "control"
	case EdgeData | EdgeControl:
		return "data+control"
	}
	return fmt.Sprintf("EdgeKind(%d)", uint8(k))
}

// Edge runs from an operand (or control predecessor) to its user.
type Edge struct {
	F, T *Node
	Kind EdgeKind
	// Slots are the operand indices of T that F fills, ascending; empty for a
	// pure control edge.
	Slots []int
}

// From returns the operand.
func (e *Edge) From() gonum.Node { return e.F }

// To returns the user.
func (e *Edge) To() gonum.Node { return e.T }

// ReversedEdge returns e unaltered: dependence edges have no valid reversal.
func (e *Edge) ReversedEdge() gonum.Edge { return e }

// DAG is the instruction graph of one computation. Build it with NewDAG.
type DAG struct {
	comp  *hlo.Computation
	nodes []*Node
	index map[*hlo.Instruction]int
	// preds[i] and succs[i] are the distinct neighbours of node i, ascending.
	preds, succs [][]int
}

// NewDAG builds the instruction graph of c. It fails if an operand or
// control predecessor is nil or belongs to another computation.
func NewDAG(c *hlo.Computation) (*DAG, error) {
	d := &DAG{
		comp:  c,
		nodes: make([]*Node, len(c.Instructions)),
		index: make(map[*hlo.Instruction]int, len(c.Instructions)),
		preds: make([][]int, len(c.Instructions)),
		succs: make([][]int, len(c.Instructions)),
	}
	for i, in := range c.Instructions {
		if in == nil {
			return nil, fmt.Errorf("computation %s: instruction %d is nil", c.Name, i)
		}
		d.nodes[i] = &Node{Instr: in, id: int64(i), dag: d}
		d.index[in] = i
	}
	for i, in := range c.Instructions {
		var ps []int
		add := func(what string, k int, op *hlo.Instruction) error {
			j, ok := d.index[op]
			if !ok {
				name := "<nil>"
				if op != nil {
					name = op.Name
				}
				return fmt.Errorf("computation %s: %s %d of %s (%s) is not in the computation", c.Name, what, k, in.Name, name)
			}
			ps = append(ps, j)
			return nil
		}
		for k, op := range in.Operands {
			if err := add("operand", k, op); err != nil {
				return nil, err
			}
		}
		for k, op := range in.ControlPredecessors {
			if err := add("control predecessor", k, op); err != nil {
				return nil, err
			}
		}
		slices.Sort(ps)
		ps = slices.Compact(ps)
		d.preds[i] = ps
		for _, j := range ps {
			d.succs[j] = append(d.succs[j], i)
		}
	}
	return d, nil
}

// Computation returns the computation the graph views.
func (d *DAG) Computation() *hlo.Computation { return d.comp }

// Len is the number of instructions.
func (d *DAG) Len() int { return len(d.nodes) }

// NodeOf returns the node of an instruction, or nil if it is not in the
// computation.
func (d *DAG) NodeOf(in *hlo.Instruction) *Node {
	if i, ok := d.index[in]; ok {
		return d.nodes[i]
	}
	return nil
}

// Node returns the node with the given ID, or nil.
func (d *DAG) Node(id int64) gonum.Node {
	if id < 0 || id >= int64(len(d.nodes)) {
		return nil
	}
	return d.nodes[id]
}

func (d *DAG) nodeSet(ids []int) gonum.Nodes {
	if len(ids) == 0 {
		return gonum.Empty
	}
	ns := make([]gonum.Node, len(ids))
	for k, i := range ids {
		ns[k] = d.nodes[i]
	}
	return iterator.NewOrderedNodes(ns)
}

// Nodes returns every instruction in program order.
func (d *DAG) Nodes() gonum.Nodes {
	if len(d.nodes) == 0 {
		return gonum.Empty
	}
	ns := make([]gonum.Node, len(d.nodes))
	for i, n := range d.nodes {
		ns[i] = n
	}
	return iterator.NewOrderedNodes(ns)
}

// From returns the distinct users (data and control) of node id, in program
// order.
func (d *DAG) From(id int64) gonum.Nodes {
	if d.Node(id) == nil {
		return gonum.Empty
	}
	return d.nodeSet(d.succs[id])
}

// To returns the distinct operands and control predecessors of node id, in
// program order.
func (d *DAG) To(id int64) gonum.Nodes {
	if d.Node(id) == nil {
		return gonum.Empty
	}
	return d.nodeSet(d.preds[id])
}

// HasEdgeFromTo reports whether uid is an operand or control predecessor of
// vid.
func (d *DAG) HasEdgeFromTo(uid, vid int64) bool {
	if d.Node(uid) == nil || d.Node(vid) == nil {
		return false
	}
	_, ok := slices.BinarySearch(d.preds[vid], int(uid))
	return ok
}

// HasEdgeBetween reports whether there is an edge either way.
func (d *DAG) HasEdgeBetween(xid, yid int64) bool {
	return d.HasEdgeFromTo(xid, yid) || d.HasEdgeFromTo(yid, xid)
}

// Edge returns the edge from uid to vid with its kind and operand slots, or
// nil.
func (d *DAG) Edge(uid, vid int64) gonum.Edge {
	if e := d.EdgeBetween(uid, vid); e != nil {
		return e
	}
	return nil
}

// EdgeBetween is Edge with its concrete type.
func (d *DAG) EdgeBetween(uid, vid int64) *Edge {
	if !d.HasEdgeFromTo(uid, vid) {
		return nil
	}
	u, v := d.nodes[uid], d.nodes[vid]
	e := &Edge{F: u, T: v}
	for k, op := range v.Instr.Operands {
		if op == u.Instr {
			e.Slots = append(e.Slots, k)
		}
	}
	if len(e.Slots) > 0 {
		e.Kind |= EdgeData
	}
	if slices.Contains(v.Instr.ControlPredecessors, u.Instr) {
		e.Kind |= EdgeControl
	}
	return e
}

// Users returns the distinct data users of in (not control successors), in
// program order.
func (d *DAG) Users(in *hlo.Instruction) []*hlo.Instruction {
	i, ok := d.index[in]
	if !ok {
		return nil
	}
	var out []*hlo.Instruction
	for _, j := range d.succs[i] {
		if slices.Contains(d.nodes[j].Instr.Operands, in) {
			out = append(out, d.nodes[j].Instr)
		}
	}
	return out
}

// CycleError reports instructions (or computations) that lie on a cycle.
type CycleError struct {
	// Where is the computation (or module) whose graph has the cycle.
	Where string
	// Cycles are the strongly connected components that make ordering
	// impossible, each as names in program order.
	Cycles [][]string
}

func (e *CycleError) Error() string {
	parts := make([]string, len(e.Cycles))
	for i, c := range e.Cycles {
		parts[i] = strings.Join(c, ", ")
	}
	return fmt.Sprintf("%s: cycle through %s", e.Where, strings.Join(parts, "; "))
}

func byID(ns []gonum.Node) {
	slices.SortFunc(ns, func(a, b gonum.Node) int {
		switch {
		case a.ID() < b.ID():
			return -1
		case a.ID() > b.ID():
			return 1
		}
		return 0
	})
}

// TopoOrder returns the instructions with every operand and control
// predecessor before its users; ties keep program order. A cycle gives a
// *CycleError naming the instructions on it.
func (d *DAG) TopoOrder() ([]*hlo.Instruction, error) {
	sorted, err := topo.SortStabilized(d, byID)
	if err != nil {
		var u topo.Unorderable
		if errors.As(err, &u) {
			ce := &CycleError{Where: "computation " + d.comp.Name}
			for _, scc := range u {
				names := make([]string, len(scc))
				for i, n := range scc {
					names[i] = n.(*Node).Instr.Name
				}
				ce.Cycles = append(ce.Cycles, names)
			}
			return nil, ce
		}
		return nil, err
	}
	out := make([]*hlo.Instruction, len(sorted))
	for i, n := range sorted {
		out[i] = n.(*Node).Instr
	}
	return out, nil
}

// Levels groups the instructions by the length of the longest dependence
// path that reaches them: level 0 has no operands or control predecessors,
// and every instruction of a level can run in parallel once the earlier
// levels are done. Each level is in program order.
func (d *DAG) Levels() ([][]*hlo.Instruction, error) {
	order, err := d.TopoOrder()
	if err != nil {
		return nil, err
	}
	level := make([]int, len(d.nodes))
	for _, in := range order {
		i := d.index[in]
		l := 0
		for _, p := range d.preds[i] {
			l = max(l, level[p]+1)
		}
		level[i] = l
	}
	return byLevel(level, func(i int) *hlo.Instruction { return d.nodes[i].Instr }), nil
}

// byLevel groups item(i) for every i by level[i], each group in the order
// of i.
func byLevel[T any](level []int, item func(i int) T) [][]T {
	var out [][]T
	for i, l := range level {
		for len(out) <= l {
			out = append(out, nil)
		}
		out[l] = append(out[l], item(i))
	}
	return out
}

// Reachability answers "does a reach b" for every pair of instructions of
// one computation, from bit sets computed once.
type Reachability struct {
	dag   *DAG
	words int
	bits  []uint64
}

// Reachability computes the transitive closure of the graph (each
// instruction reaches itself). It costs n²/8 bytes for n instructions.
func (d *DAG) Reachability() (*Reachability, error) {
	order, err := d.TopoOrder()
	if err != nil {
		return nil, err
	}
	n := len(d.nodes)
	w := (n + 63) / 64
	r := &Reachability{dag: d, words: w, bits: make([]uint64, n*w)}
	for k := len(order) - 1; k >= 0; k-- {
		i := d.index[order[k]]
		row := r.bits[i*w : (i+1)*w]
		row[i/64] |= 1 << (i % 64)
		for _, s := range d.succs[i] {
			srow := r.bits[s*w : (s+1)*w]
			for j := range row {
				row[j] |= srow[j]
			}
		}
	}
	return r, nil
}

// Reaches reports whether there is a dependence path from a to b.
func (r *Reachability) Reaches(a, b *hlo.Instruction) bool {
	i, ok1 := r.dag.index[a]
	j, ok2 := r.dag.index[b]
	if !ok1 || !ok2 {
		return false
	}
	return r.bits[i*r.words+j/64]&(1<<(j%64)) != 0
}
