package cost

import (
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The heuristic tests of coalescing_analysis_test.cc: a transpose of the
// minor dimension breaks coalescing unless it transposes a broadcast or an
// iota; all fusions end in a slice so that the loop emitter is chosen.
func TestHeuristicTransposes(t *testing.T) {
	cases := []struct {
		name string
		src  func(f *builder) string
		want bool
	}{
		{"transpose of broadcast", func(f *builder) string {
			p := f.param(0, "p", "f32[32]")
			f.dims(f.op("b", "broadcast", "f32[32,48]", p), 0)
			return "b"
		}, true},
		{"transpose of iota", func(f *builder) string {
			f.param(0, "p", "f32[32]")
			f.op("i", "iota", "f32[32,48]").Typed.IotaDimension = 0
			return "i"
		}, true},
		{"transpose of add", func(f *builder) string {
			p := f.param(0, "p", "f32[32,48]")
			f.op("a", "add", "f32[32,48]", p, p)
			return "a"
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newComp(t, "fused")
			srcName := tc.src(f)
			src := f.c.Root
			require.Equal(t, srcName, src.Name)
			tr := f.dims(f.op("t", "transpose", "f32[48,32]", src), 1, 0)
			f.slice(f.op("s", "slice", "f32[8,32]", tr))
			fu := fuse(t, f)
			a := AnalyzeFusion(fu)
			require.Equal(t, EmitterLoop, a.Emitter)
			got := a.Coalescing(Heuristic, nil)
			require.Len(t, got, 1)
			assert.Equal(t, tc.want, got[0].Coalesced, got[0].Reason)
			assert.Contains(t, got[0].Reason, "heuristic")
		})
	}
}

func TestHeuristicTransposeEmitterIsExempt(t *testing.T) {
	f := newComp(t, "fused")
	p := f.param(0, "p", "f32[64,128]")
	f.dims(f.op("t", "transpose", "f32[128,64]", p), 1, 0)
	a := AnalyzeFusion(fuse(t, f))
	require.Equal(t, EmitterTranspose, a.Emitter)
	got := a.Coalescing(Heuristic, nil)
	assert.True(t, got[0].Coalesced)
	assert.Contains(t, got[0].Reason, "shared memory")
}

func TestTransposesMinorDimension(t *testing.T) {
	b := newComp(t, "e")
	p := b.param(0, "p", "f32[64,128]")
	assert.True(t, TransposesMinorDimension(b.dims(b.op("t", "transpose", "f32[128,64]", p), 1, 0)))
	q := b.param(1, "q", "f32[1,64,128]")
	assert.False(t, TransposesMinorDimension(b.dims(b.op("t2", "transpose", "f32[64,1,128]", q), 1, 0, 2)))
	assert.True(t, TransposesMinorDimension(b.op("c", "copy", "f32[64,128]{0,1}", p)))
	assert.False(t, TransposesMinorDimension(b.op("c2", "copy", "f32[64,128]{1,0}", p)))
	r := b.param(2, "r", "f32[64,1]")
	assert.False(t, TransposesMinorDimension(b.dims(b.op("t3", "transpose", "f32[1,64]", r), 1, 0)), "size-1 dims do not count")
}

func TestHeuristicFusedReductions(t *testing.T) {
	add := adder(t, "add", "f32")
	mk := func(name string) *builder {
		f := newComp(t, name)
		a := f.param(0, "a", "f32[32,1024]")
		c := f.op("c", "constant", "f32[]")
		call(f.dims(f.op("r", "reduce", "f32[32]", a, c), 1), add)
		return f
	}
	prod, cons := fuse(t, mk("p")), fuse(t, mk("c"))
	ok, why := HeuristicCoalesced(EmitterReduction, prod, cons)
	assert.False(t, ok)
	assert.Contains(t, why, "two row reductions")
	ok, _ = HeuristicCoalesced(EmitterReduction, prod, nil)
	assert.True(t, ok)
}

func indexingVerdicts(t *testing.T, f *builder) ([]OperandCoalescing, *FusionAnalysis) {
	t.Helper()
	d := h100(t)
	a := AnalyzeFusion(fuse(t, f))
	return a.Coalescing(Indexing, &d), a
}

func TestIndexingCoalescingLoop(t *testing.T) {
	f := newComp(t, "fused")
	p0 := f.param(0, "p0", "f32[1024,1024]{0,1}")
	p1 := f.param(1, "p1", "f32[1024,1024]{1,0}")
	s := f.param(2, "s", "f32[]")
	b := f.op("b", "broadcast", "f32[1024,1024]", s)
	a := f.op("a", "add", "f32[1024,1024]{1,0}", p0, p1)
	f.op("m", "multiply", "f32[1024,1024]{1,0}", a, b)
	got, an := indexingVerdicts(t, f)
	require.Equal(t, EmitterLoop, an.Emitter)
	require.Len(t, got, 3)
	assert.False(t, got[0].Coalesced, got[0].Reason)
	assert.Contains(t, got[0].Reason, "indexing:")
	assert.True(t, got[1].Coalesced, got[1].Reason)
	assert.Contains(t, got[1].Reason, "1 runs")
	assert.True(t, got[2].Coalesced)
	assert.Equal(t, "scalar operand", got[2].Reason)
}

func TestIndexingCoalescingReductions(t *testing.T) {
	add := adder(t, "add", "f32")
	for _, tc := range []struct {
		name, in, out string
		dim           int64
		note          string
	}{
		{"row", "f32[32,1024]", "f32[32]", 1, "row reduction"},
		{"multi-row", "f32[4096,16]", "f32[4096]", 1, "multi-row reduction"},
		{"column", "f32[1024,64]", "f32[64]", 0, "column reduction"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newComp(t, "fused")
			p := f.param(0, "p", tc.in)
			c := f.param(1, "c", "f32[]")
			n := f.op("n", "negate", tc.in, p)
			call(f.dims(f.op("r", "reduce", tc.out, n, c), tc.dim), add)
			got, an := indexingVerdicts(t, f)
			require.Equal(t, EmitterReduction, an.Emitter)
			d := h100(t)
			assert.Equal(t, tc.note, an.Launch(&d).Note)
			assert.True(t, got[0].Coalesced, got[0].Reason)
			assert.Contains(t, got[0].Reason, "indexing:")
			assert.Equal(t, "scalar operand", got[1].Reason)
		})
	}
}

func TestIndexingCoalescingTranspose(t *testing.T) {
	f := newComp(t, "fused")
	p := f.param(0, "p", "f32[64,128]")
	f.dims(f.op("t", "transpose", "f32[128,64]", p), 1, 0)
	got, an := indexingVerdicts(t, f)
	require.Equal(t, EmitterTranspose, an.Emitter)
	assert.True(t, got[0].Coalesced, got[0].Reason)
	assert.Contains(t, got[0].Reason, "thread stride 1")
}

func TestIndexingCoalescingThroughSlice(t *testing.T) {
	f := newComp(t, "fused")
	p := f.param(0, "p", "f32[100]")
	f.slice(f.op("s", "slice", "f32[50]", p), hlo.SliceDim{Start: 0, Limit: 50, Stride: 1})
	got, _ := indexingVerdicts(t, f)
	assert.True(t, got[0].Coalesced)
	assert.Contains(t, got[0].Reason, "indexing: thread stride 1")
}

func TestIndexingCoalescingFallsBackWithoutThreadMaps(t *testing.T) {
	f := newComp(t, "fused")
	a, b := f.param(0, "a", "f32[100]"), f.param(1, "b", "f32[200]")
	f.dims(f.op("c", "concatenate", "f32[300]", a, b), 0)
	got, an := indexingVerdicts(t, f)
	require.Equal(t, EmitterConcatenate, an.Emitter)
	assert.True(t, got[0].Coalesced)
	assert.Contains(t, got[0].Reason, "heuristic fallback")
}
