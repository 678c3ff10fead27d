package indexing

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// HloInstructionIndexing is the indexing of one HLO instruction, as XLA's
// HloInstructionIndexing: Maps[i] is the set of maps for operand i (output to
// input) or for result i (input to output). Each set is deduplicated
// (structurally equal maps are kept once) and sorted by the maps' one-line
// text, so it prints deterministically. An empty set means the operand is
// not read for that output (a tuple's other elements, a parameter's nothing);
// a set holding the undefined map means the access cannot be expressed.
type HloInstructionIndexing struct {
	Maps [][]*IndexingMap
}

// newIndexing returns an indexing with n empty sets.
func newIndexing(n int) *HloInstructionIndexing {
	return &HloInstructionIndexing{Maps: make([][]*IndexingMap, n)}
}

// fromMaps returns an indexing with one map per set.
func fromMaps(maps ...*IndexingMap) *HloInstructionIndexing {
	h := newIndexing(len(maps))
	for i, m := range maps {
		h.Maps[i] = []*IndexingMap{m}
	}
	return h
}

// undefinedIndexing returns n sets that each hold the undefined map.
func undefinedIndexing(n int) *HloInstructionIndexing {
	h := newIndexing(n)
	for i := range h.Maps {
		h.Maps[i] = []*IndexingMap{Undefined()}
	}
	return h
}

// Add inserts m into set i unless an equal map is already there, keeping
// the set sorted by text.
func (h *HloInstructionIndexing) Add(i int, m *IndexingMap) {
	h.Maps[i] = insertMap(h.Maps[i], m, m.String())
}

// insertMap inserts m (whose text is key) into the sorted set, unless an
// equal map is already there.
func insertMap(set []*IndexingMap, m *IndexingMap, key string) []*IndexingMap {
	i, found := slices.BinarySearchFunc(set, key, func(x *IndexingMap, k string) int {
		return strings.Compare(x.String(), k)
	})
	if found {
		return set
	}
	return slices.Insert(set, i, m)
}

// String prints the indexing as XLA's HloInstructionIndexing::ToString does,
// one "operand id = N" block per set with its maps in the multi-line
// notation of the indexing analysis document; "unknown indexing" stands for
// an undefined map.
func (h *HloInstructionIndexing) String() string {
	var b strings.Builder
	for i, set := range h.Maps {
		b.WriteString("operand id = " + strconv.Itoa(i) + "\n")
		for _, m := range set {
			if m.IsUndefined() {
				b.WriteString("unknown indexing\n")
				continue
			}
			b.WriteString(m.MultiLineString() + "\n")
		}
	}
	return b.String()
}

// Simplify simplifies every map and removes its unused symbols, in place,
// then deduplicates each set again.
func (h *HloInstructionIndexing) Simplify() {
	for i, set := range h.Maps {
		var out []*IndexingMap
		for _, m := range set {
			s, _ := m.Simplify().RemoveUnusedSymbols()
			out = insertMap(out, s, s.String())
		}
		h.Maps[i] = out
	}
}

// arrayDims returns the dimensions of an array shape, or an error naming
// the instruction for a tuple or token.
func arrayDims(in *hlo.Instruction, s hlo.Shape, what string) ([]int64, error) {
	if !s.IsArray() {
		return nil, instrError(in, "expected an array %s, found %s", what, s.StringNoLayout())
	}
	for _, d := range s.Dims {
		if d < 0 {
			return nil, instrError(in, "expected a bounded %s, found %s", what, s.StringNoLayout())
		}
	}
	return s.Dims, nil
}

// outputShape returns the shape of result k of in: the tuple element for a
// tuple-shaped instruction, the shape itself otherwise.
func outputShape(in *hlo.Instruction, k int) (hlo.Shape, error) {
	if !in.Shape.IsTuple() {
		return in.Shape, nil
	}
	if k < 0 || k >= len(in.Shape.Tuple) {
		return hlo.Shape{}, instrError(in, "expected an output index in [0, %d), found %d", len(in.Shape.Tuple), k)
	}
	return in.Shape.Tuple[k], nil
}

// InstructionError is an error about one instruction: an attribute or an
// operand shape that contradicts the op's semantics.
type InstructionError struct {
	Instr *hlo.Instruction
	Msg   string
}

// Error prints "line:col: name: message" when the instruction's position is
// known, "name: message" otherwise.
func (e *InstructionError) Error() string {
	if e.Instr.Pos.IsValid() {
		return fmt.Sprintf("%d:%d: %s: %s", e.Instr.Pos.Line, e.Instr.Pos.Col, e.Instr.Name, e.Msg)
	}
	return e.Instr.Name + ": " + e.Msg
}

// instrError returns an *InstructionError about in.
func instrError(in *hlo.Instruction, format string, args ...any) error {
	return &InstructionError{Instr: in, Msg: fmt.Sprintf(format, args...)}
}

// dimVars returns the variables [0, size-1] of a tensor's indices.
func dimVars(sizes []int64) []Variable { return VarsFromSizes(sizes) }

// dims returns d0..d{n-1}.
func dims(n int) []*Expr {
	out := make([]*Expr, n)
	for i := range out {
		out[i] = Dim(i)
	}
	return out
}

// emptyResultMap returns (d0, ..., dn) -> () on the given domain: the map of
// a scalar operand read once per output element.
func emptyResultMap(sizes []int64) *IndexingMap {
	return MustNewIndexingMap(dimVars(sizes), nil, nil, nil)
}

// allElementsMap returns ()[s0, ..., sn] -> (s0, ..., sn): every element of a
// tensor of the given sizes, the input-to-output map of a scalar read by
// every output element.
func allElementsMap(sizes []int64) *IndexingMap {
	res := make([]*Expr, len(sizes))
	for i := range res {
		res[i] = Sym(i)
	}
	return MustNewIndexingMap(nil, VarsFromSizes(sizes), nil, res)
}

// isPermutation reports whether p holds each of 0..n-1 exactly once.
func isPermutation(p []int64, n int) bool { return hlo.IsPermutation(p, n) }

// inRange reports whether every value of xs is in [0, n).
func inRange(xs []int64, n int) bool {
	for _, x := range xs {
		if x < 0 || x >= int64(n) {
			return false
		}
	}
	return true
}

// hasUnboundedDims reports whether the instruction's shape or an operand's
// has an unbounded dynamic dim ("?"), whose indexing is not defined.
func hasUnboundedDims(in *hlo.Instruction) bool {
	unbounded := func(s hlo.Shape) bool {
		for _, l := range s.Leaves() {
			if slices.Contains(l.Shape.Dims, hlo.UnboundedDim) {
				return true
			}
		}
		return false
	}
	if unbounded(in.Shape) {
		return true
	}
	for _, op := range in.Operands {
		if unbounded(op.Shape) {
			return true
		}
	}
	return false
}
