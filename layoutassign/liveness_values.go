package layoutassign

import (
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// define creates the values each scheduled instruction defines and records
// the control-flow callers of each scheduled computation.
func (lv *liveness) define() {
	nodes := 0
	for i := range lv.seq {
		st := &lv.seq[i]
		nodes += len(st.nodes)
	}
	lv.values = make([]hloValue, 0, nodes)
	lv.valueCosts = make([]*ArrayCost, 0, nodes)
	// Each step's sets and defs are carved from one array each.
	sets, defs := make([][]int32, nodes), make([]int32, nodes)
	for i := range lv.seq {
		st := &lv.seq[i]
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
		n := len(st.nodes)
		st.sets, sets = sets[:n:n], sets[n:]
		st.defs, defs = defs[:n:n], defs[n:]
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
	id := int32(len(lv.values))
	lv.values = append(lv.values, hloValue{def: int32(st.time), node: int32(n)})
	lv.valueCosts = append(lv.valueCosts, cost)
	v := &lv.values[id]
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
// A first walk counts them, so that every value's lists are carved from
// one array each (appending them one by one allocated about four times
// per instruction of the unrolled training step of hlogen).
func (lv *liveness) positionsAndUses() {
	nPos, nUse := make([]int32, len(lv.values)), make([]int32, len(lv.values))
	last := make([]use, len(lv.values))
	lv.eachPositionAndUse(func(id int32, _ position) { nPos[id]++ }, func(id int32, u use) {
		if nUse[id] == 0 || last[id] != u {
			nUse[id]++
			last[id] = u
		}
	})
	var totalPos, totalUse int32
	for id := range lv.values {
		v := &lv.values[id]
		v.positions, v.uses = span32{off: totalPos}, span32{off: totalUse}
		totalPos += nPos[id]
		totalUse += nUse[id]
	}
	lv.positions, lv.uses = make([]position, totalPos), make([]use, totalUse)
	lv.eachPositionAndUse(func(id int32, p position) {
		v := &lv.values[id]
		lv.positions[v.positions.off+v.positions.n] = p
		v.positions.n++
	}, func(id int32, u use) {
		v := &lv.values[id]
		if v.uses.n == 0 || lv.uses[v.uses.off+v.uses.n-1] != u {
			lv.uses[v.uses.off+v.uses.n] = u
			v.uses.n++
		}
	})
}

// eachPositionAndUse calls pos with every place a value appears other than
// its definition and read with every read of a value by an operand (the
// same read once more for each other node of the operand that holds it),
// in schedule order.
func (lv *liveness) eachPositionAndUse(pos func(int32, position), read func(int32, use)) {
	for i := range lv.seq {
		st := &lv.seq[i]
		for n, set := range st.sets {
			for _, id := range set {
				if v := &lv.values[id]; int(v.def) != st.time || int(v.node) != n {
					pos(id, position{int32(st.time), int32(n)})
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
					read(id, use{int32(st.time), int32(k)})
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
