package cost

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// TestXLATodayXLACost sets XLACost beside the cost_analysis() that the
// pinned XLA gave for each program of testdata/xla-today (while loops,
// scans, sorts, top-k, FFT, embeddings, a transformer block and its train
// step, collectives over 4 devices, prefetching loops), written to
// testdata/xla-cost/xla-today.golden: flops, transcendentals and bytes
// accessed within 1% on every compile XLA gave figures for.
func TestXLATodayXLACost(t *testing.T) {
	files, err := filepath.Glob(hlotest.TestdataPath(t, "xla-today", "*", "*.cost.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var b strings.Builder
	b.WriteString("# xla-cost on testdata/xla-today against XLA's cost_analysis() of the same compiles\n\n")
	b.WriteString("ours/XLA's per figure; \"none\": XLA gives no cost_analysis() (deviceless GPU compile).\n\n")
	b.WriteString("| backend | program | XLA flops | ours/XLA | XLA transcendentals | ours/XLA | XLA bytes accessed | ours/XLA | XLA optimal_seconds | ours/XLA |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	compared, close := 0, 0
	for _, f := range files {
		backend := filepath.Base(filepath.Dir(f))
		program := strings.TrimSuffix(filepath.Base(f), ".cost.json")
		target, ok := xlaTargetOfDir(backend)
		require.True(t, ok, backend)
		var want map[string]float64
		require.NoError(t, json.Unmarshal(hlotest.ReadFile(t, f), &want), f)
		if want == nil {
			fmt.Fprintf(&b, "| %s | %s | none | | | | | | | |\n", backend, program)
			continue
		}
		path := filepath.Join(filepath.Dir(f), program+".after.hlo")
		if _, err := os.Stat(path); err != nil {
			continue
		}
		m, err := hlo.ParseFile(path, hlotest.ReadFile(t, path))
		require.NoError(t, err, path)
		c := XLACost(m, target)
		fmt.Fprintf(&b, "| %s | %s", backend, program)
		all := true
		for _, fig := range []gtFigure{
			{"flops", c.Module.Flops, want["flops"]},
			{"transcendentals", c.Module.Transcendentals, want["transcendentals"]},
			{"bytes accessed", c.Module.BytesAccessed, want["bytes accessed"]},
			{"optimal_seconds", c.Module.OptimalSeconds, want["optimal_seconds"]},
		} {
			if fig.name == "optimal_seconds" && !c.HasOptimalSeconds() {
				b.WriteString(" | - | -")
				continue
			}
			fmt.Fprintf(&b, " | %.6g | %s", fig.xla, ratioText(fig.ours, fig.xla))
			ok := fig.within(0.01)
			all = all && ok
			assert.True(t, ok, "%s/%s %s: ours %.6g, XLA's %.6g", backend, program, fig.name, fig.ours, fig.xla)
		}
		b.WriteString(" |\n")
		compared++
		close += b2i(all)
	}
	fmt.Fprintf(&b, "\nEvery figure within 1%% on %d of %d compiles XLA gave figures for.\n", close, compared)
	hlotest.Golden(t, hlotest.TestdataPath(t, "xla-cost", "xla-today.golden"), b.String())
}
