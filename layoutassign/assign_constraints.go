package layoutassign

// The constraints of layout assignment: layouts the module fixes (stated
// layouts kept, the entry signature, custom-call and outfeed operands) and
// those operations require of their operands.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// require fixes the class of id to m2m, or records a copy at st when the
// class is already fixed to another layout (without a site, the class
// keeps its layout).
func (a *assigner) require(id int, m2m []int64, st site, path []int64) {
	if id < 0 || !a.rankOK(id, m2m) {
		return
	}
	r := a.find(id)
	switch {
	case a.fixed[r] == nil:
		a.fixed[r] = a.cloneInts(m2m)
	case !slices.Equal(a.fixed[r], m2m) && (st.user != nil || st.comp != nil):
		a.copies = append(a.copies, copyReq{site: st, path: path, m2m: a.cloneInts(m2m)})
	}
	// Without a site (a value fixed in itself) the first fix stands.
}

// stated returns the minor_to_major the text gave for value id, or nil.
func (a *assigner) stated(id int) []int64 {
	s := a.shapeOf(id)
	if s == nil || !s.IsArray() || s.Layout == nil || !hlo.IsPermutation(s.Layout.MinorToMajor, s.Rank()) {
		return nil
	}
	return s.Layout.MinorToMajor
}

// fixExact fixes value id to its stated layout, tiles included.
func (a *assigner) fixExact(id int) {
	if m := a.stated(id); m != nil {
		a.exact[id] = true
		a.require(id, m, site{}, nil)
	}
}

func (a *assigner) fixAllLeaves(in *hlo.Instruction) {
	base, ok := a.base(in)
	if !ok {
		return
	}
	for k := range leafCount(&in.Shape) {
		a.fixExact(base + k)
	}
}

// fixStated applies the fixed layouts that come before unification:
// custom-calls with operand_layout_constraints, bitcasts, infeed and
// outfeed, the TPU's sort operands and (unless Relayout) every stated
// layout. The entry signature comes after (fixEntry).
func (a *assigner) fixStated() error {
	ecl, err := entrySignature(a.m)
	if err != nil {
		return err
	}
	a.ecl = ecl
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			if c != a.m.Entry || in.Opcode != hlo.OpParameter { // fixEntry's
				a.fixInstruction(in)
			}
		}
	}
	if a.opts.Target.Backend == BackendTPU {
		for _, c := range a.m.Computations {
			for _, in := range c.Instructions {
				switch in.Opcode {
				case hlo.OpSort:
					a.requireLeastPadding(in)
				case hlo.OpTopK:
					if !a.isFused(c) && !tpuTopKKept(in) {
						a.requireTopK(in)
					}
				case hlo.OpDot:
					// A dot XLA makes a multiply and a reduce before laying
					// the module out has no dot layout (reproducer
					// layouts-tpu-v5e-63d18396).
					if out, tie, ok := a.dotLayout(in); ok && !tie && !a.isFused(c) && a.assignable(a.leafID(in, nil)) && !strengthReducedDot(in) {
						a.require(a.leafID(in, nil), out, site{}, nil)
					}
				case hlo.OpConvolution:
					// A fused convolution was a dot when XLA laid it out.
					if _, _, out, ok := tpuConvLayouts(in); ok && !a.isFused(c) && a.assignable(a.leafID(in, nil)) {
						a.require(a.leafID(in, nil), out, site{}, nil)
					}
				case hlo.OpReshape:
					if !a.isFused(c) {
						a.requireVectorReshape(in)
					}
				case hlo.OpSlice:
					if !a.isFused(c) {
						a.requireVectorSlice(in)
					}
				case hlo.OpFft:
					// The convolutions it becomes lay out its result; its
					// operand is not unified with it (unifyInstruction).
					if out, ok := tpuFftLayout(in, a.opts.Target); ok && !a.isFused(c) && a.assignable(a.leafID(in, nil)) {
						a.require(a.leafID(in, nil), out, site{}, nil)
					}
				}
			}
		}
	}
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode != hlo.OpCustomCall {
				continue
			}
			if err := a.requireOperandLayouts(in); err != nil {
				return err
			}
		}
	}
	return nil
}

// fixEntry applies the entry signature once the other values are unified,
// as XLA's constraints rank them: an entry parameter keeps its layout, but
// the values it reaches take it only where nothing else fixed theirs (else
// the parameter is copied before those users); the result's layout is the
// least binding, a use of the root's values, which are copied when their
// class has another layout. The edges of the parameters and of a root
// tuple, which unifyAll deferred, are unified once both are fixed.
func (a *assigner) fixEntry() {
	entry := a.m.Entry
	// A module without entry (a truncated text that lost it) has no fixed
	// signature.
	if entry == nil {
		return
	}
	for n, p := range entry.Params {
		switch {
		case p == nil:
		case a.ecl != nil && n < len(a.ecl.Params):
			a.applySignature(p, &a.ecl.Params[n])
		default:
			a.fixAllLeaves(p)
		}
	}
	a.requireConvOperands()
	a.requireDotOperands()
	a.spreadThroughTransposes()
	for _, u := range a.uses {
		a.require(a.leafID(u.user.Operands[u.op], nil), u.m2m, site{user: u.user, op: u.op}, nil)
	}
	if entry.Root != nil {
		a.requireEntryResult(entry)
	}
	a.unifyDeferred()
}

// spreadThroughTransposes fixes, on the TPU, the classes a sort's operand
// reaches through transposes (either way) that nothing fixed yet (a
// convolution's operand is), to the layout that makes each transpose a
// bitcast, before the entry signature's edges: XLA's worklist carries
// a sort's least-padded order across transposes ahead of the parameters,
// which are then copied (seed 8026: argsort of a transposed associative
// scan lays the scan out as the sort wants, f32[2,4,255]{2,0,1}, the
// {2,1,0} parameter copied). Spreading every fixed class so (dots'
// results too) loses arrays on the ground-truth programs. A worklist of
// classes, each crossing its transposes once: linear in the module.
func (a *assigner) spreadThroughTransposes() {
	if a.opts.Target.Backend != BackendTPU {
		return
	}
	var work []int // classes fixed whose transposes are still to cross
	seen := map[int]bool{}
	byClass := map[int][]*hlo.Instruction{} // the transposes on each side of a class
	for _, c := range a.m.Computations {
		if a.isFused(c) {
			continue
		}
		for _, in := range c.Instructions {
			switch {
			case in.Opcode == hlo.OpSort:
				for _, op := range in.Operands {
					if id := a.leafID(op, nil); id >= 0 && a.fixed[a.find(id)] != nil && !seen[a.find(id)] {
						seen[a.find(id)] = true
						work = append(work, a.find(id))
					}
				}
			case in.Opcode == hlo.OpTranspose && len(in.Operands) == 1 && in.Shape.IsArray():
				id, oid := a.leafID(in, nil), a.leafID(in.Operands[0], nil)
				if id >= 0 && oid >= 0 {
					byClass[a.find(id)] = append(byClass[a.find(id)], in)
					byClass[a.find(oid)] = append(byClass[a.find(oid)], in)
				}
			}
		}
	}
	for len(work) > 0 {
		r := work[len(work)-1]
		work = work[:len(work)-1]
		for _, in := range byClass[r] {
			out, op := a.find(a.leafID(in, nil)), a.find(a.leafID(in.Operands[0], nil))
			var m []int64
			ok, to := false, out
			switch {
			case r == op && a.fixed[out] == nil:
				m, ok = transposeOutputLayout(in.Typed.Dimensions, a.fixed[op])
			case r == out && a.fixed[op] == nil:
				m, ok = transposeOperandLayout(in.Typed.Dimensions, a.fixed[out])
				to = op
			}
			if ok {
				a.fixed[to] = m
				work = append(work, to)
			}
		}
	}
}

// requireConvOperands requires, on the TPU, a convolution's operands in
// the layouts its kernels read (tpuConvLayouts): an operand whose class
// has another layout is copied for it.
func (a *assigner) requireConvOperands() {
	if a.opts.Target.Backend != BackendTPU {
		return
	}
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode != hlo.OpConvolution || a.isFused(c) || !a.assignable(a.leafID(in, nil)) {
				continue
			}
			if lhs, kernel, _, ok := tpuConvLayouts(in); ok {
				a.require(a.leafID(in.Operands[0], nil), lhs, site{user: in, op: 0}, nil)
				a.require(a.leafID(in.Operands[1], nil), kernel, site{user: in, op: 1}, nil)
			}
		}
	}
}

// requireDotOperands requires, on the TPU, the operands a dot with a
// result of rank 3 or more fuses (fusedIntoDot) in the layouts XLA's TPU
// layout assignment gives them (tpuDotOperandLayouts), ahead of the entry
// signature: an operand whose class has another layout is copied for it.
// Its other operands are only offered theirs (prefer), as XLA propagates
// those constraints last.
func (a *assigner) requireDotOperands() {
	if a.opts.Target.Backend != BackendTPU {
		return
	}
	for _, c := range a.m.Computations {
		if a.isFused(c) {
			continue
		}
		for _, in := range c.Instructions {
			if lhs, rhs, ok := a.dotOperandLayouts(in); ok {
				for i, m := range [][]int64{lhs, rhs} {
					if a.fusedIntoDot(in.Operands[i]) {
						a.require(a.leafID(in.Operands[i], nil), m, site{user: in, op: i}, nil)
					}
				}
			}
		}
	}
}

// fusedIntoDot reports whether a dot operand is one the TPU fuses into the
// dot (a pad, dynamic-slice or all-gather; a call's root, as XLA inlines
// calls first): libtpu's log sets its layout with dfs = true, propagated
// at once, where other operands' wait until the signature's have spread
// (seed 11793: a pad read by two dots takes the first dot's layout, and
// the elementwise ops and parameter copy before it follow; seed 1066: a
// log1p keeps the parameter's layout and the dot reads a copy).
func (a *assigner) fusedIntoDot(op *hlo.Instruction) bool {
	for op.Opcode == hlo.OpCall {
		c := a.called(op, "to_apply")
		if c == nil || c.Root == nil {
			return false
		}
		op = c.Root
	}
	switch op.Opcode {
	case hlo.OpPad, hlo.OpDynamicSlice, hlo.OpAllGather:
		return true
	}
	return false
}

// dotOperandLayouts are the operand layouts the TPU requires of dot in
// (tpuDotOperandLayouts), where its result layout is required.
func (a *assigner) dotOperandLayouts(in *hlo.Instruction) (lhs, rhs []int64, ok bool) {
	if in.Opcode != hlo.OpDot || !a.assignable(a.leafID(in, nil)) || strengthReducedDot(in) {
		return nil, nil, false
	}
	out, _, ok := a.dotLayout(in)
	if !ok {
		return nil, nil, false
	}
	return tpuDotOperandLayouts(in, out, a.opts.Target)
}

// assignable reports whether value id's layout is this pass's to choose:
// always with Relayout, else when the text states none.
func (a *assigner) assignable(id int) bool {
	return id >= 0 && (a.opts.Relayout || a.stated(id) == nil)
}

// fixInstruction fixes the stated layouts of in: all of them unless
// Relayout, else those XLA never changes (bitcasts and their operands,
// infeed, outfeed, send, recv, custom-calls with operand layout
// constraints).
func (a *assigner) fixInstruction(in *hlo.Instruction) {
	switch {
	case !a.opts.Relayout:
		a.fixAllLeaves(in)
	case in.Opcode == hlo.OpBitcast:
		a.fixAllLeaves(in)
		for _, op := range in.Operands {
			a.fixAllLeaves(op)
		}
	case in.Opcode == hlo.OpInfeed || in.Opcode == hlo.OpOutfeed || in.Opcode == hlo.OpRecv || in.Opcode == hlo.OpSend:
		a.fixAllLeaves(in)
	case in.Opcode == hlo.OpCustomCall:
		if _, ok := in.Attr("operand_layout_constraints"); ok {
			a.fixAllLeaves(in)
		}
	}
}

// requireEntryResult requires the entry's result layouts, the entry
// computation layout's when the module has one, else the root's stated
// ones, of the root's leaves (a conflict copies the root).
func (a *assigner) requireEntryResult(entry *hlo.Computation) {
	free := a.shardedOutputs(entry)
	root := entry.Root
	for _, l := range root.Shape.Leaves() {
		id := a.leafID(root, l.Index)
		if free[id] {
			continue
		}
		m := a.stated(id)
		if a.ecl != nil {
			m = nil
			if r, ok := a.ecl.Result.Subshape(l.Index); ok && r.IsArray() && r.Layout != nil {
				m = r.Layout.MinorToMajor
				a.noteResult(root, l.Index, r.Layout)
			}
		}
		if m != nil {
			a.require(id, m, site{comp: entry}, l.Index)
		}
	}
}

// noteResult records the signature's layout of the root's leaf at path
// for a root that is not a tuple, which write gives the signature's tiles
// when it keeps the signature's order. The values a root tuple returns
// keep the rule's tiles: giving them the signature's lost arrays on the
// xla-diff development seeds (XLA copies some of them instead).
func (a *assigner) noteResult(root *hlo.Instruction, path []int64, l *hlo.Layout) {
	if root.Opcode == hlo.OpTuple {
		return
	}
	if id := a.leafID(root, path); id >= 0 {
		if a.result == nil {
			a.result = map[int]*hlo.Layout{}
		}
		a.result[id] = l
	}
}

// requireOperandLayouts requires a custom-call's operand_layout_constraints.
func (a *assigner) requireOperandLayouts(in *hlo.Instruction) error {
	shapes, err := operandLayoutConstraints(in)
	if err != nil {
		return err
	}
	for i, s := range shapes {
		if i >= len(in.Operands) {
			break
		}
		for _, l := range s.Leaves() {
			if l.Shape.IsArray() && l.Shape.Layout != nil {
				a.requireThroughTuples(in.Operands[i], l.Index, l.Shape.Layout.MinorToMajor, site{user: in, op: i}, l.Index)
			}
		}
	}
	return nil
}

// applySignature fixes an entry parameter to a layout of the entry
// computation layout: the signature's layout wins over the parameter's.
func (a *assigner) applySignature(p *hlo.Instruction, sig *hlo.Shape) {
	if !sig.IsTuple() {
		a.applySignatureLeaf(a.leafID(p, nil), sig)
		return
	}
	for _, l := range sig.Leaves() {
		a.applySignatureLeaf(a.leafID(p, l.Index), l.Shape)
	}
}

// applySignatureLeaf fixes value id to the layout of sig, a leaf of the
// entry computation layout. The parameter takes a copy of that layout
// unless it states the same one already (as it does in XLA's dumps).
func (a *assigner) applySignatureLeaf(id int, sig *hlo.Shape) {
	if id < 0 || !sig.IsArray() || sig.Layout == nil {
		return
	}
	sh := a.shapeOf(id)
	if !sh.EqualIgnoringLayout(*sig) {
		return
	}
	if !sh.Layout.Equal(sig.Layout) {
		lay := sig.Layout.Clone()
		sh.Layout = &lay
	}
	a.exact[id] = true
	a.require(id, sh.Layout.MinorToMajor, site{}, nil)
}

// requireThroughTuples applies a requirement on leaf path of in, walking
// into tuple instructions so that a conflict copies the innermost operand.
func (a *assigner) requireThroughTuples(in *hlo.Instruction, path, m2m []int64, st site, stPath []int64) {
	for in.Opcode == hlo.OpTuple && len(path) > 0 && int(path[0]) < len(in.Operands) {
		st = site{user: in, op: int(path[0])}
		in, path = in.Operands[path[0]], path[1:]
		stPath = path
	}
	a.require(a.leafID(in, path), m2m, st, stPath)
}

// requireLeastPadding requires, on the TPU, the operands of a sort whose
// layout the module does not state (or all, with Relayout) to take
// sortOrder's layout.
func (a *assigner) requireLeastPadding(sort *hlo.Instruction) {
	if len(sort.Typed.Dimensions) != 1 {
		return
	}
	for i, op := range sort.Operands {
		id := a.leafID(op, nil)
		if id < 0 || !op.Shape.IsArray() || op.Shape.Rank() < 2 || !a.opts.Relayout && a.stated(id) != nil {
			continue
		}
		a.require(id, sortOrder(op.Shape, sort.Typed.Dimensions[0], a.opts.Target), site{user: sort, op: i}, nil)
	}
}

// requireTopK requires the results of a top-k, which XLA's TPU compiler
// makes a sort along the operand's last dim and a slice before laying the
// module out, in the layout of that sort (sortOrder of the operand). Its
// log lists the sort as incompatible when the first pass gave it another
// layout and pins it, ahead of the entry signature (seed 12167: the top 5
// of f32[31,200]{1,0}, scanned along dim 0 and returned in {0,1}, run in
// {1,0}, the result copied). The operand is left alone: requiring it too
// made 23 of the development programs worse (seed 5056's f32[513,127],
// top 2 along dim 1, stays {1,0} where sortOrder is {0,1}).
func (a *assigner) requireTopK(in *hlo.Instruction) {
	s, _, ok := topKOperand(in)
	if !ok || s.Rank() < 2 {
		return
	}
	m2m := sortOrder(*s, int64(s.Rank()-1), a.opts.Target)
	for k := range int64(2) {
		if id := a.leafID(in, []int64{k}); a.assignable(id) {
			a.require(id, m2m, site{}, nil)
		}
	}
}

// tpuTopKKept reports whether XLA's TPU compiler keeps top-k in as its
// TopK custom call rather than making it a sort: top-1 (tpuTopKCall) and
// the top k of an f32 or s32 matrix (bf16 with 8 rows or more) whose rows
// hold 50k elements or more. In the development compiles, every kept
// top-k of k >= 2 has rows of 63.5k or more (f32[513,127] top 2,
// f32[512,1000] top 8: reproducer issue24-topk-sort-tpu-v5e-11573fe5),
// every one made a sort 46.4k or fewer (f32[470,232] top 5); bf16[4,768]
// top 2 is a sort.
func tpuTopKKept(in *hlo.Instruction) bool {
	if tpuTopKCall(in) {
		return true
	}
	s, k, ok := topKOperand(in)
	return ok && s.Rank() == 2 && s.Dims[1] >= 50*k &&
		(s.Type == hlo.F32 || s.Type == hlo.S32 || s.Type == hlo.BF16 && s.Dims[0] >= 8)
}

// sortOrder is the layout XLA's TPU layout assignment gives a sort along
// dim of s: the sorted dim second-minor, or minor when it spans 128 lanes
// or more, the other dims in the order that pads s least, the most
// default-like order winning ties. Evidence: the sorts libtpu 0.0.52 pins
// in its second pass (TPU_VMODULE=tpu_layout_assignment=3, 18 of 24 on the
// differential tester's seeds: f32[64,2] along 0 {1,0}, f32[257,2,24,2]
// along 2 {0,2,3,1}, f32[130,513,3] along 0 {0,1,2}). Ranks over 6 keep
// the default order.
func sortOrder(s hlo.Shape, dim int64, t Target) []int64 {
	at := 1
	if s.Dims[dim] >= 128 {
		at = 0
	}
	var best []int64
	var bestBytes int64
	forEachOrder(s.Rank(), func(perm []int64) {
		if perm[at] != dim {
			return
		}
		n, err := paddedBytes(layoutFor(s, perm, t), t.SizeOptions())
		if err == nil && (best == nil || n < bestBytes || n == bestBytes && slices.Compare(perm, best) > 0) {
			best, bestBytes = slices.Clone(perm), n
		}
	})
	if best == nil {
		return hlo.DefaultMinorToMajor(s.Rank())
	}
	return best
}

// forEachOrder calls visit with every minor_to_major of a rank-r array
// (the default order first), for ranks up to 6 (720 orders); visit must
// not keep perm. Higher ranks are not enumerated.
func forEachOrder(r int, visit func(perm []int64)) {
	if r > 6 {
		return
	}
	perm := hlo.DefaultMinorToMajor(r)
	var try func(k int)
	try = func(k int) {
		if k == len(perm) {
			visit(perm)
			return
		}
		for j := k; j < len(perm); j++ {
			perm[k], perm[j] = perm[j], perm[k]
			try(k + 1)
			perm[k], perm[j] = perm[j], perm[k]
		}
	}
	try(0)
}

// requireVectorSlice fixes, on the TPU, a slice of a vector's broadcast
// that keeps one element of every broadcast dim as requireVectorReshape
// fixes a reshape: XLA's simplifier makes it a reshape of the vector
// before laying the module out (libtpu's log for seed 1060: an associative
// scan over f32[2] broadcast to f32[2,8] slices f32[2,1], laid out by
// "SetInstructionLayout : reshape.3, f32[2,1]{0,1} ... mandatory = true").
func (a *assigner) requireVectorSlice(in *hlo.Instruction) {
	if len(in.Operands) != 1 || !in.Shape.IsArray() || in.Shape.Rank() < 2 || in.Shape.ElementCount() < 2 ||
		!a.assignable(a.leafID(in, nil)) {
		return
	}
	b := in.Operands[0]
	if b.Opcode != hlo.OpBroadcast || len(b.Operands) != 1 || !b.Operands[0].Shape.IsArray() || b.Operands[0].Shape.Rank() != 1 {
		return
	}
	for d, n := range in.Shape.Dims {
		if n != 1 && !slices.Contains(b.Typed.Dimensions, int64(d)) {
			return
		}
	}
	a.require(a.leafID(in, nil), unitDimsMajor(in.Shape.Dims), site{}, nil)
}

// requireVectorReshape fixes, on the TPU, the side of rank 2 or more of a
// reshape that only adds size-1 dims to a vector (rank 1), or only drops
// them to one, to the layout with the size-1 dims most major
// (unitDimsMajor): XLA's TPU backend adds both sides as mandatory
// constraints (libtpu 0.0.52's log, TPU_VMODULE=layout_assignment=3:
// "SetInstructionLayout : broadcast_in_dim.1, f32[1,2]{1,0}: ... mandatory
// = true" for f32[2] reshaped to f32[1,2] in a scan's body; seed 9271's
// f32[24,1] is {0,1}). A mandatory layout in a loop body lays the loop
// state out before the entry's outputs do: seed 10393's scan stacks f32[2]
// rows into f32[256,2], which stays {1,0} while the output is {0,1} and
// copied (reproducer layouts-tpu-v5e-c85bb667). Arrays of one element
// are left alone.
func (a *assigner) requireVectorReshape(in *hlo.Instruction) {
	if len(in.Operands) != 1 || !in.Shape.IsArray() || !in.Operands[0].Shape.IsArray() {
		return
	}
	op := in.Operands[0]
	if !unitDimsOnly(op.Shape.Dims, in.Shape.Dims) || in.Shape.ElementCount() < 2 {
		return
	}
	switch {
	case op.Shape.Rank() == 1 && in.Shape.Rank() >= 2 && a.assignable(a.leafID(in, nil)):
		a.require(a.leafID(in, nil), unitDimsMajor(in.Shape.Dims), site{}, nil)
	case in.Shape.Rank() == 1 && op.Shape.Rank() >= 2:
		a.require(a.leafID(op, nil), unitDimsMajor(op.Shape.Dims), site{user: in, op: 0}, nil)
	}
}

// shardedOutputs returns, for a module partitioned by XLA's SPMD
// partitioner (num_partitions > 1), the values of the root's array leaves
// that carry a sharded parameter forward in its shape (reached from the
// sharded parameters, the dims of one of them): XLA lays those out after
// partitioning, on each device's shape, and the signature's layout,
// chosen on the whole shape before, does not bind them. Evidence: of the
// development compiles' results, 162 of 2211 in partitioned modules
// change order between the dumps before and after optimizations, none of
// 8240 in the others; seed 11372 scans f32[9,16] split along dim 1 into an
// output stated {1,0} that XLA returns {0,1:T(4,128)}, its parameter's
// order (reproducer layouts-tpu-v5e-1eed72da), seed 10338 likewise.
func (a *assigner) shardedOutputs(entry *hlo.Computation) map[int]bool {
	if v, ok := a.m.Attr("num_partitions"); !ok || v == "1" || v == "0" {
		return nil
	}
	seen := map[*hlo.Instruction]bool{}
	var work []*hlo.Instruction
	var dims [][]int64
	for _, p := range entry.Params {
		if p == nil || !p.Shape.IsArray() {
			continue
		}
		if sh, ok := p.Attr("sharding"); ok && splitsArray(sh) {
			seen[p] = true
			work = append(work, p)
			dims = append(dims, p.Shape.Dims)
		}
	}
	if len(work) == 0 {
		return nil
	}
	users := map[*hlo.Instruction][]*hlo.Instruction{}
	for _, in := range entry.Instructions {
		for _, op := range in.Operands {
			users[op] = append(users[op], in)
		}
	}
	for len(work) > 0 {
		in := work[len(work)-1]
		work = work[:len(work)-1]
		for _, u := range users[in] {
			if !seen[u] {
				seen[u] = true
				work = append(work, u)
			}
		}
	}
	out := map[int]bool{}
	for _, l := range entry.Root.Shape.Leaves() {
		v := entry.Root
		if len(l.Index) == 1 && v.Opcode == hlo.OpTuple {
			v = v.Operands[l.Index[0]]
		} else if len(l.Index) > 0 {
			continue
		}
		if seen[v] && l.Shape.IsArray() && slices.ContainsFunc(dims, func(d []int64) bool { return slices.Equal(d, l.Shape.Dims) }) {
			out[a.leafID(entry.Root, l.Index)] = true
		}
	}
	return out
}

// splitsArray reports whether an HLO sharding attribute splits its array
// over devices: a named mesh axis on some dim ("{mesh['x'=4], [{}, {'x'}]}")
// or a tile assignment of more than one tile on some dim
// ("{devices=[1,4]<=[4]}"; a last_tile_dim_replicate entry does not
// split). Replicated and maximal shardings do not.
func splitsArray(sh string) bool {
	if strings.Contains(sh, "{'") {
		return true
	}
	i := strings.Index(sh, "devices=[")
	if i < 0 {
		return false
	}
	rest := sh[i+len("devices=["):]
	j := strings.IndexByte(rest, ']')
	if j < 0 {
		return false
	}
	dims := strings.Split(rest[:j], ",")
	if strings.Contains(sh, "last_tile_dim_replicate") && len(dims) > 0 {
		dims = dims[:len(dims)-1]
	}
	for _, d := range dims {
		if n, err := strconv.Atoi(strings.TrimSpace(d)); err == nil && n > 1 {
			return true
		}
	}
	return false
}
