package cost

import (
	"fmt"
	"slices"

	"github.com/hlo-opt/hlo-opt/indexing"
)

// The indexing-based decision of XLA's coalescing_analysis.cc
// (IsIndexingCoalesced, FindContiguousIntervals,
// EstimateCoalescingViaMemoryTransactionsCount).

// GPU grid dimensions of a thread-id map: thread x, y, z, block x, y, z.
const numGridDims = 6

// transactionBytes is the transaction size of the indexing-based estimate.
const transactionBytes = 128

// interval is a closed run of touched linear offsets.
type interval struct{ lo, hi int64 }

// IsIndexingCoalesced decides whether one warp's reads through a map from
// the 6 grid dims (plus range and runtime variables) to one linear
// physical offset are coalesced, for elements of elemBytes bytes. It
// returns the verdict and the reason (the stride or rule that decided).
func IsIndexingCoalesced(m *indexing.IndexingMap, elemBytes int64) (bool, string) {
	if m.IsUndefined() {
		return false, "undefined indexing map"
	}
	if m.NumResults() == 0 {
		return true, "scalar"
	}
	if m.IsKnownEmpty() {
		return true, "not read by the first warp"
	}
	if m.NumDims() != numGridDims {
		return false, fmt.Sprintf("expected a map of %d grid dims, found %d", numGridDims, m.NumDims())
	}
	// Runtime variables take the midpoint of their range.
	rts := m.RTVars()
	rtRepl := make([]*indexing.Expr, len(rts))
	for i, v := range rts {
		rtRepl[i] = indexing.Const((v.Bounds.Lower + v.Bounds.Upper) / 2)
	}
	// One warp: thread x in [0, 31], every other grid dim 0.
	warp := indexing.MustNewIndexingMap(
		[]indexing.Variable{{Bounds: indexing.Interval{Lower: 0, Upper: warpSize - 1}}}, nil, nil,
		[]*indexing.Expr{indexing.Dim(0), indexing.Const(0), indexing.Const(0), indexing.Const(0), indexing.Const(0), indexing.Const(0)})
	noRT, err := substituteRT(m, rtRepl)
	if err != nil {
		return false, err.Error()
	}
	var sampled *indexing.IndexingMap
	if isFirstWarp(noRT) {
		// Already restricted to the first warp (firstWarp): composing
		// with the warp again would change nothing.
		sampled, _ = noRT.Simplify().RemoveUnusedSymbols()
	} else {
		sampled, err = indexing.Compose(warp, noRT)
		if err != nil {
			return false, err.Error()
		}
		sampled = sampled.Simplify()
		sampled, _ = sampled.RemoveUnusedSymbols()
	}
	if sampled.IsKnownEmpty() {
		return true, "not read by the first warp"
	}
	// Keep only the last range variable (the innermost loop); the others
	// take their lower bounds.
	ranges := sampled.RangeVars()
	inner := sampled
	if len(ranges) > 1 {
		var err error
		if inner, err = keepLastRange(sampled); err != nil {
			return false, err.Error()
		}
	}
	if inner.IsKnownEmpty() {
		return true, "not read by the first warp"
	}
	return decide(inner, elemBytes)
}

// keepLastRange keeps only the last range variable of m (the innermost
// loop) and gives every other one its lower bound, then simplifies.
func keepLastRange(sampled *indexing.IndexingMap) (*indexing.IndexingMap, error) {
	ranges := sampled.RangeVars()
	symRepl := make([]*indexing.Expr, len(ranges))
	var keep []indexing.Variable
	for i, v := range ranges {
		if i == len(ranges)-1 {
			symRepl[i] = indexing.Sym(0)
			keep = append(keep, v)
		} else {
			symRepl[i] = indexing.Const(v.Bounds.Lower)
		}
	}
	res := sampled.Results()[0].Replace(nil, symRepl, nil)
	var cons []indexing.Constraint
	for _, c := range sampled.Constraints() {
		cons = append(cons, indexing.Constraint{Expr: c.Expr.Replace(nil, symRepl, nil), Bounds: c.Bounds})
	}
	inner, err := indexing.NewIndexingMap(sampled.Dims(), keep, nil, []*indexing.Expr{res}, cons...)
	if err != nil {
		return nil, err
	}
	return inner.Simplify(), nil
}

// decide splits the sampled offset into thread and loop parts, checks the
// constraints and counts the warp's transactions (steps 6 to 9).
func decide(inner *indexing.IndexingMap, elemBytes int64) (bool, string) {
	res := inner.Results()[0]
	// Split into f(d0) + g(s0); mixed summands are not coalesced.
	var fTerms, gTerms []*indexing.Expr
	summands := []*indexing.Expr{res}
	if res.Kind() == indexing.KindAdd {
		summands = nil
		for _, t := range res.Terms() {
			summands = append(summands, indexing.Mul(t.Expr, t.Coef))
		}
	}
	for _, s := range summands {
		d, sy := s.Uses(indexing.KindDim, 0), s.Uses(indexing.KindSymbol, 0)
		switch {
		case d && sy:
			return false, "a summand depends on both the thread and the loop index"
		case d:
			fTerms = append(fTerms, s)
		case sy:
			gTerms = append(gTerms, s)
		}
	}
	if cs := inner.Constraints(); len(cs) > 1 {
		return false, fmt.Sprintf("%d constraints on the warp's accesses", len(cs))
	} else if len(cs) == 1 && !indexing.Equal(cs[0].Expr, res) {
		return false, "a constraint other than the offset bound"
	}
	f, g := indexing.Add(fTerms...), indexing.Add(gTerms...)
	if len(fTerms) == 0 {
		f = indexing.Const(0)
	}
	if len(gTerms) == 0 {
		g = indexing.Const(0)
	}
	d0 := inner.Dims()[0].Bounds
	var sb indexing.Interval
	hasSym := inner.NumRangeVars() == 1
	if hasSym {
		sb = inner.RangeVars()[0].Bounds
	}
	ivs, stride := contiguousIntervals(f, g, d0, sb, hasSym)
	return transactionVerdict(ivs, elemBytes, stride)
}

// isFirstWarp reports whether m's grid dims are already those of the
// sampled warp: thread x within [0, 31], every other grid dim 0.
func isFirstWarp(m *indexing.IndexingMap) bool {
	for i, v := range m.Dims() {
		if v.Bounds.Lower != 0 || (i == 0 && v.Bounds.Upper > warpSize-1) || (i > 0 && v.Bounds.Upper != 0) {
			return false
		}
	}
	return true
}

// substituteRT replaces runtime variables by constants.
func substituteRT(m *indexing.IndexingMap, rts []*indexing.Expr) (*indexing.IndexingMap, error) {
	if len(rts) == 0 {
		return m, nil
	}
	var res []*indexing.Expr
	for _, r := range m.Results() {
		res = append(res, r.Replace(nil, nil, rts))
	}
	var cons []indexing.Constraint
	for _, c := range m.Constraints() {
		cons = append(cons, indexing.Constraint{Expr: c.Expr.Replace(nil, nil, rts), Bounds: c.Bounds})
	}
	return indexing.NewIndexingMap(m.Dims(), m.RangeVars(), nil, res, cons...)
}

// contiguousIntervals is FindContiguousIntervals for W threads: the runs
// of offsets f(d0) + g(s0) the warp touches, and the thread stride found
// (0 when f is not linear).
func contiguousIntervals(f, g *indexing.Expr, d0, s indexing.Interval, hasSym bool) ([]interval, int64) {
	w := min(d0.Upper, warpSize-1)
	dims := make([]int64, numGridDims)
	at := func(e *indexing.Expr, d, sv int64) int64 {
		dims[0] = d
		return e.Eval(dims, []int64{sv}, nil)
	}
	base := at(f, 0, s.Lower)
	c := at(f, 1, s.Lower) - base
	// f(d0) = d0 * c with c != 0; a constant f (every thread of the warp
	// reads the same element, as from a broadcast) is not of that form:
	// XLA enumerates it, finding one run.
	linear := c != 0
	for i := int64(0); i <= w; i++ {
		if at(f, i, s.Lower)-base != c*i {
			linear = false
			break
		}
	}
	gIsS := hasSym
	n := int64(1)
	if hasSym {
		n = s.Upper - s.Lower + 1
		gb := at(g, 0, s.Lower)
		for v := s.Lower; v <= s.Upper && gIsS; v++ {
			if at(g, 0, v)-gb != v-s.Lower {
				gIsS = false
			}
		}
	}
	switch {
	case linear && c == 1:
		return []interval{{0, w}}, 1
	case linear && c == -1:
		return []interval{{0, w}}, -1
	case linear && gIsS:
		ac := max(c, -c)
		if n >= ac {
			return []interval{{0, ac*w + n - 1}}, c
		}
		var out []interval
		for i := int64(0); i <= w; i++ {
			out = append(out, interval{s.Lower + i*ac, s.Upper + i*ac})
		}
		return out, c
	case linear:
		var out []interval
		for i := int64(0); i <= w; i++ {
			out = append(out, interval{i * c, i * c})
		}
		return out, c
	}
	vals := make([]int64, 0, w+1)
	for i := int64(0); i <= w; i++ {
		vals = append(vals, at(f, i, s.Lower))
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	var out []interval
	for _, v := range vals {
		if len(out) > 0 && out[len(out)-1].hi+1 == v {
			out[len(out)-1].hi = v
		} else {
			out = append(out, interval{v, v})
		}
	}
	if gIsS && n > 1 {
		var merged []interval
		for _, iv := range out {
			iv.hi += n - 1
			if len(merged) > 0 && merged[len(merged)-1].hi+1 >= iv.lo {
				merged[len(merged)-1].hi = max(merged[len(merged)-1].hi, iv.hi)
			} else {
				merged = append(merged, iv)
			}
		}
		out = merged
	}
	return out, 0
}

// transactionVerdict is EstimateCoalescingViaMemoryTransactionsCount: T
// transactions of 128 bytes for the runs as they are, L for the same bytes
// contiguous; coalesced iff T == 0 or L > 0.9 T.
func transactionVerdict(ivs []interval, elemBytes, stride int64) (bool, string) {
	var total, count int64
	for _, iv := range ivs {
		n := iv.hi - iv.lo + 1
		count += ceilDiv(n*elemBytes, transactionBytes)
		total += n
	}
	ideal := ceilDiv(total*elemBytes, transactionBytes)
	desc := fmt.Sprintf("%d runs, %d transactions of 128 B where %d suffice", len(ivs), count, ideal)
	if stride != 0 {
		desc = fmt.Sprintf("thread stride %d elements: ", stride) + desc
	}
	if count == 0 {
		return true, "no memory transactions"
	}
	return float64(ideal) > 0.9*float64(count), desc
}
