package graph

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
