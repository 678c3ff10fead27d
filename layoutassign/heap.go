package layoutassign

import (
	"cmp"
	"math"
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// This file follows XLA's HeapSimulator
// (xla/service/heap_simulator/heap_simulator.cc): the temporaries of one
// memory space are replayed in schedule order as allocations, frees and
// shares, and placed in one heap by the two global decreasing-size
// best-fit heaps buffer assignment tries (by size and by duration),
// keeping the smaller.

type eventKind uint8

const (
	evAlloc eventKind = iota
	evShare
	evFree
)

// heapEvent is one call of the heap simulator: value v allocated, freed,
// or sharing the memory of value with, at schedule step time.
type heapEvent struct {
	kind eventKind
	v    int32
	with int32
	time int
}

// stepMem is what the temporaries hold during one step (the most, padded
// and unpadded) and after it.
type stepMem struct {
	step                   int
	most, mostU, end, endU int64
}

// heapRun is the simulation of one memory space's temporaries.
type heapRun struct {
	space  int64
	events []heapEvent
	// size is each value's size in the heap (its buffer's), unpadded its
	// data without padding, by value id (0 for the values of other heaps).
	size, unpadded []int64
	// series is what the temporaries hold at each step with events, in
	// step order.
	series []stepMem
	// Peak is the most memory the temporaries hold at once (a shared
	// buffer counted once), PeakEvent the first event reaching it.
	peak      int64
	peakEvent int
	// tracedPeak is the peak of the buffers the heap simulator's trace
	// holds, those of the untraced values left out (see
	// liveness.untraced), as XLA's peak_memory_in_bytes replays it;
	// untraced are those values.
	tracedPeak int64
	untraced   map[int32]bool
	// heapSize is the heap the best-fit placement needs; noFrag XLA's
	// fragmentation-free figure (NoFragmentationStatsHeap, which counts a
	// share as an allocation).
	heapSize, noFrag int64
}

// simulate replays the values ids (the temporaries of one memory space)
// over the schedule, as HeapSimulator::RunComputation does in whole-module
// mode: at each step the values starting there are defined (sorted by
// range, then id), each sharing the buffer of a value of its own buffer
// already placed, or else of an operand that dies at this step when XLA
// lets an instruction write its result over that operand
// (canShareOperand); then the values ending there are freed.
func (lv *liveness) simulate(space int64, ids []int32, bufOf []int32, bufSize []int64, bufLen []int) *heapRun {
	r := &heapRun{space: space, size: make([]int64, len(lv.values)), unpadded: make([]int64, len(lv.values))}
	n := len(lv.seq) + 1
	// ids by start, then end, then id: sorted by id, then stably by end,
	// then by start.
	if !slices.IsSorted(ids) {
		slices.Sort(ids)
	}
	spare := make([]int32, len(ids))
	countingSort(spare, ids, n, func(id int32) int { return lv.values[id].end })
	countingSort(ids, spare, n, func(id int32) int { return lv.values[id].start })
	// The values freed at each step, in the order of ids, are
	// freed[freedAt[t]:freedAt[t+1]] (a counting sort by end).
	freedAt := make([]int32, n+1)
	in := make([]bool, len(lv.values))
	for _, id := range ids {
		v := &lv.values[id]
		freedAt[v.end+1]++
		in[id] = true
		r.size[id] = bufSize[bufOf[id]]
		r.unpadded[id] = lv.unpadded(id, r.size[id])
		if lv.untraced(id) {
			if r.untraced == nil {
				r.untraced = map[int32]bool{}
			}
			r.untraced[id] = true
		}
	}
	for t := range n {
		freedAt[t+1] += freedAt[t]
	}
	freed, next := spare, slices.Clone(freedAt[:n])
	for _, id := range ids {
		e := lv.values[id].end
		freed[next[e]] = id
		next[e]++
	}
	// Every value is defined (allocated or shared) once and freed once.
	r.events = make([]heapEvent, 0, 2*len(ids))
	first := make([]int32, len(bufSize)) // buffer -> its value placed first, plus one
	k := 0                               // the next value of ids to define (they are sorted by start)
	for t := range n {
		freeing := freed[freedAt[t]:freedAt[t+1]]
		for ; k < len(ids) && lv.values[ids[k]].start == t; k++ {
			id := ids[k]
			b := bufOf[id]
			if fv := first[b] - 1; fv >= 0 {
				r.events = append(r.events, heapEvent{evShare, id, fv, t})
				continue
			}
			if bufLen[b] == 1 {
				if ov, ok := lv.reusableOperand(id, t, freeing, in, bufOf, bufLen); ok {
					freeing = slices.DeleteFunc(freeing, func(x int32) bool { return x == ov })
					r.events = append(r.events, heapEvent{evFree, ov, -1, t}, heapEvent{evShare, id, ov, t})
					lv.values[ov].end = lv.values[id].end
					continue
				}
			}
			r.events = append(r.events, heapEvent{evAlloc, id, -1, t})
			first[b] = id + 1
		}
		for _, id := range freeing {
			r.events = append(r.events, heapEvent{evFree, id, -1, t})
		}
	}
	r.replay()
	return r
}

// countingSort writes src to dst ordered by key (from 0 to n-1), stably.
func countingSort(dst, src []int32, n int, key func(id int32) int) {
	at := make([]int32, n+1)
	for _, id := range src {
		at[key(id)+1]++
	}
	for k := range n {
		at[k+1] += at[k]
	}
	for _, id := range src {
		k := key(id)
		dst[at[k]] = id
		at[k]++
	}
}

// place packs the run's temporaries into their heap (heapSize), as
// buffer assignment does, by the best of XLA's two best-fit orders
// (ChooseBestHeapAlgorithm keeps the smaller heap; only its size is
// reported). The temporaries' peak bounds every placement from below
// (the values live at once sit side by side in any heap), so when the
// size order, the one that wins almost always, reaches it the duration
// order cannot do better and is not run; otherwise it runs after, in
// the same heap index. A run replayed for its peak alone needs no
// placement.
func (r *heapRun) place(align int64) {
	ivs, horizon := r.intervals()
	idx := &heapIndex{}
	r.heapSize, _ = r.fit(ivs, horizon, spatial, align, idx)
	if r.heapSize > r.peak {
		size, _ := r.fit(ivs, horizon, temporal, align, idx)
		r.heapSize = min(r.heapSize, size)
	}
}

// reusableOperand finds an operand value of id's instruction whose buffer
// id may take over at step t: defined by an operand, alone in its buffer,
// in this heap, ending at t and not yet freed or shared.
func (lv *liveness) reusableOperand(id int32, t int, freeing []int32, in []bool, bufOf []int32, bufLen []int) (int32, bool) {
	v := &lv.values[id]
	user := lv.def(v).in
	if user.Opcode == hlo.OpCopy {
		return 0, false
	}
	for _, op := range user.Operands {
		os := lv.stepOf(op)
		if os == nil {
			continue
		}
		for _, ov := range os.sets[0] {
			o := &lv.values[ov]
			if !in[ov] || bufLen[bufOf[ov]] > 1 || o.end != t || !slices.Contains(freeing, ov) ||
				!slices.Contains(user.Operands, lv.def(o).in) {
				continue
			}
			if canShareOperand(lv.def(o).in, lv.path(o), user, lv.path(v), lv.t.Backend) {
				return ov, true
			}
		}
	}
	return 0, false
}

// replay computes the peak of the events the way XLA's ComputePeakMemory
// replays a heap trace: an allocation adds its size, a share adds nothing
// while the shared buffer is live, a free subtracts a buffer when its last
// sharer goes. It also computes NoFragmentationStatsHeap's figure, where a
// share adds its size like an allocation.
func (r *heapRun) replay() {
	bufs := newBufferRefs(len(r.size))
	var mem, noFrag, memU, traced int64
	r.peakEvent = -1
	steps := 0
	for i, e := range r.events {
		if i == 0 || e.time != r.events[i-1].time {
			steps++
		}
	}
	r.series = make([]stepMem, 0, steps)
	for i, e := range r.events {
		switch buf, change := bufs.apply(e); change {
		case +1:
			mem += r.size[buf]
			memU += r.unpadded[buf]
			if !r.untraced[buf] {
				traced += r.size[buf]
			}
		case -1:
			mem -= r.size[buf]
			memU -= r.unpadded[buf]
			if !r.untraced[buf] {
				traced -= r.size[buf]
			}
		}
		r.tracedPeak = max(r.tracedPeak, traced)
		if e.kind == evFree {
			noFrag -= r.size[e.v]
		} else {
			noFrag += r.size[e.v]
		}
		if mem > r.peak {
			r.peak, r.peakEvent = mem, i
		}
		if n := len(r.series); n == 0 || r.series[n-1].step != e.time {
			r.series = append(r.series, stepMem{step: e.time, most: mem, mostU: memU})
		} else if mem > r.series[n-1].most {
			r.series[n-1].most, r.series[n-1].mostU = mem, memU
		}
		r.series[len(r.series)-1].end, r.series[len(r.series)-1].endU = mem, memU
		r.noFrag = max(r.noFrag, noFrag)
	}
}

// liveAtPeak returns the values holding memory at the first event that
// reaches the peak (a shared buffer listed once, by the value that
// allocated it), in value id order, as XLA's
// ComputePeakMemoryLogicalBuffers.
func (r *heapRun) liveAtPeak() []int32 {
	if r.peakEvent < 0 {
		return nil
	}
	bufs := newBufferRefs(len(r.size))
	live := map[int32]bool{}
	for _, e := range r.events[:r.peakEvent+1] {
		switch buf, change := bufs.apply(e); change {
		case +1:
			live[buf] = true
		case -1:
			delete(live, buf)
		}
	}
	out := make([]int32, 0, len(live))
	for id := range live {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// bufferRefs follows the buffers of a replayed heap trace: a buffer is
// named by the value that allocated it, a share uses the buffer of the
// value it shares with, and a buffer is live while a value uses it.
type bufferRefs struct {
	root []int32 // a sharing value -> the value it shares with, plus one (0: none)
	refs []int32 // buffer -> the values using it
}

// newBufferRefs follows the buffers of values 0 to n-1.
func newBufferRefs(n int) bufferRefs {
	return bufferRefs{root: make([]int32, n), refs: make([]int32, n)}
}

// apply replays e and returns the buffer it touches and +1 when e makes
// that buffer live, -1 when e frees it, 0 otherwise.
func (b bufferRefs) apply(e heapEvent) (buf int32, change int) {
	switch e.kind {
	case evAlloc:
		buf = e.v
	case evShare:
		buf = b.buffer(e.with)
		b.root[e.v] = buf + 1
	case evFree:
		buf = b.buffer(e.v)
		b.root[e.v] = 0
		if b.refs[buf]--; b.refs[buf] == 0 {
			return buf, -1
		}
		return buf, 0
	}
	if b.refs[buf]++; b.refs[buf] == 1 {
		return buf, +1
	}
	return buf, 0
}

// buffer returns the buffer value v uses.
func (b bufferRefs) buffer(v int32) int32 {
	for b.root[v] != 0 {
		v = b.root[v] - 1
	}
	return v
}

// interval is one value's life in event time, as the best-fit heap sees
// it: a value placed on its own (need) or sharing the placement of the
// value it was shared with (its colocations, always later intervals).
// colocatedEnd is the latest end of it and its colocations, theirs and so
// on. Intervals start at distinct times, in the order of their indices;
// last is the index of the last interval that starts no later than this
// one ends, so that interval j overlaps interval i in time exactly when
// j <= i.last and i <= j.last (the heap index's times).
type interval struct {
	id           int32
	size         int64
	start, end   int
	last         int
	need         bool
	colocations  []int
	colocatedEnd int
}

type intervalOrder func(a, b *interval) int

// heapOrder is one of the best-fit orders: cmp, and the same order as the
// keys of a radix sort. keys gives an interval's major and minor keys
// (each from 0 to max(horizon, the intervals), ascending; then by id)
// from its size's rank among the intervals' sizes (0 the largest) and
// horizon, the time after the last event.
type heapOrder struct {
	cmp  intervalOrder
	keys func(iv *interval, sizeRank, horizon int) (major, minor int)
}

var (
	spatial = heapOrder{spatialOrder, func(iv *interval, rank, horizon int) (int, int) {
		return rank, horizon - (iv.end - iv.start)
	}}
	temporal = heapOrder{temporalOrder, func(iv *interval, rank, horizon int) (int, int) {
		return horizon - (iv.colocatedEnd - iv.start), rank
	}}
)

// sort returns the indices of ivs in the order, as a radix sort: by id,
// then stably by the minor key, then by the major.
func (o heapOrder) sort(ivs []interval, horizon int) []int32 {
	sizes := make([]int64, len(ivs))
	idAndIndex := make([]int64, len(ivs))
	for k := range ivs {
		sizes[k], idAndIndex[k] = ivs[k].size, int64(ivs[k].id)<<32|int64(k)
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes) // ascending: size rank len(sizes)-1 is the smallest
	slices.Sort(idAndIndex)
	byID, ids := make([]int32, len(ivs)), make([]int32, len(ivs))
	for i, x := range idAndIndex {
		byID[i] = int32(x)
	}
	major, minor := make([]int, len(ivs)), make([]int, len(ivs))
	for k := range ivs {
		i, _ := slices.BinarySearch(sizes, ivs[k].size)
		major[k], minor[k] = o.keys(&ivs[k], len(sizes)-1-i, horizon)
	}
	n := max(horizon, len(ivs)) + 1
	countingSort(ids, byID, n, func(k int32) int { return minor[k] })
	countingSort(byID, ids, n, func(k int32) int { return major[k] })
	return byID
}

// spatialOrder puts larger values first, then longer lived, then by id.
func spatialOrder(a, b *interval) int {
	return cmp.Or(cmp.Compare(b.size, a.size), cmp.Compare(a.start-a.end, b.start-b.end), cmp.Compare(a.id, b.id))
}

// temporalOrder puts longer lived values first (colocations included),
// then larger, then by id.
func temporalOrder(a, b *interval) int {
	return cmp.Or(cmp.Compare(a.start-a.colocatedEnd, b.start-b.colocatedEnd), cmp.Compare(b.size, a.size), cmp.Compare(a.id, b.id))
}

// transitive appends to out the intervals placed with iv (its
// colocations, theirs and so on; they form a tree, each interval sharing
// with one earlier interval).
func transitive(out []int, iv *interval, ivs []interval) []int {
	for _, k := range iv.colocations {
		out = append(out, k)
		out = transitive(out, &ivs[k], ivs)
	}
	return out
}

// intervals turns the events into the intervals of the best-fit heaps:
// event time advances by one for every allocation, share or free of a
// buffer that is not empty. It returns them with the time after the last
// event.
func (r *heapRun) intervals() ([]interval, int) {
	placed := 0
	for _, e := range r.events {
		if e.kind != evFree && r.size[e.v] != 0 {
			placed++
		}
	}
	ivs := make([]interval, 0, placed)
	at := make([]int32, len(r.size)) // value -> its interval, plus one
	now := 0
	for _, e := range r.events {
		size := r.size[e.v]
		if size == 0 {
			continue
		}
		switch e.kind {
		case evAlloc, evShare:
			at[e.v] = int32(len(ivs)) + 1
			ivs = append(ivs, interval{id: e.v, size: size, start: now, end: -1, need: e.kind == evAlloc})
			if e.kind == evShare {
				if w := at[e.with] - 1; w >= 0 {
					ivs[w].colocations = append(ivs[w].colocations, len(ivs)-1)
				}
			}
		case evFree:
			if k := at[e.v] - 1; k >= 0 {
				ivs[k].end, ivs[k].last = now, len(ivs)-1
			}
		}
		now++
	}
	// Colocations come after the interval they share with: the latest
	// end of each tree is known once its later members are.
	for i := len(ivs) - 1; i >= 0; i-- {
		iv := &ivs[i]
		if iv.end < 0 {
			iv.end, iv.last = now, len(ivs)-1
		}
		iv.colocatedEnd = iv.end
		for _, k := range iv.colocations {
			iv.colocatedEnd = max(iv.colocatedEnd, ivs[k].colocatedEnd)
		}
	}
	return ivs, now
}

// bestFit places the intervals in the given order (see fit) and returns
// the heap size and each value's offset by id, -1 where none.
func (r *heapRun) bestFit(order heapOrder, align int64) (int64, []int64) {
	ivs, horizon := r.intervals()
	return r.fit(ivs, horizon, order, align, &heapIndex{})
}

// fit places the intervals ivs (horizon the time after the last event)
// in the given order, each in the smallest gap (then the lowest) that no
// placed interval overlapping it or its colocations in time uses, else
// above them all, and returns the heap
// size and each value's offset by id, -1 where none (XLA's
// GlobalDecreasingSizeBestFitHeap without slicing). A gap starts at the
// aligned end of a placed interval: it is a hole in the union of the
// placed intervals' [offset, aligned end), which the heap index idx
// (emptied first) gives for any time range.
func (r *heapRun) fit(ivs []interval, horizon int, order heapOrder, align int64, idx *heapIndex) (int64, []int64) {
	offsets := make([]int64, len(r.size)) // by value id, -1 for a value not placed
	for i := range offsets {
		offsets[i] = -1
	}
	idx.reset(len(ivs))
	var heap int64
	var group []int
	var times []timeRange
	for _, k32 := range order.sort(ivs, horizon) {
		k := int(k32)
		iv := &ivs[k]
		if !iv.need {
			continue
		}
		group = transitive(append(group[:0], k), iv, ivs)
		size := int64(0)
		for _, g := range group {
			size = max(size, ivs[g].size)
		}
		times = groupTimes(times[:0], group, ivs)
		for _, t := range times {
			idx.collect(t.first, t.last)
		}
		off := idx.bestGap(size)
		used := span{off, alignUp(off+size, align)}
		for _, t := range times {
			idx.add(t.first, t.last, used)
		}
		for _, g := range group {
			offsets[ivs[g].id] = off
		}
		heap = max(heap, off+size)
	}
	return heap, offsets
}

// timeRange is the times [first, last] of the heap index.
type timeRange struct{ first, last int }

// groupTimes appends to out the times of the intervals of group (sorted
// in place) joined where they overlap or touch: a value and the one
// sharing its buffer as it dies live at times next to each other. An
// interval overlaps two ranges that touch exactly when it overlaps their
// join (it ends no earlier than it starts), so the heap index is asked
// and told once for each.
func groupTimes(out []timeRange, group []int, ivs []interval) []timeRange {
	slices.Sort(group)
	for _, g := range group {
		if n := len(out); n > 0 && g <= out[n-1].last+1 {
			out[n-1].last = max(out[n-1].last, ivs[g].last)
			continue
		}
		out = append(out, timeRange{g, ivs[g].last})
	}
	return out
}

// span is the bytes [lo, hi) of the heap.
type span struct{ lo, hi int64 }

// heapIndex holds the heap bytes that placed intervals use, by time (the
// index of the interval starting then), in two segment trees (node 1 the
// root, node i the parent of 2i and 2i+1, leaf t at size+t): cover[v] is
// the union of the spans of the intervals of which v is a node of the
// canonical cover, starts[v] that of the intervals that start within v's
// times. An interval overlaps the times [s, e] when it covers s (the
// cover unions on the path from s's leaf to the root) or starts in (s, e]
// (the start unions of that range's canonical cover). Each union is a
// sorted list of disjoint spans; the placed intervals of a best-fit heap
// pack tightly, so most lists stay short (one span for most nodes of the
// unrolled training step of hlogen), though some grow long while the
// temporal order places its short-lived values.
//
// A union is a block of the arena (its room a power of two, moved to a
// block twice as large when full, its old block kept for reuse in a free
// list by room) until it outgrows bigUnion spans; then it becomes a
// spanSet of big, whose blocks keep an insertion in a long union from
// moving the whole tail. The index holds no pointers but big's: the
// collector neither scans its hundreds of thousands of unions nor
// tracks writes to them, and the index is reused from one order to the
// next.
type heapIndex struct {
	size          int
	cover, starts []spanList
	arena         []span
	// free[k] is the first free block of room 1<<k (its offset plus one;
	// a free block's first span holds the next one's in lo).
	free [bigRoomLog + 1]int32
	big  []spanSet
	// found are the spans collect gathered since the last bestGap: their
	// union (sorted, disjoint and not touching) unless unsorted.
	found    []span
	unsorted bool
}

// spanList is one node's union of spans: arena[off:off+n] in a block of
// room 1<<room, or big[off] when room is bigRoom.
type spanList struct {
	off, n int32
	room   int8
}

const (
	// bigRoomLog bounds the arena blocks: a union of more than
	// 1<<bigRoomLog spans moves to a spanSet.
	bigRoomLog = 8
	bigRoom    = bigRoomLog + 1
	// foundMerged bounds the union a query gathers: past it, the rest of
	// its spans are appended as they come and sorted once.
	foundMerged = 32
)

// reset empties the index for intervals at times 0 to times-1.
func (x *heapIndex) reset(times int) {
	x.size = 1
	for x.size < times {
		x.size *= 2
	}
	x.cover = slices.Grow(x.cover[:0], 2*x.size)[:2*x.size]
	x.starts = slices.Grow(x.starts[:0], 2*x.size)[:2*x.size]
	clear(x.cover)
	clear(x.starts)
	// Room for 8 spans an interval, as one allocation: the blocks of the
	// unrolled training step of hlogen take about 6.
	x.arena = slices.Grow(x.arena[:0], 8*times)
	x.free = [bigRoomLog + 1]int32{}
	clear(x.big)
	x.big = x.big[:0]
	x.found, x.unsorted = x.found[:0], false
}

// add records that an interval living at times [s, e] uses sp.
func (x *heapIndex) add(s, e int, sp span) {
	for l, r := s+x.size, e+x.size+1; l < r; l, r = l/2, r/2 {
		if l&1 == 1 {
			x.unite(&x.cover[l], sp)
			l++
		}
		if r&1 == 1 {
			r--
			x.unite(&x.cover[r], sp)
		}
	}
	for v := s + x.size; v >= 1; v /= 2 {
		if !x.unite(&x.starts[v], sp) {
			break // a node's start union holds its children's: its ancestors hold sp too
		}
	}
}

// unite adds sp to the union u and says whether u grew (false when it
// held sp already; true for a spanSet).
func (x *heapIndex) unite(u *spanList, sp span) bool {
	if u.room == bigRoom {
		x.big[u.off].add(sp)
		return true
	}
	if u.n == 0 {
		u.off, u.n, u.room = x.block(0), 1, 0
		x.arena[u.off] = sp
		return true
	}
	if u.n == 1 { // most unions, as the placed spans pack tightly
		y := &x.arena[u.off]
		switch {
		case y.lo <= sp.lo && sp.hi <= y.hi:
			return false
		case y.hi >= sp.lo && y.lo <= sp.hi: // they overlap or touch
			y.lo, y.hi = min(y.lo, sp.lo), max(y.hi, sp.hi)
			return true
		}
	}
	s := x.arena[u.off : u.off+u.n]
	p, n := touching(s, sp)
	if n == 1 && s[p].lo <= sp.lo && sp.hi <= s[p].hi {
		return false
	}
	if n > 0 {
		u.n = int32(len(absorb(s, p, n, sp)))
		return true
	}
	if int(u.n) == 1<<u.room {
		if u.room == bigRoomLog {
			set := spanSet{}
			set.c.blocks = [][]span{append(make([]span, 0, chunkLen), s...)}
			set.add(sp)
			x.release(u)
			x.big = append(x.big, set)
			u.off, u.n, u.room = int32(len(x.big)-1), 0, bigRoom
			return true
		}
		off := x.block(u.room + 1)
		copy(x.arena[off:], x.arena[u.off:u.off+u.n])
		x.release(u)
		u.off, u.room = off, u.room+1
		s = x.arena[u.off : u.off+u.n]
	}
	s = s[:len(s)+1]
	copy(s[p+1:], s[p:])
	s[p] = sp
	u.n++
	return true
}

// touching returns the first span of the union s that sp overlaps or
// touches, and how many it does.
func touching(s []span, sp span) (p, n int) {
	p, hi := 0, len(s)
	for p < hi {
		m := int(uint(p+hi) >> 1)
		if s[m].hi >= sp.lo {
			hi = m
		} else {
			p = m + 1
		}
	}
	for _, y := range s[p:] {
		if y.lo > sp.hi {
			break
		}
		n++
	}
	return p, n
}

// absorb replaces the n spans of the union s from p, which sp overlaps or
// touches, by one span covering them and sp, and returns the union.
func absorb(s []span, p, n int, sp span) []span {
	s[p] = span{min(sp.lo, s[p].lo), max(sp.hi, s[p+n-1].hi)}
	if n == 1 {
		return s
	}
	return append(s[:p+1], s[p+n:]...)
}

// block returns the offset of a free block of room 1<<k.
func (x *heapIndex) block(k int8) int32 {
	if f := x.free[k]; f > 0 {
		x.free[k] = int32(x.arena[f-1].lo)
		return f - 1
	}
	off := len(x.arena)
	x.arena = slices.Grow(x.arena, 1<<k)[:off+(1<<k)]
	return int32(off)
}

// release puts u's block in the free list of its room.
func (x *heapIndex) release(u *spanList) {
	x.arena[u.off].lo = int64(x.free[u.room])
	x.free[u.room] = u.off + 1
}

// appendTo appends the spans of u to out.
func (x *heapIndex) appendTo(out []span, u *spanList) []span {
	if u.room == bigRoom {
		return x.big[u.off].appendTo(out)
	}
	return append(out, x.arena[u.off:u.off+u.n]...)
}

// gather adds the spans of u to found: each merged into its union while
// found is one (a query's union of the tightly packed spans of a best-fit
// heap has a few spans, found no more than foundMerged), else appended.
func (x *heapIndex) gather(u *spanList) {
	if u.room == bigRoom {
		x.found, x.unsorted = x.appendTo(x.found, u), true
		return
	}
	list, f := x.arena[u.off:u.off+u.n], x.found
	if x.unsorted {
		x.found = append(f, list...)
		return
	}
	for i, sp := range list {
		p := 0 // the first span of f that sp overlaps or touches, or follows
		for p < len(f) && f[p].hi < sp.lo {
			p++
		}
		n := 0
		for p+n < len(f) && f[p+n].lo <= sp.hi {
			n++
		}
		switch {
		case n > 0:
			f = absorb(f, p, n, sp)
		case len(f) < foundMerged:
			f = append(f, span{})
			copy(f[p+1:], f[p:])
			f[p] = sp
		default:
			x.found, x.unsorted = append(f, list[i:]...), true
			return
		}
	}
	x.found = f
}

// collect gathers the spans used by the intervals that overlap [s, e].
func (x *heapIndex) collect(s, e int) {
	for v := s + x.size; v >= 1; v /= 2 {
		if u := &x.cover[v]; u.n > 0 || u.room == bigRoom {
			x.gather(u)
		}
	}
	for l, r := s+1+x.size, e+x.size+1; l < r; l, r = l/2, r/2 {
		if l&1 == 1 {
			if u := &x.starts[l]; u.n > 0 || u.room == bigRoom {
				x.gather(u)
			}
			l++
		}
		if r&1 == 1 {
			r--
			if u := &x.starts[r]; u.n > 0 || u.room == bigRoom {
				x.gather(u)
			}
		}
	}
}

// bestGap returns the offset of the smallest hole (then the lowest) in the
// union of the spans collected that holds size bytes, else the end of the
// union, and forgets the spans.
func (x *heapIndex) bestGap(size int64) int64 {
	if x.unsorted {
		slices.SortFunc(x.found, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	}
	best, bestLen := int64(-1), int64(math.MaxInt64)
	free := int64(0) // start of the current hole
	for _, sp := range x.found {
		if sp.lo > free {
			if gap := sp.lo - free; gap >= size && gap < bestLen {
				best, bestLen = free, gap
			}
		}
		free = max(free, sp.hi)
	}
	x.found, x.unsorted = x.found[:0], false
	if best < 0 {
		return free
	}
	return best
}

func alignUp(n, a int64) int64 {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}
