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
	pins := &secondPass{concats: map[*hlo.Instruction][]int64{}, settled: map[*hlo.Instruction][]int64{}}
	a.concatPins(pins)
	a.reshapePins(pins)
	if len(pins.concats) == 0 && len(pins.uses) == 0 {
		return nil
	}
	// The array results of while loops and conditionals, as the
	// get-tuple-elements of their callers read them.
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode != hlo.OpGetTupleElement || len(in.Operands) != 1 || !in.Shape.IsArray() {
				continue
			}
			if op := in.Operands[0].Opcode; op != hlo.OpWhile && op != hlo.OpConditional {
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
	for _, c := range a.m.Computations {
		if a.fused[c] {
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
			want := pinLayout(in.Shape, a.opts.Target)
			if tileElements(in.Shape.Dims, cur) <= 2*tileElements(in.Shape.Dims, want) {
				continue
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

// secondPass is what the second pass fixes: the values pinned (concats,
// reshapes), the operands required at their uses, and the values settled
// at their first-pass layouts.
type secondPass struct {
	concats, settled map[*hlo.Instruction][]int64
	uses             []operandUse
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
// operand's, both in the default layout (the operand copied to
// major-to-minor, the result major-to-minor with its size-1 dims most
// major: f32[7,256]{1,0} reshaped to f32[2,28,2,16] is {3,2,1,0}, then
// copied to the result's {1,3,2,0}). Evidence: libtpu's log ("Listing
// instructions with incompatible layouts") and its dumps.
func (a *assigner) reshapePins(pins *secondPass) {
	for _, c := range a.m.Computations {
		if a.fused[c] {
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
			def := hlo.DefaultMinorToMajor(op.Shape.Rank())
			out, ok := reshapeLayout(op.Shape.Dims, def, in.Shape.Dims)
			if !ok {
				out = unitDimsMajor(in.Shape.Dims)
			}
			pins.concats[in] = out
			pins.uses = append(pins.uses, operandUse{user: in, op: 0, m2m: def})
		}
	}
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

// pinLayout is the layout that pads s least on t; of equally padded ones,
// the one whose second most minor dimension is the largest, then the
// largest minor_to_major read as a number (dimensions kept in logical
// order where nothing else decides).
func pinLayout(s hlo.Shape, t Target) []int64 {
	so := t.SizeOptions()
	var best []int64
	var bestBytes int64
	better := func(m []int64, n int64) bool {
		switch {
		case best == nil || n < bestBytes:
			return true
		case n > bestBytes:
			return false
		case s.Dims[m[1]] != s.Dims[best[1]]:
			return s.Dims[m[1]] > s.Dims[best[1]]
		}
		return slices.Compare(m, best) > 0
	}
	forEachOrder(s.Rank(), func(perm []int64) {
		if n, err := paddedBytes(layoutFor(s, perm, t), so); err == nil && better(perm, n) {
			best, bestBytes = slices.Clone(perm), n
		}
	})
	if best == nil {
		return hlo.DefaultMinorToMajor(s.Rank())
	}
	return best
}

// tileElements is the number of elements of an array of the given dims
// laid out by m2m in whole (8,128) tiles, the TPU's vector registers of
// 32-bit words: the measure by which a concatenate is at risk (f16[2,4]
// in {0,1} is not: one register either way).
func tileElements(dims, m2m []int64) int64 {
	n := int64(1)
	for i, d := range m2m {
		size := dims[d]
		switch i {
		case 0:
			size = ceilDiv(size, 128) * 128
		case 1:
			size = ceilDiv(size, 8) * 8
		}
		n *= size
	}
	return n
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
