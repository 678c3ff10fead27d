package hlo

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
	}
	return false
}
