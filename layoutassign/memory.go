package layoutassign

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"strconv"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// ArrayCost is the memory of one array value: an instruction result, or
// one leaf of a tuple-shaped result.
type ArrayCost struct {
	// Index is the tuple index of the leaf (empty for an array result).
	Index []int64
	// Shape is the leaf shape with its layout: the instruction's own (or
	// an equal one's, for costs shared by equal shapes). Treat it as
	// read-only.
	Shape *hlo.Shape
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

// Allocation is one buffer live at the peak: the value that defines it
// (an instruction's result or one leaf or tuple table of it) and its
// kind.
type Allocation struct {
	// Instruction defines the buffer; Index is the tuple leaf.
	Instruction *hlo.Instruction
	Index       []int64
	// Cost is the defining value's cost; Cost.Bytes the buffer's size.
	Cost ArrayCost
	// Kind is XLA's allocation kind: "parameter", "parameter,
	// maybe-live-out", "constant", "maybe-live-out" or
	// "preallocated-temp".
	Kind string
	// Start and End are the first and last steps of the flattened
	// schedule at which the buffer holds memory as the space's Timeline
	// counts it: the whole program for an allocation of its own (a
	// parameter, constant or output), for a temporary the steps at whose
	// fullest moment it is live (see Buffer).
	Start, End int
}

// MemoryReport is the offline memory report of a module: every array's
// padded and unpadded size and the tiling rule behind it, and the buffer
// assignment of the entry computation as XLA computes it (see
// AnalyzeMemory).
type MemoryReport struct {
	Target Target
	Module string
	// arrays[ci][i] are the costs of the array leaves of instruction
	// insts[ci][i], the instructions of computation ci as they were when
	// the module was analysed (comps finds ci): see ArraysOf and Arrays.
	arrays [][][]ArrayCost
	insts  [][]*hlo.Instruction
	comps  map[*hlo.Computation]int
	// ArrayCount is the number of array values in the module; Bytes and
	// Unpadded sum them over every computation except fused ones (whose
	// values are never materialised).
	ArrayCount      int
	Bytes, Unpadded int64
	// Unsized counts the arrays with unbounded dynamic dimensions, which
	// the totals and the peak leave out.
	Unsized int
	// Entry is the entry computation's name ("" when the module has none:
	// a truncated text that lost it; Computations then reports each
	// computation). Order says how instructions were ordered: "schedule"
	// (the module is_scheduled) or "topological"; Steps counts the
	// flattened schedule (the entry with the computations it calls).
	Entry, Order string
	Steps        int
	// Stats are XLA's BufferAssignment stats over all memory spaces.
	Stats BufferStats
	// Spaces are the memory spaces, by number; Spaces[0] is HBM (S(0)),
	// whose figures the fields below repeat.
	Spaces []SpaceReport
	// ArgumentBytes, OutputBytes, AliasedBytes and TemporaryBytes are
	// XLA's memory_analysis argument, output, alias and temp sizes in HBM.
	ArgumentBytes, OutputBytes, AliasedBytes, TemporaryBytes int64
	// PeakBytes is the most HBM live at once (XLA's peak_memory_in_bytes),
	// PeakUnpadded its data without padding, first reached at step
	// PeakStep (instruction PeakAt).
	PeakBytes, PeakUnpadded int64
	PeakStep                int
	PeakAt                  string
	// LiveAtPeak are the HBM allocations live at the peak, largest first.
	LiveAtPeak []Allocation
	// XLAPeakBytes is the peak as XLA's memory_analysis() reports it
	// (ComputePeakMemory): the parameters, constants (those of the
	// computations called per element too) and outputs of every memory
	// space plus the largest peak of one space's temporaries, as XLA
	// replays the heap trace of each space. It is PeakBytes when
	// everything is in HBM; on the TPU it may count VMEM. On the CPU it
	// has no temporaries: XLA's CPU client computes it from a buffer
	// assignment without heap-simulator traces, so it is the arguments,
	// outputs (less the aliased) and constants, as on every CPU compile of
	// testdata/groundtruth. On the TPU two traces differ from the heap
	// replay: the heap simulator's trace leaves the tuples' index tables
	// out (the TPU places them in the temp allocation outside it), and the
	// alternate memory's (VMEM, Target.AlternateSpace) is the one
	// memory-space assignment exports, which counts every value on its own
	// from its definition to its last use (see liveness.alternatePeak).
	// Both read off the traces of the xla-diff compiles dumped as protos
	// (testdata/xladiff/gen/traces.py); with them and the TPU's
	// allocation rules (see AnalyzeMemory) the TPU peaks of
	// testdata/groundtruth are exact on 138 of 138 (124 counting VMEM
	// values to the end of their live ranges and tuple tables in HBM),
	// those of the xla-diff seeds 1000-1139, 5000-5299 and 6000-6299 on
	// v5e, v6e and v4 on 100% (97.0% on 5000-5299, 93.3% on 6000-6299).
	XLAPeakBytes int64
	// elementConstBytes are the constants of the computations called per
	// element, which XLAPeakBytes counts with HBM's.
	elementConstBytes int64
	// Computations, when the module has no entry computation, report each
	// computation no other calls, as if it were the entry, largest peak
	// first (then in module order).
	Computations []ComputationPeak
	// Suggestions are layout changes that would cut the padding of the
	// most padded arrays, most saving first.
	Suggestions []ArraySuggestion
}

// ArraysOf returns the cost of each array leaf of in's result (one for an
// array, none for a token or an instruction of another module). The costs
// of equal array shapes share memory: treat them as read-only.
func (r *MemoryReport) ArraysOf(in *hlo.Instruction) []ArrayCost {
	ci, ok := r.comps[in.Parent]
	if !ok {
		return nil
	}
	insts := r.insts[ci]
	i := in.Index
	if uint(i) >= uint(len(insts)) || insts[i] != in {
		// The instruction moved since the analysis (or was not there).
		if i = slices.Index(insts, in); i < 0 {
			return nil
		}
	}
	return r.arrays[ci][i]
}

// Arrays yields every instruction of the module with the costs of its
// array leaves (see ArraysOf), in module order.
func (r *MemoryReport) Arrays() iter.Seq2[*hlo.Instruction, []ArrayCost] {
	return func(yield func(*hlo.Instruction, []ArrayCost) bool) {
		for ci, insts := range r.insts {
			for i, in := range insts {
				if !yield(in, r.arrays[ci][i]) {
					return
				}
			}
		}
	}
}

// ComputationPeak is the HBM peak of one computation analysed as if it
// were the entry (its parameters the arguments, its root the output).
type ComputationPeak struct {
	Computation                                           string
	Steps                                                 int
	ArgumentBytes, OutputBytes, TemporaryBytes, PeakBytes int64
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
func costOf(sp *hlo.Shape, t Target) (ArrayCost, error) {
	s := *sp
	c := ArrayCost{Shape: sp}
	if slices.Contains(s.Dims, hlo.UnboundedDim) {
		c.Rule, c.Unsized, c.Expansion = RuleUnbounded, true, 1
		return c, nil
	}
	if inVectorRegisters(s, t) {
		return vregCost(sp, t)
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

// vregElements is the size of a TPU vector register in elements (8
// sublanes of 128 lanes; 4 KiB of 32-bit words).
const vregElements = 1024

// inVectorRegisters reports whether the TPU keeps an array of this layout
// in vector registers (RuleTPUVectorRegisters): an untiled layout in
// memory space S(4) or S(6). Values without any layout in a laid-out
// module are the other case; costCache.unlaidInVregs decides those.
func inVectorRegisters(s hlo.Shape, t Target) bool {
	l := s.Layout
	return t.Backend == BackendTPU && l != nil && len(l.Tiles) == 0 && (l.MemorySpace == 4 || l.MemorySpace == 6)
}

// vregCost is the cost of an array kept in vector registers: its elements
// rounded up to whole registers.
func vregCost(sp *hlo.Shape, t Target) (ArrayCost, error) {
	s := *sp
	c := ArrayCost{Shape: sp, Rule: RuleTPUVectorRegisters}
	var err error
	if c.Unpadded, err = hlo.UnpaddedBytes(s, t.SizeOptions()); err != nil {
		return c, err
	}
	elems, ok := hlo.MulInt64(ceilDiv(s.ElementCount(), vregElements), vregElements)
	bits, ok2 := hlo.MulInt64(elems, t.SizeOptions().ElementBits(s))
	if !ok || !ok2 {
		return c, fmt.Errorf("shape %s: size in bits %w", s.String(), hlo.ErrOverflow)
	}
	c.Bytes = ceilDiv(bits, 8)
	c.Expansion = expansion(c.Bytes, c.Unpadded)
	return c, nil
}

// laidOut reports whether some layout of m has tiles: a TPU module after
// XLA's layout assignment, whose values without a layout XLA keeps in
// vector registers.
func laidOut(m *hlo.Module) bool {
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			for _, l := range in.Shape.Leaves() {
				if l.Shape.Layout != nil && len(l.Shape.Layout.Tiles) > 0 {
					return true
				}
			}
		}
	}
	return false
}

// AnalyzeMemory computes the memory report of a laid-out module on a
// target: the cost of every array value, and the buffer assignment of the
// entry computation as XLA's BufferAssigner computes it, in its three
// steps.
//
// Schedule (xla/hlo/utils/hlo_live_range.cc). The entry's instructions in
// order (the text order when the module is_scheduled, else a stable
// topological order), each preceded by the computations it runs: a call's
// or conditional's computations, a while's condition and body, an async
// op's computation. A computation called from several call sites is run
// once per site, as XLA's FlattenCallGraph copies it before buffer
// assignment. Fusions, reducers and other per-element computations are
// not scheduled: a fusion's output is one buffer, its internals none; the
// per-element computations' values are thread-local allocations.
//
// Values and buffers (HloDataflowAnalysis and HloAliasAnalysis, non-SSA).
// Every instruction defines the array leaves and tuple tables of its
// result, except those that pass values through: bitcast,
// get-tuple-element, tuple elements (a tuple owns only its index table,
// 8 bytes per element, 512 bytes on the TPU), while, call, conditional,
// domain, optimization-barrier, add-dependency, the parameters of called
// computations (their callers' operands), the done half of async pairs
// (the start's output) and the aliased operands in a start's result. One
// buffer holds the values that must share memory: a while's init, body and
// condition parameters, body root and result; a conditional's branch roots
// and result; an entry output and the parameter input_output_alias gives
// it (may- or must-alias); an in-place op's output and the operand it
// updates (dynamic-update-slice, scatter, such fusions,
// output_to_operand_aliasing). XLA's copy insertion has added the copies
// such sharing needs in every dump after optimizations; a module without
// them is analysed as it is.
//
// Live ranges, allocations and heap (HloLiveRange, BufferAssigner,
// HeapSimulator). A value lives from its definition (a parameter from its
// computation's start) to its last use or position (a root to its
// computation's end; a while's use of its init ends at the body's start; an
// async computation's values span the caller up to the done); entry
// parameters that are not donated (input_output_alias) live to the end.
// Entry parameters, constants and tuple tables (except on the TPU, whose
// dumps place them in the temp heap) get allocations of their own;
// the other buffers, largest first, take the allocation of an operand or of
// a donated parameter or an output when no value there is live at the same
// time (MaybeAssignBuffer; on the TPU an output's allocation takes only
// outputs), else an output gets its own allocation and the rest are the
// temporaries of their memory space: replayed in schedule order (a value may
// take over the buffer of an operand that dies at it, as
// CanShareOperandBufferWithUser allows: elementwise ops, loop fusions using
// the operand elementwise, in-place ops; on the TPU the operands its
// backend_config's aliasing_operands names) and packed by the best of XLA's two
// best-fit heaps, then combined with the temporary tuple tables into one
// preallocated temp allocation per space at the backend's alignment. The
// peak is the parameters, constants and outputs plus the most the
// temporaries hold at once, as XLA's peak_memory_in_bytes.
//
// A module without entry computation (a truncated text that lost it) has
// no entry peak: each computation no other one calls is analysed as if it
// were the entry (Computations).
func AnalyzeMemory(m *hlo.Module, t Target) (*MemoryReport, error) {
	return analyzeMemory(m, t, false)
}

// analyzeMemory is AnalyzeMemory; a summary (Options.Summary) keeps what
// the text report prints: no space's Buffers or Timeline.
func analyzeMemory(m *hlo.Module, t Target, summary bool) (*MemoryReport, error) {
	if m == nil || len(m.Computations) == 0 {
		return nil, fmt.Errorf("memory: module has no computation")
	}
	r, cc, err := arrayCosts(m, t)
	if err != nil {
		return nil, err
	}
	costOf := r.ArraysOf
	if m.Entry != nil {
		lv, err := newLiveness(m, m.Entry, t, costOf)
		if err != nil {
			return nil, err
		}
		lv.summary = summary
		r.fill(lv, threadLocal(lv.span, t, costOf))
	} else if err := r.perComputation(m, t, costOf, summary); err != nil {
		return nil, err
	}
	r.Suggestions = suggestions(m, t, r.arrays, cc)
	return r, nil
}

// fill sets the report's figures from the entry's analysis.
func (r *MemoryReport) fill(lv *liveness, tl threadLocals) {
	r.Entry, r.Order, r.Steps = lv.entry.Name, lv.order, len(lv.seq)
	r.Spaces = lv.spaces(tl)
	for _, sp := range r.Spaces {
		r.Stats.add(sp.Stats)
	}
	// The constants of the computations called per element (a sort's
	// comparator) have constant allocations too, live throughout.
	r.elementConstBytes = tl.constBytes
	static, temps := tl.constBytes, int64(0)
	for _, sp := range r.Spaces {
		static += sp.PeakBytes - sp.TemporaryPeakBytes
		temps = max(temps, sp.xlaTempPeak)
	}
	if lv.t.Backend == BackendCPU {
		temps = 0
	}
	r.XLAPeakBytes = static + temps
	hbm := r.Spaces[0]
	r.ArgumentBytes, r.OutputBytes, r.AliasedBytes, r.TemporaryBytes = hbm.ArgumentBytes, hbm.OutputBytes, hbm.AliasedBytes, hbm.TemporaryBytes
	r.PeakBytes, r.PeakUnpadded, r.PeakStep, r.PeakAt, r.LiveAtPeak = hbm.PeakBytes, hbm.PeakUnpadded, hbm.PeakStep, hbm.PeakAt, hbm.LiveAtPeak
}

// perComputation analyses each computation that no other one calls, as
// if it were the entry.
func (r *MemoryReport) perComputation(m *hlo.Module, t Target, costOf func(*hlo.Instruction) []ArrayCost, summary bool) error {
	called := map[*hlo.Computation]bool{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			for _, cc := range in.Called {
				called[cc] = true
			}
		}
	}
	for _, c := range m.Computations {
		if called[c] {
			continue
		}
		lv, err := newLiveness(m, c, t, costOf)
		if err != nil {
			return err
		}
		lv.summary = summary
		r.Order = lv.order
		hbm := lv.spaces(threadLocals{})[0]
		r.Computations = append(r.Computations, ComputationPeak{Computation: c.Name, Steps: len(lv.seq),
			ArgumentBytes: hbm.ArgumentBytes, OutputBytes: hbm.OutputBytes, TemporaryBytes: hbm.TemporaryBytes, PeakBytes: hbm.PeakBytes})
	}
	slices.SortStableFunc(r.Computations, func(a, b ComputationPeak) int { return cmp.Compare(b.PeakBytes, a.PeakBytes) })
	return nil
}

// arrayCosts computes the cost of every array value of m, and the
// module's array totals.
func arrayCosts(m *hlo.Module, t Target) (*MemoryReport, *costCache, error) {
	nTupleLeaves := 0
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Shape.IsTuple() {
				nTupleLeaves += leafCount(&in.Shape)
			}
		}
	}
	r := &MemoryReport{Target: t, Module: m.Name, arrays: make([][][]ArrayCost, len(m.Computations)),
		insts: make([][]*hlo.Instruction, len(m.Computations)), comps: make(map[*hlo.Computation]int, len(m.Computations))}
	fusedComps := fusedComputations(m)
	// The tuple leaves' costs (each with its Index) are carved from one
	// backing array.
	backing := make([]ArrayCost, 0, nTupleLeaves)
	cc := &costCache{unlaidInVregs: t.Backend == BackendTPU && laidOut(m)}
	for ci, c := range m.Computations {
		fused := fusedComps[ci]
		costs := make([][]ArrayCost, len(c.Instructions))
		r.arrays[ci], r.insts[ci], r.comps[c] = costs, slices.Clone(c.Instructions), ci
		for i, in := range c.Instructions {
			in.Index = i
			own, err := instructionCosts(in, t, cc, &backing)
			if err != nil {
				return nil, nil, err
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
			costs[i] = own
		}
	}
	return r, cc, nil
}

// instructionCosts is the cost of each array leaf of in's result. An array
// result's cost (Index nil) is shared with every equal shape's: the slices
// are read-only. A tuple's leaves are appended to backing.
func instructionCosts(in *hlo.Instruction, t Target, cc *costCache, backing *[]ArrayCost) ([]ArrayCost, error) {
	if in.Shape.IsArray() {
		_, id, err := cc.cost(&in.Shape, t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.Name, err)
		}
		return cc.distinct[id : id+1 : id+1], nil
	}
	if !in.Shape.IsTuple() {
		return nil, nil
	}
	start := len(*backing)
	for _, l := range in.Shape.Leaves() {
		if !l.Shape.IsArray() {
			continue
		}
		ac, _, err := cc.cost(l.Shape, t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.Name, err)
		}
		ac.Index = l.Index
		*backing = append(*backing, ac)
	}
	return (*backing)[start:len(*backing):len(*backing)], nil
}

// costCache memoises costOf. Shapes that share their dims and layout (the
// parser shares equal shape text, Assign equal layouts) hit the first map
// by pointer; the others are looked up by their printed key.
type costCache struct {
	// unlaidInVregs sizes the arrays without a layout as kept in vector
	// registers (a laid-out TPU module: RuleTPUVectorRegisters).
	unlaidInVregs bool
	byLayout      map[*hlo.Layout][]costPtrEntry
	byKey         map[string]int32
	distinct      []ArrayCost
	key           []byte
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
		cost := costOf
		if cc.unlaidInVregs && s.Layout == nil {
			cost = vregCost
		}
		ac, err := cost(s, t)
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

// suggestions proposes layout changes for the arrays whose padding wastes
// the most memory (fused computations excluded), one per array, best
// saving first.
func suggestions(m *hlo.Module, t Target, costs [][][]ArrayCost, cc *costCache) []ArraySuggestion {
	type cand struct {
		in    *hlo.Instruction
		ac    *ArrayCost
		waste int64
	}
	var cands []cand
	seen := map[int32]bool{}
	fused := fusedComputations(m)
	for ci, c := range m.Computations {
		if fused[ci] {
			continue // never materialised
		}
		for i, in := range c.Instructions {
			if in.Opcode == hlo.OpGetTupleElement || in.Opcode == hlo.OpTuple || in.Opcode == hlo.OpBitcast {
				continue
			}
			for k := range costs[ci][i] {
				ac := &costs[ci][i][k]
				if ac.Expansion <= SuggestThreshold {
					continue
				}
				// Equal shapes are one candidate (their cost class).
				if _, id, _ := cc.cost(ac.Shape, t); !seen[id] {
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
		if s, ok := suggestFor(cd.ac, t); ok {
			out = append(out, ArraySuggestion{Instruction: cd.in.Name, Index: cd.ac.Index, Suggestion: s})
		}
	}
	return out
}

// suggestFor returns the best of Suggest's proposals for an array as laid
// out in the module: measured against its own size (its own tiles, which
// Suggest does not look at), and only a layout that differs from its own
// and makes it smaller.
func suggestFor(ac *ArrayCost, t Target) (Suggestion, bool) {
	for _, s := range Suggest(*ac.Shape, t) {
		if s.After < ac.Bytes && !s.Shape.Equal(*ac.Shape) {
			s.Before = ac.Bytes
			return s, true
		}
	}
	return Suggestion{}, false
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
