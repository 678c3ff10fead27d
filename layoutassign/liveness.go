package layoutassign

import (
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

	// seq is the flattened schedule, its steps by time; steps[c][i] is the
	// time of the instruction at index i of computation c (see stepOf).
	// Steps are named by their time, not by pointers, so that the
	// collector has fewer pointers to follow in every cycle.
	seq   []step
	steps map[*hlo.Computation][]int32
	// entrySteps are steps[entry], where most lookups go.
	entrySteps []int32
	// span is each scheduled computation's [start, end) in seq; callers
	// lists the control-flow instructions calling it.
	span    map[*hlo.Computation][2]int
	callers map[*hlo.Computation][]*step
	// asyncOf maps a computation run by an async op to the async ops
	// calling it (their done ends its values' lives).
	asyncOf map[*hlo.Computation]*hlo.Computation
	order   string
	// summary makes the spaces' reports hold their figures and the
	// allocations live at their peaks only (Options.Summary).
	summary bool

	// values are the values by id; valueCosts their arrays' costs (nil
	// for a tuple table or token). positions and uses hold the spans of
	// every value's positions and uses, in id order.
	values     []hloValue
	valueCosts []*ArrayCost
	positions  []position
	uses       []use
	// parent is the union-find of values into buffers; buffers lists each
	// buffer's values, bufOf each value's buffer.
	parent  unionFind[int32]
	buffers [][]int32
	bufOf   []int32
}

// newLiveness flattens the schedule from entry and computes the values,
// their uses and buffers, and their live ranges.
func newLiveness(m *hlo.Module, entry *hlo.Computation, t Target, costs func(*hlo.Instruction) []ArrayCost) (*liveness, error) {
	lv := &liveness{m: m, entry: entry, t: t, costs: costs, steps: map[*hlo.Computation][]int32{},
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
	n := len(lv.entry.Instructions)
	for _, c := range m.Computations {
		if c != m.Entry {
			n += len(c.Instructions)
		}
	}
	lv.seq = make([]step, 0, n) // enough unless the call graph was flattened into copies
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
	n := len(lv.values)
	lv.bufOf = make([]int32, n)
	index := make([]int32, n)    // a root value -> its buffer, plus one
	count := make([]int32, 0, n) // each buffer's values
	for id := range lv.values {
		r := lv.find(int32(id))
		if index[r] == 0 {
			count = append(count, 0)
			index[r] = int32(len(count))
		}
		b := index[r] - 1
		count[b]++
		lv.bufOf[id] = b
	}
	// The buffers' lists are carved from one array.
	backing := make([]int32, n)
	lv.buffers = make([][]int32, len(count))
	off := int32(0)
	for b, c := range count {
		lv.buffers[b] = backing[off : off : off+c]
		off += c
	}
	for id, b := range lv.bufOf {
		lv.buffers[b] = append(lv.buffers[b], int32(id))
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
	steps := make([]int32, len(c.Instructions))
	for i := range steps {
		steps[i] = -1
	}
	lv.steps[c] = steps
	if c == lv.entry {
		lv.entrySteps = steps
	}
	// The one node of each array-shaped instruction is carved from one
	// array (preorder allocates a list for each).
	arrays := 0
	for _, in := range order {
		if !in.Shape.IsTuple() {
			arrays++
		}
	}
	leaves := make([]shapeNode, arrays)
	for _, in := range order {
		if err := lv.flattenCallees(in, async); err != nil {
			return err
		}
		var nodes []shapeNode
		if in.Shape.IsTuple() {
			nodes = preorder(&in.Shape)
		} else {
			nodes, leaves = leaves[:1:1], leaves[1:]
			nodes[0] = shapeNode{shape: &in.Shape, end: 1}
		}
		steps[in.Index] = int32(len(lv.seq))
		lv.seq = append(lv.seq, step{in: in, time: len(lv.seq), nodes: nodes})
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
	// A slice per computation, indexed by the instruction's index (which
	// flatten sets), is much cheaper to search than one map of every
	// instruction of a long entry.
	s := lv.entrySteps
	if in.Parent != lv.entry {
		s = lv.steps[in.Parent]
	}
	if uint(in.Index) < uint(len(s)) && s[in.Index] >= 0 && lv.seq[s[in.Index]].in == in {
		return &lv.seq[s[in.Index]]
	}
	return nil
}
