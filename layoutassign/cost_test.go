package layoutassign

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

func TestMemoryCost(t *testing.T) {
	given := shapeOf(hlo.F32, []int64{3, 5}, 1, 0)
	given.Layout.Tiles = []hlo.Tile{{2, 2}}
	pred4 := TPU()
	pred4.PredBytes = 4
	tests := []struct {
		name               string
		shape              hlo.Shape
		target             Target
		unpadded, padded   int64
		rule               string
		expansionTolerance float64
	}{
		// f32[3,5]: (4,128) compact tile, 512 slots of 4 bytes.
		{"compact f32", shapeOf(hlo.F32, []int64{3, 5}), TPU(), 60, 2048, RuleTPUCompact4x128.Name, 0},
		{"gpu untiled", shapeOf(hlo.F32, []int64{3, 5}), GPU(), 60, 60, RuleUntiled.Name, 0},
		{"given tiles", given, TPU(), 60, 96, RuleFromLayout.Name, 0},
		// bf16[9,129]: 2x2 tiles of (8,128) bf16.
		{"bf16 8x128", shapeOf(hlo.BF16, []int64{9, 129}), TPU(), 9 * 129 * 2, 4 * 1024 * 2, RuleTPU16Bit.Name, 0},
		// pred[16,128]: 1 byte, (8,128)(4,1): no padding; 4 bytes as 32-bit.
		{"pred 1B", shapeOf(hlo.PRED, []int64{16, 128}), TPU(), 2048, 2048, RuleTPUPred.Name, 0},
		{"pred 4B", shapeOf(hlo.PRED, []int64{16, 128}), pred4, 8192, 8192, RuleTPUPred.Name, 0},
		// s4 on TPU packed by E(4): 2x256 in one (8,128)(8,1) tile pair: 2 tiles of 1024 nibbles.
		{"s4 tpu", shapeOf(hlo.S4, []int64{2, 256}), TPU(), 256, 1024, RuleTPUSubByte.Name, 0},
		{"scalar", shapeOf(hlo.F32, nil), TPU(), 4, 512, RuleTPUScalar.Name, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := MemoryCost(tc.shape, tc.target)
			require.NoError(t, err)
			assert.Equal(t, tc.unpadded, c.Unpadded)
			assert.Equal(t, tc.padded, c.Padded)
			assert.InDelta(t, float64(tc.padded)/float64(tc.unpadded), c.Expansion, 1e-12)
			assert.Equal(t, tc.rule, c.Rule.Name)
		})
	}

	tup := hlo.MakeTupleShape(shapeOf(hlo.F32, []int64{3, 5}), shapeOf(hlo.F32, nil), hlo.Shape{Type: hlo.TOKEN})
	c, err := MemoryCost(tup, TPU())
	require.NoError(t, err)
	assert.Equal(t, int64(64), c.Unpadded)
	assert.Equal(t, int64(2048+512), c.Padded)
	assert.InDelta(t, 2560.0/64.0, c.Expansion, 1e-12)

	empty, err := MemoryCost(shapeOf(hlo.F32, []int64{0, 4}), TPU())
	require.NoError(t, err)
	assert.Equal(t, 1.0, empty.Expansion)

	_, err = MemoryCost(hlo.MakeTupleShape(shapeOf(hlo.F32, []int64{2, 3}, 0, 0)), TPU())
	assert.ErrorContains(t, err, "tuple element 0")
}

func TestSuggest(t *testing.T) {
	// f32[1024,4]{1,0}: the minor dim 4 pads to 128 under (8,128): 128
	// tiles of 4 KiB. With dim 0 minor and dim 1 second-minor the compact
	// (4,128) tile fits exactly: 8 tiles of 2 KiB. Reshaping the untiled
	// data to [32,128] is as good.
	s := shapeOf(hlo.F32, []int64{1024, 4}, 1, 0)
	sug := Suggest(s, TPU())
	require.Len(t, sug, 2)
	assert.Equal(t, "minor dim 1 (size 4) pads to 128: make it the second-minor and dim 0 (size 1024) the minor dim, minor_to_major {0,1} (524288 -> 16384 bytes)", sug[0].String())
	assert.Equal(t, "f32[1024,4]{0,1:T(4,128)}", sug[0].Shape.String())
	assert.Equal(t, "reshape the 2 minor physical dims [1024,4] into [32,128] (a bitcast of the untiled data): f32[32,128]", sug[1].Change)
	assert.Equal(t, "f32[32,128]{1,0:T(8,128)}", sug[1].Shape.String())
	for _, x := range sug {
		// The proposal's size is what the hlo arithmetic gives for it.
		p, err := hlo.PaddedBytes(x.Shape, TPU().SizeOptions())
		require.NoError(t, err)
		assert.Equal(t, x.After, p)
		assert.Less(t, x.After, x.Before)
	}

	// f32[16,20,30]{2,1,0}: the minor 30 pads to 128 and the second-minor 20
	// to 24. Merging all dims into [75,128] removes the padding (40960 bytes
	// for 38400 of data); putting 16 second-minor helps less.
	s2 := shapeOf(hlo.F32, []int64{16, 20, 30})
	cur, err := MemoryCost(s2, TPU())
	require.NoError(t, err)
	sug2 := Suggest(s2, TPU())
	require.Len(t, sug2, 2)
	assert.Equal(t, "minor dim 2 (size 30) pads to 128, second-minor dim 1 (size 20) pads to 24", sug2[0].Problem)
	assert.Equal(t, "f32[75,128]{1,0:T(8,128)}", sug2[0].Shape.String())
	assert.Equal(t, "f32[16,20,30]{2,0,1:T(8,128)}", sug2[1].Shape.String())
	assert.Equal(t, cur.Padded, sug2[0].Before)
	assert.Equal(t, int64(80*128*4), sug2[0].After)
	assert.Less(t, sug2[0].After, sug2[1].After)

	// Second-minor padding only: f32[5,128] pads 5 rows to 8 (x1.6); making
	// the 128 the second-minor pads 5 to 128 instead, so nothing helps but a
	// reshape of 640 elements to [5,128] (the same shape). No suggestion.
	assert.Empty(t, Suggest(shapeOf(hlo.F32, []int64{5, 128}), TPU()))
	// Well-tiled, rank 1, non-TPU and tuple shapes get nothing.
	assert.Empty(t, Suggest(shapeOf(hlo.F32, []int64{64, 1024}), TPU()))
	assert.Empty(t, Suggest(shapeOf(hlo.F32, []int64{3}), TPU()))
	assert.Empty(t, Suggest(shapeOf(hlo.F32, []int64{1024, 4}), GPU()))
	assert.Empty(t, Suggest(hlo.MakeTupleShape(shapeOf(hlo.F32, []int64{1024, 4})), TPU()))

	// f32[100,3,128]{2,0,1}: the second-minor 100 pads to 104 (x1.04),
	// under the threshold.
	assert.Empty(t, Suggest(shapeOf(hlo.F32, []int64{100, 3, 128}, 2, 0, 1), TPU()))
	// f32[9,2,1000]{1,2,0}: the minor 2 pads to 128 (x64); with 1000 minor
	// and 2 second-minor the (2,128) tile fits.
	s3 := shapeOf(hlo.F32, []int64{9, 2, 1000}, 1, 2, 0)
	sug3 := Suggest(s3, TPU())
	require.NotEmpty(t, sug3)
	assert.Contains(t, sug3[0].Problem, "minor dim 1 (size 2) pads to 128")
	assert.Contains(t, sug3[0].Change, "make it the second-minor and dim 2 (size 1000) the minor dim")
}

func ExampleSuggest() {
	s := hlo.MakeShapeWithLayout(hlo.F32, []int64{1024, 4}, []int64{1, 0})
	c, _ := MemoryCost(s, TPU())
	fmt.Printf("%s on %s: %s, %d -> %d bytes (x%.0f)\n", s, TPU(), c.Rule, c.Unpadded, c.Padded, c.Expansion)
	for _, x := range Suggest(s, TPU()) {
		fmt.Println(x.Shape, "-", x.Change)
	}
	// Output:
	// f32[1024,4]{1,0} on tpu(pred=1B): tpu-32bit-8x128, 16384 -> 524288 bytes (x32)
	// f32[1024,4]{0,1:T(4,128)} - make it the second-minor and dim 0 (size 1024) the minor dim, minor_to_major {0,1}
	// f32[32,128]{1,0:T(8,128)} - reshape the 2 minor physical dims [1024,4] into [32,128] (a bitcast of the untiled data): f32[32,128]
}

// TestPaddedBytesMatchesHLO checks the direct padded-size computation
// against hlo.PaddedBytes: every array of the corpus as stated and as the
// TPU rules tile it, and tiles with combined dims or more dims than the
// shape.
func TestPaddedBytesMatchesHLO(t *testing.T) {
	check := func(s hlo.Shape) {
		t.Helper()
		for _, o := range []hlo.SizeOptions{TPU().SizeOptions(), {PredBytes: 4}} {
			want, werr := hlo.PaddedBytes(s, o)
			got, gerr := paddedBytes(s, o)
			if werr != nil {
				assert.Error(t, gerr, "%s", s)
				continue
			}
			require.NoError(t, gerr, "%s", s)
			assert.Equal(t, want, got, "%s", s)
		}
	}
	for _, text := range []string{
		"f32[3,5]{1,0:T(8,128)}", "bf16[7,300]{0,1:T(8,128)(2,1)}", "f32[5]{0:T(2,*,4)}",
		"s8[3,4,5]{2,1,0:T(2,*,128)(4,1)}", "pred[33]{0:T(8,128)(4,1)}", "s4[9,257]{1,0:T(8,128)(2,1)E(4)}",
		"f32[]{:T(128)}", "f32[0,4]{1,0:T(8,128)}", "u8[2,3,4,5,6]{4,3,2,1,0:T(2,3,4)(1,2)}",
	} {
		s, err := hlo.ParseShape(text)
		require.NoError(t, err)
		check(s)
	}
	n := 0
	for _, cm := range hlotest.CorpusModules(t) {
		for _, c := range cm.Module.Computations {
			for _, in := range c.Instructions {
				for _, l := range in.Shape.Leaves() {
					if !l.Shape.IsArray() {
						continue
					}
					check(*l.Shape)
					check(WithTiling(*l.Shape, TPU()))
					n++
				}
			}
		}
	}
	t.Logf("%d corpus arrays checked", n)
}
