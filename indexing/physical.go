package indexing

import (
	"github.com/hlo-opt/hlo-opt/hlo"
)

// fromIndexExpr converts a tiling index expression (hlo.TiledShape.Exprs)
// into an affine expression of the logical dims.
func fromIndexExpr(e *hlo.IndexExpr) *Expr {
	switch e.Kind {
	case hlo.IndexConst:
		return Const(e.Value)
	case hlo.IndexDim:
		return Dim(e.Dim)
	case hlo.IndexAdd:
		return Add(fromIndexExpr(e.LHS), fromIndexExpr(e.RHS))
	case hlo.IndexMul:
		return Mul(fromIndexExpr(e.LHS), e.Value)
	case hlo.IndexFloorDiv:
		return FloorDiv(fromIndexExpr(e.LHS), e.Value)
	default:
		return Mod(fromIndexExpr(e.LHS), e.Value)
	}
}

// PhysicalIndexMap returns the map from the logical index of an array of
// shape s to its index in the final tiled shape (hlo.TiledShape.Final,
// whose row-major order is the memory order): one result per final dim,
// built from the tiled-layout formula with floordiv and mod. An untiled
// layout gives the transpose into minor_to_major order. A shape whose
// layout is invalid, or that is not a bounded array, gives the undefined
// map.
func PhysicalIndexMap(s hlo.Shape) *IndexingMap {
	return tiledMap(s, func(_ *hlo.TiledShape, res []*Expr) []*Expr { return res })
}

// PhysicalMap returns the map from the logical index of an array of shape s
// to the element's linear position in memory under s's layout
// (minor_to_major and tiles, padding included): a rank-1 result, the
// row-major linearization of [PhysicalIndexMap] over the final tiled
// shape. For F32[3,5]{1,0:T(2,2)} it maps (2, 3) to 17. A scalar maps
// () -> (0). A shape whose layout is invalid gives the undefined map.
func PhysicalMap(s hlo.Shape) *IndexingMap {
	return tiledMap(s, func(ts *hlo.TiledShape, res []*Expr) []*Expr { return []*Expr{linearize(ts.Final, res)} })
}

// tiledMap is the simplified map from s's logical index to results(ts,
// idx), where idx is the index into s's final tiled shape ts; the
// undefined map when s's layout is invalid.
func tiledMap(s hlo.Shape, results func(ts *hlo.TiledShape, idx []*Expr) []*Expr) *IndexingMap {
	ts, err := hlo.Tiled(s)
	if err != nil {
		return Undefined()
	}
	idx := make([]*Expr, len(ts.Exprs))
	for i, e := range ts.Exprs {
		idx[i] = fromIndexExpr(e)
	}
	m, err := newMap(dimVars(s.Dims), nil, nil, results(ts, idx))
	if err != nil {
		return Undefined()
	}
	return m.Simplify()
}

// LinearOffsetMap returns the map from the logical index of an array of
// shape s to its linear offset in memory ignoring tiles (only
// minor_to_major): a rank-1 result, the map XLA's GPU coalescing analysis
// composes with (MapLogicalToLinearizedPhysicalShape). For f32[4,8]{0,1} it
// is (d0, d1) -> (d0 + d1 * 4). A scalar maps () -> (0). An invalid layout
// gives the undefined map.
func LinearOffsetMap(s hlo.Shape) *IndexingMap {
	if !s.IsArray() {
		return Undefined()
	}
	m2m := s.MinorToMajor()
	if !hlo.IsPermutation(m2m, len(s.Dims)) {
		return Undefined()
	}
	for _, d := range s.Dims {
		if d < 0 {
			return Undefined()
		}
	}
	phys := make([]*Expr, len(m2m))
	for j := range phys {
		phys[j] = Dim(int(m2m[len(m2m)-1-j]))
	}
	return mustNewMap(dimVars(s.Dims), nil, nil, []*Expr{linearize(hlo.PhysicalDims(s), phys)}).Simplify()
}

// ComposePhysical composes a logical map (from some iteration space to the
// logical indices of an array of shape s) with the physical map of s,
// giving the memory positions the map accesses: [PhysicalMap] when tiled is
// set, [LinearOffsetMap] otherwise. The result is simplified with its unused
// symbols removed.
func ComposePhysical(logical *IndexingMap, s hlo.Shape, tiled bool) (*IndexingMap, error) {
	phys := LinearOffsetMap(s)
	if tiled {
		phys = PhysicalMap(s)
	}
	return composeSimplified(logical, phys)
}

// AssignRTVarsToMidpoint returns m with every runtime variable replaced by
// the midpoint of its feasible interval (lower + upper) / 2 and removed, then
// simplified with unused symbols removed, as XLA's coalescing analysis does
// before it reasons about a map with runtime offsets.
func AssignRTVarsToMidpoint(m *IndexingMap) *IndexingMap {
	if m.state != stateNormal || len(m.rts) == 0 {
		return m
	}
	repl := make([]*Expr, len(m.rts))
	for i, v := range m.rts {
		repl[i] = Const((v.Bounds.Lower + v.Bounds.Upper) / 2)
	}
	out := &IndexingMap{dims: m.dims, ranges: m.ranges, owned: ownResults | ownConstraints, replica: m.replica}
	for _, r := range m.results {
		out.results = append(out.results, r.Replace(nil, nil, repl))
	}
	for _, c := range m.constraints {
		out.addConstraint(c.Expr.Replace(nil, nil, repl), c.Bounds)
	}
	s, _ := out.Simplify().RemoveUnusedSymbols()
	return s
}
