package cost

import (
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// isIntermediate is XLA's IsIntermediate with allowed_operand_count 1 by
// default (xla/service/gpu/ir_emission_utils.cc): an elementwise op (not
// copy) with at most n operands, a bitcast, or a reshape/transpose that is a
// bitcast.
func isIntermediate(in *hlo.Instruction, n int) bool {
	if len(in.Operands) > n {
		return false
	}
	switch in.Opcode {
	case hlo.OpBitcast:
		return true
	case hlo.OpReshape:
		return isBitcastReshape(in)
	case hlo.OpTranspose:
		return isBitcastTranspose(in)
	case hlo.OpCopy:
		return false
	}
	return in.IsElementwise()
}

// physicalDims returns the non-degenerate dimensions of s in major-to-minor
// physical order as (logical dim, size) pairs.
func physicalDims(s *hlo.Shape) (dims []int64, sizes []int64) {
	m2m := s.MinorToMajor()
	for i := len(m2m) - 1; i >= 0; i-- {
		d := m2m[i]
		if s.Dims[d] != 1 {
			dims = append(dims, d)
			sizes = append(sizes, s.Dims[d])
		}
	}
	return dims, sizes
}

// isBitcastReshape reports whether a reshape keeps the physical element
// order.
func isBitcastReshape(in *hlo.Instruction) bool {
	if len(in.Operands) != 1 || !in.Shape.IsArray() {
		return false
	}
	op := &in.Operands[0].Shape
	if op.Type != in.Shape.Type {
		return false
	}
	// A reshape is logical (row-major); it moves no data when both sides
	// store their non-degenerate dims in row-major physical order. This is
	// sufficient, not necessary: other layout pairs can be bitcasts too.
	return isDescendingNonDegenerate(op) && isDescendingNonDegenerate(&in.Shape)
}

// isDescendingNonDegenerate reports whether the non-degenerate dims of s
// appear in increasing logical order from major to minor.
func isDescendingNonDegenerate(s *hlo.Shape) bool {
	dims, _ := physicalDims(s)
	for i := 1; i < len(dims); i++ {
		if dims[i] < dims[i-1] {
			return false
		}
	}
	return true
}

// isBitcastTranspose reports whether a transpose moves no data: the
// physical order of the non-degenerate dims is the same on both sides.
func isBitcastTranspose(in *hlo.Instruction) bool {
	if len(in.Operands) != 1 || !in.Shape.IsArray() {
		return false
	}
	perm, _ := normalizedTranspose(in)
	return len(perm) <= 1
}

// transposeSource returns, for a transpose or copy, the operand dimension
// that each result dimension reads.
func transposeSource(in *hlo.Instruction) []int64 {
	if in.Opcode == hlo.OpTranspose && len(in.Typed.Dimensions) == in.Shape.Rank() {
		return in.Typed.Dimensions
	}
	src := make([]int64, in.Shape.Rank())
	for i := range src {
		src[i] = int64(i)
	}
	return src
}

// normalizedTranspose describes a transpose or copy physically: it drops
// size-1 dimensions, merges runs of result dims that stay adjacent in the
// operand, and returns perm (result normalized dim j reads operand
// normalized dim perm[j]) and the result's normalized sizes. An identity
// permutation is returned as a single dimension (or none).
func normalizedTranspose(in *hlo.Instruction) (perm []int, sizes []int64) {
	op := &in.Operands[0].Shape
	src := transposeSource(in)
	if len(src) != in.Shape.Rank() || op.Rank() != in.Shape.Rank() {
		return nil, nil
	}
	// Physical position of each operand dim, counting non-degenerate dims only.
	opDims, _ := physicalDims(op)
	pos := make(map[int64]int, len(opDims))
	for i, d := range opDims {
		pos[d] = i
	}
	outDims, outSizes := physicalDims(&in.Shape)
	var p []int
	var s []int64
	for j, d := range outDims {
		q := pos[src[d]]
		if len(p) > 0 && p[len(p)-1] == q-1 {
			p[len(p)-1] = q // extend run: remember last source index
			s[len(s)-1] *= outSizes[j]
			continue
		}
		p = append(p, q)
		s = append(s, outSizes[j])
	}
	// p holds the last source index of each run; renumber runs by their
	// order in the operand.
	order := make([]int, len(p))
	for i := range p {
		rank := 0
		for k := range p {
			if p[k] < p[i] {
				rank++
			}
		}
		order[i] = rank
	}
	identity := true
	for i, r := range order {
		if r != i {
			identity = false
		}
	}
	if identity {
		total := int64(1)
		for _, v := range s {
			total *= v
		}
		if len(s) == 0 {
			return nil, nil
		}
		return []int{0}, []int64{total}
	}
	return order, s
}

// bitsOf is the storage width of one element of an array shape: the
// layout's element size when set, else the type's width.
func bitsOf(s *hlo.Shape) int64 {
	if s.Layout != nil && s.Layout.ElementSizeBits > 0 {
		return s.Layout.ElementSizeBits
	}
	return int64(s.Type.BitWidth())
}

// ShapeBytes is the untiled byte size of a shape as the CPU and GPU cost
// analyses count it (XLA's ShapeUtil::ByteSizeOf with 8-byte pointers):
// for an array, element count times element bits over 8, rounded up
// (sub-byte types packed); for a tuple, only its index table of 8-byte
// pointers; 8 bytes for an opaque value, none for a token.
func ShapeBytes(s *hlo.Shape) int64 {
	switch {
	case s.IsTuple():
		return int64(8 * len(s.Tuple))
	case s.Type == hlo.OPAQUE:
		return 8
	case !s.IsArray():
		return 0
	}
	return (s.ElementCount()*bitsOf(s) + 7) / 8
}

// shapeSize is ShapeBytes as the analyses' size function.
func shapeSize(s *hlo.Shape) float64 { return float64(ShapeBytes(s)) }

// arrayBytes is the byte size of the array leaves of s, without tuple index
// tables.
func arrayBytes(s *hlo.Shape) int64 { return sumLeaves(s, ShapeBytes) }

// elementsRecursive is the number of elements of all array leaves.
func elementsRecursive(s *hlo.Shape) int64 { return sumLeaves(s, (*hlo.Shape).ElementCount) }

// sumLeaves adds f over the leaves of s (s itself unless it is a tuple).
func sumLeaves(s *hlo.Shape, f func(*hlo.Shape) int64) int64 {
	if !s.IsTuple() {
		return f(s)
	}
	n := int64(0)
	for i := range s.Tuple {
		n += sumLeaves(&s.Tuple[i], f)
	}
	return n
}

// firstArray returns the first array leaf of s (s itself when an array).
func firstArray(s *hlo.Shape) *hlo.Shape {
	for s.IsTuple() {
		if len(s.Tuple) == 0 {
			return s
		}
		s = &s.Tuple[0]
	}
	return s
}

// fusedComputation returns the computation a fusion calls, or nil.
func fusedComputation(in *hlo.Instruction) *hlo.Computation {
	if in.Opcode != hlo.OpFusion || len(in.Called) == 0 {
		return nil
	}
	return in.Called[0]
}

// anyFused reports whether f holds for an instruction of the computation
// the fusion in calls (false when in is no fusion).
func anyFused(in *hlo.Instruction, f func(*hlo.Instruction) bool) bool {
	c := fusedComputation(in)
	return c != nil && slices.ContainsFunc(c.Instructions, f)
}

// users returns, per instruction of c, its users in program order.
func users(c *hlo.Computation) map[*hlo.Instruction][]*hlo.Instruction {
	u := make(map[*hlo.Instruction][]*hlo.Instruction, len(c.Instructions))
	for _, in := range c.Instructions {
		seen := map[*hlo.Instruction]bool{}
		for _, op := range in.Operands {
			if !seen[op] {
				seen[op] = true
				u[op] = append(u[op], in)
			}
		}
	}
	return u
}
