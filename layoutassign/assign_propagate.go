package layoutassign

// Propagation: a class without a fixed layout takes one from its
// neighbours (forward to users, backward to operands), else the default.

import (
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// members lists the values of every class root.
func (a *assigner) members() csr[int32] {
	n := len(a.values)
	out := csr[int32]{off: make([]int32, n+1)}
	for id := range a.values {
		out.off[a.find(id)+1]++
	}
	cursor := out.prefixSums()
	for id := range a.values {
		r := a.find(id)
		out.flat[cursor[r]] = int32(id)
		cursor[r]++
	}
	return out
}

// csr is a list of lists in two arrays: list i is flat[off[i]:off[i+1]].
type csr[T any] struct {
	off  []int32
	flat []T
}

func (c *csr[T]) at(i int) []T { return c.flat[c.off[i]:c.off[i+1]] }

// prefixSums turns off[i+1] holding the length of list i into offsets,
// allocates flat, and returns each list's fill cursor (its start).
func (c *csr[T]) prefixSums() []int32 {
	n := len(c.off) - 1
	for i := range n {
		c.off[i+1] += c.off[i]
	}
	c.flat = make([]T, c.off[n])
	return slices.Clone(c.off[:n])
}

// propagate gives every class a layout: fixed classes first, spreading
// through transposes, reshapes, reduces and broadcasts; then the dot and
// convolution operand preferences; then, class by class in program order,
// the default layout (a constant's own), each followed by propagation.
func (a *assigner) propagate() {
	mem := a.members()
	roots := make([]int, 0, len(a.values))
	for id := range a.values {
		if a.find(id) == id {
			roots = append(roots, id)
		}
	}
	a.isFixed = make([]bool, len(a.values))
	for _, r := range roots {
		if a.fixed[r] != nil {
			a.isFixed[r] = true
			a.queue = append(a.queue, r)
		}
	}
	a.drain(mem)
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			a.prefer(in)
			a.drain(mem)
		}
	}
	for _, r := range roots {
		if a.m2m[r] != nil || !a.shapeOf(r).IsArray() {
			continue
		}
		a.m2m[r] = a.defaultLayout(mem.at(r))
		a.queue = append(a.queue, r)
		a.drain(mem)
	}
}

// defaultLayout is the layout of a class no constraint reached: a
// constant's stated layout (XLA keeps a literal's layout), else
// major-to-minor, on the TPU with size-1 dims moved out of the tiled
// minor dims (tiledDefaultLayout).
func (a *assigner) defaultLayout(members []int32) []int64 {
	for _, id := range members {
		if a.values[id].in.Opcode == hlo.OpConstant {
			if m := a.stated(int(id)); m != nil {
				return slices.Clone(m)
			}
		}
	}
	s := a.shapeOf(int(members[0]))
	if a.opts.Target.Backend == BackendTPU {
		return tiledDefaultLayout(s.Dims)
	}
	return hlo.DefaultMinorToMajor(s.Rank())
}

// tiledDefaultLayout is the default layout of an array with the given
// dims on a tiled target: major-to-minor, except that when a size-1 dim
// would be one of the two most minor physical dims (the ones the tiles
// cover, wasting a whole tile row or column on it) every size-1 dim moves
// to the major end, in logical order, the other dims following in logical
// order: f32[1,128,1,64] gets {3,1,2,0} and bf16[512,1] {0,1}, as XLA's
// TPU compiler lays them out, while bf16[4,1,128,4096] keeps {3,2,1,0}.
// Size-1 dims elsewhere do not change the bytes, so the default stays.
func tiledDefaultLayout(dims []int64) []int64 {
	n := len(dims)
	m := hlo.DefaultMinorToMajor(n)
	if n < 2 || dims[n-1] != 1 && dims[n-2] != 1 {
		return m
	}
	phys := make([]int64, 0, n)
	for d := range int64(n) {
		if dims[d] == 1 {
			phys = append(phys, d)
		}
	}
	for d := range int64(n) {
		if dims[d] != 1 {
			phys = append(phys, d)
		}
	}
	return physOrder(phys)
}

// offer gives value id the layout m2m if its class has none yet.
func (a *assigner) offer(id int, m2m []int64) {
	if id < 0 || !a.rankOK(id, m2m) {
		return
	}
	r := a.find(id)
	if a.m2m[r] != nil {
		return
	}
	a.m2m[r] = slices.Clone(m2m)
	a.queue = append(a.queue, r)
}

func (a *assigner) layoutOf(id int) []int64 { return a.m2m[a.find(id)] }

// prefer offers the dot and convolution operand layouts (on the TPU, a
// dot's as tpuDotOperandLayouts has them where it gives any).
func (a *assigner) prefer(in *hlo.Instruction) {
	switch in.Opcode {
	case hlo.OpDot:
		if len(in.Operands) < 2 || a.opts.Target.Backend == BackendTPU && strengthReducedDot(in) {
			return
		}
		if a.opts.Target.Backend == BackendTPU && !a.isFused(in.Parent) {
			if lm, rm, ok := a.dotOperandLayouts(in); ok {
				for i, m := range [][]int64{lm, rm} {
					if !a.fusedIntoDot(in.Operands[i]) { // else required (requireDotOperands)
						a.offer(a.leafID(in.Operands[i], nil), m)
					}
				}
				return
			}
		}
		l, r := in.Operands[0], in.Operands[1]
		if lm, rm, ok := dotOperandLayouts(l.Shape.Rank(), r.Shape.Rank(), in.Typed.Dot); ok {
			a.offer(a.leafID(l, nil), lm)
			a.offer(a.leafID(r, nil), rm)
		}
	case hlo.OpConvolution:
		if _, _, _, ok := tpuConvLayouts(in); len(in.Operands) < 2 || ok && a.opts.Target.Backend == BackendTPU && !a.isFused(in.Parent) {
			return // required instead (requireConvOperands)
		}
		l, r := in.Operands[0], in.Operands[1]
		if im, km, om, ok := convLayouts(l.Shape.Rank(), r.Shape.Rank(), in.Shape.Rank(), in.Typed.Conv); ok {
			a.offer(a.leafID(l, nil), im)
			a.offer(a.leafID(r, nil), km)
			a.offer(a.leafID(in, nil), om)
		}
	}
}

// drain propagates queued class layouts across the layout-changing ops in
// both directions until nothing new is learnt.
func (a *assigner) drain(mem csr[int32]) {
	for head := 0; head < len(a.queue); head++ {
		r := a.queue[head]
		m := a.m2m[r]
		for _, id := range mem.at(r) {
			v := a.values[id]
			if a.whiles != nil && len(m) > 0 {
				a.offerLoops(v, m)
			}
			if len(v.path) != 0 {
				continue
			}
			a.backward(v.in, m)
			for _, u := range a.users.at(int(id)) {
				if u.Opcode != hlo.OpTranspose && u.Opcode != hlo.OpReshape && u.Opcode != hlo.OpReduce {
					continue // forward derives nothing through other ops (a tuple of w elements: w operands each)
				}
				for i, op := range u.Operands {
					if op == v.in {
						a.forward(u, i, m)
					}
				}
			}
		}
	}
	a.queue = a.queue[:0]
}

// forward derives the layout of u's result from operand i's layout m.
func (a *assigner) forward(u *hlo.Instruction, i int, m []int64) {
	var out []int64
	ok := false
	switch u.Opcode {
	case hlo.OpTranspose:
		out, ok = transposeOutputLayout(u.Typed.Dimensions, m)
	case hlo.OpReshape:
		out, ok = reshapeLayout(u.Operands[i].Shape.Dims, m, u.Shape.Dims)
	case hlo.OpReduce:
		if i >= len(u.Operands)/2 {
			return // an init value
		}
		out, ok = reduceOutputLayout(m, u.Typed.Dimensions), true
		if u.Shape.IsTuple() {
			for k := range u.Shape.Tuple {
				a.offer(a.leafID(u, []int64{int64(k)}), out)
			}
			return
		}
	}
	if ok {
		a.offer(a.leafID(u, nil), out)
	}
}

// backward derives an operand layout from in's result layout m.
func (a *assigner) backward(in *hlo.Instruction, m []int64) {
	if len(in.Operands) == 0 {
		return
	}
	op := in.Operands[0]
	var o []int64
	ok := false
	switch in.Opcode {
	case hlo.OpTranspose:
		o, ok = transposeOperandLayout(in.Typed.Dimensions, m)
	case hlo.OpReshape:
		o, ok = reshapeLayout(in.Shape.Dims, m, op.Shape.Dims)
	case hlo.OpBroadcast:
		if op.Shape.Rank() > 0 {
			o, ok = broadcastOperandLayout(in.Typed.Dimensions, m)
		}
	}
	if ok {
		a.offer(a.leafID(op, nil), o)
	}
}

// sameLayout reports whether two layouts of an array of the given rank
// print the same (nil is the default layout).
func sameLayout(a, b *hlo.Layout, rank int) bool {
	if a == nil {
		a = hlo.DefaultLayout(rank)
	}
	if b == nil {
		b = hlo.DefaultLayout(rank)
	}
	return a.Equal(b)
}

// offerLoops offers, on the TPU, the layout m of value v across the
// boundary of a while loop: from the loop state (v a leaf of the while) to
// its init, and from an init to the loop state when nothing else laid the
// state out (see whileInits).
func (a *assigner) offerLoops(v value, m []int64) {
	if v.in.Opcode == hlo.OpWhile {
		a.offer(a.leafID(v.in.Operands[0], v.path), m)
	}
	for _, w := range a.loopsOf[v.in] {
		a.offer(a.leafID(w, v.path), m)
	}
}

// whileInits copies, on the TPU, the init of a while loop whose layout is
// not the loop state's. XLA's layout assignment carries a layout forward
// only to the users of an array, never through the tuple that gathers a
// loop's init: the state takes its layout from the loop's users (an
// output of the entry computation, backward through get-tuple-element),
// from the body, or the default, and reaches back to an init that has none
// yet (drain); an init laid out otherwise is copied. Evidence: libtpu
// 0.0.52's layout-assignment log (TPU_VMODULE=layout_assignment=2) on a
// loop over sin(a) whose result is an output in another layout than a's:
// the output's layout is propagated into the body, a's stops at the
// tuple; the differential tester's dumps copy the init
// (f32[100,42,16] {1,2,0} into a loop state {0,2,1}).
func (a *assigner) whileInits() {
	for _, w := range a.whiles {
		init := w.Operands[0]
		base, ok := a.base(w)
		if !ok {
			continue
		}
		for k := range leafCount(&w.Shape) {
			id := base + k
			path := a.values[id].path
			state, in := a.layoutOf(id), a.layoutOf(a.leafID(init, path))
			if state != nil && in != nil && !slices.Equal(state, in) {
				a.copies = append(a.copies, copyReq{site: site{user: w, op: 0}, path: path, m2m: slices.Clone(state)})
			}
		}
	}
}
