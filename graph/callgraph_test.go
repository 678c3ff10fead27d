package graph

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// whileModule has a reduce's to_apply, a fusion, a while loop and a
// conditional, with the callers written before their callees.
func whileModule() (*hlo.Module, map[string]*hlo.Computation) {
	b := newBuilder("loops")
	cs := map[string]*hlo.Computation{}
	cs["main"] = b.entry("main")
	p := b.param("p", 0, f32v)
	zero := b.add("zero", "constant", f32s)
	red := calls(b.add("red", "reduce", f32s, p, zero), "to_apply", nil)
	w := calls(b.add("loop", "while", f32s, red), "condition", nil)
	calls(w, "body", nil)
	f := calls(b.add("fus", "fusion", f32v, p, w), "calls", nil)
	pred := b.add("pr", "constant", hlo.MakeShape(hlo.PRED))
	cond := calls(b.add("cnd", "conditional", f32s, pred, w, w), "branch_computations", nil)
	b.add("root", "tuple", hlo.MakeTupleShape(f32v, f32s), f, cond)

	cs["sum"] = b.comp("sum")
	a := b.param("a", 0, f32s)
	c := b.param("b", 1, f32s)
	b.add("s", "add", f32s, a, c)

	cs["cond"] = b.comp("cond")
	b.param("c", 0, f32s)
	b.add("lt", "compare", hlo.MakeShape(hlo.PRED))

	cs["body"] = b.comp("body")
	x := b.param("x", 0, f32s)
	rp := calls(b.add("rr", "reduce", f32s, x, x), "to_apply", nil)
	b.add("neg", "negate", f32s, rp)

	cs["fused"] = b.comp("fused")
	f0 := b.param("f0", 0, f32v)
	b.add("f1", "broadcast", f32v, b.param("f1p", 1, f32s))
	b.add("fm", "multiply", f32v, f0, b.cur.Instructions[2])

	cs["br0"] = b.comp("br0")
	b.param("y", 0, f32s)
	cs["br1"] = b.comp("br1")
	b.add("neg1", "negate", f32s, b.param("z", 0, f32s))

	// Fill in the callees now that the computations exist.
	fix := func(in *hlo.Instruction, comps ...*hlo.Computation) {
		in.Called = comps
		for i := range in.Attrs {
			switch in.Attrs[i].Name {
			case "to_apply", "calls", "condition", "body":
				in.Attrs[i].Value = comps[0].Name
				if in.Attrs[i].Name == "body" {
					in.Attrs[i].Value = comps[1].Name
				}
			case "branch_computations":
				in.Attrs[i].Value = "{%" + comps[0].Name + ", %" + comps[1].Name + "}"
			}
		}
	}
	fix(red, cs["sum"])
	fix(w, cs["cond"], cs["body"])
	fix(f, cs["fused"])
	fix(cond, cs["br0"], cs["br1"])
	fix(rp, cs["sum"])
	return b.m, cs
}

func TestCallGraphKindsAndOrders(t *testing.T) {
	m, cs := whileModule()
	g := NewCallGraph(m)
	require.Empty(t, g.Unresolved())

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
	b := newBuilder("rec")
	a := b.comp("a")
	ca := b.add("ca", "call", f32s)
	bb := b.entry("b")
	cb := b.add("cb", "call", f32s)
	calls(ca, "to_apply", bb)
	calls(cb, "to_apply", a)
	missing := b.add("m", "fusion", f32s)
	missing.Attrs = append(missing.Attrs, hlo.Attribute{Name: "calls", Value: "nowhere"})

	g := NewCallGraph(b.m)
	require.Len(t, g.Unresolved(), 1)
	assert.Equal(t, "nowhere", g.Unresolved()[0].Name)
	assert.Equal(t, CallCall, g.Sites(a)[0].Kind)
	_, err := g.PostOrder()
	var ce *CycleError
	require.True(t, errors.As(err, &ce), "got %v", err)
	assert.Equal(t, "call graph of module rec: cycle through a, b", err.Error())
}
