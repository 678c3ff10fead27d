package indexing

import (
	"errors"
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// ComputeOutputToInput returns the maps from the indices of result
// outputIndex of instr (0 unless instr has a tuple shape) to the indices of
// each operand, as XLA's ComputeOutputToInputIndexing: one set of maps per
// operand. Constants, iotas and parameters have no operands and give no
// sets; an op whose indexing is not defined (custom-call, sort, while,
// collectives, ...) gives the undefined map for every operand. A fusion's
// maps are composed through its fused computation ([ComputeFusionOutputToInput]).
// The error reports an instruction whose attributes or operand shapes are
// inconsistent (never a panic).
func ComputeOutputToInput(instr *hlo.Instruction, outputIndex int) (*HloInstructionIndexing, error) {
	h, err := outputToInput(instr, outputIndex)
	if errors.Is(err, errUnbounded) {
		return undefinedIndexing(len(instr.Operands)), nil
	}
	return h, err
}

func outputToInput(instr *hlo.Instruction, outputIndex int) (*HloInstructionIndexing, error) {
	if instr.IsElementwise() {
		if instr.Shape.IsTuple() {
			// A copy of a tuple copies its index table, not elements.
			return undefinedIndexing(len(instr.Operands)), nil
		}
		return cwiseOutputToInput(instr)
	}
	if f := outputToInputOps[instr.Opcode]; f != nil {
		return f(instr, outputIndex)
	}
	return undefinedIndexing(len(instr.Operands)), nil
}

// opIndexing is one direction of the indexing of an op: k is the result
// (output to input) or the operand (input to output) it maps from.
type opIndexing func(in *hlo.Instruction, k int) (*HloInstructionIndexing, error)

// anyK is the opIndexing of an op whose maps do not depend on k.
func anyK(f func(*hlo.Instruction) (*HloInstructionIndexing, error)) opIndexing {
	return func(in *hlo.Instruction, _ int) (*HloInstructionIndexing, error) { return f(in) }
}

// oneMap is the opIndexing of an op with one map whatever k (bitcast).
func oneMap(f func(*hlo.Instruction) (*IndexingMap, error)) opIndexing {
	return func(in *hlo.Instruction, _ int) (*HloInstructionIndexing, error) {
		m, err := f(in)
		if err != nil {
			return nil, err
		}
		return fromMaps(m), nil
	}
}

// oneWay is the opIndexing of an op whose two directions are one
// function of outToIn (reshape, transpose).
func oneWay(f func(*hlo.Instruction, bool) (*HloInstructionIndexing, error), outToIn bool) opIndexing {
	return func(in *hlo.Instruction, _ int) (*HloInstructionIndexing, error) { return f(in, outToIn) }
}

// noOperands is the indexing of constants, iotas and parameters: no sets.
func noOperands(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	return newIndexing(len(in.Operands)), nil
}

// outputToInputOps holds the output-to-input indexing of every op that
// has one, elementwise ops aside. It is filled by init: the entries of
// fusion and dynamic-slice call back into outputToInput.
var outputToInputOps map[hlo.Opcode]opIndexing

func init() {
	outputToInputOps = map[hlo.Opcode]opIndexing{
		hlo.OpConstant:           anyK(noOperands),
		hlo.OpIota:               anyK(noOperands),
		hlo.OpParameter:          anyK(noOperands),
		hlo.OpAllGather:          anyK(allGatherOutputToInput),
		hlo.OpBitcast:            oneMap(bitcastOutputToInput),
		hlo.OpBroadcast:          anyK(broadcastOutputToInput),
		hlo.OpConcatenate:        anyK(concatOutputToInput),
		hlo.OpConvolution:        anyK(convOutputToInput),
		hlo.OpDot:                anyK(dotOutputToInput),
		hlo.OpScaledDot:          anyK(scaledDotOutputToInput),
		hlo.OpDynamicSlice:       anyK(dynamicSliceOutputToInput),
		hlo.OpDynamicUpdateSlice: anyK(dusOutputToInput),
		hlo.OpFusion:             ComputeFusionOutputToInput,
		hlo.OpGather:             anyK(gatherOutputToInput),
		hlo.OpGetTupleElement:    anyK(gteIndexing),
		hlo.OpPad:                anyK(padOutputToInput),
		hlo.OpReduce:             reduceOutputToInput,
		hlo.OpReduceWindow:       reduceWindowOutputToInput,
		hlo.OpReshape:            oneWay(reshapeIndexing, true),
		hlo.OpReverse:            anyK(reverseIndexing),
		hlo.OpScatter:            scatterOutputToInput,
		hlo.OpSlice:              anyK(sliceOutputToInput),
		hlo.OpTranspose:          oneWay(transposeIndexing, true),
		hlo.OpTuple:              tupleIndexing,
	}
}

func cwiseOutputToInput(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	out, err := arrayDims(in, in.Shape, "result")
	if err != nil {
		return nil, err
	}
	h := newIndexing(len(in.Operands))
	for i, op := range in.Operands {
		opDims, err := arrayDims(in, op.Shape, "operand")
		if err != nil {
			return nil, err
		}
		switch {
		case len(opDims) == 0 && len(out) > 0:
			h.Add(i, emptyResultMap(out))
		case slices.Equal(opDims, out):
			h.Add(i, IdentityMap(out))
		default:
			return nil, instrError(in, "expected operand %d of shape %v, found %s", i, out, op.Shape.StringNoLayout())
		}
	}
	return h, nil
}

// needOperands checks the operand count.
func needOperands(in *hlo.Instruction, n int) error {
	if len(in.Operands) != n {
		return instrError(in, "expected %d operands, found %d", n, len(in.Operands))
	}
	return nil
}

func broadcastOutputToInput(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	out, opDims, bdims, err := broadcastArgs(in)
	if err != nil {
		return nil, err
	}
	res := make([]*Expr, len(opDims))
	for i, d := range bdims {
		res[i] = Dim(int(d))
		if opDims[i] != out[d] { // a degenerate dim of size 1
			res[i] = Const(0)
		}
	}
	return fromMaps(mustNewMap(dimVars(out), nil, nil, res)), nil
}

func broadcastArgs(in *hlo.Instruction) (out, opDims, bdims []int64, err error) {
	if out, opDims, err = operandDims(in, 1); err != nil {
		return
	}
	bdims = in.Typed.Dimensions
	if len(bdims) != len(opDims) || !inRange(bdims, len(out)) {
		err = instrError(in, "expected dimensions={...} with %d entries in [0, %d), found %v", len(opDims), len(out), bdims)
		return
	}
	for i, d := range bdims {
		if opDims[i] != out[d] && opDims[i] != 1 {
			err = instrError(in, "expected operand dim %d to equal result dim %d (%d), found %d", i, d, out[d], opDims[i])
			return
		}
	}
	return
}

func concatOutputToInput(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	out, cdim, err := concatArgs(in)
	if err != nil {
		return nil, err
	}
	h := newIndexing(len(in.Operands))
	var offset int64
	for i, op := range in.Operands {
		size := op.Shape.Dims[cdim]
		vars := dimVars(out)
		vars[cdim].Bounds = Interval{offset, offset + size - 1}
		res := dims(len(out))
		res[cdim] = Add(Dim(cdim), Const(-offset))
		h.Add(i, mustNewMap(vars, nil, nil, res))
		offset += size
	}
	return h, nil
}

func concatArgs(in *hlo.Instruction) ([]int64, int, error) {
	out, err := arrayDims(in, in.Shape, "result")
	if err != nil {
		return nil, 0, err
	}
	if len(in.Typed.Dimensions) != 1 || !inRange(in.Typed.Dimensions, len(out)) {
		return nil, 0, instrError(in, "expected dimensions={D} with D in [0, %d), found %v", len(out), in.Typed.Dimensions)
	}
	cdim := int(in.Typed.Dimensions[0])
	var total int64
	for i, op := range in.Operands {
		d, err := arrayDims(in, op.Shape, "operand")
		if err != nil {
			return nil, 0, err
		}
		if len(d) != len(out) {
			return nil, 0, instrError(in, "expected operand %d of rank %d, found %s", i, len(out), op.Shape.StringNoLayout())
		}
		total += d[cdim]
	}
	if total != out[cdim] {
		return nil, 0, instrError(in, "expected operands to sum to %d along dim %d, found %d", out[cdim], cdim, total)
	}
	return out, cdim, nil
}

// dotMaps returns the output-to-lhs and output-to-rhs maps of a dot.
func dotMaps(in *hlo.Instruction) (lhsMap, rhsMap *IndexingMap, err error) {
	if err = needOperands(in, 2); err != nil {
		return
	}
	return dotOperandMaps(in)
}

// dotOperandMaps returns the maps of a dot's first two operands, its lhs
// and rhs.
func dotOperandMaps(in *hlo.Instruction) (lhsMap, rhsMap *IndexingMap, err error) {
	out, lhs, rhs, dn, err := dotArgs(in)
	if err != nil {
		return
	}
	lhsRes := make([]*Expr, len(lhs))
	rhsRes := make([]*Expr, len(rhs))
	o := 0
	for i := range dn.LhsBatch {
		lhsRes[dn.LhsBatch[i]] = Dim(o)
		rhsRes[dn.RhsBatch[i]] = Dim(o)
		o++
	}
	for _, d := range nonContracting(len(lhs), dn.LhsBatch, dn.LhsContracting) {
		lhsRes[d] = Dim(o)
		o++
	}
	for _, d := range nonContracting(len(rhs), dn.RhsBatch, dn.RhsContracting) {
		rhsRes[d] = Dim(o)
		o++
	}
	ranges := make([]int64, len(dn.LhsContracting))
	for i := range dn.LhsContracting {
		lhsRes[dn.LhsContracting[i]] = Sym(i)
		rhsRes[dn.RhsContracting[i]] = Sym(i)
		ranges[i] = lhs[dn.LhsContracting[i]]
	}
	lhsMap = mustNewMap(dimVars(out), VarsFromSizes(ranges), nil, lhsRes)
	rhsMap = mustNewMap(dimVars(out), VarsFromSizes(ranges), nil, rhsRes)
	return
}

// dotArgs validates a dot's dimension numbers.
func dotArgs(in *hlo.Instruction) (out, lhs, rhs []int64, dn *hlo.DotDims, err error) {
	if out, lhs, rhs, err = binaryDims(in, "lhs", "rhs"); err != nil {
		return
	}
	dn = in.Typed.Dot
	if dn == nil {
		dn = &hlo.DotDims{}
	}
	ok := len(dn.LhsBatch) == len(dn.RhsBatch) && len(dn.LhsContracting) == len(dn.RhsContracting) &&
		inRange(dn.LhsBatch, len(lhs)) && inRange(dn.LhsContracting, len(lhs)) &&
		inRange(dn.RhsBatch, len(rhs)) && inRange(dn.RhsContracting, len(rhs)) &&
		len(out) == len(lhs)+len(rhs)-len(dn.LhsBatch)-2*len(dn.LhsContracting)
	if ok {
		for i := range dn.LhsContracting {
			ok = ok && lhs[dn.LhsContracting[i]] == rhs[dn.RhsContracting[i]]
		}
	}
	if !ok {
		err = instrError(in, "expected dot dimension numbers consistent with %v x %v -> %v", lhs, rhs, out)
	}
	return
}

// nonContracting returns the dims of a rank-n operand that are neither
// batch nor contracting, in increasing order.
func nonContracting(n int, batch, contracting []int64) []int64 {
	var out []int64
	for d := range int64(n) {
		if !slices.Contains(batch, d) && !slices.Contains(contracting, d) {
			out = append(out, d)
		}
	}
	return out
}

// scaledDotOutputToInput indexes scaled-dot(lhs, rhs, lhs_scale,
// rhs_scale) as XLA does: lhs and rhs as a dot's, each scale as its
// operand, every dimension divided by how many operand elements one scale
// covers along it.
func scaledDotOutputToInput(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	if err := needOperands(in, 4); err != nil {
		return nil, err
	}
	l, r, err := dotOperandMaps(in)
	if err != nil {
		return nil, err
	}
	ls, err := rescaledMap(in, l, in.Operands[0].Shape, in.Operands[2].Shape)
	if err != nil {
		return nil, err
	}
	rs, err := rescaledMap(in, r, in.Operands[1].Shape, in.Operands[3].Shape)
	if err != nil {
		return nil, err
	}
	return fromMaps(l, r, ls, rs), nil
}

// rescaledMap is m with each result divided by operand's size over
// scale's along that dimension (XLA's RescaleIndexingMap).
func rescaledMap(in *hlo.Instruction, m *IndexingMap, operand, scale hlo.Shape) (*IndexingMap, error) {
	if len(operand.Dims) != len(scale.Dims) || len(operand.Dims) != len(m.results) {
		return nil, instrError(in, "expected a scale of rank %d, found %s", len(operand.Dims), scale.StringNoLayout())
	}
	res := make([]*Expr, len(m.results))
	for i, r := range m.results {
		od, sd := operand.Dims[i], scale.Dims[i]
		switch {
		case sd == od:
			res[i] = r
		case sd <= 0 || od%sd != 0:
			return nil, instrError(in, "expected scale dimension %d to divide %d, found %d", i, od, sd)
		default:
			res[i] = FloorDiv(r, od/sd)
		}
	}
	return newMap(m.dims, m.ranges, m.rts, res)
}

// allGatherOutputToInput indexes all-gather as XLA does: along the
// gathered dimension, element d of the result is element d mod n (n the
// operand's size there) of the operand on replica d floordiv n; the other
// dimensions map to themselves.
func allGatherOutputToInput(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	if len(in.Operands) != 1 || !in.Shape.IsArray() {
		// A variadic all-gather (a tuple of results): XLA indexes one
		// operand only; the maps are unknown.
		return undefinedIndexing(len(in.Operands)), nil
	}
	out, err := arrayDims(in, in.Shape, "result")
	if err != nil {
		return nil, err
	}
	opDims, err := arrayDims(in, in.Operands[0].Shape, "operand")
	if err != nil {
		return nil, err
	}
	dims := in.Typed.Dimensions
	if len(dims) != 1 || !inRange(dims, len(out)) || len(opDims) != len(out) || opDims[dims[0]] <= 0 {
		return nil, instrError(in, "expected one gathered dimension of rank %d operand %v, found dimensions=%v", len(out), opDims, dims)
	}
	g := int(dims[0])
	res := make([]*Expr, len(out))
	for i := range res {
		res[i] = Dim(i)
	}
	res[g] = Mod(Dim(g), opDims[g])
	m, err := newMap(dimVars(out), nil, nil, res)
	if err != nil {
		return nil, err
	}
	replica, err := newMap(dimVars(out), nil, nil, []*Expr{FloorDiv(Dim(g), opDims[g])})
	if err != nil {
		return nil, err
	}
	return fromMaps(m.WithReplicaID(replica)), nil
}

func dotOutputToInput(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	l, r, err := dotMaps(in)
	if err != nil {
		return nil, err
	}
	return fromMaps(l, r), nil
}

func dynamicSliceOutputToInput(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	if len(in.Operands) == 0 {
		return nil, instrError(in, "expected operands, found none")
	}
	out, err := arrayDims(in, in.Shape, "result")
	if err != nil {
		return nil, err
	}
	src, err := arrayDims(in, in.Operands[0].Shape, "operand")
	if err != nil {
		return nil, err
	}
	if len(in.Operands) != 1+len(src) || len(src) != len(out) {
		// The old form with one index vector operand has no defined map.
		return undefinedIndexing(len(in.Operands)), nil
	}
	sizes := in.Typed.DynamicSliceSizes
	if sizes == nil {
		sizes = out
	}
	if !slices.Equal(sizes, out) {
		return nil, instrError(in, "expected dynamic_slice_sizes %v, found %v", out, sizes)
	}
	rts := make([]Variable, len(out))
	res := make([]*Expr, len(out))
	for i := range out {
		if src[i] < out[i] {
			return nil, instrError(in, "expected slice size %d to fit in operand dim %d of size %d", out[i], i, src[i])
		}
		rts[i] = Variable{Bounds: Interval{0, src[i] - out[i]}}
		res[i] = Add(Dim(i), RT(i))
	}
	h := newIndexing(len(in.Operands))
	h.Add(0, foldRTVars(dimVars(out), rts, res, offsetSources(in, 1, len(out))))
	for i := 1; i < len(in.Operands); i++ {
		h.Add(i, emptyResultMap(out))
	}
	return h, nil
}

func dusOutputToInput(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	out, upd, err := dusArgs(in)
	if err != nil || out == nil {
		if err == nil {
			return undefinedIndexing(len(in.Operands)), nil
		}
		return nil, err
	}
	rts := make([]Variable, len(out))
	res := make([]*Expr, len(out))
	for i := range out {
		rts[i] = Variable{Bounds: Interval{0, out[i] - upd[i]}}
		res[i] = Sub(Dim(i), RT(i))
	}
	h := newIndexing(len(in.Operands))
	h.Add(0, IdentityMap(out))
	updMap := foldRTVars(dimVars(out), rts, res, offsetSources(in, 2, len(out)))
	if len(updMap.rts) < len(rts) {
		// A folded offset is exact: the update is read only in its window.
		for i, r := range updMap.results {
			usesRT := false
			r.Walk(func(x *Expr) { usesRT = usesRT || x.kind == KindRuntime })
			if !usesRT {
				updMap.addConstraint(r, Interval{0, upd[i] - 1})
			}
		}
	}
	h.Add(1, updMap)
	for i := 2; i < len(in.Operands); i++ {
		h.Add(i, emptyResultMap(out))
	}
	return h, nil
}

// offsetSources are the runtime sources of the n scalar offset operands
// of a dynamic-slice or dynamic-update-slice, operands first on.
func offsetSources(in *hlo.Instruction, first, n int) []rtSource {
	srcs := make([]rtSource, n)
	for i := range srcs {
		srcs[i] = rtSource{src: in.Operands[first+i]}
	}
	return srcs
}

// dusArgs validates a dynamic-update-slice; out is nil for the old form
// with an index vector operand.
func dusArgs(in *hlo.Instruction) (out, upd []int64, err error) {
	if len(in.Operands) < 2 {
		return nil, nil, instrError(in, "expected at least 2 operands, found %d", len(in.Operands))
	}
	if out, err = arrayDims(in, in.Shape, "result"); err != nil {
		return
	}
	if upd, err = arrayDims(in, in.Operands[1].Shape, "update"); err != nil {
		return
	}
	if len(in.Operands) != 2+len(out) {
		return nil, nil, nil
	}
	if len(upd) != len(out) {
		return nil, nil, instrError(in, "expected an update of rank %d, found %s", len(out), in.Operands[1].Shape.StringNoLayout())
	}
	for i := range out {
		if upd[i] > out[i] {
			return nil, nil, instrError(in, "expected update dim %d (%d) to fit in %d", i, upd[i], out[i])
		}
	}
	return
}

func gteIndexing(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	if err := needOperands(in, 1); err != nil {
		return nil, err
	}
	if !in.Shape.IsArray() {
		return undefinedIndexing(1), nil
	}
	out, err := arrayDims(in, in.Shape, "result")
	if err != nil {
		return nil, err
	}
	return fromMaps(IdentityMap(out)), nil
}

// tupleIndexing is the identity between a tuple's operand k and its
// element k, in either direction (undefined for a non-array element).
func tupleIndexing(in *hlo.Instruction, k int) (*HloInstructionIndexing, error) {
	if k < 0 || k >= len(in.Operands) {
		return nil, instrError(in, "expected an output index in [0, %d), found %d", len(in.Operands), k)
	}
	h := newIndexing(len(in.Operands))
	op := in.Operands[k]
	if !op.Shape.IsArray() {
		h.Add(k, Undefined())
		return h, nil
	}
	d, err := arrayDims(in, op.Shape, "operand")
	if err != nil {
		return nil, err
	}
	h.Add(k, IdentityMap(d))
	return h, nil
}

// padMap returns the output-to-input map of a pad from an output of the
// given dims, as XLA's pad indexing: each dim reads (d - low) floordiv
// (interior + 1) on [max(0, low), min(n - 1, n - 1 - high)], with the
// constraint (d - low) mod (interior + 1) in [0, 0] when interior > 0.
func padMap(out []int64, pads []hlo.PadDim) *IndexingMap {
	vars := make([]Variable, len(out))
	res := make([]*Expr, len(out))
	var cons []Constraint
	for i, n := range out {
		p := pads[i]
		vars[i] = Variable{Bounds: Interval{max(0, p.Low), min(n-1, n-1-p.High)}}
		shifted := Add(Dim(i), Const(-p.Low))
		if p.Interior == 0 {
			res[i] = shifted
			continue
		}
		res[i] = FloorDiv(shifted, p.Interior+1)
		cons = append(cons, Constraint{Mod(shifted, p.Interior+1), Point(0)})
	}
	return mustNewMap(vars, nil, nil, res, cons...)
}

func padArgs(in *hlo.Instruction) (out, opDims []int64, err error) {
	pads := in.Typed.Padding
	if out, opDims, err = perDimArgs(in, 2, len(pads), "padding"); err != nil {
		return
	}
	for i, p := range pads {
		want := p.Low + p.High + opDims[i]
		if opDims[i] > 0 {
			want += (opDims[i] - 1) * p.Interior
		}
		if p.Interior < 0 || want != out[i] {
			return nil, nil, instrError(in, "expected padding %d_%d_%d of dim %d to give %d, found %d",
				p.Low, p.High, p.Interior, i, out[i], want)
		}
	}
	return
}

func padOutputToInput(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	out, _, err := padArgs(in)
	if err != nil {
		return nil, err
	}
	return fromMaps(padMap(out, in.Typed.Padding), emptyResultMap(out)), nil
}

// variadicArgs checks an op with N inputs followed by N inits (reduce,
// reduce-window) and returns N and the dims of input 0 and of result k.
func variadicArgs(in *hlo.Instruction, k int) (n int, inDims, out []int64, err error) {
	if len(in.Operands) == 0 || len(in.Operands)%2 != 0 {
		return 0, nil, nil, instrError(in, "expected inputs and as many init values, found %d operands", len(in.Operands))
	}
	n = len(in.Operands) / 2
	s, err := outputShape(in, k)
	if err != nil {
		return
	}
	if out, err = arrayDims(in, s, "result"); err != nil {
		return
	}
	inDims, err = arrayDims(in, in.Operands[0].Shape, "input")
	return
}

func reduceOutputToInput(in *hlo.Instruction, k int) (*HloInstructionIndexing, error) {
	n, inDims, out, err := variadicArgs(in, k)
	if err != nil {
		return nil, err
	}
	red := in.Typed.Dimensions
	if !inRange(red, len(inDims)) || len(inDims)-len(red) != len(out) {
		return nil, instrError(in, "expected dimensions={...} reducing %v to %v, found %v", inDims, out, red)
	}
	res := make([]*Expr, len(inDims))
	var ranges []int64
	o := 0
	for d := range inDims {
		if slices.Contains(red, int64(d)) {
			res[d] = Sym(len(ranges))
			ranges = append(ranges, inDims[d])
			continue
		}
		res[d] = Dim(o)
		o++
	}
	inputs := mustNewMap(dimVars(out), VarsFromSizes(ranges), nil, res)
	h := newIndexing(len(in.Operands))
	for i := range n {
		h.Add(i, inputs)
		h.Add(n+i, emptyResultMap(out))
	}
	return h, nil
}

// windowMap returns the map from the output of a windowed op (reduce-window,
// the spatial dims of a convolution) to its input, as the composition of a
// window that never reads out of bounds, (d)[s] -> (d * stride + s *
// window_dilation), with the map of the pad that applies the window's
// padding and base dilation; simplified, unused symbols removed.
func windowMap(inDims, out []int64, win []hlo.WindowDim) (*IndexingMap, error) {
	rank := len(inDims)
	pads := make([]hlo.PadDim, rank)
	padded := make([]int64, rank)
	res := make([]*Expr, rank)
	ranges := make([]int64, rank)
	for i, w := range win {
		stride, bd, wd := max(w.Stride, 1), max(w.BaseDilation, 1), max(w.WindowDilation, 1)
		pads[i] = hlo.PadDim{Low: w.PadLow, High: w.PadHigh, Interior: bd - 1}
		padded[i] = inDims[i] + w.PadLow + w.PadHigh + max(inDims[i]-1, 0)*(bd-1)
		res[i] = Add(Mul(Dim(i), stride), Mul(Sym(i), wd))
		ranges[i] = w.Size
	}
	noPad := mustNewMap(dimVars(out), VarsFromSizes(ranges), nil, res)
	m, err := Compose(noPad, padMap(padded, pads))
	if err != nil {
		return nil, err
	}
	m, _ = m.Simplify().RemoveUnusedSymbols()
	return m, nil
}

func reduceWindowOutputToInput(in *hlo.Instruction, k int) (*HloInstructionIndexing, error) {
	n, inDims, out, err := variadicArgs(in, k)
	if err != nil {
		return nil, err
	}
	if len(in.Typed.Window) != len(inDims) || len(out) != len(inDims) {
		return nil, instrError(in, "expected a window of %d dims, found %d", len(inDims), len(in.Typed.Window))
	}
	m, err := windowMap(inDims, out, in.Typed.Window)
	if err != nil {
		return nil, instrError(in, "%v", err)
	}
	h := newIndexing(len(in.Operands))
	for i := range n {
		h.Add(i, m)
		h.Add(n+i, emptyResultMap(out))
	}
	return h, nil
}

// reshapeIndexing is a reshape's map from its result to its operand
// (outToIn) or back.
func reshapeIndexing(in *hlo.Instruction, outToIn bool) (*HloInstructionIndexing, error) {
	out, opDims, err := operandDims(in, 1)
	if err != nil {
		return nil, err
	}
	from, to := out, opDims
	if !outToIn {
		from, to = opDims, out
	}
	m, err := reshapeMap(from, to)
	if err != nil {
		return nil, instrError(in, "%v", err)
	}
	return fromMaps(m), nil
}

// operandDims checks that in has n operands, an array result and an
// array operand 0, and returns the dims of both: the prologue of the
// maps of single-input ops.
func operandDims(in *hlo.Instruction, n int) (out, opDims []int64, err error) {
	if err = needOperands(in, n); err != nil {
		return
	}
	if out, err = arrayDims(in, in.Shape, "result"); err != nil {
		return
	}
	opDims, err = arrayDims(in, in.Operands[0].Shape, "operand")
	return
}

// perDimArgs is operandDims for an op whose operand has the rank of its
// result and whose attribute (named attr in errors) has an entry per
// dim, entries in all: pad and slice.
func perDimArgs(in *hlo.Instruction, n, entries int, attr string) (out, opDims []int64, err error) {
	if out, opDims, err = operandDims(in, n); err != nil {
		return
	}
	if entries != len(out) || len(opDims) != len(out) {
		return nil, nil, instrError(in, "expected %s for %d dims, found %d", attr, len(out), entries)
	}
	return
}

// binaryDims returns the dims of in's result and of its operands 0 and 1
// (named a and b in errors), all arrays: the prologue of the maps of
// two-input ops, once their operand count is checked.
func binaryDims(in *hlo.Instruction, a, b string) (out, aDims, bDims []int64, err error) {
	if out, err = arrayDims(in, in.Shape, "result"); err != nil {
		return
	}
	if aDims, err = arrayDims(in, in.Operands[0].Shape, a); err != nil {
		return
	}
	bDims, err = arrayDims(in, in.Operands[1].Shape, b)
	return
}

func reverseIndexing(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	if err := needOperands(in, 1); err != nil {
		return nil, err
	}
	out, err := arrayDims(in, in.Shape, "result")
	if err != nil {
		return nil, err
	}
	if !slices.Equal(in.Operands[0].Shape.Dims, out) || !inRange(in.Typed.Dimensions, len(out)) {
		return nil, instrError(in, "expected an operand of shape %v and dimensions in [0, %d)", out, len(out))
	}
	res := dims(len(out))
	for _, d := range in.Typed.Dimensions {
		res[d] = Add(Neg(Dim(int(d))), Const(out[d]-1))
	}
	return fromMaps(mustNewMap(dimVars(out), nil, nil, res)), nil
}

func sliceArgs(in *hlo.Instruction) (out, opDims []int64, err error) {
	sl := in.Typed.Slice
	if out, opDims, err = perDimArgs(in, 1, len(sl), "slice={...}"); err != nil {
		return
	}
	for i, s := range sl {
		stride := max(s.Stride, 1)
		if s.Start < 0 || (out[i] > 0 && s.Start+(out[i]-1)*stride >= opDims[i]) {
			return nil, nil, instrError(in, "expected slice [%d:%d:%d] of dim %d within %d", s.Start, s.Limit, s.Stride, i, opDims[i])
		}
	}
	return
}

func sliceOutputToInput(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	out, _, err := sliceArgs(in)
	if err != nil {
		return nil, err
	}
	res := make([]*Expr, len(out))
	for i, s := range in.Typed.Slice {
		res[i] = Add(Mul(Dim(i), max(s.Stride, 1)), Const(s.Start))
	}
	return fromMaps(mustNewMap(dimVars(out), nil, nil, res)), nil
}

func transposeArgs(in *hlo.Instruction) (out, opDims, perm []int64, err error) {
	if out, opDims, err = operandDims(in, 1); err != nil {
		return
	}
	perm = in.Typed.Dimensions
	if !isPermutation(perm, len(out)) || len(opDims) != len(out) {
		return nil, nil, nil, instrError(in, "expected dimensions={...} to be a permutation of %d dims, found %v", len(out), perm)
	}
	for i, p := range perm {
		if out[i] != opDims[p] {
			return nil, nil, nil, instrError(in, "expected result dim %d to equal operand dim %d (%d), found %d", i, p, opDims[p], out[i])
		}
	}
	return
}

// transposeIndexing is a transpose's map from its result to its operand
// (outToIn) or back.
func transposeIndexing(in *hlo.Instruction, outToIn bool) (*HloInstructionIndexing, error) {
	out, opDims, perm, err := transposeArgs(in)
	if err != nil {
		return nil, err
	}
	res := make([]*Expr, len(perm))
	for i, p := range perm {
		if outToIn {
			res[p] = Dim(i)
		} else {
			res[i] = Dim(int(p))
		}
	}
	if outToIn {
		return fromMaps(mustNewMap(dimVars(out), nil, nil, res)), nil
	}
	return fromMaps(mustNewMap(dimVars(opDims), nil, nil, res)), nil
}
