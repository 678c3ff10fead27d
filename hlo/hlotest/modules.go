package hlotest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// LoopsModule returns a module called "loops" whose entry "main" calls
// every kind of callee, written before its callees: a reduce's to_apply
// ("sum"), a while loop ("cond", "body"; the body's reduce calls "sum"
// again), a fusion ("fused") and a conditional ("br0", "br1"). The map
// holds the computations by name. Every call returns a fresh module.
func LoopsModule() (*hlo.Module, map[string]*hlo.Computation) {
	f32s, f32v, pred := hlo.MakeShape(hlo.F32), hlo.MakeShape(hlo.F32, 8), hlo.MakeShape(hlo.PRED)
	b := NewBuilder("loops")
	cs := map[string]*hlo.Computation{}
	cs["main"] = b.Entry("main")
	p := b.Param("p", 0, f32v)
	zero := b.Add("zero", "constant", f32s)
	red := Calls(b.Add("red", "reduce", f32s, p, zero), "to_apply", nil)
	red.Attrs = append(red.Attrs, hlo.Attribute{Name: "dimensions", Value: "{0}"})
	red.Typed.Dimensions = []int64{0}
	w := Calls(b.Add("loop", "while", f32s, red), "condition", nil)
	Calls(w, "body", nil)
	f := Calls(b.Add("fus", "fusion", f32v, p, w), "calls", nil)
	f.Attrs = append(f.Attrs, hlo.Attribute{Name: "kind", Value: "kLoop"})
	pr := b.Add("pr", "constant", pred)
	cond := Calls(b.Add("cnd", "conditional", f32s, pr, w, w), "branch_computations", nil)
	b.Add("root", "tuple", hlo.MakeTupleShape(f32v, f32s), f, cond)

	cs["sum"] = b.Computation("sum")
	b.Add("s", "add", f32s, b.Param("a", 0, f32s), b.Param("b", 1, f32s))

	cs["cond"] = b.Computation("cond")
	cp := b.Param("c", 0, f32s)
	b.Add("lt", "compare", pred, cp, cp)

	cs["body"] = b.Computation("body")
	x := b.Param("x", 0, f32s)
	rr := Calls(b.Add("rr", "reduce", f32s, x, x), "to_apply", nil)
	b.Add("neg", "negate", f32s, rr)

	cs["fused"] = b.Computation("fused")
	f0 := b.Param("f0", 0, f32v)
	f1 := b.Add("f1", "broadcast", f32v, b.Param("f1p", 1, f32s))
	b.Add("fm", "multiply", f32v, f0, f1)

	cs["br0"] = b.Computation("br0")
	b.Param("y", 0, f32s)
	cs["br1"] = b.Computation("br1")
	b.Add("neg1", "negate", f32s, b.Param("z", 0, f32s))

	SetCallees(red, cs["sum"])
	SetCallees(w, cs["cond"], cs["body"])
	SetCallees(f, cs["fused"])
	SetCallees(cond, cs["br0"], cs["br1"])
	SetCallees(rr, cs["sum"])
	return b.Module(), cs
}

// CallsModule returns a module called "callsN" whose entry "main" calls n
// computations c0 ... c(n-1) through call instructions; each is a chain of
// size adds of f32[8] ending in a loop fusion of an exponential (fused0 ...).
// The computations are written callees first, the entry last.
func CallsModule(n, size int) *hlo.Module {
	f32v := hlo.MakeShape(hlo.F32, 8)
	b := NewBuilder(fmt.Sprintf("calls%d", n))
	var comps []*hlo.Computation
	for i := range n {
		fc := b.Computation(fmt.Sprintf("fused%d", i))
		b.Add("fe", "exponential", f32v, b.Param("fp", 0, f32v))
		c := b.Computation(fmt.Sprintf("c%d", i))
		x := b.Param("x", 0, f32v)
		cur := x
		for k := range size {
			cur = b.Add(fmt.Sprintf("v%d", k), "add", f32v, cur, x)
		}
		fus := Calls(b.Add("f", "fusion", f32v, cur), "calls", fc)
		fus.Attrs = append(fus.Attrs, hlo.Attribute{Name: "kind", Value: "kLoop"})
		comps = append(comps, c)
	}
	b.Entry("main")
	p := b.Param("p", 0, f32v)
	outs := make([]*hlo.Instruction, len(comps))
	shapes := make([]hlo.Shape, len(comps))
	for i, c := range comps {
		outs[i] = Calls(b.Add(fmt.Sprintf("call%d", i), "call", f32v, p), "to_apply", c)
		shapes[i] = f32v
	}
	b.Add("root", "tuple", hlo.MakeTupleShape(shapes...), outs...)
	return b.Module()
}

// Instruction returns the instruction of m named name, in any computation
// (HLO names are unique in a module), failing the test when there is none.
func Instruction(tb testing.TB, m *hlo.Module, name string) *hlo.Instruction {
	tb.Helper()
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Name == name {
				return in
			}
		}
	}
	require.Failf(tb, "instruction not found", "%s", name)
	return nil
}
