package layoutassign

import (
	"cmp"
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// Buffer is one buffer of a memory space as the report counts it: an
// allocation of its own (an entry parameter's, a constant's, an output's,
// with the buffers that reuse it), which XLA counts at every step of the
// program, or one buffer of the temp heap.
//
// Start and End are the steps at which the buffer holds memory in the
// space's Timeline: every step for an allocation of its own; for a
// temporary, the steps at whose fullest moment it is live (its first step
// is left out when it is allocated after that step's fullest moment, its
// last when it is freed before). They are empty (Start > End) for a
// temporary that lives only between two such moments. The buffers live at
// a step add up to the Timeline's bytes there (see SpaceReport.LiveAt).
type Buffer struct {
	Allocation
	// Aliases are the other places the buffer's memory appears, each
	// once, in schedule order: the values that share it (a while loop's
	// state, an in-place update's operand, a temporary written over an
	// operand that dies) and the instructions that pass a value of it on
	// (bitcast, get-tuple-element, tuple, the done half of an async pair,
	// the start's alias of its operand).
	Aliases []ValueRef
	// defined is the step of the first value's definition: the order of
	// buffers of one size and first step.
	defined int
}

// ValueRef names an array of an instruction's result: the instruction and
// the tuple index of the leaf (empty for an array result).
type ValueRef struct {
	Instruction *hlo.Instruction
	Index       []int64
}

// String is "name", or "name {1,2}" for a tuple leaf.
func (r ValueRef) String() string {
	if r.Instruction == nil {
		return ""
	}
	return r.Instruction.Name + indexSuffix(r.Index)
}

// Live reports whether the buffer holds memory at step.
func (b *Buffer) Live(step int) bool { return b.Start <= step && step <= b.End }

// LiveAt returns the buffers of the space live at step, largest first
// (then by their first step, then in the order of their definitions);
// their Cost.Bytes add up to Timeline[step].Bytes, and at PeakStep they
// are LiveAtPeak.
func (sp *SpaceReport) LiveAt(step int) []Buffer {
	idx := sp.liveAt(step)
	out := make([]Buffer, len(idx))
	for k, i := range idx {
		out[k] = sp.Buffers[i]
	}
	return out
}

// Sorted returns all the buffers of the space in LiveAt's order, so that
// those live at any step, taken in this order, are LiveAt's list.
func (sp *SpaceReport) Sorted() []Buffer {
	idx := sp.order(func(*Buffer) bool { return true })
	out := make([]Buffer, len(idx))
	for k, i := range idx {
		out[k] = sp.Buffers[i]
	}
	return out
}

// liveAt returns the indices of the buffers live at step in LiveAt's
// order.
func (sp *SpaceReport) liveAt(step int) []int {
	return sp.order(func(b *Buffer) bool { return b.Live(step) })
}

// order returns the indices of the buffers keep accepts, largest first,
// then by first step, then in the order of their definitions (the
// indices are sorted, not the buffers, which are large).
func (sp *SpaceReport) order(keep func(*Buffer) bool) []int {
	bs := sp.Buffers
	var idx []int
	for i := range bs {
		if keep(&bs[i]) {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(i, j int) int {
		a, b := &bs[i], &bs[j]
		return cmp.Or(cmp.Compare(b.Cost.Bytes, a.Cost.Bytes), cmp.Compare(a.Start, b.Start), cmp.Compare(a.defined, b.defined), cmp.Compare(i, j))
	})
	return idx
}

// fixedBuffer is the Buffer of an allocation of its own: live at every
// step.
func (lv *liveness) fixedBuffer(a *alloc) Buffer {
	b := Buffer{Allocation: lv.allocation(a.first, a.size, a.kind()), defined: int(lv.values[a.first].def)}
	b.Start, b.End = 0, max(len(lv.seq)-1, 0)
	if !lv.summary {
		b.Aliases = lv.aliasRefs(a.first, a.values)
	}
	return b
}

// bufferLife is the life of a buffer of a heap run: its span in events,
// [alloc, free), and the values in it (a list through tempLives.next, from
// first to last). A buffer freed and shared again at once (a value written
// over an operand that dies) keeps one life: the free is never the event a
// step shows, as the share after it holds more.
type bufferLife struct {
	alloc, free int
	root        int32
	first, last int32
	// start and end are the first and last steps at which the Timeline
	// counts the buffer: those whose shown event falls in [alloc, free).
	start, end int
}

// tempLives are the lives of a heap run's buffers, in the order of their
// first allocation, and the event each step of the space's Timeline shows.
type tempLives struct {
	// at[s] is the event whose state the Timeline shows at step s: the
	// first event of s reaching the most s holds, or, for a step without
	// events, the last event before it (-1: none yet).
	at    []int
	lives []bufferLife
	// next links the members of a life: a value -> the next one, plus
	// one.
	next []int32
}

// tempLives replays the run for the lives of its buffers.
func (lv *liveness) tempLives(r *heapRun) tempLives {
	tl := tempLives{at: make([]int, len(lv.seq)), next: make([]int32, len(r.size))}
	at, next := tl.at, tl.next
	for s := range at {
		at[s] = -1
	}
	starts := 0 // each allocation starts a life, and so may a share
	for _, e := range r.events {
		if e.kind != evFree {
			starts++
		}
	}
	lives := make([]bufferLife, 0, starts)
	lifeOf := make([]int32, len(r.size)) // by the value naming the buffer: its life, plus one
	bufs := newBufferRefs(len(r.size))
	var mem, most int64
	for i, e := range r.events {
		buf, change := bufs.apply(e)
		switch change {
		case +1:
			mem += r.size[buf]
			if k := lifeOf[buf]; k > 0 {
				lives[k-1].free = len(r.events)
			} else {
				lives = append(lives, bufferLife{alloc: i, free: len(r.events), root: buf, first: -1, last: -1})
				lifeOf[buf] = int32(len(lives))
			}
		case -1:
			mem -= r.size[buf]
			lives[lifeOf[buf]-1].free = i
		}
		if e.kind != evFree {
			l := &lives[lifeOf[buf]-1]
			if l.last < 0 {
				l.first = e.v
			} else {
				next[l.last] = e.v + 1
			}
			l.last = e.v
		}
		switch {
		case i == 0 || e.time != r.events[i-1].time:
			// A new step: the steps since the last one show its last event.
			if i > 0 {
				fill(at, r.events[i-1].time+1, e.time, i-1)
			}
			most = mem
			set(at, e.time, i)
		case mem > most:
			most = mem
			set(at, e.time, i)
		}
	}
	if n := len(r.events); n > 0 {
		fill(at, r.events[n-1].time+1, len(at), n-1)
	}
	for k := range lives {
		// at does not decrease: the steps are one run.
		l := &lives[k]
		l.start, l.end = firstIndex(at, l.alloc), firstIndex(at, l.free)-1
	}
	tl.lives = lives
	return tl
}

// appendTempBuffers appends to out the buffers of a heap run whose lives
// are tl, each with the steps it is live at as the space's Timeline counts
// them; in a summary (liveness.summary) only those live at step peak,
// without their aliases.
func (lv *liveness) appendTempBuffers(out []Buffer, tl tempLives, sizes []int64, peak int) []Buffer {
	out = slices.Grow(out, tl.count(lv.summary, peak))
	var members []int32
	for _, l := range tl.lives {
		if lv.summary && (peak < l.start || peak > l.end) {
			continue
		}
		b := Buffer{Allocation: lv.allocation(l.root, sizes[lv.bufOf[l.root]], KindTemp), defined: int(lv.values[l.root].def)}
		b.Start, b.End = l.start, l.end
		if !lv.summary {
			members = members[:0]
			for v := l.first; v >= 0; v = tl.next[v] - 1 {
				members = append(members, v)
			}
			b.Aliases = lv.aliasRefs(l.root, members)
		}
		out = append(out, b)
	}
	return out
}

// count is how many buffers appendTempBuffers makes of the lives: one a
// life, or in a summary one a life the Timeline counts at step peak.
func (tl tempLives) count(summary bool, peak int) int {
	if !summary {
		return len(tl.lives)
	}
	n := 0
	for _, l := range tl.lives {
		if l.start <= peak && peak <= l.end {
			n++
		}
	}
	return n
}

// fill sets at[s] = e for the steps from <= s < to that at holds.
func fill(at []int, from, to, e int) {
	for s := from; s < min(to, len(at)); s++ {
		at[s] = e
	}
}

// set sets at[s] = e when at holds step s (a value may end at the step
// after the last).
func set(at []int, s, e int) {
	if s < len(at) {
		at[s] = e
	}
}

// firstIndex returns the first index of at (nondecreasing) whose event is
// e or later, len(at) when there is none.
func firstIndex(at []int, e int) int {
	i, _ := slices.BinarySearch(at, e)
	return i
}

// aliasRefs names the places other than value first's definition where
// the memory of values (first among them or not) appears: the other
// values' definitions and every value's positions, each instruction leaf
// once, in schedule order.
func (lv *liveness) aliasRefs(first int32, values []int32) []ValueRef {
	n := len(values)
	for _, id := range values {
		n += int(lv.values[id].positions.n)
	}
	if n == 1 && lv.values[values[0]].def == lv.values[first].def {
		return nil // the common case: a buffer of one value in one place
	}
	ps := make([]position, 0, n)
	for _, id := range values {
		v := &lv.values[id]
		ps = append(ps, position{v.def, v.node})
		ps = append(ps, lv.positionsOf(v)...)
	}
	ref := func(p position) ValueRef {
		st := &lv.seq[p.st]
		in := st.in
		if o := lv.orig[in]; o != nil {
			in = o
		}
		return ValueRef{in, st.nodes[p.node].path}
	}
	same := func(a, b ValueRef) bool { return a.Instruction == b.Instruction && slices.Equal(a.Index, b.Index) }
	slices.SortStableFunc(ps, func(a, b position) int { return cmp.Compare(a.st, b.st) })
	fv := &lv.values[first]
	own := ref(position{fv.def, fv.node})
	out := make([]ValueRef, 0, len(ps))
	// A computation run from several call sites appears once per site in
	// the flattened schedule (lv.orig maps the copies): one name is
	// enough, and seen holds the refs in out by instruction (a buffer
	// reused by many values would make a search of out quadratic).
	// Without copies two places name the same ref only at the same step:
	// the refs of the current step (out[group:]) are enough to search.
	var seen map[*hlo.Instruction][]ValueRef
	if lv.orig != nil {
		seen = map[*hlo.Instruction][]ValueRef{}
	}
	group := 0
	for i, p := range ps {
		if i > 0 && p.st != ps[i-1].st {
			group = len(out)
		}
		r := ref(p)
		if same(r, own) {
			continue
		}
		if seen != nil {
			if slices.ContainsFunc(seen[r.Instruction], func(o ValueRef) bool { return same(o, r) }) {
				continue
			}
			seen[r.Instruction] = append(seen[r.Instruction], r)
		} else if slices.ContainsFunc(out[group:], func(o ValueRef) bool { return same(o, r) }) {
			continue
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// unpadded is the data of value id in a buffer of size bytes: a tuple's
// pointer table, 8 bytes an element; an array's unpadded bytes; never
// more than size.
func (lv *liveness) unpadded(id int32, size int64) int64 {
	switch s := lv.shape(&lv.values[id]); {
	case s.IsTuple():
		return min(PointerBytes*int64(len(s.Tuple)), size)
	case lv.valueCosts[id] != nil:
		return min(lv.valueCosts[id].Unpadded, size)
	}
	return size
}
