package layoutassign

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/passes"
)

func parse(t *testing.T, src string) *hlo.Module {
	t.Helper()
	m, err := hlo.ParseString(src)
	require.NoError(t, err)
	return m
}

// TestLivenessPeak checks the walk on a module whose peak is known: three
// [512,128] f32 temporaries (256 KiB each) are live at the add, next to the
// parameters; the dynamic-update-slice writes into the donated parameter,
// so its output is no new buffer.
func TestLivenessPeak(t *testing.T) {
	m := parse(t, `HloModule live, input_output_alias={ {}: (0, {}, may-alias) }

ENTRY main {
  buf = f32[1024,128] parameter(0)
  i = s32[] parameter(1)
  zero = f32[] constant(0)
  b1 = f32[512,128] broadcast(zero), dimensions={}
  b2 = f32[512,128] broadcast(zero), dimensions={}
  sum = f32[512,128] add(b1, b2)
  z = s32[] constant(0)
  ROOT dus = f32[1024,128] dynamic-update-slice(buf, sum, i, z)
}
`)
	_, err := Assign(m, Options{Target: TPU()})
	require.NoError(t, err)
	r, err := AnalyzeMemory(m, TPU())
	require.NoError(t, err)
	const kib = 1024
	assert.Equal(t, "sum", r.PeakAt)
	// buf 512K + i 512B (parameters) + b1, b2, sum 3*256K; zero died at
	// b2 and z is not defined yet.
	assert.Equal(t, int64(512*kib+512+3*256*kib), r.PeakBytes)
	assert.Equal(t, int64(512*kib), r.AliasedBytes)
	assert.Equal(t, int64(512*kib), r.OutputBytes)
	require.NotEmpty(t, r.LiveAtPeak)
	assert.Equal(t, "buf", r.LiveAtPeak[0].Instruction.Name)
	assert.Equal(t, "parameter, aliased with output", r.LiveAtPeak[0].Kind)
	for i := 1; i < len(r.LiveAtPeak); i++ {
		assert.GreaterOrEqual(t, r.LiveAtPeak[i-1].Cost.Bytes, r.LiveAtPeak[i].Cost.Bytes, "largest first")
	}
	var sum int64
	for _, a := range r.LiveAtPeak {
		sum += a.Cost.Bytes
	}
	assert.Equal(t, r.PeakBytes, sum, "the peak is the allocations live at it")
}

// TestLivenessCalleeAndInPlace checks that a while loop adds its body's
// own temporaries at the loop, and that an in-place update copies an
// operand that is still used afterwards.
func TestLivenessCalleeAndInPlace(t *testing.T) {
	m := parse(t, `HloModule loop

cond {
  cp = (s32[], f32[8,128]) parameter(0)
  ci = s32[] get-tuple-element(cp), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(ci, n), direction=LT
}

body {
  bp = (s32[], f32[8,128]) parameter(0)
  bi = s32[] get-tuple-element(bp), index=0
  bx = f32[8,128] get-tuple-element(bp), index=1
  big = f32[64,128] concatenate(bx, bx, bx, bx, bx, bx, bx, bx), dimensions={0}
  red = f32[8,128] slice(big), slice={[0:8], [0:128]}
  ROOT bt = (s32[], f32[8,128]) tuple(bi, red)
}

ENTRY main {
  x = f32[8,128] parameter(0)
  c = s32[] constant(0)
  init = (s32[], f32[8,128]) tuple(c, x)
  w = (s32[], f32[8,128]) while(init), condition=cond, body=body
  y = f32[8,128] get-tuple-element(w), index=1
  e = f32[8,128] exponential(y)
  upd = f32[1,128] slice(e), slice={[0:1], [0:128]}
  i = s32[] constant(0)
  d1 = f32[8,128] dynamic-update-slice(e, upd, i, i)
  ROOT out = (f32[8,128], f32[8,128]) tuple(d1, e)
}
`)
	_, err := Assign(m, Options{Target: TPU()})
	require.NoError(t, err)
	r, err := AnalyzeMemory(m, TPU())
	require.NoError(t, err)
	assert.Equal(t, "w", r.PeakAt)
	var extra *Allocation
	for i := range r.LiveAtPeak {
		if r.LiveAtPeak[i].Extra {
			extra = &r.LiveAtPeak[i]
		}
	}
	require.NotNil(t, extra, "the body's temporaries are live at the loop")
	assert.Equal(t, "body", extra.Called)
	assert.Equal(t, int64(64*128*4+8*128*4), extra.Cost.Bytes, "big and red")
	// e stays live for the root tuple, so d1 gets its own buffer: both are
	// outputs, returned through the root tuple's 512-byte index table.
	assert.Equal(t, int64(2*8*128*4+512), r.OutputBytes)
}

// TestPassInPipeline runs the pass as hlo-opt does: the result is a
// *Result, the IR changed (verified after the pass), and the JSON report
// of an instruction has the documented fields.
func TestPassInPipeline(t *testing.T) {
	m := parse(t, `HloModule p

ENTRY main {
  a = bf16[3,5] parameter(0)
  ROOT n = bf16[3,5] negate(a)
}
`)
	res := runPass(t, m, Options{Target: TPU()})
	require.Len(t, res.Passes, 1)
	r, ok := passes.ResultOf[*Result](res, res.Passes[0])
	require.True(t, ok)
	assert.True(t, r.Assignment.Changed)
	j, ok := r.InstructionReport(m.Entry.Root).(ArrayJSON)
	require.True(t, ok)
	assert.Equal(t, "bf16[3,5]{1,0:T(4,128)(2,1)}", j.Shape)
	assert.Equal(t, int64(4*128*2), j.Bytes)
	assert.Equal(t, int64(30), j.UnpaddedBytes)
	assert.Equal(t, RuleTPUCompact4x128.Name, j.Rule)
	assert.InDelta(t, 1024.0/30.0, j.Expansion, 0.001)
}
