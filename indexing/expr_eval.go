package indexing

import "math"

// Eval evaluates the expression at the given variable values. It panics if
// the expression uses a variable that has no value.
func (e *Expr) Eval(dims, syms, rts []int64) int64 {
	switch e.kind {
	case KindConst:
		return e.val
	case KindDim:
		return dims[e.val]
	case KindSymbol:
		return syms[e.val]
	case KindRuntime:
		return rts[e.val]
	case KindMul:
		return e.lhs.Eval(dims, syms, rts) * e.val
	case KindFloorDiv:
		return floorDiv(e.lhs.Eval(dims, syms, rts), e.val)
	case KindCeilDiv:
		return ceilDiv(e.lhs.Eval(dims, syms, rts), e.val)
	case KindMod:
		return floorMod(e.lhs.Eval(dims, syms, rts), e.val)
	case KindMulExpr, KindFloorDivExpr, KindCeilDivExpr, KindModExpr:
		return evalNonAffine(e.kind, e.lhs.Eval(dims, syms, rts), e.rhs.Eval(dims, syms, rts))
	}
	v := e.val
	for _, t := range e.terms {
		v += t.Coef * t.Expr.Eval(dims, syms, rts)
	}
	return v
}

// evalNonAffine applies a non-affine operator to its operands' values. A
// division by zero panics with an ArithmeticError; a remainder has the sign
// of the divisor (a - (a floordiv b) * b), as MLIR's.
func evalNonAffine(kind ExprKind, a, b int64) int64 {
	if b == 0 && kind != KindMulExpr {
		panic(ArithmeticError{"division by zero"})
	}
	switch kind {
	case KindMulExpr:
		return a * b
	case KindFloorDivExpr:
		return floorDiv(a, b)
	case KindCeilDivExpr:
		return ceilDiv(a, b)
	}
	return a - floorDiv(a, b)*b
}

// Replace substitutes variables: d_i becomes dims[i], s_i becomes syms[i] and
// rt_i becomes rts[i]. A variable whose index is out of range of its slice,
// or whose replacement is nil, is kept. The result is canonical.
func (e *Expr) Replace(dims, syms, rts []*Expr) *Expr {
	return e.rewrite(func(v *Expr) *Expr {
		var repl []*Expr
		switch v.kind {
		case KindDim:
			repl = dims
		case KindSymbol:
			repl = syms
		default:
			repl = rts
		}
		if v.val < int64(len(repl)) && repl[v.val] != nil {
			return repl[v.val]
		}
		return v
	})
}

// rewrite rebuilds the expression bottom-up with leaf replaced by fn and
// returns e itself when nothing changed.
func (e *Expr) rewrite(fn func(variable *Expr) *Expr) *Expr {
	switch e.kind {
	case KindConst:
		return e
	case KindDim, KindSymbol, KindRuntime:
		return fn(e)
	case KindAdd:
		var s sum
		changed := false
		for _, t := range e.terms {
			n := t.Expr.rewrite(fn)
			changed = changed || n != t.Expr
			s.add(n, t.Coef)
		}
		if !changed {
			return e
		}
		s.add(Const(e.val), 1)
		return s.build()
	}
	lhs := e.lhs.rewrite(fn)
	if e.rhs != nil {
		rhs := e.rhs.rewrite(fn)
		if lhs == e.lhs && rhs == e.rhs {
			return e
		}
		return rebuildNonAffine(e.kind, lhs, rhs)
	}
	if lhs == e.lhs {
		return e
	}
	return rebuild(e.kind, lhs, e.val)
}

// rebuildNonAffine applies the non-affine operator kind to lhs and rhs; the
// result is affine when rhs is a constant.
func rebuildNonAffine(kind ExprKind, lhs, rhs *Expr) *Expr {
	switch kind {
	case KindMulExpr:
		return MulExpr(lhs, rhs)
	case KindFloorDivExpr:
		return FloorDivExpr(lhs, rhs)
	case KindCeilDivExpr:
		return CeilDivExpr(lhs, rhs)
	}
	return ModExpr(lhs, rhs)
}

// rebuild applies the unary operator kind with constant c to lhs.
func rebuild(kind ExprKind, lhs *Expr, c int64) *Expr {
	switch kind {
	case KindMul:
		return Mul(lhs, c)
	case KindFloorDiv:
		return FloorDiv(lhs, c)
	case KindCeilDiv:
		return CeilDiv(lhs, c)
	}
	return Mod(lhs, c)
}

// Range returns bounds of the expression's values given bounds of its
// variables, computed with interval arithmetic.
func (e *Expr) Range(varRange func(v *Expr) Interval) Interval {
	return e.rangeWith(func(x *Expr) (Interval, bool) {
		if x.isVar() {
			return varRange(x), true
		}
		return Interval{}, false
	})
}

// rangeWith computes bounds; known may supply (tighter) bounds for any node
// and must supply them for variables.
func (e *Expr) rangeWith(known func(*Expr) (Interval, bool)) Interval {
	if e.kind == KindConst {
		return Point(e.val)
	}
	r, ok := known(e)
	if ok && e.isVar() {
		return r
	}
	var out Interval
	switch e.kind {
	case KindMul:
		out = e.lhs.rangeWith(known).Scale(e.val)
	case KindFloorDiv:
		out = e.lhs.rangeWith(known).FloorDiv(e.val)
	case KindCeilDiv:
		out = e.lhs.rangeWith(known).CeilDiv(e.val)
	case KindMod:
		out = e.lhs.rangeWith(known).Mod(e.val)
	case KindAdd:
		out = Point(e.val)
		for _, t := range e.terms {
			out = out.Add(t.Expr.rangeWith(known).Scale(t.Coef))
		}
	default:
		out = nonAffineRange(e.kind, e.lhs.rangeWith(known), e.rhs.rangeWith(known))
	}
	if ok {
		out = out.Intersect(r)
	}
	return out
}

// nonAffineRange bounds a non-affine operator's values given its operands'
// bounds: a product's corners; a division's corners when the divisor's
// bounds exclude zero, else nothing; a remainder by a positive divisor lies
// in [0, max divisor - 1] (or is the dividend when that is smaller than any
// divisor).
func nonAffineRange(kind ExprKind, l, r Interval) Interval {
	unbounded := Interval{math.MinInt64, math.MaxInt64}
	switch kind {
	case KindMulExpr:
		return l.Mul(r)
	case KindModExpr:
		switch {
		case r.Lower <= 0:
			return unbounded
		case l.Lower >= 0 && l.Upper < r.Lower:
			return l
		}
		return Interval{0, r.Upper - 1}
	}
	if r.Contains(0) || l.Lower == math.MinInt64 {
		return unbounded
	}
	div := floorDiv
	if kind == KindCeilDivExpr {
		div = ceilDiv
	}
	a, b := div(l.Lower, r.Lower), div(l.Lower, r.Upper)
	c, d := div(l.Upper, r.Lower), div(l.Upper, r.Upper)
	return Interval{min(a, b, c, d), max(a, b, c, d)}
}

func (e *Expr) isVar() bool {
	return e.kind == KindDim || e.kind == KindSymbol || e.kind == KindRuntime
}

// Size counts the nodes of the expression as a binary tree of MLIR affine
// expressions: each leaf and each operator counts 1, and the constant
// operand of *, floordiv, ceildiv and mod counts 1.
func (e *Expr) Size() int {
	switch e.kind {
	case KindConst, KindDim, KindSymbol, KindRuntime:
		return 1
	case KindAdd:
		n := 0
		for _, t := range e.terms {
			n += t.Expr.Size()
			if t.Coef != 1 {
				n += 2
			}
		}
		n += len(e.terms) - 1
		if e.val != 0 {
			n += 2
		}
		return n
	}
	if e.rhs != nil {
		return e.lhs.Size() + e.rhs.Size() + 1
	}
	return e.lhs.Size() + 2
}

// Walk calls fn for every node of the expression, parents first.
func (e *Expr) Walk(fn func(*Expr)) {
	fn(e)
	if e.lhs != nil {
		e.lhs.Walk(fn)
	}
	if e.rhs != nil {
		e.rhs.Walk(fn)
	}
	for _, t := range e.terms {
		t.Expr.Walk(fn)
	}
}

// Uses reports whether the expression mentions the variable of the given
// kind (KindDim, KindSymbol or KindRuntime) and index.
func (e *Expr) Uses(kind ExprKind, index int) bool {
	found := false
	e.Walk(func(x *Expr) {
		if x.kind == kind && x.val == int64(index) {
			found = true
		}
	})
	return found
}
