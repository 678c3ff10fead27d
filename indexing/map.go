package indexing

import (
	"fmt"
	"slices"
)

// Variable is a dimension, range or runtime variable of an indexing map: its
// inclusive bounds and an optional name used for printing (empty means the
// default d<i>, s<i> or rt<i>).
type Variable struct {
	Bounds Interval
	Name   string
}

// VarsFromSizes returns variables with bounds [0, size-1], one per size: the
// domain of a tensor's indices.
func VarsFromSizes(sizes []int64) []Variable {
	vars := make([]Variable, len(sizes))
	for i, s := range sizes {
		vars[i] = Variable{Bounds: Interval{0, s - 1}}
	}
	return vars
}

// Constraint restricts the domain of an indexing map to the points where
// Expr lies in Bounds.
type Constraint struct {
	Expr   *Expr
	Bounds Interval
}

type mapState uint8

// ownership records which of a map's slices the map may modify in place.
// Maps are immutable values, so maps built from one another share their
// variable, result and constraint slices; the few operations that build a
// map by modifying a fresh copy (adding a constraint, simplifying) copy a
// slice the map does not own before the first write (copy on write).
type ownership uint8

const (
	ownDims ownership = 1 << iota
	ownRanges
	ownRTs
	ownResults
	ownConstraints
	ownAll = ownDims | ownRanges | ownRTs | ownResults | ownConstraints
)

const (
	stateNormal mapState = iota
	stateKnownEmpty
	stateUndefined
)

// IndexingMap is a function from dimension variables d, range variables s
// and runtime variables rt to a tuple of affine result expressions, defined
// on a domain: a box of variable bounds intersected with constraints
// "expr in [lo, hi]". It is immutable; every operation returns a new map.
//
// A map may be known to have an empty domain (it prints "KNOWN EMPTY") or
// be undefined, when indexing cannot be expressed ("UNDEFINED").
type IndexingMap struct {
	dims, ranges, rts []Variable
	results           []*Expr
	constraints       []Constraint // sorted by Compare of the expressions, unique (printed sorted by text)
	state             mapState
	owned             ownership // the slices above this map may write to
	// replica, when set, maps the same dimensions to the replica whose
	// operand holds the element (XLA's replica id map of a collective's
	// operand indexing: an all-gather reads its operand on other replicas).
	replica *IndexingMap
}

// ReplicaID returns the map from m's dimensions to the replica the
// element is read on, or nil when it is read on the replica itself.
func (m *IndexingMap) ReplicaID() *IndexingMap { return m.replica }

// WithReplicaID returns m with the replica id map r (see ReplicaID); r
// has m's dimensions.
func (m *IndexingMap) WithReplicaID(r *IndexingMap) *IndexingMap {
	c := m.clone()
	c.replica = r
	return c
}

// NewIndexingMap returns the map (dims)[ranges]{rts} -> (results) with the
// given constraints. It returns an error if an expression uses a variable
// the map does not declare. A map whose bounds or constraints are
// infeasible is returned as known empty.
func NewIndexingMap(dims, ranges, rts []Variable, results []*Expr, constraints ...Constraint) (*IndexingMap, error) {
	return initMap(&IndexingMap{
		dims:    slices.Clone(dims),
		ranges:  slices.Clone(ranges),
		rts:     slices.Clone(rts),
		results: slices.Clone(results),
		owned:   ownAll,
	}, constraints)
}

// newMap is NewIndexingMap without the copies: the map takes the slices,
// which the caller must not modify afterwards (they may be shared with
// other maps: the map copies a slice before writing to it).
func newMap(dims, ranges, rts []Variable, results []*Expr, constraints ...Constraint) (*IndexingMap, error) {
	return initMap(&IndexingMap{dims: dims, ranges: ranges, rts: rts, results: results}, constraints)
}

// initMap checks the variables m's results and the constraints use, then
// adds the constraints.
func initMap(m *IndexingMap, constraints []Constraint) (*IndexingMap, error) {
	for i, r := range m.results {
		if err := m.checkVars(r); err != nil {
			return nil, fmt.Errorf("result %d: %w", i, err)
		}
	}
	for _, c := range constraints {
		if err := m.checkVars(c.Expr); err != nil {
			return nil, fmt.Errorf("constraint %s: %w", c.Expr, err)
		}
	}
	m.verifyBounds()
	for _, c := range constraints {
		m.addConstraint(c.Expr, c.Bounds)
	}
	return m, nil
}

// MustNewIndexingMap is NewIndexingMap that panics on error, for maps built
// from code.
func MustNewIndexingMap(dims, ranges, rts []Variable, results []*Expr, constraints ...Constraint) *IndexingMap {
	m, err := NewIndexingMap(dims, ranges, rts, results, constraints...)
	if err != nil {
		panic(err)
	}
	return m
}

// mustNewMap is newMap that panics on error, for maps built in this
// package from slices it hands over.
func mustNewMap(dims, ranges, rts []Variable, results []*Expr, constraints ...Constraint) *IndexingMap {
	m, err := newMap(dims, ranges, rts, results, constraints...)
	if err != nil {
		panic(err)
	}
	return m
}

// identityResults holds d0, d1, ...: the results of identity maps share a
// prefix of it.
var identityResults = dims(numCachedVars)

// IdentityMap returns (d0, ..., dn) -> (d0, ..., dn) on the index domain of
// a tensor of the given sizes: the output-to-input map of elementwise ops.
func IdentityMap(sizes []int64) *IndexingMap {
	return shapeMap(shapeIdentity, sizes)
}

// The maps that depend only on a tensor's sizes (shapeMap).
const (
	shapeIdentity    byte = iota // (d0, ..., dn) -> (d0, ..., dn)
	shapeEmptyResult             // (d0, ..., dn) -> ()
	shapeAllElements             // ()[s0, ..., sn] -> (s0, ..., sn)
)

// shapeMap builds the map of the given kind for a tensor of the given
// sizes.
func shapeMap(kind byte, sizes []int64) *IndexingMap {
	var results []*Expr
	switch kind {
	case shapeEmptyResult:
		return mustNewMap(VarsFromSizes(sizes), nil, nil, nil)
	case shapeAllElements:
		results = make([]*Expr, len(sizes))
		for i := range results {
			results[i] = Sym(i)
		}
		return mustNewMap(nil, VarsFromSizes(sizes), nil, results)
	}
	if len(sizes) <= len(identityResults) {
		results = identityResults[:len(sizes):len(sizes)]
	} else {
		results = dims(len(sizes))
	}
	return mustNewMap(VarsFromSizes(sizes), nil, nil, results)
}

// FromTensorSizes returns the map with the given results whose dimension
// bounds are [0, dimSizes[i]-1] and range variable bounds are
// [0, rangeSizes[i]-1], as XLA's IndexingMap::FromTensorSizes.
func FromTensorSizes(results []*Expr, dimSizes, rangeSizes []int64) (*IndexingMap, error) {
	return NewIndexingMap(VarsFromSizes(dimSizes), VarsFromSizes(rangeSizes), nil, results)
}

// undefinedMap is the undefined map; it has no variables or results that
// could change, so every caller shares it.
var undefinedMap = &IndexingMap{state: stateUndefined}

// Undefined returns the undefined map, for indexing that cannot be expressed.
func Undefined() *IndexingMap { return undefinedMap }

// KnownEmpty returns a map with an empty domain and the given numbers of
// variables and results.
func KnownEmpty(numDims, numRanges, numRTs, numResults int) *IndexingMap {
	m := &IndexingMap{
		dims:    make([]Variable, numDims),
		ranges:  make([]Variable, numRanges),
		rts:     make([]Variable, numRTs),
		results: make([]*Expr, numResults),
		owned:   ownAll,
	}
	m.resetToKnownEmpty()
	return m
}

// IsUndefined reports whether the map is undefined.
func (m *IndexingMap) IsUndefined() bool { return m.state == stateUndefined }

// IsKnownEmpty reports whether the map's domain is known to be empty.
func (m *IndexingMap) IsKnownEmpty() bool { return m.state == stateKnownEmpty }

// Dims returns a copy of the dimension variables.
func (m *IndexingMap) Dims() []Variable { return slices.Clone(m.dims) }

// RangeVars returns a copy of the range variables.
func (m *IndexingMap) RangeVars() []Variable { return slices.Clone(m.ranges) }

// RTVars returns a copy of the runtime variables.
func (m *IndexingMap) RTVars() []Variable { return slices.Clone(m.rts) }

// Results returns a copy of the result expressions.
func (m *IndexingMap) Results() []*Expr { return slices.Clone(m.results) }

// Constraints returns a copy of the constraints, ordered as they print.
func (m *IndexingMap) Constraints() []Constraint { return slices.Clone(m.constraints) }

// NumDims returns the number of dimension variables.
func (m *IndexingMap) NumDims() int { return len(m.dims) }

// NumRangeVars returns the number of range variables.
func (m *IndexingMap) NumRangeVars() int { return len(m.ranges) }

// NumRTVars returns the number of runtime variables.
func (m *IndexingMap) NumRTVars() int { return len(m.rts) }

// NumResults returns the number of result expressions.
func (m *IndexingMap) NumResults() int { return len(m.results) }

// AddConstraint returns a copy of the map with the constraint expr in
// bounds added. A constraint on a single variable narrows its bounds; a
// constraint that cannot hold makes the map known empty.
func (m *IndexingMap) AddConstraint(expr *Expr, bounds Interval) (*IndexingMap, error) {
	if m.IsUndefined() {
		return m, nil
	}
	if err := m.checkVars(expr); err != nil {
		return nil, err
	}
	c := m.clone()
	c.addConstraint(expr, bounds)
	return c, nil
}

// Evaluate returns the results at a point; it does not check the domain.
func (m *IndexingMap) Evaluate(dims, syms, rts []int64) []int64 {
	out := make([]int64, len(m.results))
	for i, r := range m.results {
		out[i] = r.Eval(dims, syms, rts)
	}
	return out
}

// Contains reports whether the point lies in the map's domain: inside every
// variable's bounds and satisfying every constraint.
func (m *IndexingMap) Contains(dims, syms, rts []int64) bool {
	if m.state != stateNormal {
		return false
	}
	for _, vs := range []struct {
		vars []Variable
		vals []int64
	}{{m.dims, dims}, {m.ranges, syms}, {m.rts, rts}} {
		for i, v := range vs.vars {
			if !v.Bounds.Contains(vs.vals[i]) {
				return false
			}
		}
	}
	for _, c := range m.constraints {
		if !c.Bounds.Contains(c.Expr.Eval(dims, syms, rts)) {
			return false
		}
	}
	return true
}

// Equal reports whether two maps are structurally equal (same variables,
// bounds, results and constraints; names are ignored).
func (m *IndexingMap) Equal(o *IndexingMap) bool {
	if m.state != o.state {
		return false
	}
	if m.state == stateUndefined {
		return true
	}
	boundsEq := func(a, b Variable) bool { return a.Bounds == b.Bounds }
	if (m.replica == nil) != (o.replica == nil) || m.replica != nil && !m.replica.Equal(o.replica) {
		return false
	}
	return slices.EqualFunc(m.dims, o.dims, boundsEq) &&
		slices.EqualFunc(m.ranges, o.ranges, boundsEq) &&
		slices.EqualFunc(m.rts, o.rts, boundsEq) &&
		slices.EqualFunc(m.results, o.results, Equal) &&
		slices.EqualFunc(m.constraints, o.constraints, func(a, b Constraint) bool {
			return a.Bounds == b.Bounds && Equal(a.Expr, b.Expr)
		})
}

// clone returns a copy of the map that shares its slices: writes to the
// copy copy the slice first.
func (m *IndexingMap) clone() *IndexingMap {
	c := *m
	c.owned = 0
	return &c
}

// mutVars returns the variables of the given kind for writing, copying
// them first unless the map owns them.
func (m *IndexingMap) mutVars(kind ExprKind) []Variable {
	switch kind {
	case KindDim:
		if m.owned&ownDims == 0 {
			m.dims, m.owned = slices.Clone(m.dims), m.owned|ownDims
		}
		return m.dims
	case KindSymbol:
		if m.owned&ownRanges == 0 {
			m.ranges, m.owned = slices.Clone(m.ranges), m.owned|ownRanges
		}
		return m.ranges
	}
	if m.owned&ownRTs == 0 {
		m.rts, m.owned = slices.Clone(m.rts), m.owned|ownRTs
	}
	return m.rts
}

// mutResults returns the results for writing, copying them first unless
// the map owns them.
func (m *IndexingMap) mutResults() []*Expr {
	if m.owned&ownResults == 0 {
		m.results, m.owned = slices.Clone(m.results), m.owned|ownResults
	}
	return m.results
}

// mutConstraints returns the constraints for writing, copying them first
// unless the map owns them.
func (m *IndexingMap) mutConstraints() []Constraint {
	if m.owned&ownConstraints == 0 {
		m.constraints, m.owned = slices.Clone(m.constraints), m.owned|ownConstraints
	}
	return m.constraints
}

// setBound sets the bounds of variable v (in place when the map owns its
// variables).
func (m *IndexingMap) setBound(v *Expr, b Interval) {
	if m.vars(v.kind)[v.val].Bounds != b {
		m.mutVars(v.kind)[v.val].Bounds = b
	}
}

func (m *IndexingMap) checkVars(e *Expr) error {
	var err error
	e.Walk(func(x *Expr) {
		if err != nil || !x.isVar() {
			return
		}
		if x.val >= int64(len(m.vars(x.kind))) {
			err = fmt.Errorf("undeclared variable %s", x)
		}
	})
	return err
}

// vars returns the variables of the given kind.
func (m *IndexingMap) vars(kind ExprKind) []Variable {
	switch kind {
	case KindDim:
		return m.dims
	case KindSymbol:
		return m.ranges
	}
	return m.rts
}

// bound returns the bounds of a variable expression.
func (m *IndexingMap) bound(v *Expr) Interval { return m.vars(v.kind)[v.val].Bounds }

func (m *IndexingMap) verifyBounds() {
	for _, vs := range [][]Variable{m.dims, m.ranges, m.rts} {
		for _, v := range vs {
			if !v.Bounds.IsFeasible() {
				m.resetToKnownEmpty()
				return
			}
		}
	}
}

// addConstraint adds a constraint in place, as XLA's AddConstraint.
func (m *IndexingMap) addConstraint(e *Expr, bounds Interval) {
	if m.state != stateNormal {
		return
	}
	if !bounds.IsFeasible() {
		m.resetToKnownEmpty()
		return
	}
	if e.isVar() {
		b := m.bound(e).Intersect(bounds)
		m.setBound(e, b)
		if !b.IsFeasible() {
			m.resetToKnownEmpty()
		}
		return
	}
	if c, ok := e.IsConst(); ok {
		if !bounds.Contains(c) {
			m.resetToKnownEmpty()
		}
		return
	}
	i, found := slices.BinarySearchFunc(m.constraints, e, func(c Constraint, k *Expr) int {
		return Compare(c.Expr, k)
	})
	if found {
		b := m.constraints[i].Bounds.Intersect(bounds)
		if b != m.constraints[i].Bounds {
			m.mutConstraints()[i].Bounds = b
		}
		if !b.IsFeasible() {
			m.resetToKnownEmpty()
		}
		return
	}
	m.constraints = slices.Insert(m.mutConstraints(), i, Constraint{e, bounds})
}

// resetToKnownEmpty turns the map into the canonical known-empty form,
// keeping the numbers of variables and results.
func (m *IndexingMap) resetToKnownEmpty() {
	for _, kind := range []ExprKind{KindDim, KindSymbol, KindRuntime} {
		vs := m.mutVars(kind)
		for i := range vs {
			vs[i].Bounds = Interval{0, -1}
		}
	}
	res := m.mutResults()
	for i := range res {
		res[i] = Const(0)
	}
	m.constraints = nil
	m.owned |= ownConstraints
	m.state = stateKnownEmpty
}
