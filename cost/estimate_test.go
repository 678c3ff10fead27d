package cost

import (
	"strings"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
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
// all. Flops 3*N = 3,145,728 over 1.98e9*2*128*132 flop/s = 0.047016 us.
// Memory-bound: 3.756093 + 1 us launch = 4.756093 us.
func TestEstimateElementwiseByHand(t *testing.T) {
	f := newComp(t, "fused")
	a, b := f.param(0, "a", "f32[1024,1024]"), f.param(1, "b", "f32[1024,1024]")
	f.op("add", "add", "f32[1024,1024]", a, b)
	m := NewModel(h100(t))
	e := m.Estimate(fuse(t, f))

	assert.Equal(t, LaunchDims{Blocks: 2048, ThreadsPerBlock: 128, Unroll: 4, Vector: 1, Note: "loop"}, e.Launch)
	assert.InDelta(t, 3145728, e.Flops, 0.5)
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
