package indexing

import "slices"

// Simplify returns an equivalent map in simpler form, as the indexing map
// simplifier of XLA:
//
//   - constraint expressions are simplified with the variable bounds;
//   - constraints "e + c", "e * k", "e floordiv k" and sums whose
//     coefficients share a factor are rewritten to constrain e directly,
//     and constraints on a single variable narrow its bounds;
//   - "v mod m in [lo, hi]" narrows the bounds of the variable v, and a
//     constraint on a sum narrows the bounds of each variable summand;
//   - constraints that always hold are removed, and a map with a
//     constraint that can never hold becomes known empty;
//   - result expressions are simplified using the variable bounds and the
//     constraints, e.g. d1 mod 16 becomes d1 when d1 is in [0, 14].
//
// The result has the same variables as m and, at every point of m's domain,
// the same results; its domain is the same set of points. No expression
// grows. Undefined and known-empty maps are returned unchanged.
func (m *IndexingMap) Simplify() *IndexingMap { return m.simplify(false) }

// SimplifyPreservingPoints is Simplify that keeps an expression whose
// range is a single value (a dimension of size 1, say) instead of making it
// that constant, as XLA simplifies the maps of reshapes and bitcasts
// (SimplifyPointDimensions::kPreserve).
func (m *IndexingMap) SimplifyPreservingPoints() *IndexingMap { return m.simplify(true) }

func (m *IndexingMap) simplify(keepPoints bool) *IndexingMap {
	if m.state != stateNormal {
		return m
	}
	out := m.clone()
	for range maxSimplifyRounds {
		// out gives up its slices to the snapshot: the round copies
		// what it changes.
		before := *out
		out.owned = 0
		out.simplifyConstraints()
		out.mergeModConstraints()
		out.tightenModBounds()
		out.tightenSumBounds()
		if out.state != stateNormal || out.Equal(&before) {
			break
		}
	}
	if out.state != stateNormal {
		return out
	}
	s := &exprSimplifier{m: out, useConstraints: true, keepPoints: keepPoints}
	for i, r := range out.results {
		if n := s.simplify(r); n != r {
			out.mutResults()[i] = n
		}
	}
	if out.replica != nil {
		out.replica = out.replica.simplify(keepPoints)
	}
	return out
}

// simplifyConstraints rewrites every constraint once, in place.
func (m *IndexingMap) simplifyConstraints() {
	s := &exprSimplifier{m: m}
	old := m.constraints
	m.constraints = nil
	type rewritten struct {
		expr   *Expr
		bounds Interval
	}
	var keep []rewritten
	for _, c := range old {
		e, b := rewriteConstraint(s.simplify(c.Expr), c.Bounds)
		r := s.rng(e)
		switch {
		case !r.Intersect(b).IsFeasible():
			m.resetToKnownEmpty()
			return
		case b.ContainsInterval(r):
			continue // always holds
		}
		keep = append(keep, rewritten{e, b})
	}
	for _, k := range keep {
		m.addConstraint(k.expr, k.bounds)
	}
}

// rewriteConstraint moves constants and factors from the expression of the
// constraint "e in b" to its bounds.
func rewriteConstraint(e *Expr, b Interval) (*Expr, Interval) {
	for b.IsFeasible() {
		ne, nb, ok := rewriteConstraintOnce(e, b)
		if !ok {
			break
		}
		e, b = ne, nb
	}
	return e, b
}

func rewriteConstraintOnce(e *Expr, b Interval) (*Expr, Interval, bool) {
	switch e.kind {
	case KindAdd:
		if e.val != 0 {
			lo, ok1 := addOK(b.Lower, -e.val)
			hi, ok2 := addOK(b.Upper, -e.val)
			if !ok1 || !ok2 {
				return e, b, false
			}
			return Add(e, Const(-e.val)), Interval{lo, hi}, true
		}
		var g int64
		for _, t := range e.terms {
			g = gcd(g, t.Coef)
		}
		if g <= 1 {
			return e, b, false
		}
		var acc sum
		for _, t := range e.terms {
			acc.add(t.Expr, t.Coef/g)
		}
		return acc.build(), Interval{ceilDiv(b.Lower, g), floorDiv(b.Upper, g)}, true
	case KindMul:
		k := e.val
		if k > 0 {
			return e.lhs, Interval{ceilDiv(b.Lower, k), floorDiv(b.Upper, k)}, true
		}
		return e.lhs, Interval{ceilDiv(b.Upper, k), floorDiv(b.Lower, k)}, true
	case KindFloorDiv:
		// x floordiv d in [lo, hi]  <=>  x in [lo * d, hi * d + d - 1].
		lo, ok1 := mulOK(b.Lower, e.val)
		hi, ok2 := mulOK(b.Upper, e.val)
		hi, ok3 := addOK(hi, e.val-1)
		if !ok1 || !ok2 || !ok3 {
			return e, b, false
		}
		return e.lhs, Interval{lo, hi}, true
	case KindCeilDiv:
		// x ceildiv d in [lo, hi]  <=>  x in [(lo - 1) * d + 1, hi * d].
		lo, ok1 := mulOK(b.Lower-1, e.val)
		hi, ok2 := mulOK(b.Upper, e.val)
		if !ok1 || !ok2 || b.Lower == -1<<63 {
			return e, b, false
		}
		return e.lhs, Interval{lo + 1, hi}, true
	}
	return e, b, false
}

// mergeModConstraints replaces the constraints "x mod a in [r, r]" and
// "x mod b in [r, r]" on the same x by "x mod lcm(a, b) in [r, r]", as XLA's
// MergeModConstraints: both hold exactly when x - r is a multiple of a and
// of b.
func (m *IndexingMap) mergeModConstraints() {
	for m.state == stateNormal {
		i, j, l := m.modPair()
		if i < 0 {
			return
		}
		x, r := m.constraints[i].Expr.lhs, m.constraints[i].Bounds
		cs := slices.Delete(m.mutConstraints(), j, j+1)
		m.constraints = slices.Delete(cs, i, i+1)
		m.addConstraint(Mod(x, l), r)
	}
}

// modPair finds two constraints "x mod a in [r, r]", "x mod b in [r, r]"
// with 0 <= r < a, b and returns their indexes (i < j) and lcm(a, b), or -1.
func (m *IndexingMap) modPair() (int, int, int64) {
	for i, a := range m.constraints {
		if a.Expr.kind != KindMod || !a.Bounds.IsPoint() || a.Bounds.Lower < 0 || a.Bounds.Lower >= a.Expr.val {
			continue
		}
		for j := i + 1; j < len(m.constraints); j++ {
			b := m.constraints[j]
			if b.Expr.kind != KindMod || b.Bounds != a.Bounds || b.Bounds.Lower >= b.Expr.val || !Equal(a.Expr.lhs, b.Expr.lhs) {
				continue
			}
			if l, ok := mulOK(a.Expr.val/gcd(a.Expr.val, b.Expr.val), b.Expr.val); ok {
				return i, j, l
			}
		}
	}
	return -1, -1, 0
}

// tightenModBounds narrows the bounds of v for each constraint
// "v mod m in [lo, hi]" with 0 <= lo <= hi < m: the lower bound moves up to
// the next value whose remainder is in [lo, hi], the upper bound down.
func (m *IndexingMap) tightenModBounds() {
	for _, c := range m.constraints {
		e := c.Expr
		if m.state != stateNormal {
			return
		}
		if e.kind != KindMod || !e.lhs.isVar() || c.Bounds.Lower < 0 || c.Bounds.Upper >= e.val {
			continue
		}
		mod, lo, hi := e.val, c.Bounds.Lower, c.Bounds.Upper
		nb := m.bound(e.lhs)
		switch r := floorMod(nb.Lower, mod); {
		case r < lo:
			nb.Lower = satAdd(nb.Lower, lo-r)
		case r > hi:
			nb.Lower = satAdd(nb.Lower, mod-r+lo)
		}
		switch r := floorMod(nb.Upper, mod); {
		case r > hi:
			nb.Upper = satSub(nb.Upper, r-hi)
		case r < lo:
			nb.Upper = satSub(nb.Upper, r+mod-hi)
		}
		m.setBound(e.lhs, nb)
		if !nb.IsFeasible() {
			m.resetToKnownEmpty()
			return
		}
	}
}

// SimplifyLine parses a one-line (or multi-line) indexing map, simplifies
// it and returns the simplified map on one line. It backs the
// "hlo-opt simplify-map" subcommand.
func SimplifyLine(line string) (string, error) {
	m, err := ParseIndexingMap(line)
	if err != nil {
		return "", err
	}
	return m.Simplify().String(), nil
}

// tightenSumBounds narrows the bounds of each variable summand v of a
// constraint "c * v + rest in [lo, hi]" to the values for which some value
// of rest can satisfy it: c * v in [lo - max(rest), hi - min(rest)].
func (m *IndexingMap) tightenSumBounds() {
	s := &exprSimplifier{m: m}
	for _, c := range m.constraints {
		if m.state != stateNormal {
			return
		}
		if c.Expr.kind != KindAdd {
			continue
		}
		for i, t := range c.Expr.terms {
			if !t.Expr.isVar() {
				continue
			}
			var rest sum
			rest.c = c.Expr.val
			for j, u := range c.Expr.terms {
				if j != i {
					rest.add(u.Expr, u.Coef)
				}
			}
			rr := s.rng(rest.build())
			lo, hi := satSub(c.Bounds.Lower, rr.Upper), satSub(c.Bounds.Upper, rr.Lower)
			_, vb := rewriteConstraint(Mul(t.Expr, t.Coef), Interval{lo, hi})
			m.addConstraint(t.Expr, vb)
		}
	}
}
