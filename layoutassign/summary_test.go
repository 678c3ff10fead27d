package layoutassign

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// TestSummaryKeepsTheReport checks that a summary memory report
// (Options.Summary) is the full report without the spaces' Buffers and
// Timeline, and writes the same text, on every module we hold and each
// backend.
func TestSummaryKeepsTheReport(t *testing.T) {
	files := hlotest.ModuleFiles(t, "verify") // testdata/verify holds modules made to fail
	modules := 0
	for _, tgt := range []Target{TPU(), GPU(), CPU()} {
		for _, f := range files {
			for _, cm := range hlotest.ParseModules(t, f) {
				rel, _ := filepath.Rel(hlotest.RepoRoot(t), cm.Path)
				as, err := Assign(cm.Module, Options{Target: tgt})
				if err != nil {
					continue // a module the assignment refuses has no report
				}
				full, err := analyzeMemory(cm.Module, tgt, false)
				if err != nil {
					continue
				}
				sum, err := analyzeMemory(cm.Module, tgt, true)
				require.NoError(t, err, "%s %s#%d", tgt, rel, cm.Chunk)
				var want, got bytes.Buffer
				require.NoError(t, (&Result{Assignment: as, Memory: full}).WriteText(&want, cm.Module))
				require.NoError(t, (&Result{Assignment: as, Memory: sum}).WriteText(&got, cm.Module))
				if !assert.Equal(t, want.String(), got.String(), "%s %s#%d", tgt, rel, cm.Chunk) {
					return
				}
				for i := range sum.Spaces {
					assert.Nil(t, sum.Spaces[i].Buffers)
					assert.Nil(t, sum.Spaces[i].Timeline)
					full.Spaces[i].Buffers, full.Spaces[i].Timeline = nil, nil
				}
				assert.Equal(t, full, sum, "%s %s#%d", tgt, rel, cm.Chunk)
				modules++
			}
		}
	}
	t.Logf("%d modules", modules)
	assert.Positive(t, modules)
}
