package layoutassign

// Writing the assignment back into the module's shapes, with the tiling
// each layout takes on the target.

import (
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// write stores the chosen layouts into the shapes: fixed values keep their
// stated layout (tiles chosen by the rules when none were stated), the
// others get the class's minor_to_major and the target's tiles; memory
// spaces stated in the text are kept.
func (a *assigner) write(res *Assignment) {
	for id, v := range a.values {
		s, _ := v.in.Shape.Subshape(v.path)
		if s == nil || !s.IsArray() {
			continue
		}
		res.Arrays++
		m := a.layoutOf(id)
		old := s.Layout
		if a.exact[id] {
			res.Fixed++
			if s.Rank() > 0 && len(s.Layout.Tiles) > 0 {
				if tiles, ebits := a.tiling(s, s.Layout.MinorToMajor); ebits != s.Layout.ElementSizeBits ||
					!slices.EqualFunc(tiles, s.Layout.Tiles, func(x, y hlo.Tile) bool { return slices.Equal(x, y) }) {
					a.ownTiles = true
				}
			}
			if len(s.Layout.Tiles) == 0 && !a.tiledModule {
				*s = withRuleTiles(*s, a.opts.Target)
				res.Changed = res.Changed || !sameLayout(old, s.Layout, s.Rank())
			}
			continue
		}
		if a.isFixed[a.find(id)] {
			res.Fixed++
		}
		if a.keepUnlaid && a.orig[id] == nil {
			continue // kept in vector registers by XLA's TPU compile (RuleTPUVectorRegisters)
		}
		if m == nil {
			m = hlo.DefaultMinorToMajor(s.Rank())
		}
		if r := a.result[id]; r != nil && len(r.Tiles) > 0 && slices.Equal(r.MinorToMajor, m) {
			// A value the entry returns in the signature's order takes
			// the signature's whole layout, tiles too (XLA's result
			// layout constraint); in another order it is copied.
			if !sameLayout(s.Layout, r, s.Rank()) {
				l := r.Clone()
				s.Layout = &l
				res.Changed = true
			}
			a.ownTiles = true // shareAliases carries them to its aliases
			continue
		}
		if a.relayout(s, m) {
			res.Changed = true
		}
	}
}

// layoutsChanged reports whether any value's layout now prints
// differently than before the pass.
func (a *assigner) layoutsChanged() bool {
	for id := range a.values {
		s := a.shapeOf(id)
		if s != nil && s.IsArray() && s.Layout != a.orig[id] && !sameLayout(a.orig[id], s.Layout, s.Rank()) {
			return true
		}
	}
	return false
}

// relayout gives s minor_to_major m with the rule's tiles, keeping its
// memory space, and reports whether that changed its layout. A layout
// that already is exactly that is left alone (no allocation).
func (a *assigner) relayout(s *hlo.Shape, m []int64) bool {
	tiles, ebits := a.tiling(s, m)
	if l := s.Layout; l != nil && slices.Equal(l.MinorToMajor, m) && l.ElementSizeBits == ebits &&
		slices.EqualFunc(tiles, l.Tiles, func(x, y hlo.Tile) bool { return slices.Equal(x, y) }) &&
		l.DimLevelTypes == "" && l.TailPaddingAlignment <= 1 && l.IndexType == hlo.Invalid &&
		l.PointerType == hlo.Invalid && l.SplitConfigs == "" && l.PhysicalShape == nil &&
		l.DynamicShapeMetadataPrefixBytes == 0 {
		return false
	}
	old := s.Layout
	var space int64
	if old != nil {
		space = old.MemorySpace
	}
	key, internable := layoutKeyOf(m, tiles, ebits, space)
	if internable {
		if l, ok := a.layouts[key]; ok {
			s.Layout = l
			return !sameLayout(old, l, s.Rank())
		}
	}
	if len(a.layoutArena) == 0 {
		a.layoutArena = make([]hlo.Layout, 256)
	}
	l := &a.layoutArena[0]
	a.layoutArena = a.layoutArena[1:]
	if len(a.intArena) < len(m) {
		a.intArena = make([]int64, max(1024, len(m)))
	}
	mm := a.intArena[:len(m):len(m)]
	a.intArena = a.intArena[len(m):]
	copy(mm, m)
	*l = hlo.Layout{MinorToMajor: mm, Tiles: tiles, ElementSizeBits: ebits, MemorySpace: space}
	if internable {
		if a.layouts == nil {
			a.layouts = map[layoutKey]*hlo.Layout{}
		}
		a.layouts[key] = l
	}
	s.Layout = l
	return !sameLayout(old, s.Layout, s.Rank())
}

// layoutKey identifies a layout relayout builds: its minor_to_major (rank
// at most 8), its memoised tiles slice (equal tiles share one, see
// tiling), element size and memory space. Values with equal keys share
// one *hlo.Layout, which nothing may modify in place.
type layoutKey struct {
	m2m          [8]uint8
	rank         uint8
	tiles        *hlo.Tile
	ntiles       int
	ebits, space int64
}

func layoutKeyOf(m []int64, tiles []hlo.Tile, ebits, space int64) (layoutKey, bool) {
	k := layoutKey{rank: uint8(len(m)), ntiles: len(tiles), ebits: ebits, space: space}
	if len(m) > len(k.m2m) {
		return k, false
	}
	for i, d := range m {
		k.m2m[i] = uint8(d)
	}
	if len(tiles) > 0 {
		k.tiles = &tiles[0]
	}
	return k, true
}

// shareAliases gives every value that aliases another's buffer (a tuple
// element, get-tuple-element, a called computation's parameter or a
// caller's result) the producer's tiles and element size, so that stated
// tiles of fixed values carry over to their aliases. It walks the module
// as it is after copies were inserted. Values with their own fixed layout,
// and memory spaces, are left alone.
func (a *assigner) shareAliases(res *Assignment) {
	if !a.ownTiles {
		return // every layout has the rule's tiles already
	}
	a.sharing = true
	defer func() { a.sharing = false }()
	for round := 0; round < 8; round++ {
		a.shared = 0
		for _, c := range a.m.Computations {
			for _, in := range c.Instructions {
				a.unifyInstruction(in)
			}
		}
		if a.shared == 0 {
			return
		}
		res.Changed = true
	}
}

// shareLeaves copies the tiles and element sizes of the leaves of ps onto
// the matching leaves of c under cPath.
func (a *assigner) shareLeaves(ps *hlo.Shape, c *hlo.Instruction, cPath []int64, cs *hlo.Shape) {
	bc, fixedOK := a.base(c)
	first, _, _ := a.leaves.leafRange(&c.Shape, cPath)
	pl, cl := []*hlo.Shape{ps}, []*hlo.Shape{cs}
	if ps.IsTuple() {
		pl, cl = pl[:0], cl[:0]
		for _, l := range ps.Leaves() {
			pl = append(pl, l.Shape)
		}
		for _, l := range cs.Leaves() {
			cl = append(cl, l.Shape)
		}
	}
	for k := range pl {
		p, q := pl[k], cl[k]
		if !p.IsArray() || p.Layout == nil || q.Layout == nil || (fixedOK && a.exact[bc+first+k]) ||
			!slices.Equal(p.Layout.MinorToMajor, q.Layout.MinorToMajor) ||
			q.Layout.ElementSizeBits == p.Layout.ElementSizeBits &&
				slices.EqualFunc(p.Layout.Tiles, q.Layout.Tiles, func(x, y hlo.Tile) bool { return slices.Equal(x, y) }) {
			continue
		}
		l := q.Layout.Clone()
		l.Tiles = slices.Clone(p.Layout.Tiles)
		l.ElementSizeBits = p.Layout.ElementSizeBits
		q.Layout = &l
		a.shared++
	}
}

// tilingKey is what ChooseTiling's answer depends on for a valid layout.
type tilingKey struct {
	t    hlo.PrimitiveType
	rank int   // 0, 1, or 2 for any higher rank
	n    int64 // the second-minor dim (rank >= 2) or the only dim (rank 1)
}

type tilingVal struct {
	tiles []hlo.Tile
	ebits int64
}

// tilingMemo is the last answer of tiling (runs of values share one).
type tilingMemo struct {
	key tilingKey
	val tilingVal
	ok  bool
}

// tiling is ChooseTiling for s laid out as m, memoised: equal answers share
// one tiles slice (capacity-limited, so an append copies), which callers
// must treat as read-only.
func (a *assigner) tiling(s *hlo.Shape, m []int64) ([]hlo.Tile, int64) {
	k := tilingKey{t: s.Type, rank: min(s.Rank(), 2)}
	switch {
	case s.Rank() == 1:
		k.n = s.Dims[0]
	case s.Rank() >= 2:
		k.n = s.Dims[m[1]]
	}
	if a.lastTiling.ok && a.lastTiling.key == k {
		return a.lastTiling.val.tiles, a.lastTiling.val.ebits
	}
	if v, ok := a.tilings[k]; ok {
		a.lastTiling = tilingMemo{k, v, true}
		return v.tiles, v.ebits
	}
	probe := hlo.Shape{Type: s.Type, Dims: s.Dims, Dynamic: s.Dynamic, Layout: &hlo.Layout{MinorToMajor: m}}
	tiles, ebits, _ := ChooseTiling(probe, a.opts.Target)
	tiles = tiles[:len(tiles):len(tiles)]
	if a.tilings == nil {
		a.tilings = map[tilingKey]tilingVal{}
	}
	a.tilings[k] = tilingVal{tiles, ebits}
	a.lastTiling = tilingMemo{k, tilingVal{tiles, ebits}, true}
	return tiles, ebits
}

// layoutFor returns s with minor_to_major m, the target's tiles and
// element size, and s's memory space. The result shares s's dims.
func layoutFor(s hlo.Shape, m []int64, t Target) hlo.Shape {
	var space int64
	if s.Layout != nil {
		space = s.Layout.MemorySpace
	}
	out := s
	out.Layout = &hlo.Layout{MinorToMajor: slices.Clone(m), MemorySpace: space}
	out.Layout.Tiles, out.Layout.ElementSizeBits, _ = ChooseTiling(out, t)
	return out
}

// withRuleTiles returns s with the target's tiles (and element size, when
// the rule sets one) added to its layout; s itself when that adds nothing.
func withRuleTiles(s hlo.Shape, t Target) hlo.Shape {
	tiles, ebits, _ := ChooseTiling(s, t)
	if ebits == 0 && s.Layout.ElementSizeBits != 0 {
		ebits = s.Layout.ElementSizeBits
	}
	if len(tiles) == 0 && len(s.Layout.Tiles) == 0 && ebits == s.Layout.ElementSizeBits {
		return s
	}
	l := s.Layout.Clone()
	l.Tiles, l.ElementSizeBits = tiles, ebits
	s.Layout = &l
	return s
}
