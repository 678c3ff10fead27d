package cost

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// An all-reduce of f32[1024,1024] over 4 devices on H100s runs as a ring:
// each device sends 2*3/4 of its 4 MiB, 6,291,456 bytes, over one
// direction of NVLink (450 GB/s): 13.981 us, plus the 1 us launch. An
// all-gather to f32[4096,1024] sends 3/4 of the 16 MiB gathered array:
// 27.962 us + 1. A copy from host memory (S(5)) moves its 4 MiB over
// PCIe (64 GB/s one way): 65.536 us + 1; a copy within the device reads
// and writes it at 3.35 TB/s: 2.504 us + 1.
func TestCollectivesAndCopiesByHand(t *testing.T) {
	m, err := hlo.ParseString(`HloModule m, replica_count=4

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[1024,1024]{1,0} parameter(0)
  h = f32[1024,1024]{1,0:S(5)} parameter(1)
  ar = f32[1024,1024]{1,0} all-reduce(p), replica_groups={{0,1,2,3}}, to_apply=add
  ag = f32[4096,1024]{1,0} all-gather(p), replica_groups={}, dimensions={0}
  cs = (f32[1024,1024]{1,0}, f32[1024,1024]{1,0:S(5)}, u32[]) copy-start(h)
  cd = f32[1024,1024]{1,0} copy-done(cs)
  ds = (f32[1024,1024]{1,0}, f32[1024,1024]{1,0}, u32[]) copy-start(p)
  dd = f32[1024,1024]{1,0} copy-done(ds)
  ROOT t = (f32[1024,1024]{1,0}, f32[4096,1024]{1,0}, f32[1024,1024]{1,0}, f32[1024,1024]{1,0}) tuple(ar, ag, cd, dd)
}
`)
	require.NoError(t, err)
	me := NewModel(h100(t)).EstimateModule(m)
	by := map[string]*Estimate{}
	for _, e := range me.Kernels {
		by[e.Instr.Name] = e
	}
	assert.NotContains(t, by, "cd", "a copy-done only waits")
	require.Contains(t, by, "ar")
	assert.Equal(t, UnitCollective, by["ar"].Kind())
	assert.InDelta(t, 2*0.75*4194304/450e9*1e6+1, by["ar"].TimeUS, 1e-9)
	assert.InDelta(t, 0.75*16777216/450e9*1e6+1, by["ag"].TimeUS, 1e-9, "no groups: the module's 4 devices")
	assert.Equal(t, UnitDMA, by["cs"].Kind())
	assert.InDelta(t, 4194304/64e9*1e6+1, by["cs"].TimeUS, 1e-9)
	assert.InDelta(t, 2*4194304/3.35e12*1e6+1, by["ds"].TimeUS, 1e-9)
}

// A loop body's kernels run as often as the loop's known_trip_count says;
// the module's time counts them that often and the report says so.
func TestKnownTripCount(t *testing.T) {
	m, err := hlo.ParseString(`HloModule m

body {
  p = (s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[1024] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[1024] exponential(x)
  ROOT r = (s32[], f32[1024]) tuple(j, y)
}

cond {
  p = (s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(12)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  x = f32[1024] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[1024]) tuple(z, x)
  ROOT w = (s32[], f32[1024]) while(t), condition=cond, body=body, backend_config={"known_trip_count":{"n":"12"}}
}
`)
	require.NoError(t, err)
	me := NewModel(h100(t)).EstimateModule(m)
	var y, lt *Estimate
	for _, e := range me.Kernels {
		switch e.Instr.Name {
		case "y":
			y = e
		case "lt":
			lt = e
		}
	}
	require.NotNil(t, y)
	require.NotNil(t, lt)
	assert.Equal(t, int64(12), y.Executions)
	assert.Equal(t, int64(13), lt.Executions, "the condition runs once more")
	sum := 0.0
	for _, e := range me.Kernels {
		sum += e.TimeUS * float64(e.runs())
	}
	assert.InDelta(t, sum, me.TimeUS, 1e-9)
	assert.Contains(t, me.Report(3), "x 12 runs")
}
