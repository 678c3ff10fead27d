package passes

import (
	"fmt"

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
	cp := b.param("c", 0, f32s)
	b.add("lt", "compare", hlo.MakeShape(hlo.PRED), cp, cp)

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

// callModule has an entry calling n computations (each a small elementwise
// chain with a fusion) through call instructions.
func callModule(n, size int) *hlo.Module {
	b := newBuilder(fmt.Sprintf("calls%d", n))
	var comps []*hlo.Computation
	for i := range n {
		fc := b.comp(fmt.Sprintf("fused%d", i))
		fp := b.param("fp", 0, f32v)
		b.add("fe", "exponential", f32v, fp)
		c := b.comp(fmt.Sprintf("c%d", i))
		x := b.param("x", 0, f32v)
		cur := x
		for k := range size {
			cur = b.add(fmt.Sprintf("v%d", k), "add", f32v, cur, x)
		}
		calls(b.add("f", "fusion", f32v, cur), "calls", fc).Attrs = append(b.cur.Root.Attrs, hlo.Attribute{Name: "kind", Value: "kLoop"})
		comps = append(comps, c)
	}
	b.entry("main")
	p := b.param("p", 0, f32v)
	var outs []*hlo.Instruction
	for i, c := range comps {
		outs = append(outs, calls(b.add(fmt.Sprintf("call%d", i), "call", f32v, p), "to_apply", c))
	}
	shapes := make([]hlo.Shape, len(outs))
	for i := range shapes {
		shapes[i] = f32v
	}
	b.add("root", "tuple", hlo.MakeTupleShape(shapes...), outs...)
	return b.m
}
