package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// An analysis named before a pass that changes the module reports on the
// module as printed: indexing before the layout assignment that inserts a
// copy used to index the old instruction list and crash in its report.
func TestAnalysisBeforeLayoutDescribesTheFinalModule(t *testing.T) {
	in := filepath.Join(hlotest.RepoRoot(t), "testdata", "coalescing", "loop.hlo")
	for _, passes := range []string{"indexing,layout", "indexing,coalescing", "stats,indexing,utilization"} {
		out, errOut, code := hloOpt(t, "", "--passes="+passes, "--emit=both", in)
		require.Equal(t, 0, code, "--passes=%s: %s", passes, errOut)
		assert.Contains(t, out, "%copy.layout.1 = f32[1024,1024]", "--passes=%s: the copy the layout assignment inserted", passes)
		if strings.Contains(passes, "indexing") {
			assert.Contains(t, out, "add(copy.layout.1, p1)\n    output 0 -> operand id = 0 (copy.layout.1):", "--passes=%s: indexing maps of the final module", passes)
		}
	}
}
