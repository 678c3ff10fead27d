package passes

import (
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// builder makes small modules in tests until they can be written as HLO
// text.
type builder struct {
	m   *hlo.Module
	cur *hlo.Computation
}

func newBuilder(name string) *builder { return &builder{m: &hlo.Module{Name: name}} }

func (b *builder) comp(name string) *hlo.Computation {
	c := &hlo.Computation{Name: name}
	b.m.Computations = append(b.m.Computations, c)
	b.cur = c
	return c
}

func (b *builder) entry(name string) *hlo.Computation {
	c := b.comp(name)
	c.IsEntry = true
	b.m.Entry = c
	return c
}

func (b *builder) add(name string, op hlo.Opcode, sh hlo.Shape, operands ...*hlo.Instruction) *hlo.Instruction {
	in := &hlo.Instruction{Name: name, Opcode: op, Shape: sh, Operands: operands, Parent: b.cur,
		Index: len(b.cur.Instructions), ParameterNumber: -1, Typed: hlo.NewTypedAttrs()}
	b.cur.Instructions = append(b.cur.Instructions, in)
	b.cur.Root = in
	return in
}

func (b *builder) param(name string, n int, sh hlo.Shape) *hlo.Instruction {
	in := b.add(name, "parameter", sh)
	in.ParameterNumber = n
	for len(b.cur.Params) <= n {
		b.cur.Params = append(b.cur.Params, nil)
	}
	b.cur.Params[n] = in
	return in
}

// calls records that in calls comps through attribute attr.
func calls(in *hlo.Instruction, attr string, comps ...*hlo.Computation) *hlo.Instruction {
	names := make([]string, 0, len(comps))
	for _, c := range comps {
		if c == nil {
			in.Attrs = append(in.Attrs, hlo.Attribute{Name: attr})
			return in // filled in later
		}
		names = append(names, c.Name)
	}
	v := strings.Join(names, ", ")
	if len(comps) > 1 || attr == "branch_computations" {
		v = "{" + v + "}"
	}
	in.Attrs = append(in.Attrs, hlo.Attribute{Name: attr, Value: v})
	in.Called = append(in.Called, comps...)
	return in
}

var (
	f32s = hlo.MakeShape(hlo.F32)
	f32v = hlo.MakeShape(hlo.F32, 8)
)
