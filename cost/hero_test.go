package cost

import (
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fuse wraps a fused computation in an entry fusion whose operands are new
// parameters of the fused computation's parameter shapes.
func fuse(t *testing.T, f *builder) *hlo.Instruction {
	e := newComp(t, "entry")
	var ops []*hlo.Instruction
	for i, p := range f.c.Params {
		ops = append(ops, e.add(p.Name, "parameter", p.Shape))
		ops[i].ParameterNumber = i
	}
	in := e.add("fusion", "fusion", f.c.Root.Shape, ops...)
	in.Typed.FusionKind = "kInput"
	return call(in, f.c)
}

func TestEmitterSelection(t *testing.T) {
	add := adder(t, "add", "f32")
	// sum adds r, the sum over dim of a parameter a of shape in.
	sum := func(f *builder, in, out string, dim int64) *hlo.Instruction {
		a := f.param(0, "a", in)
		c := f.op("c", "constant", "f32[]")
		return call(f.dims(f.op("r", "reduce", out, a, c), dim), add)
	}
	// transpose adds t, a transpose of a parameter a of shape in.
	transpose := func(f *builder, in, out string, perm ...int64) *hlo.Instruction {
		return f.dims(f.op("t", "transpose", out, f.param(0, "a", in)), perm...)
	}
	cases := []struct {
		name  string
		build func(f *builder)
		want  EmitterKind
	}{
		{"elementwise", func(f *builder) {
			a, b := f.param(0, "a", "f32[128,256]"), f.param(1, "b", "f32[128,256]")
			f.op("add", "add", "f32[128,256]", a, b)
		}, EmitterLoop},
		{"row reduction", func(f *builder) { sum(f, "f32[32,1024]", "f32[32]", 1) }, EmitterReduction},
		{"column reduction", func(f *builder) { sum(f, "f32[1024,64]", "f32[64]", 0) }, EmitterReduction},
		{"reduction with epilogue", func(f *builder) {
			f.op("neg", "negate", "f32[32]", sum(f, "f32[32,1024]", "f32[32]", 1))
		}, EmitterReduction},
		{"narrow row reduce is elemental", func(f *builder) { sum(f, "f32[100,3]", "f32[100]", 1) }, EmitterLoop},
		{"sub-byte output forces loop", func(f *builder) {
			f.op("cv", "convert", "s4[32]", sum(f, "f32[32,1024]", "f32[32]", 1))
		}, EmitterLoop},
		{"tiled transpose", func(f *builder) { transpose(f, "f32[64,128]", "f32[128,64]", 1, 0) }, EmitterTranspose},
		{"transpose behind elementwise", func(f *builder) {
			a := f.param(0, "a", "f32[64,128]")
			b := f.param(1, "b", "f32[128,64]")
			tr := f.dims(f.op("t", "transpose", "f32[128,64]", a), 1, 0)
			f.op("m", "multiply", "f32[128,64]", tr, b)
		}, EmitterTranspose},
		{"small transpose", func(f *builder) { transpose(f, "f32[4,8]", "f32[8,4]", 1, 0) }, EmitterLoop},
		{"transpose keeping the minor dim", func(f *builder) {
			transpose(f, "f32[64,128,32]", "f32[128,64,32]", 1, 0, 2)
		}, EmitterLoop},
		{"concatenate", func(f *builder) {
			a, b := f.param(0, "a", "f32[100]"), f.param(1, "b", "f32[200]")
			p := f.param(2, "p", "f32[300]")
			c := f.dims(f.op("c", "concatenate", "f32[300]", a, b), 0)
			f.op("sh", "shift-left", "f32[300]", c, p)
		}, EmitterConcatenate},
		{"concatenate of six in loop", func(f *builder) {
			var ops []*hlo.Instruction
			for i := range 6 {
				ops = append(ops, f.param(i, "p"+string(rune('0'+i)), "f32[10]"))
			}
			c := f.dims(f.op("c", "concatenate", "f32[60]", ops...), 0)
			q := f.param(6, "q", "f32[60]")
			f.op("m", "multiply", "f32[60]", c, q)
		}, EmitterLoop},
		{"input slices", func(f *builder) {
			a := f.param(0, "a", "f32[100]")
			s1 := f.slice(f.op("s1", "slice", "f32[50]", a), hlo.SliceDim{Start: 0, Limit: 50, Stride: 1})
			s2 := f.slice(f.op("s2", "slice", "f32[50]", a), hlo.SliceDim{Start: 50, Limit: 100, Stride: 1})
			f.add("t", "tuple", hlo.MakeTupleShape(s1.Shape, s2.Shape), s1, s2)
		}, EmitterInputSlices},
		{"multi-output loop", func(f *builder) {
			a := f.param(0, "a", "f32[100]")
			n := f.op("n", "negate", "f32[100]", a)
			e := f.op("e", "exponential", "f32[100]", a)
			f.add("t", "tuple", hlo.MakeTupleShape(n.Shape, e.Shape), n, e)
		}, EmitterLoop},
		{"scatter", func(f *builder) {
			op := f.param(0, "op", "f32[100,8]")
			idx := f.param(1, "idx", "s32[10,1]")
			upd := f.param(2, "upd", "f32[10,8]")
			call(f.op("s", "scatter", "f32[100,8]", op, idx, upd), add)
		}, EmitterScatter},
		{"in-place dynamic-update-slice", func(f *builder) {
			op := f.param(0, "op", "f32[100,8]")
			upd := f.param(1, "upd", "f32[10,8]")
			i := f.param(2, "i", "s32[]")
			f.op("dus", "dynamic-update-slice", "f32[100,8]", op, upd, i, i)
		}, EmitterDynamicUpdateSlice},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newComp(t, "fused")
			tc.build(f)
			a := AnalyzeFusion(fuse(t, f))
			assert.Equal(t, tc.want, a.Emitter, a.Reason)
			assert.NotEmpty(t, a.Reason)
		})
	}
}

func TestReductionKind(t *testing.T) {
	cases := []struct {
		in, out string
		dims    []int64
		want    ReductionDims
	}{
		{"f32[32,40]", "f32[32]", []int64{1}, ReductionDims{IsRow: true, Dims: [3]int64{1, 32, 40}}},
		{"f32[32,40]", "f32[40]", []int64{0}, ReductionDims{IsRow: false, Dims: [3]int64{1, 32, 40}}},
		{"f32[8,32,40]", "f32[32]", []int64{0, 2}, ReductionDims{IsRow: true, Dims: [3]int64{8, 32, 40}}},
		{"f32[8,32,40]", "f32[8,40]", []int64{1}, ReductionDims{IsRow: false, Dims: [3]int64{8, 32, 40}}},
		{"f32[8,32,40]", "f32[]", []int64{0, 1, 2}, ReductionDims{IsRow: true, Dims: [3]int64{1, 1, 8 * 32 * 40}}},
		{"f32[32,40]{0,1}", "f32[32]", []int64{1}, ReductionDims{IsRow: false, Dims: [3]int64{1, 40, 32}}},
	}
	for _, tc := range cases {
		b := newComp(t, "e")
		p := b.param(0, "p", tc.in)
		c := b.op("c", "constant", "f32[]")
		r := b.dims(b.op("r", "reduce", tc.out, p, c), tc.dims...)
		assert.Equal(t, tc.want, ReductionKind(r), "%s dims=%v", tc.in, tc.dims)
	}
}

func TestHeroThroughElementwise(t *testing.T) {
	f := newComp(t, "fused")
	a := f.param(0, "a", "f32[10]")
	b := f.param(1, "b", "f32[20]")
	p := f.param(2, "p", "f32[30]")
	c := f.dims(f.op("c", "concatenate", "f32[30]", a, b), 0)
	f.op("m", "multiply", "f32[30]", c, p)
	fu := fuse(t, f)
	an := AnalyzeFusion(fu)
	require.Len(t, an.Heroes, 1)
	assert.Equal(t, "c", an.Heroes[0].Name)
}
