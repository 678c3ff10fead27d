package layoutassign

import (
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// define creates the values each scheduled instruction defines and records
// the control-flow callers of each scheduled computation.
func (lv *liveness) define() {
	nodes := 0
	for _, st := range lv.seq {
		nodes += len(st.nodes)
	}
	lv.slab = make([]hloValue, 0, nodes)
	for _, st := range lv.seq {
		in := st.in
		switch in.Opcode {
		case hlo.OpAsyncStart, hlo.OpAsyncUpdate, hlo.OpAsyncDone:
			if c := asyncComputation(in); c != nil {
				lv.callers[c] = append(lv.callers[c], st)
			}
		case hlo.OpWhile, hlo.OpCall, hlo.OpConditional:
			for _, c := range in.Called {
				if c != nil {
					lv.callers[c] = append(lv.callers[c], st)
				}
			}
		}
		st.sets = make([][]int32, len(st.nodes))
		st.defs = make([]int32, len(st.nodes))
		entryParam := in.Opcode == hlo.OpParameter && in.Parent == lv.entry
		costs := lv.costs(in)
		k := 0 // the next array leaf's cost
		for n, nd := range st.nodes {
			st.defs[n] = -1
			var cost *ArrayCost
			if nd.shape.IsArray() && k < len(costs) {
				cost = &costs[k]
				k++
			}
			if !definesNode(in, st.nodes, n, entryParam) {
				continue
			}
			lv.newValue(st, n, cost)
		}
	}
}

func (lv *liveness) newValue(st *step, n int, cost *ArrayCost) int32 {
	var v *hloValue
	if len(lv.slab) < cap(lv.slab) {
		lv.slab = lv.slab[:len(lv.slab)+1]
		v = &lv.slab[len(lv.slab)-1]
	} else {
		v = new(hloValue)
	}
	v.def, v.node, v.cost = st, n, cost
	s := st.nodes[n].shape
	switch {
	case s.IsTuple():
		v.size = lv.t.TupleTableBytes(len(s.Tuple))
	case cost != nil:
		v.size = cost.Bytes
	}
	if s.Layout != nil {
		v.space = s.Layout.MemorySpace
	}
	v.offloaded = offloadedContext(st.in, st.nodes[n].path)
	id := int32(len(lv.values))
	lv.values = append(lv.values, v)
	st.defs[n] = id
	st.sets[n] = st.defs[n : n+1 : n+1] // never written in place (see union)
	return id
}

// PointerBytes is the size of one entry of a tuple's index table: a tuple
// buffer holds a pointer to each element (XLA's ShapeUtil::ByteSizeOf with
// 8-byte pointers).
const PointerBytes = 8

// positionsAndUses records, for every value, the other places it appears
// and the instructions that read it (XLA's HloValue positions and uses).
func (lv *liveness) positionsAndUses() {
	for _, st := range lv.seq {
		for n, set := range st.sets {
			for _, id := range set {
				if v := lv.values[id]; v.def != st || v.node != n {
					v.positions = append(v.positions, position{st, n})
				}
			}
		}
		for k, op := range st.in.Operands {
			os := lv.stepOf(op)
			if os == nil {
				continue
			}
			for _, set := range os.sets[:usedNodes(st.in, len(os.sets))] {
				for _, id := range set {
					v := lv.values[id]
					if l := len(v.uses); l == 0 || v.uses[l-1] != (use{st, k}) {
						v.uses = append(v.uses, use{st, k})
					}
				}
			}
		}
	}
}

// offloadedContext reports whether path of in is the context ({2, ...}) of
// an async op that runs on an execution thread other than the main one
// (XLA's TPU SparseCore offload of a scatter): scratch the other core uses,
// which XLA's peak_memory_in_bytes does not count (xla-diff seeds 1040-1139,
// TPU v6e).
func offloadedContext(in *hlo.Instruction, path []int64) bool {
	if len(path) == 0 || path[0] != 2 {
		return false
	}
	for range 1 << 10 {
		switch in.Opcode {
		case hlo.OpAsyncStart:
			thread, ok := in.Attr("async_execution_thread")
			return ok && strings.Trim(thread, `"`) != "main"
		case hlo.OpAsyncUpdate:
			if len(in.Operands) == 0 {
				return false
			}
			in = in.Operands[0]
		default:
			return false
		}
	}
	return false
}
