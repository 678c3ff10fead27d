package layoutassign

import (
	"slices"
	"strings"
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

// TestLivenessPeak checks the analysis on a module whose figures are
// known: the dynamic-update-slice writes into the donated parameter (one
// buffer, a parameter allocation that lives out), sum takes over b1's
// buffer (an elementwise op writing over an operand that dies at it), so
// the temporaries peak at b1 and b2 (256 KiB each on the TPU, f32[512,128]
// tiled 8x128); the parameters and constants (512 B scalars on the TPU)
// are live throughout.
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
	assert.Equal(t, int64(512*kib+512), r.ArgumentBytes)
	assert.Equal(t, int64(512*kib), r.OutputBytes, "the donated parameter is the output")
	assert.Equal(t, int64(512*kib), r.AliasedBytes)
	assert.Equal(t, int64(512*kib), r.TemporaryBytes, "b1 and b2; sum reuses b1")
	assert.Equal(t, int64(1024), r.Stats.ConstantBytes)
	assert.Equal(t, int64(512*kib+512+1024+512*kib), r.PeakBytes)
	assert.Equal(t, "b2", r.PeakAt)
	require.NotEmpty(t, r.LiveAtPeak)
	assert.Equal(t, "buf", r.LiveAtPeak[0].Instruction.Name)
	assert.Equal(t, "parameter, maybe-live-out", r.LiveAtPeak[0].Kind)
	var sum int64
	for i, a := range r.LiveAtPeak {
		sum += a.Cost.Bytes
		if i > 0 {
			assert.GreaterOrEqual(t, r.LiveAtPeak[i-1].Cost.Bytes, a.Cost.Bytes, "largest first")
		}
	}
	assert.Equal(t, r.PeakBytes, sum, "the peak is the allocations live at it")
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

// A computation called from two call sites is analysed as XLA's
// FlattenCallGraph leaves it, one copy per call: the parameter of the
// first call does not share a buffer with the result of the second.
func TestMemoryFlattensCallGraph(t *testing.T) {
	m := parse(t, `HloModule m

callee {
  a = f32[1024] parameter(0)
  ROOT n = f32[1024] negate(a)
}

ENTRY main {
  p = f32[1024] parameter(0)
  c1 = f32[1024] call(p), to_apply=callee
  e = f32[1024] exponential(c1)
  c2 = f32[1024] call(e), to_apply=callee
  ROOT out = f32[1024] add(c2, e)
}`)
	r, err := AnalyzeMemory(m, GPU())
	require.NoError(t, err)
	for _, a := range r.LiveAtPeak {
		if a.Instruction.Name == "p" {
			assert.Equal(t, KindParameter, a.Kind)
			assert.Same(t, m.Entry.Params[0], a.Instruction, "allocations name the module's instructions")
		}
	}
	assert.Equal(t, 9, r.Steps, "callee flattened once per call (5 + 2 + 2)")
	assert.Equal(t, int64(4096), r.ArgumentBytes)
	assert.Equal(t, int64(4096), r.OutputBytes)
}

// An async chain whose start binds nothing (its result is ()) gets its
// result at the async-update, from the computation it runs: the output is
// that computation's value, not the start's empty tuple (the SparseCore
// gather offload of XLA's TPU v6e compiles).
func TestAsyncResultBoundAtUpdate(t *testing.T) {
	m := parse(t, `HloModule m, is_scheduled=true

offload {
  t = f32[1024] parameter(0)
  ROOT g = f32[1024] negate(t)
}, execution_thread="sparsecore"

ENTRY main {
  p = f32[1024] parameter(0)
  s = ((), (), s32[]) async-start(), async_execution_thread="sparsecore", calls=offload
  u = ((f32[1024]), f32[1024], s32[]) async-update(s, p)
  d = f32[1024] async-done(u)
  ROOT out = f32[1024] bitcast(d)
}`)
	r, err := AnalyzeMemory(m, GPU())
	require.NoError(t, err)
	assert.Equal(t, int64(4096), r.OutputBytes, "the result bound at the update is the output")
	assert.Equal(t, int64(4096), r.ArgumentBytes)
}

// A suggestion is measured against the array as the module lays it out:
// none when the module's layout is already smaller than the proposal.
func TestSuggestionAgainstModuleLayout(t *testing.T) {
	sh, err := hlo.ParseShape("f32[128,2]{1,0}")
	require.NoError(t, err)
	s, ok := suggestFor(&ArrayCost{Shape: sh, Bytes: 65536}, TPU())
	require.True(t, ok)
	assert.Equal(t, int64(65536), s.Before)
	assert.Less(t, s.After, s.Before)
	assert.False(t, s.Shape.Equal(sh))
	_, ok = suggestFor(&ArrayCost{Shape: sh, Bytes: s.After}, TPU())
	assert.False(t, ok, "the module's layout is as small as the proposal")
}

// A tuple copy whose abbreviated shapes read the same names the leaves
// that change layout.
func TestCopiedLeaves(t *testing.T) {
	leaves := func(m2m []string) string {
		var parts []string
		for _, l := range m2m {
			parts = append(parts, "f32[8,8]{"+l+"}")
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	from := strings.Split(strings.Repeat("1,0 ", 12), " ")[:12]
	to := slices.Clone(from)
	to[9], to[11] = "0,1", "0,1"
	c := Copy{From: leaves(from), To: leaves(to)}
	assert.Equal(t, AbbreviateShape(c.From), AbbreviateShape(c.To))
	assert.Equal(t, " (leaves {9} {11} change layout)", copiedLeaves(c))
	to[0] = "0,1" // abbreviated shapes drop the layouts of the elements they show
	assert.Equal(t, " (leaves {0} {9} ... 1 more change layout)", copiedLeaves(Copy{From: leaves(from), To: leaves(to)}))
	assert.Empty(t, copiedLeaves(Copy{From: "f32[8,8]{1,0}", To: "f32[8,8]{0,1}"}), "arrays print whole")
}
