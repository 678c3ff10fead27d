package hlo

import (
	"slices"
)

// CombinedDim is the tile size that marks a combined dimension, printed "*".
const CombinedDim int64 = -1

// Tile is one level of tiling, covering a suffix of the physical dimensions
// (most minor last), e.g. (8,128). A CombinedDim entry merges that dimension
// into the next more minor one.
type Tile []int64

// String prints the tile as "(8,128)" or "(*,2,*,3)".
func (t Tile) String() string {
	var p printer
	p.tile(t)
	return string(p.buf)
}

// Layout is XLA's array layout: the minor_to_major order plus everything XLA
// prints after the colon, in XLA's order D T L # * E S SC P M.
type Layout struct {
	MinorToMajor []int64
	// DimLevelTypes is the raw text inside D(...) (sparse layouts), or "".
	DimLevelTypes string
	Tiles         []Tile
	// TailPaddingAlignment is L(n); 0 or 1 means none.
	TailPaddingAlignment int64
	IndexType            PrimitiveType // #(type)
	PointerType          PrimitiveType // *(type)
	// ElementSizeBits is E(n); 0 means the type's natural width.
	ElementSizeBits int64
	// MemorySpace is S(n); 0 is device memory (HBM) and is not printed.
	MemorySpace int64
	// SplitConfigs is the raw text of the SC(...) groups, or "".
	SplitConfigs string
	// PhysicalShape is P(shape), or nil.
	PhysicalShape *Shape
	// DynamicShapeMetadataPrefixBytes is M(n).
	DynamicShapeMetadataPrefixBytes int64
}

// DefaultLayout returns the major-to-minor layout of the given rank.
func DefaultLayout(rank int) *Layout { return &Layout{MinorToMajor: DefaultMinorToMajor(rank)} }

// isPlain reports whether nothing follows the minor_to_major list.
func (l *Layout) isPlain() bool {
	return l.DimLevelTypes == "" && len(l.Tiles) == 0 && l.TailPaddingAlignment <= 1 &&
		l.IndexType == Invalid && l.PointerType == Invalid && l.ElementSizeBits == 0 &&
		l.MemorySpace == 0 && l.SplitConfigs == "" && l.PhysicalShape == nil &&
		l.DynamicShapeMetadataPrefixBytes == 0
}

// Clone returns a deep copy of l.
func (l Layout) Clone() Layout {
	c := l
	c.MinorToMajor = slices.Clone(l.MinorToMajor)
	if l.Tiles != nil {
		c.Tiles = make([]Tile, len(l.Tiles))
		for i, t := range l.Tiles {
			c.Tiles[i] = slices.Clone(t)
		}
	}
	if l.PhysicalShape != nil {
		p := l.PhysicalShape.Clone()
		c.PhysicalShape = &p
	}
	return c
}

// Equal reports whether l and o are the same layout, every field that
// XLA prints compared (Layout::operator==; a tail padding of 0 or 1 is
// none); nil equals only nil.
func (l *Layout) Equal(o *Layout) bool {
	if l == nil || o == nil {
		return l == o
	}
	if !slices.Equal(l.MinorToMajor, o.MinorToMajor) || l.DimLevelTypes != o.DimLevelTypes ||
		!slices.EqualFunc(l.Tiles, o.Tiles, slices.Equal) || max(l.TailPaddingAlignment, 1) != max(o.TailPaddingAlignment, 1) ||
		l.IndexType != o.IndexType || l.PointerType != o.PointerType || l.ElementSizeBits != o.ElementSizeBits ||
		l.MemorySpace != o.MemorySpace || l.SplitConfigs != o.SplitConfigs ||
		l.DynamicShapeMetadataPrefixBytes != o.DynamicShapeMetadataPrefixBytes {
		return false
	}
	if l.PhysicalShape == nil || o.PhysicalShape == nil {
		return l.PhysicalShape == o.PhysicalShape
	}
	return l.PhysicalShape.Equal(*o.PhysicalShape)
}

// String prints the layout as XLA does: "{3,2,0,1:T(8,128)(2,1)S(1)}".
func (l *Layout) String() string {
	var p printer
	p.layout(l)
	return string(p.buf)
}
