package cost

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest/groundtruth"
	"github.com/hlo-opt/hlo-opt/passes"
)

// The TPU model's module time (--device=tpu-v5e or tpu-v6e, the compile's
// chip) against the TPU compiler's own roofline of the module,
// cost_analysis()'s optimal_seconds, on every TPU compile of
// testdata/groundtruth (libtpu 0.0.52). The table is
// testdata/groundtruth/tpu-times.golden; README's "How close" table quotes
// its summary.

type tpuTimeRow struct {
	c          groundtruth.Case
	ours, xla  float64 // us
	flops, xfl float64
	note       string
}

func TestGroundtruthTPUTimes(t *testing.T) {
	var rows []tpuTimeRow
	for _, c := range groundtruth.Cases(t, "tpu-v5e", "tpu-v5e-4way", "tpu-v6e") {
		ca := c.CostAnalysis(t)
		if ca == nil {
			continue
		}
		m, err := c.Module(t, groundtruth.AfterOptimizations)
		require.NoError(t, err, c.String())
		dev := "tpu-v5e"
		if c.Backend == "tpu-v6e" {
			dev = "tpu-v6e"
		}
		cfg := DefaultConfig()
		cfg.Device, err = Preset(dev)
		require.NoError(t, err)
		cr, ok := passes.ResultOf[*CostResult](runCostPasses(t, m, cfg), CostPass)
		require.True(t, ok)
		me := cr.Estimate()
		row := tpuTimeRow{c: c, ours: me.TimeUS, xla: ca.OptimalSeconds * 1e6, flops: me.Flops, xfl: ca.Flops}
		if ca.OptimalSeconds < 0 {
			row.note = fmt.Sprintf("XLA's optimal_seconds is %.6g: %d ops it could not cost count -1 s each", ca.OptimalSeconds, int(math.Ceil(-ca.OptimalSeconds)))
		}
		rows = append(rows, row)
	}
	var b strings.Builder
	b.WriteString("# TPU module times: hlo-opt's estimate against cost_analysis()'s optimal_seconds\n\n")
	b.WriteString("Ours: the cost pass's module time on the compile's chip (tpu-v5e for v5e and v5e 4-way, tpu-v6e).\n")
	b.WriteString("XLA: optimal_seconds of the TPU compile (libtpu 0.0.52), the TPU compiler's own roofline; modules where it is negative are listed apart.\n\n")
	var est, xla, abs []float64
	inside := map[float64]int{}
	for _, r := range rows {
		if r.note != "" || r.xla <= 0 {
			continue
		}
		est, xla = append(est, r.ours), append(xla, r.xla)
		l := math.Abs(math.Log2(r.ours / r.xla))
		abs = append(abs, l)
		for _, f := range []float64{1.25, 2} {
			if l <= math.Log2(f) {
				inside[f]++
			}
		}
	}
	require.NotEmpty(t, est)
	n := float64(len(est))
	flopsClose := 0
	for _, r := range rows {
		if within(r.flops, r.xfl, 0.05) {
			flopsClose++
		}
	}
	fmt.Fprintf(&b, "| modules | Spearman | median abs log2(est/xla) | within 1.25x | within 2x |\n|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| %d | %.3f | %.3f | %.0f%% | %.0f%% |\n\n", len(est), spearman(est, xla), median(abs), 100*float64(inside[1.25])/n, 100*float64(inside[2])/n)
	fmt.Fprintf(&b, "Module flops (the cost pass's sum) within 5%% of cost_analysis()'s flops on %d of %d compiles.\n\n", flopsClose, len(rows))
	b.WriteString("| program | backend | size | XLA us | ours us | ours/XLA | XLA GFLOP | ours GFLOP |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		ratio := "-"
		if r.note == "" && r.xla > 0 {
			ratio = fmt.Sprintf("%.3f", r.ours/r.xla)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.4g | %.4g | %s | %.4g | %.4g |\n", r.c.Program, r.c.Backend, r.c.Size, r.xla, r.ours, ratio, r.xfl/1e9, r.flops/1e9)
	}
	b.WriteString("\n## Modules XLA gives no time for\n\n")
	for _, r := range rows {
		if r.note != "" {
			fmt.Fprintf(&b, "- %s: %s; ours %.4g us\n", r.c, r.note, r.ours)
		}
	}
	hlotest.Golden(t, filepath.Join(groundtruth.Dir(t), "tpu-times.golden"), b.String())
	t.Logf("TPU module times: %d modules, Spearman %.3f, median |log2| %.3f, within 2x %.0f%%", len(est), spearman(est, xla), median(abs), 100*float64(inside[2])/n)
	assert.GreaterOrEqual(t, spearman(est, xla), 0.9, "Spearman of the module times")
}

// within: ours is within tol (a fraction) of xla's figure.
func within(ours, xla, tol float64) bool {
	return ours == xla || math.Abs(ours-xla) <= tol*math.Abs(xla)
}
