package cost

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
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
	for _, f := range hlotest.CorpusFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
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
	}
	t.Logf("%d corpus modules reported", modules)
	assert.Positive(t, modules)
}
