// XLA conformance of the coalescing analysis.
//
// Source: xla/service/gpu/model/coalescing_analysis_test.cc of openxla/xla
// at commit 1ca4d04cd3b789809a2dc29249d7ab493c2d33b9 (all 21 CoalescingTest
// cases: 18 indexing-based per-operand verdicts and 3 heuristic ones, with
// XLA's HLO), plus LoopTest.ThreadIndexingUnrolled of XLA's loop emitter
// test (thread-id -> output map, compared point by point with ThreadMap).
// All agree with XLA: 18 + 3 + 1 exact verdicts, no documented difference.
// Not ported: CoalescingForTiledHloTest (it needs XLA's symbolic tile
// analysis, which this package does not model).
package cost

import (
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/indexing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rtxA6000 is XLA's TestGpuDeviceInfo::RTXA6000DeviceInfo, the device of
// coalescing_analysis_test.cc.
func rtxA6000() Device {
	return Device{Name: "rtx-a6000", Kind: "gpu", MemoryBandwidth: 768.096e9, PeakFlops: 155e12,
		ClockGHz: 1.41, Cores: 84, FPUsPerCore: 128, WarpSize: 32, ThreadsPerBlockLimit: 1024,
		ThreadsPerCoreLimit: 1536, BlockDimLimitX: 1<<31 - 1, SharedMemoryPerBlock: 48 << 10,
		L2CacheBytes: 6 << 20, L1CachePerCore: 128 << 10, DRAMToL2TransactionBytes: 64,
		MemoryTransactionBytesPerClock: 32, KernelLaunchOverheadUS: 1}
}

// The indexing-based cases of xla/service/gpu/model/coalescing_analysis_test.cc:
// per ENTRY root fusion operand, coalesced or not (TestXLACoalescingVectors).
const xlaAdd = `add {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT add = f32[] add(p0, p1)
}
`
const xlaMax = `max {
  p0 = s32[] parameter(0)
  p1 = s32[] parameter(1)
  p2 = s32[] parameter(2)
  p3 = s32[] parameter(3)
  max01 = s32[] maximum(p0, p1)
  max23 = s32[] maximum(p2, p3)
  ROOT max = (s32[], s32[]) tuple(max01, max23)
}
`

var xlaCoalescingCases = []struct {
	name string
	hlo  string
	want []bool
}{
	{"IdentityLayout", `HloModule m
fusion {
  p0 = f32[100, 200] parameter(0)
  p1 = f32[100, 200] parameter(1)
  ROOT adthread_x = f32[100, 200] add(p0, p1)
}
ENTRY e {
  p0 = f32[100, 200] parameter(0)
  p1 = f32[100, 200] parameter(1)
  ROOT fusion = f32[100, 200] fusion(p0, p1), kind=kInput, calls=fusion
}`, []bool{true, true}},
	{"RhsTransposedLayout", `HloModule m
fusion {
  p0 = f32[100, 200]{1, 0} parameter(0)
  p1 = f32[100, 200]{0, 1} parameter(1)
  ROOT exp = f32[100, 200]{1, 0} add(p0, p1)
}
ENTRY e {
  p0 = f32[100, 200]{1, 0} parameter(0)
  p1 = f32[100, 200]{0, 1} parameter(1)
  ROOT fusion = f32[100, 200]{1, 0} fusion(p0, p1), kind=kInput, calls=fusion
}`, []bool{true, false}},
	{"OutputTransposedLayout", `HloModule m
fusion {
  p0 = f32[100, 200]{1, 0} parameter(0)
  p1 = f32[100, 200]{1, 0} parameter(1)
  ROOT exp = f32[100, 200]{0, 1} add(p0, p1)
}
ENTRY e {
  p0 = f32[100, 200]{1, 0} parameter(0)
  p1 = f32[100, 200]{1, 0} parameter(1)
  ROOT fusion = f32[100, 200]{0, 1} fusion(p0, p1), kind=kInput, calls=fusion
}`, []bool{false, false}},
	{"OutputAndLhsTransposedLayout", `HloModule m
fusion {
  p0 = f32[100, 200]{1, 0} parameter(0)
  p1 = f32[100, 200]{0, 1} parameter(1)
  ROOT add = f32[100, 200]{1, 0} add(p0, p1)
}
ENTRY e {
  p0 = f32[100, 200]{1, 0} parameter(0)
  p1 = f32[100, 200]{0, 1} parameter(1)
  ROOT fusion = f32[100, 200]{1, 0} fusion(p0, p1), kind=kInput, calls=fusion
}`, []bool{true, false}},
	{"ConcatenateWitBitcastInLoopEmitter", `HloModule module
fusion {
  p0 = bf16[42] parameter(0)
  p1 = bf16[42] parameter(1)
  p2 = bf16[42] parameter(2)
  p3 = bf16[42] parameter(3)
  p4 = bf16[44] parameter(4)
  p5 = bf16[44] parameter(5)
  concatenate = bf16[256] concatenate(p0, p1, p2, p3, p4, p5), dimensions={0}
  broadcast = bf16[256] parameter(6)
  multiply = bf16[256] multiply(concatenate, broadcast)
  ROOT bitcast = bf16[16,16] bitcast(multiply)
}
ENTRY entry_computation {
  p0 = bf16[42] parameter(0)
  p1 = bf16[42] parameter(1)
  p2 = bf16[42] parameter(2)
  p3 = bf16[42] parameter(3)
  p4 = bf16[44] parameter(4)
  p5 = bf16[44] parameter(5)
  p6 = bf16[256] parameter(6)
  ROOT fusion = bf16[16, 16] fusion(p0, p1, p2, p3, p4, p5, p6), kind=kLoop, calls=fusion
}`, []bool{true, true, true, true, true, true, true}},
	{"Transpose", `HloModule module
fusion {
  %input = f32[100, 64, 32] parameter(0)
  ROOT transpose = f32[32, 100, 64] transpose(%input), dimensions={2, 0, 1}
}
ENTRY entry {
  %input = f32[100, 64, 32] parameter(0)
  ROOT %fusion = f32[32, 100, 64] fusion(%input), kind=kLoop, calls=fusion
}`, []bool{true}},
	{"ConcatenateInLoopEmitter", `HloModule module
fusion {
  p0 = bf16[42] parameter(0)
  p1 = bf16[42] parameter(1)
  p2 = bf16[42] parameter(2)
  p3 = bf16[42] parameter(3)
  p4 = bf16[44] parameter(4)
  p5 = bf16[44] parameter(5)
  concatenate = bf16[256] concatenate(p0, p1, p2, p3, p4, p5), dimensions={0}
  broadcast = bf16[256] parameter(6)
  ROOT multiply = bf16[256] multiply(concatenate, broadcast)
}
ENTRY entry_computation {
  p0 = bf16[42] parameter(0)
  p1 = bf16[42] parameter(1)
  p2 = bf16[42] parameter(2)
  p3 = bf16[42] parameter(3)
  p4 = bf16[44] parameter(4)
  p5 = bf16[44] parameter(5)
  p6 = bf16[256] parameter(6)
  ROOT fusion = bf16[256] fusion(p0, p1, p2, p3, p4, p5, p6), kind=kLoop, calls=fusion
}`, []bool{true, true, true, true, true, true, true}},
	{"TransposeOnlyOuterDims", `HloModule module
fusion {
  %input = f32[100, 32, 64] parameter(0)
  ROOT transpose = f32[32, 100, 64] transpose(%input), dimensions={1, 0, 2}
}
ENTRY entry {
  %input = f32[100, 32, 64] parameter(0)
  ROOT %fusion = f32[32, 100, 64] fusion(%input), kind=kLoop, calls=fusion
}`, []bool{true}},
	{"PadOp", `HloModule module
fusion {
  p0 = f32[997, 436] parameter(0)
  p1 = f32[] parameter(1)
  ROOT pad = f32[1024, 512] pad(p0, p1), padding=10_17x24_52
}
ENTRY entry {
  p0 = f32[997, 436] parameter(0)
  p1 = f32[] parameter(1)
  ROOT %fusion = f32[1024, 512] fusion(p0, p1), kind=kLoop, calls=fusion
}`, []bool{true, true}},
	{"RowReduction", "HloModule module\n" + xlaAdd + `fusion {
  %input = f32[100,64,512] parameter(0)
  %c0 = f32[] constant(0)
  ROOT reduce = f32[100,64] reduce(%input, %c0), dimensions={2}, to_apply=add
}
ENTRY entry {
  %input = f32[100,64,512] parameter(0)
  ROOT %fusion = f32[100,64] fusion(%input), kind=kInput, calls=fusion
}`, []bool{true}},
	{"MultiRowReduction", "HloModule module\n" + xlaAdd + `fusion {
  %input = f32[100,64,4] parameter(0)
  %c0 = f32[] constant(0)
  ROOT reduce = f32[100,64] reduce(%input, %c0), dimensions={2}, to_apply=add
}
ENTRY entry {
  %input = f32[100,64,4] parameter(0)
  ROOT %fusion = f32[100,64] fusion(%input), kind=kInput, calls=fusion
}`, []bool{true}},
	{"ColumnReduction", "HloModule module\n" + xlaAdd + `fusion {
  %input = f32[100,64,32] parameter(0)
  %c0 = f32[] constant(0)
  ROOT reduce = f32[100,32] reduce(%input, %c0), dimensions={1}, to_apply=add
}
ENTRY entry {
  %input = f32[100,64,32] parameter(0)
  ROOT %fusion = f32[100,32] fusion(%input), kind=kInput, calls=fusion
}`, []bool{true}},
	{"VariadicReduceViaLoopEmitter", "HloModule module\n" + xlaMax + `fusion {
  p0 = s32[5696,10,4] parameter(0)
  p1 = s32[5696,10,4] parameter(1)
  p2 = s32[] parameter(2)
  p3 = s32[] parameter(3)
  ROOT reduce = (s32[5696,4], s32[5696,4]) reduce(p0, p1, p2, p3), dimensions={1}, to_apply=max
}
ENTRY entry {
  p0 = s32[5696,10,4] parameter(0)
  p1 = s32[5696,10,4] parameter(1)
  p2 = s32[] parameter(2)
  p3 = s32[] parameter(3)
  ROOT f = (s32[5696,4], s32[5696,4]) fusion(p0, p1, p2, p3), kind=kInput, calls=fusion
}`, []bool{false, false, true, true}},
	{"VariadicReduceViaReductionEmitter", "HloModule module\n" + xlaMax + `fusion {
  p0 = s32[32,40] parameter(0)
  p1 = s32[32,40] parameter(1)
  p2 = s32[] parameter(2)
  p3 = s32[] parameter(3)
  ROOT reduce = (s32[32], s32[32]) reduce(p0, p1, p2, p3), dimensions={1}, to_apply=max
}
ENTRY entry {
  p0 = s32[32,40] parameter(0)
  p1 = s32[32,40] parameter(1)
  p2 = s32[] parameter(2)
  p3 = s32[] parameter(3)
  ROOT f = (s32[32], s32[32]) fusion(p0, p1, p2, p3), kind=kInput, calls=fusion
}`, []bool{true, true, true, true}},
	{"Gather", `HloModule module
fusion {
  operand = f32[33, 76, 70] parameter(0)
  indices = s32[1806, 2] parameter(1)
  ROOT gather = f32[1806, 7, 8, 4] gather(operand, indices), offset_dims={1,2,3}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={7,8,4}
}
ENTRY entry {
  p0 = f32[33, 76, 70] parameter(0)
  p1 = s32[1806, 2] parameter(1)
  ROOT %fusion = f32[1806, 7, 8, 4] fusion(p0, p1), kind=kLoop, calls=fusion
}`, []bool{false, true}},
	{"DynamicSlice", `HloModule module
fusion {
  %src = s32[2,2,258] parameter(0)
  %of1 = s32[] parameter(1)
  %of2 = s32[] parameter(2)
  %of3 = s32[] parameter(3)
  ROOT %ds = s32[1,2,32] dynamic-slice(s32[2,2,258] %src, s32[] %of1, s32[] %of2, s32[] %of3), dynamic_slice_sizes={1, 2, 32}
}
ENTRY entry {
  %p0 = s32[2,2,258] parameter(0)
  %p1 = s32[] parameter(1)
  %p2 = s32[] parameter(2)
  %p3 = s32[] parameter(3)
  ROOT %fusion = s32[1,2,32] fusion(p0, p1, p2, p3), kind=kLoop, calls=fusion
}`, []bool{true, true, true, true}},
	{"UnusedParameter", `HloModule m
subcomp {
  p0f = f32[100000] parameter(0)
  p1f = f32[100000] parameter(1)
  ROOT n = f32[100000] negate(p0f)
}
ENTRY b {
  p0 = f32[100000] parameter(0)
  p1 = f32[100000] parameter(1)
  ROOT f = f32[100000] fusion(p0, p1), kind=kLoop, calls=subcomp
}`, []bool{true, true}},
	{"Param", `HloModule module
fusion {
  %p0 = u32[48,2,1280] parameter(0)
  %p1 = u32[48,1,1280] parameter(1)
  %p2 = u32[48,1,1280] parameter(2)
  %concat = u32[48,2,1280] concatenate(u32[48,1,1280] %p1, u32[48,1,1280] %p2), dimensions={1}
  ROOT %shift = u32[48,2,1280] shift-right-logical(u32[48,2,1280] %concat, u32[48,2,1280] %p0)
}
ENTRY entry {
  %p0 = u32[48,2,1280] parameter(0)
  %p1 = u32[48,1,1280] parameter(1)
  %p2 = u32[48,1,1280] parameter(2)
  ROOT %fusion = u32[48,2,1280] fusion(p0, p1, p2), kind=kLoop, calls=fusion
}`, []bool{true, true, true}},
}

func TestXLACoalescingVectors(t *testing.T) {
	cases := xlaCoalescingCases
	d := rtxA6000()
	require.NoError(t, d.Validate())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := hlo.ParseString(tc.hlo)
			require.NoError(t, err)
			a := AnalyzeFusion(m.Entry.Root)
			got := a.Coalescing(Indexing, &d)
			require.Len(t, got, len(tc.want))
			for k, w := range tc.want {
				assert.Equal(t, w, got[k].Coalesced, "operand %d (%s emitter): %s", k, a.Emitter, got[k].Reason)
			}
		})
	}
}

// The heuristic cases of coalescing_analysis_test.cc with XLA's HLO:
// IsReadCoalescedHeuristic(emitter kind, root->operand(0), root), the
// producer being an unfused transpose in the entry computation.
func TestXLACoalescingHeuristicVectors(t *testing.T) {
	const fusion = `fusion {
  p0 = f32[32, 100, 64] parameter(0)
  ROOT slice = f32[32, 100, 1] slice(p0), slice={[0:32:1], [0:100:1], [0:1:1]}
}
`
	cases := []struct {
		name, entry string
		want        bool
	}{
		{"TransposeOfBroadcastHeuristic", `ENTRY entry {
  p0 = f32[32] parameter(0)
  broadcast = f32[100, 64, 32] broadcast(p0), dimensions={2}
  transpose = f32[32, 100, 64] transpose(broadcast), dimensions={2, 0, 1}
  ROOT %fusion = f32[32, 100, 1] fusion(transpose), kind=kLoop, calls=fusion
}`, true},
		{"TransposeOfIotaHeuristic", `ENTRY entry {
  iota = f32[100, 64, 32] iota(), iota_dimension=1
  transpose = f32[32, 100, 64] transpose(iota), dimensions={2, 0, 1}
  ROOT %fusion = f32[32, 100, 1] fusion(transpose), kind=kLoop, calls=fusion
}`, true},
		{"TransposeOfAddHeuristic", `ENTRY entry {
  input = f32[100, 64, 32] parameter(0)
  add = f32[100, 64, 32] add(input, input)
  transpose = f32[32, 100, 64] transpose(add), dimensions={2, 0, 1}
  ROOT %fusion = f32[32, 100, 1] fusion(transpose), kind=kLoop, calls=fusion
}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := hlo.ParseString("HloModule module\n" + fusion + tc.entry)
			require.NoError(t, err)
			root := m.Entry.Root
			a := AnalyzeFusion(root)
			require.Equal(t, EmitterLoop, a.Emitter)
			got, why := HeuristicCoalesced(a.Emitter, root.Operands[0], root)
			assert.Equal(t, tc.want, got, why)
		})
	}
}

// XLA's LoopTest.ThreadIndexingUnrolled (the loop emitter's thread-id ->
// output map of f32[100,200,300] on the RTX A6000: 128 threads of 4
// unrolled elements, 11719 blocks) against ThreadMap, which gives the
// linear offset: at every thread of the first and last blocks and a few in
// between, both maps must agree on feasibility and on the element.
func TestXLALoopThreadIndexingUnrolled(t *testing.T) {
	m, err := hlo.ParseString(`HloModule module
neg {
  %input = f32[100,200,300] parameter(0)
  ROOT neg = f32[100,200,300] negate(%input)
}
ENTRY entry {
  %input = f32[100,200,300] parameter(0)
  ROOT %fusion = f32[100,200,300] fusion(%input), kind=kLoop, calls=neg
}`)
	require.NoError(t, err)
	// The affine part is XLA's expectation verbatim; the domain is the
	// launch grid and the bound on the element count.
	xla, err := indexing.ParseIndexingMap(`(d0, d1, d2, d3, d4, d5)[s0] -> (` +
		`(d0 * 4 + d3 * 512 + s0) floordiv 60000, ` +
		`((d0 * 4 + d3 * 512 + s0) floordiv 300) mod 200, ` +
		`(d0 * 4 + d3 * 512 + s0) mod 300), domain: d0 in [0, 127], d1 in [0, 0], d2 in [0, 0], ` +
		`d3 in [0, 11718], d4 in [0, 0], d5 in [0, 0], s0 in [0, 3], d0 * 4 + d3 * 512 + s0 in [0, 5999999]`)
	require.NoError(t, err)
	d := rtxA6000()
	a := AnalyzeFusion(m.Entry.Root)
	l := a.Launch(&d)
	assert.Equal(t, int64(11719), l.Blocks)
	assert.Equal(t, int64(128), l.ThreadsPerBlock)
	assert.Equal(t, int64(4), l.Unroll)
	ours, ok, err := a.ThreadMap(&d)
	require.NoError(t, err)
	require.True(t, ok)
	out := m.Entry.Root.Shape
	for _, block := range []int64{0, 1, 5000, 11717, 11718} {
		for th := range int64(128) {
			for u := range int64(4) {
				dims := []int64{th, 0, 0, block, 0, 0}
				inX := xla.Contains(dims, []int64{u}, nil)
				// Ours has a chunk symbol (one chunk) before the unroll one.
				inOurs := ours.Contains(dims, []int64{0, u}, nil)
				require.Equal(t, inX, inOurs, "thread %d block %d unroll %d", th, block, u)
				if !inX {
					continue
				}
				idx := xla.Evaluate(dims, []int64{u}, nil)
				want := (idx[0]*out.Dims[1]+idx[1])*out.Dims[2] + idx[2]
				assert.Equal(t, want, ours.Evaluate(dims, []int64{0, u}, nil)[0], "thread %d block %d unroll %d", th, block, u)
			}
		}
	}
}
