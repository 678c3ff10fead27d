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
	"strconv"
	"strings"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
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

// TestXLACoalescingVectors runs the indexing-based cases of
// coalescing_analysis_test.cc, testdata/coalescing/xla-coalescing.txtar:
// per operand of the ENTRY root fusion, coalesced or not.
func TestXLACoalescingVectors(t *testing.T) {
	d := rtxA6000()
	require.NoError(t, d.Validate())
	files := hlotest.ReadArchive(t, "../testdata/coalescing/xla-coalescing.txtar").Files
	assert.Len(t, files, 18)
	for _, f := range files {
		name, coalesced, ok := strings.Cut(f.Name, ": ")
		require.True(t, ok, "%s: no verdicts", f.Name)
		var want []bool
		for _, w := range strings.Split(coalesced, ", ") {
			b, err := strconv.ParseBool(w)
			require.NoError(t, err, f.Name)
			want = append(want, b)
		}
		t.Run(name, func(t *testing.T) {
			m, err := hlo.ParseString(f.Data)
			require.NoError(t, err)
			a := AnalyzeFusion(m.Entry.Root)
			got := a.Coalescing(Indexing, &d)
			require.Len(t, got, len(want))
			for k, w := range want {
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
