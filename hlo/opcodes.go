package hlo

import "strings"

// The opcodes of XLA's HLO text format (xla/hlo/ir/hlo_opcode.h).
const (
	OpAbs                    Opcode = "abs"
	OpAcos                   Opcode = "acos"
	OpAcosh                  Opcode = "acosh"
	OpAdd                    Opcode = "add"
	OpAddDependency          Opcode = "add-dependency"
	OpAfterAll               Opcode = "after-all"
	OpAllGather              Opcode = "all-gather"
	OpAllGatherDone          Opcode = "all-gather-done"
	OpAllGatherStart         Opcode = "all-gather-start"
	OpAllReduce              Opcode = "all-reduce"
	OpAllReduceDone          Opcode = "all-reduce-done"
	OpAllReduceStart         Opcode = "all-reduce-start"
	OpAllToAll               Opcode = "all-to-all"
	OpAnd                    Opcode = "and"
	OpAsin                   Opcode = "asin"
	OpAsinh                  Opcode = "asinh"
	OpAsyncDone              Opcode = "async-done"
	OpAsyncStart             Opcode = "async-start"
	OpAsyncUpdate            Opcode = "async-update"
	OpAtan                   Opcode = "atan"
	OpAtan2                  Opcode = "atan2"
	OpAtanh                  Opcode = "atanh"
	OpBatchNormGrad          Opcode = "batch-norm-grad"
	OpBatchNormInference     Opcode = "batch-norm-inference"
	OpBatchNormTraining      Opcode = "batch-norm-training"
	OpBitcast                Opcode = "bitcast"
	OpBitcastConvert         Opcode = "bitcast-convert"
	OpBroadcast              Opcode = "broadcast"
	OpCall                   Opcode = "call"
	OpCbrt                   Opcode = "cbrt"
	OpCeil                   Opcode = "ceil"
	OpCholesky               Opcode = "cholesky"
	OpClamp                  Opcode = "clamp"
	OpClz                    Opcode = "count-leading-zeros"
	OpCollectiveBroadcast    Opcode = "collective-broadcast"
	OpCollectivePermute      Opcode = "collective-permute"
	OpCollectivePermuteDone  Opcode = "collective-permute-done"
	OpCollectivePermuteStart Opcode = "collective-permute-start"
	OpCollectiveReduce       Opcode = "collective-reduce"
	OpCompare                Opcode = "compare"
	OpComplex                Opcode = "complex"
	OpConcatenate            Opcode = "concatenate"
	OpConditional            Opcode = "conditional"
	OpConstant               Opcode = "constant"
	OpConvert                Opcode = "convert"
	OpConvolution            Opcode = "convolution"
	OpCopy                   Opcode = "copy"
	OpCopyDone               Opcode = "copy-done"
	OpCopyStart              Opcode = "copy-start"
	OpCos                    Opcode = "cosine"
	OpCosh                   Opcode = "cosh"
	OpCustomCall             Opcode = "custom-call"
	OpDivide                 Opcode = "divide"
	OpDomain                 Opcode = "domain"
	OpDot                    Opcode = "dot"
	OpDynamicReshape         Opcode = "dynamic-reshape"
	OpDynamicSlice           Opcode = "dynamic-slice"
	OpDynamicUpdateSlice     Opcode = "dynamic-update-slice"
	OpErf                    Opcode = "erf"
	OpExp                    Opcode = "exponential"
	OpExp2                   Opcode = "exp2"
	OpExpm1                  Opcode = "exponential-minus-one"
	OpFft                    Opcode = "fft"
	OpFloor                  Opcode = "floor"
	OpFusion                 Opcode = "fusion"
	OpGather                 Opcode = "gather"
	OpGetDimensionSize       Opcode = "get-dimension-size"
	OpGetTupleElement        Opcode = "get-tuple-element"
	OpImag                   Opcode = "imag"
	OpInfeed                 Opcode = "infeed"
	OpIota                   Opcode = "iota"
	OpIsFinite               Opcode = "is-finite"
	OpLog                    Opcode = "log"
	OpLog1p                  Opcode = "log-plus-one"
	OpLog2                   Opcode = "log2"
	OpLogistic               Opcode = "logistic"
	OpMap                    Opcode = "map"
	OpMaximum                Opcode = "maximum"
	OpMinimum                Opcode = "minimum"
	OpMulhi                  Opcode = "mulhi"
	OpMultiply               Opcode = "multiply"
	OpNegate                 Opcode = "negate"
	OpNot                    Opcode = "not"
	OpOptimizationBarrier    Opcode = "opt-barrier"
	OpOr                     Opcode = "or"
	OpOutfeed                Opcode = "outfeed"
	OpPad                    Opcode = "pad"
	OpParameter              Opcode = "parameter"
	OpPartitionID            Opcode = "partition-id"
	OpPopulationCount        Opcode = "popcnt"
	OpPower                  Opcode = "power"
	OpRaggedAllToAll         Opcode = "ragged-all-to-all"
	OpRaggedDot              Opcode = "ragged-dot"
	OpReal                   Opcode = "real"
	OpRecv                   Opcode = "recv"
	OpRecvDone               Opcode = "recv-done"
	OpReduce                 Opcode = "reduce"
	OpReducePrecision        Opcode = "reduce-precision"
	OpReduceScatter          Opcode = "reduce-scatter"
	OpReduceWindow           Opcode = "reduce-window"
	OpRemainder              Opcode = "remainder"
	OpReplicaID              Opcode = "replica-id"
	OpReshape                Opcode = "reshape"
	OpReverse                Opcode = "reverse"
	OpRng                    Opcode = "rng"
	OpRngBitGenerator        Opcode = "rng-bit-generator"
	OpRngGetAndUpdateState   Opcode = "rng-get-and-update-state"
	OpRoundNearestAfz        Opcode = "round-nearest-afz"
	OpRoundNearestEven       Opcode = "round-nearest-even"
	OpRsqrt                  Opcode = "rsqrt"
	OpScaledDot              Opcode = "scaled-dot"
	OpScan                   Opcode = "scan"
	OpScatter                Opcode = "scatter"
	OpSelect                 Opcode = "select"
	OpSelectAndScatter       Opcode = "select-and-scatter"
	OpSend                   Opcode = "send"
	OpSendDone               Opcode = "send-done"
	OpSetDimensionSize       Opcode = "set-dimension-size"
	OpShiftLeft              Opcode = "shift-left"
	OpShiftRightArithmetic   Opcode = "shift-right-arithmetic"
	OpShiftRightLogical      Opcode = "shift-right-logical"
	OpShuffle                Opcode = "shuffle"
	OpSign                   Opcode = "sign"
	OpSin                    Opcode = "sine"
	OpSinh                   Opcode = "sinh"
	OpSlice                  Opcode = "slice"
	OpSort                   Opcode = "sort"
	OpSqrt                   Opcode = "sqrt"
	OpStochasticConvert      Opcode = "stochastic-convert"
	OpSubtract               Opcode = "subtract"
	OpTan                    Opcode = "tan"
	OpTanh                   Opcode = "tanh"
	OpTopK                   Opcode = "topk"
	OpTranspose              Opcode = "transpose"
	OpTriangularSolve        Opcode = "triangular-solve"
	OpTuple                  Opcode = "tuple"
	OpWhile                  Opcode = "while"
	OpXor                    Opcode = "xor"
)

// Opcodes lists every opcode the parser knows, sorted.
var Opcodes = []Opcode{
	OpAbs, OpAcos, OpAcosh, OpAdd, OpAddDependency, OpAfterAll, OpAllGather,
	OpAllGatherDone, OpAllGatherStart, OpAllReduce, OpAllReduceDone,
	OpAllReduceStart, OpAllToAll, OpAnd, OpAsin, OpAsinh, OpAsyncDone,
	OpAsyncStart, OpAsyncUpdate, OpAtan, OpAtan2, OpAtanh, OpBatchNormGrad,
	OpBatchNormInference, OpBatchNormTraining, OpBitcast, OpBitcastConvert,
	OpBroadcast, OpCall, OpCbrt, OpCeil, OpCholesky, OpClamp, OpClz,
	OpCollectiveBroadcast, OpCollectivePermute, OpCollectivePermuteDone,
	OpCollectivePermuteStart, OpCollectiveReduce, OpCompare, OpComplex,
	OpConcatenate, OpConditional, OpConstant, OpConvert, OpConvolution, OpCopy,
	OpCopyDone, OpCopyStart, OpCos, OpCosh, OpCustomCall, OpDivide, OpDomain,
	OpDot, OpDynamicReshape, OpDynamicSlice, OpDynamicUpdateSlice, OpErf, OpExp,
	OpExp2, OpExpm1, OpFft, OpFloor, OpFusion, OpGather, OpGetDimensionSize,
	OpGetTupleElement, OpImag, OpInfeed, OpIota, OpIsFinite, OpLog, OpLog1p,
	OpLog2, OpLogistic, OpMap, OpMaximum, OpMinimum, OpMulhi, OpMultiply, OpNegate,
	OpNot, OpOptimizationBarrier, OpOr, OpOutfeed, OpPad, OpParameter,
	OpPartitionID, OpPopulationCount, OpPower, OpRaggedAllToAll, OpRaggedDot,
	OpReal, OpRecv, OpRecvDone, OpReduce, OpReducePrecision, OpReduceScatter,
	OpReduceWindow, OpRemainder, OpReplicaID, OpReshape, OpReverse, OpRng,
	OpRngBitGenerator, OpRngGetAndUpdateState, OpRoundNearestAfz,
	OpRoundNearestEven, OpRsqrt, OpScaledDot, OpScan, OpScatter, OpSelect,
	OpSelectAndScatter, OpSend, OpSendDone, OpSetDimensionSize, OpShiftLeft,
	OpShiftRightArithmetic, OpShiftRightLogical, OpShuffle, OpSign, OpSin,
	OpSinh, OpSlice, OpSort, OpSqrt, OpStochasticConvert, OpSubtract, OpTan,
	OpTanh, OpTopK, OpTranspose, OpTriangularSolve, OpTuple, OpWhile, OpXor,
}

var opcodeSet = func() map[string]Opcode {
	m := make(map[string]Opcode, len(Opcodes))
	for _, o := range Opcodes {
		m[string(o)] = o
	}
	return m
}()

// LookupOpcode returns the opcode spelled s. Besides the opcodes of
// hlo_opcode.h it accepts XLA's async sugar "<op>-start", "<op>-update"
// and "<op>-done" for any opcode <op> (such as "custom-call-start"), which
// XLA prints for an async computation wrapping one <op>; the spelling is
// kept so that the instruction prints back as written.
func LookupOpcode(s string) (Opcode, bool) {
	if o, ok := opcodeSet[s]; ok {
		return o, true
	}
	if _, _, ok := Opcode(s).IsAsyncSugar(); ok {
		return Opcode(s), true
	}
	return "", false
}

// notAsyncWrapped are the opcodes XLA's parser does not wrap in the
// "<op>-start/-update/-done" spelling of async ops: they have async forms
// of their own (all-reduce-start, copy-start, send, ...).
var notAsyncWrapped = map[Opcode]bool{
	OpAllGather: true, OpAllReduce: true, OpCollectivePermute: true, OpCopy: true, OpRecv: true, OpSend: true,
}

// asyncSugarOf returns the opcode s would wrap as "<op>-start/-update/-done"
// when it is one of notAsyncWrapped, which XLA refuses, or "".
func asyncSugarOf(s string) Opcode {
	for _, suf := range [...]string{"-start", "-update", "-done"} {
		if w, ok := strings.CutSuffix(s, suf); ok && notAsyncWrapped[Opcode(w)] {
			return Opcode(w)
		}
	}
	return ""
}

// IsAsyncSugar reports whether o is an "<op>-start/-update/-done" spelling
// of an async op that hlo_opcode.h does not list itself, and returns the
// wrapped opcode and the async opcode it stands for.
func (o Opcode) IsAsyncSugar() (wrapped, async Opcode, ok bool) {
	if s := string(o); !strings.HasSuffix(s, "-start") && !strings.HasSuffix(s, "-update") && !strings.HasSuffix(s, "-done") {
		return "", "", false // the common case, decided without a lookup
	}
	if _, known := opcodeSet[string(o)]; known {
		return "", "", false
	}
	for _, p := range [...]struct {
		suf string
		op  Opcode
	}{{"-start", OpAsyncStart}, {"-update", OpAsyncUpdate}, {"-done", OpAsyncDone}} {
		s := string(o)
		if len(s) > len(p.suf) && s[len(s)-len(p.suf):] == p.suf {
			if w, known := opcodeSet[s[:len(s)-len(p.suf)]]; known && !notAsyncWrapped[w] {
				return w, p.op, true
			}
		}
	}
	return "", "", false
}
