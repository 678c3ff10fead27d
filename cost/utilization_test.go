package cost

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The worked examples of xla/service/gpu/model/gpu_hlo_cost_analysis_test.cc
// (SEMANTICS b.2), rebuilt with the test builder.

func TestUtilizationBroadcastWithRepeats(t *testing.T) {
	f := newComp(t, "f")
	p1 := f.param(0, "p1", "s8[]")
	c1 := f.op("c1", "constant", "s8[]")
	a1 := f.op("a1", "add", "s8[]", p1, c1)
	b1 := f.op("b1", "broadcast", "s8[10000]", a1)
	b2 := f.op("b2", "broadcast", "s8[10000]", c1)
	f.op("r1", "add", "s8[10000]", b1, b2)
	e := newComp(t, "e")
	p0 := e.param(0, "p0", "s8[]")
	r0 := e.fusion("r0", "s8[10000]", f.c, p0)

	c := NewCosts()
	got := c.Of(r0)
	assert.Equal(t, int64(10000), got.OutputBytes)
	assert.Equal(t, int64(10000), got.Operands[0].BytesAccessed)
	assert.InDelta(t, 10000, got.Operands[0].Utilization, 1e-9)
	assert.Equal(t, int64(20000), got.BytesAccessed)
}

func TestUtilizationWithoutRepeats(t *testing.T) {
	f := newComp(t, "f")
	p1 := f.param(0, "p1", "s8[]")
	a1 := f.op("a1", "add", "s8[]", p1, p1)
	b1 := f.op("b1", "broadcast", "s8[10000]", a1)
	a2 := f.op("a2", "add", "s8[10000]", b1, b1)
	s1 := f.slice(f.op("slice1", "slice", "s8[8000]", a2), hlo.SliceDim{Start: 0, Limit: 8000, Stride: 1})
	s2 := f.slice(f.op("slice2", "slice", "s8[8000]", a2), hlo.SliceDim{Start: 2000, Limit: 10000, Stride: 1})
	cst := f.op("c", "constant", "s8[10000]")
	sc1 := f.slice(f.op("slicec1", "slice", "s8[8000]", cst), hlo.SliceDim{Start: 0, Limit: 8000, Stride: 1})
	sc2 := f.slice(f.op("slicec2", "slice", "s8[8000]", cst), hlo.SliceDim{Start: 2000, Limit: 10000, Stride: 1})
	a3 := f.op("a3", "add", "s8[8000]", s1, s2)
	a4 := f.op("a4", "add", "s8[8000]", sc1, sc2)
	f.op("a5", "add", "s8[8000]", a3, a4)
	r0 := f.fusedIn("r0", "s8[8000]", "p0", "s8[]")

	c := NewCosts()
	c.CountMultipleInputAccesses = false
	got := c.Of(r0)
	assert.Equal(t, int64(8000), got.OutputBytes)
	assert.Equal(t, int64(1), got.Operands[0].BytesAccessed)
	assert.InDelta(t, 2, got.Operands[0].Utilization, 1e-9, "1.6 uses of a scalar round up to 2; capped at 1 only for bytes")
	assert.Equal(t, int64(1+8000+10000), got.BytesAccessed)
}

func TestUtilizationBroadcastFlops(t *testing.T) {
	f := newComp(t, "f")
	i0 := f.op("i0", "iota", "f32[1024]")
	m0 := f.op("m0", "add", "f32[1024]", i0, i0)
	s0 := f.op("s0", "multiply", "f32[1024]", m0, m0)
	b0 := f.dims(f.op("b0", "broadcast", "f32[1024,1024]", s0), 0)
	f.op("r0", "negate", "f32[1024,1024]", b0)
	r := f.fusedIn("r", "f32[1024,1024]")

	got := NewCosts().Of(r)
	n := int64(1024 * 1024)
	assert.Equal(t, n*4, got.OutputBytes)
	assert.Equal(t, n*4, got.BytesAccessed)
	assert.InDelta(t, float64(n*3*3), got.Flops, 0.5)
}

func TestUtilizationSlice(t *testing.T) {
	f := newComp(t, "f")
	p1 := f.param(0, "p1", "s8[100000000]")
	i1 := f.op("i1", "iota", "s8[100000000]")
	a1 := f.op("a1", "add", "s8[100000000]", p1, i1)
	f.slice(f.op("r1", "slice", "s8[1]", a1), hlo.SliceDim{Start: 0, Limit: 1, Stride: 1})
	r0 := f.fusedIn("r0", "s8[1]", "p0", "s8[100000000]")

	got := NewCosts().Of(r0)
	assert.Equal(t, int64(1), got.OutputBytes)
	assert.Equal(t, int64(1), got.Operands[0].BytesAccessed)
	assert.InDelta(t, 1e-8, got.Operands[0].Utilization, 1e-15)
	assert.Equal(t, int64(2), got.BytesAccessed)
}

func TestUtilizationTwoSlices(t *testing.T) {
	f := newComp(t, "f")
	p1 := f.param(0, "p1", "s8[100]")
	i1 := f.op("i1", "iota", "s8[100]")
	a1 := f.op("a1", "add", "s8[100]", p1, i1)
	s1 := f.slice(f.op("slice1", "slice", "s8[1]", a1), hlo.SliceDim{Start: 0, Limit: 1, Stride: 1})
	s2 := f.slice(f.op("slice2", "slice", "s8[1]", a1), hlo.SliceDim{Start: 3, Limit: 4, Stride: 1})
	f.op("r", "add", "s8[1]", s1, s2)
	r0 := f.fusedIn("r0", "s8[1]", "p0", "s8[100]")

	got := NewCosts().Of(r0)
	assert.Equal(t, int64(1), got.OutputBytes)
	assert.Equal(t, int64(2), got.Operands[0].BytesAccessed)
	assert.Equal(t, int64(3), got.BytesAccessed)
}

func TestUtilizationMultipleTrivialUsers(t *testing.T) {
	f := newComp(t, "f")
	p0 := f.param(0, "p0", "s8[]")
	m0 := f.op("m0", "multiply", "s8[]", p0, p0)
	n0 := f.op("n0", "negate", "s8[]", p0)
	f.op("a0", "add", "s8[]", m0, n0)
	r0 := f.fusedIn("r0", "s8[]", "param0", "s8[]")

	got := NewCosts().Of(r0)
	assert.Equal(t, int64(1), got.OutputBytes)
	assert.Equal(t, int64(1), got.Operands[0].BytesAccessed)
	assert.Equal(t, int64(2), got.BytesAccessed)
}

func TestUtilizationMixedUsers(t *testing.T) {
	f := newComp(t, "f")
	p0 := f.param(0, "p0", "s8[10]")
	n0 := f.op("n0", "negate", "s8[10]", p0)
	m0 := f.op("m0", "multiply", "s8[10]", n0, n0)
	a0 := f.op("a0", "add", "s8[10]", n0, n0)
	s0 := f.slice(f.op("s0", "slice", "s8[5]", a0), hlo.SliceDim{Start: 0, Limit: 5, Stride: 1})
	sv := f.slice(f.op("svar1", "slice", "s8[2]", n0), hlo.SliceDim{Start: 4, Limit: 6, Stride: 1})
	n1 := f.op("n1", "negate", "s8[2]", sv)
	f.dims(f.op("c0", "concatenate", "s8[17]", s0, m0, n1), 0)
	r0 := f.fusedIn("r0", "s8[17]", "param0", "s8[10]")

	got := NewCosts().Of(r0)
	assert.Equal(t, int64(17), got.OutputBytes)
	assert.Equal(t, int64(17), got.Operands[0].BytesAccessed, "1 + 0.5 + 0.2 of s8[10]")
	assert.InDelta(t, 1.7, got.Operands[0].Utilization, 1e-9)
	assert.Equal(t, int64(34), got.BytesAccessed)
}

func TestUtilizationFractionalUseRoundingUp(t *testing.T) {
	add := adder(t, "add_s8", "s8")
	f := newComp(t, "f")
	p0 := f.param(0, "p0", "s8[]")
	b0 := f.op("b0", "broadcast", "s8[10]", p0)
	c0 := f.op("c0", "constant", "s8[]")
	r0 := call(f.dims(f.op("r0", "reduce", "s8[]", b0, c0), 0), add)
	bc := f.op("bitcast0", "bitcast", "s8[1]", r0)
	i0 := f.op("i0", "iota", "s8[5]")
	cat := f.dims(f.op("cat0", "concatenate", "s8[6]", bc, i0), 0)
	p1 := f.param(1, "p1", "s32[]")
	ds := f.op("s0", "dynamic-slice", "s8[2]", cat, p1)
	ds.Typed.DynamicSliceSizes = []int64{2}
	r := f.fusedIn("r", "s8[2]", "p0", "s8[]", "p1", "s32[]")

	got := NewCosts().Of(r)
	assert.Equal(t, int64(2), got.OutputBytes)
	assert.Equal(t, int64(10), got.Operands[0].BytesAccessed, "1/3 use of a 1-element bitcast rounds up to a whole element")
	assert.Equal(t, int64(4), got.Operands[1].BytesAccessed)
	assert.Equal(t, int64(16), got.BytesAccessed)
}

func TestUtilizationLargeConstant(t *testing.T) {
	f := newComp(t, "f")
	p0 := f.param(0, "p0", "s8[1000]")
	c0 := f.op("c0", "constant", "s8[1000]")
	f.op("a0", "add", "s8[1000]", p0, c0)
	r := f.fusedIn("r", "s8[1000]", "p0", "s8[1000]")

	got := NewCosts().Of(r)
	assert.Equal(t, int64(1000), got.OutputBytes)
	assert.Equal(t, int64(1000), got.Operands[0].BytesAccessed)
	assert.Equal(t, int64(1000), got.ConstantBytes)
	assert.Equal(t, int64(3000), got.BytesAccessed)
}

func dusFusion(t *testing.T, atRoot bool) *hlo.Instruction {
	f := newComp(t, "f")
	tu := f.param(0, "to_update", "s8[3,1,1,1]")
	upd := f.op("update", "constant", "s8[1,1,1,1]")
	a := f.op("a", "constant", "s32[]")
	dus := f.op("dus", "dynamic-update-slice", "s8[3,1,1,1]", tu, upd, a, a, a, a)
	if !atRoot {
		f.op("neg", "negate", "s8[3,1,1,1]", dus)
	}
	return f.fusedIn("fusion", "s8[3,1,1,1]", "to_update", "s8[3,1,1,1]")
}

func TestUtilizationDynUpdateSlice(t *testing.T) {
	got := NewCosts().Of(dusFusion(t, false))
	assert.Equal(t, int64(2), got.Operands[0].BytesAccessed, "input size minus update size")
	assert.Equal(t, int64(3), got.OutputBytes)

	got = NewCosts().Of(dusFusion(t, true))
	assert.Equal(t, int64(0), got.Operands[0].BytesAccessed, "a root DUS updates in place")
	assert.Equal(t, int64(1), got.OutputBytes)
}

func TestUtilizationReduce(t *testing.T) {
	add := adder(t, "add", "f32")
	e := newComp(t, "e")
	p := e.param(0, "param_0.3", "f32[32,40]{1,0}")
	c := e.op("constant", "constant", "f32[]")
	r := call(e.dims(e.op("reduce", "reduce", "f32[32]{0}", p, c), 1), add)

	got := NewCosts().Of(r)
	assert.Equal(t, int64(4*32*40), got.Operands[0].BytesAccessed)
	assert.Equal(t, int64(4*32), got.Operands[1].BytesAccessed)
	assert.Equal(t, int64(4*32), got.OutputBytes)
	assert.Equal(t, int64(4*32*40+4*32+4*32), got.BytesAccessed)
	assert.InDelta(t, 32*39*3, got.Flops, 0.5)
}

func TestUtilizationVariadicReduce(t *testing.T) {
	b := newComp(t, "add")
	p0, p1 := b.param(0, "p0", "f32[]"), b.param(1, "p1", "f32[]")
	p2, p3 := b.param(2, "p2", "f32[]"), b.param(3, "p3", "f32[]")
	a0 := b.op("add.0", "add", "f32[]", p0, p2)
	a1 := b.op("add.1", "add", "f32[]", p1, p3)
	b.add("t", "tuple", hlo.MakeTupleShape(a0.Shape, a1.Shape), a0, a1)
	e := newComp(t, "e")
	x, y := e.param(0, "x", "f32[32,40]{1,0}"), e.param(1, "y", "f32[32,40]{1,0}")
	z, c := e.param(2, "z", "f32[]"), e.op("constant", "constant", "f32[]")
	out := shape(t, "f32[32]{0}")
	r := call(e.dims(e.add("reduce", "reduce", hlo.MakeTupleShape(out, out), x, y, z, c), 1), b.c)

	got := NewCosts().Of(r)
	in, init := int64(4*32*40), int64(4*32)
	assert.Equal(t, in, got.Operands[0].BytesAccessed)
	assert.Equal(t, in, got.Operands[1].BytesAccessed)
	assert.Equal(t, init, got.Operands[2].BytesAccessed)
	assert.Equal(t, init, got.Operands[3].BytesAccessed)
	assert.Equal(t, int64(2*4*32), got.OutputBytes)
	assert.Equal(t, 2*in+2*init+2*4*32, got.BytesAccessed)
	assert.InDelta(t, 32*39*6, got.Flops, 0.5)
}

func TestUtilizationReduceWindow(t *testing.T) {
	add := adder(t, "add", "f32")
	e := newComp(t, "e")
	p := e.param(0, "p0", "f32[8,8]")
	c := e.op("c0", "constant", "f32[]")
	rw := call(e.op("rw", "reduce-window", "f32[3,4]", p, c), add)
	rw.Typed.Window = []hlo.WindowDim{{Size: 4, Stride: 2, BaseDilation: 1, WindowDilation: 1}, {Size: 5, Stride: 1, BaseDilation: 1, WindowDilation: 1}}

	got := NewCosts().Of(rw)
	n := int64(12)
	assert.InDelta(t, float64(3*n*(4*5-1)), got.Flops, 0.5)
	assert.Equal(t, 4*n*4*5, got.Operands[0].BytesAccessed, "960 bytes: every window read independently")
	assert.Equal(t, int64(4), got.Operands[1].BytesAccessed)
	assert.Equal(t, 4*n, got.OutputBytes)
	assert.Equal(t, 4*(8*8+1+n), got.BytesAccessed, "XLA keeps the default total")
}

func TestUtilizationConvCustomCall(t *testing.T) {
	e := newComp(t, "e")
	p0 := e.param(0, "p0", "s8[128,12,24,24,4]")
	p1 := e.param(1, "p1", "s8[16,12,5,5,4]")
	p2 := e.param(2, "p2", "f32[16]")
	conv := e.add("conv1", "custom-call", hlo.MakeTupleShape(shape(t, "s8[128,4,24,24,4]"), shape(t, "u8[0]")), p0, p1, p2)
	conv.Attrs = []hlo.Attribute{{Name: "custom_call_target", Value: `"__cudnn$convBiasActivationForward"`}}
	conv.Typed.Conv = &hlo.ConvDims{InputBatch: 0, InputFeature: 1, InputSpatial: []int64{2, 3},
		KernelOutputFeature: 0, KernelInputFeature: 1, KernelSpatial: []int64{2, 3},
		OutputBatch: 0, OutputFeature: 1, OutputSpatial: []int64{2, 3}}
	conv.Typed.Window = []hlo.WindowDim{{Size: 5, Stride: 1, PadLow: 2, PadHigh: 2, BaseDilation: 1, WindowDilation: 1},
		{Size: 5, Stride: 1, PadLow: 2, PadHigh: 2, BaseDilation: 1, WindowDilation: 1}}

	got := NewCosts().Of(conv)
	assert.InDelta(t, 159694848, got.Flops, 0.5)
	out := int64(128 * 4 * 24 * 24 * 4)
	assert.Equal(t, out, got.OutputBytes)
	assert.Equal(t, int64(128*12*24*24*4)+int64(16*12*5*5*4)+int64(4*16)+out, got.BytesAccessed)
}

func TestShapeBytesSubByte(t *testing.T) {
	s := shape(t, "s4[3]")
	require.Equal(t, int64(2), ShapeBytes(&s), "three 4-bit elements pack into 2 bytes")
	tu := hlo.MakeTupleShape(shape(t, "f32[3,2]"), shape(t, "f32[3,2]"))
	assert.Equal(t, int64(16), ShapeBytes(&tu), "a tuple is its index table")
	assert.Equal(t, int64(48), arrayBytes(&tu))
}

// appendG prints what %.6g prints: whole numbers of up to six digits (its
// shortcut) and past them, fractions, signed zeros, infinities and NaN.
func TestAppendG(t *testing.T) {
	values := []float64{0, math.Copysign(0, -1), 1, -1, 3, 999999, -999999, 1e6, -1e6, 1234567, 0.5, -0.25, 1.0000001,
		262144, 2.5e-7, 1e21, 123456.5, math.MaxInt64, math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64}
	r := rand.New(rand.NewPCG(25, 29))
	for range 2000 {
		values = append(values, float64(r.Int64N(4e6)-2e6), r.NormFloat64()*math.Pow(10, float64(r.IntN(30)-15)))
	}
	for _, v := range values {
		assert.Equal(t, fmt.Sprintf("%.6g", v), string(appendG(nil, v)), "%v", v)
	}
}
