package cost

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest/groundtruth"
	"github.com/hlo-opt/hlo-opt/passes"
)

func tpuV5e(t *testing.T) Config {
	cfg := DefaultConfig()
	d, err := Preset("tpu-v5e")
	require.NoError(t, err)
	cfg.Device = d
	return cfg
}

// An add of two f32[1024,1024] in (8,128) tiles on a TPU v5e, worked by
// hand: 3 arrays of 4 MiB at 687 GiB/s = 12582912 / 737,660,633,088 B/s
// = 17.0579 us; 1,048,576 flops on the vector unit (2048 ALUs at the
// 1.503 GHz the bf16 peak implies: 3.0781e12 flop/s) take 0.341 us:
// memory-bound, no launch overhead.
func TestTPUEstimateByHand(t *testing.T) {
	m, err := hlo.ParseString(`HloModule m

fused {
  a = f32[1024,1024]{1,0:T(8,128)} parameter(0)
  b = f32[1024,1024]{1,0:T(8,128)} parameter(1)
  ROOT s = f32[1024,1024]{1,0:T(8,128)} add(a, b)
}

ENTRY e {
  x = f32[1024,1024]{1,0:T(8,128)} parameter(0)
  y = f32[1024,1024]{1,0:T(8,128)} parameter(1)
  ROOT f = f32[1024,1024]{1,0:T(8,128)} fusion(x, y), kind=kLoop, calls=fused
}
`)
	require.NoError(t, err)
	cr, ok := passes.ResultOf[*CostResult](runCostPasses(t, m, tpuV5e(t)), CostPass)
	require.True(t, ok)
	e := cr.Of(m.Entry.Root)
	require.NotNil(t, e)
	assert.Equal(t, UnitVector, e.Kind())
	assert.InDelta(t, 1048576, e.Flops, 0.5)
	clock := 197e12 / (4 * 2 * 128 * 128)
	assert.InDelta(t, 1048576/(2048*clock)*1e6, e.ComputeUS, 1e-9)
	assert.InDelta(t, 12582912/(687.0*(1<<30))*1e6, e.MemoryUS, 1e-9)
	assert.InDelta(t, e.MemoryUS, e.TimeUS, 1e-12)
	assert.Equal(t, "memory", e.Bound)
}

// The TPU's full-width reduce-window (window 2N-1 padded N-1 on both sides,
// its lowering of a softmax's row maximum) reduces each row once: the
// attention compile's flops agree with the TPU's cost_analysis() (35.17
// GFLOP; the window re-read per output element made 309.8 GFLOP), and no
// GPU word (emitters, coalescing) is in the report.
func TestTPUAttentionFlopsAndWords(t *testing.T) {
	var c groundtruth.Case
	for _, k := range groundtruth.Cases(t, "tpu-v5e") {
		if k.Program == "attention" && k.Size == "large" {
			c = k
		}
	}
	require.NotEmpty(t, c.Dir)
	m, err := c.Module(t, groundtruth.AfterOptimizations)
	require.NoError(t, err)
	res := runCostPasses(t, m, tpuV5e(t))
	cr, ok := passes.ResultOf[*CostResult](res, CostPass)
	require.True(t, ok)
	xla := c.CostAnalysis(t)
	require.NotNil(t, xla)
	assert.InEpsilon(t, xla.Flops, cr.Estimate().Flops, 0.01)

	var text bytes.Buffer
	require.NoError(t, cr.WriteText(&text, m))
	for _, w := range []string{"coalesc", "(loop)", "(reduction)", "(triton)", "emitter", "warps"} {
		assert.NotContains(t, strings.ToLower(text.String()), w)
	}
	assert.Contains(t, text.String(), "(MXU)")

	raw, err := json.Marshal(cr.InstructionReport(m.Entry.Root))
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"unit":"MXU"`)
	assert.NotContains(t, string(raw), `"emitter"`)
}

// A GPU estimate of a module compiled for another backend says so in one
// line of its text and in its JSON; one of a GPU compile says nothing.
func TestForeignBackendNote(t *testing.T) {
	for _, tc := range []struct{ backend, want string }{
		{"tpu-v5e", "compiled for TPU"},
		{"cpu", "compiled for CPU"},
		{"h100", ""},
	} {
		c := groundtruth.Cases(t, tc.backend)[0]
		m, err := c.Module(t, groundtruth.AfterOptimizations)
		require.NoError(t, err)
		cr, ok := passes.ResultOf[*CostResult](runCostPasses(t, m, DefaultConfig()), CostPass)
		require.True(t, ok)
		var text bytes.Buffer
		require.NoError(t, cr.WriteText(&text, m))
		notes := 0
		for _, l := range strings.Split(text.String(), "\n") {
			if strings.HasPrefix(l, "note: ") {
				notes++
				assert.Contains(t, l, tc.want)
			}
		}
		raw, err := json.Marshal(cr.ModuleReport())
		require.NoError(t, err)
		if tc.want == "" {
			assert.Zero(t, notes, c.String())
			assert.NotContains(t, string(raw), `"note"`)
			assert.Equal(t, "gpu", cr.CompiledFor().Backend)
			continue
		}
		assert.Equal(t, 1, notes, c.String())
		assert.Contains(t, string(raw), `"compiled_for":{"backend":"`+strings.ToLower(tc.want[len("compiled for "):])+`"`)
		assert.Contains(t, string(raw), `"note":"this module was `+tc.want)
	}
}
