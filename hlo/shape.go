package hlo

import (
	"math"
	"slices"
)

// UnboundedDim is the size recorded for an unbounded dynamic dimension,
// printed as "?".
const UnboundedDim int64 = math.MinInt64

// Shape is an array shape (element type, dimensions, optional layout) or a
// tuple of shapes. Token and opaque shapes have no dimensions.
type Shape struct {
	Type PrimitiveType
	// Buffer marks XLA's buffer shape of an array, printed "b(f32[8]{0})"
	// (the result of custom calls that pin a buffer); the other fields
	// describe the array. Analyses treat it as the array. (It sits next to
	// Type, which keeps a Shape at 88 bytes.)
	Buffer bool
	// Dims are the dimension sizes, dimension 0 first. For a bounded dynamic
	// dimension ("<=N") the size is the bound N; an unbounded one is
	// UnboundedDim.
	Dims []int64
	// Dynamic marks dynamic dimensions; nil when none is dynamic.
	Dynamic []bool
	// Layout is nil when the text gave none; it then prints as the default
	// major-to-minor layout.
	Layout *Layout
	// Tuple holds the element shapes when Type is TUPLE.
	Tuple []Shape
}

// MakeShape returns an array shape with the default (absent) layout.
func MakeShape(t PrimitiveType, dims ...int64) Shape {
	return Shape{Type: t, Dims: slices.Clone(dims)}
}

// MakeShapeWithLayout returns an array shape whose layout has the given
// minor_to_major order.
func MakeShapeWithLayout(t PrimitiveType, dims []int64, minorToMajor []int64) Shape {
	return Shape{Type: t, Dims: slices.Clone(dims), Layout: &Layout{MinorToMajor: slices.Clone(minorToMajor)}}
}

// MakeTupleShape returns a tuple of the given shapes.
func MakeTupleShape(elems ...Shape) Shape {
	return Shape{Type: TUPLE, Tuple: slices.Clone(elems)}
}

// IsTuple reports whether s is a tuple shape.
func (s Shape) IsTuple() bool { return s.Type == TUPLE }

// IsArray reports whether s is an array shape.
func (s Shape) IsArray() bool { return s.Type.IsArray() }

// Rank is the number of dimensions of an array shape.
func (s Shape) Rank() int { return len(s.Dims) }

// IsScalar reports whether s is an array of rank 0.
func (s Shape) IsScalar() bool { return s.IsArray() && len(s.Dims) == 0 }

// IsDynamicDim reports whether dimension i is dynamic.
func (s Shape) IsDynamicDim(i int) bool { return i < len(s.Dynamic) && s.Dynamic[i] }

// ElementCount is the number of elements of an array shape (the product of
// its dimensions, bounds for dynamic ones); 0 for tuples.
func (s Shape) ElementCount() int64 {
	if !s.IsArray() {
		return 0
	}
	n := int64(1)
	for _, d := range s.Dims {
		if d == UnboundedDim {
			return 0
		}
		n *= d
	}
	return n
}

// MinorToMajor returns the layout's minor_to_major order, or the default
// major-to-minor order {rank-1, ..., 0} when s has no layout.
func (s Shape) MinorToMajor() []int64 {
	if s.Layout != nil && (len(s.Layout.MinorToMajor) == len(s.Dims)) {
		return s.Layout.MinorToMajor
	}
	return DefaultMinorToMajor(len(s.Dims))
}

// DefaultMinorToMajor returns {rank-1, ..., 1, 0}.
func DefaultMinorToMajor(rank int) []int64 {
	m := make([]int64, rank)
	for i := range m {
		m[i] = int64(rank - 1 - i)
	}
	return m
}

// Leaves returns the array (and token) leaves of a shape in order, with their
// shape index (the path of tuple indices). An array shape is its own single
// leaf with an empty index. Each leaf's Shape points into s (a change
// through it changes s), as Subshape's does.
func (s *Shape) Leaves() []ShapeLeaf {
	if !s.IsTuple() {
		return []ShapeLeaf{{Shape: s}}
	}
	var out []ShapeLeaf
	var walk func(sh *Shape, idx []int64)
	walk = func(sh *Shape, idx []int64) {
		if sh.IsTuple() {
			for i := range sh.Tuple {
				walk(&sh.Tuple[i], append(slices.Clone(idx), int64(i)))
			}
			return
		}
		out = append(out, ShapeLeaf{Index: idx, Shape: sh})
	}
	walk(s, nil)
	return out
}

// ShapeLeaf is a non-tuple sub-shape and its tuple index path.
type ShapeLeaf struct {
	Index []int64
	Shape *Shape
}

// Subshape returns the sub-shape at a tuple index path, or false.
func (s *Shape) Subshape(index []int64) (*Shape, bool) {
	cur := s
	for _, i := range index {
		if !cur.IsTuple() || i < 0 || int(i) >= len(cur.Tuple) {
			return nil, false
		}
		cur = &cur.Tuple[i]
	}
	return cur, true
}

// Clone returns a deep copy of s.
func (s Shape) Clone() Shape {
	c := s
	c.Dims = slices.Clone(s.Dims)
	c.Dynamic = slices.Clone(s.Dynamic)
	if s.Layout != nil {
		l := s.Layout.Clone()
		c.Layout = &l
	}
	if s.Tuple != nil {
		c.Tuple = make([]Shape, len(s.Tuple))
		for i := range s.Tuple {
			c.Tuple[i] = s.Tuple[i].Clone()
		}
	}
	return c
}

// Equal reports whether two shapes print identically.
func (s Shape) Equal(o Shape) bool { return s.String() == o.String() }

// EqualIgnoringLayout reports whether two shapes have the same types and
// dimensions, whatever their layouts.
func (s Shape) EqualIgnoringLayout(o Shape) bool {
	if s.Type != o.Type || s.Buffer != o.Buffer || len(s.Tuple) != len(o.Tuple) || !slices.Equal(s.Dims, o.Dims) {
		return false
	}
	for i := range s.Dims {
		if s.IsDynamicDim(i) != o.IsDynamicDim(i) {
			return false
		}
	}
	for i := range s.Tuple {
		if !s.Tuple[i].EqualIgnoringLayout(o.Tuple[i]) {
			return false
		}
	}
	return true
}

// String prints the shape as XLA does, with its layout:
// "f32[3,5]{1,0:T(2,2)}", "(f32[2]{0}, s32[])", "bf16[<=8,?]{1,0}".
func (s Shape) String() string {
	var p printer
	p.shape(&s, true)
	return string(p.buf)
}

// AppendTo appends the shape's text, as String prints it, to b.
func (s Shape) AppendTo(b []byte) []byte {
	p := printer{buf: b}
	p.shape(&s, true)
	return p.buf
}

// StringNoLayout prints the shape without layouts: "f32[3,5]".
func (s Shape) StringNoLayout() string {
	var p printer
	p.shape(&s, false)
	return string(p.buf)
}

// ShapeCompare compares shapes as XLA's Shape::Equal does, with the parts
// it names left out. A shape without a layout has the default one, as
// every shape has in XLA once parsed.
type ShapeCompare struct {
	IgnoreLayout           bool
	IgnoreDynamicDimension bool // dynamic marks, and unbounded sizes against any
	IgnoreElementType      bool
	IgnoreFpPrecision      bool // any two floating-point types are the same
	IgnoreBuffer           bool // a buffer shape is its array
}

// Equal reports whether a and b are equal but for what c ignores.
func (c ShapeCompare) Equal(a, b Shape) bool {
	if a.IsTuple() || b.IsTuple() {
		if !a.IsTuple() || !b.IsTuple() || len(a.Tuple) != len(b.Tuple) {
			return false
		}
		for i := range a.Tuple {
			if !c.Equal(a.Tuple[i], b.Tuple[i]) {
				return false
			}
		}
		return true
	}
	if a.Buffer != b.Buffer && !c.IgnoreBuffer {
		return false
	}
	if !a.IsArray() || !b.IsArray() {
		return a.Type == b.Type
	}
	switch {
	case c.IgnoreElementType:
	case c.IgnoreFpPrecision && a.Type.IsFloat() && b.Type.IsFloat():
	case a.Type != b.Type:
		return false
	}
	if len(a.Dims) != len(b.Dims) {
		return false
	}
	for i := range a.Dims {
		if a.Dims[i] != b.Dims[i] && !(c.IgnoreDynamicDimension && (a.Dims[i] == UnboundedDim || b.Dims[i] == UnboundedDim)) {
			return false
		}
	}
	if !c.IgnoreLayout && layoutText(a) != layoutText(b) {
		return false
	}
	if !c.IgnoreDynamicDimension {
		for i := range a.Dims {
			if a.IsDynamicDim(i) != b.IsDynamicDim(i) {
				return false
			}
		}
	}
	return true
}

// layoutText is the layout of an array shape as printed, the default one
// when it has none.
func layoutText(s Shape) string {
	if s.Layout == nil {
		return DefaultLayout(len(s.Dims)).String()
	}
	if len(s.Dims) == 0 && s.Layout.isPlain() {
		return "{}"
	}
	return s.Layout.String()
}

// Compatible reports whether a and b have the same element types and
// dimensions, whatever their layouts and dynamic marks (XLA's
// ShapeUtil::Compatible).
func Compatible(a, b Shape) bool {
	return ShapeCompare{IgnoreLayout: true, IgnoreDynamicDimension: true}.Equal(a, b)
}
