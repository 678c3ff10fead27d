package indexing

import (
	"errors"
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// numResults is the number of results of an instruction: the tuple's
// element count for a tuple shape, 1 otherwise.
func numResults(in *hlo.Instruction) int {
	if in.Shape.IsTuple() {
		return len(in.Shape.Tuple)
	}
	return 1
}

// ComputeInputToOutput returns the maps from the indices of operand
// operandIndex of instr to the indices of each of its results (one set per
// result: one set unless instr has a tuple shape), as XLA's
// ComputeInputToOutputIndexing. It is defined for elementwise ops,
// bitcast, broadcast, concatenate, dot, dynamic-update-slice (operand and
// update), pad (the padded operand), reduce, reshape, reverse, slice,
// transpose, tuple, get-tuple-element and fusions ([ComputeFusionInputToOutput]);
// every other case gives the undefined map for every result.
func ComputeInputToOutput(instr *hlo.Instruction, operandIndex int) (*HloInstructionIndexing, error) {
	if operandIndex < 0 || operandIndex >= len(instr.Operands) {
		return nil, instrError(instr, "expected an operand index in [0, %d), found %d", len(instr.Operands), operandIndex)
	}
	h, err := inputToOutput(instr, operandIndex)
	if errors.Is(err, errUnbounded) {
		return undefinedIndexing(numResults(instr)), nil
	}
	return h, err
}

func inputToOutput(instr *hlo.Instruction, operandIndex int) (*HloInstructionIndexing, error) {
	if instr.IsElementwise() {
		if instr.Shape.IsTuple() {
			// A copy of a tuple copies its index table, not elements.
			return undefinedIndexing(numResults(instr)), nil
		}
		out, err := arrayDims(instr, instr.Shape, "result")
		if err != nil {
			return nil, err
		}
		if instr.Operands[operandIndex].Shape.Rank() == 0 && len(out) > 0 {
			return fromMaps(allElementsMap(out)), nil
		}
		return fromMaps(IdentityMap(out)), nil
	}
	if f := inputToOutputOps[instr.Opcode]; f != nil {
		return f(instr, operandIndex)
	}
	return undefinedIndexing(numResults(instr)), nil
}

// inputToOutputOps holds the input-to-output indexing of every op that
// has one, elementwise ops aside (filled by init, as outputToInputOps).
var inputToOutputOps map[hlo.Opcode]opIndexing

func init() {
	inputToOutputOps = map[hlo.Opcode]opIndexing{
		hlo.OpBitcast:            oneMap(bitcastInputToOutput),
		hlo.OpBroadcast:          anyK(broadcastInputToOutput),
		hlo.OpConcatenate:        concatInputToOutput,
		hlo.OpDot:                dotInputToOutput,
		hlo.OpDynamicUpdateSlice: dusInputToOutput,
		hlo.OpFusion:             ComputeFusionInputToOutput,
		hlo.OpGetTupleElement:    anyK(gteIndexing),
		hlo.OpPad:                padInputToOutput,
		hlo.OpReduce:             reduceInputToOutput,
		hlo.OpReshape:            oneWay(reshapeIndexing, false),
		hlo.OpReverse:            anyK(reverseIndexing),
		hlo.OpSlice:              anyK(sliceInputToOutput),
		hlo.OpTranspose:          oneWay(transposeIndexing, false),
		hlo.OpTuple:              tupleIndexing,
	}
}

func broadcastInputToOutput(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	out, opDims, bdims, err := broadcastArgs(in)
	if err != nil {
		return nil, err
	}
	res := make([]*Expr, len(out))
	var added []int64
	for d := range int64(len(out)) {
		if p := slices.Index(bdims, d); p >= 0 && opDims[p] == out[d] {
			res[d] = Dim(p)
			continue
		}
		res[d] = Sym(len(added))
		added = append(added, out[d])
	}
	return fromMaps(mustNewMap(dimVars(opDims), VarsFromSizes(added), nil, res)), nil
}

func concatInputToOutput(in *hlo.Instruction, k int) (*HloInstructionIndexing, error) {
	_, cdim, err := concatArgs(in)
	if err != nil {
		return nil, err
	}
	var offset int64
	for _, op := range in.Operands[:k] {
		offset += op.Shape.Dims[cdim]
	}
	opDims := in.Operands[k].Shape.Dims
	res := dims(len(opDims))
	res[cdim] = Add(Dim(cdim), Const(offset))
	return fromMaps(mustNewMap(dimVars(opDims), nil, nil, res)), nil
}

// dotInputToOutput maps an operand's index to the output elements it
// contributes to: its batch and non-contracting dims keep their index, the
// other operand's non-contracting dims range over their sizes.
func dotInputToOutput(in *hlo.Instruction, k int) (*HloInstructionIndexing, error) {
	if err := needOperands(in, 2); err != nil {
		return nil, err
	}
	out, lhs, rhs, dn, err := dotArgs(in)
	if err != nil {
		return nil, err
	}
	res := make([]*Expr, 0, len(out))
	var ranges []int64
	own, batch := lhs, dn.LhsBatch
	if k == 1 {
		own, batch = rhs, dn.RhsBatch
	}
	for _, b := range batch {
		res = append(res, Dim(int(b)))
	}
	ranged := func(ds []int64, sizes []int64) {
		for _, d := range ds {
			res = append(res, Sym(len(ranges)))
			ranges = append(ranges, sizes[d])
		}
	}
	lhsNC := nonContracting(len(lhs), dn.LhsBatch, dn.LhsContracting)
	rhsNC := nonContracting(len(rhs), dn.RhsBatch, dn.RhsContracting)
	if k == 0 {
		for _, d := range lhsNC {
			res = append(res, Dim(int(d)))
		}
		ranged(rhsNC, rhs)
	} else {
		ranged(lhsNC, lhs)
		for _, d := range rhsNC {
			res = append(res, Dim(int(d)))
		}
	}
	return fromMaps(mustNewMap(dimVars(own), VarsFromSizes(ranges), nil, res)), nil
}

func dusInputToOutput(in *hlo.Instruction, k int) (*HloInstructionIndexing, error) {
	out, upd, err := dusArgs(in)
	if err != nil {
		return nil, err
	}
	switch {
	case out == nil || k > 1:
		return undefinedIndexing(1), nil
	case k == 0:
		return fromMaps(IdentityMap(out)), nil
	}
	rts := make([]Variable, len(out))
	res := make([]*Expr, len(out))
	for i := range out {
		rts[i] = Variable{Bounds: Interval{0, out[i] - upd[i]}}
		res[i] = Add(Dim(i), RT(i))
	}
	return fromMaps(mustNewMap(dimVars(upd), nil, rts, res)), nil
}

// padInputToOutput maps the padded operand's element d to d * (interior +
// 1) + low; with negative padding, the elements cut off are excluded by
// constraints. The padding value has no defined map.
func padInputToOutput(in *hlo.Instruction, k int) (*HloInstructionIndexing, error) {
	out, opDims, err := padArgs(in)
	if err != nil {
		return nil, err
	}
	if k == 1 {
		return undefinedIndexing(1), nil
	}
	res := make([]*Expr, len(out))
	var cons []Constraint
	for i, p := range in.Typed.Padding {
		res[i] = Add(Mul(Dim(i), p.Interior+1), Const(p.Low))
		if p.Low < 0 || p.High < 0 {
			cons = append(cons, Constraint{res[i], Interval{0, out[i] - 1}})
		}
	}
	m := mustNewMap(dimVars(opDims), nil, nil, res, cons...)
	if len(cons) > 0 {
		m = m.Simplify()
	}
	return fromMaps(m), nil
}

func reduceInputToOutput(in *hlo.Instruction, k int) (*HloInstructionIndexing, error) {
	n, inDims, out, err := variadicArgs(in, 0)
	if err != nil {
		return nil, err
	}
	var m *IndexingMap
	if k >= n {
		m = allElementsMap(out)
	} else {
		opDims, err := arrayDims(in, in.Operands[k].Shape, "input")
		if err != nil {
			return nil, err
		}
		if !slices.Equal(opDims, inDims) || !inRange(in.Typed.Dimensions, len(inDims)) {
			return nil, instrError(in, "expected inputs of shape %v reduced along dims in range", inDims)
		}
		var res []*Expr
		for d := range int64(len(opDims)) {
			if !slices.Contains(in.Typed.Dimensions, d) {
				res = append(res, Dim(int(d)))
			}
		}
		if len(res) != len(out) {
			return nil, instrError(in, "expected %d kept dims, found %d", len(out), len(res))
		}
		m = mustNewMap(dimVars(opDims), nil, nil, res)
	}
	h := newIndexing(numResults(in))
	for i := range h.Maps {
		h.Add(i, m)
	}
	return h, nil
}

func sliceInputToOutput(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	out, opDims, err := sliceArgs(in)
	if err != nil {
		return nil, err
	}
	vars := dimVars(opDims)
	res := make([]*Expr, len(out))
	var cons []Constraint
	for i, s := range in.Typed.Slice {
		stride := max(s.Stride, 1)
		shifted := Add(Dim(i), Const(-s.Start))
		res[i] = FloorDiv(shifted, stride)
		vars[i].Bounds = vars[i].Bounds.Intersect(Interval{s.Start, (out[i]-1)*stride + s.Start})
		if stride > 1 {
			cons = append(cons, Constraint{Mod(shifted, stride), Point(0)})
		}
	}
	return fromMaps(mustNewMap(vars, nil, nil, res, cons...)), nil
}
