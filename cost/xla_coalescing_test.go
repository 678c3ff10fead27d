// XLA conformance of the coalescing analysis.
//
// Cases: testdata/coalescing/xla-coalescing.txtar, every test of
// xla/service/gpu/model/coalescing_analysis_test.cc of openxla/xla at
// commit 2c731115ef3bbd9457cfbc46cd5fba5a35ee74bb with XLA's HLO, extracted
// by testdata/gen/xla_tests.py: the indexing-based per-operand verdicts,
// the heuristic ones and the tiled bandwidth utilization rates. The
// verdicts are the golden testdata/coalescing/xla-coalescing.golden. Also
// LoopTest.ThreadIndexingUnrolled of XLA's loop emitter test (thread-id ->
// output map, compared point by point with ThreadMap).
package cost

import (
	"fmt"
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

// TestXLACoalescingConformance runs every check of
// testdata/coalescing/xla-coalescing.txtar on the RTX A6000 of XLA's test.
func TestXLACoalescingConformance(t *testing.T) {
	d := rtxA6000()
	require.NoError(t, d.Validate())
	archive := hlotest.ReadArchive(t, "../testdata/coalescing/xla-coalescing.txtar")
	var verdicts []hlotest.Verdict
	var m *hlo.Module
	var name string
	for _, f := range archive.Files {
		n, check, isCheck := strings.Cut(f.Name, ": ")
		if !isCheck {
			var err error
			m, err = hlo.ParseString(f.Data)
			require.NoError(t, err, n)
			name = n
			continue
		}
		require.Equal(t, name, n, "%s: a check follows its case", f.Name)
		detail := coalescingCheck(t, m, check, &d)
		verdicts = append(verdicts, hlotest.Verdict{Suite: "coalescing", Name: name, Check: check, Pass: detail == "", Detail: detail})
	}
	suites := []string{"coalescing"}
	summary, tally := hlotest.ConformanceSummary("XLA's coalescing_analysis_test.cc against this package", suites, verdicts,
		hlotest.NotPortedList(archive.Comment))
	hlotest.Golden(t, "../testdata/coalescing/xla-coalescing.golden", summary)
	hlotest.RequireConformance(t, suites, tally)
}

// coalescingCheck runs one check ("indexing: V0, V1", "heuristic: V" or
// "tile T: R") on m and says how ours differs, or "".
func coalescingCheck(t *testing.T, m *hlo.Module, check string, d *Device) string {
	kind, want, _ := strings.Cut(check, ": ")
	root := m.Entry.Root
	switch {
	case kind == "indexing":
		a := AnalyzeFusion(root)
		var ours, why []string
		for _, o := range a.Coalescing(Indexing, d) {
			ours = append(ours, strconv.FormatBool(o.Coalesced))
			why = append(why, o.Reason)
		}
		if strings.Join(ours, ", ") != want {
			return fmt.Sprintf("ours %s (%s emitter: %s)", strings.Join(ours, ", "), a.Emitter, strings.Join(why, "; "))
		}
	case kind == "heuristic":
		a := AnalyzeFusion(root)
		if got, why := HeuristicCoalesced(a.Emitter, root.Operands[0], root); strconv.FormatBool(got) != want {
			return fmt.Sprintf("ours %t (%s emitter: %s)", got, a.Emitter, why)
		}
	case strings.HasPrefix(kind, "tile "):
		var tile []int64
		for _, s := range strings.Split(strings.TrimPrefix(kind, "tile "), ",") {
			n, err := strconv.ParseInt(s, 10, 64)
			require.NoError(t, err, check)
			tile = append(tile, n)
		}
		// The case's entry computation is the fused computation tiled.
		bl, ok := newBlockLevel(&FusionAnalysis{Fused: m.Entry, Roots: FusionRoots(m.Entry)})
		if !ok {
			return "no tiling of the root"
		}
		tf, ok := bl.propagate(NewModel(*d), tiling{tiles: [][]int64{tile}})
		if !ok || len(tf.reads) != 1 {
			return "no tiling of the root"
		}
		if got := strconv.FormatFloat(tf.reads[0].rate, 'g', -1, 64); got != want {
			return "ours " + got
		}
	default:
		t.Fatalf("unknown check %q", check)
	}
	return ""
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
