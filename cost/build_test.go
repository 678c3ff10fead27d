package cost

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/stretchr/testify/require"
)

// Until the HLO parser lands, tests build modules with this small builder.

// shape parses "f32[3,4]" or "f32[3,4]{0,1}" (no tuples, no tiles).
func shape(t testing.TB, s string) hlo.Shape {
	t.Helper()
	open := strings.IndexByte(s, '[')
	require.Positive(t, open, s)
	ty, ok := hlo.LookupPrimitiveType(s[:open])
	require.True(t, ok, s)
	close := strings.IndexByte(s, ']')
	var dims []int64
	if inner := s[open+1 : close]; inner != "" {
		for _, f := range strings.Split(inner, ",") {
			v, err := strconv.ParseInt(f, 10, 64)
			require.NoError(t, err, s)
			dims = append(dims, v)
		}
	}
	rest := s[close+1:]
	if rest == "" {
		return hlo.MakeShape(ty, dims...)
	}
	require.True(t, strings.HasPrefix(rest, "{") && strings.HasSuffix(rest, "}"), s)
	var m2m []int64
	if inner := rest[1 : len(rest)-1]; inner != "" {
		for _, f := range strings.Split(inner, ",") {
			v, err := strconv.ParseInt(f, 10, 64)
			require.NoError(t, err, s)
			m2m = append(m2m, v)
		}
	}
	return hlo.MakeShapeWithLayout(ty, dims, m2m)
}

type builder struct {
	t testing.TB
	c *hlo.Computation
}

func newComp(t testing.TB, name string) *builder {
	return &builder{t: t, c: &hlo.Computation{Name: name}}
}

func (b *builder) add(name string, opcode string, sh hlo.Shape, ops ...*hlo.Instruction) *hlo.Instruction {
	in := &hlo.Instruction{Name: name, Opcode: hlo.Opcode(opcode), Shape: sh, Operands: ops,
		ParameterNumber: -1, Parent: b.c, Index: len(b.c.Instructions), Typed: hlo.NewTypedAttrs()}
	b.c.Instructions = append(b.c.Instructions, in)
	b.c.Root = in
	return in
}

func (b *builder) op(name, opcode, sh string, ops ...*hlo.Instruction) *hlo.Instruction {
	return b.add(name, opcode, shape(b.t, sh), ops...)
}

func (b *builder) param(n int, name, sh string) *hlo.Instruction {
	in := b.op(name, "parameter", sh)
	in.ParameterNumber = n
	for len(b.c.Params) <= n {
		b.c.Params = append(b.c.Params, nil)
	}
	b.c.Params[n] = in
	return in
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
