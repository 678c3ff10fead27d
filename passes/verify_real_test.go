package passes

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// TestRealModulesVerify: every module XLA wrote (the ground-truth dumps
// before and after optimizations, testdata's modules and the corpus)
// passes every verify check; a check that rejects one is wrong.
func TestRealModulesVerify(t *testing.T) {
	paths := hlotest.ModuleFiles(t, "verify") // verify/ holds modules made to fail
	require.NotEmpty(t, paths)
	pl, err := NewPipeline([]*Pass{Verify}, Options{Jobs: 1})
	require.NoError(t, err)
	n := 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, ch := range hlo.SplitInputFile(src) {
			m, err := hlo.ParseOptions{AllowTruncated: true}.ParseChunk(p, ch)
			if err != nil {
				continue // the parser's tests hold the files meant not to parse
			}
			n++
			_, err = pl.Run(context.Background(), m)
			assert.NoError(t, err, "%s", p)
		}
	}
	t.Logf("%d modules verified", n)
}
