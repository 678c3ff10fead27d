package layoutassign

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

func shapeOf(t hlo.PrimitiveType, dims []int64, m2m ...int64) hlo.Shape {
	if m2m == nil {
		return hlo.MakeShape(t, dims...)
	}
	return hlo.MakeShapeWithLayout(t, dims, m2m)
}

func tilesString(ts []hlo.Tile) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.String())
	}
	return b.String()
}

func TestChooseTilingRules(t *testing.T) {
	packedPred := TPU()
	packedPred.PackedPred = true
	pred4 := TPU()
	pred4.PredBytes = 4
	tests := []struct {
		shape  hlo.Shape
		target Target
		tiles  string
		ebits  int64
		rule   Rule
	}{
		// Scalars: one linear tile of 128 32-bit words.
		{shapeOf(hlo.F32, nil), TPU(), "(128)", 0, RuleTPUScalar},
		{shapeOf(hlo.BF16, nil), TPU(), "(256)", 0, RuleTPUScalar},
		{shapeOf(hlo.PRED, nil), TPU(), "(512)", 0, RuleTPUScalar},
		{shapeOf(hlo.S8, nil), TPU(), "(512)", 0, RuleTPUScalar},
		// Rank 1, 32-bit: rows*128 up to 1024.
		{shapeOf(hlo.U32, []int64{3}), TPU(), "(128)", 0, RuleTPURank1},
		{shapeOf(hlo.S32, []int64{256}), TPU(), "(256)", 0, RuleTPURank1},
		{shapeOf(hlo.F32, []int64{300}), TPU(), "(512)", 0, RuleTPURank1},
		{shapeOf(hlo.F32, []int64{4096}), TPU(), "(1024)", 0, RuleTPURank1},
		// Rank 1, packed types.
		{shapeOf(hlo.BF16, []int64{128}), TPU(), "(256)(128)(2,1)", 0, RuleTPURank1Packed},
		{shapeOf(hlo.BF16, []int64{512}), TPU(), "(512)(128)(2,1)", 0, RuleTPURank1Packed},
		{shapeOf(hlo.BF16, []int64{1536}), TPU(), "(1024)(128)(2,1)", 0, RuleTPURank1Packed},
		{shapeOf(hlo.S8, []int64{4194304}), TPU(), "(1024)(128)(4,1)", 0, RuleTPURank1Packed},
		{shapeOf(hlo.S4, []int64{64}), TPU(), "(1024)(128)(8,1)", 4, RuleTPURank1Packed},
		// Rank >= 2 by second-minor size and width.
		{shapeOf(hlo.F32, []int64{1024, 4, 14336}, 2, 1, 0), TPU(), "(4,128)", 0, RuleTPUCompact4x128},
		{shapeOf(hlo.F32, []int64{1536, 3}, 0, 1), TPU(), "(4,128)", 0, RuleTPUCompact4x128},
		{shapeOf(hlo.F32, []int64{1, 128, 1, 1}, 1, 3, 2, 0), TPU(), "(1,128)", 0, RuleTPUCompact1x128},
		{shapeOf(hlo.F32, []int64{2, 128}), TPU(), "(2,128)", 0, RuleTPUCompact2x128},
		{shapeOf(hlo.F32, []int64{5, 128}), TPU(), "(8,128)", 0, RuleTPU32Bit},
		{shapeOf(hlo.S32, []int64{1, 128, 128256}), TPU(), "(8,128)", 0, RuleTPU32Bit},
		{shapeOf(hlo.BF16, []int64{1, 128, 1, 32, 1}, 1, 4, 3, 2, 0), TPU(), "(2,128)(2,1)", 0, RuleTPUCompact2x128},
		{shapeOf(hlo.BF16, []int64{4, 4096}), TPU(), "(4,128)(2,1)", 0, RuleTPUCompact4x128},
		{shapeOf(hlo.BF16, []int64{8, 1, 1280, 16384}, 3, 2, 0, 1), TPU(), "(8,128)(2,1)", 0, RuleTPU16Bit},
		{shapeOf(hlo.S8, []int64{1, 1, 1}), TPU(), "(4,128)(4,1)", 0, RuleTPUCompact4x128},
		{shapeOf(hlo.S8, []int64{64, 64}), TPU(), "(8,128)(4,1)", 0, RuleTPU8Bit},
		{shapeOf(hlo.F8E4M3FN, []int64{16, 256}), TPU(), "(8,128)(4,1)", 0, RuleTPU8Bit},
		{shapeOf(hlo.S4, []int64{2, 256}), TPU(), "(8,128)(8,1)", 4, RuleTPUSubByte},
		{shapeOf(hlo.U2, []int64{2, 256}), TPU(), "(16,128)(16,1)", 2, RuleTPUSubByte},
		{shapeOf(hlo.F64, []int64{2, 256}), TPU(), "(8,128)", 0, RuleTPUWide},
		// c64 as two f32 arrays (XLA's TPU dumps: c64[2,33,5]{1,0,2:T(2,128)},
		// c64[1,7,6,5]{1,0,3,2:T(1,128)}).
		{shapeOf(hlo.C64, []int64{2, 33, 5}, 1, 0, 2), TPU(), "(2,128)", 0, RuleTPUCompact2x128},
		{shapeOf(hlo.C64, []int64{1, 7, 6, 5}, 1, 0, 3, 2), TPU(), "(1,128)", 0, RuleTPUCompact1x128},
		{shapeOf(hlo.C64, []int64{12, 4, 257}, 2, 0, 1), TPU(), "(8,128)", 0, RuleTPU32Bit},
		// PRED by target.
		{shapeOf(hlo.PRED, []int64{1, 128, 1}, 1, 2, 0), TPU(), "(4,128)(4,1)", 0, RuleTPUPred},
		{shapeOf(hlo.PRED, []int64{1, 128, 128256}), TPU(), "(8,128)(4,1)", 0, RuleTPUPred},
		{shapeOf(hlo.PRED, []int64{16, 128}), pred4, "(8,128)", 0, RuleTPUPred},
		{shapeOf(hlo.PRED, []int64{16, 128}), packedPred, "(32,128)(32,1)", 1, RuleTPUPred},
		// GPU and CPU.
		{shapeOf(hlo.F32, []int64{3, 5}), GPU(), "", 0, RuleUntiled},
		{shapeOf(hlo.PRED, []int64{3, 5}), CPU(), "", 0, RuleUntiled},
		{shapeOf(hlo.S4, []int64{100, 9}), GPU(), "", 4, RuleUntiledSubByte},
		{hlo.MakeTupleShape(shapeOf(hlo.F32, []int64{3})), TPU(), "", 0, RuleUntiled},
		{shapeOf(hlo.F32, []int64{3, 4}, 0, 7), TPU(), "", 0, RuleInvalidLayout},
	}
	covered := map[string]bool{}
	for _, tc := range tests {
		t.Run(tc.shape.String()+"/"+tc.target.String(), func(t *testing.T) {
			tiles, ebits, rule := ChooseTiling(tc.shape, tc.target)
			assert.Equal(t, tc.tiles, tilesString(tiles))
			assert.Equal(t, tc.ebits, ebits)
			assert.Equal(t, tc.rule.Name, rule.Name)
			covered[rule.Name] = true
		})
	}
	for _, r := range Rules() {
		assert.True(t, covered[r.Name], "rule %s has no table case", r.Name)
		assert.NotEmpty(t, r.Doc, "rule %s", r.Name)
	}
}

func TestWithTiling(t *testing.T) {
	s := hlo.MakeTupleShape(shapeOf(hlo.BF16, []int64{4, 4096}), shapeOf(hlo.S4, []int64{2, 256}),
		hlo.Shape{Type: hlo.TOKEN})
	got := WithTiling(s, TPU())
	assert.Equal(t, "(bf16[4,4096]{1,0:T(4,128)(2,1)}, s4[2,256]{1,0:T(8,128)(8,1)E(4)}, token[])", got.String())
	// The input is not modified.
	assert.Equal(t, "(bf16[4,4096]{1,0}, s4[2,256]{1,0}, token[])", s.String())
	assert.Equal(t, "f32[]{:T(128)}", WithTiling(shapeOf(hlo.F32, nil), TPU()).String())
}

func TestTargetString(t *testing.T) {
	p := TPU()
	p.PackedPred = true
	assert.Equal(t, "tpu(pred=1B)", TPU().String())
	assert.Equal(t, "gpu(pred=1B)", GPU().String())
	assert.Equal(t, "cpu(pred=4B)", Target{Backend: BackendCPU, PredBytes: 4}.String())
	assert.Equal(t, "tpu(pred=1b packed)", p.String())
	assert.Equal(t, "Backend(9)", Backend(9).String())
}

// ---- agreement with XLA TPU's choices in the corpus ----

// tpuShapeRE matches a dense array shape with a TPU tiled layout, e.g.
// bf16[2,3]{1,0:T(8,128)(2,1)S(1)} (test-only; the hlo parser is not used
// so that this test stands alone).
var tpuShapeRE = regexp.MustCompile(`\b([a-z][a-z0-9]*)\[([0-9,]*)\]\{([0-9,]*):T((?:\([0-9,*]+\))+)([^}]*)\}`)
var tileRE = regexp.MustCompile(`\(([0-9,*]+)\)`)
var elemSizeRE = regexp.MustCompile(`E\(([0-9]+)\)`)

func parseInts(s string) []int64 {
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	out := make([]int64, len(parts))
	for i, p := range parts {
		if p == "*" {
			out[i] = hlo.CombinedDim
			continue
		}
		out[i], _ = strconv.ParseInt(p, 10, 64)
	}
	return out
}

type corpusShape struct {
	text  string
	shape hlo.Shape
	tiles string
	ebits int64
}

func corpusTPUShapes(t *testing.T, path string) []corpusShape {
	var out []corpusShape
	for _, m := range tpuShapeRE.FindAllStringSubmatch(string(hlotest.ReadFile(t, path)), -1) {
		pt, ok := hlo.LookupPrimitiveType(m[1])
		if !ok {
			continue
		}
		s := hlo.Shape{Type: pt, Dims: parseInts(m[2]), Layout: &hlo.Layout{MinorToMajor: parseInts(m[3])}}
		if s.Dims == nil {
			s.Dims = []int64{}
		}
		var tiles []hlo.Tile
		for _, tm := range tileRE.FindAllStringSubmatch(m[4], -1) {
			tiles = append(tiles, hlo.Tile(parseInts(tm[1])))
		}
		var ebits int64
		if em := elemSizeRE.FindStringSubmatch(m[5]); em != nil {
			ebits, _ = strconv.ParseInt(em[1], 10, 64)
		}
		out = append(out, corpusShape{text: m[0], shape: s, tiles: tilesString(tiles), ebits: ebits})
	}
	return out
}

func TestChooseTilingAgreesWithCorpus(t *testing.T) {
	files := hlotest.CorpusGlob(t, "maxtext__*.hlo")
	type tally struct{ agree, total, distinctAgree, distinct int }
	byRank := map[string]*tally{}
	seen := map[string]bool{}
	var disagreements []string
	for _, f := range files {
		shapes := corpusTPUShapes(t, f)
		require.NotEmpty(t, shapes, f)
		for _, cs := range shapes {
			class := "rank>=2"
			if r := cs.shape.Rank(); r < 2 {
				class = fmt.Sprintf("rank%d", r)
			}
			tl := byRank[class]
			if tl == nil {
				tl = &tally{}
				byRank[class] = tl
			}
			tiles, ebits, rule := ChooseTiling(cs.shape, TPU())
			ok := tilesString(tiles) == cs.tiles && ebits == cs.ebits
			tl.total++
			if ok {
				tl.agree++
			}
			if seen[cs.text] {
				continue
			}
			seen[cs.text] = true
			tl.distinct++
			if ok {
				tl.distinctAgree++
			} else {
				disagreements = append(disagreements, fmt.Sprintf("%s: chose %s E=%d (%s)", cs.text, tilesString(tiles), ebits, rule.Name))
			}
		}
	}
	classes := make([]string, 0, len(byRank))
	for c := range byRank {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		tl := byRank[c]
		t.Logf("%-8s agreement %d/%d occurrences (%.1f%%), %d/%d distinct shapes",
			c, tl.agree, tl.total, 100*float64(tl.agree)/float64(tl.total), tl.distinctAgree, tl.distinct)
	}
	sort.Strings(disagreements)
	for _, d := range disagreements {
		t.Logf("disagreement: %s", d)
	}
	require.Contains(t, byRank, "rank>=2")
	assert.Equal(t, byRank["rank>=2"].total, byRank["rank>=2"].agree, "rank >= 2 shapes must all agree")
	for _, c := range classes {
		assert.Equal(t, byRank[c].total, byRank[c].agree, "class %s", c)
	}
}

// Every tiling the TPU rules choose is a valid layout whose padded size
// covers the data, for random shapes of every array type.
func TestChooseTilingProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var types []hlo.PrimitiveType
	for pt := hlo.PRED; pt.IsArray(); pt++ {
		types = append(types, pt)
	}
	for range 2000 {
		dims := make([]int64, rng.IntN(5))
		for i := range dims {
			dims[i] = rng.Int64N(300)
		}
		perm := rng.Perm(len(dims))
		m2m := make([]int64, len(perm))
		for i, p := range perm {
			m2m[i] = int64(p)
		}
		s := hlo.MakeShapeWithLayout(types[rng.IntN(len(types))], dims, m2m)
		ts := WithTiling(s, TPU())
		_, err := hlo.Tiled(ts)
		require.NoError(t, err, "%s", ts)
		c, err := MemoryCost(s, TPU())
		require.NoError(t, err, "%s", ts)
		assert.GreaterOrEqual(t, c.Padded, c.Unpadded, "%s", ts)
		assert.NotEqual(t, RuleUntiled.Name, c.Rule.Name, "%s", ts)
	}
}

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
