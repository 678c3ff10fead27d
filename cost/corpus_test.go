package cost

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/passes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpusDir finds ../shared/corpus next to the repository root (the
// directory holding go.mod), or skips the test.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test directory")
		}
		dir = parent
	}
	c := filepath.Join(dir, "..", "shared", "corpus")
	if _, err := os.Stat(c); err != nil {
		t.Skipf("corpus not found at %s", c)
	}
	return c
}

// corpusModules parses every module of every corpus file (split at
// "// -----"); chunks that do not parse are the parser's business and are
// skipped.
func corpusModules(t testing.TB, file string) []*hlo.Module {
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	var mods []*hlo.Module
	for _, c := range hlo.SplitInputFile(src) {
		if m, err := hlo.ParseChunk(file, c); err == nil && m.Entry != nil {
			mods = append(mods, m)
		}
	}
	return mods
}

func runCostPasses(t testing.TB, m *hlo.Module, cfg Config) (*passes.Results, *Passes) {
	ps := NewPasses(cfg)
	p, err := passes.NewPipeline(ps.All(), passes.Options{Jobs: 1})
	require.NoError(t, err)
	res, err := p.Run(context.Background(), m)
	require.NoError(t, err)
	return res, ps
}

// Every corpus module gets the three reports without error, on every
// device preset, and every kernel's estimate is finite and positive.
func TestCorpusReports(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir(t), "*.hlo"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	modules := 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			mods := corpusModules(t, f)
			for _, m := range mods {
				for _, dev := range []string{"h100", "tpu-v5e"} {
					cfg := DefaultConfig()
					cfg.Device, err = Preset(dev)
					require.NoError(t, err)
					res, ps := runCostPasses(t, m, cfg)
					cr, ok := passes.ResultOf[*CostResult](res, ps.Cost)
					require.True(t, ok)
					for _, k := range cr.Estimate().Kernels {
						assert.True(t, k.TimeUS >= 0 && k.TimeUS < 1e12, "%s: %v", k.Instr.Name, k.TimeUS)
					}
					_, ok = passes.ResultOf[*CoalescingResult](res, ps.Coalescing)
					assert.True(t, ok)
					_, ok = passes.ResultOf[*UtilizationResult](res, ps.Utilization)
					assert.True(t, ok)
				}
				modules++
			}
		})
	}
	t.Logf("%d corpus modules reported", modules)
	assert.Positive(t, modules)
}
