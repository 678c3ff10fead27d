package cost

import (
	"context"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runCostPasses(t testing.TB, m *hlo.Module, cfg Config) *passes.Results {
	p, err := passes.NewPipeline(All(), passes.Options{Jobs: 1, Config: cfg.PipelineConfig()})
	require.NoError(t, err)
	res, err := p.Run(context.Background(), m)
	require.NoError(t, err)
	return res
}

// Every corpus module gets the three reports without error, on every
// device preset, and every kernel's estimate is finite and positive.
func TestCorpusReports(t *testing.T) {
	modules := 0
	hlotest.RunCorpusFiles(t, func(t *testing.T, f string) {
		for _, cm := range hlotest.ParseModules(t, f) {
			m := cm.Module
			for _, dev := range []string{"h100", "tpu-v5e"} {
				cfg := DefaultConfig()
				var err error
				cfg.Device, err = Preset(dev)
				require.NoError(t, err)
				res := runCostPasses(t, m, cfg)
				cr, ok := passes.ResultOf[*CostResult](res, CostPass)
				require.True(t, ok)
				for _, k := range cr.Estimate().Kernels {
					assert.True(t, k.TimeUS >= 0 && k.TimeUS < 1e12, "%s: %v", k.Instr.Name, k.TimeUS)
				}
				_, ok = passes.ResultOf[*CoalescingResult](res, CoalescingPass)
				assert.True(t, ok)
				_, ok = passes.ResultOf[*UtilizationResult](res, UtilizationPass)
				assert.True(t, ok)
			}
			modules++
		}
	})
	t.Logf("%d corpus modules reported", modules)
	assert.Positive(t, modules)
}

// The cost passes read layouts, so they run after the layout assignment
// they require: an array without a stated layout gets the device's. Inside
// a fusion two stated layouts may meet (here at the add): XLA's layout
// assignment leaves fused computations alone and its emitters read each
// operand through its own layout, so no copy goes between them and the
// transposed operand is read uncoalesced (XLA's RhsTransposedLayout).
func TestCostPassesRequireLayoutAssignment(t *testing.T) {
	m, err := hlo.ParseString(`HloModule m

fused {
  p0 = f32[1024,1024]{0,1} parameter(0)
  p1 = f32[1024,1024]{1,0} parameter(1)
  ROOT a = f32[1024,1024]{1,0} add(p0, p1)
}

ENTRY main {
  x = f32[1024,1024]{0,1} parameter(0)
  y = f32[1024,1024] parameter(1)
  ROOT f = f32[1024,1024]{1,0} fusion(x, y), kind=kLoop, calls=fused
}
`)
	require.NoError(t, err)
	var ran []string
	cfg := DefaultConfig()
	pl, err := passes.NewPipeline([]*passes.Pass{CoalescingPass}, passes.Options{Jobs: 1, Config: cfg.PipelineConfig(),
		AfterPass: func(e passes.PassEvent) error { ran = append(ran, e.Pass.Name); return nil }})
	require.NoError(t, err)
	res, err := pl.Run(context.Background(), m)
	require.NoError(t, err)
	assert.Equal(t, []string{layoutassign.AssignPass.Name, KernelsPass.Name, CoalescingPass.Name}, ran)

	y := m.Entry.Params[1]
	require.NotNil(t, y.Shape.Layout, "y laid out")
	assert.Equal(t, []int64{1, 0}, y.Shape.Layout.MinorToMajor)
	assert.Empty(t, y.Shape.Layout.Tiles, "GPU layouts have no tiles")
	f := m.Entry.Root
	copies := 0
	for _, in := range f.Called[0].Instructions {
		if in.Opcode == hlo.OpCopy {
			copies++
		}
	}
	assert.Zero(t, copies, "no copy inside the fusion where {0,1} meets {1,0}")
	r, ok := passes.ResultOf[*CoalescingResult](res, CoalescingPass)
	require.True(t, ok)
	got := r.Of(f)
	require.Len(t, got, 2)
	assert.False(t, got[0].Coalesced, "the transposed operand: %s", got[0].Reason)
	assert.True(t, got[1].Coalesced, "%s", got[1].Reason)
}
