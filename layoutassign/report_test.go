package layoutassign

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/passes"
	"github.com/hlo-opt/hlo-opt/passes/render"
)

// runPass runs the layout pass through a pipeline, as hlo-opt does.
func runPass(t testing.TB, m *hlo.Module, opts Options) *passes.Results {
	pl, err := passes.NewPipeline([]*passes.Pass{Pass}, passes.Options{Jobs: 2, Config: map[string]any{ConfigKey: opts}})
	require.NoError(t, err)
	res, err := pl.Run(context.Background(), m)
	require.NoError(t, err)
	return res
}

// TestMemoryReportGolden checks the text memory report of the largest
// corpus module (testdata/layout/corpus_largest.report.golden). The
// reports of the modules under testdata/layout are the hlo-opt golden
// test's (NAME.golden, sections text and json).
func TestMemoryReportGolden(t *testing.T) {
	cases := map[string]string{}
	if hlotest.FindCorpus(t) != "" {
		cases[hlotest.LargestCorpusFile(t)] = filepath.Join(goldenDir, "corpus_largest.report.golden")
	}
	for in, golden := range cases {
		t.Run(filepath.Base(golden), func(t *testing.T) {
			src, err := os.ReadFile(in)
			require.NoError(t, err)
			m, err := hlo.ParseFile(filepath.Base(in), src)
			require.NoError(t, err)
			res := runPass(t, m, caseOptions(string(src)))
			var text, js bytes.Buffer
			require.NoError(t, render.WriteText(&text, res))
			require.NoError(t, render.WriteJSON(&js, res, render.JSONOptions{Indent: " "}))
			hlotest.Golden(t, golden, text.String())
		})
	}
}
