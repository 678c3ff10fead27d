package layoutassign

// The TPU's second pass: after a first assignment, XLA's TPU layout
// assignment lists the concatenates whose layouts it finds at risk and runs
// again with each pinned to a layout of its own choosing (its log: "Listing
// instructions with at-risk unconstrained layouts ... pinned to").

import (
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// secondPassPins returns, on the TPU, what a second pass fixes (nil when
// the first pass needs none): the concatenates at risk (concatPins) and
// the reshapes XLA's TPU compiler cannot run in their first-pass layouts
// (reshapePins), and the results of while loops and conditionals settled
// at their first-pass layouts.
func (a *assigner) secondPassPins() *secondPass {
	if a.opts.Target.Backend != BackendTPU {
		return nil
	}
	pins := &secondPass{concats: map[*hlo.Instruction][]int64{}, withSignature: map[*hlo.Instruction][]int64{},
		settled: map[*hlo.Instruction][]int64{}}
	a.concatPins(pins)
	a.reshapePins(pins)
	a.scatterPins(pins)
	a.reducePins(pins)
	if pins.empty() {
		return nil
	}
	// The array results of while loops and conditionals, as the
	// get-tuple-elements of their callers read them or whole.
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			if !in.Shape.IsArray() || !controlResult(in) {
				continue
			}
			if m2m := a.layoutOf(a.leafID(in, nil)); m2m != nil {
				pins.settled[in] = m2m
			}
		}
	}
	return pins
}

// concatPins adds the layouts to pin concatenates to: a concatenate is at risk when its layout pads it more
// than the layout that pads it least (pinLayout), which the first pass
// gave an associative scan's concatenates, whose layout follows the array
// scanned, the scanned (concatenated) dimension most minor:
// f32[2,9,24,4] {0,3,2,1} after its parameter, pinned to {2,3,1,0}. One
// concatenate is pinned per class, the smallest (the first of the scan's
// interleaving steps, which XLA pins first): its layout spreads over the
// class, and the values fixed otherwise (parameters, the result) are
// copied. Evidence: the layout-assignment log of libtpu 0.0.52 on the
// differential tester's seeds (TPU_VMODULE=tpu_layout_assignment=3).
func (a *assigner) concatPins(pins *secondPass) {
	type pin struct {
		in    *hlo.Instruction
		m2m   []int64
		elems int64
	}
	best := map[int]pin{}
	var order []int
	tiles := a.paramTiles()
	for _, c := range a.m.Computations {
		if a.isFused(c) {
			continue
		}
		for _, in := range c.Instructions {
			if in.Opcode != hlo.OpConcatenate || !in.Shape.IsArray() || in.Shape.Rank() < 2 {
				continue
			}
			id := a.leafID(in, nil)
			if id < 0 || a.exact[id] || !a.opts.Relayout && a.stated(id) != nil {
				continue
			}
			r := a.find(id)
			cur := a.m2m[r]
			if cur == nil {
				continue
			}
			var want []int64
			if t, ok := tiles[r]; ok && t.typ == in.Shape.Type {
				// The class carries its parameter's tile: every layout is
				// measured in it.
				want = leastTiled(in.Shape.Dims, t.rows, t.cols)
				if tiledElements(in.Shape.Dims, cur, t.rows, t.cols) <= 2*tiledElements(in.Shape.Dims, want, t.rows, t.cols) {
					continue
				}
			} else {
				want = pinLayout(in.Shape, a.opts.Target)
				if tiledElements(in.Shape.Dims, cur, 8, 128) <= 2*tiledElements(in.Shape.Dims, want, 8, 128) {
					continue
				}
			}
			n := in.Shape.ElementCount()
			if p, ok := best[r]; !ok || n < p.elems {
				if !ok {
					order = append(order, r)
				}
				best[r] = pin{in: in, m2m: want, elems: n}
			}
		}
	}
	for _, r := range order {
		pins.concats[best[r].in] = best[r].m2m
	}
}

// dropHeldPins removes the concatenate pins of a second pass b (of first
// pass a) that spread over a scatter of their first-pass class in another
// layout than the scatter's (scatterLayout), or over a sort, making
// the dimension it sorts (one under 128, which sortOrder keeps off the
// minor position) most minor, and reports whether it removed any. XLA's
// TPU layout assignment lists such a sort as incompatible and runs again
// until the sort has its layout back (seed 1092: an associative scan of
// f32[3,32,1000] along dim 2, sorted along dim 1, stays {2,1,0} after four
// passes, its concatenates pinned to {1,2,0} in the second; seed 8120:
// f32[96,256] scanned along dim 1 and sorted along dim 0 stays {1,0}). A
// pin that leaves the sorted dimension above the minor one spreads (seed
// 6091: f32[257,4,255] scanned along dim 2 and sorted along dim 1 is
// {0,1,2}, the pin's), and so does one that makes a sorted dimension of
// 128 or more minor (seed 9027: f32[17,33,129] scanned along dim 1 and
// argsorted along dim 2 is {2,0,1}, the pin's; reproducer
// layouts-tpu-v5e-b0cbcf71), or one whose sort keeps its layout in the
// second pass because a conditional's result, settled, stands between
// (seed 11136: f32[513,64] scanned along dim 0, passed through a cond and
// argsorted along dim 1: the scan is {1,0}, the pin's, the sort {0,1};
// reproducer layouts-tpu-v5e-838e885d). A scatter holds its class the
// same way (seed 11086: f32[64,513] scanned along dim 1 and scattered
// into by rows stays {1,0}, the scatter's, its concatenates pinned to
// {0,1} in the second pass; reproducer layouts-tpu-v5e-7f01f8c7), and so
// does a reduce of an operand outside the class, in the layout its
// operand gives it (seed 12661: f32[7,256,64]{1,2,0} reduced over dim 0
// and scanned along dim 0 stays {0,1} after four passes, its
// concatenates pinned to {1,0} in the second, the reduce then listed as
// incompatible).
//
// Only what the pin reaches holds it: in its computation (a call's
// callee counts as its call, which XLA inlines first), connected to the
// concatenate through operands and users of the class, never through an
// entry parameter, whose layout is fixed, nor a tuple (reachInClass).
// Seed 12473: bf16[31,257] scanned along dim 1 and, through a sigmoid,
// sorted along dim 0 is {0,1}, the pin's; seed 12392: u32[32,255]
// scattered into and, converted, scanned along dim 1 is {0,1} too.
func dropHeldPins(a, b *assigner, pins *secondPass) bool {
	settled := map[int]bool{}
	for in := range pins.settled {
		if id := b.leafID(in, nil); id >= 0 {
			settled[b.find(id)] = true
		}
	}
	// holds lists, by first-pass class, the instructions that hold it and
	// whether a pin's layout upsets each.
	holds := map[int][]hold{}
	add := func(at *hlo.Instruction, id int, upset func(pin []int64) bool) {
		if !settled[b.find(id)] {
			holds[a.find(id)] = append(holds[a.find(id)], hold{at, upset})
		}
	}
	for _, s := range a.sortOperands() {
		add(s.sort, s.id, func(pin []int64) bool { return pin[0] == s.dim })
	}
	for _, c := range a.m.Computations {
		if a.isFused(c) {
			continue
		}
		for _, in := range c.Instructions {
			id := a.leafID(in, nil)
			if id < 0 {
				continue
			}
			switch {
			case tpuScatter(in):
				want := scatterLayout(in.Shape, in.Typed.Scatter, a.opts.Target)
				add(in, id, func(pin []int64) bool { return !slices.Equal(want, pin) })
			case in.Opcode == hlo.OpReduce && len(in.Operands) == 2 && in.Shape.IsArray() && in.Shape.Rank() >= 2:
				// A reduce of an operand outside its class keeps the
				// layout its operand gives it.
				oid := a.leafID(in.Operands[0], nil)
				if oid < 0 || a.find(oid) == a.find(id) || a.layoutOf(oid) == nil {
					continue
				}
				if want := reduceOutputLayout(a.layoutOf(oid), in.Typed.Dimensions); slices.Equal(want, a.layoutOf(id)) {
					add(in, id, func(pin []int64) bool { return len(pin) == len(want) && !slices.Equal(want, pin) })
				}
			}
		}
	}
	// callers maps a computation a call runs to the call (XLA inlines it
	// before laying the module out).
	callers := map[*hlo.Computation]*hlo.Instruction{}
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == hlo.OpCall && len(in.Called) == 1 {
				callers[in.Called[0]] = in
			}
		}
	}
	dropped := false
	for in, m2m := range pins.concats {
		if in.Opcode != hlo.OpConcatenate || len(m2m) == 0 {
			continue
		}
		r := a.find(a.leafID(in, nil))
		var reached map[*hlo.Instruction]bool
		for _, h := range holds[r] {
			if !h.upset(m2m) {
				continue
			}
			if reached == nil {
				reached = a.reachInClass(in, r)
			}
			if at := inlinedInto(h.at, in.Parent, callers); at.Parent != in.Parent || a.touches(at, reached) {
				delete(pins.concats, in)
				dropped = true
				break
			}
		}
	}
	return dropped
}

// inlinedInto is what x stands for in computation c once the calls
// between them are inlined: a callee's parameter the call's operand, any
// other instruction of a callee the call itself; x itself where no call
// leads from c to it.
func inlinedInto(x *hlo.Instruction, c *hlo.Computation, callers map[*hlo.Computation]*hlo.Instruction) *hlo.Instruction {
	for x.Parent != c && callers[x.Parent] != nil {
		call := callers[x.Parent]
		if x.Opcode == hlo.OpParameter && x.ParameterNumber < len(call.Operands) {
			x = call.Operands[x.ParameterNumber]
		} else {
			x = call
		}
	}
	return x
}

// hold is an instruction that holds its class in its first-pass layout
// against a pin that upsets it (dropHeldPins).
type hold struct {
	at    *hlo.Instruction
	upset func(pin []int64) bool
}

// touches reports whether x, one of its operands or one of its users is
// in reached.
func (a *assigner) touches(x *hlo.Instruction, reached map[*hlo.Instruction]bool) bool {
	if reached[x] || slices.ContainsFunc(x.Operands, func(op *hlo.Instruction) bool { return reached[op] }) {
		return true
	}
	b, ok := a.base(x)
	return ok && slices.ContainsFunc(a.users.at(b), func(u *hlo.Instruction) bool { return reached[u] })
}

// reachInClass returns the instructions of from's computation whose array
// result is in class r and is connected to from through operands and users
// in it, never through a tuple nor an entry parameter: a parameter's
// layout is fixed, so a pin's layout stops there (seed 12473: a0 scanned
// and, through a sigmoid, sorted along the dim the scan's pin makes minor;
// the sort does not hold the scan).
func (a *assigner) reachInClass(from *hlo.Instruction, r int) map[*hlo.Instruction]bool {
	inClass := func(x *hlo.Instruction) bool {
		b, ok := a.base(x)
		return ok && x.Shape.IsArray() && !(x.Opcode == hlo.OpParameter && x.Parent == a.m.Entry) && a.find(b) == r
	}
	seen := map[*hlo.Instruction]bool{from: true}
	queue := []*hlo.Instruction{from}
	visit := func(x *hlo.Instruction) {
		if !seen[x] && x.Parent == from.Parent && inClass(x) {
			seen[x] = true
			queue = append(queue, x)
		}
	}
	for len(queue) > 0 {
		x := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, op := range x.Operands {
			visit(op)
		}
		if b, ok := a.base(x); ok {
			for _, u := range a.users.at(b) {
				visit(u)
			}
		}
	}
	return seen
}

// controlResult reports whether in is the result of a while loop or a
// conditional, or a get-tuple-element of one.
func controlResult(in *hlo.Instruction) bool {
	if in.Opcode == hlo.OpGetTupleElement && len(in.Operands) == 1 {
		in = in.Operands[0]
	}
	return in.Opcode == hlo.OpWhile || in.Opcode == hlo.OpConditional
}

// secondPass is what the second pass fixes: the values pinned (concats,
// reshapes), those pinned with the entry signature (withSignature: reduces),
// the operands required at their uses, and the values settled at their
// first-pass layouts.
type secondPass struct {
	concats, withSignature, settled map[*hlo.Instruction][]int64
	uses                            []operandUse
}

// empty reports whether the second pass pins nothing.
func (p *secondPass) empty() bool {
	return len(p.concats) == 0 && len(p.withSignature) == 0 && len(p.uses) == 0
}

// operandUse requires operand op of user in layout m2m.
type operandUse struct {
	user *hlo.Instruction
	op   int
	m2m  []int64
}

// reshapePins adds the reshapes whose first-pass layouts do not make them
// a bitcast of the data (the result's layout is not the one aligned with
// the operand's): XLA's TPU layout assignment lists them as incompatible
// and runs again with the operand kept in its layout and the result in the
// aligned one, or, when no layout of the result is aligned with the
// operand's, the result in the default layout (major-to-minor with its
// size-1 dims most major: f32[7,256]{1,0} reshaped to f32[2,28,2,16] is
// {3,2,1,0}, then copied to the result's {1,3,2,0}), the operand still in
// its class's layout (c64[3,9,128,7] in its parameters' {2,3,1,0} reshaped
// to c64[112,9,24], program 01851153c88cd379: requiring it major-to-minor
// laid its 50 arrays out so and copied the parameters). Evidence: libtpu's
// log ("Listing instructions with incompatible layouts") and its dumps.
func (a *assigner) reshapePins(pins *secondPass) {
	for _, c := range a.m.Computations {
		if a.isFused(c) {
			continue
		}
		for _, in := range c.Instructions {
			if in.Opcode != hlo.OpReshape || len(in.Operands) != 1 || !in.Shape.IsArray() || in.Shape.Rank() == 0 {
				continue
			}
			op := in.Operands[0]
			id, oid := a.leafID(in, nil), a.leafID(op, nil)
			if !op.Shape.IsArray() || op.Shape.Rank() == 0 || !a.assignable(id) || oid < 0 {
				continue
			}
			res, opm := a.layoutOf(id), a.layoutOf(oid)
			if res == nil || opm == nil || unitDimsOnly(op.Shape.Dims, in.Shape.Dims) ||
				in.Shape.Rank() > 1 && (slices.Equal(res, hlo.DefaultMinorToMajor(in.Shape.Rank())) || slices.Equal(res, tiledDefaultLayout(in.Shape.Dims))) {
				// Inserting or deleting size-1 dims is a bitcast in any
				// layout; a result in the default layout the TPU reshapes
				// into (transformer_bwd's f32[8,512,16,64]{1,3,2,0} into
				// f32[8,512,1024]{2,1,0} stays).
				continue
			}
			if aligned, ok := reshapeLayout(op.Shape.Dims, opm, in.Shape.Dims); ok {
				if !slices.Equal(aligned, res) {
					pins.concats[in] = aligned
					pins.uses = append(pins.uses, operandUse{user: in, op: 0, m2m: opm})
				}
				continue
			}
			out, ok := reshapeLayout(op.Shape.Dims, hlo.DefaultMinorToMajor(op.Shape.Rank()), in.Shape.Dims)
			if !ok {
				out = unitDimsMajor(in.Shape.Dims)
			}
			pins.concats[in] = out
		}
	}
}

// scatterPins adds the scatters whose first-pass layouts are not the one
// XLA's TPU scatter runs in: the operand dims the indices address (and the
// inserted window dims) most major, in logical order, the others in the
// layout that pads them least, the default order where it pads no more
// (scatterLayout). XLA's TPU layout assignment lists the others as
// "scatter with incompatible layouts" and runs again with them pinned: a
// scatter into rows of f32[16,7] {0,1} runs in {1,0}, the parameter copied
// in and the result out; f32[3,9,4,4] in {1,3,2,0}, f32[8,8,16,2] in
// {2,1,3,0}, u32[64,5,8] in {2,1,0} (its log names the layout wanted).
// A scatter at one index is not a scatter by then: XLA's TPU compiler has
// made it a dynamic-update-slice, which keeps its operand's layout (seed
// 10603: bf16[384,2,2,24] written at one row stays in {0,3,2,1}, its log
// lists no scatter; reproducer layouts-tpu-v5e-35da6a6e).
func (a *assigner) scatterPins(pins *secondPass) {
	for _, c := range a.m.Computations {
		if a.isFused(c) {
			continue
		}
		for _, in := range c.Instructions {
			if !tpuScatter(in) {
				continue
			}
			id := a.leafID(in, nil)
			cur := a.layoutOf(id)
			if !a.assignable(id) || cur == nil {
				continue
			}
			if want := scatterLayout(in.Shape, in.Typed.Scatter, a.opts.Target); !slices.Equal(want, cur) {
				pins.concats[in] = want
			}
		}
	}
}

// tpuScatter reports whether in is a scatter of an array of rank 2 or more
// at more than one index, one the TPU runs as a scatter: at one index XLA
// makes it a dynamic-update-slice before laying it out, in its operand's
// layout.
func tpuScatter(in *hlo.Instruction) bool {
	return in.Opcode == hlo.OpScatter && in.Typed.Scatter != nil && in.Shape.IsArray() && in.Shape.Rank() >= 2 &&
		!oneIndex(in.Operands[(len(in.Operands)-1)/2].Shape, in.Typed.Scatter.IndexVectorDim)
}

// reducePins adds the reduces whose first-pass result layout is not their
// operand's with the reduced dims dropped: XLA's TPU layout assignment
// lists them as "reduces with incompatible layouts" and runs again with
// the result pinned to that layout, the operand keeping its own. The pin
// yields to an array root's layout (f32[17,24,2,255]{3,2,1,0} reduced over
// dims 0 and 3 runs in f32[24,2]{1,0} and is copied into the {0,1} of the
// root it feeds: reproducer layouts-tpu-v5e-c2a49186), not to a root
// tuple's elements (layouts-tpu-v5e-feb25993, from seed 7113: two such
// results copied out of the {1,0} the reduce gave their class). Seed 7298
// lists f32[12,12]{0,1} reduced from f32[12,12,31]{2,1,0} and pins it to
// {1,0}.
func (a *assigner) reducePins(pins *secondPass) {
	for _, c := range a.m.Computations {
		if a.isFused(c) {
			continue
		}
		for _, in := range c.Instructions {
			if in.Opcode != hlo.OpReduce || len(in.Operands) != 2 || !in.Shape.IsArray() || in.Shape.Rank() < 2 {
				continue
			}
			id, oid := a.leafID(in, nil), a.leafID(in.Operands[0], nil)
			if !a.assignable(id) || oid < 0 {
				continue
			}
			res, opm := a.layoutOf(id), a.layoutOf(oid)
			if res == nil || opm == nil {
				continue
			}
			if want := reduceOutputLayout(opm, in.Typed.Dimensions); !slices.Equal(want, res) {
				pins.withSignature[in] = want
			}
		}
	}
}

// scatterLayout is the layout a TPU scatter of shape s runs in (see
// scatterPins).
func scatterLayout(s hlo.Shape, d *hlo.ScatterDims, t Target) []int64 {
	indexed := make([]bool, s.Rank())
	for _, dims := range [][]int64{d.ScatterDimsToOperandDims, d.InsertedWindowDims} {
		for _, k := range dims {
			if k >= 0 && int(k) < len(indexed) {
				indexed[k] = true
			}
		}
	}
	// def: the indexed dims most major, the others following, each group
	// in logical order.
	var phys []int64
	for _, major := range []bool{true, false} {
		for k := range indexed {
			if indexed[k] == major {
				phys = append(phys, int64(k))
			}
		}
	}
	def := physOrder(phys)
	so := t.SizeOptions()
	size := func(perm []int64) (int64, bool) {
		for i, k := range perm {
			if indexed[k] && i < len(perm)-countTrue(indexed) {
				return 0, false // an indexed dim below the unindexed ones
			}
		}
		n, err := paddedBytes(layoutFor(s, perm, t), so)
		return n, err == nil
	}
	best := leastBy(s.Dims, size)
	if nd, ok := size(def); ok {
		if nb, _ := size(best); nd <= nb {
			return def
		}
	}
	return best
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// unitDimsMajor is the major-to-minor layout with the size-1 dims most
// major (in logical order), the others following in logical order.
func unitDimsMajor(dims []int64) []int64 {
	phys := make([]int64, 0, len(dims))
	for d := range int64(len(dims)) {
		if dims[d] == 1 {
			phys = append(phys, d)
		}
	}
	for d := range int64(len(dims)) {
		if dims[d] != 1 {
			phys = append(phys, d)
		}
	}
	return physOrder(phys)
}

// pinLayout is the layout that pads s least on t (leastBy).
func pinLayout(s hlo.Shape, t Target) []int64 {
	so := t.SizeOptions()
	return leastBy(s.Dims, func(perm []int64) (int64, bool) {
		n, err := paddedBytes(layoutFor(s, perm, t), so)
		return n, err == nil
	})
}

// leastBy is the layout of an array of the given dims whose size is least;
// of equally large ones, the one whose second most minor dimension is the
// largest, then the largest minor_to_major read as a number (dimensions
// kept in logical order where nothing else decides); the default layout
// when none has a size.
func leastBy(dims []int64, size func(perm []int64) (int64, bool)) []int64 {
	var best []int64
	var bestN int64
	better := func(m []int64, n int64) bool {
		switch {
		case best == nil || n < bestN:
			return true
		case n > bestN:
			return false
		case dims[m[1]] != dims[best[1]]:
			return dims[m[1]] > dims[best[1]]
		}
		return slices.Compare(m, best) > 0
	}
	forEachOrder(len(dims), func(perm []int64) {
		if n, ok := size(perm); ok && better(perm, n) {
			best, bestN = slices.Clone(perm), n
		}
	})
	if best == nil {
		return hlo.DefaultMinorToMajor(len(dims))
	}
	return best
}

// tiledElements is the number of elements of an array of the given dims
// laid out by m2m in whole (rows, cols) tiles; in (8,128), the TPU's vector
// registers of 32-bit words, it is the measure by which a concatenate is
// at risk (f16[2,4] in {0,1} is not: one register either way).
func tiledElements(dims, m2m []int64, rows, cols int64) int64 {
	n := int64(1)
	for i, d := range m2m {
		size := dims[d]
		switch i {
		case 0:
			size = ceilDiv(size, cols) * cols
		case 1:
			size = ceilDiv(size, rows) * rows
		}
		n *= size
	}
	return n
}

// sortOperand is an array operand (id) of a sort and the dimension it
// sorts.
type sortOperand struct {
	sort *hlo.Instruction
	id   int
	dim  int64
}

// sortOperands returns the operands of the sorts that keep the dimension
// they sort off the minor position (sortOrder: a dimension under 128).
func (a *assigner) sortOperands() []sortOperand {
	var out []sortOperand
	for _, c := range a.m.Computations {
		if a.isFused(c) {
			continue
		}
		for _, in := range c.Instructions {
			if in.Opcode != hlo.OpSort || len(in.Typed.Dimensions) != 1 {
				continue
			}
			d := in.Typed.Dimensions[0]
			for _, op := range in.Operands {
				if id := a.leafID(op, nil); id >= 0 && op.Shape.IsArray() && d < int64(op.Shape.Rank()) && op.Shape.Dims[d] < 128 {
					out = append(out, sortOperand{sort: in, id: id, dim: d})
				}
			}
		}
	}
	return out
}

// classTile is the tile of an entry parameter (or a result), for the
// arrays of its type in its class.
type classTile struct {
	typ        hlo.PrimitiveType
	rows, cols int64
}

// paramTiles returns, by class, the tile of the first entry parameter in it,
// or in a class it reaches through transposes, whose signature states a
// two-dimensional tile. XLA's TPU layout assignment propagates a parameter's
// whole layout, tile included, over the arrays it reaches: its log prints an
// associative scan's slices and concatenates of f32[17,48,31]{1,2,0:T(8,128)}
// in T(8,128) whatever their second-minor dim (f32[17,48,1], f32[17,48,2]),
// and weighs the layouts of a concatenate at risk in that tile (seed 5208:
// f32[17,48,2] pinned to {1,0,2:T(8,128)}, where (2,128) tiles would pad
// {1,2,0} least). A class no parameter's tile reaches takes the small
// tile of a result in it (see below).
func (a *assigner) paramTiles() map[int]classTile {
	out := map[int]classTile{}
	if a.m.Entry == nil {
		return out
	}
	for _, p := range a.m.Entry.Params {
		base, ok := a.base(p)
		if p == nil || !ok {
			continue
		}
		for k := range leafCount(&p.Shape) {
			s := a.shapeOf(base + k)
			if !a.exact[base+k] || s == nil || s.Rank() < 2 || s.Layout == nil || len(s.Layout.Tiles) == 0 || len(s.Layout.Tiles[0]) != 2 {
				continue
			}
			if _, seen := out[a.find(base+k)]; !seen {
				t := s.Layout.Tiles[0]
				out[a.find(base+k)] = classTile{typ: s.Type, rows: t[0], cols: t[1]}
			}
		}
	}
	// Then the small tiles the signature gives the results (T(1,128),
	// T(2,128), T(4,128): a second-minor dim of 1, 2 or 4), which spread
	// the same way (seed 12116: an associative scan of f32[1000,1,126]
	// along dim 0, returned in {2,1,0:T(1,128)}, needs no second pass:
	// in T(1,128) no concatenate is at risk). Results in full tiles
	// change nothing measured in (8,128), and taking a 16-bit result's
	// tile lost arrays on the development seeds (seed 7202).
	if root := a.m.Entry.Root; root != nil && a.ecl != nil {
		for _, l := range root.Shape.Leaves() {
			r, ok := a.ecl.Result.Subshape(l.Index)
			id := a.leafID(root, l.Index)
			if !ok || id < 0 || !r.IsArray() || r.Rank() < 2 || r.Layout == nil || len(r.Layout.Tiles) == 0 ||
				len(r.Layout.Tiles[0]) != 2 || r.Layout.Tiles[0][0] >= 8 {
				continue
			}
			if _, seen := out[a.find(id)]; !seen {
				out[a.find(id)] = classTile{typ: r.Type, rows: r.Layout.Tiles[0][0], cols: r.Layout.Tiles[0][1]}
			}
		}
	}
	// The tile crosses transposes with the layout (seed 8164: an
	// associative scan of a transposed f32[31,100,33]{1,0,2:T(8,128)}
	// parameter, its concatenates pinned to {1,2,0:T(8,128)}).
	for _, c := range a.m.Computations {
		if a.isFused(c) {
			continue
		}
		for _, in := range c.Instructions {
			if in.Opcode != hlo.OpTranspose || len(in.Operands) != 1 {
				continue
			}
			id, oid := a.leafID(in, nil), a.leafID(in.Operands[0], nil)
			if id < 0 || oid < 0 {
				continue
			}
			if t, ok := out[a.find(oid)]; ok {
				if _, seen := out[a.find(id)]; !seen {
					out[a.find(id)] = t
				}
			}
		}
	}
	return out
}

// leastTiled is the layout of an array of the given dims that pads it
// least in (rows, cols) tiles (leastBy).
func leastTiled(dims []int64, rows, cols int64) []int64 {
	return leastBy(dims, func(perm []int64) (int64, bool) { return tiledElements(dims, perm, rows, cols), true })
}

// unitDimsOnly reports whether a reshape from dims a to dims b only
// inserts or deletes size-1 dims.
func unitDimsOnly(a, b []int64) bool {
	var x, y []int64
	for _, d := range a {
		if d != 1 {
			x = append(x, d)
		}
	}
	for _, d := range b {
		if d != 1 {
			y = append(y, d)
		}
	}
	return slices.Equal(x, y)
}
