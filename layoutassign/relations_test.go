package layoutassign

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest/hlogen"
)

func TestReshapeLayout(t *testing.T) {
	tests := []struct {
		name          string
		from, fromM2M []int64
		to, want      []int64
		ok            bool
	}{
		{"merge row-major", []int64{8, 16, 128}, []int64{2, 1, 0}, []int64{128, 128}, []int64{1, 0}, true},
		{"split row-major", []int64{128, 128}, []int64{1, 0}, []int64{8, 16, 128}, []int64{2, 1, 0}, true},
		// Dim 0 minor: the merged group [8,16] is not contiguous in order.
		{"merge needs order", []int64{8, 16, 128}, []int64{0, 2, 1}, []int64{128, 128}, nil, false},
		// Groups keep the source's physical order: [4,6] transposed.
		{"groups permuted", []int64{4, 2, 3}, []int64{0, 2, 1}, []int64{4, 6}, []int64{0, 1}, true},
		// Size-1 dims go most major.
		{"degenerate", []int64{8, 128}, []int64{1, 0}, []int64{8, 1, 128}, []int64{2, 0, 1}, true},
		{"count mismatch", []int64{8, 128}, []int64{1, 0}, []int64{7, 128}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := reshapeLayout(tc.from, tc.fromM2M, tc.to)
			assert.Equal(t, tc.ok, ok)
			if tc.ok {
				assert.Equal(t, tc.want, got)
				from := hlo.MakeShapeWithLayout(hlo.F32, tc.from, tc.fromM2M)
				assert.True(t, IsBitcastReshape(from, hlo.MakeShapeWithLayout(hlo.F32, tc.to, got)))
			}
		})
	}
}

func TestTransposeLayouts(t *testing.T) {
	perm := []int64{2, 0, 1} // result dim j = operand dim perm[j]
	out, ok := transposeOutputLayout(perm, []int64{2, 1, 0})
	assert.True(t, ok)
	assert.Equal(t, []int64{0, 2, 1}, out)
	back, ok := transposeOperandLayout(perm, out)
	assert.True(t, ok)
	assert.Equal(t, []int64{2, 1, 0}, back)
	op := WithTiling(hlo.MakeShapeWithLayout(hlo.F32, []int64{8, 16, 128}, []int64{2, 1, 0}), TPU())
	free := WithTiling(hlo.MakeShapeWithLayout(hlo.F32, []int64{128, 8, 16}, out), TPU())
	costly := WithTiling(hlo.MakeShapeWithLayout(hlo.F32, []int64{128, 8, 16}, []int64{2, 1, 0}), TPU())
	assert.True(t, IsBitcastTranspose(op, free, perm))
	assert.False(t, IsBitcastTranspose(op, costly, perm))
	_, ok = transposeOutputLayout([]int64{0, 0}, []int64{1, 0})
	assert.False(t, ok)
}

func TestTiledBitcastNeedsWholeTileRows(t *testing.T) {
	// [8,16,128] -> [128,128] under (8,128): 16 rows are whole tiles, free.
	a := WithTiling(hlo.MakeShape(hlo.F32, 8, 16, 128), TPU())
	b := WithTiling(hlo.MakeShape(hlo.F32, 128, 128), TPU())
	assert.True(t, IsBitcastReshape(a, b))
	// [32,4,128] -> [128,128]: 4 rows use (4,128) tiles, not (8,128).
	c := WithTiling(hlo.MakeShape(hlo.F32, 32, 4, 128), TPU())
	assert.False(t, IsBitcastReshape(c, b))
	// Untiled both: only the element order matters.
	assert.True(t, IsBitcastReshape(hlo.MakeShape(hlo.F32, 32, 4, 128), hlo.MakeShape(hlo.F32, 128, 128)))
}

func TestReduceAndBroadcastLayouts(t *testing.T) {
	assert.Equal(t, []int64{1, 0}, reduceOutputLayout([]int64{1, 2, 0}, []int64{2}))
	assert.Equal(t, []int64{0, 1}, reduceOutputLayout([]int64{0, 2, 1}, []int64{2}))
	assert.Equal(t, []int64{1, 0}, reduceOutputLayout([]int64{2, 0, 1}, []int64{0}))
	got, ok := broadcastOperandLayout([]int64{0, 1}, []int64{0, 2, 1})
	assert.True(t, ok)
	assert.Equal(t, []int64{0, 1}, got)
	lhs, rhs, ok := dotOperandLayouts(3, 3, &hlo.DotDims{LhsBatch: []int64{0}, RhsBatch: []int64{0},
		LhsContracting: []int64{1}, RhsContracting: []int64{1}})
	assert.True(t, ok)
	assert.Equal(t, []int64{1, 2, 0}, lhs) // contracting dim 1 minor
	assert.Equal(t, []int64{2, 1, 0}, rhs) // [K,N] with N minor
}

func TestTiledDefaultLayout(t *testing.T) {
	for _, tc := range []struct {
		dims []int64
		want []int64
	}{
		{[]int64{1, 128, 1, 64}, []int64{3, 1, 2, 0}},
		{[]int64{512, 1}, []int64{0, 1}},
		{[]int64{128, 4096, 1}, []int64{1, 0, 2}},
		{[]int64{1, 128, 1, 32, 1}, []int64{3, 1, 4, 2, 0}},
		{[]int64{1, 128, 1, 1}, []int64{1, 3, 2, 0}},
		// The tiled dims are real ones already: the default stays.
		{[]int64{4, 1, 128, 4096}, []int64{3, 2, 1, 0}},
		{[]int64{1, 128}, []int64{1, 0}},
		{[]int64{1, 1}, []int64{1, 0}},
		{[]int64{7}, []int64{0}},
		{nil, []int64{}},
	} {
		assert.Equal(t, tc.want, tiledDefaultLayout(tc.dims), "%v", tc.dims)
	}
}

// TestTPUConvLayouts checks the layouts of libtpu's log for a 1-D
// convolution of the differential tester (b0f_0io->b0f: input
// f32[1,9,2]{2,0,1}, kernel f32[3,2,4]{2,1,0}) and that a convolution
// without spatial dims (a rewritten dot) gets none.
func TestTPUConvLayouts(t *testing.T) {
	m, err := hlo.ParseString(`HloModule m
ENTRY main {
  x = f32[1,9,2] parameter(0)
  k = f32[3,2,4] parameter(1)
  c = f32[1,19,4] convolution(x, k), window={size=3 pad=2_2 lhs_dilate=2}, dim_labels=b0f_0io->b0f
  a = bf16[8,16] parameter(2)
  b = bf16[16,32] parameter(3)
  ROOT d = bf16[8,32] convolution(a, b), dim_labels=bf_io->bf
}
`)
	require.NoError(t, err)
	lhs, kernel, out, ok := tpuConvLayouts(m.Entry.Instructions[2])
	require.True(t, ok)
	assert.Equal(t, []int64{2, 0, 1}, lhs)
	assert.Equal(t, []int64{2, 1, 0}, kernel)
	assert.Equal(t, []int64{2, 0, 1}, out)
	_, _, _, ok = tpuConvLayouts(m.Entry.Root)
	assert.False(t, ok)
}

// TestTPUDotLayout checks dots of libtpu's log: f32[7,257,48] (lhs
// [7,257,48] by [48,48]) gets {1,2,0}, the lhs's 257 minor as it pads
// less; f32[12,4,513] {2,0,1}, 513 minor and the largest lhs dim next; a
// tie (f32[16,9]) requires nothing.
func TestTPUDotLayout(t *testing.T) {
	m, err := hlo.ParseString(`HloModule m
ENTRY main {
  a = f32[7,257,48] parameter(0)
  b = f32[48,48] parameter(1)
  d1 = f32[7,257,48] dot(a, b), lhs_contracting_dims={2}, rhs_contracting_dims={0}
  c = f32[12,4,33] parameter(2)
  e = f32[33,513] parameter(3)
  d2 = f32[12,4,513] dot(c, e), lhs_contracting_dims={2}, rhs_contracting_dims={0}
  f = f32[16,5] parameter(4)
  g = f32[5,9] parameter(5)
  ROOT d3 = f32[16,9] dot(f, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`)
	require.NoError(t, err)
	byName := map[string]*hlo.Instruction{}
	for _, in := range m.Entry.Instructions {
		byName[in.Name] = in
	}
	got, tie, ok := tpuDotLayout(byName["d1"], TPU())
	require.True(t, ok)
	assert.False(t, tie)
	assert.Equal(t, []int64{1, 2, 0}, got)
	got, tie, ok = tpuDotLayout(byName["d2"], TPU())
	require.True(t, ok)
	assert.False(t, tie)
	assert.Equal(t, []int64{2, 0, 1}, got)
	// f32[16,9]: 16 or 9 minor pad alike; the rhs's 9 is minor.
	got, tie, ok = tpuDotLayout(byName["d3"], TPU())
	require.True(t, ok)
	assert.True(t, tie)
	assert.Equal(t, []int64{1, 0}, got)
}

// TestTPUDotOperandLayouts: operand layouts libtpu's log gives dots with a
// result of rank 3 or more (layout_assignment=3, the SetOperandLayout lines
// after "Declare dot layout"), from the result layout it declares.
func TestTPUDotOperandLayouts(t *testing.T) {
	for _, tc := range []struct {
		a, b, dot string
		out       []int64
		lhs, rhs  []int64
	}{
		// Seed 11793: the contracting dim beside the lhs's minor free dim
		// (261), second-minor as it pads less; the rhs's free dim minor, as
		// in the result.
		{"f32[24,8,261]", "f32[24,257]", "f32[8,261,257] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}",
			[]int64{2, 1, 0}, []int64{2, 0, 1}, []int64{1, 0}},
		// Batch dims most major; the rhs's contracting dim minor (it pads
		// less than rows of 261).
		{"f32[24,8,261]", "f32[24,261,2]", "f32[24,8,2] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}",
			[]int64{1, 2, 0}, []int64{2, 1, 0}, []int64{1, 2, 0}},
		// The lhs's free dims in the result's order (1 then 0), 100 minor
		// beside the contracting dim as it pads less.
		{"f32[100,9,130]", "f32[130,127]", "f32[100,9,127] dot(a, b), lhs_contracting_dims={2}, rhs_contracting_dims={0}",
			[]int64{2, 0, 1}, []int64{0, 2, 1}, []int64{1, 0}},
		// Ties: the free dim minor only where the result has it minor.
		{"f32[100,7,4,100]", "f32[100,100]", "f32[100,7,4,100] dot(a, b), lhs_contracting_dims={3}, rhs_contracting_dims={0}",
			[]int64{3, 0, 2, 1}, []int64{3, 0, 2, 1}, []int64{1, 0}},
		{"f32[257,8,5,5]", "f32[5,5]", "f32[257,8,5,5] dot(a, b), lhs_contracting_dims={3}, rhs_contracting_dims={0}",
			[]int64{0, 3, 2, 1}, []int64{0, 3, 2, 1}, []int64{0, 1}},
		// A rank-2 result constrains no operand.
		{"f32[16,5]", "f32[5,9]", "f32[16,9] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
			[]int64{1, 0}, nil, nil},
		// Dims out of range (a module not verified): no layouts, no panic.
		{"f32[4,16,5]", "f32[5,9]", "f32[4,16,9] dot(a, b), lhs_contracting_dims={7}, rhs_contracting_dims={0}",
			[]int64{2, 1, 0}, nil, nil},
	} {
		m, err := hlo.ParseString("HloModule m\nENTRY e {\n  a = " + tc.a + " parameter(0)\n  b = " + tc.b +
			" parameter(1)\n  ROOT d = " + tc.dot + "\n}\n")
		require.NoError(t, err, tc.dot)
		lhs, rhs, ok := tpuDotOperandLayouts(m.Entry.Root, tc.out, TPU())
		assert.Equal(t, tc.lhs != nil, ok, tc.dot)
		assert.Equal(t, tc.lhs, lhs, tc.dot)
		assert.Equal(t, tc.rhs, rhs, tc.dot)
	}
}

// TestStrengthReducedDot: the dots XLA's simplifier makes a multiply and
// a reduce (a free side of one element, or one contracting element), as
// the differential tester's dumps show, and the matmuls it keeps.
func TestStrengthReducedDot(t *testing.T) {
	m, err := hlo.ParseString(`HloModule m
ENTRY main {
  a = f16[257,1,16] parameter(0)
  b = f16[257,16,1000] parameter(1)
  batchedVector = f16[257,1,1000] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  c = f32[7,1,64,48] parameter(2)
  d = f32[7,1,48,1] parameter(3)
  matrixVector = f32[7,1,64,1] dot(c, d), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}
  e = bf16[1,24] parameter(4)
  f = bf16[1,384] parameter(5)
  outer = bf16[24,384] dot(e, f), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  g = f32[255,7] parameter(6)
  h = f32[7,256] parameter(7)
  ROOT matmul = f32[255,256] dot(g, h), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`)
	require.NoError(t, err)
	want := map[string]bool{"batchedVector": true, "matrixVector": true, "outer": true, "matmul": false}
	for _, in := range m.Entry.Instructions {
		if w, ok := want[in.Name]; ok {
			assert.Equal(t, w, strengthReducedDot(in), in.Name)
		}
	}
}

// TestTPUFftLayout checks FFTs of the differential tester's TPU dumps
// against the layouts of the convolutions XLA rewrote them into: batch the
// largest dim, the one of batch and feature that pads less minor; dims of
// size 1 most major; a length of 384 (two stages) requires nothing.
func TestTPUFftLayout(t *testing.T) {
	m, err := hlo.ParseString(`HloModule m
ENTRY main {
  a = f32[12,4,513] parameter(0)
  f1 = c64[12,4,257] fft(a), fft_type=RFFT, fft_length={513}
  b = c64[26,5,85,3] parameter(1)
  f2 = c64[26,5,85,3] fft(b), fft_type=FFT, fft_length={3}
  c = c64[9,200,127] parameter(2)
  f3 = c64[9,200,127] fft(c), fft_type=FFT, fft_length={127}
  d = f32[513,127] parameter(3)
  f4 = c64[513,64] fft(d), fft_type=RFFT, fft_length={127}
  e = c64[10,1,8] parameter(4)
  f5 = c64[10,1,8] fft(e), fft_type=FFT, fft_length={8}
  g = f32[129,384] parameter(5)
  ROOT f6 = c64[129,193] fft(g), fft_type=RFFT, fft_length={384}
}
`)
	require.NoError(t, err)
	byName := map[string]*hlo.Instruction{}
	for _, in := range m.Entry.Instructions {
		byName[in.Name] = in
	}
	for name, want := range map[string][]int64{
		"f1": {2, 0, 1},    // b0f, f32[12,4,513]{2,0,1}
		"f2": {2, 3, 1, 0}, // 01bf, f32[26,5,85,3]{2,3,1,0}
		"f3": {2, 1, 0},    // 0bf, f32[9,200,127]{2,1,0}: 127 pads less than 200
		"f4": {1, 0},       // bf, f32[513,127]{1,0}
		"f5": {0, 2, 1},    // bf, f32[10,8]{0,1}
	} {
		got, ok := tpuFftLayout(byName[name], TPU())
		require.True(t, ok, name)
		assert.Equal(t, want, got, name)
	}
	_, ok := tpuFftLayout(byName["f6"], TPU())
	assert.False(t, ok)
}

// TestDotLayoutMemo: the assigner's memoised dot layout is tpuDotLayout's
// answer for every dot of the corpus and of hlogen's unrolled training
// step, asked twice (a miss, then a hit of the memo).
func TestDotLayoutMemo(t *testing.T) {
	unrolled, err := hlo.Parse(hlogen.Unrolled(4))
	require.NoError(t, err)
	mods := []*hlo.Module{unrolled}
	for _, cm := range hlotest.CorpusModules(t) {
		mods = append(mods, cm.Module)
	}
	dots := 0
	for _, m := range mods {
		a := &assigner{opts: Options{Target: TPU()}}
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				if in.Opcode != hlo.OpDot {
					continue
				}
				dots++
				want, wantTie, wantOK := tpuDotLayout(in, TPU())
				for range 2 {
					got, tie, ok := a.dotLayout(in)
					assert.Equal(t, wantOK, ok, in.Name)
					assert.Equal(t, wantTie, tie, in.Name)
					assert.Equal(t, want, got, in.Name)
				}
			}
		}
	}
	assert.Positive(t, dots)
}

// TestTPUTopKCall: the top-ks XLA's TPU compiler keeps as its TopK custom
// call (the differential tester's compiles: top-1 of an f32 or s32 matrix
// with rows of 2 or more) and those it makes sorts.
func TestTPUTopKCall(t *testing.T) {
	assert.Equal(t, map[string]bool{"k1": true, "k2": false, "kb": false, "kc": false, "kd": false}, topKs(t, `HloModule m
ENTRY e {
  a = f32[24,64] parameter(0)
  b = bf16[24,64] parameter(1)
  c = f32[24,1] parameter(2)
  d = f32[4,24,64] parameter(3)
  k1 = (f32[24,1], s32[24,1]) topk(a), k=1, largest=true
  k2 = (f32[24,2], s32[24,2]) topk(a), k=2, largest=true
  kb = (bf16[24,1], s32[24,1]) topk(b), k=1, largest=true
  kc = (f32[24,1], s32[24,1]) topk(c), k=1, largest=true
  kd = (f32[4,24,1], s32[4,24,1]) topk(d), k=1, largest=true
  ROOT t = tuple(k1, k2, kb, kc, kd)
}
`, tpuTopKCall))
}

// TestTPUTopKKept: beyond top-1, XLA's TPU compiler keeps the top k of an
// f32 or s32 matrix whose rows hold 50k elements or more (bf16 with 8 rows
// or more) as its TopK custom call; the others become sorts.
func TestTPUTopKKept(t *testing.T) {
	assert.Equal(t, map[string]bool{"ka": true, "kb": false, "kc": false, "kd": true, "ke": false}, topKs(t, `HloModule m
ENTRY e {
  a = f32[512,1000] parameter(0)
  b = f32[470,232] parameter(1)
  c = bf16[4,768] parameter(2)
  d = bf16[24,255] parameter(3)
  e = f32[4,24,1000] parameter(4)
  ka = (f32[512,8], s32[512,8]) topk(a), k=8, largest=true
  kb = (f32[470,5], s32[470,5]) topk(b), k=5, largest=true
  kc = (bf16[4,2], s32[4,2]) topk(c), k=2, largest=true
  kd = (bf16[24,2], s32[24,2]) topk(d), k=2, largest=true
  ke = (f32[4,24,2], s32[4,24,2]) topk(e), k=2, largest=true
  ROOT t = tuple(ka, kb, kc, kd, ke)
}
`, tpuTopKKept))
	// A top-k of a module not verified (no operand) is neither, and no panic.
	assert.False(t, tpuTopKKept(&hlo.Instruction{Opcode: hlo.OpTopK}))
}

// topKs parses src and reports kept for each top-k of its entry, by name.
func topKs(t *testing.T, src string, kept func(*hlo.Instruction) bool) map[string]bool {
	t.Helper()
	m, err := hlo.ParseString(src)
	require.NoError(t, err)
	out := map[string]bool{}
	for _, in := range m.Entry.Instructions {
		if in.Opcode == hlo.OpTopK {
			out[in.Name] = kept(in)
		}
	}
	return out
}
