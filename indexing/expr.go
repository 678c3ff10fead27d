package indexing

import (
	"fmt"
	"math"
	"slices"
)

// ExprKind is the kind of an affine expression node.
type ExprKind uint8

// The expression kinds. Their order is the order in which summands of a sum
// are printed: variables (dimensions, then range, then runtime variables)
// before divisions and remainders.
const (
	KindConst    ExprKind = iota // an integer constant
	KindDim                      // a dimension variable d_i
	KindSymbol                   // a range variable s_i
	KindRuntime                  // a runtime variable rt_i
	KindMul                      // an expression times a constant factor
	KindAdd                      // a sum of terms plus a constant
	KindFloorDiv                 // an expression floordiv a positive constant
	KindCeilDiv                  // an expression ceildiv a positive constant
	KindMod                      // an expression mod a positive constant

	// The non-affine kinds: the right operand is an expression (Rhs) that
	// is not a constant, as XLA keeps them (a product of two variables, a
	// division by a variable). They are kept as written: the simplifier
	// simplifies their operands only.
	KindMulExpr      // an expression times a non-constant expression
	KindFloorDivExpr // an expression floordiv a non-constant expression
	KindCeilDivExpr  // an expression ceildiv a non-constant expression
	KindModExpr      // an expression mod a non-constant expression
)

// Expr is an immutable affine expression in canonical form. Expressions are
// built with the constructors of this package (Const, Dim, Add, Mul, ...),
// which flatten sums, merge like terms, order terms deterministically and
// fold constants, so that two equal-looking expressions print identically.
// The zero value is not a valid expression; use Const(0).
type Expr struct {
	kind ExprKind
	// val holds the constant (KindConst), the variable index (KindDim,
	// KindSymbol, KindRuntime), the factor (KindMul), the divisor
	// (KindFloorDiv, KindCeilDiv), the modulus (KindMod) or the constant
	// summand (KindAdd).
	val   int64
	lhs   *Expr  // the operand of KindMul, KindFloorDiv, KindCeilDiv, KindMod and the non-affine kinds
	rhs   *Expr  // the right operand of the non-affine kinds
	terms []Term // the summands of KindAdd, sorted, at least one
}

// Term is one summand of a sum: Coef times Expr, where Expr is a variable,
// a floordiv, a ceildiv or a mod, and Coef is not zero.
type Term struct {
	Expr *Expr
	Coef int64
}

// OverflowError is the panic value of expression constructors whose constant
// arithmetic does not fit in an int64 (or would produce math.MinInt64, which
// has no printable negation). The parser turns it into a parse error.
type OverflowError struct{ Op string }

// Error describes the overflowing operation.
func (e OverflowError) Error() string { return "integer overflow in " + e.Op }

func checkedMul(a, b int64, op string) int64 {
	p, ok := mulOK(a, b)
	if !ok || p == math.MinInt64 {
		panic(OverflowError{op})
	}
	return p
}

func checkedAdd(a, b int64, op string) int64 {
	s, ok := addOK(a, b)
	if !ok || s == math.MinInt64 {
		panic(OverflowError{op})
	}
	return s
}

// Kind returns the kind of the expression's root node.
func (e *Expr) Kind() ExprKind { return e.kind }

// Value returns the constant of a KindConst, the index of a variable, the
// factor of a KindMul, the divisor of a KindFloorDiv or KindCeilDiv, the
// modulus of a KindMod, or the constant summand of a KindAdd.
func (e *Expr) Value() int64 { return e.val }

// Operand returns the operand of a KindMul, KindFloorDiv, KindCeilDiv or
// KindMod expression, the left operand of a non-affine one, and nil for the
// other kinds.
func (e *Expr) Operand() *Expr { return e.lhs }

// Rhs returns the right operand of a non-affine expression (KindMulExpr,
// KindFloorDivExpr, KindCeilDivExpr, KindModExpr), and nil for the other
// kinds.
func (e *Expr) Rhs() *Expr { return e.rhs }

// IsAffine reports whether the expression has no non-affine node.
func (e *Expr) IsAffine() bool {
	affine := true
	e.Walk(func(x *Expr) { affine = affine && x.rhs == nil })
	return affine
}

// Terms returns a copy of the non-constant summands of a KindAdd expression.
func (e *Expr) Terms() []Term { return slices.Clone(e.terms) }

// IsConst returns the value of a constant expression.
func (e *Expr) IsConst() (int64, bool) { return e.val, e.kind == KindConst }

// Expressions are immutable, so the leaves that maps use most often (small
// constants, the first variables of each kind) are allocated once and
// shared.
const (
	minCachedConst = -64
	maxCachedConst = 1024
	numCachedVars  = 64
)

var (
	cachedConsts = func() (out [maxCachedConst - minCachedConst]Expr) {
		for i := range out {
			out[i] = Expr{kind: KindConst, val: int64(i + minCachedConst)}
		}
		return
	}()
	cachedVars = func() (out [3][numCachedVars]Expr) {
		for k, kind := range []ExprKind{KindDim, KindSymbol, KindRuntime} {
			for i := range out[k] {
				out[k][i] = Expr{kind: kind, val: int64(i)}
			}
		}
		return
	}()
)

// Const returns the constant expression v.
func Const(v int64) *Expr {
	if v >= minCachedConst && v < maxCachedConst {
		return &cachedConsts[v-minCachedConst]
	}
	if v == math.MinInt64 {
		panic(OverflowError{"constant"})
	}
	return &Expr{kind: KindConst, val: v}
}

// variable returns the variable of the given kind and index.
func variable(kind ExprKind, i int) *Expr {
	if i >= 0 && i < numCachedVars {
		return &cachedVars[kind-KindDim][i]
	}
	return &Expr{kind: kind, val: int64(i)}
}

// Dim returns the dimension variable d_i.
func Dim(i int) *Expr { return variable(KindDim, i) }

// Sym returns the range (symbol) variable s_i.
func Sym(i int) *Expr { return variable(KindSymbol, i) }

// RT returns the runtime variable rt_i.
func RT(i int) *Expr { return variable(KindRuntime, i) }

// Add returns the canonical sum of the expressions.
func Add(exprs ...*Expr) *Expr {
	var s sum
	for _, e := range exprs {
		s.add(e, 1)
	}
	return s.build()
}

// Sub returns a - b.
func Sub(a, b *Expr) *Expr {
	var s sum
	s.add(a, 1)
	s.add(b, -1)
	return s.build()
}

// Neg returns -e.
func Neg(e *Expr) *Expr { return Mul(e, -1) }

// Mul returns e * c, distributing the factor over sums.
func Mul(e *Expr, c int64) *Expr {
	switch {
	case c == 0:
		return Const(0)
	case c == 1:
		return e
	}
	switch e.kind {
	case KindConst:
		return Const(checkedMul(e.val, c, "mul"))
	case KindAdd, KindMul:
		var s sum
		s.add(e, c)
		return s.build()
	}
	return &Expr{kind: KindMul, val: c, lhs: e}
}

// FloorDiv returns e floordiv d, rounding towards negative infinity. It
// panics if d is 0.
func FloorDiv(e *Expr, d int64) *Expr { return divide(KindFloorDiv, e, d) }

// CeilDiv returns e ceildiv d, rounding towards positive infinity. It panics
// if d is 0.
func CeilDiv(e *Expr, d int64) *Expr { return divide(KindCeilDiv, e, d) }

// divide returns e floordiv d or e ceildiv d (kind). Both simplify alike
// (a negative divisor negates e, constants fold, a product whose factor d
// divides is divided, summands that are multiples of d move out) but for
// the rounding of constants, and only floordiv merges with a floordiv
// below it.
func divide(kind ExprKind, e *Expr, d int64) *Expr {
	if d <= 0 {
		op := "floordiv"
		if kind == KindCeilDiv {
			op = "ceildiv"
		}
		if d == 0 {
			panic(ArithmeticError{op + " by zero"})
		}
		return divide(kind, Neg(e), checkedMul(d, -1, op))
	}
	if d == 1 {
		return e
	}
	switch e.kind {
	case KindConst:
		if kind == KindCeilDiv {
			return Const(ceilDiv(e.val, d))
		}
		return Const(floorDiv(e.val, d))
	case KindFloorDiv:
		if p, ok := mulOK(e.val, d); ok && kind == KindFloorDiv {
			return divide(kind, e.lhs, p)
		}
	case KindMul:
		if e.val%d == 0 {
			return Mul(e.lhs, e.val/d)
		}
	case KindAdd:
		if out, rest, ok := splitMultiples(e, d, true); ok {
			return Add(out, divide(kind, rest, d))
		}
	}
	return &Expr{kind: kind, val: d, lhs: e}
}

// MulExpr returns a * b: an affine product when either is a constant, else
// the non-affine product of the two, in the order given.
func MulExpr(a, b *Expr) *Expr {
	if c, ok := b.IsConst(); ok {
		return Mul(a, c)
	}
	if c, ok := a.IsConst(); ok {
		return Mul(b, c)
	}
	return &Expr{kind: KindMulExpr, lhs: a, rhs: b}
}

// FloorDivExpr returns a floordiv b: FloorDiv when b is a constant, else the
// non-affine division. It panics if b is the constant 0.
func FloorDivExpr(a, b *Expr) *Expr {
	if c, ok := b.IsConst(); ok {
		return FloorDiv(a, c)
	}
	return &Expr{kind: KindFloorDivExpr, lhs: a, rhs: b}
}

// CeilDivExpr returns a ceildiv b: CeilDiv when b is a constant, else the
// non-affine division. It panics if b is the constant 0.
func CeilDivExpr(a, b *Expr) *Expr {
	if c, ok := b.IsConst(); ok {
		return CeilDiv(a, c)
	}
	return &Expr{kind: KindCeilDivExpr, lhs: a, rhs: b}
}

// ModExpr returns a mod b: Mod when b is a constant, else the non-affine
// remainder. It panics if b is a constant that is not positive.
func ModExpr(a, b *Expr) *Expr {
	if c, ok := b.IsConst(); ok {
		return Mod(a, c)
	}
	return &Expr{kind: KindModExpr, lhs: a, rhs: b}
}

// Mod returns e mod m, which lies in [0, m-1]. It panics unless m is positive.
func Mod(e *Expr, m int64) *Expr {
	if m <= 0 {
		panic(ArithmeticError{fmt.Sprintf("mod by non-positive %d", m)})
	}
	if m == 1 {
		return Const(0)
	}
	switch e.kind {
	case KindConst:
		return Const(floorMod(e.val, m))
	case KindMul:
		if e.val%m == 0 {
			return Const(0)
		}
	case KindMod:
		if e.val%m == 0 {
			return Mod(e.lhs, m)
		}
	case KindAdd:
		// Summands that are multiples of m do not change the remainder; the
		// constant keeps its sign but drops multiples of m.
		var s sum
		changed := e.val%m != e.val
		for _, t := range e.terms {
			if t.Coef%m == 0 {
				changed = true
				continue
			}
			s.add(t.Expr, t.Coef)
		}
		s.c = e.val % m
		if changed {
			return Mod(s.build(), m)
		}
	}
	return &Expr{kind: KindMod, val: m, lhs: e}
}

// splitMultiples splits a sum into out*d + rest, where out collects the
// summands whose coefficients are multiples of d (divided by d) and, when
// withConst is set, the constant if it is a multiple of d. ok is false when
// nothing can be split off.
func splitMultiples(e *Expr, d int64, withConst bool) (out, rest *Expr, ok bool) {
	var o, r sum
	for _, t := range e.terms {
		if t.Coef%d == 0 {
			o.add(t.Expr, t.Coef/d)
			ok = true
		} else {
			r.add(t.Expr, t.Coef)
		}
	}
	if withConst && e.val%d == 0 && len(r.terms) > 0 {
		o.c = e.val / d
		ok = ok || e.val != 0
	} else {
		r.c = e.val
	}
	return o.build(), r.build(), ok
}

// sum accumulates terms and a constant; build returns the canonical sum.
type sum struct {
	terms []Term
	c     int64
}

func (s *sum) add(e *Expr, coef int64) {
	switch e.kind {
	case KindConst:
		s.c = checkedAdd(s.c, checkedMul(e.val, coef, "mul"), "add")
	case KindAdd:
		for _, t := range e.terms {
			s.terms = append(s.terms, Term{t.Expr, checkedMul(t.Coef, coef, "mul")})
		}
		s.c = checkedAdd(s.c, checkedMul(e.val, coef, "mul"), "add")
	case KindMul:
		s.terms = append(s.terms, Term{e.lhs, checkedMul(e.val, coef, "mul")})
	default:
		s.terms = append(s.terms, Term{e, coef})
	}
}

func (s *sum) build() *Expr {
	slices.SortStableFunc(s.terms, func(a, b Term) int { return Compare(a.Expr, b.Expr) })
	merged := make([]Term, 0, len(s.terms))
	for _, t := range s.terms {
		if n := len(merged); n > 0 && Compare(merged[n-1].Expr, t.Expr) == 0 {
			merged[n-1].Coef = checkedAdd(merged[n-1].Coef, t.Coef, "add")
			continue
		}
		merged = append(merged, t)
	}
	merged = slices.DeleteFunc(merged, func(t Term) bool { return t.Coef == 0 })
	switch {
	case len(merged) == 0:
		return Const(s.c)
	case len(merged) == 1 && s.c == 0:
		if merged[0].Coef == 1 {
			return merged[0].Expr
		}
		return &Expr{kind: KindMul, val: merged[0].Coef, lhs: merged[0].Expr}
	}
	return &Expr{kind: KindAdd, val: s.c, terms: merged}
}

// Compare orders expressions totally: first by kind, then structurally. It
// returns 0 exactly when the expressions are equal.
func Compare(a, b *Expr) int {
	if a == b {
		return 0
	}
	if a.kind != b.kind {
		return int(a.kind) - int(b.kind)
	}
	switch a.kind {
	case KindConst, KindDim, KindSymbol, KindRuntime:
		return cmpInt(a.val, b.val)
	case KindAdd:
		for i := 0; i < len(a.terms) && i < len(b.terms); i++ {
			if c := Compare(a.terms[i].Expr, b.terms[i].Expr); c != 0 {
				return c
			}
			if c := cmpInt(a.terms[i].Coef, b.terms[i].Coef); c != 0 {
				return c
			}
		}
		if c := len(a.terms) - len(b.terms); c != 0 {
			return c
		}
		return cmpInt(a.val, b.val)
	}
	if c := Compare(a.lhs, b.lhs); c != 0 {
		return c
	}
	if a.rhs != nil {
		return Compare(a.rhs, b.rhs)
	}
	return cmpInt(a.val, b.val)
}

// Equal reports whether two expressions are structurally equal.
func Equal(a, b *Expr) bool { return Compare(a, b) == 0 }

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
