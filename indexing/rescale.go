package indexing

import "slices"

// RescaleSymbols returns an equivalent map in which every range variable s
// constrained by "s mod c in [k, k]" is replaced by s' with s = s' * c + k,
// with the bounds of s' scaled accordingly and the constraint removed, as
// XLA's IndexingMap::RescaleSymbols. Runtime variables are left alone: they
// stand for run-time values. The map denotes the same relation from domain
// points to results, but range variables change meaning, so results at a
// given s differ. The second result reports whether anything changed.
func (m *IndexingMap) RescaleSymbols() (*IndexingMap, bool) {
	if m.state != stateNormal {
		return m, false
	}
	out := m.clone()
	out.mergeModConstraints()
	changed := false
	for {
		i, c, k := out.rescalableConstraint()
		if i < 0 {
			return out, changed
		}
		changed = true
		s := out.constraints[i].Expr.lhs
		out.constraints = slices.Delete(out.mutConstraints(), i, i+1)
		b := out.ranges[s.val].Bounds
		out.setBound(s, Interval{ceilDiv(satSub(b.Lower, k), c), floorDiv(satSub(b.Upper, k), c)})
		repl := make([]*Expr, len(out.ranges))
		repl[s.val] = Add(Mul(s, c), Const(k))
		res := out.mutResults()
		for j, r := range res {
			res[j] = r.Replace(nil, repl, nil)
		}
		old := out.constraints
		out.constraints = nil
		for _, con := range old {
			out.addConstraint(con.Expr.Replace(nil, repl, nil), con.Bounds)
		}
		if !out.ranges[s.val].Bounds.IsFeasible() {
			out.resetToKnownEmpty()
			return out, true
		}
	}
}

// rescalableConstraint finds a constraint "s mod c in [k, k]" on a range
// variable and returns its index, c and k, or -1.
func (m *IndexingMap) rescalableConstraint() (int, int64, int64) {
	for i, con := range m.constraints {
		e := con.Expr
		if e.kind == KindMod && e.lhs.kind == KindSymbol && con.Bounds.IsPoint() &&
			con.Bounds.Lower >= 0 && con.Bounds.Lower < e.val {
			return i, e.val, con.Bounds.Lower
		}
	}
	return -1, 0, 0
}
