package layoutassign

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hlo-opt/hlo-opt/graph"
	"github.com/hlo-opt/hlo-opt/hlo"
)

// ArrayCost is the memory of one array value: an instruction result, or
// one leaf of a tuple-shaped result.
type ArrayCost struct {
	// Index is the tuple index of the leaf (empty for an array result).
	Index []int64
	// Shape is the leaf shape with its layout.
	Shape hlo.Shape
	// Bytes is the padded size, Unpadded the size of the data.
	Bytes, Unpadded int64
	// Expansion is Bytes / Unpadded (1 for empty arrays).
	Expansion float64
	// Rule is the tiling rule that chose the leaf's tiles: the target's
	// rule when the layout's tiles are the ones it chooses, RuleFromLayout
	// when they differ, RuleUntiled when there are none, RuleUnbounded
	// when the array has an unbounded dynamic dimension.
	Rule Rule
	// Unsized marks an array with an unbounded dynamic dimension ("?"):
	// its size is known only at run time, so Bytes and Unpadded are 0 and
	// the totals leave it out.
	Unsized bool
}

// RuleUnbounded marks the cost of an array with an unbounded dynamic
// dimension, whose size no layout can tell before run time.
var RuleUnbounded = Rule{"unbounded-dynamic", "An unbounded dynamic dimension (?): the size is known only at run time, so the array is not counted."}

// RuleTupleTable marks the index table of a tuple-shaped entry result.
var RuleTupleTable = Rule{"tuple-index-table", "The index table of a tuple-shaped result, returned with the outputs: one entry per element, 8 bytes on GPU and CPU, 4 on TPU rounded up to Target.TupleTableAlign."}

// Allocation is one buffer of the entry computation.
type Allocation struct {
	// Instruction defines the buffer; Index is the tuple leaf.
	Instruction *hlo.Instruction
	Index       []int64
	Cost        ArrayCost
	// Kind is "parameter", "output", "parameter, aliased with output",
	// "temporary" or "temporaries of a called computation".
	Kind string
	// Start and End are the first and last steps (positions in the
	// instruction order) at which the buffer is live.
	Start, End int
	// Extra marks the peak temporaries of a computation called at Start
	// (while, call, conditional), Called names it.
	Extra  bool
	Called string
}

// MemoryReport is the offline memory report of a module: every array's
// padded and unpadded size and the tiling rule behind it, and the peak
// memory of the entry computation from a liveness walk.
type MemoryReport struct {
	Target Target
	Module string
	// Arrays maps each instruction to the cost of its array leaves. The
	// costs of equal array shapes share memory: treat them as read-only.
	Arrays map[*hlo.Instruction][]ArrayCost
	// ArrayCount is the number of array values in the module; Bytes and
	// Unpadded sum them over every computation except fused ones (whose
	// values are never materialised).
	ArrayCount      int
	Bytes, Unpadded int64
	// Unsized counts the arrays with unbounded dynamic dimensions, which
	// the totals and the peak leave out.
	Unsized int
	// Entry is the entry computation's name; Order says how its
	// instructions were ordered: "schedule" (the module is_scheduled) or
	// "topological".
	Entry, Order string
	Steps        int
	// ArgumentBytes are the entry parameters; OutputBytes the entry
	// result's buffers, AliasedBytes of which reuse parameter buffers
	// (input_output_alias); TemporaryBytes every other buffer, without
	// reuse.
	ArgumentBytes, OutputBytes, AliasedBytes, TemporaryBytes int64
	// PeakBytes is the most memory live at once, PeakUnpadded its data
	// without padding, at step PeakStep (instruction PeakAt).
	PeakBytes, PeakUnpadded int64
	PeakStep                int
	PeakAt                  string
	// LiveAtPeak are the allocations live at the peak, largest first.
	LiveAtPeak []Allocation
	// Suggestions are layout changes that would cut the padding of the
	// most padded arrays, most saving first.
	Suggestions []ArraySuggestion
}

// ArraySuggestion is a Suggestion for one array of the module.
type ArraySuggestion struct {
	Instruction string
	Index       []int64
	Suggestion
}

// MaxSuggestions bounds MemoryReport.Suggestions.
const MaxSuggestions = 10

// costOf is the cost of an array leaf as laid out.
func costOf(s hlo.Shape, t Target) (ArrayCost, error) {
	c := ArrayCost{Shape: s}
	if slices.Contains(s.Dims, hlo.UnboundedDim) {
		c.Rule, c.Unsized, c.Expansion = RuleUnbounded, true, 1
		return c, nil
	}
	var err error
	if c.Unpadded, err = hlo.UnpaddedBytes(s, t.SizeOptions()); err != nil {
		return c, err
	}
	if c.Bytes, err = paddedBytes(s, t.SizeOptions()); err != nil {
		return c, err
	}
	c.Expansion = expansion(c.Bytes, c.Unpadded)
	c.Rule = RuleUntiled
	if s.Layout != nil && len(s.Layout.Tiles) > 0 {
		tiles, ebits, rule := ChooseTiling(s, t)
		c.Rule = RuleFromLayout
		if slices.EqualFunc(tiles, s.Layout.Tiles, func(a, b hlo.Tile) bool { return slices.Equal(a, b) }) &&
			(ebits == s.Layout.ElementSizeBits || ebits == 0) {
			c.Rule = rule
		}
	} else if _, _, rule := ChooseTiling(s, t); rule == RuleUntiledSubByte && s.Layout != nil && s.Layout.ElementSizeBits > 0 {
		c.Rule = rule
	}
	return c, nil
}

// AnalyzeMemory computes the memory report of a laid-out module on a
// target: the cost of every array value, and the peak of the entry
// computation by a liveness walk over its schedule (the instruction order
// when the module is_scheduled, else a deterministic topological order).
//
// Buffers: every array leaf an instruction defines, except those that
// alias an existing buffer: get-tuple-element, tuple, bitcast,
// optimization barriers and the *-done half of async pairs reuse their
// operand's; a while reuses its init's; dynamic-update-slice, scatter, a
// fusion whose root is one of them, and a custom-call's
// output_to_operand_aliasing update their operand in place when that
// buffer has no later use. Parameters live for the whole computation, as do
// outputs; an output listed in input_output_alias shares its parameter's
// buffer. At a while, call or conditional the callee's own peak of
// temporaries is added.
func AnalyzeMemory(m *hlo.Module, t Target) (*MemoryReport, error) {
	if m == nil || m.Entry == nil {
		return nil, fmt.Errorf("memory: module has no entry computation")
	}
	nInst, nTupleLeaves := 0, 0
	for _, c := range m.Computations {
		nInst += len(c.Instructions)
		for _, in := range c.Instructions {
			if in.Shape.IsTuple() {
				nTupleLeaves += leafCount(&in.Shape)
			}
		}
	}
	r := &MemoryReport{Target: t, Module: m.Name, Arrays: make(map[*hlo.Instruction][]ArrayCost, nInst), Entry: m.Entry.Name}
	fusedComps := map[*hlo.Computation]bool{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == "fusion" {
				for _, f := range in.Called {
					fusedComps[f] = true
				}
			}
		}
	}
	// costs[ci][i] are the costs of instruction i of computation ci (the
	// walks and suggestions read them without map lookups), all carved
	// from one backing array.
	// ids[ci][i] name each cost's class of equal shapes (for suggestions).
	costs := make([][][]ArrayCost, len(m.Computations))
	backing := make([]ArrayCost, 0, nTupleLeaves) // tuple leaves (each with its Index)
	cc := &costCache{}
	for ci, c := range m.Computations {
		fused := fusedComps[c]
		costs[ci] = make([][]ArrayCost, len(c.Instructions))
		for i, in := range c.Instructions {
			in.Index = i
			var own []ArrayCost
			if in.Shape.IsArray() {
				// An array result's cost (Index nil) is shared with every
				// equal shape's: the slices are read-only.
				_, id, err := cc.cost(&in.Shape, t)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", in.Name, err)
				}
				own = cc.distinct[id : id+1 : id+1]
			} else if in.Shape.IsTuple() {
				start := len(backing)
				for _, l := range in.Shape.Leaves() {
					if !l.Shape.IsArray() {
						continue
					}
					ac, _, err := cc.cost(l.Shape, t)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", in.Name, err)
					}
					ac.Index = l.Index
					backing = append(backing, ac)
				}
				own = backing[start:len(backing):len(backing)]
			}
			for k := range own {
				r.ArrayCount++
				if own[k].Unsized {
					r.Unsized++
				}
				if !fused {
					r.Bytes += own[k].Bytes
					r.Unpadded += own[k].Unpadded
				}
			}
			costs[ci][i] = own
			r.Arrays[in] = own
		}
	}
	compIdx := make(map[*hlo.Computation]int, len(m.Computations))
	for ci, c := range m.Computations {
		compIdx[c] = ci
	}
	lv := &liveness{m: m, r: r, t: t, memo: map[*hlo.Computation]int64{}, costs: costs, compIdx: compIdx}
	if err := lv.entry(); err != nil {
		return nil, err
	}
	r.Suggestions = suggestions(m, t, costs, cc)
	return r, nil
}

// costCache memoises costOf. Shapes that share their dims and layout (the
// parser shares equal shape text, Assign equal layouts) hit the first map
// by pointer; the others are looked up by their printed key.
type costCache struct {
	byLayout map[*hlo.Layout][]costPtrEntry
	byKey    map[string]int32
	distinct []ArrayCost
	key      []byte
}

type costPtrEntry struct {
	t    hlo.PrimitiveType
	dims *int64
	n    int
	id   int32
}

func (cc *costCache) cost(s *hlo.Shape, t Target) (ArrayCost, int32, error) {
	if cc.byLayout == nil {
		cc.byLayout, cc.byKey = map[*hlo.Layout][]costPtrEntry{}, map[string]int32{}
	}
	usePtr := s.Layout != nil && len(s.Dims) > 0 && s.Dynamic == nil
	if usePtr {
		for _, e := range cc.byLayout[s.Layout] {
			if e.t == s.Type && e.dims == &s.Dims[0] && e.n == len(s.Dims) {
				return cc.distinct[e.id], e.id, nil
			}
		}
	}
	cc.key = appendCostKey(cc.key[:0], s)
	k, ok := cc.byKey[string(cc.key)]
	if !ok {
		ac, err := costOf(*s, t)
		if err != nil {
			return ac, 0, err
		}
		k = int32(len(cc.distinct))
		cc.distinct = append(cc.distinct, ac)
		cc.byKey[string(cc.key)] = k
	}
	if usePtr {
		cc.byLayout[s.Layout] = append(cc.byLayout[s.Layout], costPtrEntry{s.Type, &s.Dims[0], len(s.Dims), k})
	}
	return cc.distinct[k], k, nil
}

type liveness struct {
	m    *hlo.Module
	r    *MemoryReport
	t    Target
	memo map[*hlo.Computation]int64
	// costs[ci][i] are r.Arrays of instruction i of computation ci.
	costs   [][][]ArrayCost
	compIdx map[*hlo.Computation]int
}

// buffer is one allocation during the walk (its Allocation, built only
// for the report's LiveAtPeak, would be three times its size).
type buffer struct {
	in *hlo.Instruction
	// cost is the defining leaf's cost (its Index the leaf's).
	cost *ArrayCost
	// insts are the other instructions whose values live in this buffer
	// (aliases of in's value).
	insts []*hlo.Instruction
	// called is the computation whose peak temporaries an extra buffer
	// stands for.
	called     *hlo.Computation
	kind       string
	start, end int
	// extra marks such a pseudo-buffer; out the computation's outputs.
	extra, out bool
}

// use records that in's value lives in b.
func (b *buffer) use(in *hlo.Instruction) {
	if in != b.in && (len(b.insts) == 0 || b.insts[len(b.insts)-1] != in) {
		b.insts = append(b.insts, in)
	}
}

func calledName(c *hlo.Computation) string {
	if c == nil {
		return ""
	}
	return c.Name
}

func (b *buffer) alloc() Allocation {
	return Allocation{Instruction: b.in, Index: b.cost.Index, Cost: *b.cost, Kind: b.kind, Start: b.start, End: b.end,
		Extra: b.extra, Called: calledName(b.called)}
}

// order returns the instruction order of c: the text order when the
// module is scheduled, else a stable topological order.
func (lv *liveness) order(c *hlo.Computation) ([]*hlo.Instruction, string, error) {
	if lv.m.IsScheduled() {
		return c.Instructions, "schedule", nil
	}
	if inDefinitionOrder(c) {
		// The text order is already a topological order.
		return c.Instructions, "topological", nil
	}
	d, err := graph.NewDAG(c)
	if err != nil {
		return nil, "", err
	}
	o, err := d.TopoOrder()
	return o, "topological", err
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

type walk struct {
	bufs []*buffer
	// slots holds the buffer of every value (instruction leaf): the
	// leaves of instruction in start at base[in.Index]; step and lastUse
	// are indexed by in.Index too.
	comp    *hlo.Computation
	costs   [][]ArrayCost
	arena   []buffer
	base    []int
	slots   []*buffer
	step    []int
	lastUse []int
	n       int
}

// has reports whether in belongs to the walked computation.
func (w *walk) has(in *hlo.Instruction) bool {
	return in.Parent == w.comp && in.Index >= 0 && in.Index < len(w.base) && w.comp.Instructions[in.Index] == in
}

func (w *walk) slot(in *hlo.Instruction, path []int64) int {
	if !w.has(in) {
		return -1
	}
	b := w.base[in.Index]
	if len(path) == 0 {
		return b
	}
	off, _, ok := leafRange(&in.Shape, path)
	if !ok {
		return -1
	}
	return b + off
}

func (w *walk) get(in *hlo.Instruction, path []int64) *buffer {
	if k := w.slot(in, path); k >= 0 {
		return w.slots[k]
	}
	return nil
}

func (w *walk) set(in *hlo.Instruction, path []int64, b *buffer) {
	k := w.slot(in, path)
	if k < 0 {
		return
	}
	w.slots[k] = b
	if b != nil {
		b.use(in)
	}
}

// futureUse is the last step at which any value in b is read.
func (w *walk) futureUse(b *buffer) int {
	end := -1
	if !b.extra && b.in != nil && w.has(b.in) {
		end = max(w.lastUse[b.in.Index], w.step[b.in.Index])
	}
	for _, in := range b.insts {
		if w.has(in) {
			end = max(end, w.lastUse[in.Index], w.step[in.Index])
		}
	}
	return end
}

// run walks computation c and returns its buffers (parameters included).
func (lv *liveness) run(c *hlo.Computation) (*walk, error) {
	for i, in := range c.Instructions {
		in.Index = i // keep the derived field right for the lookups below
	}
	order, how, err := lv.order(c)
	if err != nil {
		return nil, err
	}
	if c == lv.m.Entry {
		lv.r.Order = how
	}
	n := len(c.Instructions)
	w := &walk{comp: c, base: make([]int, n), step: make([]int, n), lastUse: make([]int, n), n: len(order),
		costs: lv.costs[lv.compIdx[c]]}
	total, arrays := 0, 0
	for i, in := range order {
		w.step[in.Index] = i
		w.base[in.Index] = total
		total += leafCount(&in.Shape)
		arrays += len(w.costs[in.Index])
	}
	w.slots = make([]*buffer, total)
	w.arena = make([]buffer, arrays)
	w.bufs = make([]*buffer, 0, arrays)
	for i, in := range order {
		for _, op := range in.Operands {
			if w.has(op) {
				w.lastUse[op.Index] = max(w.lastUse[op.Index], i)
			}
		}
	}
	for i, in := range order {
		lv.define(w, in, i)
	}
	return w, nil
}

// define gives every array leaf of in a buffer: an alias of an operand's
// or a new allocation.
func (lv *liveness) define(w *walk, in *hlo.Instruction, step int) {
	// aliasRange makes the n leaves of in from leaf inOff share the
	// buffers of op's leaves from opOff; false if op has none there.
	aliasRange := func(inOff int, op *hlo.Instruction, opOff, n int) bool {
		if !w.has(in) || !w.has(op) {
			return false
		}
		ib, ob := w.base[in.Index], w.base[op.Index]
		any := false
		for k := range n {
			if b := w.slots[ob+opOff+k]; b != nil {
				w.slots[ib+inOff+k] = b
				b.use(in)
				any = true
			}
		}
		return any
	}
	aliasPath := func(op *hlo.Instruction, path []int64) bool {
		off, n, ok := leafRange(&op.Shape, path)
		return ok && n == leafCount(&in.Shape) && aliasRange(0, op, off, n)
	}
	inPlace := func(op *hlo.Instruction) bool {
		b := w.get(op, nil)
		if b == nil || b.kind == "parameter" || op.IsRoot() {
			return false
		}
		if w.futureUse(b) > step {
			return false
		}
		w.set(in, nil, b)
		return true
	}
	switch {
	case in.Opcode == "get-tuple-element" && len(in.Operands) == 1:
		aliasPath(in.Operands[0], []int64{tupleIndex(in)})
		return
	case in.Opcode == "tuple":
		off := 0
		for _, op := range in.Operands {
			n := leafCount(&op.Shape)
			aliasRange(off, op, 0, n)
			off += n
		}
		return
	case (in.Opcode == "bitcast" || in.Opcode == "opt-barrier" || in.Opcode == "optimization-barrier" ||
		in.Opcode == "while" || in.Opcode == "add-dependency" || in.Opcode == "domain") && len(in.Operands) > 0:
		if aliasPath(in.Operands[0], nil) {
			return
		}
	case strings.HasSuffix(string(in.Opcode), "-done") && len(in.Operands) == 1:
		op := in.Operands[0]
		k := int64(1)
		if in.Opcode == "copy-done" {
			k = 0
		}
		if sub, ok := op.Shape.Subshape([]int64{k}); ok && op.Shape.IsTuple() && sub.EqualIgnoringLayout(in.Shape) {
			aliasPath(op, []int64{k})
			return
		}
		if !op.Shape.IsTuple() && aliasPath(op, nil) {
			return
		}
	case (in.Opcode == "dynamic-update-slice" || in.Opcode == "scatter") && len(in.Operands) > 0 && in.Shape.IsArray():
		if inPlace(in.Operands[0]) {
			return
		}
	case in.Opcode == "fusion" && in.Shape.IsArray() && len(in.Called) > 0:
		if root := in.Called[0].Root; root != nil && (root.Opcode == "dynamic-update-slice" || root.Opcode == "scatter") &&
			len(root.Operands) > 0 && root.Operands[0].Opcode == "parameter" {
			if k := root.Operands[0].ParameterNumber; k >= 0 && k < len(in.Operands) && inPlace(in.Operands[k]) {
				return
			}
		}
	case in.Opcode == "custom-call" && in.Shape.IsArray():
		if v, ok := in.Attr("output_to_operand_aliasing"); ok {
			if k, ok := aliasedOperand(v); ok && k < len(in.Operands) && inPlace(in.Operands[k]) {
				return
			}
		}
	}
	kind := "temporary"
	if in.Opcode == "parameter" {
		kind = "parameter"
	}
	costs := w.costs[in.Index]
	if len(costs) == 0 || !w.has(in) {
		return
	}
	base := w.base[in.Index]
	// slots holds every leaf, costs only the array leaves, both in leaf
	// order: walk the leaves to pair them.
	k := 0
	forEachLeaf(&in.Shape, func(leaf int, s *hlo.Shape) {
		if !s.IsArray() || k == len(costs) {
			return
		}
		cost := &costs[k]
		k++
		slot := base + leaf
		if w.slots[slot] != nil {
			return
		}
		if len(w.arena) == 0 {
			w.arena = make([]buffer, 128)
		}
		b := &w.arena[0]
		w.arena = w.arena[1:]
		*b = buffer{in: in, cost: cost, kind: kind, start: step, end: step}
		w.bufs = append(w.bufs, b)
		w.slots[slot] = b
	})
}

// forEachLeaf calls f with the number (in leaf order) and shape of every
// leaf of s (s itself when it is not a tuple).
func forEachLeaf(s *hlo.Shape, f func(leaf int, s *hlo.Shape)) {
	n := 0
	var walk func(s *hlo.Shape)
	walk = func(s *hlo.Shape) {
		if !s.IsTuple() {
			f(n, s)
			n++
			return
		}
		for i := range s.Tuple {
			walk(&s.Tuple[i])
		}
	}
	walk(s)
}

// aliasedOperand reads the operand number of the first entry of
// output_to_operand_aliasing={{}: (0, {})}.
func aliasedOperand(v string) (int, bool) {
	i := strings.Index(v, "(")
	if i < 0 {
		return 0, false
	}
	var k int
	if _, err := fmt.Sscanf(v[i+1:], "%d", &k); err != nil {
		return 0, false
	}
	return k, true
}

// finish sets each buffer's live range: from its definition (parameters
// from step 0) to its last use, or to the end for outputs and parameters.
func (lv *liveness) finish(c *hlo.Computation, w *walk) {
	last := max(w.n-1, 0)
	if c.Root != nil && w.has(c.Root) {
		base := w.base[c.Root.Index]
		for k := range leafCount(&c.Root.Shape) {
			if b := w.slots[base+k]; b != nil {
				b.out = true
			}
		}
	}
	for _, b := range w.bufs {
		b.end = max(b.end, w.futureUse(b))
		if b.kind == "parameter" {
			b.start, b.end = 0, last
		}
		if b.out {
			b.end = last
			if b.kind == "parameter" {
				b.kind = "parameter, returned as output"
			} else {
				b.kind = "output"
			}
		}
	}
}

// calleePeak is the peak of a called computation's own temporaries: its
// buffers other than parameters (which the caller's operands provide).
func (lv *liveness) calleePeak(c *hlo.Computation, depth int) (int64, error) {
	if v, ok := lv.memo[c]; ok {
		return v, nil
	}
	lv.memo[c] = 0 // recursion guard
	if depth > 32 {
		return 0, nil
	}
	w, err := lv.run(c)
	if err != nil {
		return 0, err
	}
	lv.finish(c, w)
	var bufs []*buffer
	for _, b := range w.bufs {
		if b.kind == "temporary" || b.kind == "output" {
			bufs = append(bufs, b)
		}
	}
	extra, err := lv.extras(c, w, depth)
	if err != nil {
		return 0, err
	}
	peak, _ := sweep(append(bufs, extra...), w.n)
	lv.memo[c] = peak
	return peak, nil
}

// extras are pseudo-buffers for the temporaries of computations called by
// while, call and conditional instructions of c.
func (lv *liveness) extras(c *hlo.Computation, w *walk, depth int) ([]*buffer, error) {
	var out []*buffer
	for _, in := range c.Instructions {
		if in.Opcode != "while" && in.Opcode != "call" && in.Opcode != "conditional" {
			continue
		}
		var best int64
		var called *hlo.Computation
		for _, callee := range in.Called {
			p, err := lv.calleePeak(callee, depth+1)
			if err != nil {
				return nil, err
			}
			if p > best {
				best, called = p, callee
			}
		}
		if best > 0 {
			s := w.step[in.Index]
			out = append(out, &buffer{in: in, kind: "temporaries of a called computation",
				cost: &ArrayCost{Bytes: best, Unpadded: best, Expansion: 1}, start: s, end: s, extra: true, called: called})
		}
	}
	return out, nil
}

// sweep returns the peak of the buffers' total size over the steps and the
// first step where it is reached.
func sweep(bufs []*buffer, n int) (int64, int) {
	delta := make([]int64, n+1)
	for _, b := range bufs {
		if b.start < 0 || b.start > n-1 {
			continue
		}
		delta[b.start] += b.cost.Bytes
		delta[min(b.end, n-1)+1] -= b.cost.Bytes
	}
	var cur, peak int64
	at := 0
	for s := 0; s < n; s++ {
		cur += delta[s]
		if cur > peak {
			peak, at = cur, s
		}
	}
	return peak, at
}

// entry walks the entry computation and fills the report's totals and
// peak.
func (lv *liveness) entry() error {
	c := lv.m.Entry
	w, err := lv.run(c)
	if err != nil {
		return err
	}
	lv.finish(c, w)
	r := lv.r
	r.Steps = w.n
	aliases, err := lv.m.InputOutputAliases()
	if err != nil {
		return err
	}
	for _, a := range aliases {
		if c.Root == nil || int(a.ParamNumber) >= len(c.Params) || c.Params[a.ParamNumber] == nil {
			continue
		}
		out, param := w.get(c.Root, a.OutputIndex), w.get(c.Params[a.ParamNumber], a.ParamIndex)
		if out == nil || param == nil || out == param {
			continue
		}
		// The output is written into the donated parameter's buffer.
		out.kind = "output, aliased with parameter"
		param.kind = "parameter, aliased with output"
		r.AliasedBytes += out.cost.Bytes
	}
	live := make([]*buffer, 0, len(w.bufs))
	for _, b := range w.bufs {
		switch {
		case strings.HasPrefix(b.kind, "parameter"):
			r.ArgumentBytes += b.cost.Bytes
		case strings.HasPrefix(b.kind, "output"):
			r.OutputBytes += b.cost.Bytes
		default:
			r.TemporaryBytes += b.cost.Bytes
		}
		if b.kind == "parameter, returned as output" {
			r.OutputBytes += b.cost.Bytes
		}
		if b.kind == "output, aliased with parameter" {
			continue // lives in the parameter's buffer
		}
		live = append(live, b)
	}
	if c.Root != nil && c.Root.Shape.IsTuple() && w.n > 0 {
		// A tuple-shaped result is returned through its index table, a
		// buffer of its own that XLA counts among the outputs.
		table := tupleTables(&c.Root.Shape, lv.t)
		r.OutputBytes += table
		live = append(live, &buffer{in: c.Root, kind: "output", out: true,
			cost:  &ArrayCost{Shape: c.Root.Shape, Bytes: table, Unpadded: table, Expansion: 1, Rule: RuleTupleTable},
			start: w.n - 1, end: w.n - 1})
	}
	extra, err := lv.extras(c, w, 0)
	if err != nil {
		return err
	}
	live = append(live, extra...)
	r.PeakBytes, r.PeakStep = sweep(live, w.n)
	for _, in := range c.Instructions {
		if w.n > 0 && w.step[in.Index] == r.PeakStep {
			r.PeakAt = in.Name
		}
	}
	var atPeak []*buffer
	for _, b := range live {
		if b.start <= r.PeakStep && r.PeakStep <= b.end && b.cost.Bytes > 0 {
			atPeak = append(atPeak, b)
			r.PeakUnpadded += b.cost.Unpadded
		}
	}
	// Largest first, then earliest; ties keep the walk's order (the
	// position makes the order total, so an unstable sort is stable).
	type ranked struct {
		bytes      int64
		start, pos int
		b          *buffer
	}
	rk := make([]ranked, len(atPeak))
	for i, b := range atPeak {
		rk[i] = ranked{b.cost.Bytes, b.start, i, b}
	}
	slices.SortFunc(rk, func(x, y ranked) int {
		if x.bytes != y.bytes {
			return cmp.Compare(y.bytes, x.bytes)
		}
		if x.start != y.start {
			return cmp.Compare(x.start, y.start)
		}
		return cmp.Compare(x.pos, y.pos)
	})
	r.LiveAtPeak = make([]Allocation, len(rk))
	for i, x := range rk {
		r.LiveAtPeak[i] = x.b.alloc()
	}
	return nil
}

// tupleTables is the size of the index tables of a tuple shape and of the
// tuples nested in it.
func tupleTables(s *hlo.Shape, t Target) int64 {
	if !s.IsTuple() {
		return 0
	}
	n := t.TupleTableBytes(len(s.Tuple))
	for i := range s.Tuple {
		n += tupleTables(&s.Tuple[i], t)
	}
	return n
}

// suggestions proposes layout changes for the arrays whose padding wastes
// the most memory, one per array, best saving first.
func suggestions(m *hlo.Module, t Target, costs [][][]ArrayCost, cc *costCache) []ArraySuggestion {
	type cand struct {
		in    *hlo.Instruction
		ac    *ArrayCost
		waste int64
	}
	var cands []cand
	seen := map[int32]bool{}
	for ci, c := range m.Computations {
		for i, in := range c.Instructions {
			if in.Opcode == "get-tuple-element" || in.Opcode == "tuple" || in.Opcode == "bitcast" {
				continue
			}
			for k := range costs[ci][i] {
				ac := &costs[ci][i][k]
				if ac.Expansion <= SuggestThreshold {
					continue
				}
				// Equal shapes are one candidate (their cost class).
				if _, id, _ := cc.cost(&ac.Shape, t); !seen[id] {
					seen[id] = true
					cands = append(cands, cand{in, ac, ac.Bytes - ac.Unpadded})
				}
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(b.waste, a.waste) })
	var out []ArraySuggestion
	for k, cd := range cands {
		if len(out) == MaxSuggestions || k == 2*MaxSuggestions {
			break
		}
		ac := cd.ac
		if ss := Suggest(ac.Shape, t); len(ss) > 0 {
			out = append(out, ArraySuggestion{Instruction: cd.in.Name, Index: ac.Index, Suggestion: ss[0]})
		}
	}
	return out
}

// appendCostKey appends to b what identifies an array's cost: its type,
// dims and layout.
func appendCostKey(b []byte, s *hlo.Shape) []byte {
	b = append(b, byte(s.Type))
	for _, d := range s.Dims {
		b = strconv.AppendInt(b, d, 10)
		b = append(b, ',')
	}
	for i := range s.Dims {
		if s.IsDynamicDim(i) {
			b = strconv.AppendInt(append(b, 'D'), int64(i), 10)
		}
	}
	if l := s.Layout; l != nil {
		if l.DimLevelTypes != "" || l.TailPaddingAlignment > 1 || l.PhysicalShape != nil || l.SplitConfigs != "" ||
			l.DynamicShapeMetadataPrefixBytes != 0 || l.IndexType != hlo.Invalid || l.PointerType != hlo.Invalid {
			return append(b, s.String()...)
		}
		b = append(b, '{')
		for _, d := range l.MinorToMajor {
			b = strconv.AppendInt(b, d, 10)
			b = append(b, ',')
		}
		for _, t := range l.Tiles {
			b = append(b, '(')
			for _, d := range t {
				b = strconv.AppendInt(b, d, 10)
				b = append(b, ',')
			}
		}
		b = strconv.AppendInt(append(b, 'E'), l.ElementSizeBits, 10)
		b = strconv.AppendInt(append(b, 'S'), l.MemorySpace, 10)
	}
	return b
}
