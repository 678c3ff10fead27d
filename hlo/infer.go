package hlo

import (
	"slices"
	"strconv"
	"strings"
)

// inferShape fills in.Shape for an instruction written without a shape,
// for the opcodes whose shape follows from their operands alone. It
// reports false for the others.
func inferShape(in *Instruction) bool {
	ops := in.Operands
	switch in.Opcode {
	case OpGetTupleElement:
		if len(ops) != 1 || !ops[0].Shape.IsTuple() || in.Typed.TupleIndex < 0 || int(in.Typed.TupleIndex) >= len(ops[0].Shape.Tuple) {
			return false
		}
		in.Shape = ops[0].Shape.Tuple[in.Typed.TupleIndex].Clone()
		return true
	case OpTuple:
		elems := make([]Shape, len(ops))
		for i, o := range ops {
			elems[i] = o.Shape.Clone()
		}
		in.Shape = Shape{Type: TUPLE, Tuple: elems}
		return true
	case OpCompare:
		if len(ops) != 2 || !ops[0].Shape.IsArray() {
			return false
		}
		in.Shape = ops[0].Shape.Clone()
		in.Shape.Type = PRED
		if in.Shape.Layout != nil {
			in.Shape.Layout.ElementSizeBits = 0
		}
		return true
	case OpAbs, OpAcos, OpAcosh, OpAsin, OpAsinh, OpAtan, OpAtanh, OpCbrt, OpCeil, OpCopy,
		OpCos, OpCosh, OpErf, OpExp, OpExp2, OpExpm1, OpFloor, OpLog, OpLog1p, OpLog2, OpLogistic, OpNegate,
		OpNot, OpPopulationCount, OpRoundNearestAfz, OpRoundNearestEven, OpRsqrt, OpSign,
		OpSin, OpSinh, OpSqrt, OpTan, OpTanh, OpClz,
		OpAdd, OpAtan2, OpAnd, OpDivide, OpMaximum, OpMinimum, OpMulhi, OpMultiply, OpOr,
		OpPower, OpRemainder, OpShiftLeft, OpShiftRightArithmetic, OpShiftRightLogical,
		OpSubtract, OpXor, OpClamp, OpOptimizationBarrier:
		if len(ops) == 0 {
			return false
		}
		src := ops[0]
		if in.Opcode == OpClamp && len(ops) == 3 {
			src = ops[1]
		}
		in.Shape = src.Shape.Clone()
		return true
	case OpSelect:
		if len(ops) != 3 {
			return false
		}
		in.Shape = ops[1].Shape.Clone()
		return true
	case OpDot:
		return inferDot(in)
	}
	return false
}

// inferDot gives a dot the shape XLA infers: the lhs batch dimensions,
// then the lhs and the rhs dimensions neither batch nor contracting, of
// the operands' element type.
func inferDot(in *Instruction) bool {
	d := in.Typed.Dot
	if d == nil || len(in.Operands) != 2 {
		return false
	}
	lhs, rhs := in.Operands[0].Shape, in.Operands[1].Shape
	if !lhs.IsArray() || !rhs.IsArray() || lhs.Type != rhs.Type {
		return false
	}
	var dims []int64
	for _, b := range d.LhsBatch {
		if b < 0 || int(b) >= lhs.Rank() {
			return false
		}
		dims = append(dims, lhs.Dims[b])
	}
	free := func(s Shape, batch, contracting []int64) {
		for i, n := range s.Dims {
			if !slices.Contains(batch, int64(i)) && !slices.Contains(contracting, int64(i)) {
				dims = append(dims, n)
			}
		}
	}
	free(lhs, d.LhsBatch, d.LhsContracting)
	free(rhs, d.RhsBatch, d.RhsContracting)
	in.Shape = Shape{Type: lhs.Type, Dims: dims}
	if dims == nil {
		in.Shape.Dims = []int64{}
	}
	return true
}

// inferredFromCallee reports whether the shape of an instruction of opcode
// op written without one is its called computation's result, known only
// once calls are resolved (resolveDeferredShapes).
func inferredFromCallee(op Opcode) bool { return op == OpConditional || op == OpCall }

// resolveDeferredShapes gives each instruction of deferred its callee's
// result shape (a conditional its first branch's): in order, and again
// while one callee's root waits for another.
func resolveDeferredShapes(m *Module, deferred []*Instruction, errs *ErrorList) {
	for len(deferred) > 0 {
		var left []*Instruction
		for _, in := range deferred {
			c := calleeOf(in)
			if c == nil || c.Root == nil {
				errs.Add(m.Source, in.Pos, "expected shape, found "+strconv.Quote(string(in.Opcode))+" (its shape cannot be inferred)")
				continue
			}
			if c.Root.Shape.Type == Invalid {
				left = append(left, in)
				continue
			}
			in.Shape = c.Root.Shape.Clone()
		}
		if len(left) == len(deferred) {
			for _, in := range left {
				errs.Add(m.Source, in.Pos, "expected shape, found "+strconv.Quote(string(in.Opcode))+" (its shape cannot be inferred)")
			}
			return
		}
		deferred = left
	}
}

// calleeOf is the computation whose result an instruction of
// inferredFromCallee has: to_apply of a call, true_computation or the
// first of branch_computations of a conditional.
func calleeOf(in *Instruction) *Computation {
	for _, attr := range []string{"to_apply", "true_computation", "branch_computations"} {
		v, ok := in.Attr(attr)
		if !ok {
			continue
		}
		name := strings.TrimSpace(strings.TrimPrefix(v, "{"))
		if i := strings.IndexAny(name, ",}"); i >= 0 {
			name = strings.TrimSpace(name[:i])
		}
		for _, c := range in.Called {
			if c.Name == strings.TrimPrefix(name, "%") {
				return c
			}
		}
	}
	return nil
}
