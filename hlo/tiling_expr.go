package hlo

import (
	"strconv"
	"strings"
)

// IndexExprKind is the operation of an IndexExpr node.
type IndexExprKind uint8

// The IndexExpr operations. Mul, FloorDiv and Mod take their constant from
// IndexExpr.Value; Add adds LHS and RHS.
const (
	IndexConst    IndexExprKind = iota // Value
	IndexDim                           // logical index d<Dim>
	IndexAdd                           // LHS + RHS
	IndexMul                           // LHS * Value
	IndexFloorDiv                      // LHS floordiv Value
	IndexMod                           // LHS mod Value
)

// IndexExpr is a small affine expression of the logical indices of an array,
// the index of one physical dim of a tiled layout (TiledShape.Exprs). It is
// built simplified: floordiv/mod by 1, by a constant no smaller than the
// operand's range, and multiplication by 0 or 1 are folded away.
type IndexExpr struct {
	Kind  IndexExprKind
	Dim   int   // IndexDim: the logical dimension number
	Value int64 // IndexConst: the constant; Mul, FloorDiv, Mod: the right operand
	LHS   *IndexExpr
	RHS   *IndexExpr // IndexAdd only
	// Bound is an exclusive upper bound of the expression's value over the
	// array's index space (the values are in [0, Bound)).
	Bound int64
}

func ixConst(c int64) *IndexExpr { return &IndexExpr{Kind: IndexConst, Value: c, Bound: c + 1} }

func ixDim(d int, size int64) *IndexExpr {
	if size <= 1 {
		return ixConst(0)
	}
	return &IndexExpr{Kind: IndexDim, Dim: d, Bound: size}
}

func ixAdd(a, b *IndexExpr) *IndexExpr {
	switch {
	case a.Kind == IndexConst && b.Kind == IndexConst:
		return ixConst(a.Value + b.Value)
	case a.Kind == IndexConst && a.Value == 0:
		return b
	case b.Kind == IndexConst && b.Value == 0:
		return a
	}
	return &IndexExpr{Kind: IndexAdd, LHS: a, RHS: b, Bound: a.Bound + b.Bound - 1}
}

func ixMul(a *IndexExpr, c int64) *IndexExpr {
	switch {
	case a.Kind == IndexConst:
		return ixConst(a.Value * c)
	case c == 1:
		return a
	case c == 0:
		return ixConst(0)
	case a.Kind == IndexAdd:
		return ixAdd(ixMul(a.LHS, c), ixMul(a.RHS, c))
	case a.Kind == IndexMul:
		return ixMul(a.LHS, a.Value*c)
	}
	return &IndexExpr{Kind: IndexMul, LHS: a, Value: c, Bound: (a.Bound-1)*c + 1}
}

func ixFloorDiv(a *IndexExpr, c int64) *IndexExpr {
	switch {
	case a.Kind == IndexConst:
		return ixConst(a.Value / c)
	case c == 1:
		return a
	case a.Bound <= c:
		return ixConst(0)
	case a.Kind == IndexFloorDiv:
		return ixFloorDiv(a.LHS, a.Value*c)
	}
	return &IndexExpr{Kind: IndexFloorDiv, LHS: a, Value: c, Bound: (a.Bound-1)/c + 1}
}

func ixMod(a *IndexExpr, c int64) *IndexExpr {
	switch {
	case a.Kind == IndexConst:
		return ixConst(a.Value % c)
	case c == 1:
		return ixConst(0)
	case a.Bound <= c:
		return a
	}
	return &IndexExpr{Kind: IndexMod, LHS: a, Value: c, Bound: c}
}

// Eval evaluates the expression at a logical index.
func (e *IndexExpr) Eval(index []int64) int64 {
	switch e.Kind {
	case IndexConst:
		return e.Value
	case IndexDim:
		return index[e.Dim]
	case IndexAdd:
		return e.LHS.Eval(index) + e.RHS.Eval(index)
	case IndexMul:
		return e.LHS.Eval(index) * e.Value
	case IndexFloorDiv:
		return e.LHS.Eval(index) / e.Value
	default:
		return e.LHS.Eval(index) % e.Value
	}
}

// String prints the expression in the notation of XLA's indexing maps:
// "(d0 * 11 + d1) floordiv 2", "d4 mod 3".
func (e *IndexExpr) String() string {
	var b strings.Builder
	e.write(&b)
	return b.String()
}

func (e *IndexExpr) write(b *strings.Builder) {
	switch e.Kind {
	case IndexConst:
		b.WriteString(strconv.FormatInt(e.Value, 10))
	case IndexDim:
		b.WriteByte('d')
		b.WriteString(strconv.Itoa(e.Dim))
	case IndexAdd:
		e.LHS.write(b)
		b.WriteString(" + ")
		e.RHS.write(b)
	default:
		op := map[IndexExprKind]string{IndexMul: " * ", IndexFloorDiv: " floordiv ", IndexMod: " mod "}[e.Kind]
		if e.LHS.Kind == IndexAdd {
			b.WriteByte('(')
			e.LHS.write(b)
			b.WriteByte(')')
		} else {
			e.LHS.write(b)
		}
		b.WriteString(op)
		b.WriteString(strconv.FormatInt(e.Value, 10))
	}
}
