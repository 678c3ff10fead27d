package cost

import (
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/stretchr/testify/require"
)

// shape parses a shape such as "f32[3,4]" or "f32[3,4]{0,1}".
func shape(t testing.TB, s string) hlo.Shape {
	t.Helper()
	sh, err := hlo.ParseShape(s)
	require.NoError(t, err, s)
	return sh
}

// builder adds to one computation, through hlotest.Builder, with shapes
// given as text.
type builder struct {
	t testing.TB
	b *hlotest.Builder
	c *hlo.Computation
}

func newComp(t testing.TB, name string) *builder {
	b := hlotest.NewBuilder("m")
	return &builder{t: t, b: b, c: b.Computation(name)}
}

func (b *builder) add(name string, opcode string, sh hlo.Shape, ops ...*hlo.Instruction) *hlo.Instruction {
	return b.b.Add(name, hlo.Opcode(opcode), sh, ops...)
}

func (b *builder) op(name, opcode, sh string, ops ...*hlo.Instruction) *hlo.Instruction {
	return b.add(name, opcode, shape(b.t, sh), ops...)
}

func (b *builder) param(n int, name, sh string) *hlo.Instruction {
	return b.b.Param(name, n, shape(b.t, sh))
}

func (b *builder) dims(in *hlo.Instruction, d ...int64) *hlo.Instruction {
	in.Typed.Dimensions = d
	return in
}

func (b *builder) slice(in *hlo.Instruction, s ...hlo.SliceDim) *hlo.Instruction {
	in.Typed.Slice = s
	return in
}

func (b *builder) root(in *hlo.Instruction) *hlo.Computation {
	b.c.Root = in
	return b.c
}

// call makes in call c.
func call(in *hlo.Instruction, c *hlo.Computation) *hlo.Instruction {
	in.Called = append(in.Called, c)
	return in
}

// fusion adds a fusion instruction calling fused.
func (b *builder) fusion(name, sh string, fused *hlo.Computation, ops ...*hlo.Instruction) *hlo.Instruction {
	in := b.op(name, "fusion", sh, ops...)
	in.Typed.FusionKind = "kLoop"
	in.Attrs = append(in.Attrs, hlo.Attribute{Name: "kind", Value: "kLoop"}, hlo.Attribute{Name: "calls", Value: fused.Name})
	return call(in, fused)
}

// fusedIn adds to a new entry computation "e" a fusion name of shape sh
// calling b's computation, with a parameter of e for each name and shape
// pair of params as its operands, and returns the fusion.
func (b *builder) fusedIn(name, sh string, params ...string) *hlo.Instruction {
	e := newComp(b.t, "e")
	ops := make([]*hlo.Instruction, 0, len(params)/2)
	for i := 0; i+1 < len(params); i += 2 {
		ops = append(ops, e.param(i/2, params[i], params[i+1]))
	}
	return e.fusion(name, sh, b.c, ops...)
}

// module wraps computations, the entry last.
func module(comps ...*hlo.Computation) *hlo.Module {
	m := &hlo.Module{Name: "m", Computations: comps, Entry: comps[len(comps)-1]}
	m.Entry.IsEntry = true
	return m
}

// addS8 returns a scalar add reducer of the given type.
func adder(t testing.TB, name, ty string) *hlo.Computation {
	b := newComp(t, name)
	x := b.param(0, "x", ty+"[]")
	y := b.param(1, "y", ty+"[]")
	return b.root(b.op("add", "add", ty+"[]", x, y))
}
