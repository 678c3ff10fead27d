package passes

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// TestWhatXLAPrintsIsRead: nothing today's XLA (jaxlib 0.12.0.1) prints is
// refused. Its dumps (testdata/xla-today, the ground truth's modules before
// and after optimizations) parse, verify and print back byte for byte;
// every module of the corpus (older XLAs' dumps, truncated ones and
// hand-written tests among them) parses and verifies.
func TestWhatXLAPrintsIsRead(t *testing.T) {
	pl, err := NewPipeline([]*Pass{Verify}, Options{Jobs: 1})
	require.NoError(t, err)
	dumps, err := filepath.Glob(hlotest.TestdataPath(t, "groundtruth", "*", "*", "*", "*_optimizations.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, dumps)
	for _, d := range hlotest.XLATodayDumps(t) {
		dumps = append(dumps, d.Path)
	}
	for _, p := range dumps {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		m, err := hlo.ParseFile(p, src)
		if !assert.NoError(t, err) {
			continue
		}
		_, err = pl.Run(context.Background(), m)
		assert.NoError(t, err, p)
		assert.Equal(t, string(src), m.String(), "%s does not print back byte for byte", p)
	}
	n := 0
	if hlotest.FindCorpus(t) == "" {
		t.Log("../shared/corpus absent")
		return
	}
	for _, p := range hlotest.CorpusFiles(t) {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, ch := range hlo.SplitInputFile(src) {
			m, err := hlo.ParseOptions{AllowTruncated: true}.ParseChunk(p, ch)
			if !assert.NoError(t, err) {
				continue
			}
			_, err = pl.Run(context.Background(), m)
			assert.NoError(t, err, p)
			n++
		}
	}
	t.Logf("%d dumps of today's XLA, %d corpus modules", len(dumps), n)
}
