package cost

import (
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/indexing"
)

// Thread-id indexing of the emitters: maps from the 6 grid dims (thread
// x, y, z = d0..d2, block x, y, z = d3..d5) and the emitter's loop symbols
// to positions in a tensor.

// gridVars returns the grid dims of a launch (one-dimensional x grids).
func gridVars(l LaunchDims) []indexing.Variable {
	v := func(n int64) indexing.Variable {
		return indexing.Variable{Bounds: indexing.Interval{Lower: 0, Upper: max(n, 1) - 1}}
	}
	return []indexing.Variable{v(l.ThreadsPerBlock), v(1), v(1), v(l.Blocks), v(1), v(1)}
}

func rangeVar(n int64) indexing.Variable {
	return indexing.Variable{Bounds: indexing.Interval{Lower: 0, Upper: max(n, 1) - 1}}
}

// physicalStrides returns the stride of each logical dim of s in its
// physical (minor_to_major) order.
func physicalStrides(s *hlo.Shape) []int64 {
	return appendStrides(nil, s)
}

// appendStrides appends physicalStrides(s) to dst.
func appendStrides(dst []int64, s *hlo.Shape) []int64 {
	n := len(dst)
	dst = slices.Grow(dst, s.Rank())[:n+s.Rank()]
	st := dst[n:]
	acc := int64(1)
	if s.Layout != nil && len(s.Layout.MinorToMajor) == len(s.Dims) {
		for _, d := range s.Layout.MinorToMajor {
			st[d] = acc
			acc *= s.Dims[d]
		}
		return dst
	}
	for d := len(s.Dims) - 1; d >= 0; d-- { // the default {rank-1, ..., 0}
		st[d] = acc
		acc *= s.Dims[d]
	}
	return dst
}

// sameStrides reports whether a and b have the same physical strides
// (slices.Equal of their physicalStrides), without allocating for ranks up
// to 8.
func sameStrides(a, b *hlo.Shape) bool {
	if a.Rank() != b.Rank() {
		return false
	}
	var bufA, bufB [8]int64
	return slices.Equal(appendStrides(bufA[:0], a), appendStrides(bufB[:0], b))
}

// Linearize returns the physical linear offset of a logical index of s
// under s's layout (tiles ignored, as XLA's coalescing does).
func Linearize(s *hlo.Shape, idx []*indexing.Expr) *indexing.Expr {
	st := physicalStrides(s)
	var terms []*indexing.Expr
	for d, e := range idx {
		if s.Dims[d] > 1 {
			terms = append(terms, indexing.Mul(e, st[d]))
		}
	}
	if len(terms) == 0 {
		return indexing.Const(0)
	}
	return indexing.Add(terms...)
}

// Delinearize returns the logical index of s at a physical linear offset.
func Delinearize(s *hlo.Shape, lin *indexing.Expr) []*indexing.Expr {
	st := physicalStrides(s)
	out := make([]*indexing.Expr, s.Rank())
	for d := range out {
		switch {
		case s.Dims[d] <= 1:
			out[d] = indexing.Const(0)
		case st[d]*s.Dims[d] == s.ElementCount():
			out[d] = indexing.FloorDiv(lin, st[d])
		default:
			out[d] = indexing.Mod(indexing.FloorDiv(lin, st[d]), s.Dims[d])
		}
	}
	return out
}

// threadLinear is a thread-id map to one linear position together with the
// total number of positions (used for bounds).
type threadLinear struct {
	ranges []indexing.Variable
	lin    *indexing.Expr
	cons   []indexing.Constraint
}

// loopLinear is the loop emitter's linear index:
// (thread + block*tpb)*U + chunk*U*total_threads + unroll, with
// chunk in [0, ceil(N/(total*U))-1], unroll in [0, U-1] and the linear
// index in [0, N-1].
func loopLinear(l LaunchDims, n int64) threadLinear {
	total := l.ThreadsPerBlock * l.Blocks
	u := max(l.Unroll, 1)
	lin := indexing.Add(
		indexing.Mul(indexing.Add(indexing.Dim(0), indexing.Mul(indexing.Dim(3), l.ThreadsPerBlock)), u),
		indexing.Mul(indexing.Sym(0), u*total),
		indexing.Sym(1))
	return threadLinear{
		ranges: []indexing.Variable{rangeVar(ceilDiv(n, total*u)), rangeVar(u)},
		lin:    lin,
		cons:   []indexing.Constraint{{Expr: lin, Bounds: indexing.Interval{Lower: 0, Upper: n - 1}}},
	}
}

// LoopThreadToOutput is the loop emitter's thread-id -> output index map
// over shape s (GetDefaultWorkItemIndexingMap): the threads walk the
// output in its physical order.
func LoopThreadToOutput(l LaunchDims, s *hlo.Shape) (*indexing.IndexingMap, error) {
	tl := loopLinear(l, s.ElementCount())
	return indexing.NewIndexingMap(gridVars(l), tl.ranges, nil, Delinearize(s, tl.lin), tl.cons...)
}

// heroInputLinear returns the thread-id -> physical linear offset of the
// hero's first operand for the reduction and transpose emitters, or false
// for other emitters.
func (a *FusionAnalysis) heroInputLinear(l LaunchDims) (threadLinear, bool) {
	switch a.Emitter {
	case EmitterReduction:
		return a.reductionInputLinear(l), true
	case EmitterTranspose:
		return a.transposeInputLinear(l), true
	}
	return threadLinear{}, false
}

// reductionInputLinear is the reduction emitters' thread -> input map in
// the [D, H, W] view of the reduced operand (its physical order), as a
// linear offset D*H*W-major.
func (a *FusionAnalysis) reductionInputLinear(l LaunchDims) threadLinear {
	r := a.Reduction
	D, H, W := r.Dims[0], r.Dims[1], r.Dims[2]
	v := max(l.Vector, 1)
	t, b := indexing.Dim(0), indexing.Dim(3)
	lin := func(dIdx, hIdx, wIdx *indexing.Expr) *indexing.Expr {
		return indexing.Add(indexing.Mul(dIdx, H*W), indexing.Mul(hIdx, W), wIdx)
	}
	bound := func(e *indexing.Expr, n int64) indexing.Constraint {
		return indexing.Constraint{Expr: e, Bounds: indexing.Interval{Lower: 0, Upper: n - 1}}
	}
	switch l.Note {
	case "multi-row reduction":
		red := max(W/v, 1)
		kept := max(l.ThreadsPerBlock/red, 1)
		h := indexing.Add(indexing.Mul(b, kept), indexing.FloorDiv(t, red))
		w := indexing.Add(indexing.Mul(indexing.Mod(t, red), v), indexing.Sym(1))
		return threadLinear{ranges: []indexing.Variable{rangeVar(D), rangeVar(v)}, lin: lin(indexing.Sym(0), h, w),
			cons: []indexing.Constraint{bound(h, H)}}
	case "row reduction":
		red := min(1024, roundUp(ceilDiv(W, 32), 32))
		kept := max(l.ThreadsPerBlock/red, 1)
		tile := min(32/v, ceilDiv(ceilDiv(W, v), red))
		rowBlocks := ceilDiv(H, kept)
		h := indexing.Add(indexing.Mul(indexing.Mod(b, rowBlocks), kept), indexing.FloorDiv(t, red))
		wv := indexing.Add(indexing.Mul(indexing.FloorDiv(b, rowBlocks), tile*red), indexing.Mul(indexing.Sym(1), red), indexing.Mod(t, red))
		w := indexing.Add(indexing.Mul(wv, v), indexing.Sym(2))
		return threadLinear{ranges: []indexing.Variable{rangeVar(D), rangeVar(tile), rangeVar(v)}, lin: lin(indexing.Sym(0), h, w),
			cons: []indexing.Constraint{bound(h, H), bound(w, W)}}
	case "small column reduction":
		x := indexing.Add(indexing.Mul(t, v), indexing.Sym(1), indexing.Mul(indexing.Sym(0), v*128))
		return threadLinear{ranges: []indexing.Variable{rangeVar(ceilDiv(H*W, 128*v)), rangeVar(v)},
			lin: indexing.Add(indexing.Mul(b, H*W), x), cons: []indexing.Constraint{bound(x, H*W)}}
	}
	colBlocks := ceilDiv(W, 32*v)
	h := indexing.Add(indexing.FloorDiv(t, 32), indexing.Mul(indexing.Sym(0), 32))
	w := indexing.Add(indexing.Mul(indexing.Add(indexing.Mul(indexing.Mod(b, colBlocks), 32), indexing.Mod(t, 32)), v), indexing.Sym(1))
	return threadLinear{ranges: []indexing.Variable{rangeVar(ceilDiv(H, 32)), rangeVar(v)},
		lin: lin(indexing.FloorDiv(b, colBlocks), h, w), cons: []indexing.Constraint{bound(h, H), bound(w, W)}}
}

// transposeInputLinear is the transpose emitter's read of its input: a
// (32v x 32v) tile per block, 256 threads reading v elements each along
// the input's minor dimension, 4v loop steps.
func (a *FusionAnalysis) transposeInputLinear(l LaunchDims) threadLinear {
	t := a.Transpose
	var in [3]int64 // normalized input dims, physical order
	for j := range 3 {
		in[t.Permutation[j]] = t.Dims[j]
	}
	v := max(l.Vector, 1)
	T := 32 * v
	// Tiled dims: for {0,2,1} input dims 1 and 2; for {2,1,0} dims 0 and 2.
	yDim, batchDim := 1, 0
	if t.Permutation[0] == 2 {
		yDim, batchDim = 0, 1
	}
	Y, X := in[yDim], in[2]
	tx, ty := ceilDiv(X, T), ceilDiv(Y, T)
	b := indexing.Dim(3)
	o := indexing.Add(indexing.Mul(indexing.Sym(0), 8*T), indexing.Mul(indexing.Dim(0), v), indexing.Sym(1))
	row := indexing.Add(indexing.Mul(indexing.Mod(indexing.FloorDiv(b, tx), ty), T), indexing.FloorDiv(o, T))
	col := indexing.Add(indexing.Mul(indexing.Mod(b, tx), T), indexing.Mod(o, T))
	batch := indexing.FloorDiv(b, tx*ty)
	idx := [3]*indexing.Expr{}
	idx[yDim], idx[2], idx[batchDim] = row, col, batch
	lin := indexing.Add(indexing.Mul(idx[0], in[1]*in[2]), indexing.Mul(idx[1], in[2]), idx[2])
	return threadLinear{ranges: []indexing.Variable{rangeVar(4 * v), rangeVar(v)}, lin: lin,
		cons: []indexing.Constraint{
			{Expr: row, Bounds: indexing.Interval{Lower: 0, Upper: Y - 1}},
			{Expr: col, Bounds: indexing.Interval{Lower: 0, Upper: X - 1}},
		}}
}

// ThreadMap returns the emitter's thread-id -> physical linear offset map
// of the hero's first operand (reduction, transpose) or of the first
// output (loop), or false when this package has no thread-id indexing for
// the emitter.
func (a *FusionAnalysis) ThreadMap(d *Device) (*indexing.IndexingMap, bool, error) {
	l := a.Launch(d)
	var tl threadLinear
	switch a.Emitter {
	case EmitterLoop:
		tl = loopLinear(l, firstArray(&a.Roots[0].Shape).ElementCount())
	case EmitterReduction, EmitterTranspose:
		tl, _ = a.heroInputLinear(l)
	default:
		return nil, false, nil
	}
	m, err := indexing.NewIndexingMap(gridVars(l), tl.ranges, nil, []*indexing.Expr{tl.lin}, tl.cons...)
	return m, err == nil, err
}
