package hlo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tilingShapeOf builds an array shape with a minor_to_major order and tiles.
func tilingShapeOf(t PrimitiveType, dims, m2m []int64, tiles ...Tile) Shape {
	s := MakeShapeWithLayout(t, dims, m2m)
	s.Layout.Tiles = tiles
	return s
}

// tilingAllIndices enumerates the logical indices of dims in row-major order.
func tilingAllIndices(dims []int64) [][]int64 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	out := make([][]int64, 0, n)
	for k := int64(0); k < n; k++ {
		idx := make([]int64, len(dims))
		r := k
		for i := len(dims) - 1; i >= 0; i-- {
			idx[i] = r % dims[i]
			r /= dims[i]
		}
		out = append(out, idx)
	}
	return out
}

// Seed, "Linear index formulas": element (2,3) of F32[3,5]{1,0:T(2,2)} has
// tile index (1,1), within-tile index (0,1) and linear index 17.
func TestTilingSeedFigure1(t *testing.T) {
	s := tilingShapeOf(F32, []int64{3, 5}, []int64{1, 0}, Tile{2, 2})
	ts, err := Tiled(s)
	require.NoError(t, err)
	assert.Equal(t, []int64{2, 3, 2, 2}, ts.Final)
	p, err := ts.PhysicalIndex([]int64{2, 3})
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 1, 0, 1}, p)
	li, err := LinearIndex(s, []int64{2, 3})
	require.NoError(t, err)
	assert.Equal(t, int64(17), li)
	// The seed's formula, written out for every element.
	for _, e := range tilingAllIndices(s.Dims) {
		want := (e[0]/2*3+e[1]/2)*2*2 + (e[0]%2*2 + e[1]%2)
		got, err := LinearIndex(s, e)
		require.NoError(t, err)
		assert.Equal(t, want, got, "element %v", e)
	}
	// 2x3 tiles of 2x2 f32: 24 slots, 96 bytes; the data is 15 elements.
	assert.Equal(t, int64(24), ts.PaddedElements)
	pb, err := PaddedBytes(s, SizeOptions{})
	require.NoError(t, err)
	assert.Equal(t, int64(96), pb)
	ub, err := UnpaddedBytes(s, SizeOptions{})
	require.NoError(t, err)
	assert.Equal(t, int64(60), ub)
	assert.Equal(t, []string{"d0 floordiv 2", "d1 floordiv 2", "d0 mod 2", "d1 mod 2"}, tilingExprStrings(ts))
}

// Seed, "Repeated tiling", Figure 2: a 4x8 array tiled (2,4)(2,1). Each 2x4
// tile holds 8 slots; inside it the (2,1) tiling pairs the even-row and
// odd-row element of a column, so a row's elements sit 2 apart and the odd
// row interleaves with the even row above it.
func TestTilingSeedFigure2(t *testing.T) {
	s := tilingShapeOf(BF16, []int64{4, 8}, []int64{1, 0}, Tile{2, 4}, Tile{2, 1})
	want := [4][8]int64{
		{0, 2, 4, 6, 8, 10, 12, 14},
		{1, 3, 5, 7, 9, 11, 13, 15},
		{16, 18, 20, 22, 24, 26, 28, 30},
		{17, 19, 21, 23, 25, 27, 29, 31},
	}
	for r := range 4 {
		for c := range 8 {
			got, err := LinearIndex(s, []int64{int64(r), int64(c)})
			require.NoError(t, err)
			assert.Equal(t, want[r][c], got, "element (%d,%d)", r, c)
		}
	}
	ts, err := Tiled(s)
	require.NoError(t, err)
	assert.Equal(t, []int64{2, 2, 1, 4, 2, 1}, ts.Final)
}

// Seed, "Alternative TPU 16 bit tile format": element (6,5) of an 8x8 array
// tiled (2,4)(2,1,1,1) is at 51; the tiled shape is (4,2,2,4), then
// (2,2,2,4,2,1,1,1). Also the seed's BF16[32,256] example shapes.
func TestTilingSeedCrossTileDims(t *testing.T) {
	s := tilingShapeOf(BF16, []int64{8, 8}, []int64{1, 0}, Tile{2, 4}, Tile{2, 1, 1, 1})
	ts, err := Tiled(s)
	require.NoError(t, err)
	require.Len(t, ts.Steps, 2)
	assert.Equal(t, []int64{4, 2, 2, 4}, ts.Steps[0].Out)
	assert.Equal(t, []int64{2, 2, 2, 4, 2, 1, 1, 1}, ts.Final)
	p, err := ts.PhysicalIndex([]int64{6, 5})
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 1, 0, 1, 1, 0, 0, 0}, p)
	li, err := ts.LinearIndex([]int64{6, 5})
	require.NoError(t, err)
	assert.Equal(t, int64(51), li)

	big := tilingShapeOf(BF16, []int64{32, 256}, []int64{1, 0}, Tile{8, 128}, Tile{2, 1, 1, 1})
	bt, err := Tiled(big)
	require.NoError(t, err)
	assert.Equal(t, []int64{4, 2, 8, 128}, bt.Steps[0].Out)
	assert.Equal(t, []int64{2, 2, 8, 128, 2, 1, 1, 1}, bt.Final)
	// Two elements at the same position of tiles 0 and 1 along the
	// second-minor dim are adjacent (one 32-bit word).
	a, err := bt.LinearIndex([]int64{3, 7})
	require.NoError(t, err)
	b, err := bt.LinearIndex([]int64{11, 7})
	require.NoError(t, err)
	assert.Equal(t, a+1, b)
}

// Seed, "Combining dimensions": F32[2,7,8,11,10]{4,3,2,1,0} with tile
// (*,*,2,*,3) is laid out as F32[112,110]{1,0:T(2,3)}.
func TestTilingSeedCombinedDims(t *testing.T) {
	c := CombinedDim
	s := tilingShapeOf(F32, []int64{2, 7, 8, 11, 10}, []int64{4, 3, 2, 1, 0}, Tile{c, c, 2, c, 3})
	flat := tilingShapeOf(F32, []int64{112, 110}, []int64{1, 0}, Tile{2, 3})
	ts, err := Tiled(s)
	require.NoError(t, err)
	ft, err := Tiled(flat)
	require.NoError(t, err)
	assert.Equal(t, []int64{112, 110}, ts.Steps[0].Merged)
	assert.Equal(t, ft.Final, ts.Final)
	assert.Equal(t, ft.PaddedElements, ts.PaddedElements)
	for _, e := range tilingAllIndices(s.Dims) {
		got, err := ts.LinearIndex(e)
		require.NoError(t, err)
		want, err := ft.LinearIndex([]int64{e[0]*56 + e[1]*8 + e[2], e[3]*10 + e[4]})
		require.NoError(t, err)
		require.Equal(t, want, got, "element %v", e)
	}
	assert.Equal(t, []string{
		"(d0 * 56 + d1 * 8 + d2) floordiv 2", "(d3 * 10 + d4) floordiv 3",
		"(d0 * 56 + d1 * 8 + d2) mod 2", "(d3 * 10 + d4) mod 3",
	}, tilingExprStrings(ts))
}

func tilingExprStrings(ts *TiledShape) []string {
	out := make([]string, len(ts.Exprs))
	for i, e := range ts.Exprs {
		out[i] = e.String()
	}
	return out
}

func TestTilingByteSizes(t *testing.T) {
	e4 := func(s Shape) Shape { s.Layout.ElementSizeBits = 4; return s }
	tail := func(s Shape, n int64) Shape { s.Layout.TailPaddingAlignment = n; return s }
	tests := []struct {
		name               string
		shape              Shape
		opts               SizeOptions
		unpadded, physical int64
	}{
		// The seed's add.936: no padding, 2 bytes an element.
		{"bf16 seed add.936", tilingShapeOf(BF16, []int64{8, 1, 1280, 16384}, []int64{3, 2, 0, 1}, Tile{8, 128}, Tile{2, 1}),
			SizeOptions{}, 8 * 1280 * 16384 * 2, 8 * 1280 * 16384 * 2},
		// bf16[3,100] in one (8,128) tile: 1024 slots of 2 bytes.
		{"bf16 padded to one tile", tilingShapeOf(BF16, []int64{3, 100}, []int64{1, 0}, Tile{8, 128}, Tile{2, 1}),
			SizeOptions{}, 600, 2048},
		// bf16[9,129]: 2x2 tiles.
		{"bf16 2x2 tiles", tilingShapeOf(BF16, []int64{9, 129}, []int64{1, 0}, Tile{8, 128}, Tile{2, 1}),
			SizeOptions{}, 9 * 129 * 2, 4 * 1024 * 2},
		// s4 packed by E(4): 900 nibbles = 450 bytes; 3 nibbles round up to 2 bytes.
		{"s4 E(4)", e4(tilingShapeOf(S4, []int64{100, 9}, []int64{1, 0})), SizeOptions{}, 450, 450},
		{"s4 E(4) odd", e4(tilingShapeOf(S4, []int64{3}, []int64{0})), SizeOptions{}, 2, 2},
		// s4 tiled (8,128)(8,1) E(4): 2 tiles of 1024 nibbles.
		{"s4 tiled", e4(tilingShapeOf(S4, []int64{16, 100}, []int64{1, 0}, Tile{8, 128}, Tile{8, 1})),
			SizeOptions{}, 800, 1024},
		// E(n) overrides the type width.
		{"u8 E(2)", func() Shape { s := tilingShapeOf(U8, []int64{10}, []int64{0}); s.Layout.ElementSizeBits = 2; return s }(),
			SizeOptions{}, 3, 3},
		// PRED is 1 byte by default, PredBytes on request.
		{"pred default", MakeShape(PRED, 10), SizeOptions{}, 10, 10},
		{"pred 4 bytes", MakeShape(PRED, 10), SizeOptions{PredBytes: 4}, 40, 40},
		// Scalars and rank-1 with TPU's linear tiles.
		{"f32 scalar T(128)", tilingShapeOf(F32, nil, nil, Tile{128}), SizeOptions{}, 4, 512},
		{"bf16 rank1 T(1024)(128)(2,1)", tilingShapeOf(BF16, []int64{1536}, []int64{0}, Tile{1024}, Tile{128}, Tile{2, 1}),
			SizeOptions{}, 3072, 4096},
		// A 2-D tile on a rank-1 array covers a leading dim of size 1.
		{"f32[3] T(8,128)", tilingShapeOf(F32, []int64{3}, []int64{0}, Tile{8, 128}), SizeOptions{}, 12, 4096},
		// Tail padding: 5 elements aligned to 4 give 8 slots.
		{"L(4)", tail(tilingShapeOf(F32, []int64{5}, []int64{0}), 4), SizeOptions{}, 20, 32},
		{"T then L", tail(tilingShapeOf(F32, []int64{3, 5}, []int64{1, 0}, Tile{2, 2}), 10), SizeOptions{}, 60, 120},
		{"zero elements", tilingShapeOf(F32, []int64{0, 5}, []int64{1, 0}, Tile{8, 128}), SizeOptions{}, 0, 0},
		{"dynamic metadata", func() Shape {
			s := tilingShapeOf(F32, []int64{4}, []int64{0})
			s.Layout.DynamicShapeMetadataPrefixBytes = 8
			return s
		}(), SizeOptions{}, 16, 24},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := UnpaddedBytes(tc.shape, tc.opts)
			require.NoError(t, err)
			assert.Equal(t, tc.unpadded, u, "unpadded %s", tc.shape)
			p, err := PaddedBytes(tc.shape, tc.opts)
			require.NoError(t, err)
			assert.Equal(t, tc.physical, p, "padded %s", tc.shape)
		})
	}
}

func TestTilingTupleBytes(t *testing.T) {
	inner := MakeTupleShape(MakeShape(F32, 2), MakeShape(S32, 3))
	tup := MakeTupleShape(inner, tilingShapeOf(BF16, []int64{3, 100}, []int64{1, 0}, Tile{8, 128}, Tile{2, 1}),
		Shape{Type: TOKEN})
	// XLA's ByteSizeOf: the index table only.
	n, err := ByteSizeOf(tup, 8)
	require.NoError(t, err)
	assert.Equal(t, int64(24), n)
	n, err = ByteSizeOf(MakeShape(F32, 2, 3), 8)
	require.NoError(t, err)
	assert.Equal(t, int64(24), n)
	n, err = ByteSizeOf(Shape{Type: OPAQUE}, 8)
	require.NoError(t, err)
	assert.Equal(t, int64(8), n)
	// Leaves only, then leaves plus every table (2 + 3 entries of 8 bytes).
	u, err := UnpaddedBytes(tup, SizeOptions{})
	require.NoError(t, err)
	assert.Equal(t, int64(8+12+600), u)
	p, err := PaddedBytes(tup, SizeOptions{PointerSize: 8})
	require.NoError(t, err)
	assert.Equal(t, int64(8+12+2048+5*8), p)
}

func TestTilingErrors(t *testing.T) {
	bad := []struct {
		name  string
		shape Shape
		want  string
	}{
		{"not a permutation", tilingShapeOf(F32, []int64{2, 3}, []int64{0, 0}), "expected a permutation"},
		{"short minor_to_major", tilingShapeOf(F32, []int64{2, 3}, []int64{0}), "expected 2 minor_to_major entries"},
		{"zero tile", tilingShapeOf(F32, []int64{2, 3}, []int64{1, 0}, Tile{0, 2}), "expected positive sizes"},
		{"trailing star", tilingShapeOf(F32, []int64{2, 3}, []int64{1, 0}, Tile{2, CombinedDim}), "expected a size in the most minor position"},
		{"empty tile", tilingShapeOf(F32, []int64{2, 3}, []int64{1, 0}, Tile{}), "expected a tile"},
		{"unbounded", MakeShape(F32, UnboundedDim, 3), "found ?"},
		{"tuple", MakeTupleShape(MakeShape(F32, 1)), "expected an array shape"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Tiled(tc.shape)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			_, err = LinearIndex(tc.shape, make([]int64, len(tc.shape.Dims)))
			assert.Error(t, err)
		})
	}
	_, err := PaddedBytes(MakeTupleShape(tilingShapeOf(F32, []int64{2}, []int64{0}, Tile{0})), SizeOptions{})
	assert.ErrorContains(t, err, "tuple element 0")
	_, err = UnpaddedBytes(MakeShape(F32, UnboundedDim), SizeOptions{})
	assert.Error(t, err)

	s := tilingShapeOf(F32, []int64{3, 5}, []int64{1, 0}, Tile{2, 2})
	_, err = LinearIndex(s, []int64{3, 0})
	assert.ErrorContains(t, err, "expected dim 0 in [0, 3), found 3")
	_, err = LinearIndex(s, []int64{1})
	assert.ErrorContains(t, err, "expected an index of 2 dims, found 1")
}

func TestTilingUntiledMatchesMinorToMajor(t *testing.T) {
	// shapes-and-layout: [2 x 3] with minor_to_major [0, 1] is "a d b e c f".
	s := tilingShapeOf(F32, []int64{2, 3}, []int64{0, 1})
	want := map[[2]int64]int64{{0, 0}: 0, {1, 0}: 1, {0, 1}: 2, {1, 1}: 3, {0, 2}: 4, {1, 2}: 5}
	for e, w := range want {
		got, err := LinearIndex(s, e[:])
		require.NoError(t, err)
		assert.Equal(t, w, got)
	}
	assert.Equal(t, []int64{3, 2}, PhysicalDims(s))
	assert.Nil(t, PhysicalDims(tilingShapeOf(F32, []int64{2, 3}, []int64{0, 5})))
	assert.True(t, IsPermutation([]int64{1, 2, 0}, 3))
	assert.False(t, IsPermutation([]int64{1, 1, 0}, 3))
	assert.False(t, IsPermutation([]int64{1, 0}, 3))
	// No layout: the default major-to-minor order.
	got, err := LinearIndex(MakeShape(F32, 2, 3), []int64{1, 2})
	require.NoError(t, err)
	assert.Equal(t, int64(5), got)
}

// ---- property test: LinearIndex against a literal pad-reshape-transpose ----

// tilingArray is a dense row-major array of element ids (0 marks padding).
type tilingArray struct {
	dims []int64
	data []int64
}

func (a tilingArray) strides() []int64 {
	st := make([]int64, len(a.dims))
	n := int64(1)
	for i := len(a.dims) - 1; i >= 0; i-- {
		st[i] = n
		n *= a.dims[i]
	}
	return st
}

func (a tilingArray) reshape(dims []int64) tilingArray {
	return tilingArray{dims: slices.Clone(dims), data: a.data}
}

// transpose returns b with b.dims[i] = a.dims[perm[i]].
func (a tilingArray) transpose(perm []int) tilingArray {
	dims := make([]int64, len(perm))
	for i, p := range perm {
		dims[i] = a.dims[p]
	}
	b := tilingArray{dims: dims, data: make([]int64, len(a.data))}
	ast := a.strides()
	for k, idx := range tilingAllIndices(dims) {
		var off int64
		for i, p := range perm {
			off += idx[i] * ast[p]
		}
		b.data[k] = a.data[off]
	}
	return b
}

// pad grows every dim to dims, filling with 0.
func (a tilingArray) pad(dims []int64) tilingArray {
	b := tilingArray{dims: slices.Clone(dims)}
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	b.data = make([]int64, n)
	bst := b.strides()
	for k, idx := range tilingAllIndices(a.dims) {
		var off int64
		for i, e := range idx {
			off += e * bst[i]
		}
		b.data[off] = a.data[k]
	}
	return b
}

// tilingNaiveLayout lays out the array of shape s literally: transpose into
// minor_to_major order, then for each tile pad, reshape and transpose as the
// seed describes, then tail-pad. It returns the memory contents (element ids
// = 1 + row-major logical index, 0 for padding).
func tilingNaiveLayout(s Shape) []int64 {
	logical := tilingArray{dims: slices.Clone(s.Dims), data: make([]int64, 0)}
	for k := range tilingAllIndices(s.Dims) {
		logical.data = append(logical.data, int64(k)+1)
	}
	r := len(s.Dims)
	perm := make([]int, r)
	for i, d := range s.MinorToMajor() {
		perm[r-1-i] = int(d)
	}
	cur := logical.transpose(perm)
	for _, t := range s.Layout.Tiles {
		// Leading dims of size 1 where the tile is longer than the shape.
		for len(cur.dims) < len(t) {
			cur = cur.reshape(append([]int64{1}, cur.dims...))
		}
		prefix := len(cur.dims) - len(t)
		// "*" merges a dim into the next more minor one: a reshape.
		var merged, sizes []int64
		merged = append(merged, cur.dims[:prefix]...)
		carry := int64(1)
		for i, v := range t {
			if v == CombinedDim {
				carry *= cur.dims[prefix+i]
				continue
			}
			merged = append(merged, carry*cur.dims[prefix+i])
			sizes = append(sizes, v)
			carry = 1
		}
		cur = cur.reshape(merged)
		// 1. pad to whole tiles.
		padded := slices.Clone(merged)
		for i, v := range sizes {
			d := merged[prefix+i]
			padded[prefix+i] = (d + v - 1) / v * v
		}
		cur = cur.pad(padded)
		// 2. reshape each covered dim into (count, tile).
		split := slices.Clone(padded[:prefix])
		for i, v := range sizes {
			split = append(split, padded[prefix+i]/v, v)
		}
		cur = cur.reshape(split)
		// 3. move the tile parts to the minor end, keeping their order.
		tperm := make([]int, 0, len(split))
		for i := range prefix {
			tperm = append(tperm, i)
		}
		for i := range sizes {
			tperm = append(tperm, prefix+2*i)
		}
		for i := range sizes {
			tperm = append(tperm, prefix+2*i+1)
		}
		cur = cur.transpose(tperm)
	}
	mem := cur.data
	if l := s.Layout.TailPaddingAlignment; l > 1 {
		for int64(len(mem))%l != 0 {
			mem = append(mem, 0)
		}
	}
	return mem
}

// tilingRandomShape draws a small array shape with a random minor_to_major
// and 1-3 random tiles, some longer than the shape they tile (reaching the
// tile-index dims of the level before) and some with combined dims.
func tilingRandomShape(rng *rand.Rand) Shape {
	for {
		rank := rng.IntN(5)
		dims := make([]int64, rank)
		for i := range dims {
			dims[i] = 1 + rng.Int64N(6)
		}
		perm := rng.Perm(rank)
		m2m := make([]int64, rank)
		for i, p := range perm {
			m2m[i] = int64(p)
		}
		s := tilingShapeOf(F32, dims, m2m)
		cur := len(dims)
		size := s.ElementCount()
		for range 1 + rng.IntN(3) {
			n := 1 + rng.IntN(cur+1)
			tile := make(Tile, n)
			kept := 0
			for i := range tile {
				if i < n-1 && rng.IntN(5) == 0 {
					tile[i] = CombinedDim
					continue
				}
				tile[i] = 1 + rng.Int64N(4)
				size *= tile[i]
				kept++
			}
			s.Layout.Tiles = append(s.Layout.Tiles, tile)
			cur = max(cur, n) - n + 2*kept
		}
		if rng.IntN(4) == 0 {
			s.Layout.TailPaddingAlignment = 1 + rng.Int64N(7)
		}
		if size <= 4096 && cur <= 12 {
			return s
		}
	}
}

func TestTilingPropertyPadReshapeTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 400 {
		s := tilingRandomShape(rng)
		ts, err := Tiled(s)
		require.NoError(t, err, "shape %s", s)
		mem := tilingNaiveLayout(s)
		require.Equal(t, int64(len(mem)), ts.PaddedElements, "padded size of %s", s)
		pos := make(map[int64]int64)
		for p, id := range mem {
			if id != 0 {
				pos[id-1] = int64(p)
			}
		}
		require.Equal(t, int(s.ElementCount()), len(pos), "shape %s", s)
		seen := make(map[int64]bool)
		for k, e := range tilingAllIndices(s.Dims) {
			li, err := ts.LinearIndex(e)
			require.NoError(t, err)
			require.Equal(t, pos[int64(k)], li, "iter %d: shape %s element %v", iter, s, e)
			require.False(t, seen[li], "shape %s: two elements at %d", s, li)
			seen[li] = true
			require.Less(t, li, ts.PaddedElements)
			// The per-dim expressions give the same position.
			phys := make([]int64, len(ts.Exprs))
			for i, x := range ts.Exprs {
				phys[i] = x.Eval(e)
				require.Less(t, phys[i], max(x.Bound, 1), "expr %s bound", x)
				require.Less(t, phys[i], ts.Final[i], "expr %s of dim %d", x, i)
			}
			require.Equal(t, li, tilingRowMajor(phys, ts.Final), "shape %s element %v exprs %v", s, e, tilingExprStrings(ts))
		}
	}
}

func BenchmarkLinearIndex(b *testing.B) {
	s := tilingShapeOf(BF16, []int64{64, 1024}, []int64{1, 0}, Tile{8, 128}, Tile{2, 1})
	ts, err := Tiled(s)
	require.NoError(b, err)
	idx := []int64{37, 999}
	b.ResetTimer()
	for b.Loop() {
		if _, err := ts.LinearIndex(idx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "indices/s")
}

func ExampleLinearIndex() {
	s := MakeShapeWithLayout(F32, []int64{3, 5}, []int64{1, 0})
	s.Layout.Tiles = []Tile{{2, 2}}
	li, _ := LinearIndex(s, []int64{2, 3})
	unpadded, _ := UnpaddedBytes(s, SizeOptions{})
	padded, _ := PaddedBytes(s, SizeOptions{})
	ts, _ := Tiled(s)
	fmt.Println(s, "element (2,3) at", li)
	fmt.Println("bytes:", unpadded, "unpadded,", padded, "padded")
	fmt.Println("physical shape:", ts.Final)
	for i, e := range ts.Exprs {
		fmt.Printf("  dim %d = %s\n", i, e)
	}
	// Output:
	// f32[3,5]{1,0:T(2,2)} element (2,3) at 17
	// bytes: 60 unpadded, 96 padded
	// physical shape: [2 3 2 2]
	//   dim 0 = d0 floordiv 2
	//   dim 1 = d1 floordiv 2
	//   dim 2 = d0 mod 2
	//   dim 3 = d1 mod 2
}
