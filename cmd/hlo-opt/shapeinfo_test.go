package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

func TestShapeInfoFormats(t *testing.T) {
	// Not a terminal: JSON, as scripts read it.
	out, errOut, code := hloOpt(t, "", "shape-info", "bf16[8,16]")
	require.Equal(t, 0, code, errOut)
	var info struct {
		Shape string `json:"shape"`
		Bytes int64  `json:"bytes"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	assert.Equal(t, "bf16[8,16]{1,0:T(8,128)(2,1)}", info.Shape)
	assert.Equal(t, int64(2048), info.Bytes)

	text, errOut, code := hloOpt(t, "", "shape-info", "--format=text", "--index=1,2", "bf16[8,16]")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(text, "bf16[8,16]{1,0:T(8,128)(2,1)} on tpu(pred=1B)\n"), text)
	assert.Contains(t, text, "size          2.0KiB (2048 bytes), unpadded 256B, 8.0x expansion")
	assert.Contains(t, text, "rule          tpu-16bit-8x128-2x1")
	assert.Contains(t, text, "linear index  5")
	assert.Contains(t, text, "Suggestions:\n  1. minor dim 1 (size 16) pads to 128")

	js, _, code := hloOpt(t, "", "shape-info", "--format=json", "bf16[8,16]")
	assert.Equal(t, 0, code)
	assert.Equal(t, out, js)
	_, errOut, code = hloOpt(t, "", "shape-info", "--format=xml", "bf16[8,16]")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--format=xml")

	svg := filepath.Join(t.TempDir(), "a.svg")
	_, errOut, code = hloOpt(t, "", "shape-info", "--svg", svg, "f32[1000]")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, string(hlotest.ReadFile(t, svg)), `<svg xmlns="http://www.w3.org/2000/svg" width="1136"`)
}
