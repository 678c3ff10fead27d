package layoutassign

import (
	"cmp"
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// This file follows the heap trace that XLA's memory-space assignment
// exports for the alternate memory (the TPU's VMEM, S(1), or Target.AlternateSpace):
// MemorySpaceAssignment::VerifyAndExportHeapSimulatorTrace
// (xla/service/memory_space_assignment/memory_space_assignment.cc). XLA's
// peak_memory_in_bytes replays that trace (ComputePeakMemory in
// xla/service/buffer_assignment.cc) as it replays the heap simulator's of
// the other memory spaces, but the trace is not the heap simulator's: it
// shares nothing and counts each value on its own.

// alternateEvent is one event of the alternate memory's trace: value v
// allocated (free false) or freed at step time.
type alternateEvent struct {
	time int
	free bool
	v    int32
}

// alternatePeak is the most the values ids (the temporaries of the
// alternate memory) hold at once in XLA's trace of the alternate memory:
// each value of every buffer is allocated at the start of its live range
// and freed at its last use (a value without uses is left out), the
// allocations of a step replayed before its frees. A value whose last use
// is a conditional is split as XLA splits it: from its start to the step
// before the first branch, and in each branch that uses it, from the
// branch's start to its last use there. A conditional's output is a value
// of its own (XLA's phi), defined at the conditional and used after it,
// where the branches' values it takes end; so is a while loop's output that
// takes its init or its body's result (whileOut): the uses after the loop
// are the phi's, in this trace when the loop's output is in the alternate
// memory, else in the other memory's (seed 13150: a loop's f32[48,48,2,12]
// state in VMEM passed to a lax.cond; its init and body result counted
// into each branch beside the phi made the peak 2971136 B for XLA's
// 2381312). A ConcatBitcast custom call
// (memory-space assignment's concatenation of the slices it is given in
// place) holds no memory of its own: the slices live as long as it and
// are used where it is. size gives each value's bytes.
func (lv *liveness) alternatePeak(ids []int32, size func(id int32) int64) int64 {
	// XLA keys the events by (time, free, value): one event per key.
	seen := map[alternateEvent]bool{}
	var events []alternateEvent
	add := func(id int32, start, end int) {
		for _, e := range []alternateEvent{{start, false, id}, {end, true, id}} {
			if !seen[e] {
				seen[e] = true
				events = append(events, e)
			}
		}
	}
	// The phis get ids after the values'.
	type phiKey struct {
		at   *step // the conditional or loop
		node int
	}
	phis := map[phiKey]int32{}
	sizes := map[int32]int64{}
	var phiUses [][]*step
	var phiEnd []int
	for _, id := range ids {
		v := &lv.values[id]
		if isConcatBitcast(lv.def(v).in) {
			continue // its operands hold its memory
		}
		sizes[id] = size(id)
		uses, start, end := lv.concatUses(v)
		at, node := lv.conditionalOut(v)
		if w, n := lv.whileOut(v); at == nil && w != nil {
			if sh := w.nodes[n].shape; sh.Layout != nil && sh.Layout.MemorySpace == lv.t.alternateSpace() {
				at, node = w, n
			} else {
				// The loop's phi is not in this memory.
				uses = slices.DeleteFunc(uses, func(u *step) bool { return u.time > w.time })
			}
		}
		if at != nil {
			k := phiKey{at, node}
			p, ok := phis[k]
			if !ok {
				p = int32(len(lv.values) + len(phis))
				phis[k], sizes[p] = p, size(id)
				phiUses, phiEnd = append(phiUses, nil), append(phiEnd, end)
			}
			i := int(p) - len(lv.values)
			uses = slices.DeleteFunc(uses, func(u *step) bool {
				if u.time > at.time {
					phiUses[i] = append(phiUses[i], u)
					return true
				}
				return false
			})
			phiEnd[i] = max(phiEnd[i], end)
		}
		lv.allocateUses(id, uses, start, end, add)
	}
	for k, p := range phis {
		i := int(p) - len(lv.values)
		lv.allocateUses(p, phiUses[i], k.at.time, phiEnd[i], add)
	}
	slices.SortFunc(events, func(a, b alternateEvent) int {
		return cmp.Or(cmp.Compare(a.time, b.time), cmpBool(a.free, b.free), cmp.Compare(a.v, b.v))
	})
	refs := map[int32]int{}
	var mem, most int64
	for _, e := range events {
		if e.free {
			if refs[e.v]--; refs[e.v] == 0 {
				mem -= sizes[e.v]
			}
			continue
		}
		if refs[e.v]++; refs[e.v] == 1 {
			mem += sizes[e.v]
		}
		most = max(most, mem)
	}
	return most
}

// allocateUses adds the allocations of value id, live over [start, end]
// and used at uses: none without uses, split at a conditional that uses it
// last, else from start to its last use.
func (lv *liveness) allocateUses(id int32, uses []*step, start, end int, add func(id int32, start, end int)) {
	if len(uses) == 0 {
		return
	}
	last, at := start, (*step)(nil)
	for _, u := range uses {
		if u.time > last {
			last, at = u.time, u
		}
	}
	if at != nil && at.in.Opcode == hlo.OpConditional {
		lv.splitConditional(id, uses, at, start, end, add)
		return
	}
	add(id, start, min(last, end))
}

// conditionalOut returns the conditional whose branch defines value v and
// the node of its output that v reaches, or nil when v does not leave a
// branch that way.
func (lv *liveness) conditionalOut(v *hloValue) (*step, int) {
	for _, c := range lv.callers[lv.def(v).in.Parent] {
		if c.in.Opcode != hlo.OpConditional {
			continue
		}
		for _, p := range lv.positionsOf(v) {
			if int(p.st) == c.time {
				return c, int(p.node)
			}
		}
	}
	return nil, 0
}

// whileOut returns the while loop whose output holds value v (its init
// or its body's result) where the loop makes a phi of it, and the node of
// the output; nil when v reaches no loop's output or the loop's body
// passes it through unchanged (one value in that output's set: XLA's
// dataflow makes no phi of it).
func (lv *liveness) whileOut(v *hloValue) (*step, int) {
	for _, p := range lv.positionsOf(v) {
		if st := &lv.seq[p.st]; st.in.Opcode == hlo.OpWhile && len(st.sets[p.node]) > 1 {
			return st, int(p.node)
		}
	}
	return nil, 0
}

// splitConditional adds the allocations of value id, whose last use is the
// conditional cond, over [start, end]: one in each branch that uses it
// (split again where its last use there is a conditional), and one from
// start to the step before the first branch.
func (lv *liveness) splitConditional(id int32, uses []*step, cond *step, start, end int, add func(id int32, start, end int)) {
	first := end
	for _, c := range cond.in.Called {
		span, ok := lv.span[c]
		if !ok {
			continue
		}
		first = min(first, span[0])
		last, at := -1, (*step)(nil)
		for _, u := range uses {
			if u.in.Parent == c && u.time > last {
				last, at = u.time, u
			}
		}
		if at == nil {
			continue
		}
		last = min(last, end)
		if at.in.Opcode == hlo.OpConditional {
			lv.splitConditional(id, uses, at, span[0], last, add)
		} else {
			add(id, span[0], last)
		}
	}
	add(id, start, first-1)
}

// traceUses are the steps that use value v as XLA's HloValue::GetUses
// lists them: v.uses, and the root of a computation where v appears
// there, which counts as a use of the operand that passes v on (a tuple's
// element, a get-tuple-element's).
func (lv *liveness) traceUses(v *hloValue) []*step {
	out := make([]*step, 0, v.uses.n+1)
	for _, u := range lv.usesOf(v) {
		out = append(out, &lv.seq[u.st])
	}
	id := lv.def(v).defs[v.node]
	for _, p := range lv.positionsOf(v) {
		st := &lv.seq[p.st]
		in := st.in
		if in.Parent == nil || in.Parent.Root != in || slices.Contains(out, st) {
			continue
		}
		// st is a root holding v: it uses the operands that hold v.
		for _, op := range in.Operands {
			if os := lv.stepOf(op); os != nil && slices.ContainsFunc(os.sets, func(set []int32) bool { return slices.Contains(set, id) }) {
				out = append(out, st)
				break
			}
		}
	}
	return out
}

// untraced reports whether the heap simulator's trace, which XLA's peak
// replays, leaves value id out though the heap holds it: the context of an
// offloaded async op (scratch of another core), and on the TPU a tuple's
// index table, which the TPU's buffer assignment places in the temp
// allocation outside the heap simulation (every trace of the xla-diff
// seeds' TPU compiles that testdata/xladiff/gen/traces.py printed).
func (lv *liveness) untraced(id int32) bool {
	v := &lv.values[id]
	return v.offloaded || lv.t.Backend == BackendTPU && lv.shape(v).IsTuple()
}

// concatBitcastTarget is the custom call target of memory-space
// assignment's in-place concatenation (kConcatBitcastCustomCall).
const concatBitcastTarget = "ConcatBitcast"

func isConcatBitcast(in *hlo.Instruction) bool {
	if in.Opcode != hlo.OpCustomCall {
		return false
	}
	return in.CustomCallTarget() == concatBitcastTarget
}

// concatUses returns the uses and live range of value v as memory-space
// assignment sees them (GetUsesAndExtendIfConcatBitcast,
// GetTimeBoundAndExtendIfConcatBitcast): a use by a ConcatBitcast stands
// for the uses of its result, whose live range v's extends to.
func (lv *liveness) concatUses(v *hloValue) (uses []*step, start, end int) {
	start, end = v.start, v.end
	for _, u := range lv.traceUses(v) {
		if !isConcatBitcast(u.in) || len(u.defs) == 0 || u.defs[0] < 0 {
			uses = append(uses, u)
			continue
		}
		c := &lv.values[u.defs[0]]
		uses = append(uses, lv.traceUses(c)...)
		start, end = min(start, c.start), max(end, c.end)
	}
	return uses, start, end
}
