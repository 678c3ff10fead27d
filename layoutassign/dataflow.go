package layoutassign

import (
	"slices"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// This file follows XLA's HloDataflowAnalysis and HloAliasAnalysis
// (xla/hlo/analysis/hlo_dataflow_analysis.cc, hlo_alias_analysis.cc) in
// their non-SSA form, as buffer assignment runs them: which instruction
// defines which values, where each value appears (its positions), who
// reads it (its uses), and which values must share one buffer.

// shapeNode is one node of a shape tree in pre-order: the whole shape is
// node 0, a tuple's elements follow it, each with its subtree.
type shapeNode struct {
	path  []int64
	shape *hlo.Shape
	// end is the pre-order number after the node's subtree.
	end int
	// kids are the pre-order numbers of a tuple's elements when one of
	// them is a tuple itself (else element i is the node after i+1).
	kids []int
}

// preorder lists the nodes of s.
func preorder(s *hlo.Shape) []shapeNode {
	if !s.IsTuple() {
		return []shapeNode{{shape: s, end: 1}}
	}
	var out []shapeNode
	var walk func(s *hlo.Shape, path []int64)
	walk = func(s *hlo.Shape, path []int64) {
		k := len(out)
		out = append(out, shapeNode{path: path, shape: s})
		for i := range s.Tuple {
			walk(&s.Tuple[i], append(slices.Clip(path), int64(i)))
		}
		out[k].end = len(out)
		if len(out) != k+1+len(s.Tuple) {
			kids := make([]int, len(s.Tuple))
			for i, c := 0, k+1; i < len(kids); i, c = i+1, out[c].end {
				kids[i] = c
			}
			out[k].kids = kids
		}
	}
	walk(s, nil)
	return out
}

// child returns the pre-order number of element i of node n, or -1.
func child(nodes []shapeNode, n int, i int64) int {
	if n < 0 || !nodes[n].shape.IsTuple() || i < 0 || int(i) >= len(nodes[n].shape.Tuple) {
		return -1
	}
	if nodes[n].kids != nil {
		return nodes[n].kids[i]
	}
	return n + 1 + int(i)
}

// nodeAt returns the pre-order number of the node at path, or -1.
func nodeAt(nodes []shapeNode, path []int64) int {
	n := 0
	for _, i := range path {
		if n = child(nodes, n, i); n < 0 {
			return -1
		}
	}
	return n
}

// step is one instruction of a computation the buffer assignment
// schedules (the entry and the bodies of while, call, conditional and
// async ops): its time in the flattened schedule and, per shape node, the
// set of values that may be there (sorted value ids).
type step struct {
	in    *hlo.Instruction
	time  int
	nodes []shapeNode
	sets  [][]int32
	// defs are the value ids this instruction defines, by node (-1: none).
	defs []int32
}

// hloValue is one HloValue: an array, token or tuple index table defined by
// an instruction at a node of its shape. It holds no pointers (steps are
// named by their time, the value's places by spans of the liveness's
// arrays), so that the garbage collector never scans the values of a
// large module.
type hloValue struct {
	// def is the defining step's time (its index in liveness.seq).
	def  int32
	node int32
	// size is the padded bytes of an array, 0 for a token, the pointer
	// table of a tuple (liveness.valueCosts has the array's cost).
	size  int64
	space int64
	// positions are the other (step, node) places where the value appears
	// (liveness.positionsOf), uses the steps that read it (liveness.usesOf):
	// spans of liveness.positions and liveness.uses.
	positions, uses span32
	start           int
	end             int
	// endPos is the position at which the value's live range ends, uses
	// aside (XLA's end_position).
	endPos position
	// offloaded marks the context of an async op run on another execution
	// thread (a TPU SparseCore offload), which XLA's peak leaves out.
	offloaded bool
}

// span32 is the span [off, off+n) of an array.
type span32 struct{ off, n int32 }

// position is a place where a value appears: a step (by its time) and a
// node of its shape.
type position struct {
	st   int32
	node int32
}

// use is a read of a value: a step (by its time) and its operand.
type use struct {
	st      int32
	operand int32
}

// def is the step that defines v.
func (lv *liveness) def(v *hloValue) *step { return &lv.seq[v.def] }

// path is v's shape index.
func (lv *liveness) path(v *hloValue) []int64 { return lv.seq[v.def].nodes[v.node].path }

// shape is v's shape.
func (lv *liveness) shape(v *hloValue) *hlo.Shape { return lv.seq[v.def].nodes[v.node].shape }

// positionsOf are the places other than its definition where v appears.
func (lv *liveness) positionsOf(v *hloValue) []position {
	return lv.positions[v.positions.off : v.positions.off+v.positions.n]
}

// usesOf are the reads of v, in schedule order.
func (lv *liveness) usesOf(v *hloValue) []use { return lv.uses[v.uses.off : v.uses.off+v.uses.n] }

// calledBy returns the computation named by the attribute attr of in
// ("condition", "body", "to_apply", "calls"), or nil.
func calledBy(in *hlo.Instruction, attr string) *hlo.Computation {
	name, ok := in.Attr(attr)
	if !ok {
		return nil
	}
	name = strings.TrimPrefix(strings.TrimSpace(name), "%")
	for _, c := range in.Called {
		if c != nil && c.Name == name {
			return c
		}
	}
	return nil
}

// controlFlow reports whether in calls its computations as part of the
// program's control flow (their instructions are scheduled and get
// buffers like the caller's) rather than per element (fusions, reducers,
// comparators: thread-local).
func controlFlow(in *hlo.Instruction) bool {
	switch in.Opcode {
	case hlo.OpWhile, hlo.OpCall, hlo.OpConditional, hlo.OpAsyncStart, hlo.OpAsyncUpdate, hlo.OpAsyncDone:
		return true
	}
	return false
}

// usedNodes is XLA's MayUseOperandValue: user reads the values at the
// first usedNodes(user, n) of its operand's n shape nodes (in pre-order)
// and only passes the others through: a get-tuple-element or a copy
// reads the top node (a tuple's index table), a domain or a tuple none.
// An async-done counts as reading all of its start's operands, which stay
// live until the async op is done (as XLA's HloLiveRangeTest.AsyncCall
// expects).
func usedNodes(user *hlo.Instruction, n int) int {
	switch user.Opcode {
	case hlo.OpGetTupleElement, hlo.OpCopy:
		return min(n, 1)
	case hlo.OpDomain, hlo.OpTuple:
		return 0
	}
	return n
}

// definesNode reports whether in defines a value at node n of its shape
// (XLA's InitializeInstructionValueSets); the other nodes take the values
// of an operand or a called computation.
func definesNode(in *hlo.Instruction, nodes []shapeNode, n int, entryParam bool) bool {
	path, isTuple := nodes[n].path, nodes[n].shape.IsTuple()
	switch in.Opcode {
	case hlo.OpBitcast, hlo.OpAddDependency, hlo.OpWhile, hlo.OpCall, hlo.OpConditional,
		hlo.OpGetTupleElement, hlo.OpDomain, hlo.OpOptimizationBarrier, hlo.OpCopyDone, hlo.OpAllReduceDone:
		return false
	case hlo.OpParameter:
		return entryParam
	case hlo.OpCopy, hlo.OpTuple:
		return len(path) == 0
	case hlo.OpAsyncStart:
		return isTuple || len(path) > 0 && path[0] > 1
	case hlo.OpAsyncUpdate, hlo.OpAsyncDone:
		return isTuple
	case hlo.OpCopyStart:
		return len(path) == 0 || path[0] != 1
	case hlo.OpAllGatherStart:
		return isTuple || len(path) > 0 && path[0] == 1
	case hlo.OpAllGatherDone, hlo.OpCollectivePermuteDone:
		return len(path) == 0 && isTuple
	case hlo.OpCollectivePermuteStart:
		return len(path) == 0 || path[0] >= 1
	case hlo.OpRecvDone:
		return len(path) == 0 || path[0] == 1
	case hlo.OpSend:
		return len(path) == 0 || path[0] >= 1
	}
	return true
}
