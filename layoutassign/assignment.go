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
var RuleTupleTable = Rule{"tuple-index-table", "A tuple owns only its table of element pointers, 8 bytes each (XLA's ShapeUtil::ByteSizeOf with 8-byte pointers)."}

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
	// Name is "HBM" for S(0), "VMEM" for S(1), "host" for S(5), else
	// "S(n)".
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
	// PeakStep is the schedule step at which the peak is first reached
	// (PeakAt its instruction).
	PeakStep int
	PeakAt   string
	// LiveAtPeak are the allocations live at the peak, largest first;
	// their sizes add up to PeakBytes.
	LiveAtPeak []Allocation
}

// SpaceName names memory space n as the report does.
func SpaceName(n int64) string {
	switch n {
	case 0:
		return "HBM"
	case 1:
		return "VMEM"
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
			v := lv.values[id]
			in.size = max(in.size, v.size)
			switch {
			case v.def.in.Opcode == hlo.OpParameter && v.def.in.Parent == lv.entry:
				in.param = true
				in.aliased = in.aliased || !lv.readOnlyParam(v)
			case v.def.in.Opcode == hlo.OpConstant:
				in.constant = true
			}
			if v.def == root || slices.ContainsFunc(v.positions, func(p position) bool { return p.st == root }) {
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
// always), sorted by space.
func (lv *liveness) spaces(threadLocal int64) []SpaceReport {
	infos := lv.classify()
	bySpace := map[int64][]int32{0: nil}
	for b, in := range infos {
		bySpace[in.space] = append(bySpace[in.space], int32(b))
	}
	var out []SpaceReport
	for _, sp := range sortedKeys(bySpace) {
		sr := lv.space(sp, bySpace[sp], infos)
		if sp == 0 {
			sr.Stats.ThreadLocalBytes = threadLocal
			sr.Stats.TotalBytes += threadLocal
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

// space computes the report of memory space sp from its buffers.
func (lv *liveness) space(sp int64, bufs []int32, infos []bufferInfo) SpaceReport {
	sr := SpaceReport{Space: sp, Name: SpaceName(sp)}
	allocs, temps := lv.assign(bufs, infos)
	var static []Allocation
	for _, a := range allocs {
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
		static = append(static, lv.allocation(a.first, a.size, a.kind()))
	}
	sizes := make([]int64, len(lv.buffers))
	lens := make([]int, len(lv.buffers))
	for b, ids := range lv.buffers {
		sizes[b], lens[b] = infos[b].size, len(ids)
	}
	for _, b := range bufs {
		sr.WithoutReuseBytes += sizes[b]
	}
	run := lv.simulate(temps, lv.bufOf, sizes, lens)
	sr.Stats.PreallocatedTempBytes = run.heapSize
	sr.Stats.PreallocatedTempFragmentationBytes = run.heapSize - run.noFrag
	sr.Stats.TotalBytes += run.heapSize
	sr.ArgumentBytes, sr.OutputBytes, sr.TemporaryBytes = sr.Stats.ParameterBytes, sr.Stats.MaybeLiveOutBytes, run.heapSize
	sr.TemporaryPeakBytes = run.peak
	live := static
	for _, id := range run.liveAtPeak() {
		live = append(live, lv.allocation(id, sizes[lv.bufOf[id]], KindTemp))
	}
	for _, a := range live {
		sr.PeakBytes += a.Cost.Bytes
		sr.PeakUnpadded += a.Cost.Unpadded
	}
	if run.peakEvent >= 0 {
		sr.PeakStep = run.events[run.peakEvent].time
		if sr.PeakStep < len(lv.seq) {
			sr.PeakAt = lv.seq[sr.PeakStep].in.Name
		}
	}
	slices.SortStableFunc(live, func(a, b Allocation) int {
		return cmp.Or(cmp.Compare(b.Cost.Bytes, a.Cost.Bytes), cmp.Compare(a.Start, b.Start))
	})
	sr.LiveAtPeak = live
	return sr
}

// alloc is an allocation of its own (not in the temp heap): an entry
// parameter's, a constant's or an output's buffer, and the buffers that
// reuse it.
type alloc struct {
	size                             int64
	param, aliased, constant, output bool
	// first is the value the allocation is reported by; values all the
	// values it holds.
	first  int32
	values []int32
}

func (a *alloc) kind() string {
	return bufferInfo{param: a.param, aliased: a.aliased, constant: a.constant, output: a.output}.kind()
}

// assign gives the buffers of one memory space their allocations as
// XLA's BufferAssigner::AssignBuffersForComputations does, largest buffer
// first (outputs before others of the same size, then in schedule order):
// a constant or an entry parameter gets its own allocation (read-only
// unless input_output_alias donates the parameter); any other buffer
// first tries to reuse the allocation of an operand, then the donated
// parameters and outputs allocated so far (the last allocated first),
// when no value there is live at the same time; else an output gets an
// allocation of its own and the rest are temporaries, returned for the
// heap.
func (lv *liveness) assign(bufs []int32, infos []bufferInfo) ([]*alloc, []int32) {
	order := slices.Clone(bufs)
	firstDef := func(b int32) int { return lv.values[lv.buffers[b][0]].def.time }
	slices.SortStableFunc(order, func(a, b int32) int {
		ia, ib := infos[a], infos[b]
		return cmp.Or(cmp.Compare(ib.size, ia.size), -cmpBool(ia.output, ib.output), cmp.Compare(firstDef(a), firstDef(b)), cmp.Compare(a, b))
	})
	var allocs, reusable []*alloc
	of := map[int32]*alloc{} // value -> its allocation
	var temps []int32
	for _, b := range order {
		in, ids := infos[b], lv.buffers[b]
		a := lv.reuse(b, in, of, reusable)
		switch {
		case a != nil:
		case in.constant || in.param:
			a = &alloc{size: in.size, param: in.param, aliased: in.aliased, constant: in.constant && !in.param, first: ids[0]}
			allocs = append(allocs, a)
			if in.aliased {
				reusable = append(reusable, a)
			}
		case in.output:
			a = &alloc{size: in.size, first: ids[0]}
			allocs = append(allocs, a)
			reusable = append(reusable, a)
		default:
			temps = append(temps, ids...)
			continue
		}
		a.values = append(a.values, ids...)
		a.output = a.output || in.output
		for _, id := range ids {
			of[id] = a
		}
	}
	return allocs, temps
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

// reuse finds an allocation buffer b may share (XLA's MaybeAssignBuffer):
// an operand's allocation, else one of the reusable ones, the last
// allocated first. Constants and parameters never reuse one.
func (lv *liveness) reuse(b int32, in bufferInfo, of map[int32]*alloc, reusable []*alloc) *alloc {
	if in.constant || in.param {
		return nil
	}
	for _, id := range lv.buffers[b] {
		v := lv.values[id]
		if len(v.path()) > 0 || v.shape().IsTuple() {
			continue
		}
		for _, op := range v.def.in.Operands {
			st := lv.stepOf(op)
			if st == nil {
				continue
			}
			for _, ov := range st.sets[0] {
				if a := of[ov]; a != nil && lv.fits(a, b, in) {
					return a
				}
			}
		}
	}
	for i := len(reusable) - 1; i >= 0; i-- {
		if lv.fits(reusable[i], b, in) {
			return reusable[i]
		}
	}
	return nil
}

// fits reports whether buffer b may go into allocation a: it is writable
// and large enough (exactly as large for an output), and no value of b is
// live while one of a's is, unless the one ends where the other starts and
// may be written over by it.
func (lv *liveness) fits(a *alloc, b int32, in bufferInfo) bool {
	if in.size > a.size || a.constant || a.param && !a.aliased || in.output && in.size != a.size {
		return false
	}
	for _, nid := range lv.buffers[b] {
		nv := lv.values[nid]
		for _, aid := range a.values {
			av := lv.values[aid]
			if lv.interfere(nv, av) {
				return false
			}
			if nv.def.in.Opcode == hlo.OpCopy && lv.readsValue(nv.def.in, av) {
				return false // a copy does not write over its operand
			}
		}
	}
	return true
}

// readsValue reports whether in has an operand at which v appears.
func (lv *liveness) readsValue(in *hlo.Instruction, v *hloValue) bool {
	if slices.Contains(in.Operands, v.def.in) {
		return true
	}
	return slices.ContainsFunc(v.positions, func(p position) bool { return slices.Contains(in.Operands, p.st.in) })
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

// canShareAsOperand reports whether user may be written over operand at
// the position where operand's range ends.
func (lv *liveness) canShareAsOperand(user, operand *hloValue) bool {
	end := operand.endPos
	if user.def.in.Opcode == hlo.OpCopy || !slices.Contains(user.def.in.Operands, end.st.in) {
		return false
	}
	return canShareOperand(end.st.in, end.st.nodes[end.node].path, user.def.in, user.path())
}

// allocation describes value id's buffer of the given size and kind for
// the report.
func (lv *liveness) allocation(id int32, size int64, kind string) Allocation {
	v := lv.values[id]
	c := ArrayCost{Shape: *v.shape(), Bytes: size, Unpadded: size, Expansion: 1, Rule: RuleTupleTable}
	switch {
	case v.cost != nil:
		c = *v.cost
		if size > c.Bytes { // a buffer sized for a larger value of it
			c.Bytes = size
			c.Expansion = expansion(c.Bytes, c.Unpadded)
		}
	case !v.shape().IsTuple():
		c.Rule = RuleUntiled
	}
	c.Index = v.path()
	return Allocation{Instruction: v.def.in, Index: v.path(), Cost: c, Kind: kind, Start: v.start, End: v.end}
}

// threadLocalBytes is the size of the thread-local allocations: every
// value of the computations called per element (reducers, comparators,
// scatter and sort computations, also inside fusions), each its own
// allocation; their constants count as constants in XLA and are left out
// here as they are few bytes.
func threadLocalBytes(m *hlo.Module, global map[*hlo.Computation][2]int, costs func(*hlo.Instruction) []ArrayCost) int64 {
	seen := map[*hlo.Computation]bool{}
	fused := map[*hlo.Computation]bool{}
	var work []*hlo.Computation
	for c := range global {
		work = append(work, c)
	}
	for len(work) > 0 {
		c := work[len(work)-1]
		work = work[:len(work)-1]
		for _, in := range c.Instructions {
			if controlFlow(in) {
				continue
			}
			for _, cc := range in.Called {
				if cc == nil || seen[cc] {
					continue
				}
				if _, ok := global[cc]; ok {
					continue
				}
				seen[cc] = true
				fused[cc] = fused[cc] || in.Opcode == hlo.OpFusion
				work = append(work, cc)
			}
		}
	}
	var n int64
	for c := range seen {
		if fused[c] {
			continue
		}
		for _, in := range c.Instructions {
			if in.Opcode == hlo.OpConstant {
				continue
			}
			nodes := preorder(&in.Shape)
			k := 0
			cs := costs(in)
			for i, nd := range nodes {
				if !definesNode(in, nodes, i, true) {
					if nd.shape.IsArray() {
						k++
					}
					continue
				}
				switch {
				case nd.shape.IsTuple():
					n += tupleTableBytes(nd.shape)
				case nd.shape.IsArray() && k < len(cs):
					n += cs[k].Bytes
				}
				if nd.shape.IsArray() {
					k++
				}
			}
		}
	}
	return n
}
