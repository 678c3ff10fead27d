package layoutassign

import (
	"slices"

	"github.com/hlo-opt/hlo-opt/graph"
	"github.com/hlo-opt/hlo-opt/hlo"
)

// liveness is the buffer analysis of one module with an entry computation
// (or one computation treated as the entry): the flattened schedule, the
// values with their positions, uses and live ranges, and the buffers that
// group must-alias values. See AnalyzeMemory for the rules.
type liveness struct {
	m     *hlo.Module
	entry *hlo.Computation
	t     Target
	costs func(in *hlo.Instruction) []ArrayCost
	// aliases are the entry's input_output_alias pairs.
	aliases []hlo.InputOutputAlias
	// orig maps the instructions of a flattened copy of the call graph
	// (flatCallGraph) to the module's; nil when entry is the module's.
	orig map[*hlo.Instruction]*hlo.Instruction

	// seq is the flattened schedule; steps[in] its instructions' state.
	seq   []*step
	steps map[*hlo.Instruction]*step
	// span is each scheduled computation's [start, end) in seq; callers
	// lists the control-flow instructions calling it.
	span    map[*hlo.Computation][2]int
	callers map[*hlo.Computation][]*step
	// asyncOf maps a computation run by an async op to the async ops
	// calling it (their done ends its values' lives).
	asyncOf map[*hlo.Computation]*hlo.Computation
	order   string

	values []*hloValue
	// parent is the union-find of values into buffers; buffers lists each
	// buffer's values, bufOf each value's buffer.
	parent  []int32
	buffers [][]int32
	bufOf   []int32
}

// newLiveness flattens the schedule from entry and computes the values,
// their uses and buffers, and their live ranges.
func newLiveness(m *hlo.Module, entry *hlo.Computation, t Target, costs func(*hlo.Instruction) []ArrayCost) (*liveness, error) {
	lv := &liveness{m: m, entry: entry, t: t, costs: costs, steps: map[*hlo.Instruction]*step{},
		span: map[*hlo.Computation][2]int{}, callers: map[*hlo.Computation][]*step{}, asyncOf: map[*hlo.Computation]*hlo.Computation{}}
	if entry == m.Entry {
		var err error
		if lv.aliases, err = m.InputOutputAliases(); err != nil {
			return nil, err
		}
	}
	if flat, orig := flatCallGraph(entry); orig != nil {
		lv.entry, lv.orig = flat, orig
		lv.costs = func(in *hlo.Instruction) []ArrayCost {
			if o := orig[in]; o != nil {
				in = o
			}
			return costs(in)
		}
	}
	if err := lv.flatten(lv.entry, nil); err != nil {
		return nil, err
	}
	lv.define()
	lv.propagate()
	lv.positionsAndUses()
	lv.rawRanges()
	lv.groupBuffers()
	lv.collectBuffers()
	lv.normalize(lv.buffers)
	return lv, nil
}

// collectBuffers lists the values of each buffer (in id order) and each
// value's buffer.
func (lv *liveness) collectBuffers() {
	lv.bufOf = make([]int32, len(lv.values))
	index := map[int32]int32{}
	for id := range lv.values {
		r := lv.find(int32(id))
		b, ok := index[r]
		if !ok {
			b = int32(len(lv.buffers))
			index[r] = b
			lv.buffers = append(lv.buffers, nil)
		}
		lv.buffers[b] = append(lv.buffers[b], int32(id))
		lv.bufOf[id] = b
	}
}

// order returns the instruction order of c: the text order when the
// module is scheduled, else a stable topological order (the text order
// when it is one already).
func (lv *liveness) orderOf(c *hlo.Computation) ([]*hlo.Instruction, error) {
	if lv.m.IsScheduled() {
		lv.order = "schedule"
		return c.Instructions, nil
	}
	if lv.order == "" {
		lv.order = "topological"
	}
	if inDefinitionOrder(c) {
		return c.Instructions, nil
	}
	d, err := graph.NewDAG(c)
	if err != nil {
		return nil, err
	}
	return d.TopoOrder()
}

// inDefinitionOrder reports whether every operand and control predecessor
// of c's instructions comes before its user in c.Instructions (whose Index
// fields must be their positions).
func inDefinitionOrder(c *hlo.Computation) bool {
	before := func(op *hlo.Instruction, i int) bool {
		return op.Parent == c && op.Index < i && c.Instructions[op.Index] == op
	}
	for i, in := range c.Instructions {
		for _, op := range in.Operands {
			if !before(op, i) {
				return false
			}
		}
		for _, op := range in.ControlPredecessors {
			if !before(op, i) {
				return false
			}
		}
	}
	return true
}

// flatten appends c's instructions to the schedule as XLA's HloLiveRange
// does in module scope: a call's or conditional's computations run just
// before it, a while's condition then body, an async op's computation
// before its start. Each computation is flattened once, at its first
// call. async is the async computation c runs in, if any.
func (lv *liveness) flatten(c *hlo.Computation, async *hlo.Computation) error {
	if _, done := lv.span[c]; done {
		return nil
	}
	lv.span[c] = [2]int{len(lv.seq), -1} // mark: recursion guard
	if async != nil {
		lv.asyncOf[c] = async
	}
	for i, in := range c.Instructions {
		in.Index = i
	}
	order, err := lv.orderOf(c)
	if err != nil {
		return err
	}
	start := len(lv.seq)
	for _, in := range order {
		if err := lv.flattenCallees(in, async); err != nil {
			return err
		}
		st := &step{in: in, time: len(lv.seq), nodes: preorder(&in.Shape)}
		lv.steps[in] = st
		lv.seq = append(lv.seq, st)
	}
	lv.span[c] = [2]int{start, len(lv.seq)}
	return nil
}

func (lv *liveness) flattenCallees(in *hlo.Instruction, async *hlo.Computation) error {
	var callees []*hlo.Computation
	switch in.Opcode {
	case hlo.OpCall, hlo.OpConditional:
		callees = in.Called
	case hlo.OpWhile:
		callees = []*hlo.Computation{calledBy(in, "condition"), calledBy(in, "body")}
	case hlo.OpAsyncStart, hlo.OpAsyncUpdate, hlo.OpAsyncDone:
		// An async op's computation runs before the first op of the chain
		// that binds all its operands and its result (XLA's
		// IsFirstFullyBound).
		if c := asyncComputation(in); c != nil && fullyBound(in, c) {
			return lv.flatten(c, c)
		}
	}
	for _, c := range callees {
		if c == nil {
			continue
		}
		if err := lv.flatten(c, async); err != nil {
			return err
		}
	}
	return nil
}

// asyncComputation is the computation an async op runs: its calls=, else
// that of the async-start its chain begins with.
func asyncComputation(in *hlo.Instruction) *hlo.Computation {
	for range 1 << 10 {
		if len(in.Called) > 0 {
			return in.Called[0]
		}
		if in.Opcode == hlo.OpAsyncStart || len(in.Operands) == 0 {
			return nil
		}
		in = in.Operands[0]
	}
	return nil
}

// fullyBound reports whether an async op's result names all of its
// computation's operands ({0}) and its result ({1}); an async-done always
// does.
func fullyBound(in *hlo.Instruction, c *hlo.Computation) bool {
	if in.Opcode == hlo.OpAsyncDone {
		return true
	}
	ops, ok1 := in.Shape.Subshape([]int64{0})
	res, ok2 := in.Shape.Subshape([]int64{1})
	if !ok1 || !ok2 || len(ops.Tuple) != len(c.Params) || c.Root == nil {
		return false
	}
	return !res.IsTuple() || len(res.Tuple) > 0 || c.Root.Shape.IsTuple() && len(c.Root.Shape.Tuple) == 0
}

// stepOf returns the schedule step of in, nil when in is not scheduled.
func (lv *liveness) stepOf(in *hlo.Instruction) *step {
	if in == nil {
		return nil
	}
	return lv.steps[in]
}

// define creates the values each scheduled instruction defines and records
// the control-flow callers of each scheduled computation.
func (lv *liveness) define() {
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
	v := &hloValue{def: st, node: n, cost: cost}
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
	id := int32(len(lv.values))
	lv.values = append(lv.values, v)
	st.defs[n] = id
	st.sets[n] = []int32{id}
	return id
}

// PointerBytes is the size of one entry of a tuple's index table: a tuple
// buffer holds a pointer to each element (XLA's ShapeUtil::ByteSizeOf with
// 8-byte pointers).
const PointerBytes = 8

// propagate computes, for every node that no instruction defines, the
// values that flow there (from an operand, a called computation's root or
// a caller's operand), repeating until nothing changes: a while loop's
// body feeds its own parameter.
func (lv *liveness) propagate() {
	for range 64 {
		changed := false
		for _, st := range lv.seq {
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
	for _, st := range lv.seq {
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
			for n, set := range os.sets {
				if !mayUse(st.in, os.nodes[n].path) {
					continue
				}
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
