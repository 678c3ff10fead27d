package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// --device picks a preset or reads a JSON device file; --coalescing picks
// the analysis; bad values are usage errors.
func TestCostFlags(t *testing.T) {
	in := filepath.Join(hlotest.RepoRoot(t), "testdata", "cost", "mixed.hlo")
	out, errOut, code := hloOpt(t, "", "--passes=cost", "--device=a100", in)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "cost: device a100:")

	dev := filepath.Join(t.TempDir(), "dev.json")
	require.NoError(t, os.WriteFile(dev, []byte(`{"base": "h100", "name": "h100-pcie", "memory_bandwidth_bytes_per_s": 2.0e12}`), 0o644))
	out, errOut, code = hloOpt(t, "", "--passes=cost", "--device="+dev, in)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "cost: device h100-pcie:")

	out, errOut, code = hloOpt(t, "", "--passes=coalescing", "--coalescing=heuristic", in)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "coalescing (heuristic, h100)")

	_, errOut, code = hloOpt(t, "", "--passes=cost", "--device=nope", in)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unknown device "nope"`)
	_, errOut, code = hloOpt(t, "", "--passes=cost", "--coalescing=maybe", in)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--coalescing=maybe")
}
