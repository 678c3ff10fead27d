package hlo

// OpInfo is what the analyses know of an opcode, one entry per opcode in
// one table (as the op table of Go's SSA backend): a pass asks Info
// instead of keeping its own list of opcode names.
type OpInfo struct {
	// Arity is the operand count of an opcode with a fixed one, as
	// hlo_opcode.h's HLO_OPCODE_LIST gives it; -1 when it varies
	// (variadic ops, calls, collectives, custom-calls, ...).
	Arity int
	// Elementwise: output element i reads element i of every operand, as
	// XLA's unary, binary and ternary elementwise instructions and map (a
	// scalar operand of clamp or select is read for every element).
	// bitcast-convert is elementwise only when it keeps the element
	// width, which the instruction tells, not the opcode: it is not
	// marked.
	Elementwise bool
	// Transcendental: XLA's HloCostAnalysis counts its elements as
	// transcendentals, not flops (HandleElementwiseOp).
	Transcendental bool
	// SideEffect: the op has an effect besides its result (XLA's
	// HasSideEffectNoRecurse for the opcode: infeed, outfeed, send, recv,
	// rng, the collectives' starts).
	SideEffect bool
	// Async: one half of an asynchronous pair (a start, update or done).
	Async bool
	// KeepsLayout: the result and every operand of the same rank share
	// one layout (XLA's LayoutAssignment::InstructionCanChangeLayout is
	// false).
	KeepsLayout bool
}

// IsElementwise reports whether in is elementwise on all its operands
// (XLA's HloInstruction::IsElementwise): its opcode's Elementwise, or a
// bitcast-convert that keeps the element width (and so the rank).
func (in *Instruction) IsElementwise() bool {
	if in.Opcode == OpBitcastConvert {
		return len(in.Operands) == 1 && in.Operands[0].Shape.Type.BitWidth() == in.Shape.Type.BitWidth() &&
			in.Operands[0].Shape.Rank() == in.Shape.Rank()
	}
	return Info(in.Opcode).Elementwise
}

// Info returns the facts of op; an unknown opcode has variable arity and
// no facts. An async sugar spelling ("all-reduce-start" is listed;
// "custom-call-start" is not) has the async op's facts.
func Info(op Opcode) OpInfo {
	if op != "" {
		for k := opTableSlot(op); opTable[k].op != ""; k = (k + 1) % opTableSize {
			if opTable[k].op == op {
				return opTable[k].info
			}
		}
	}
	if _, async, ok := op.IsAsyncSugar(); ok {
		return opInfos[async]
	}
	return OpInfo{Arity: -1}
}

// opTable holds opInfos by open addressing on opTableSlot, a hash of a name's
// length and three of its bytes: Info, which most passes ask for every
// instruction, compares a name or two where the map hashed all of it (a
// sixth of XLACost on the unrolled training step of hlogen).
var opTable = func() (t [opTableSize]struct {
	op   Opcode
	info OpInfo
}) {
	for op, info := range opInfos {
		k := opTableSlot(op)
		for t[k].op != "" {
			k = (k + 1) % opTableSize
		}
		t[k].op, t[k].info = op, info
	}
	return t
}()

// opTableSize is opTable's length, a power of two over twice the
// opcodes.
const opTableSize = 512

// opTableSlot is where op's probe of opTable starts (op is not empty).
func opTableSlot(op Opcode) uint {
	n := len(op)
	return (uint(n)*131 + uint(op[0])*31 + uint(op[n/2])*7 + uint(op[n-1])) % opTableSize
}

var opInfos = func() map[Opcode]OpInfo {
	m := make(map[Opcode]OpInfo, len(Opcodes))
	for _, op := range Opcodes {
		m[op] = OpInfo{Arity: -1}
	}
	set := func(f func(*OpInfo), ops ...Opcode) {
		for _, op := range ops {
			i := m[op]
			f(&i)
			m[op] = i
		}
	}
	arity := func(n int) func(*OpInfo) { return func(i *OpInfo) { i.Arity = n } }
	elementwise := func(i *OpInfo) { i.Elementwise = true }
	unary := []Opcode{OpAbs, OpAcos, OpAcosh, OpAsin, OpAsinh, OpAtan, OpAtanh, OpCbrt, OpCeil, OpClz, OpConvert,
		OpCopy, OpCos, OpCosh, OpErf, OpExp, OpExp2, OpExpm1, OpFloor, OpImag, OpIsFinite, OpLog, OpLog1p, OpLog2,
		OpLogistic, OpNegate, OpNot, OpPopulationCount, OpReal, OpReducePrecision, OpRoundNearestAfz,
		OpRoundNearestEven, OpRsqrt, OpSign, OpSin, OpSinh, OpSqrt, OpTan, OpTanh}
	binary := []Opcode{OpAdd, OpAnd, OpAtan2, OpCompare, OpComplex, OpDivide, OpMaximum, OpMinimum, OpMulhi,
		OpMultiply, OpOr, OpPower, OpRemainder, OpShiftLeft, OpShiftRightArithmetic, OpShiftRightLogical,
		OpStochasticConvert, OpSubtract, OpXor}
	ternary := []Opcode{OpClamp, OpSelect}
	set(elementwise, unary...)
	set(elementwise, binary...)
	set(elementwise, ternary...)
	set(elementwise, OpMap)
	// The fixed arities of hlo_opcode.h's HLO_OPCODE_LIST (TestOpInfoXLA
	// reads that list); every other opcode is variadic.
	set(arity(0), OpConstant, OpIota, OpParameter, OpPartitionID, OpReplicaID, OpRngGetAndUpdateState)
	set(arity(1), unary...)
	set(arity(1), OpAllGatherDone, OpAllReduceDone, OpAsyncDone, OpBitcast, OpBitcastConvert, OpBroadcast,
		OpCholesky, OpCollectivePermuteDone, OpCopyDone, OpCopyStart, OpDomain, OpFft, OpGetDimensionSize,
		OpGetTupleElement, OpInfeed, OpOptimizationBarrier, OpRecv, OpRecvDone, OpReshape, OpReverse,
		OpRngBitGenerator, OpSendDone, OpShuffle, OpSlice, OpTopK, OpTranspose, OpWhile)
	set(arity(2), binary...)
	set(arity(2), OpAddDependency, OpDot, OpGather, OpOutfeed, OpPad, OpSend, OpSetDimensionSize,
		OpTriangularSolve)
	set(arity(3), ternary...)
	set(arity(3), OpBatchNormTraining, OpRaggedDot, OpSelectAndScatter)
	set(arity(4), OpScaledDot)
	set(arity(5), OpBatchNormGrad, OpBatchNormInference)
	set(arity(6), OpRaggedAllToAll)
	set(func(i *OpInfo) { i.Transcendental = true }, OpAcos, OpAcosh, OpAsin, OpAsinh, OpAtan2, OpAtanh, OpCbrt,
		OpCos, OpCosh, OpErf, OpExp, OpExp2, OpExpm1, OpLog, OpLog1p, OpLog2, OpLogistic, OpPower, OpRsqrt,
		OpSin, OpSinh, OpSqrt, OpTan, OpTanh)
	// InstructionCanChangeLayout is false for these; the elementwise ops
	// newer than XLA's list (acos, exp2, mulhi, ...) keep layout as the
	// others do. copy is how a layout changes.
	set(func(i *OpInfo) { i.KeepsLayout = true }, unary...)
	set(func(i *OpInfo) { i.KeepsLayout = true }, binary...)
	set(func(i *OpInfo) { i.KeepsLayout = true }, ternary...)
	set(func(i *OpInfo) { i.KeepsLayout = true }, OpBitcastConvert, OpMap, OpConcatenate, OpDynamicSlice,
		OpDynamicUpdateSlice, OpPad, OpReverse, OpSlice, OpSort, OpReduceWindow, OpSelectAndScatter, OpScatter,
		OpAllGather, OpAllToAll, OpCollectivePermute, OpAllReduce, OpReduceScatter, OpAllGatherStart,
		OpAllReduceStart, OpCollectivePermuteStart, OpCholesky, OpTriangularSolve, OpFft, OpRng, OpCopyStart)
	set(func(i *OpInfo) { i.KeepsLayout = false }, OpCopy)
	set(func(i *OpInfo) { i.SideEffect = true }, OpInfeed, OpOutfeed, OpSend, OpSendDone, OpRecv, OpRecvDone,
		OpRng, OpRngGetAndUpdateState, OpAllReduceStart, OpAllGatherStart, OpCollectivePermuteStart)
	set(func(i *OpInfo) { i.Async = true }, OpAsyncStart, OpAsyncUpdate, OpAsyncDone, OpAllGatherStart,
		OpAllGatherDone, OpAllReduceStart, OpAllReduceDone, OpCollectivePermuteStart, OpCollectivePermuteDone,
		OpCopyStart, OpCopyDone, OpSend, OpSendDone, OpRecv, OpRecvDone)
	return m
}()
