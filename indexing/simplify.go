package indexing

// exprSimplifier rewrites expressions using the bounds of an indexing map's
// variables and, optionally, the bounds its constraints put on
// subexpressions. Every rewrite preserves the expression's value at every
// point of the map's domain.
type exprSimplifier struct {
	m              *IndexingMap
	useConstraints bool
	// keepPoints leaves an expression whose range is one value as it is
	// (XLA's SimplifyPointDimensions::kPreserve).
	keepPoints bool
}

// maxSimplifyRounds bounds the fixpoint iteration; each round only shrinks
// or reorders the expression, so it converges long before this.
const maxSimplifyRounds = 16

// rng returns bounds of e's values on the map's domain.
func (s *exprSimplifier) rng(e *Expr) Interval {
	return e.rangeWith(func(x *Expr) (Interval, bool) {
		if x.isVar() {
			return s.m.bound(x), true
		}
		if s.useConstraints {
			for _, c := range s.m.constraints {
				if Equal(c.Expr, x) {
					return c.Bounds, true
				}
			}
		}
		return Interval{}, false
	})
}

// simplify rewrites e until it stops changing. It never returns a larger
// expression than e, and returns e itself if a rewrite would overflow.
func (s *exprSimplifier) simplify(e *Expr) (out *Expr) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(OverflowError); !ok {
				panic(r)
			}
			out = e
		}
	}()
	cur := e
	for range maxSimplifyRounds {
		next := s.once(cur)
		if Equal(next, cur) {
			break
		}
		cur = next
	}
	if cur.Size() > e.Size() {
		return e
	}
	return cur
}

// once applies one round of rewrites, bottom-up.
func (s *exprSimplifier) once(e *Expr) *Expr {
	if e.kind == KindConst {
		return e
	}
	if r := s.rng(e); r.IsPoint() && !s.keepPoints {
		return Const(r.Lower)
	}
	switch e.kind {
	case KindMul:
		return Mul(s.once(e.lhs), e.val)
	case KindAdd:
		return s.sum(e)
	case KindFloorDiv:
		return s.floorDiv(s.once(e.lhs), e.val)
	case KindCeilDiv:
		return CeilDiv(s.once(e.lhs), e.val)
	case KindMod:
		return s.mod(s.once(e.lhs), e.val)
	case KindMulExpr, KindFloorDivExpr, KindCeilDivExpr, KindModExpr:
		rhs := s.once(e.rhs)
		if c, ok := rhs.IsConst(); ok && e.kind != KindMulExpr && (c == 0 || (c < 0 && e.kind == KindModExpr)) {
			rhs = e.rhs // a divisor the affine forms cannot take: keep it as is
		}
		return rebuildNonAffine(e.kind, s.once(e.lhs), rhs)
	}
	return e
}

// sum simplifies the summands, folds (x mod c) * k + (x floordiv c) * c*k
// into x * k, before and after simplifying the summands, and rewrites
// x - (x floordiv c) * c to x mod c.
func (s *exprSimplifier) sum(e *Expr) *Expr {
	e = s.recombineDivMod(e)
	if e.kind != KindAdd {
		return e
	}
	var acc sum
	acc.c = e.val
	for _, t := range e.terms {
		acc.add(s.once(t.Expr), t.Coef)
	}
	return s.subIsMod(s.recombineDivMod(acc.build()))
}

// recombineDivMod rewrites (x mod c) * k + (x floordiv c) * (c * k) to x * k
// in a sum, since x = (x floordiv c) * c + x mod c. The floordiv may be
// x floordiv c simplified (((y floordiv 2) mod 3) pairs with
// y floordiv 6).
func (s *exprSimplifier) recombineDivMod(e *Expr) *Expr {
	for e.kind == KindAdd {
		i, j := s.divModPair(e)
		if i < 0 {
			return e
		}
		mt := e.terms[i]
		var acc sum
		acc.c = e.val
		for k, t := range e.terms {
			if k != i && k != j {
				acc.add(t.Expr, t.Coef)
			}
		}
		acc.add(mt.Expr.lhs, mt.Coef)
		e = acc.build()
	}
	return e
}

// divModPair finds the summands (x mod c) * k and (x floordiv c) * (c * k)
// of a sum and returns their indexes, or -1.
func (s *exprSimplifier) divModPair(e *Expr) (int, int) {
	for i, mt := range e.terms {
		if mt.Expr.kind != KindMod {
			continue
		}
		p, ok := mulOK(mt.Coef, mt.Expr.val)
		if !ok {
			continue
		}
		var div *Expr // x floordiv c, simplified, once needed
		for j, dt := range e.terms {
			if dt.Expr.kind != KindFloorDiv || dt.Coef != p {
				continue
			}
			if dt.Expr.val == mt.Expr.val && Equal(dt.Expr.lhs, mt.Expr.lhs) {
				return i, j
			}
			if div == nil {
				div = s.simplify(FloorDiv(mt.Expr.lhs, mt.Expr.val))
			}
			if Equal(div, dt.Expr) {
				return i, j
			}
		}
	}
	return -1, -1
}

// subIsMod rewrites the summand (x floordiv c) * (-b * c) of a sum to
// -b * x + b * (x mod c), where that makes the sum no bigger: the
// x - (x floordiv c) * c in it becomes x mod c.
func (s *exprSimplifier) subIsMod(e *Expr) *Expr {
	if e.kind != KindAdd {
		return e
	}
	for i, t := range e.terms {
		d := t.Expr
		if d.kind != KindFloorDiv || t.Coef >= 0 || t.Coef%d.val != 0 {
			continue
		}
		b := t.Coef / d.val
		var acc sum
		acc.c = e.val
		for k, u := range e.terms {
			if k != i {
				acc.add(u.Expr, u.Coef)
			}
		}
		acc.add(d.lhs, b)
		acc.add(Mod(d.lhs, d.val), -b)
		if alt := acc.build(); alt.Size() <= e.Size() {
			return s.subIsMod(alt)
		}
	}
	return e
}

// floorDiv simplifies x floordiv d for a simplified x and positive d.
func (s *exprSimplifier) floorDiv(x *Expr, d int64) *Expr {
	e := FloorDiv(x, d) // splits off summands that are multiples of d
	if e.kind != KindFloorDiv {
		return e
	}
	x, d = e.lhs, e.val
	// (y mod (a * d)) floordiv d = (y floordiv d) mod a.
	if x.kind == KindMod && x.val%d == 0 {
		return Mod(FloorDiv(x.lhs, d), x.val/d)
	}
	// (A * g + B) floordiv d = (A * (g / g')) floordiv (d / g') where
	// g' = gcd(g, d) and B lies in [0, g' - 1]: B cannot carry into A's part.
	// When B is a constant, g' may also take its factor:
	// (A * g + B) floordiv d = (A * g / g' + B / g') floordiv (d / g').
	if x.kind == KindAdd || x.kind == KindMul {
		multiplied, g, rest := splitByGcd(x)
		gd := gcd(g, d)
		rr := s.rng(rest)
		switch {
		case gd > 1 && (Interval{0, gd - 1}).ContainsInterval(rr):
			return FloorDiv(Mul(multiplied, g/gd), d/gd)
		case gd > 1 && rr.IsPoint() && rr.Lower != 0:
			if gc := gcd(rr.Lower, gd); gc > 1 {
				return FloorDiv(Add(Mul(multiplied, g/gc), Const(rr.Lower/gc)), d/gc)
			}
		}
	}
	// (y floordiv c + R) floordiv d = (y + R * c) floordiv (c * d) for an
	// integer R; with two such inner divisions their roundings add up, so
	// only one may be merged.
	if x.kind == KindAdd {
		inner := -1
		for i, t := range x.terms {
			if t.Expr.kind == KindFloorDiv && t.Coef == 1 {
				if inner >= 0 {
					return e
				}
				inner = i
			}
		}
		if inner < 0 {
			return e
		}
		c := x.terms[inner].Expr.val
		cd, ok := mulOK(c, d)
		if !ok {
			return e
		}
		var acc sum
		acc.c = x.val
		for i, t := range x.terms {
			if i != inner {
				acc.add(t.Expr, t.Coef)
			}
		}
		return FloorDiv(Add(x.terms[inner].Expr.lhs, Mul(acc.build(), c)), cd)
	}
	return e
}

// mod simplifies x mod m for a simplified x and positive m.
func (s *exprSimplifier) mod(x *Expr, m int64) *Expr {
	e := Mod(x, m) // drops summands that are multiples of m
	if e.kind != KindMod {
		return e
	}
	x = e.lhs
	// No wrap-around: x mod m = x - k * m when x stays in [k*m, k*m + m-1].
	r := s.rng(x)
	if k := floorDiv(r.Lower, m); k == floorDiv(r.Upper, m) {
		return Sub(x, Const(checkedMul(k, m, "mod")))
	}
	if x.kind != KindAdd && x.kind != KindMul {
		return e
	}
	multiplied, g, rest := splitByGcd(x)
	if g == 1 || m%g != 0 {
		return e
	}
	rr := s.rng(rest)
	switch {
	case rr == Point(0):
		// (A * g) mod m = (A mod (m / g)) * g.
		return Mul(Mod(multiplied, m/g), g)
	case (Interval{0, g - 1}).ContainsInterval(rr):
		// (A * g + B) mod m = (A * g) mod m + B when B is in [0, g - 1].
		return Add(Mul(Mod(multiplied, m/g), g), rest)
	}
	return e
}

// splitByGcd splits x into multiplied * g + rest, where g is the gcd of the
// coefficients other than 1 and rest collects the summands with coefficient
// 1 and the constant. g is 1 when there is nothing to split.
func splitByGcd(x *Expr) (multiplied *Expr, g int64, rest *Expr) {
	terms := x.terms
	c := x.val
	if x.kind == KindMul {
		terms, c = []Term{{x.lhs, x.val}}, 0
	}
	for _, t := range terms {
		if t.Coef != 1 {
			g = gcd(g, t.Coef)
		}
	}
	if g <= 1 {
		return Const(0), 1, x
	}
	var mul, rst sum
	rst.c = c
	for _, t := range terms {
		if t.Coef == 1 {
			rst.add(t.Expr, 1)
		} else {
			mul.add(t.Expr, t.Coef/g)
		}
	}
	return mul.build(), g, rst.build()
}
