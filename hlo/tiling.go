package hlo

import (
	"fmt"
	"slices"
)

// This file holds the shape arithmetic of XLA layouts (tiled-layout.md and
// shapes-and-layout.txt): element and byte counts with tiling padding, the
// linear index of an element, and the step-by-step description of tiling as
// pad-reshape-transpose that the indexing package turns into physical maps.
//
// The model, for an array of logical dims d with layout {minor_to_major:T...}:
//
//  1. Physical order: the dims are listed major to minor,
//     physical[i] = d[minor_to_major[rank-1-i]]. This is the untiled shape,
//     laid out row-major.
//  2. Each tile, in order, tiles the current shape (initially the physical
//     one). A tile of rank m covers the m most minor dims of the current
//     shape; a shape with fewer than m dims is first given leading dims of
//     size 1 (so T(128) applies to a scalar, and a 4-D second tile such as
//     (2,1,1,1) reaches into the tile-index dims of the first tiling).
//  3. A combined entry "*" merges its dim into the next more minor one
//     (bounds multiply, index e_major*d_minor + e_minor) before tiling; it is
//     removed from the tile.
//  4. The remaining m' covered dims d' are replaced by ceil(d'/t) tile counts
//     followed by the tile sizes t: prefix ++ ceil(d'/t) ++ t; an element
//     index e' becomes prefix ++ floor(e'/t) ++ e' mod t. This is the pad,
//     reshape, transpose of the seed.
//  5. The final shape is laid out row-major; its element count, rounded up to
//     a multiple of the tail padding alignment L(n), is the padded count.

// SizeOptions are the target properties that byte sizes depend on.
type SizeOptions struct {
	// PredBytes is the size of one PRED element without an E(n) element
	// size: XLA's CPU/GPU default is 1 (used when 0), the TPU document says
	// 4 (SEED-ERRATA, PRED note).
	PredBytes int64
	// PointerSize is the size of one entry of a tuple's index table (XLA
	// ShapeUtil::ByteSizeOf counts pointer_size bytes per tuple element).
	// 0 counts no tables: a tuple is then the sum of its leaves.
	PointerSize int64
}

// ElementBits is the storage width in bits of one element of the array
// shape s: the layout's E(n) when set, PredBytes*8 for PRED, the type's bit
// width otherwise (sub-byte types are packed: 4 bits for s4). Non-array
// shapes have 0.
func (o SizeOptions) ElementBits(s Shape) int64 {
	if !s.IsArray() {
		return 0
	}
	if s.Layout != nil && s.Layout.ElementSizeBits > 0 {
		return s.Layout.ElementSizeBits
	}
	if s.Type == PRED {
		if o.PredBytes > 0 {
			return 8 * o.PredBytes
		}
		return 8
	}
	return int64(s.Type.BitWidth())
}

// UnpaddedBytes is the size of the data of s without tiling padding: for an
// array, element count times ElementBits rounded up to whole bytes; for a
// tuple, the sum over its elements plus PointerSize bytes per element of
// every tuple's index table. Tokens are 0 bytes, opaque values PointerSize.
func UnpaddedBytes(s Shape, o SizeOptions) (int64, error) {
	return tilingShapeBytes(s, o, false)
}

// PaddedBytes is the physical size of s: for an array, the padded element
// count of its tiled layout (see TiledShape.PaddedElements) times
// ElementBits rounded up to whole bytes, plus the M(n) dynamic-shape
// metadata prefix; tuples as in UnpaddedBytes.
func PaddedBytes(s Shape, o SizeOptions) (int64, error) {
	return tilingShapeBytes(s, o, true)
}

func tilingShapeBytes(s Shape, o SizeOptions, padded bool) (int64, error) {
	switch {
	case s.IsTuple():
		total := o.PointerSize * int64(len(s.Tuple))
		for i := range s.Tuple {
			n, err := tilingShapeBytes(s.Tuple[i], o, padded)
			if err != nil {
				return 0, fmt.Errorf("tuple element %d: %w", i, err)
			}
			total += n
		}
		return total, nil
	case s.Type == OPAQUE:
		return o.PointerSize, nil
	case !s.IsArray():
		return 0, nil
	}
	var elems int64
	if padded {
		n, ok := TiledElements(s)
		if ok && s.Layout != nil && s.Layout.TailPaddingAlignment > 1 {
			n, ok = roundUpChecked(n, s.Layout.TailPaddingAlignment)
		}
		if !ok {
			ts, err := tiled(s, false) // the general case, or the error
			if err != nil {
				return 0, err
			}
			n = ts.PaddedElements
		}
		elems = n
	} else {
		if err := tilingCheckDims(s); err != nil {
			return 0, err
		}
		elems = s.ElementCount()
	}
	nbits, ok := MulInt64(elems, o.ElementBits(s))
	if !ok {
		return 0, fmt.Errorf("shape %s: size in bits %w", s.String(), ErrOverflow)
	}
	n := nbits/8 + min(nbits%8, 1)
	if padded && s.Layout != nil {
		if n, ok = AddInt64(n, s.Layout.DynamicShapeMetadataPrefixBytes); !ok {
			return 0, fmt.Errorf("shape %s: size %w", s.String(), ErrOverflow)
		}
	}
	return n, nil
}

// ByteSizeOf is XLA's ShapeUtil::ByteSizeOf: an array is its unpadded
// element bytes (PRED 1 byte, E(n) respected, tiles ignored); a tuple is only
// its index table, pointerSize bytes per element, not its elements; a token
// is 0 bytes and an opaque value pointerSize.
func ByteSizeOf(s Shape, pointerSize int64) (int64, error) {
	if s.IsTuple() {
		return pointerSize * int64(len(s.Tuple)), nil
	}
	return UnpaddedBytes(s, SizeOptions{PointerSize: pointerSize})
}

// PhysicalDims returns the dims of an array shape in physical order, most
// major first: PhysicalDims(f32[2,3,4]{0,2,1}) = [3,4,2]. It returns nil
// when the layout's minor_to_major is not a permutation of the dims.
func PhysicalDims(s Shape) []int64 {
	m2m := s.MinorToMajor()
	if !IsPermutation(m2m, len(s.Dims)) {
		return nil
	}
	out := make([]int64, len(m2m))
	for i, d := range m2m {
		out[len(m2m)-1-i] = s.Dims[d]
	}
	return out
}

// IsPermutation reports whether m2m holds each of 0..rank-1 exactly once.
func IsPermutation(m2m []int64, rank int) bool {
	if len(m2m) != rank {
		return false
	}
	seen := make([]bool, rank)
	for _, d := range m2m {
		if d < 0 || int(d) >= rank || seen[d] {
			return false
		}
		seen[d] = true
	}
	return true
}

// TilingStep is one level of tiling applied to the shape produced by the
// level before it (all shapes listed major to minor).
type TilingStep struct {
	// Tile is the tile as written in the layout, "*" entries included.
	Tile Tile
	// In is the shape this level tiles, given leading 1s when it has fewer
	// dims than Tile.
	In []int64
	// Prefix is the number of leading dims of In the tile does not cover;
	// they pass through unchanged.
	Prefix int
	// Merged is In with every "*" dim multiplied into the next more minor
	// dim; Sizes is Tile without its "*" entries. len(Merged) = Prefix +
	// len(Sizes).
	Merged []int64
	Sizes  []int64
	// Out is Merged[:Prefix] ++ ceil(Merged[Prefix:]/Sizes) ++ Sizes.
	Out []int64
}

// TiledShape describes how an array shape is laid out in memory: the
// physical (minor_to_major) order, each tiling level and the final shape
// whose row-major order is the memory order.
type TiledShape struct {
	// Dims are the logical dims and MinorToMajor the layout order.
	Dims         []int64
	MinorToMajor []int64
	// Physical lists Dims major to minor (the untiled memory shape).
	Physical []int64
	// Steps are the tiling levels in order; empty for an untiled layout.
	Steps []TilingStep
	// Final is the shape after the last level (Physical when untiled). Its
	// row-major linear index is the element's position in memory.
	Final []int64
	// Exprs gives, for every dim of Final, its index as an expression of
	// the logical indices d0..d{rank-1}.
	Exprs []*IndexExpr
	// PaddedElements is the product of Final rounded up to a multiple of
	// the tail padding alignment L(n): the number of element slots the
	// array occupies.
	PaddedElements int64
}

// Tiled computes the tiled layout description of an array shape, checking
// its layout: minor_to_major must be a permutation of the dims, tile sizes
// positive or "*", and a "*" never the last entry of a tile.
func Tiled(s Shape) (*TiledShape, error) { return tiled(s, true) }

// tiled is Tiled, without the index expressions (Exprs nil) unless
// withExprs: building them is most of the cost, and sizes (PaddedBytes,
// which verify computes for every tiled value) do not need them.
func tiled(s Shape, withExprs bool) (*TiledShape, error) {
	if err := tilingCheckDims(s); err != nil {
		return nil, err
	}
	m2m := s.MinorToMajor()
	if s.Layout != nil && len(s.Layout.MinorToMajor) != len(s.Dims) {
		return nil, fmt.Errorf("layout of %s: expected %d minor_to_major entries, found %d",
			s.StringNoLayout(), len(s.Dims), len(s.Layout.MinorToMajor))
	}
	if !IsPermutation(m2m, len(s.Dims)) {
		return nil, fmt.Errorf("layout of %s: expected a permutation of 0..%d, found minor_to_major %v",
			s.StringNoLayout(), len(s.Dims)-1, m2m)
	}
	ts := &TiledShape{
		Dims:         slices.Clone(s.Dims),
		MinorToMajor: slices.Clone(m2m),
		Physical:     PhysicalDims(s),
	}
	cur := slices.Clone(ts.Physical)
	var exprs []*IndexExpr
	if withExprs {
		exprs = make([]*IndexExpr, len(cur))
		for i, d := range m2m {
			exprs[len(m2m)-1-i] = ixDim(int(d), s.Dims[d])
		}
	}
	if s.Layout != nil {
		for _, t := range s.Layout.Tiles {
			step, err := applyTile(cur, t)
			if err != nil {
				return nil, fmt.Errorf("layout of %s: %w", s.StringNoLayout(), err)
			}
			if withExprs {
				exprs = step.exprs(exprs)
			}
			ts.Steps = append(ts.Steps, step)
			cur = step.Out
		}
	}
	ts.Final = cur
	ts.Exprs = exprs
	n := int64(1)
	ok := true
	for _, d := range cur {
		if n, ok = MulInt64(n, d); !ok {
			break
		}
	}
	if ok && s.Layout != nil && s.Layout.TailPaddingAlignment > 1 {
		n, ok = roundUpChecked(n, s.Layout.TailPaddingAlignment)
	}
	if !ok {
		return nil, fmt.Errorf("shape %s: padded element count %w", s.String(), ErrOverflow)
	}
	ts.PaddedElements = n
	return ts, nil
}

func tilingCheckDims(s Shape) error {
	if !s.IsArray() {
		return fmt.Errorf("expected an array shape, found %s", s.StringNoLayout())
	}
	for i, d := range s.Dims {
		if d < 0 {
			return fmt.Errorf("shape %s: expected a bounded size for dim %d, found %s",
				s.StringNoLayout(), i, tilingDimText(d))
		}
	}
	return nil
}

func tilingDimText(d int64) string {
	if d == UnboundedDim {
		return "?"
	}
	return fmt.Sprint(d)
}

// applyTile applies tile t to the shape cur.
func applyTile(cur []int64, t Tile) (TilingStep, error) {
	if len(t) == 0 {
		return TilingStep{}, fmt.Errorf("expected a tile with at least one dim, found ()")
	}
	for i, v := range t {
		if v == CombinedDim {
			if i == len(t)-1 {
				return TilingStep{}, fmt.Errorf("tile %s: expected a size in the most minor position, found *", t)
			}
			continue
		}
		if v <= 0 {
			return TilingStep{}, fmt.Errorf("tile %s: expected positive sizes or *, found %d", t, v)
		}
	}
	in := slices.Clone(cur)
	for len(in) < len(t) {
		in = append([]int64{1}, in...)
	}
	step := TilingStep{Tile: slices.Clone(t), In: in, Prefix: len(in) - len(t)}
	merged := slices.Clone(in[:step.Prefix])
	var carry int64 = 1
	for i, v := range t {
		d := in[step.Prefix+i]
		var ok bool
		if v == CombinedDim {
			if carry, ok = MulInt64(carry, d); !ok {
				return TilingStep{}, fmt.Errorf("tile %s: combined dims %w", t, ErrOverflow)
			}
			continue
		}
		if d, ok = MulInt64(carry, d); !ok {
			return TilingStep{}, fmt.Errorf("tile %s: combined dims %w", t, ErrOverflow)
		}
		merged = append(merged, d)
		step.Sizes = append(step.Sizes, v)
		carry = 1
	}
	step.Merged = merged
	out := slices.Clone(merged[:step.Prefix])
	for i, v := range step.Sizes {
		out = append(out, tilingCeilDiv(merged[step.Prefix+i], v))
	}
	step.Out = append(out, step.Sizes...)
	return step, nil
}

// apply maps an index of In to the index of Out.
func (st *TilingStep) apply(idx []int64) []int64 {
	in := idx
	for len(in) < len(st.In) {
		in = append([]int64{0}, in...)
	}
	merged := slices.Clone(in[:st.Prefix])
	var acc int64
	for i, v := range st.Tile {
		e := in[st.Prefix+i]
		acc = acc*st.In[st.Prefix+i] + e
		if v == CombinedDim {
			continue
		}
		merged = append(merged, acc)
		acc = 0
	}
	out := slices.Clone(merged[:st.Prefix])
	for i, v := range st.Sizes {
		out = append(out, merged[st.Prefix+i]/v)
	}
	for i, v := range st.Sizes {
		out = append(out, merged[st.Prefix+i]%v)
	}
	return out
}

// exprs maps the index expressions of In's dims to those of Out's dims.
func (st *TilingStep) exprs(in []*IndexExpr) []*IndexExpr {
	for len(in) < len(st.In) {
		in = append([]*IndexExpr{ixConst(0)}, in...)
	}
	merged := slices.Clone(in[:st.Prefix])
	var acc *IndexExpr
	for i, v := range st.Tile {
		e := in[st.Prefix+i]
		if acc == nil {
			acc = e
		} else {
			acc = ixAdd(ixMul(acc, st.In[st.Prefix+i]), e)
		}
		if v == CombinedDim {
			continue
		}
		merged = append(merged, acc)
		acc = nil
	}
	out := slices.Clone(merged[:st.Prefix])
	for i, v := range st.Sizes {
		out = append(out, ixFloorDiv(merged[st.Prefix+i], v))
	}
	for i, v := range st.Sizes {
		out = append(out, ixMod(merged[st.Prefix+i], v))
	}
	return out
}

// PhysicalIndex maps a logical index to its index in Final.
func (ts *TiledShape) PhysicalIndex(index []int64) ([]int64, error) {
	if len(index) != len(ts.Dims) {
		return nil, fmt.Errorf("expected an index of %d dims, found %d", len(ts.Dims), len(index))
	}
	for i, e := range index {
		if e < 0 || e >= ts.Dims[i] {
			return nil, fmt.Errorf("index %v: expected dim %d in [0, %d), found %d", index, i, ts.Dims[i], e)
		}
	}
	cur := make([]int64, len(index))
	for i, d := range ts.MinorToMajor {
		cur[len(index)-1-i] = index[d]
	}
	for i := range ts.Steps {
		cur = ts.Steps[i].apply(cur)
	}
	return cur, nil
}

// LinearIndex is the position in memory, in elements, of the element at the
// logical index: the row-major linear index of its PhysicalIndex in Final.
func (ts *TiledShape) LinearIndex(index []int64) (int64, error) {
	p, err := ts.PhysicalIndex(index)
	if err != nil {
		return 0, err
	}
	return tilingRowMajor(p, ts.Final), nil
}

// LinearIndex is the position in memory, in elements, of the element of the
// array shape s at the logical index, under s's layout (minor_to_major,
// repeated tiles, combined dims, padding). linear_index(f32[3,5]{1,0:T(2,2)},
// (2,3)) = 17.
func LinearIndex(s Shape, index []int64) (int64, error) {
	ts, err := Tiled(s)
	if err != nil {
		return 0, err
	}
	return ts.LinearIndex(index)
}

func tilingRowMajor(idx, dims []int64) int64 {
	var n int64
	for i, e := range idx {
		n = n*dims[i] + e
	}
	return n
}

// TiledElements is the number of element slots of an array shape's tiled
// layout before tail padding (Tiled's Final dims multiplied), computed
// without allocating. It reports false for what it leaves to Tiled: a
// dynamic shape, more than 8 dimensions or tile entries, a layout Tiled
// rejects, or a count past int64.
func TiledElements(s Shape) (int64, bool) {
	if !s.IsArray() || s.Dynamic != nil {
		return 0, false
	}
	var bufA, bufB [16]int64
	n := len(s.Dims)
	if n > len(bufA)/2 {
		return 0, false
	}
	cur := bufA[:n]
	m2m := s.MinorToMajor()
	if !IsPermutation(m2m, n) {
		return 0, false
	}
	for i, d := range m2m {
		if s.Dims[d] < 0 {
			return 0, false
		}
		cur[n-1-i] = s.Dims[d]
	}
	var tiles []Tile
	if s.Layout != nil {
		tiles = s.Layout.Tiles
	}
	other := bufB[:0]
	for _, t := range tiles {
		k := len(t)
		if k == 0 || k > 8 || t[k-1] <= 0 {
			return 0, false
		}
		prefix := len(cur) - k
		if prefix < 0 {
			// The tile covers more dims than there are: leading 1s.
			padded := other[:0]
			for range -prefix {
				padded = append(padded, 1)
			}
			padded = append(padded, cur...)
			cur, other = padded, cur[:0]
			prefix = 0
		}
		out := append(other[:0], cur[:prefix]...)
		var sizes [8]int64
		ns := 0
		carry := int64(1)
		for i, v := range t {
			d := cur[prefix+i]
			var ok bool
			if v == CombinedDim {
				if carry, ok = MulInt64(carry, d); !ok {
					return 0, false
				}
				continue
			}
			if d, ok = MulInt64(carry, d); !ok || v <= 0 || ns == len(sizes) {
				return 0, false
			}
			out = append(out, tilingCeilDiv(d, v))
			sizes[ns] = v
			ns++
			carry = 1
		}
		out = append(out, sizes[:ns]...)
		if len(out) > len(bufA) {
			return 0, false
		}
		cur, other = out, cur[:0]
	}
	p := int64(1)
	for _, d := range cur {
		var ok bool
		if p, ok = MulInt64(p, d); !ok {
			return 0, false
		}
	}
	return p, true
}

// tilingCeilDiv is ceil(a/b) for b > 0; a+b-1 could overflow.
func tilingCeilDiv(a, b int64) int64 {
	q := a / b
	if a%b > 0 {
		q++
	}
	return q
}
