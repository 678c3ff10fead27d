package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// The page shows the xla-cost pass's figures when it ran, with
// optimal_seconds on a TPU the pass knows the rates of; without it, none.
func TestPageShowsXLACost(t *testing.T) {
	f := hlotest.TestdataPath(t, "groundtruth", "mlp", "tpu-v5e", "small", "after_optimizations.txt")
	page, errOut, code := hloOpt(t, "", "--passes=layout,cost,xla-cost", "--device=tpu-v5e", "--format=html", f)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, page, `<tr id="xla-cost">`)
	assert.Contains(t, page, `data-key="optimal_seconds"`)
	assert.Contains(t, page, `<th class="num">XLA flops</th>`)
	page, errOut, code = hloOpt(t, "", "--passes=layout,cost", "--device=tpu-v5e", "--format=html", f)
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, page, `id="xla-cost"`)
	assert.NotContains(t, page, "XLA flops")
}
