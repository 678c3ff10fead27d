package cost

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/passes"
)

// costPassOf runs the cost pass on m with cfg and jobs goroutines.
func costPassOf(t *testing.T, m *hlo.Module, cfg Config, jobs int) *CostResult {
	t.Helper()
	p, err := passes.NewPipeline([]*passes.Pass{CostPass}, passes.Options{Jobs: jobs, Config: cfg.PipelineConfig()})
	require.NoError(t, err)
	res, err := p.Run(context.Background(), m)
	require.NoError(t, err)
	r, ok := passes.ResultOf[*CostResult](res, CostPass)
	require.True(t, ok)
	return r
}

// TestSummaryKeepsTheReport: over every module we hold, on a GPU and a
// TPU, the cost pass's summary (Config.Summary) writes the text report of
// the full result byte for byte and has its module JSON report, with
// the same estimate for each kernel it lists, keeping no other kernel's;
// with several jobs (chunks of kernels estimated at once) as with one.
func TestSummaryKeepsTheReport(t *testing.T) {
	files := hlotest.ModuleFiles(t, "verify") // testdata/verify holds modules made to fail
	modules := 0
	for _, dev := range []string{"h100", "tpu-v5e"} {
		d, err := Preset(dev)
		require.NoError(t, err)
		for _, f := range files {
			// Each run lays out a module of its own (the layout
			// assignment changes the module).
			fulls, sums1, sums4 := hlotest.ParseModules(t, f), hlotest.ParseModules(t, f), hlotest.ParseModules(t, f)
			for i, cm := range fulls {
				rel, _ := filepath.Rel(hlotest.RepoRoot(t), cm.Path)
				cfg := DefaultConfig()
				cfg.Device = d
				full := costPassOf(t, cm.Module, cfg, 1)
				var want bytes.Buffer
				require.NoError(t, full.WriteText(&want, cm.Module))
				wantJSON, err := json.Marshal(full.ModuleReport())
				require.NoError(t, err)
				top := full.Estimate().Top(cfg.Top)
				cfg.Summary = true
				for jobs, m := range map[int]*hlo.Module{1: sums1[i].Module, 4: sums4[i].Module} {
					sum := costPassOf(t, m, cfg, jobs)
					var got bytes.Buffer
					require.NoError(t, sum.WriteText(&got, m))
					if !assert.Equal(t, want.String(), got.String(), "%s %s#%d --jobs=%d", dev, rel, cm.Chunk, jobs) {
						return
					}
					gotJSON, err := json.Marshal(sum.ModuleReport())
					require.NoError(t, err)
					assert.JSONEq(t, string(wantJSON), string(gotJSON), "%s %s#%d", dev, rel, cm.Chunk)
					assert.Equal(t, full.Estimate().NumKernels(), sum.Estimate().NumKernels())
					assert.Nil(t, sum.Estimate().Kernels, "a summary keeps its top kernels only")
					// The same estimates, of the same module's kernels.
					names := func(es []*Estimate) (out []string) {
						for _, e := range es {
							out = append(out, e.Instr.Parent.Name+"/"+e.Instr.Name)
						}
						return out
					}
					kept := sum.Estimate().Top(cfg.Top)
					require.Equal(t, names(top), names(kept), "%s %s#%d", dev, rel, cm.Chunk)
					for k, e := range kept {
						want := *top[k]
						want.Instr, want.Cost = e.Instr, e.Cost
						assert.Equal(t, &want, e, "%s %s#%d: %s", dev, rel, cm.Chunk, e.Instr.Name)
						assert.Same(t, e, sum.Of(e.Instr))
					}
				}
				modules++
			}
		}
	}
	t.Logf("%d modules", modules)
	assert.Positive(t, modules)
}
