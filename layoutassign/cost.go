package layoutassign

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// RuleFromLayout marks a Cost computed with the tiles the shape's layout
// already had, rather than with a rule of the target.
var RuleFromLayout = Rule{"from-layout", "The shape's layout already has tiles; they are used as given."}

// Cost is the memory an array or tuple takes on a target.
type Cost struct {
	// Unpadded is the size of the data; Padded the size in memory with
	// tiling padding (both in bytes, tuples summed over their leaves).
	Unpadded int64
	Padded   int64
	// Expansion is Padded / Unpadded (1 when both are 0).
	Expansion float64
	// Tiles, ElementSizeBits and Rule describe the layout of an array
	// shape; they are empty for tuples.
	Tiles           []hlo.Tile
	ElementSizeBits int64
	Rule            Rule
}

// MemoryCost returns the unpadded and padded sizes of shape on target. An
// array whose layout already has tiles is costed with them (Rule is
// RuleFromLayout); otherwise the target's ChooseTiling decides.
func MemoryCost(shape hlo.Shape, target Target) (Cost, error) {
	var c Cost
	if shape.IsTuple() {
		for i := range shape.Tuple {
			lc, err := MemoryCost(shape.Tuple[i], target)
			if err != nil {
				return Cost{}, fmt.Errorf("tuple element %d: %w", i, err)
			}
			c.Unpadded += lc.Unpadded
			c.Padded += lc.Padded
		}
		c.Expansion = expansion(c.Padded, c.Unpadded)
		return c, nil
	}
	tiled := shape
	if shape.IsArray() {
		if shape.Layout != nil && len(shape.Layout.Tiles) > 0 {
			c.Tiles, c.ElementSizeBits, c.Rule = shape.Layout.Tiles, shape.Layout.ElementSizeBits, RuleFromLayout
		} else {
			// WithTiling without its deep clone: only the layout changes.
			c.Tiles, c.ElementSizeBits, c.Rule = ChooseTiling(shape, target)
			l := hlo.Layout{MinorToMajor: hlo.DefaultMinorToMajor(shape.Rank())}
			if shape.Layout != nil {
				l = *shape.Layout
			}
			l.Tiles, l.ElementSizeBits = c.Tiles, c.ElementSizeBits
			tiled.Layout = &l
		}
	}
	opts := target.SizeOptions()
	var err error
	if c.Unpadded, err = hlo.UnpaddedBytes(tiled, opts); err != nil {
		return Cost{}, err
	}
	if c.Padded, err = paddedBytes(tiled, opts); err != nil {
		return Cost{}, err
	}
	c.Expansion = expansion(c.Padded, c.Unpadded)
	return c, nil
}

func expansion(padded, unpadded int64) float64 {
	if unpadded == 0 {
		return 1
	}
	return float64(padded) / float64(unpadded)
}

// SuggestThreshold is the expansion factor above which Suggest looks for a
// better layout.
const SuggestThreshold = 1.25

// Suggestion is a concrete change that reduces the padding of an array.
type Suggestion struct {
	// Problem says which dims pad and to what: "minor dim 1 (size 4) pads
	// to 128".
	Problem string
	// Change is the proposal: a new minor_to_major or a reshape.
	Change string
	// Shape is the proposed shape, tiled for the target.
	Shape hlo.Shape
	// Before and After are the padded sizes in bytes.
	Before, After int64
}

// String prints "problem: change (before -> after bytes)".
func (s Suggestion) String() string {
	return fmt.Sprintf("%s: %s (%d -> %d bytes)", s.Problem, s.Change, s.Before, s.After)
}

// Suggest proposes changes for a TPU array of rank >= 2 whose tiling
// padding expands it by more than SuggestThreshold: the best choice of minor
// and second-minor dims (a new minor_to_major), and a reshape of the minor
// physical dims into [n,128] when their product is a multiple of 128. Only
// proposals that save memory are returned, the smallest first. The shape's
// own tiles are ignored: the target's rules are compared with themselves.
func Suggest(shape hlo.Shape, target Target) []Suggestion {
	if target.Backend != BackendTPU || !shape.IsArray() || shape.Rank() < 2 {
		return nil
	}
	cur, err := MemoryCost(untiled(shape), target)
	if err != nil || cur.Expansion <= SuggestThreshold {
		return nil
	}
	m2m := shape.MinorToMajor()
	problem := paddingProblem(shape, m2m, cur.Tiles)
	var out []Suggestion
	if s, ok := bestRelayout(shape, m2m, target, cur.Padded); ok {
		s.Problem = problem
		out = append(out, s)
	}
	if s, ok := reshapeMinor(shape, target, cur.Padded); ok {
		s.Problem = problem
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b Suggestion) int { return cmp.Compare(a.After, b.After) })
	return out
}

func untiled(s hlo.Shape) hlo.Shape {
	c := s.Clone()
	if c.Layout != nil {
		c.Layout.Tiles = nil
		c.Layout.ElementSizeBits = 0
	}
	return c
}

// paddingProblem describes how the minor and second-minor dims pad under
// the first tile (rows,128).
func paddingProblem(s hlo.Shape, m2m []int64, tiles []hlo.Tile) string {
	if len(tiles) == 0 || len(tiles[0]) != 2 {
		return "padding"
	}
	var parts []string
	minor, second := m2m[0], m2m[1]
	if a, p := s.Dims[minor], roundUp(s.Dims[minor], tiles[0][1]); p != a {
		parts = append(parts, fmt.Sprintf("minor dim %d (size %d) pads to %d", minor, a, p))
	}
	if a, p := s.Dims[second], roundUp(s.Dims[second], tiles[0][0]); p != a {
		parts = append(parts, fmt.Sprintf("second-minor dim %d (size %d) pads to %d", second, a, p))
	}
	if len(parts) == 0 {
		return "padding"
	}
	return strings.Join(parts, ", ")
}

func roundUp(a, b int64) int64 { return ceilDiv(a, b) * b }

// bestRelayout tries every (minor, second-minor) pair of dims, keeping the
// other dims in their current order, and returns the smallest if it beats
// before.
func bestRelayout(s hlo.Shape, m2m []int64, target Target, before int64) (Suggestion, bool) {
	best := Suggestion{After: before}
	found := false
	for _, mi := range m2m {
		for _, si := range m2m {
			if mi == si {
				continue
			}
			order := []int64{mi, si}
			for _, d := range m2m {
				if d != mi && d != si {
					order = append(order, d)
				}
			}
			cand := hlo.MakeShapeWithLayout(s.Type, s.Dims, order)
			c, err := MemoryCost(cand, target)
			if err != nil || c.Padded >= best.After {
				continue
			}
			found = true
			best = Suggestion{Shape: WithTiling(cand, target), Before: before, After: c.Padded,
				Change: relayoutText(s, m2m, mi, si, order)}
		}
	}
	return best, found
}

func relayoutText(s hlo.Shape, m2m []int64, mi, si int64, order []int64) string {
	layout := "minor_to_major {" + joinInts(order) + "}"
	switch {
	case si == m2m[0]:
		return fmt.Sprintf("make it the second-minor and dim %d (size %d) the minor dim, %s", mi, s.Dims[mi], layout)
	case mi == m2m[0]:
		return fmt.Sprintf("make dim %d (size %d) the second-minor, %s", si, s.Dims[si], layout)
	}
	return fmt.Sprintf("make dim %d (size %d) the minor and dim %d (size %d) the second-minor dim, %s",
		mi, s.Dims[mi], si, s.Dims[si], layout)
}

// reshapeMinor merges the fewest minor physical dims whose product is a
// multiple of 128 into [n,128].
func reshapeMinor(s hlo.Shape, target Target, before int64) (Suggestion, bool) {
	phys := hlo.PhysicalDims(s)
	r := len(phys)
	prod := phys[r-1]
	for k := 2; k <= r; k++ {
		prod *= phys[r-k]
		if prod%128 != 0 {
			continue
		}
		dims := append(append([]int64{}, phys[:r-k]...), prod/128, 128)
		cand := hlo.MakeShapeWithLayout(s.Type, dims, hlo.DefaultMinorToMajor(len(dims)))
		c, err := MemoryCost(cand, target)
		if err != nil || c.Padded >= before {
			return Suggestion{}, false
		}
		return Suggestion{Shape: WithTiling(cand, target), Before: before, After: c.Padded,
			Change: fmt.Sprintf("reshape the %d minor physical dims [%s] into [%d,128] (a bitcast of the untiled data): %s",
				k, joinInts(phys[r-k:]), prod/128, cand.StringNoLayout())}, true
	}
	return Suggestion{}, false
}

func joinInts(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ",")
}

// paddedBytes is hlo.PaddedBytes of an array shape, computed directly from
// the physical dims and tiles (no index expressions): each tile replaces
// the dims it covers (after merging combined "*" dims, and with leading
// 1s when the tile has more dims than the shape) by their tile counts,
// followed by the tile's sizes; the padded size is the product of the
// last shape's dims. Shapes it does not handle (unbounded or dynamic
// dims, invalid layouts or tiles) go to hlo.PaddedBytes, which also
// reports their errors; TestPaddedBytesMatchesHLO checks the two agree.
func paddedBytes(s hlo.Shape, o hlo.SizeOptions) (int64, error) {
	// The fast path; hlo.PaddedBytes for the rest, and to report an
	// overflow.
	if elems, ok := paddedElements(s); ok {
		if nbits, ok := hlo.MulInt64(elems, o.ElementBits(s)); ok {
			n := ceilDiv(nbits, 8)
			if s.Layout != nil {
				n += s.Layout.DynamicShapeMetadataPrefixBytes
			}
			return n, nil
		}
	}
	return hlo.PaddedBytes(s, o)
}

// paddedElements is hlo.TiledElements: the padded element count without
// allocating, or false (the general path then says why).
func paddedElements(s hlo.Shape) (int64, bool) { return hlo.TiledElements(s) }
