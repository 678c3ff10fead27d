package layoutassign

import "github.com/hlo-opt/hlo-opt/hlo"

// The interference checks of assign, indexed so that a buffer finds the
// allocation it may reuse without comparing its values with every value
// of every allocation (XLA's BufferAssigner does that, which is quadratic
// in a long entry computation).
//
// Times are doubled: a value live at the steps [s, e] has the interior
// [2s+1, 2e), as a half-open span, and a query for [s, e] is [2s, 2e+1).
// A value whose interior meets the query interferes with the queried
// value whatever else holds (interfere's exceptions are for ranges that
// only touch); one that only touches it (its end at s, its start at e, or
// a range of one step inside [s, e]) is checked with interfere.

// occupancy is what an allocation holds, for the interference checks
// (besides its values' interiors, a leaf of its tree): its values by
// start and by end.
type occupancy struct {
	byStart, byEnd keyed
}

// interiorOf is the doubled-time interior of a value live at [s, e]
// (empty when s == e).
func interiorOf(v *hloValue) span { return span{2*int64(v.start) + 1, 2 * int64(v.end)} }

// queryOf is the doubled-time span a value live at [s, e] is checked with.
func queryOf(v *hloValue) span { return span{2 * int64(v.start), 2*int64(v.end) + 1} }

// allocTree holds the allocations of one memory space that buffers may
// reuse, in the order they were made, as the leaves of a segment tree
// (node 1 the root, node i the parent of 2i and 2i+1) whose every node
// keeps the doubled times at which all the allocations below it hold a
// value's interior (a missing leaf holds none). A buffer one of whose
// values meets those times interferes with every allocation below the
// node, which the search for the last allocation that fits skips at once.
type allocTree struct {
	leaves int
	allocs []*alloc
	all    []spanSet
	// delta and next are scratch for add.
	delta, next []span
}

func newAllocTree(capacity int) *allocTree {
	n := 1
	for n < capacity {
		n *= 2
	}
	return &allocTree{leaves: n, all: make([]spanSet, 2*n)}
}

// push appends a, which holds nothing yet, as the last leaf.
func (t *allocTree) push(a *alloc) {
	a.tree, a.pos = t, len(t.allocs)
	t.allocs = append(t.allocs, a)
}

// interior returns the united interiors of a's values.
func (t *allocTree) interior(a *alloc) *spanSet { return &t.all[t.leaves+a.pos] }

// add records that a (a leaf of t) now also holds the interior x.
func (t *allocTree) add(a *alloc, x span) {
	v := t.leaves + a.pos
	t.delta = t.all[v].minus(t.delta[:0], x)
	for len(t.delta) > 0 {
		for _, d := range t.delta {
			t.all[v].add(d)
		}
		if v == 1 {
			return
		}
		t.next = t.all[v^1].intersect(t.next[:0], t.delta)
		t.delta, t.next = t.next, t.delta
		v /= 2
	}
}

// last returns the last allocation for which fits holds, skipping the
// nodes whose allocations all hold an interior that meets one of the
// queries q.
func (t *allocTree) last(q []span, fits func(*alloc) bool) *alloc {
	var walk func(v, lo, hi int) *alloc
	walk = func(v, lo, hi int) *alloc {
		if lo >= len(t.allocs) {
			return nil
		}
		for _, x := range q {
			if t.all[v].meets(x) {
				return nil
			}
		}
		if hi-lo == 1 {
			if fits(t.allocs[lo]) {
				return t.allocs[lo]
			}
			return nil
		}
		mid := (lo + hi) / 2
		if a := walk(2*v+1, mid, hi); a != nil {
			return a
		}
		return walk(2*v, lo, mid)
	}
	return walk(1, 0, t.leaves)
}

// reuser finds for each buffer the allocation it may share, as XLA's
// BufferAssigner does by checking every allocation: the operands'
// allocations first, then the reusable ones of its memory space, the last
// made first.
type reuser struct {
	lv    *liveness
	trees map[treeKey]*allocTree
	// capacity is the most allocations a tree may get; made counts the
	// allocations made, which gives each its seq.
	capacity, made int
	q              []span
}

// treeKey names a tree: the memory space, and whether only outputs may go
// into its allocations (the TPU's output allocations, see alloc.accepts),
// so that the search for another buffer never walks them.
type treeKey struct {
	space       int64
	outputsOnly bool
}

func newReuser(lv *liveness, capacity int) *reuser {
	return &reuser{lv: lv, trees: map[treeKey]*allocTree{}, capacity: capacity}
}

// keyOf is the tree of allocation a.
func (r *reuser) keyOf(a *alloc) treeKey {
	return treeKey{a.space, a.outputsOnly(r.lv.t.Backend)}
}

func (r *reuser) hold(a *alloc, ids []int32, made bool) {
	a.values = append(a.values, ids...)
	if made {
		k := r.keyOf(a)
		t := r.trees[k]
		if t == nil {
			t = newAllocTree(r.capacity)
			r.trees[k] = t
		}
		a.seq = r.made
		r.made++
		t.push(a)
		vals := r.lv.values
		a.occ.byStart.key = func(x int32) int { return vals[x].start }
		a.occ.byEnd.key = func(x int32) int { return vals[x].end }
	}
	if a.tree == nil {
		return // no buffer may go into a (see alloc.accepts)
	}
	for _, id := range ids {
		if v := &r.lv.values[id]; v.start < v.end {
			a.tree.add(a, interiorOf(v))
		}
		a.occ.byStart.insert(id)
		a.occ.byEnd.insert(id)
	}
}

// find returns the allocation buffer b (described by in) may share, or
// nil: an operand's allocation, else the last reusable one of its space
// (XLA's MaybeAssignBuffer, tried in that order).
func (r *reuser) find(b int32, in bufferInfo, of []*alloc) *alloc {
	lv := r.lv
	fits := func(a *alloc) bool { return r.fits(a, b, in) }
	if in.constant || in.param || lv.tupleBuffer(b) {
		return nil
	}
	if a := lv.operandAlloc(b, of, fits); a != nil {
		return a
	}
	r.q = r.q[:0]
	for _, id := range lv.buffers[b] {
		r.q = append(r.q, queryOf(&lv.values[id]))
	}
	// The last made that fits, of the trees the buffer may go into.
	var found *alloc
	for _, k := range []treeKey{{in.space, false}, {in.space, true}} {
		t := r.trees[k]
		if t == nil || k.outputsOnly && !in.output {
			continue
		}
		if a := t.last(r.q, fits); a != nil && (found == nil || a.seq > found.seq) {
			found = a
		}
	}
	return found
}

// operandAlloc returns the first allocation of an operand of buffer b's
// values (those at the top of their instruction's shape) that fits, as
// XLA's BufferAssigner tries them before any other.
func (lv *liveness) operandAlloc(b int32, of []*alloc, fits func(*alloc) bool) *alloc {
	for _, id := range lv.buffers[b] {
		v := &lv.values[id]
		if len(lv.path(v)) > 0 {
			continue
		}
		for _, op := range lv.def(v).in.Operands {
			st := lv.stepOf(op)
			if st == nil {
				continue
			}
			for _, ov := range st.sets[0] {
				if a := of[ov]; a != nil && fits(a) {
					return a
				}
			}
		}
	}
	return nil
}

// fits is lv.fits with a's values found by time: a value of the buffer
// whose range meets the interior of one of a's interferes with it; the
// values of a that only touch its range (ending at its start, starting in
// it, which leaves those of one step and those starting at its end) are
// checked one by one.
func (r *reuser) fits(a *alloc, b int32, in bufferInfo) bool {
	lv := r.lv
	if !a.accepts(in, lv.t.Backend) {
		return false
	}
	for _, nid := range lv.buffers[b] {
		nv := &lv.values[nid]
		if lv.def(nv).in.Opcode == hlo.OpCopy {
			return lv.fits(a, b, in) // a copy does not write over its operand: see every value
		}
		if a.tree.interior(a).meets(queryOf(nv)) {
			return false
		}
		free := true
		touching := func(aid int32) bool {
			free = !lv.interfere(nv, &lv.values[aid])
			return free
		}
		if a.occ.byEnd.each(nv.start, nv.start, touching); !free {
			return false
		}
		if a.occ.byStart.each(nv.start, nv.end, touching); !free {
			return false
		}
	}
	return true
}
