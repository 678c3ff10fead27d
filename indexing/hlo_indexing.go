package indexing

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// HloInstructionIndexing is the indexing of one HLO instruction, as XLA's
// HloInstructionIndexing: Maps[i] is the set of maps for operand i (output to
// input) or for result i (input to output). Each set is deduplicated
// (structurally equal maps are kept once) and sorted by [CompareMaps], so
// it prints deterministically. An empty set means the operand is
// not read for that output (a tuple's other elements, a parameter's nothing);
// a set holding the undefined map means the access cannot be expressed.
type HloInstructionIndexing struct {
	Maps [][]*IndexingMap
}

// newIndexing returns an indexing with n empty sets.
func newIndexing(n int) *HloInstructionIndexing {
	if n <= smallIndexing {
		b := &smallIndexingBlock{}
		b.h.Maps = b.sets[:n:n]
		return &b.h
	}
	return &HloInstructionIndexing{Maps: make([][]*IndexingMap, n)}
}

// smallIndexing is the number of sets up to which an indexing is allocated
// in one block with its sets and their maps.
const smallIndexing = 3

type smallIndexingBlock struct {
	h    HloInstructionIndexing
	sets [smallIndexing][]*IndexingMap
	maps [smallIndexing]*IndexingMap
}

// fromMaps returns an indexing with one map per set.
func fromMaps(maps ...*IndexingMap) *HloInstructionIndexing {
	// The sets share one array; each has capacity 1, so that adding to a
	// set copies it.
	var sets []*IndexingMap
	var h *HloInstructionIndexing
	if n := len(maps); n <= smallIndexing {
		b := &smallIndexingBlock{}
		b.h.Maps = b.sets[:n:n]
		h, sets = &b.h, b.maps[:n:n]
		copy(sets, maps)
	} else {
		h, sets = newIndexing(n), slices.Clone(maps)
	}
	for i := range sets {
		h.Maps[i] = sets[i : i+1 : i+1]
	}
	return h
}

// undefinedIndexing returns n sets that each hold the undefined map.
func undefinedIndexing(n int) *HloInstructionIndexing {
	h := newIndexing(n)
	for i := range h.Maps {
		h.Maps[i] = undefinedSet
	}
	return h
}

// undefinedSet is the set holding the undefined map; its capacity is 1, so
// that adding to it copies it.
var undefinedSet = []*IndexingMap{undefinedMap}

// Add inserts m into set i unless an equal map is already there, keeping
// the set sorted by [CompareMaps].
func (h *HloInstructionIndexing) Add(i int, m *IndexingMap) {
	h.Maps[i] = insertMap(h.Maps[i], m)
}

// insertMap inserts m into the sorted set, unless an equal map is already
// there.
func insertMap(set []*IndexingMap, m *IndexingMap) []*IndexingMap {
	i, found := slices.BinarySearchFunc(set, m, CompareMaps)
	if found {
		return set
	}
	return slices.Insert(set, i, m)
}

// CompareMaps orders indexing maps totally and structurally (variable
// names ignored): by state, then variables (count, then bounds), results
// and constraints. It returns 0 exactly when the maps are [IndexingMap.Equal].
// Sets of maps are kept in this order, which is deterministic and cheap:
// it never prints a map.
func CompareMaps(a, b *IndexingMap) int {
	if c := int(a.state) - int(b.state); c != 0 || a.state == stateUndefined {
		return c
	}
	switch {
	case a.replica == nil && b.replica != nil:
		return -1
	case a.replica != nil && b.replica == nil:
		return 1
	case a.replica != nil:
		if c := CompareMaps(a.replica, b.replica); c != 0 {
			return c
		}
	}
	for _, vs := range [][2][]Variable{{a.dims, b.dims}, {a.ranges, b.ranges}, {a.rts, b.rts}} {
		if c := len(vs[0]) - len(vs[1]); c != 0 {
			return c
		}
	}
	for _, vs := range [][2][]Variable{{a.dims, b.dims}, {a.ranges, b.ranges}, {a.rts, b.rts}} {
		for i := range vs[0] {
			x, y := vs[0][i].Bounds, vs[1][i].Bounds
			if c := cmpInt(x.Lower, y.Lower); c != 0 {
				return c
			}
			if c := cmpInt(x.Upper, y.Upper); c != 0 {
				return c
			}
		}
	}
	if c := len(a.results) - len(b.results); c != 0 {
		return c
	}
	for i := range a.results {
		if c := Compare(a.results[i], b.results[i]); c != 0 {
			return c
		}
	}
	if c := len(a.constraints) - len(b.constraints); c != 0 {
		return c
	}
	for i := range a.constraints {
		x, y := a.constraints[i], b.constraints[i]
		if c := Compare(x.Expr, y.Expr); c != 0 {
			return c
		}
		if c := cmpInt(x.Bounds.Lower, y.Bounds.Lower); c != 0 {
			return c
		}
		if c := cmpInt(x.Bounds.Upper, y.Bounds.Upper); c != 0 {
			return c
		}
	}
	return 0
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
			out = insertMap(out, s)
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
		if d == hlo.UnboundedDim {
			return nil, errUnbounded
		}
		if d < 0 {
			return nil, instrError(in, "expected a bounded %s, found %s", what, s.StringNoLayout())
		}
	}
	return s.Dims, nil
}

// errUnbounded is returned by arrayDims for a shape with an unbounded
// dynamic dim ("?"); the public entry points turn it into undefined maps.
var errUnbounded = errors.New("unbounded dynamic dimension")

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
	return shapeMap(shapeEmptyResult, sizes)
}

// allElementsMap returns ()[s0, ..., sn] -> (s0, ..., sn): every element of a
// tensor of the given sizes, the input-to-output map of a scalar read by
// every output element.
func allElementsMap(sizes []int64) *IndexingMap {
	return shapeMap(shapeAllElements, sizes)
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

// distinctInRange reports whether every x is in [0, n) and none repeats
// (XLA's gather and scatter dimension numbers: offset, window, collapsed,
// inserted, batching and index-map dims name each dim at most once).
func distinctInRange(xs []int64, n int) bool {
	for i, x := range xs {
		if x < 0 || x >= int64(n) || slices.Contains(xs[:i], x) {
			return false
		}
	}
	return true
}

// hasUnboundedDims reports whether the instruction's shape or an operand's
// has an unbounded dynamic dim ("?"), whose indexing is not defined.
func hasUnboundedDims(in *hlo.Instruction) bool {
	if unboundedShape(&in.Shape) {
		return true
	}
	for _, op := range in.Operands {
		if unboundedShape(&op.Shape) {
			return true
		}
	}
	return false
}

func unboundedShape(s *hlo.Shape) bool {
	for i := range s.Tuple {
		if unboundedShape(&s.Tuple[i]) {
			return true
		}
	}
	return slices.Contains(s.Dims, hlo.UnboundedDim)
}
