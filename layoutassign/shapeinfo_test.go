package layoutassign

import (
	"bytes"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

func mustShape(t *testing.T, s string) hlo.Shape {
	t.Helper()
	sh, err := hlo.ParseShape(s)
	require.NoError(t, err)
	return sh
}

// TestDescribeShapeSeedExamples checks the tiled-layout.md examples: element
// (2,3) of F32[3,5]{1,0:T(2,2)} is at 17, element (6,5) of an 8x8 array
// tiled (2,4)(2,1,1,1) at 51 (SEED-ERRATA 8), and the layout the rules
// choose when none is given.
func TestDescribeShapeSeedExamples(t *testing.T) {
	tests := []struct {
		shape, target string
		index         []int64
		want          int64
		chosen        string
		bytes, unpad  int64
	}{
		{"f32[3,5]{1,0:T(2,2)}", "tpu", []int64{2, 3}, 17, "f32[3,5]{1,0:T(2,2)}", 96, 60},
		{"f32[8,8]{1,0:T(2,4)(2,1,1,1)}", "tpu", []int64{6, 5}, 51, "f32[8,8]{1,0:T(2,4)(2,1,1,1)}", 256, 256},
		{"f32[3,5]", "tpu", []int64{2, 3}, 2*128 + 3, "f32[3,5]{1,0:T(4,128)}", 2048, 60},
		{"f32[3,5]", "cpu", []int64{2, 3}, 13, "f32[3,5]{1,0}", 60, 60},
		{"f32[3,5]{0,1}", "gpu", []int64{2, 3}, 11, "f32[3,5]{0,1}", 60, 60},
		{"bf16[4,8]{1,0:T(2,4)(2,1)}", "tpu", []int64{1, 0}, 1, "bf16[4,8]{1,0:T(2,4)(2,1)}", 64, 64},
	}
	for _, tc := range tests {
		t.Run(tc.shape+"/"+tc.target, func(t *testing.T) {
			tg, err := ParseTarget(tc.target)
			require.NoError(t, err)
			info, err := DescribeShape(mustShape(t, tc.shape), tg, ShapeInfoOptions{Index: tc.index, AllIndices: true})
			require.NoError(t, err)
			require.NotNil(t, info.LinearIndex)
			assert.Equal(t, tc.want, *info.LinearIndex)
			assert.Equal(t, tc.chosen, info.Shape)
			assert.Equal(t, tc.bytes, info.Bytes)
			assert.Equal(t, tc.unpad, info.UnpaddedBytes)
			// Every element has its own slot inside the padded array.
			require.Len(t, info.LinearIndices, int(info.Elements))
			sorted := slices.Clone(info.LinearIndices)
			slices.Sort(sorted)
			assert.Len(t, slices.Compact(sorted), int(info.Elements))
			assert.GreaterOrEqual(t, sorted[0], int64(0))
			assert.Less(t, sorted[len(sorted)-1], info.PaddedElements)
			k := 0
			for i, d := range tc.index {
				k = k*int(mustShape(t, tc.shape).Dims[i]) + int(d)
			}
			assert.Equal(t, tc.want, info.LinearIndices[k], "linear_indices is in row-major logical order")
		})
	}
	_, err := DescribeShape(mustShape(t, "(f32[2], s32[])"), TPU(), ShapeInfoOptions{})
	assert.ErrorContains(t, err, "expected an array shape")
	_, err = DescribeShape(mustShape(t, "f32[3,5]"), TPU(), ShapeInfoOptions{Index: []int64{3, 0}})
	assert.Error(t, err)
	_, err = ParseTarget("npu")
	assert.ErrorContains(t, err, "unknown target")
}

// TestWriteSVG checks the drawing of Figure 1 against a golden file and
// that every element's linear index and every padding slot is drawn.
func TestWriteSVG(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteSVG(&b, mustShape(t, "f32[3,5]{1,0:T(2,2)}"), TPU()))
	svg := b.String()
	assert.True(t, strings.HasPrefix(svg, "<svg"))
	assert.Equal(t, 24-15, strings.Count(svg, ">pad<"), "9 padding slots")
	assert.Contains(t, svg, `>17</text>`)
	hlotest.Golden(t, filepath.Join(goldenDir, "figure1.svg.golden"), svg)

	err := WriteSVG(&b, mustShape(t, "f32[1024,1024]"), TPU())
	assert.ErrorContains(t, err, "too large to draw")
}

// TestWriteSVGWidth draws shapes with long minor dimensions, big tiles and
// many dimensions: every drawing is at most MaxSVGWidth pixels wide.
func TestWriteSVGWidth(t *testing.T) {
	width := regexp.MustCompile(`^<svg [^>]*width="(\d+)"`)
	for _, s := range []string{"bf16[8,16]", "f32[4096]", "s8[16,200]", "f32[2,3,5,7]", "pred[4,4]",
		"f32[1,4000]", "f32[30,1]", "u4[8,256]", "f32[3,5]{0,1}", "bf16[2,8,128]{2,1,0:T(8,128)(2,1)}"} {
		var b bytes.Buffer
		require.NoError(t, WriteSVG(&b, mustShape(t, s), TPU()), s)
		m := width.FindStringSubmatch(b.String())
		require.NotNil(t, m, s)
		w, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		assert.LessOrEqual(t, w, MaxSVGWidth, s)
		assert.Greater(t, w, 200, s)
	}
}
