package layoutassign

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// The kinds of allocation, as XLA's BufferAllocation describes them
// (xla/service/buffer_assignment.cc): an entry parameter, a constant, a
// buffer that may live out of the entry (its result), and the temporaries
// packed in the preallocated temp heap; thread-local buffers are the
// values of reducers, comparators and the like, one small allocation each.
const (
	KindParameter = "parameter"
	KindConstant  = "constant"
	KindLiveOut   = "maybe-live-out"
	KindTemp      = "preallocated-temp"
)

// RuleTupleTable marks the cost of a tuple's index table.
var RuleTupleTable = Rule{"tuple-index-table", "A tuple owns only its table of element pointers, 8 bytes each (XLA's ShapeUtil::ByteSizeOf with 8-byte pointers), padded to 512 bytes on the TPU."}

// BufferStats are XLA's "BufferAssignment stats" classes
// (BufferAssignment::StatsString) for one memory space or all of them:
// allocations of entry parameters, constants, buffers that may live out,
// the preallocated temp heap and its fragmentation, and the total of all
// allocations (thread-local ones included; a parameter that lives out is
// one allocation).
type BufferStats struct {
	ParameterBytes    int64 `json:"parameter_bytes"`
	ConstantBytes     int64 `json:"constant_bytes"`
	MaybeLiveOutBytes int64 `json:"maybe_live_out_bytes"`
	// PreallocatedTempBytes is the heap the best-fit placement needs for
	// the temporaries; PreallocatedTempFragmentationBytes what it needs
	// beyond XLA's fragmentation-free figure.
	PreallocatedTempBytes              int64 `json:"preallocated_temp_bytes"`
	PreallocatedTempFragmentationBytes int64 `json:"preallocated_temp_fragmentation_bytes"`
	ThreadLocalBytes                   int64 `json:"thread_local_bytes"`
	TotalBytes                         int64 `json:"total_bytes"`
}

// StatClass is one class of BufferStats, by the name XLA's stats give it.
type StatClass struct {
	Name  string
	Bytes int64
}

// Classes lists the stats' classes in XLA's order: parameter, constant,
// maybe_live_out, preallocated_temp, thread_local, total.
func (s BufferStats) Classes() []StatClass {
	return []StatClass{{"parameter", s.ParameterBytes}, {"constant", s.ConstantBytes}, {"maybe_live_out", s.MaybeLiveOutBytes},
		{"preallocated_temp", s.PreallocatedTempBytes}, {"thread_local", s.ThreadLocalBytes}, {"total", s.TotalBytes}}
}

func (s *BufferStats) add(o BufferStats) {
	s.ParameterBytes += o.ParameterBytes
	s.ConstantBytes += o.ConstantBytes
	s.MaybeLiveOutBytes += o.MaybeLiveOutBytes
	s.PreallocatedTempBytes += o.PreallocatedTempBytes
	s.PreallocatedTempFragmentationBytes += o.PreallocatedTempFragmentationBytes
	s.ThreadLocalBytes += o.ThreadLocalBytes
	s.TotalBytes += o.TotalBytes
}

// SpaceReport is the memory of one memory space (the S(n) of layouts): the
// BufferStats, the terms of XLA's memory_analysis (arguments, outputs, the
// part of the outputs that reuse donated arguments, temporaries), the peak
// and what is live at it.
type SpaceReport struct {
	Space int64
	// Name is "HBM" for S(0), "VMEM" for S(1), "SMEM" for S(2) (the TPU's
	// scalar memory, as XLA's memory-usage report names it), "host" for
	// S(5), else "S(n)".
	Name  string
	Stats BufferStats
	// ArgumentBytes, OutputBytes, AliasedBytes and TemporaryBytes are
	// XLA's argument, output, alias and temp sizes: the parameter and
	// maybe-live-out allocations, the parameters an output is aliased
	// with, and the preallocated temp heap.
	ArgumentBytes, OutputBytes, AliasedBytes, TemporaryBytes int64
	// TemporaryPeakBytes is the most the temporaries hold at once;
	// PeakBytes adds the parameters, constants and outputs, as XLA's
	// peak_memory_in_bytes; WithoutReuseBytes gives every buffer its own
	// allocation.
	TemporaryPeakBytes, PeakBytes, PeakUnpadded, WithoutReuseBytes int64
	// xlaTempPeak is the most the temporaries hold in the heap trace
	// XLA's peak replays (see MemoryReport.XLAPeakBytes).
	xlaTempPeak int64
	// PeakStep is the schedule step at which the peak is first reached
	// (PeakAt its instruction).
	PeakStep int
	PeakAt   string
	// LiveAtPeak are the allocations live at the peak, largest first;
	// their sizes add up to PeakBytes.
	LiveAtPeak []Allocation
	// Buffers are the space's buffers, each once (its own allocations in
	// the order made, then the temporaries in the order the heap
	// replay allocates them): what the Timeline counts at each step (see
	// LiveAt). A summary (Options.Summary) leaves Buffers and Timeline
	// empty.
	Buffers []Buffer
	// Timeline is what the space holds at each step of the schedule: the
	// parameters, constants and outputs throughout, plus the temporaries
	// live at the step (the most during it), padded and unpadded, as XLA's
	// memory viewer draws a program; its largest Bytes is PeakBytes.
	Timeline []LivePoint
}

// LivePoint is the memory a space holds at one schedule step.
type LivePoint struct {
	Step            int
	At              string // the instruction at the step
	Bytes, Unpadded int64
}

// SpaceName names memory space n as the report does.
func SpaceName(n int64) string {
	switch n {
	case 0:
		return "HBM"
	case 1:
		return "VMEM"
	case 2:
		return "SMEM"
	case 5:
		return "host"
	}
	return fmt.Sprintf("S(%d)", n)
}

// bufferInfo is what a buffer is: its size, memory space and kind.
type bufferInfo struct {
	size                             int64
	space                            int64
	param, aliased, constant, output bool
}

// classify describes every buffer: a parameter one holds an entry
// parameter's value (aliased when input_output_alias names it), a
// constant one a constant's, an output one a value at the entry root.
func (lv *liveness) classify() []bufferInfo {
	infos := make([]bufferInfo, len(lv.buffers))
	root := lv.stepOf(lv.entry.Root)
	for b, ids := range lv.buffers {
		in := &infos[b]
		in.space = lv.values[ids[0]].space
		for _, id := range ids {
			v := &lv.values[id]
			in.size = max(in.size, v.size)
			switch def := lv.def(v).in; {
			case def.Opcode == hlo.OpParameter && def.Parent == lv.entry:
				in.param = true
				in.aliased = in.aliased || !lv.readOnlyParam(v)
			case def.Opcode == hlo.OpConstant:
				in.constant = true
			}
			if root != nil && (int(v.def) == root.time || slices.ContainsFunc(lv.positionsOf(v), func(p position) bool { return int(p.st) == root.time })) {
				in.output = true
			}
		}
	}
	return infos
}

func (b bufferInfo) kind() string {
	switch {
	case b.param && b.output:
		return KindParameter + ", " + KindLiveOut
	case b.param:
		return KindParameter
	case b.constant:
		return KindConstant
	case b.output:
		return KindLiveOut
	}
	return KindTemp
}

// spaces computes the report of every memory space the buffers use (HBM
// always), sorted by space. tl are the thread-local allocations.
func (lv *liveness) spaces(tl threadLocals) []SpaceReport {
	infos := lv.classify()
	all := make([]int32, len(lv.buffers))
	for b := range all {
		all[b] = int32(b)
	}
	allocs, temps := lv.assign(all, infos)
	sizes := make([]int64, len(lv.buffers))
	lens := make([]int, len(lv.buffers))
	bySpace := map[int64][]int32{0: nil}
	for b, ids := range lv.buffers {
		sizes[b], lens[b] = infos[b].size, len(ids)
		bySpace[infos[b].space] = append(bySpace[infos[b].space], int32(b))
	}
	runs, peakRuns, alt := map[int64]*heapRun{}, map[int64]*heapRun{}, map[int64]int64{}
	for _, sp := range sortedKeys(bySpace) {
		if len(temps[sp]) == 0 {
			continue
		}
		// XLA's peak replays the trace of each space: the alternate
		// memory's as memory-space assignment exports it, the others' as
		// the heap simulator does, less the values it does not trace
		// (heapRun.tracedPeak). An offloaded context is replayed apart
		// (before the full replay, which extends the ends of the buffers
		// it reuses): the values that would take over its buffer do not.
		if lv.t.Backend == BackendTPU && sp == lv.t.alternateSpace() {
			alt[sp] = lv.alternatePeak(temps[sp], func(id int32) int64 { return sizes[lv.bufOf[id]] })
		} else if kept := slices.DeleteFunc(slices.Clone(temps[sp]), func(id int32) bool { return lv.values[id].offloaded }); len(kept) < len(temps[sp]) {
			ends := make([]int, len(lv.values))
			for i, v := range lv.values {
				ends[i] = v.end
			}
			peakRuns[sp] = lv.simulate(sp, kept, lv.bufOf, sizes, lens)
			for i, v := range lv.values {
				v.end = ends[i]
			}
		}
		runs[sp] = lv.simulate(sp, temps[sp], lv.bufOf, sizes, lens)
		runs[sp].place(lv.t.heapAlignment(sp))
	}
	combined := combineTemps(allocs, runs, tl.count, lv.t.heapAlignment)
	var out []SpaceReport
	for _, sp := range sortedKeys(bySpace) {
		sr := SpaceReport{Space: sp, Name: SpaceName(sp)}
		for _, b := range bySpace[sp] {
			sr.WithoutReuseBytes += sizes[b]
		}
		lv.fillSpace(&sr, allocs, runs[sp], sizes)
		if r := cmp.Or(peakRuns[sp], runs[sp]); r != nil {
			sr.xlaTempPeak = r.tracedPeak
		}
		if p, ok := alt[sp]; ok {
			sr.xlaTempPeak = p
		}
		sr.Stats.PreallocatedTempBytes = combined[sp]
		sr.Stats.TotalBytes += combined[sp]
		sr.TemporaryBytes = combined[sp]
		if sp == 0 {
			sr.Stats.ThreadLocalBytes = tl.bytes
			sr.Stats.ConstantBytes += tl.constBytes
			sr.Stats.TotalBytes += tl.bytes + tl.constBytes
		}
		out = append(out, sr)
	}
	return out
}

func sortedKeys[V any](m map[int64]V) []int64 {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// fillSpace sets a memory space's figures from its allocations and the
// replay of its temporaries (nil when it has none). In a summary
// (liveness.summary) it makes only the buffers live at the peak, without
// their aliases, to find LiveAtPeak, and leaves Buffers and Timeline
// empty.
func (lv *liveness) fillSpace(sr *SpaceReport, allocs []*alloc, run *heapRun, sizes []int64) {
	var fixed, fixedU int64 // parameters, constants and outputs
	own := func(a *alloc) bool {
		return a.space == sr.Space && (!a.tuple || a.output) // a temporary tuple table is counted in the temp allocation
	}
	n := 0
	for _, a := range allocs {
		if own(a) {
			n++
		}
	}
	var temps tempLives
	if run != nil {
		temps = lv.tempLives(run)
		if run.peakEvent >= 0 {
			sr.PeakStep = run.events[run.peakEvent].time
			if sr.PeakStep < len(lv.seq) {
				sr.PeakAt = lv.seq[sr.PeakStep].in.Name
			}
		}
	}
	sr.Buffers = make([]Buffer, 0, n+temps.count(lv.summary, sr.PeakStep))
	for _, a := range allocs {
		if !own(a) {
			continue
		}
		switch {
		case a.param:
			sr.Stats.ParameterBytes += a.size
			if a.aliased {
				sr.AliasedBytes += a.size
			}
		case a.constant:
			sr.Stats.ConstantBytes += a.size
		}
		if a.output {
			sr.Stats.MaybeLiveOutBytes += a.size
		}
		sr.Stats.TotalBytes += a.size
		b := lv.fixedBuffer(a)
		fixed, fixedU = fixed+b.Cost.Bytes, fixedU+b.Cost.Unpadded
		sr.Buffers = append(sr.Buffers, b)
	}
	if !lv.summary {
		sr.Timeline = lv.timeline(fixed, fixedU, run)
	}
	sr.ArgumentBytes, sr.OutputBytes = sr.Stats.ParameterBytes, sr.Stats.MaybeLiveOutBytes
	if run != nil {
		sr.Stats.PreallocatedTempFragmentationBytes = run.heapSize - run.noFrag
		sr.TemporaryPeakBytes = run.peak
		sr.Buffers = lv.appendTempBuffers(sr.Buffers, temps, sizes, sr.PeakStep)
	}
	idx := sr.liveAt(sr.PeakStep)
	sr.LiveAtPeak = make([]Allocation, len(idx))
	for k, i := range idx {
		b := &sr.Buffers[i]
		sr.PeakBytes += b.Cost.Bytes
		sr.PeakUnpadded += b.Cost.Unpadded
		sr.LiveAtPeak[k] = b.Allocation
	}
	if lv.summary {
		sr.Buffers = nil
	}
}

// timeline is a space's LivePoint at every step: fixed (fixedU unpadded)
// throughout, plus the temporaries of run at the step, or as the last step
// with events left them.
func (lv *liveness) timeline(fixed, fixedU int64, run *heapRun) []LivePoint {
	out := make([]LivePoint, len(lv.seq))
	var temp, tempU int64
	k := 0
	for step := range out {
		p := LivePoint{Step: step, At: lv.seq[step].in.Name, Bytes: temp, Unpadded: tempU}
		if run != nil && k < len(run.series) && run.series[k].step == step {
			sm := run.series[k]
			p.Bytes, p.Unpadded = sm.most, sm.mostU
			temp, tempU = sm.end, sm.endU
			k++
		}
		p.Bytes += fixed
		p.Unpadded += fixedU
		out[step] = p
	}
	return out
}

// combineTemps is the size of each memory space's preallocated temp
// allocation, as XLA's CombineTempAllocations makes it: the temporary
// allocations of one space (tuple tables, then the heap) placed end to
// end, each at the alignment. Their order is the one std::partition
// leaves them in when it moves the temporary allocations behind the
// others (parameters, constants, outputs in assignment order, then the
// thread-local ones), as XLA does.
func combineTemps(allocs []*alloc, runs map[int64]*heapRun, threadLocal int, align func(space int64) int64) map[int64]int64 {
	type entry struct {
		temp  bool
		space int64
		size  int64
	}
	var list []entry
	for _, a := range allocs {
		list = append(list, entry{a.tuple && !a.output, a.space, a.size})
	}
	for _, sp := range sortedKeys(runs) {
		list = append(list, entry{true, sp, runs[sp].heapSize})
	}
	for range threadLocal {
		list = append(list, entry{})
	}
	// std::partition (libstdc++, bidirectional iterators): non-temporary
	// allocations are moved to the front by swapping from both ends.
	first, last := 0, len(list)
	for {
		for first != last && !list[first].temp {
			first++
		}
		if first == last {
			break
		}
		last--
		for first != last && list[last].temp {
			last--
		}
		if first == last {
			break
		}
		list[first], list[last] = list[last], list[first]
		first++
	}
	out := map[int64]int64{}
	seen := map[int64]bool{}
	for _, e := range list {
		if !e.temp {
			continue
		}
		if seen[e.space] {
			out[e.space] = alignUp(out[e.space], align(e.space)) + e.size
		} else {
			seen[e.space] = true
			out[e.space] = e.size
		}
	}
	return out
}

// alloc is an allocation of its own (not in the temp heap): an entry
// parameter's, a constant's or an output's buffer and the buffers that
// reuse it, or a tuple's index table.
type alloc struct {
	size                                    int64
	space                                   int64
	param, aliased, constant, output, tuple bool
	// first is the value the allocation is reported by; values all the
	// values it holds.
	first  int32
	values []int32
	// tree is the reuser's tree of a donated parameter's or an output's
	// allocation, pos its leaf there, seq its place in the order the
	// allocations were made and occ its values by time.
	tree     *allocTree
	pos, seq int
	occ      occupancy
}

// accepts reports whether a buffer described by in may go into a on
// backend b, its values aside: the same memory space, a writable
// allocation at least as large (exactly as large for an output). On the
// TPU an output's allocation, a donated parameter's included, takes no
// other buffer than outputs: XLA's MaybeAssignBuffer refuses what the
// TPU's must_not_live_out names, and in the TPU compiles of the xla-diff
// seeds (1000-1139, 5000-5299, v5e) 2361 of 2375 output allocations hold
// one value, the other 14 the values of one buffer (a loop's, an in-place
// update's); of the 505 donated parameters' allocations of the 2540 v5e
// development compiles, 494 hold the parameter and its output alone (seed
// 7127: f32[1] donated, a bf16[1] temporary live in between kept out of
// it, the peak 512 B higher; reproducer peak-tpu-v5e-b11827e6).
func (a *alloc) accepts(in bufferInfo, b Backend) bool {
	if a.outputsOnly(b) && !in.output {
		return false
	}
	return in.space == a.space && in.size <= a.size && !a.constant && !a.tuple && !(a.param && !a.aliased) && !(in.output && in.size != a.size)
}

// outputsOnly reports whether only outputs may go into a on backend b
// (see accepts).
func (a *alloc) outputsOnly(b Backend) bool { return b == BackendTPU && a.output }

func (a *alloc) kind() string {
	return bufferInfo{param: a.param, aliased: a.aliased, constant: a.constant, output: a.output}.kind()
}

// assign gives the buffers their allocations as XLA's
// BufferAssigner::AssignBuffersForComputations does, largest buffer first
// (outputs before others of the same size, then in schedule order): a
// constant or an entry parameter gets its own allocation (read-only
// unless input_output_alias donates the parameter), as does a tuple's
// index table (except on the TPU, whose dumps place tuple tables in the
// temp heap); any other buffer first tries to reuse the allocation of an
// operand, then the donated parameters and outputs allocated so far (the
// last allocated first), when it is in the same memory space and no
// value there is live at the same time; else an output gets an
// allocation of its own and the rest are temporaries, returned by memory
// space for the heap. The allocations are returned in the order made.
func (lv *liveness) assign(bufs []int32, infos []bufferInfo) ([]*alloc, map[int64][]int32) {
	return lv.assignWith(bufs, infos, newReuser(lv, len(bufs)))
}

// allocFinder finds the allocation a buffer may reuse (find) among the
// allocations made so far, which hold tells it about.
type allocFinder interface {
	find(b int32, in bufferInfo, of []*alloc) *alloc
	// hold records that a now holds the values ids too; made says a is
	// new and reusable (a donated parameter's or an output's).
	hold(a *alloc, ids []int32, made bool)
}

// assignWith is assign with the reuse found by f.
func (lv *liveness) assignWith(bufs []int32, infos []bufferInfo, f allocFinder) ([]*alloc, map[int64][]int32) {
	order := slices.Clone(bufs)
	firstDef := make([]int32, len(lv.buffers)) // each buffer's first definition, looked up once
	for _, b := range bufs {
		firstDef[b] = lv.values[lv.buffers[b][0]].def
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		ia, ib := &infos[a], &infos[b]
		return cmp.Or(cmp.Compare(ib.size, ia.size), -cmpBool(ia.output, ib.output), cmp.Compare(firstDef[a], firstDef[b]), cmp.Compare(a, b))
	})
	var allocs []*alloc
	of := make([]*alloc, len(lv.values)) // value -> its allocation
	temps := map[int64][]int32{}
	for _, b := range order {
		in, ids := infos[b], lv.buffers[b]
		a := f.find(b, in, of)
		made := false
		switch {
		case a != nil:
		case in.constant || in.param:
			a = &alloc{size: in.size, space: in.space, param: in.param, aliased: in.aliased, constant: in.constant && !in.param, first: ids[0]}
			allocs = append(allocs, a)
			made = in.aliased
		case lv.tupleBuffer(b) && lv.t.Backend != BackendTPU:
			a = &alloc{size: in.size, space: in.space, tuple: true, first: ids[0]}
			allocs = append(allocs, a)
		case in.output:
			a = &alloc{size: in.size, space: in.space, output: true, first: ids[0]}
			allocs = append(allocs, a)
			made = true
		default:
			temps[in.space] = append(temps[in.space], ids...)
			continue
		}
		f.hold(a, ids, made)
		a.output = a.output || in.output
		for _, id := range ids {
			of[id] = a
		}
	}
	return allocs, temps
}

// tupleBuffer reports whether buffer b holds a tuple's index table.
func (lv *liveness) tupleBuffer(b int32) bool {
	return slices.ContainsFunc(lv.buffers[b], func(id int32) bool { return lv.shape(&lv.values[id]).IsTuple() })
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// fits reports whether buffer b may go into allocation a: it is in the
// same memory space, writable and large enough (exactly as large for an
// output), and no value of b is live while one of a's is, unless the one
// ends where the other starts and may be written over by it.
func (lv *liveness) fits(a *alloc, b int32, in bufferInfo) bool {
	if !a.accepts(in, lv.t.Backend) {
		return false
	}
	for _, nid := range lv.buffers[b] {
		nv := &lv.values[nid]
		for _, aid := range a.values {
			av := &lv.values[aid]
			if lv.interfere(nv, av) {
				return false
			}
			if in := lv.def(nv).in; in.Opcode == hlo.OpCopy && lv.readsValue(in, av) {
				return false // a copy does not write over its operand
			}
		}
	}
	return true
}

// readsValue reports whether in has an operand at which v appears.
func (lv *liveness) readsValue(in *hlo.Instruction, v *hloValue) bool {
	if slices.Contains(in.Operands, lv.def(v).in) {
		return true
	}
	return slices.ContainsFunc(lv.positionsOf(v), func(p position) bool { return slices.Contains(in.Operands, lv.seq[p.st].in) })
}

// interfere is XLA's LiveRangeInterferes: two values interfere when their
// ranges overlap, unless one ends at the step the other starts and the
// later one may take over the earlier one's buffer there.
func (lv *liveness) interfere(a, b *hloValue) bool {
	switch {
	case a.start > b.end || b.start > a.end:
		return false
	case a.end == b.start:
		return !lv.canShareAsOperand(b, a)
	case b.end == a.start:
		return !lv.canShareAsOperand(a, b)
	}
	return true
}

// canShareAsOperand reports whether user may be written over operand at a
// position of operand's that user reads (its definition or any other, as
// XLA's BufferAssigner::LiveRangeInterferes checks every position: a value
// whose range ends at a bitcast of it may still be read directly, seed
// 12629's gemm result by the loop fusion that writes over it on the H100).
func (lv *liveness) canShareAsOperand(user, operand *hloValue) bool {
	def := lv.def(user).in
	if def.Opcode == hlo.OpCopy {
		return false
	}
	share := func(p position) bool {
		st := &lv.seq[p.st]
		return slices.Contains(def.Operands, st.in) && canShareOperand(st.in, st.nodes[p.node].path, def, lv.path(user), lv.t.Backend)
	}
	if share(position{operand.def, operand.node}) {
		return true
	}
	for _, p := range lv.positionsOf(operand) {
		if share(p) {
			return true
		}
	}
	return false
}

// allocation describes value id's buffer of the given size and kind for
// the report.
func (lv *liveness) allocation(id int32, size int64, kind string) Allocation {
	v, shape := &lv.values[id], lv.shape(&lv.values[id])
	c := ArrayCost{Shape: shape, Bytes: size, Unpadded: size, Expansion: 1, Rule: RuleTupleTable}
	switch {
	case shape.IsTuple():
		c.Unpadded = lv.unpadded(id, size)
		c.Expansion = expansion(c.Bytes, c.Unpadded)
	case lv.valueCosts[id] != nil:
		c = *lv.valueCosts[id]
		if size > c.Bytes { // a buffer sized for a larger value of it
			c.Bytes = size
			c.Expansion = expansion(c.Bytes, c.Unpadded)
		}
	default:
		c.Rule = RuleUntiled
	}
	c.Index = lv.path(v)
	in := lv.def(v).in
	if o := lv.orig[in]; o != nil {
		in = o
	}
	return Allocation{Instruction: in, Index: c.Index, Cost: c, Kind: kind, Start: v.start, End: v.end}
}

// threadLocals are the allocations of the computations called per
// element (reducers, comparators, scatter and sort computations, also
// inside fusions): every value its own allocation, constants as constant
// allocations.
type threadLocals struct {
	bytes, constBytes int64
	count             int
}

// threadLocal sizes the thread-local allocations of the computations that
// the scheduled ones (global) call per element.
func threadLocal(global map[*hlo.Computation][2]int, t Target, costs func(*hlo.Instruction) []ArrayCost) threadLocals {
	var tl threadLocals
	for _, c := range perElementComputations(global) {
		for _, in := range c.Instructions {
			nodes := preorder(&in.Shape)
			cs := costs(in)
			k := 0
			for i, nd := range nodes {
				var size int64
				switch {
				case nd.shape.IsTuple():
					size = t.TupleTableBytes(len(nd.shape.Tuple))
				case nd.shape.IsArray():
					if k < len(cs) {
						size = cs[k].Bytes
					}
					k++
				}
				switch {
				case !definesNode(in, nodes, i, true):
				case in.Opcode == hlo.OpConstant:
					tl.constBytes += size
					tl.count++
				default:
					tl.bytes += size
					tl.count++
				}
			}
		}
	}
	return tl
}

// perElementComputations lists the computations that the global ones call
// per element, transitively, without the fusion computations themselves
// (whose values are never materialised) but with what they call.
func perElementComputations(global map[*hlo.Computation][2]int) []*hlo.Computation {
	seen := map[*hlo.Computation]bool{}
	fused := map[*hlo.Computation]bool{}
	var work, out []*hlo.Computation
	for c := range global {
		work = append(work, c)
	}
	slices.SortFunc(work, func(a, b *hlo.Computation) int { return cmp.Compare(a.Name, b.Name) })
	for len(work) > 0 {
		c := work[len(work)-1]
		work = work[:len(work)-1]
		for _, in := range c.Instructions {
			if controlFlow(in) {
				continue
			}
			for _, cc := range in.Called {
				if _, ok := global[cc]; cc == nil || seen[cc] || ok {
					continue
				}
				seen[cc] = true
				fused[cc] = in.Opcode == hlo.OpFusion
				work = append(work, cc)
				if !fused[cc] {
					out = append(out, cc)
				}
			}
		}
	}
	return out
}
