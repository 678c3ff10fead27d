package indexing

import (
	"fmt"
	"slices"
)

// Compose returns the map that applies consumer, then producer, as XLA's
// ComposeIndexingMaps(consumer, producer): consumer maps the indices of a
// consumer's output to the indices of its operand, which is the producer's
// output, and producer maps those to the producer's operand. The result is
// defined on consumer's dimensions; its range variables are producer's then
// consumer's, and so are its runtime variables. It carries both maps'
// constraints, plus the constraint that each consumer result lies within the
// bounds of the producer dimension it feeds.
//
// It returns an error if consumer's number of results differs from
// producer's number of dimensions.
func Compose(consumer, producer *IndexingMap) (*IndexingMap, error) {
	if consumer.IsUndefined() || producer.IsUndefined() {
		return Undefined(), nil
	}
	if consumer.replica != nil && producer.replica != nil {
		return Undefined(), nil // a collective reading a collective: XLA does not chain them
	}
	out, err := composeMaps(consumer, producer)
	if err != nil || out.state == stateUndefined {
		return out, err
	}
	switch {
	case consumer.replica != nil:
		out.replica = consumer.replica
	case producer.replica != nil:
		if out.replica, err = composeMaps(consumer, producer.replica); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// composeMaps is Compose of the maps themselves, their replica id maps
// aside.
func composeMaps(consumer, producer *IndexingMap) (*IndexingMap, error) {
	if len(consumer.results) != len(producer.dims) {
		return nil, fmt.Errorf("compose: consumer has %d results, producer has %d dimensions",
			len(consumer.results), len(producer.dims))
	}
	ranges := concatVars(producer.ranges, consumer.ranges)
	rts := concatVars(producer.rts, consumer.rts)
	if consumer.IsKnownEmpty() || producer.IsKnownEmpty() {
		return KnownEmpty(len(consumer.dims), len(ranges), len(rts), len(producer.results)), nil
	}
	// Renumber the consumer's symbols behind the producer's.
	consumerSyms := shiftedVars(Sym, len(producer.ranges), len(consumer.ranges))
	consumerRTs := shiftedVars(RT, len(producer.rts), len(consumer.rts))
	consumerResults := make([]*Expr, len(consumer.results))
	for i, r := range consumer.results {
		consumerResults[i] = r.Replace(nil, consumerSyms, consumerRTs)
	}
	// The producer's dimensions become the consumer's results; its symbols
	// keep their numbers.
	results := make([]*Expr, len(producer.results))
	for i, r := range producer.results {
		results[i] = r.Replace(consumerResults, nil, nil)
	}
	out := &IndexingMap{
		dims:    consumer.dims,
		ranges:  ranges,
		rts:     rts,
		results: results,
		owned:   ownResults | ownConstraints,
	}
	for _, c := range producer.constraints {
		out.addConstraint(c.Expr.Replace(consumerResults, nil, nil), c.Bounds)
	}
	for _, c := range consumer.constraints {
		out.addConstraint(c.Expr.Replace(nil, consumerSyms, consumerRTs), c.Bounds)
	}
	for i, r := range consumerResults {
		out.addConstraint(r, producer.dims[i].Bounds)
	}
	return out, nil
}

// concatVars returns a followed by b, sharing a or b when the other is
// empty (the result is only read).
func concatVars(a, b []Variable) []Variable {
	switch {
	case len(b) == 0:
		return a
	case len(a) == 0:
		return b
	}
	return slices.Concat(a, b)
}

// shiftedVars returns n variables built by mk, numbered from offset.
func shiftedVars(mk func(int) *Expr, offset, n int) []*Expr {
	out := make([]*Expr, n)
	for i := range out {
		out[i] = mk(offset + i)
	}
	return out
}

// RemoveUnusedSymbols returns the map without the range and runtime
// variables that no result uses, renumbering the others. Constraints that
// mention only removed symbols are dropped; a symbol that appears in a
// constraint together with a kept variable is kept. The second result
// reports which range variables, then which runtime variables, were removed.
func (m *IndexingMap) RemoveUnusedSymbols() (*IndexingMap, []bool) {
	if m.state == stateUndefined {
		return m, nil
	}
	nr := len(m.ranges)
	used := make([]bool, nr+len(m.rts))
	mark := func(e *Expr) {
		e.Walk(func(x *Expr) {
			switch x.kind {
			case KindSymbol:
				used[x.val] = true
			case KindRuntime:
				used[nr+int(x.val)] = true
			}
		})
	}
	for _, r := range m.results {
		mark(r)
	}
	if !slices.Contains(used, false) {
		// Every symbol is used, so every constraint (which mentions a
		// variable) is kept: the map is its own result.
		return m, make([]bool, len(used))
	}
	// A constraint that uses a dimension or a used symbol keeps all its
	// symbols; repeat until no constraint adds a symbol.
	kept := make([]bool, len(m.constraints))
	for changed := true; changed; {
		changed = false
		for i, c := range m.constraints {
			if kept[i] || !m.constraintTouchesUsed(c.Expr, used, nr) {
				continue
			}
			kept[i], changed = true, true
			mark(c.Expr)
		}
	}
	syms := make([]*Expr, nr)
	rts := make([]*Expr, len(m.rts))
	out := &IndexingMap{dims: m.dims, state: m.state, owned: ownRanges | ownRTs | ownResults | ownConstraints, replica: m.replica}
	removed := make([]bool, len(used))
	for i := range used {
		removed[i] = !used[i]
		switch {
		case !used[i]:
		case i < nr:
			syms[i] = Sym(len(out.ranges))
			out.ranges = append(out.ranges, m.ranges[i])
		default:
			rts[i-nr] = RT(len(out.rts))
			out.rts = append(out.rts, m.rts[i-nr])
		}
	}
	for _, r := range m.results {
		out.results = append(out.results, r.Replace(nil, syms, rts))
	}
	for i, c := range m.constraints {
		if kept[i] {
			out.addConstraint(c.Expr.Replace(nil, syms, rts), c.Bounds)
		}
	}
	return out, removed
}

// constraintTouchesUsed reports whether e uses a dimension or a used symbol.
func (m *IndexingMap) constraintTouchesUsed(e *Expr, used []bool, nr int) bool {
	touches := false
	e.Walk(func(x *Expr) {
		switch x.kind {
		case KindDim:
			touches = true
		case KindSymbol:
			touches = touches || used[x.val]
		case KindRuntime:
			touches = touches || used[nr+int(x.val)]
		}
	})
	return touches
}

// RemoveUnusedVars returns the map without the dimensions and symbols
// (range and runtime variables) that no result uses, renumbering the
// others, as XLA's IndexingMap::RemoveUnusedVars: a constraint that uses a
// kept variable keeps all of its variables; one that uses only removed
// ones is dropped. The second result reports which dimensions, then range
// variables, then runtime variables were removed.
func (m *IndexingMap) RemoveUnusedVars() (*IndexingMap, []bool) {
	if m.state == stateUndefined {
		return m, nil
	}
	nd, nr := len(m.dims), len(m.ranges)
	used := make([]bool, nd+nr+len(m.rts))
	index := func(x *Expr) int {
		switch x.kind {
		case KindDim:
			return int(x.val)
		case KindSymbol:
			return nd + int(x.val)
		case KindRuntime:
			return nd + nr + int(x.val)
		}
		return -1
	}
	mark := func(e *Expr) {
		e.Walk(func(x *Expr) {
			if i := index(x); i >= 0 {
				used[i] = true
			}
		})
	}
	for _, r := range m.results {
		mark(r)
	}
	kept := make([]bool, len(m.constraints))
	for changed := true; changed; {
		changed = false
		for i, c := range m.constraints {
			touches := false
			c.Expr.Walk(func(x *Expr) {
				if j := index(x); j >= 0 && used[j] {
					touches = true
				}
			})
			if kept[i] || !touches {
				continue
			}
			kept[i], changed = true, true
			mark(c.Expr)
		}
	}
	dims, syms, rts := make([]*Expr, nd), make([]*Expr, nr), make([]*Expr, len(m.rts))
	out := &IndexingMap{state: m.state, owned: ownAll, replica: m.replica}
	removed := make([]bool, len(used))
	for i, u := range used {
		removed[i] = !u
		switch {
		case !u:
		case i < nd:
			dims[i] = Dim(len(out.dims))
			out.dims = append(out.dims, m.dims[i])
		case i < nd+nr:
			syms[i-nd] = Sym(len(out.ranges))
			out.ranges = append(out.ranges, m.ranges[i-nd])
		default:
			rts[i-nd-nr] = RT(len(out.rts))
			out.rts = append(out.rts, m.rts[i-nd-nr])
		}
	}
	if slices.Contains(removed[:nd], true) && m.replica != nil {
		out.replica = nil // its dimensions are gone
	}
	for _, r := range m.results {
		out.results = append(out.results, r.Replace(dims, syms, rts))
	}
	for i, c := range m.constraints {
		if kept[i] {
			out.addConstraint(c.Expr.Replace(dims, syms, rts), c.Bounds)
		}
	}
	return out, removed
}

// ConvertSymbolsToDimensions returns the map with its range variables,
// then its runtime variables, made dimensions after its own, as XLA's
// IndexingMap::ConvertSymbolsToDimensions.
func (m *IndexingMap) ConvertSymbolsToDimensions() *IndexingMap {
	if m.state == stateUndefined || len(m.ranges)+len(m.rts) == 0 {
		return m
	}
	nd := len(m.dims)
	syms := shiftedVars(Dim, nd, len(m.ranges))
	rts := shiftedVars(Dim, nd+len(m.ranges), len(m.rts))
	out := &IndexingMap{dims: slices.Concat(m.dims, m.ranges, m.rts), state: m.state, owned: ownAll}
	for i := range out.dims {
		out.dims[i].Name = ""
	}
	for _, r := range m.results {
		out.results = append(out.results, r.Replace(nil, syms, rts))
	}
	for _, c := range m.constraints {
		out.addConstraint(c.Expr.Replace(nil, syms, rts), c.Bounds)
	}
	return out
}
