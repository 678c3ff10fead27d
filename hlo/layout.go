package hlo

import (
	"slices"
	"strconv"
	"strings"
)

// CombinedDim is the tile size that marks a combined dimension, printed "*".
const CombinedDim int64 = -1

// Tile is one level of tiling, covering a suffix of the physical dimensions
// (most minor last), e.g. (8,128). A CombinedDim entry merges that dimension
// into the next more minor one.
type Tile []int64

// String prints the tile as "(8,128)" or "(*,2,*,3)".
func (t Tile) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t Tile) write(b *strings.Builder) {
	b.WriteByte('(')
	for i, d := range t {
		if i > 0 {
			b.WriteByte(',')
		}
		if d == CombinedDim {
			b.WriteByte('*')
		} else {
			b.WriteString(strconv.FormatInt(d, 10))
		}
	}
	b.WriteByte(')')
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

// String prints the layout as XLA does: "{3,2,0,1:T(8,128)(2,1)S(1)}".
func (l *Layout) String() string {
	var b strings.Builder
	l.write(&b)
	return b.String()
}

func (l *Layout) write(b *strings.Builder) {
	b.WriteByte('{')
	for i, d := range l.MinorToMajor {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(d, 10))
	}
	if !l.isPlain() {
		b.WriteByte(':')
	}
	if l.DimLevelTypes != "" {
		b.WriteString("D(")
		b.WriteString(l.DimLevelTypes)
		b.WriteByte(')')
	}
	if len(l.Tiles) > 0 {
		b.WriteByte('T')
		for _, t := range l.Tiles {
			t.write(b)
		}
	}
	if l.TailPaddingAlignment > 1 {
		b.WriteString("L(")
		b.WriteString(strconv.FormatInt(l.TailPaddingAlignment, 10))
		b.WriteByte(')')
	}
	if l.IndexType != Invalid {
		b.WriteString("#(")
		b.WriteString(l.IndexType.String())
		b.WriteByte(')')
	}
	if l.PointerType != Invalid {
		b.WriteString("*(")
		b.WriteString(l.PointerType.String())
		b.WriteByte(')')
	}
	if l.ElementSizeBits != 0 {
		b.WriteString("E(")
		b.WriteString(strconv.FormatInt(l.ElementSizeBits, 10))
		b.WriteByte(')')
	}
	if l.MemorySpace != 0 {
		b.WriteString("S(")
		b.WriteString(strconv.FormatInt(l.MemorySpace, 10))
		b.WriteByte(')')
	}
	if l.SplitConfigs != "" {
		b.WriteString(l.SplitConfigs)
	}
	if l.PhysicalShape != nil {
		b.WriteString("P(")
		l.PhysicalShape.write(b, true)
		b.WriteByte(')')
	}
	if l.DynamicShapeMetadataPrefixBytes != 0 {
		b.WriteString("M(")
		b.WriteString(strconv.FormatInt(l.DynamicShapeMetadataPrefixBytes, 10))
		b.WriteByte(')')
	}
	b.WriteByte('}')
}
