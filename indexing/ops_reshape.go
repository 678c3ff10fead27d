package indexing

import (
	"fmt"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// strides returns the row-major strides of a shape.
func strides(sizes []int64) []int64 {
	s := make([]int64, len(sizes))
	acc := int64(1)
	for i := len(sizes) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= sizes[i]
	}
	return s
}

// linearize returns the row-major linear index of the index exprs in a
// tensor of the given sizes.
func linearize(sizes []int64, exprs []*Expr) *Expr {
	st := strides(sizes)
	terms := make([]*Expr, len(exprs))
	for i, e := range exprs {
		terms[i] = Mul(e, st[i])
	}
	return Add(terms...)
}

// delinearize returns the index in a tensor of the given sizes of the
// row-major linear index lin.
func delinearize(sizes []int64, lin *Expr) []*Expr {
	out := make([]*Expr, len(sizes))
	rem := lin
	for i, st := range strides(sizes) {
		out[i] = FloorDiv(rem, st)
		rem = Mod(rem, st)
	}
	return out
}

func product(xs []int64) int64 {
	p := int64(1)
	for _, x := range xs {
		p *= x
	}
	return p
}

// reshapeExprs returns the index of a tensor of shape in as expressions of
// the index exprs of a tensor of shape out with the same number of
// elements, the output-to-input indexing of a reshape. As XLA does, it
// splits the shapes into the shortest consecutive groups of dims with equal
// element counts and, per group, keeps a dim that does not change, expands
// (linearizes the output dims), collapses (delinearizes) or, in general,
// linearizes and then delinearizes.
func reshapeExprs(in, out []int64, outExprs []*Expr) []*Expr {
	res := make([]*Expr, 0, len(in))
	if product(in) == 0 {
		for range in {
			res = append(res, Const(0))
		}
		return res
	}
	var inGroup, outGroup []int64
	var groupExprs []*Expr
	inN, outN := int64(1), int64(1)
	i, o := 0, 0
	for i < len(in) || o < len(out) || len(inGroup) > 0 {
		if i < len(in) && (len(inGroup) == 0 || inN < outN) {
			inN *= in[i]
			inGroup = append(inGroup, in[i])
			i++
			continue
		}
		if o < len(out) && (len(outGroup) == 0 || outN < inN) {
			outN *= out[o]
			outGroup = append(outGroup, out[o])
			groupExprs = append(groupExprs, outExprs[o])
			o++
			continue
		}
		switch {
		case len(inGroup) == 1 && len(outGroup) == 1:
			res = append(res, groupExprs[0])
		case len(inGroup) == 1:
			res = append(res, linearize(outGroup, groupExprs))
		case len(outGroup) == 1:
			res = append(res, delinearize(inGroup, groupExprs[0])...)
		default:
			res = append(res, delinearize(inGroup, linearize(outGroup, groupExprs))...)
		}
		inN, outN = 1, 1
		inGroup, outGroup, groupExprs = nil, nil, nil
	}
	return res
}

// reshapeMap returns the simplified map (dimensions of size 1 kept, as
// XLA's) from the index of a tensor of shape
// out to the index of a tensor of shape in with as many elements.
func reshapeMap(out, in []int64) (*IndexingMap, error) {
	if product(in) != product(out) {
		return nil, fmt.Errorf("expected shapes with equal element counts, found %v and %v", in, out)
	}
	res := reshapeExprs(in, out, dims(len(out)))
	m, err := newMap(dimVars(out), nil, nil, res)
	if err != nil {
		return nil, err
	}
	return m.SimplifyPreservingPoints(), nil
}

// bitcastMap returns the map from the logical index of an array of shape
// from to the logical index of the array of shape to that shares its
// memory, as XLA's GetBitcastMap: a transpose of from into its physical
// (major-to-minor) order, a reshape of that physical shape into to's
// physical shape, and a transpose from there to to's logical order. Only
// minor_to_major is used, tiles are ignored (as XLA's bitcast
// decomposition does). Shapes with different element counts (a bitcast
// that changes the element width) give the undefined map.
func bitcastMap(from, to hlo.Shape) (*IndexingMap, error) {
	if product(from.Dims) != product(to.Dims) {
		return Undefined(), nil
	}
	fromM2M, toM2M := from.MinorToMajor(), to.MinorToMajor()
	if !hlo.IsPermutation(fromM2M, len(from.Dims)) || !hlo.IsPermutation(toM2M, len(to.Dims)) {
		return nil, fmt.Errorf("expected minor_to_major permutations, found %v and %v", fromM2M, toM2M)
	}
	fromPhys := make([]*Expr, len(from.Dims))
	for j := range fromPhys {
		fromPhys[j] = Dim(int(fromM2M[len(fromM2M)-1-j]))
	}
	toPhys := reshapeExprs(hlo.PhysicalDims(to), hlo.PhysicalDims(from), fromPhys)
	res := make([]*Expr, len(to.Dims))
	for j, e := range toPhys {
		res[toM2M[len(toM2M)-1-j]] = e
	}
	m, err := newMap(dimVars(from.Dims), nil, nil, res)
	if err != nil {
		return nil, err
	}
	return m.SimplifyPreservingPoints(), nil
}

func bitcastOutputToInput(in *hlo.Instruction) (*IndexingMap, error) {
	return bitcastIndexing(in, true)
}

func bitcastInputToOutput(in *hlo.Instruction) (*IndexingMap, error) {
	return bitcastIndexing(in, false)
}

// bitcastIndexing is a bitcast's map from its result to its operand
// (outToIn) or back, through the layouts.
func bitcastIndexing(in *hlo.Instruction, outToIn bool) (*IndexingMap, error) {
	if _, _, err := operandDims(in, 1); err != nil {
		return nil, err
	}
	from, to := in.Shape, in.Operands[0].Shape
	if !outToIn {
		from, to = to, from
	}
	m, err := bitcastMap(from, to)
	if err != nil {
		return nil, instrError(in, "%v", err)
	}
	return m, nil
}
