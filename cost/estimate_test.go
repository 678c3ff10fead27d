package cost

import (
	"github.com/hlo-opt/hlo-opt/passes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func h100(t *testing.T) Device {
	d, err := Preset("h100")
	require.NoError(t, err)
	return d
}

// An elementwise add of two f32[1024,1024] on an H100, worked by hand:
// N = 1,048,576 >= 2048*132 and N%4 == 0 -> unroll 4, 262,144 work items,
// 128 threads per block, 2048 blocks. Each operand and the output move
// 4,194,304 bytes: 4194304 / 3.35e12 s = 1.252031 us each, 3.756093 us in
// all. Flops 3*N = 3,145,728 (the GPU model's weight; the report gives N)
// over 1.98e9*2*128*132 flop/s = 0.047016 us.
// Memory-bound: 3.756093 + 1 us launch = 4.756093 us.
func TestEstimateElementwiseByHand(t *testing.T) {
	f := newComp(t, "fused")
	a, b := f.param(0, "a", "f32[1024,1024]"), f.param(1, "b", "f32[1024,1024]")
	f.op("add", "add", "f32[1024,1024]", a, b)
	m := NewModel(h100(t))
	e := m.Estimate(fuse(t, f))

	assert.Equal(t, LaunchDims{Blocks: 2048, ThreadsPerBlock: 128, Unroll: 4, Vector: 1, Note: "loop"}, e.Launch)
	assert.InDelta(t, 1048576, e.Flops, 0.5, "reported as HloCostAnalysis counts: one per element")
	assert.Equal(t, int64(3*4194304), e.Bytes())
	assert.InDelta(t, 0.047016, e.ComputeUS, 1e-6)
	assert.InDelta(t, 3.756093, e.MemoryUS, 1e-6)
	assert.InDelta(t, 4.756093, e.TimeUS, 1e-6)
	assert.Equal(t, "memory", e.Bound)
}

// A loop-emitted transpose f32[4,100000] -> f32[100000,4] (too narrow for
// the tiled transpose emitter) reads uncoalesced: the heuristic fires and
// each f32 uses 4 of a 64-byte transaction, so the read runs at 3.35e12/16
// B/s: 1.6e6 B / 2.09375e11 B/s = 7.641791 us; the write takes 1.6e6 /
// 3.35e12 = 0.477612 us; no flops. 8.119403 + 1 = 9.119403 us.
func TestEstimateUncoalescedByHand(t *testing.T) {
	f := newComp(t, "fused")
	a := f.param(0, "a", "f32[4,100000]")
	f.dims(f.op("t", "transpose", "f32[100000,4]", a), 1, 0)
	m := NewModel(h100(t))
	e := m.Estimate(fuse(t, f))

	require.Equal(t, EmitterLoop, e.Emitter)
	assert.Equal(t, int64(782), e.Launch.Blocks)
	require.Len(t, e.Reads, 1)
	assert.False(t, e.Reads[0].Coalesced)
	assert.InDelta(t, 4.0/64, e.Reads[0].Rate, 1e-12)
	assert.InDelta(t, 7.641791, e.Reads[0].TimeUS, 1e-6)
	assert.InDelta(t, 9.119403, e.TimeUS, 1e-6)
	assert.Contains(t, strings.Join(e.Reasons(), "\n"), "operand 0 uncoalesced")
}

// A bf16 dot [4096,4096]x[4096,4096] on an H100 is compute-bound on the
// tensor cores: 2*4096^3 flops / 989.4e12 flop/s = 138.91 us, against
// 3 * 32 MiB of traffic (30.05 us).
func TestEstimateDotByHand(t *testing.T) {
	e := newComp(t, "entry")
	x, y := e.param(0, "x", "bf16[4096,4096]"), e.param(1, "y", "bf16[4096,4096]")
	dot := e.op("dot", "dot", "bf16[4096,4096]", x, y)
	dot.Typed.Dot = &hlo.DotDims{LhsContracting: []int64{1}, RhsContracting: []int64{0}}
	m := NewModel(h100(t))
	est := m.Estimate(dot)
	assert.True(t, est.MatrixUnit)
	assert.InDelta(t, 2*4096.0*4096*4096/989.4e12*1e6, est.ComputeUS, 1e-6)
	assert.Equal(t, "compute", est.Bound)
	assert.InDelta(t, est.ComputeUS+1, est.TimeUS, 1e-9)
}

func TestEstimateModuleReport(t *testing.T) {
	f := newComp(t, "fused")
	a, b := f.param(0, "a", "f32[1024,1024]"), f.param(1, "b", "f32[1024,1024]")
	f.op("add", "add", "f32[1024,1024]", a, b)
	e := newComp(t, "entry")
	p, q := e.param(0, "p", "f32[1024,1024]"), e.param(1, "q", "f32[1024,1024]")
	fu := e.fusion("add_fusion", "f32[1024,1024]", f.c, p, q)
	e.op("neg", "negate", "f32[1024,1024]", fu)
	mod := module(f.c, e.c)

	me := NewModel(h100(t)).EstimateModule(mod)
	require.Len(t, me.Kernels, 2)
	assert.InDelta(t, me.Kernels[0].TimeUS+me.Kernels[1].TimeUS, me.TimeUS, 1e-9)
	top := me.Top(1)
	require.Len(t, top, 1)
	assert.Equal(t, "add_fusion", top[0].Instr.Name, "two reads beat one")
	rep := me.Report(5)
	assert.Contains(t, rep, "1. add_fusion fusion (loop)")
	assert.Contains(t, rep, "memory-bound")
}

// corpusInstr parses chunk `chunk` of a corpus file and returns the named
// instruction of its entry computation.
func corpusInstr(t *testing.T, file string, chunk int, name string) *hlo.Instruction {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(hlotest.CorpusDir(t), file))
	require.NoError(t, err)
	chunks := hlo.SplitInputFile(src)
	require.Greater(t, len(chunks), chunk)
	m, err := hlo.ParseChunk(file, chunks[chunk])
	require.NoError(t, err)
	for _, in := range m.Entry.Instructions {
		if in.Name == name {
			return in
		}
	}
	require.FailNow(t, "no instruction "+name)
	return nil
}

// fusion.2 of xla-gputests__kernel_reuse.hlo (three sqrt of f32[5,5]) on
// an H100, by hand: 25 elements -> one block of 25 threads, no unroll.
// Flops 3 sqrt * 3 * 25 = 225 over 1.98e9 * 2 * 25 FPUs * 1 SM =
// 0.00227273 us (the GPU model's weights; the report gives none: a sqrt
// is a transcendental, which HloCostAnalysis counts apart). Reads 100 B at min(3.35e12, 1 block * 1.98e9 * 32 B) =
// 6.336e10 B/s = 0.00157828 us; writes 100 B / 3.35e12 = 0.0000298507 us.
// Compute-bound: 0.00227273 + 1 us launch.
func TestEstimateCorpusKernelReuseByHand(t *testing.T) {
	in := corpusInstr(t, "xla-gputests__kernel_reuse.hlo", 0, "fusion.2")
	e := NewModel(h100(t)).Estimate(in)
	assert.Equal(t, EmitterLoop, e.Emitter)
	assert.Equal(t, LaunchDims{Blocks: 1, ThreadsPerBlock: 25, Unroll: 1, Vector: 1, Note: "loop"}, e.Launch)
	assert.Zero(t, e.Flops)
	assert.Equal(t, int64(200), e.Bytes())
	assert.InDelta(t, 0.00227273, e.ComputeUS, 1e-8)
	assert.InDelta(t, 0.00157828+0.0000298507, e.MemoryUS, 1e-8)
	assert.Equal(t, "compute", e.Bound)
	assert.InDelta(t, 1.00227273, e.TimeUS, 1e-8)
}

// reduce1 of xla-emitters-reduce_row__mof_epilogue.hlo (f32[8,1024] row
// reduction to f32[8]) on an H100, by hand: W = 1024 is too wide for the
// multi-row emitter (W > 32 * v), so the row emitter runs 32 reducing x 8
// kept threads, vector 2, one block. Flops (8192 - 8) * 3 = 24552 over
// 1.98e9 * 2 * 128 * 1 = 0.0484375 us (the report gives 8184, one per
// addition, as HloCostAnalysis counts). Input 32768 B at the one-block cap
// 6.336e10 B/s = 0.517172 us; the init value is read once per output (32
// B): 4 B from DRAM and 28 B re-read, both at the capped 6.336e10 B/s =
// 0.000505051 us; output 32 B / 3.35e12. Memory-bound: 1.5176866 us.
func TestEstimateCorpusRowReductionByHand(t *testing.T) {
	in := corpusInstr(t, "xla-emitters-reduce_row__mof_epilogue.hlo", 0, "reduce1")
	e := NewModel(h100(t)).Estimate(in)
	assert.Equal(t, EmitterReduction, e.Emitter)
	assert.Equal(t, LaunchDims{Blocks: 1, ThreadsPerBlock: 256, Unroll: 1, Vector: 2, Note: "row reduction"}, e.Launch)
	assert.InDelta(t, 8184, e.Flops, 1e-9)
	assert.Equal(t, int64(32768+32+32), e.Bytes())
	assert.InDelta(t, 0.0484375, e.ComputeUS, 1e-8)
	require.Len(t, e.Reads, 2)
	assert.InDelta(t, 0.517172, e.Reads[0].TimeUS, 1e-6)
	assert.InDelta(t, 0.000505051, e.Reads[1].TimeUS, 1e-9)
	assert.Equal(t, "memory", e.Bound)
	assert.InDelta(t, 1.5176866, e.TimeUS, 1e-6)
}

// Reasons names repeated reads only when they are a real share of the
// kernel's bytes: a reduce's scalar init value, read once per output, is
// not worth a line; a broadcast row read by every element of a loop
// fusion is.
func TestEstimateReasonsNameOnlySignificantRereads(t *testing.T) {
	e := &Estimate{Bound: "memory", BytesRead: 4128, BytesOutput: 32, Reads: []OperandRead{
		{Operand: 0, Utilization: 1, Bytes: 4096},
		{Operand: 1, Utilization: 8, Bytes: 32},
	}}
	assert.NotContains(t, strings.Join(e.Reasons(), "\n"), "read 8x")

	e = &Estimate{Bound: "memory", BytesRead: 8192, BytesOutput: 4096, Reads: []OperandRead{
		{Operand: 0, Utilization: 1, Bytes: 4096},
		{Operand: 1, Utilization: 128, Bytes: 4096},
	}}
	// 4096 * (1 - 1/128) = 4064 re-read bytes of 12288: 33%.
	assert.Contains(t, strings.Join(e.Reasons(), "\n"), "operand 1 read 128x (utilization 128): 33% of the kernel's bytes are re-reads")
}

// The cost pass estimates a block-level (Triton) fusion from its tiles, as
// Model.Estimate does (it used the per-element walk, which re-reads the
// row once per output element: 672,507,342 us here). A softmax over
// f32[8192,4096] with output tiles [1,4096] and 4 warps, worked by hand:
// 8192 blocks each read and write one row: 134,217,728 bytes each way at
// 3.35e12 B/s, 40.065 us each. Flops per block: the two reduces
// (4096-1)*3 each, subtract, exponential and divide 3*4096 each:
// 8192*(2*12285 + 3*12288) = 503,267,328, over 1.98e9*2*128 lanes*132 SMs
// = 7.52 us, hidden by the memory time. 80.13 + 1 us launch.
func TestCostPassTritonSoftmaxByHand(t *testing.T) {
	m, err := hlo.ParseFile("softmax", hlotest.ReadTestdata(t, "groundtruth", "softmax", "h100", "large", "after_optimizations.txt"))
	require.NoError(t, err)
	res := runCostPasses(t, m, DefaultConfig())
	cr, ok := passes.ResultOf[*CostResult](res, CostPass)
	require.True(t, ok)
	e := cr.Of(m.Entry.Root)
	require.NotNil(t, e)
	assert.Equal(t, int64(8192), e.Launch.Blocks)
	assert.Equal(t, int64(128), e.Launch.ThreadsPerBlock)
	assert.InDelta(t, 8192*(2*4095+2*4096), e.Flops, 0.5, "as HloCostAnalysis counts: 1 per addition, comparison, subtraction, division")
	assert.InDelta(t, 2*134217728/3.35e12*1e6, e.MemoryUS, 1e-6)
	assert.InDelta(t, 503267328/(1.98e9*2*128*132)*1e6, e.ComputeUS, 1e-6)
	assert.InDelta(t, 2*134217728/3.35e12*1e6+1, e.TimeUS, 1e-6)
	require.Len(t, e.Reads, 1)
	assert.InDelta(t, 1, e.Reads[0].Utilization, 1e-12)
}

// A gemm fusion of an older dump tiles by its triton_gemm_config:
// block_m x block_n tiles of the output, num_warps, num_stages; a
// bf16[1024,1024] output in 128x128 tiles is 64 blocks of 8 warps, and
// its 2*1024^3 flops run in one wave of the 132 SMs: 64 tiles of
// 2*128*128*1024 flops each and 68 idle SMs' worth, 4.43e9 flops in all.
func TestTritonGemmConfig(t *testing.T) {
	m, err := hlo.ParseString(`HloModule m

gemm {
  a = bf16[1024,1024]{1,0} parameter(0)
  b = bf16[1024,1024]{1,0} parameter(1)
  ROOT d = bf16[1024,1024]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

ENTRY e {
  x = bf16[1024,1024]{1,0} parameter(0)
  y = bf16[1024,1024]{1,0} parameter(1)
  ROOT f = bf16[1024,1024]{1,0} fusion(x, y), kind=kCustom, calls=gemm, backend_config={"fusion_backend_config":{"kind":"__triton_gemm","triton_gemm_config":{"block_m":"128","block_n":"128","block_k":"64","split_k":"1","num_stages":"3","num_warps":"8","num_ctas":"1"}}}
}
`)
	require.NoError(t, err)
	tl, ok := readBlockLevelConfig(m.Entry.Root)
	require.True(t, ok)
	assert.Equal(t, tiling{tiles: [][]int64{{128, 128}}, warps: 8, stages: 3}, tl)
	e := NewModel(h100(t)).Estimate(m.Entry.Root)
	assert.Equal(t, EmitterTriton, e.Emitter)
	assert.Equal(t, int64(64), e.Launch.Blocks)
	assert.Equal(t, int64(256), e.Launch.ThreadsPerBlock)
	assert.True(t, e.MatrixUnit)
	assert.InDelta(t, 2*128*128*1024.0*132/989.4e12*1e6, e.ComputeUS, 1e-9)
	require.Len(t, e.Reads, 2)
	assert.InDelta(t, 8, e.Reads[0].Utilization, 1e-12, "each of the 8 block rows reads all of a")
}

// topIndices is the first n of a stable sort by total, largest first.
func TestTopIndices(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 10))
	for range 500 {
		total := make([]float64, r.IntN(60))
		for i := range total {
			total[i] = float64(r.IntN(8)) // many ties
		}
		idx := make([]int, len(total))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return total[idx[a]] > total[idx[b]] })
		for _, n := range []int{0, 1, 3, 10, 100} {
			want, got := idx[:min(n, len(idx))], topIndices(total, n)
			assert.Equal(t, len(want), len(got), "%v, n %d", total, n)
			if len(want) > 0 {
				assert.Equal(t, want, got, "%v, n %d", total, n)
			}
		}
	}
}
