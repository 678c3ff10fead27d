package graph

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gonum "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/testgraph"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// Shapes of the test modules.
var (
	f32s = hlo.MakeShape(hlo.F32)
	f32v = hlo.MakeShape(hlo.F32, 8)
)

// dagBuilder adapts gonum's conformance cases: each test node becomes an
// instruction (renumbered in ID order) and each edge u->v makes u an operand
// of v.
func dagBuilder(nodes []gonum.Node, edges []testgraph.WeightedLine, _, _ float64) (gonum.Graph, []gonum.Node, []testgraph.Edge, float64, float64, bool) {
	ids := map[int64]bool{}
	for _, n := range nodes {
		ids[n.ID()] = true
	}
	for _, e := range edges {
		ids[e.From().ID()], ids[e.To().ID()] = true, true
	}
	sorted := make([]int64, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	slices.Sort(sorted)
	b := hlotest.NewBuilder("m")
	b.Entry("c")
	byID := map[int64]*hlo.Instruction{}
	for _, id := range sorted {
		byID[id] = b.Add("n", "add", f32s)
	}
	seen := map[[2]int64]bool{}
	for _, e := range edges {
		u, v := e.From().ID(), e.To().ID()
		if u == v || seen[[2]int64{u, v}] {
			continue
		}
		seen[[2]int64{u, v}] = true
		byID[v].Operands = append(byID[v].Operands, byID[u])
	}
	d, err := NewDAG(b.Current())
	if err != nil {
		return nil, nil, nil, 0, 0, false
	}
	var outN []gonum.Node
	for _, id := range sorted {
		outN = append(outN, d.NodeOf(byID[id]))
	}
	var outE []testgraph.Edge
	for k := range seen {
		outE = append(outE, d.EdgeBetween(int64(byID[k[0]].Index), int64(byID[k[1]].Index)))
	}
	return d, outN, outE, math.NaN(), math.NaN(), true
}

func TestDAGConformance(t *testing.T) {
	t.Run("NodeExistence", func(t *testing.T) { testgraph.NodeExistence(t, dagBuilder) })
	t.Run("EdgeExistence", func(t *testing.T) { testgraph.EdgeExistence(t, dagBuilder, false) })
	t.Run("ReturnAdjacentNodes", func(t *testing.T) { testgraph.ReturnAdjacentNodes(t, dagBuilder, true, false) })
	t.Run("ReturnAllNodes", func(t *testing.T) { testgraph.ReturnAllNodes(t, dagBuilder, true) })
}

func TestDAGEdgesKeepSlotsAndControl(t *testing.T) {
	b := hlotest.NewBuilder("m")
	b.Entry("main")
	x := b.Param("x", 0, f32v)
	y := b.Param("y", 1, f32v)
	sum := b.Add("sum", "add", f32v, x, x)
	prod := b.Add("prod", "multiply", f32v, sum, y)
	prod.ControlPredecessors = []*hlo.Instruction{y, x}

	d, err := NewDAG(b.Current())
	require.NoError(t, err)
	e := d.EdgeBetween(int64(x.Index), int64(sum.Index))
	require.NotNil(t, e)
	assert.Equal(t, []int{0, 1}, e.Slots, "add(x, x) is one edge with both slots")
	assert.Equal(t, EdgeData, e.Kind)

	e = d.EdgeBetween(int64(y.Index), int64(prod.Index))
	require.NotNil(t, e)
	assert.Equal(t, EdgeData|EdgeControl, e.Kind)
	assert.Equal(t, []int{1}, e.Slots)

	e = d.EdgeBetween(int64(x.Index), int64(prod.Index))
	require.NotNil(t, e)
	assert.Equal(t, EdgeControl, e.Kind)
	assert.Empty(t, e.Slots)
	assert.Equal(t, "control", e.Kind.String())

	assert.Nil(t, d.Edge(int64(sum.Index), int64(x.Index)), "edges run operand to user only")
	assert.Equal(t, []*hlo.Instruction{sum}, d.Users(x), "control successors are not users")
	assert.Equal(t, 3, d.From(int64(x.Index)).Len()+d.To(int64(prod.Index)).Len()-2)
	assert.Equal(t, gonum.Empty, d.From(int64(prod.Index)))
	assert.Nil(t, d.Node(99))
}

func TestDAGRejectsForeignOperands(t *testing.T) {
	b := hlotest.NewBuilder("m")
	b.Computation("other")
	o := b.Param("o", 0, f32s)
	b.Entry("main")
	b.Add("neg", "negate", f32s, o)
	_, err := NewDAG(b.Current())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "operand 0 of neg (o) is not in the computation")
}

func TestTopoOrderLevelsReachability(t *testing.T) {
	b := hlotest.NewBuilder("m")
	b.Entry("main")
	// Program order deliberately puts a user before its operand.
	p := b.Param("p", 0, f32v)
	late := &hlo.Instruction{Name: "late", Opcode: "negate", Shape: f32v, ParameterNumber: -1, Typed: hlo.NewTypedAttrs()}
	use := b.Add("use", "exponential", f32v, late)
	late.Operands = []*hlo.Instruction{p}
	late.Parent, late.Index = b.Current(), len(b.Current().Instructions)
	b.Current().Instructions = append(b.Current().Instructions, late)
	other := b.Add("other", "abs", f32v, p)
	root := b.Add("root", "add", f32v, use, other)

	d, err := NewDAG(b.Current())
	require.NoError(t, err)
	order, err := d.TopoOrder()
	require.NoError(t, err)
	assert.Equal(t, []string{"p", "late", "use", "other", "root"}, names(order))

	levels, err := d.Levels()
	require.NoError(t, err)
	require.Len(t, levels, 4)
	assert.Equal(t, []string{"p"}, names(levels[0]))
	assert.Equal(t, []string{"late", "other"}, names(levels[1]))
	assert.Equal(t, []string{"use"}, names(levels[2]))
	assert.Equal(t, []string{"root"}, names(levels[3]))

	r, err := d.Reachability()
	require.NoError(t, err)
	assert.True(t, r.Reaches(p, root))
	assert.True(t, r.Reaches(late, use))
	assert.True(t, r.Reaches(use, use))
	assert.False(t, r.Reaches(other, use))
	assert.False(t, r.Reaches(root, p))
}

func TestTopoOrderNamesCycle(t *testing.T) {
	b := hlotest.NewBuilder("m")
	b.Entry("main")
	p := b.Param("p", 0, f32s)
	a := b.Add("a", "add", f32s, p)
	c := b.Add("c", "negate", f32s, a)
	a.Operands = append(a.Operands, c)
	b.Add("root", "abs", f32s, c)
	d, err := NewDAG(b.Current())
	require.NoError(t, err)
	_, err = d.TopoOrder()
	var ce *CycleError
	require.True(t, errors.As(err, &ce), "got %v", err)
	assert.Equal(t, [][]string{{"a", "c"}}, ce.Cycles)
	assert.Equal(t, "computation main: cycle through a, c", err.Error())
	_, err = d.Levels()
	assert.Error(t, err)
}

func names[T interface {
	*hlo.Instruction | *hlo.Computation
}](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		switch v := any(x).(type) {
		case *hlo.Instruction:
			out[i] = v.Name
		case *hlo.Computation:
			out[i] = v.Name
		}
	}
	return out
}
