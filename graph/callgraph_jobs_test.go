package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gonum "gonum.org/v1/gonum/graph"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

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
