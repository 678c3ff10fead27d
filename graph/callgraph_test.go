package graph

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gonum "gonum.org/v1/gonum/graph"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

func TestCallGraphKindsAndOrders(t *testing.T) {
	m, cs := hlotest.LoopsModule()
	g := NewCallGraph(m)
	require.Empty(t, g.Unresolved())
	assert.NoError(t, g.Acyclic())

	var kinds []string
	for _, s := range g.Sites(cs["main"]) {
		kinds = append(kinds, s.Caller.Name+"->"+s.Callee.Name+":"+s.Kind.String())
	}
	assert.Equal(t, []string{
		"red->sum:to_apply", "loop->cond:while_condition", "loop->body:while_body",
		"fus->fused:fusion", "cnd->br0:conditional_branch", "cnd->br1:conditional_branch",
	}, kinds)
	assert.Len(t, g.Callers(cs["sum"]), 2)
	assert.True(t, g.IsFusionComputation(cs["fused"]))
	assert.False(t, g.IsFusionComputation(cs["body"]))

	post, err := g.PostOrder()
	require.NoError(t, err)
	assert.Equal(t, []string{"sum", "cond", "body", "fused", "br0", "br1", "main"}, names(post))
	nf, err := g.NonFusionPostOrder()
	require.NoError(t, err)
	assert.Equal(t, []string{"sum", "cond", "body", "br0", "br1", "main"}, names(nf))

	levels, err := g.Levels()
	require.NoError(t, err)
	require.Len(t, levels, 3)
	assert.Equal(t, []string{"sum", "cond", "fused", "br0", "br1"}, names(levels[0]))
	assert.Equal(t, []string{"body"}, names(levels[1]))
	assert.Equal(t, []string{"main"}, names(levels[2]))

	assert.Equal(t, []string{"sum", "body"}, names(g.Reachable(cs["body"])))
	assert.Equal(t, 6, g.From(int64(g.Index(cs["main"]))).Len())
	assert.Equal(t, 2, g.To(int64(g.Index(cs["sum"]))).Len())
	e := g.Edge(int64(g.Index(cs["main"])), int64(g.Index(cs["sum"]))).(*CallEdge)
	assert.Equal(t, []CallKind{CallToApply}, e.Kinds())
	assert.Equal(t, []string{"a", "b"}, CalleeNames("{%a, b}"))
}

func TestCallGraphRecursionAndUnresolved(t *testing.T) {
	b := hlotest.NewBuilder("rec")
	a := b.Computation("a")
	ca := b.Add("ca", "call", f32s)
	bb := b.Entry("b")
	cb := b.Add("cb", "call", f32s)
	hlotest.Calls(ca, "to_apply", bb)
	hlotest.Calls(cb, "to_apply", a)
	missing := b.Add("m", "fusion", f32s)
	missing.Attrs = append(missing.Attrs, hlo.Attribute{Name: "calls", Value: "nowhere"})

	g := NewCallGraph(b.Module())
	require.Len(t, g.Unresolved(), 1)
	assert.Equal(t, "nowhere", g.Unresolved()[0].Name)
	assert.Equal(t, CallCall, g.Sites(a)[0].Kind)
	_, err := g.PostOrder()
	var ce *CycleError
	require.True(t, errors.As(err, &ce), "got %v", err)
	assert.Equal(t, err, g.Acyclic())
	assert.Equal(t, "call graph of module rec: cycle through a, b", err.Error())
}

// sameCallGraph checks that two call graphs of one module agree on every
// query: sites, callers, callees, edges, fusion marks, unresolved names and
// orders.
func sameCallGraph(t *testing.T, want, got *CallGraph) {
	t.Helper()
	m := want.Module()
	for _, c := range m.Computations {
		assert.Equal(t, want.Index(c), got.Index(c), c.Name)
		assert.Equal(t, want.Sites(c), got.Sites(c), "sites of %s", c.Name)
		assert.Equal(t, want.Callers(c), got.Callers(c), "callers of %s", c.Name)
		assert.Equal(t, want.Callees(c), got.Callees(c), "callees of %s", c.Name)
		assert.Equal(t, want.IsFusionComputation(c), got.IsFusionComputation(c), c.Name)
		id := int64(want.Index(c))
		assert.Equal(t, nodeIDs(want.From(id)), nodeIDs(got.From(id)), "from %s", c.Name)
		assert.Equal(t, nodeIDs(want.To(id)), nodeIDs(got.To(id)), "to %s", c.Name)
	}
	assert.Equal(t, want.Unresolved(), got.Unresolved())
	wp, werr := want.PostOrder()
	gp, gerr := got.PostOrder()
	assert.Equal(t, werr, gerr)
	assert.Equal(t, wp, gp)
	wn, _ := want.NonFusionPostOrder()
	gn, _ := got.NonFusionPostOrder()
	assert.Equal(t, wn, gn)
}

func nodeIDs(it gonum.Nodes) []int64 {
	var ids []int64
	for it.Next() {
		ids = append(ids, it.Node().ID())
	}
	return ids
}

func TestNewCallGraphJobsMatchesSequential(t *testing.T) {
	m, cs := hlotest.LoopsModule()
	// An unresolved name and an instruction calling two computations
	// named in one attribute.
	extra := &hlo.Instruction{Name: "x", Opcode: "custom-call", Parent: cs["body"], Index: len(cs["body"].Instructions),
		Called: []*hlo.Computation{cs["br0"], cs["br1"]}, Typed: hlo.NewTypedAttrs(),
		Attrs: []hlo.Attribute{{Name: "called_computations", Value: "{%br1, %nowhere}"}}}
	cs["body"].Instructions = append(cs["body"].Instructions, extra)
	want := NewCallGraph(m)
	require.Len(t, want.Unresolved(), 1)
	for _, jobs := range []int{0, 1, 2, 3, 64} {
		sameCallGraph(t, want, NewCallGraphJobs(m, jobs))
	}
	// br1 is matched by name first, br0 is left over as CallOther.
	sites := want.Sites(cs["body"])
	require.Len(t, sites, 3)
	assert.Equal(t, []*hlo.Computation{cs["br1"], cs["br0"]}, []*hlo.Computation{sites[1].Callee, sites[2].Callee})
	assert.Equal(t, []CallKind{CallCustom, CallOther}, []CallKind{sites[1].Kind, sites[2].Kind})
}

func TestNewCallGraphJobsCorpus(t *testing.T) {
	checked := 0
	for _, cm := range hlotest.CorpusModules(t) {
		sameCallGraph(t, NewCallGraph(cm.Module), NewCallGraphJobs(cm.Module, 2))
		checked++
	}
	assert.Positive(t, checked)
}

// buildInParts builds m's call graph split into parts parts, scanned last
// part first.
func buildInParts(m *hlo.Module, parts int) *CallGraph {
	b := NewCallGraphBuilder(m, parts)
	for k := b.Parts() - 1; k >= 0; k-- {
		b.Scan(k)
	}
	return b.Graph()
}

func TestCallGraphBuilderParts(t *testing.T) {
	m, cs := hlotest.LoopsModule()
	// Empty computations, first, in the middle and last, keep their places.
	empty := &hlo.Computation{Name: "empty"}
	m.Computations = append([]*hlo.Computation{empty}, m.Computations...)
	m.Computations = append(m.Computations[:3], append([]*hlo.Computation{{Name: "empty2"}}, m.Computations[3:]...)...)
	m.Computations = append(m.Computations, &hlo.Computation{Name: "empty3"}, &hlo.Computation{Name: "empty4"})
	want := NewCallGraph(m)
	require.NotEmpty(t, want.Sites(cs["body"]))
	total := hlotest.CountInstructions(m)
	for parts := 1; parts <= total+2; parts++ {
		b := NewCallGraphBuilder(m, parts)
		assert.Equal(t, min(parts, total), b.Parts())
		sameCallGraph(t, want, buildInParts(m, parts))
	}
	// A module without instructions still has one part.
	b := NewCallGraphBuilder(&hlo.Module{Computations: []*hlo.Computation{empty}}, 4)
	assert.Equal(t, 1, b.Parts())
	b.Scan(0)
	assert.Empty(t, b.Graph().Sites(empty))
}

func TestCallGraphBuilderCorpus(t *testing.T) {
	m, _ := hlotest.ReadModule(t, hlotest.LargestCorpusFileWithFusions(t))
	want := NewCallGraph(m)
	for _, parts := range []int{2, 3, 8, 64, 1000} {
		sameCallGraph(t, want, buildInParts(m, parts))
	}
}

func TestCallGraphIndexHints(t *testing.T) {
	m, cs := hlotest.LoopsModule()
	g := NewCallGraph(m)
	for i, c := range m.Computations {
		require.Equal(t, i, c.Index, "the builder sets the hint")
		assert.Equal(t, i, g.Index(c))
	}
	// Moved by hand: the hints are stale, the graph still finds them.
	m.Computations[0], m.Computations[1] = m.Computations[1], m.Computations[0]
	moved := NewCallGraph(m)
	for i, c := range m.Computations {
		assert.Equal(t, i, moved.Index(c), c.Name)
	}
	assert.Equal(t, -1, moved.Index(&hlo.Computation{Name: "stranger", Index: 0}))
	assert.Equal(t, -1, moved.Index(nil))
	assert.NotEmpty(t, moved.Sites(cs["body"]))
}
