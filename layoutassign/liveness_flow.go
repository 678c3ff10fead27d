package layoutassign

import (
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// propagate computes, for every node that no instruction defines, the
// values that flow there (from an operand, a called computation's root or
// a caller's operand), repeating until nothing changes: a while loop's
// body feeds its own parameter.
func (lv *liveness) propagate() {
	for range 64 {
		changed := false
		for i := range lv.seq {
			st := &lv.seq[i]
			if lv.inflow(st) {
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	// A node nothing flows to (a malformed module) gets a value of its
	// own, so that every position has one.
	for i := range lv.seq {
		st := &lv.seq[i]
		for n := range st.nodes {
			if len(st.sets[n]) == 0 {
				var cost *ArrayCost
				if st.nodes[n].shape.IsArray() {
					cost = lv.leafCost(st, n)
				}
				lv.newValue(st, n, cost)
			}
		}
	}
}

// leafCost is the cost of the array leaf at node n of st.
func (lv *liveness) leafCost(st *step, n int) *ArrayCost {
	k := 0
	for i := range n {
		if st.nodes[i].shape.IsArray() {
			k++
		}
	}
	if costs := lv.costs(st.in); k < len(costs) {
		return &costs[k]
	}
	return nil
}

// flowFrom merges into st's subtree at node dst the sets of src's subtree
// at node sn (same structure), leaving st's own definitions alone. It
// reports a change.
func flowFrom(st *step, dst int, src *step, sn int) bool {
	if src == nil || dst < 0 || sn < 0 || st.nodes[dst].end-dst != src.nodes[sn].end-sn {
		return false
	}
	changed := false
	for k := range st.nodes[dst].end - dst {
		if st.defs[dst+k] >= 0 {
			continue
		}
		if u, grew := union(st.sets[dst+k], src.sets[sn+k]); grew {
			st.sets[dst+k], changed = u, true
		}
	}
	return changed
}

// union returns the sorted union of a and b and whether it is larger than
// a.
func union(a, b []int32) ([]int32, bool) {
	grew := false
	for _, x := range b {
		if i, found := slices.BinarySearch(a, x); !found {
			a = slices.Insert(slices.Clip(a), i, x)
			grew = true
		}
	}
	return a, grew
}

// inflow updates the sets of st's nodes it does not define; see
// definesNode for which those are.
func (lv *liveness) inflow(st *step) bool {
	in := st.in
	op, root := lv.operandStep(in), lv.rootStep
	switch in.Opcode {
	case hlo.OpBitcast, hlo.OpAddDependency, hlo.OpDomain, hlo.OpOptimizationBarrier, hlo.OpAllReduceDone:
		return flowFrom(st, 0, op(0), 0)
	case hlo.OpGetTupleElement:
		return flowFrom(st, 0, op(0), nodeOf(op(0), tupleIndex(in)))
	case hlo.OpTuple:
		changed := false
		for i := range in.Operands {
			changed = flowFrom(st, child(st.nodes, 0, int64(i)), op(i), 0) || changed
		}
		return changed
	case hlo.OpWhile:
		a := flowFrom(st, 0, op(0), 0)
		return flowFrom(st, 0, root(calledBy(in, "body")), 0) || a
	case hlo.OpCall:
		return flowFrom(st, 0, root(calledBy(in, "to_apply")), 0)
	case hlo.OpConditional:
		changed := false
		for _, c := range in.Called {
			changed = flowFrom(st, 0, root(c), 0) || changed
		}
		return changed
	case hlo.OpParameter:
		return lv.paramInflow(st)
	}
	return lv.asyncInflow(st)
}

// asyncInflow is inflow for the halves of async pairs: async ops, copies
// and collectives.
func (lv *liveness) asyncInflow(st *step) bool {
	in := st.in
	op, root := lv.operandStep(in), lv.rootStep
	switch in.Opcode {
	case hlo.OpAsyncUpdate:
		return lv.updateInflow(st)
	case hlo.OpAsyncStart:
		changed := false
		for i := range in.Operands {
			changed = flowFrom(st, nodeOf(st, 0, int64(i)), op(i), 0) || changed
		}
		for _, c := range in.Called {
			changed = flowFrom(st, nodeOf(st, 1), root(c), 0) || changed
		}
		return changed
	case hlo.OpAsyncDone:
		if res, ok := in.Operands[0].Shape.Subshape([]int64{1}); ok && res.IsTuple() && len(res.Tuple) == 0 {
			// Bound only at the done: the result comes from the computation.
			return flowFrom(st, 0, root(asyncComputation(in)), 0)
		}
		return flowFrom(st, 0, op(0), nodeOf(op(0), 1))
	case hlo.OpAllGatherDone, hlo.OpCollectivePermuteDone:
		return flowFrom(st, 0, op(0), nodeOf(op(0), 1))
	case hlo.OpCopyStart:
		return flowFrom(st, nodeOf(st, 1), op(0), 0)
	case hlo.OpCopyDone:
		return flowFrom(st, 0, op(0), nodeOf(op(0), 0))
	case hlo.OpAllGatherStart:
		if len(in.Operands) == 1 {
			return flowFrom(st, nodeOf(st, 0), op(0), 0)
		}
		changed := false
		for i := range in.Operands {
			changed = flowFrom(st, nodeOf(st, 0, int64(i)), op(i), 0) || changed
		}
		return changed
	case hlo.OpCollectivePermuteStart, hlo.OpSend:
		return flowFrom(st, nodeOf(st, 0), op(0), 0)
	case hlo.OpRecvDone:
		return flowFrom(st, nodeOf(st, 0), op(0), nodeOf(op(0), 0))
	}
	return false
}

// operandStep returns the step of in's operand k (nil when there is none
// or it is not scheduled).
func (lv *liveness) operandStep(in *hlo.Instruction) func(k int) *step {
	return func(k int) *step {
		if k < len(in.Operands) {
			return lv.stepOf(in.Operands[k])
		}
		return nil
	}
}

// rootStep returns the step of c's root (nil for no computation).
func (lv *liveness) rootStep(c *hlo.Computation) *step {
	if c == nil {
		return nil
	}
	return lv.stepOf(c.Root)
}

// nodeOf returns the node of s at path, -1 for no step.
func nodeOf(s *step, path ...int64) int {
	if s == nil {
		return -1
	}
	return nodeAt(s.nodes, path)
}

// updateInflow passes an async-update its predecessor's operands ({0,i})
// and result ({1}); operands it binds itself come after the bound ones
// (late binding), and a result bound here comes from the computation.
func (lv *liveness) updateInflow(st *step) bool {
	in := st.in
	if len(in.Operands) == 0 {
		return false
	}
	prev := lv.stepOf(in.Operands[0])
	if prev == nil {
		return false
	}
	bound := 0
	if ops, ok := in.Operands[0].Shape.Subshape([]int64{0}); ok {
		bound = len(ops.Tuple)
	}
	changed := false
	if ops, ok := in.Shape.Subshape([]int64{0}); ok {
		for i := range ops.Tuple {
			dst := nodeAt(st.nodes, []int64{0, int64(i)})
			if i < bound {
				changed = flowFrom(st, dst, prev, nodeAt(prev.nodes, []int64{0, int64(i)})) || changed
			} else if k := 1 + i - bound; k < len(in.Operands) {
				changed = flowFrom(st, dst, lv.stepOf(in.Operands[k]), 0) || changed
			}
		}
	}
	dst, src := nodeAt(st.nodes, []int64{1}), nodeAt(prev.nodes, []int64{1})
	// The predecessor's result passes on unless it was the empty tuple of
	// a result not bound yet (an array and () both take one node).
	if dst >= 0 && src >= 0 && prev.nodes[src].end-src == st.nodes[dst].end-dst &&
		prev.nodes[src].shape.IsTuple() == st.nodes[dst].shape.IsTuple() {
		changed = flowFrom(st, dst, prev, src) || changed
	} else if c := asyncComputation(in); c != nil {
		changed = flowFrom(st, dst, lv.stepOf(c.Root), 0) || changed
	}
	for i := int64(2); ; i++ {
		dst, src := nodeAt(st.nodes, []int64{i}), nodeAt(prev.nodes, []int64{i})
		if dst < 0 || src < 0 {
			return changed
		}
		changed = flowFrom(st, dst, prev, src) || changed
	}
}

// paramInflow gives a scheduled computation's parameter the values of its
// callers' operands: a call's or async op's operand of the same number, a
// conditional's branch operand, a while's init and the body's root.
func (lv *liveness) paramInflow(st *step) bool {
	c, k := st.in.Parent, st.in.ParameterNumber
	changed := false
	for _, cs := range lv.callers[c] {
		in := cs.in
		var src *step
		switch in.Opcode {
		case hlo.OpAsyncStart, hlo.OpAsyncUpdate, hlo.OpAsyncDone:
			// The operands the chain has bound: {0,k} of its ops.
			if n := nodeAt(cs.nodes, []int64{0, int64(k)}); n >= 0 {
				changed = flowFrom(st, 0, cs, n) || changed
			}
			continue
		case hlo.OpWhile:
			src = lv.stepOf(in.Operands[0])
			if body := calledBy(in, "body"); body != nil {
				changed = flowFrom(st, 0, lv.stepOf(body.Root), 0) || changed
			}
		case hlo.OpConditional:
			if b := slices.Index(in.Called, c); b >= 0 && b+1 < len(in.Operands) {
				src = lv.stepOf(in.Operands[b+1])
			}
		default:
			if k < len(in.Operands) {
				src = lv.stepOf(in.Operands[k])
			}
		}
		changed = flowFrom(st, 0, src, 0) || changed
	}
	return changed
}
