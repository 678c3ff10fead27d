package indexing

import (
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// indexBatchDims returns, for a gather or scatter whose indices tensor has
// the given rank and index_vector_dim, the indices dims that are batch
// (scatter) dims, in order: every dim but index_vector_dim.
func indexBatchDims(rank int, ivd int64) []int64 {
	var out []int64
	for d := range int64(rank) {
		if d != ivd {
			out = append(out, d)
		}
	}
	return out
}

// gatherOutputToInput implements the general gather: operand dim i reads
// the output offset dim of its slice (0 for a collapsed dim, the batch
// index for an operand batching dim) plus, when i is in start_index_map at
// position k, the runtime start rt_k in [0, operand_dim - slice_size]
// (starts are clamped into bounds). The indices tensor is read at the
// output's batch index along every dim but index_vector_dim, which ranges
// over the whole index vector (s0). For the simplified gather of the seed
// this is XLA's map.
func gatherOutputToInput(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	if err := needOperands(in, 2); err != nil {
		return nil, err
	}
	g := in.Typed.Gather
	if g == nil {
		return nil, instrError(in, "expected gather dimension numbers, found none")
	}
	out, opDims, idxDims, err := binaryDims(in, "operand", "indices")
	if err != nil {
		return nil, err
	}
	ivd := g.IndexVectorDim
	vecLen := int64(1)
	if ivd < int64(len(idxDims)) {
		vecLen = idxDims[ivd]
	}
	batchIdx := indexBatchDims(len(idxDims), ivd)
	var batchOut []int64 // output dims that are not offset dims, in order
	for d := range int64(len(out)) {
		if !slices.Contains(g.OffsetDims, d) {
			batchOut = append(batchOut, d)
		}
	}
	ok := ivd >= 0 && ivd <= int64(len(idxDims)) && int64(len(g.StartIndexMap)) == vecLen &&
		len(g.SliceSizes) == len(opDims) && distinctInRange(g.StartIndexMap, len(opDims)) &&
		distinctInRange(g.OffsetDims, len(out)) && len(batchOut) == len(batchIdx) &&
		len(g.OperandBatchingDims) == len(g.StartIndicesBatchingDims) &&
		distinctInRange(g.CollapsedSliceDims, len(opDims)) && distinctInRange(g.OperandBatchingDims, len(opDims))
	if !ok {
		return nil, instrError(in, "expected gather dimension numbers consistent with operand %v, indices %v and result %v",
			opDims, idxDims, out)
	}
	// The output batch dim that corresponds to indices dim j.
	outOfIdx := func(j int64) *Expr { return Dim(int(batchOut[slices.Index(batchIdx, j)])) }
	res, rts, err := gatherOperandExprs(in, opDims, vecLen, batchIdx, outOfIdx)
	if err != nil {
		return nil, err
	}
	if _, err := newMap(dimVars(out), nil, rts, res); err != nil {
		return nil, instrError(in, "%v", err)
	}
	idxRes := make([]*Expr, len(idxDims))
	var ranges []int64
	for j := range int64(len(idxDims)) {
		if j == ivd {
			idxRes[j] = Sym(0)
			ranges = []int64{vecLen}
			continue
		}
		idxRes[j] = outOfIdx(j)
	}
	indicesMap := mustNewMap(dimVars(out), VarsFromSizes(ranges), nil, idxRes)
	// rt_k is element k of the index vector the output's batch index reads.
	srcs := make([]rtSource, vecLen)
	for k := range srcs {
		srcs[k] = rtSource{src: in.Operands[1], access: make([]*Expr, len(idxRes))}
		for j, e := range idxRes {
			srcs[k].access[j] = e.Replace(nil, []*Expr{Const(int64(k))}, nil)
		}
	}
	operandMap := foldRTVars(dimVars(out), rts, res, srcs)
	return fromMaps(operandMap, indicesMap), nil
}

// gatherOperandExprs returns the operand index a gather reads for each
// operand dim (the batch index for an operand batching dim, 0 for a
// collapsed dim, the offset dim otherwise, plus the runtime start rt_k for
// a dim in start_index_map) and the rt variables' bounds.
func gatherOperandExprs(in *hlo.Instruction, opDims []int64, vecLen int64, batchIdx []int64, outOfIdx func(int64) *Expr) ([]*Expr, []Variable, error) {
	g := in.Typed.Gather
	res := make([]*Expr, len(opDims))
	rts := make([]Variable, vecLen)
	w := 0
	for i := range int64(len(opDims)) {
		switch p := slices.Index(g.OperandBatchingDims, i); {
		case p >= 0:
			if !slices.Contains(batchIdx, g.StartIndicesBatchingDims[p]) {
				return nil, nil, instrError(in, "expected start_indices_batching_dims to name batch dims of the indices")
			}
			res[i] = outOfIdx(g.StartIndicesBatchingDims[p])
		case slices.Contains(g.CollapsedSliceDims, i):
			res[i] = Const(0)
		default:
			if w >= len(g.OffsetDims) {
				return nil, nil, instrError(in, "expected %d offset_dims, found %d", w+1, len(g.OffsetDims))
			}
			res[i] = Dim(int(g.OffsetDims[w]))
			w++
		}
		if k := slices.Index(g.StartIndexMap, i); k >= 0 {
			if g.SliceSizes[i] > opDims[i] {
				return nil, nil, instrError(in, "expected slice size %d to fit in operand dim %d (%d)", g.SliceSizes[i], i, opDims[i])
			}
			rts[k] = Variable{Bounds: Interval{0, opDims[i] - g.SliceSizes[i]}}
			res[i] = Add(res[i], RT(k))
		}
	}
	return res, rts, nil
}

// scatterOutputToInput gives, for result k of a scatter with N operands,
// one indices tensor and N updates: each operand is read at the output's
// index (the combiner reads every operand); the indices tensor may be read
// anywhere (every index may target the element); an update is read at
// any scatter index (a range variable per scatter dim) and, along each
// window dim of operand dim i, at d_i - rt_k when i is the k-th entry of
// scatter_dims_to_operand_dims (rt_k in [0, dim - window size]), d_i
// otherwise.
func scatterOutputToInput(in *hlo.Instruction, k int) (*HloInstructionIndexing, error) {
	if len(in.Operands) < 3 || len(in.Operands)%2 != 1 {
		return nil, instrError(in, "expected N operands, indices and N updates, found %d operands", len(in.Operands))
	}
	n := len(in.Operands) / 2
	sc := in.Typed.Scatter
	if sc == nil {
		return nil, instrError(in, "expected scatter dimension numbers, found none")
	}
	s, err := outputShape(in, k)
	if err != nil {
		return nil, err
	}
	out, err := arrayDims(in, s, "result")
	if err != nil {
		return nil, err
	}
	idxDims, err := arrayDims(in, in.Operands[n].Shape, "indices")
	if err != nil {
		return nil, err
	}
	updDims, err := arrayDims(in, in.Operands[n+1].Shape, "updates")
	if err != nil {
		return nil, err
	}
	ivd := sc.IndexVectorDim
	batchIdx := indexBatchDims(len(idxDims), ivd)
	var windowOperand []int64 // operand dims that have a window dim in the updates
	for i := range int64(len(out)) {
		if !slices.Contains(sc.InsertedWindowDims, i) && !slices.Contains(sc.InputBatchingDims, i) {
			windowOperand = append(windowOperand, i)
		}
	}
	ok := ivd >= 0 && ivd <= int64(len(idxDims)) && len(windowOperand) == len(sc.UpdateWindowDims) &&
		distinctInRange(sc.UpdateWindowDims, len(updDims)) && distinctInRange(sc.ScatterDimsToOperandDims, len(out)) &&
		len(updDims)-len(sc.UpdateWindowDims) == len(batchIdx) &&
		len(sc.InputBatchingDims) == len(sc.ScatterIndicesBatchingDims) && distinctInRange(sc.InputBatchingDims, len(out)) &&
		distinctInRange(sc.InsertedWindowDims, len(out)) && distinctInRange(sc.ScatterIndicesBatchingDims, len(idxDims))
	if !ok {
		return nil, instrError(in, "expected scatter dimension numbers consistent with result %v, indices %v and updates %v",
			out, idxDims, updDims)
	}
	rts := make([]Variable, len(sc.ScatterDimsToOperandDims))
	for j, i := range sc.ScatterDimsToOperandDims {
		rts[j] = Variable{Bounds: Interval{0, out[i] - 1}} // a window of size 1
	}
	var ranges []int64
	res := make([]*Expr, len(updDims))
	w, b := 0, 0
	for u := range int64(len(updDims)) {
		if slices.Contains(sc.UpdateWindowDims, u) {
			i := windowOperand[w]
			w++
			res[u] = Dim(int(i))
			if j := slices.Index(sc.ScatterDimsToOperandDims, i); j >= 0 {
				if updDims[u] > out[i] {
					return nil, instrError(in, "expected update window dim %d (%d) to fit in %d", u, updDims[u], out[i])
				}
				rts[j] = Variable{Bounds: Interval{0, out[i] - updDims[u]}}
				res[u] = Sub(Dim(int(i)), RT(j))
			}
			continue
		}
		j := batchIdx[b] // the indices dim of this scatter dim
		b++
		if p := slices.Index(sc.ScatterIndicesBatchingDims, j); p >= 0 {
			res[u] = Dim(int(sc.InputBatchingDims[p]))
			continue
		}
		res[u] = Sym(len(ranges))
		ranges = append(ranges, updDims[u])
	}
	updMap, err := newMap(dimVars(out), VarsFromSizes(ranges), rts, res)
	if err != nil {
		return nil, instrError(in, "%v", err)
	}
	h := newIndexing(len(in.Operands))
	for i := range n {
		h.Add(i, IdentityMap(out))
		h.Add(n+1+i, updMap)
	}
	h.Add(n, mustNewMap(dimVars(out), VarsFromSizes(idxDims), nil, symsUpTo(len(idxDims))))
	return h, nil
}

// symsUpTo returns s0..s{n-1}.
func symsUpTo(n int) []*Expr {
	out := make([]*Expr, n)
	for i := range out {
		out[i] = Sym(i)
	}
	return out
}

// convOutputToInput follows XLA: the input's spatial dims are the window
// map (padding, base and window dilation, stride) of the output's spatial
// dims with a range variable per kernel spatial dim, its feature dim a range
// variable over the kernel's input features (offset by the feature group of
// the output feature), its batch dim the output batch (plus a range
// variable over batch groups); the kernel is read at the spatial range
// variables, the input feature range variable and the output feature.
func convOutputToInput(in *hlo.Instruction) (*HloInstructionIndexing, error) {
	if err := needOperands(in, 2); err != nil {
		return nil, err
	}
	cd := in.Typed.Conv
	if cd == nil {
		return nil, instrError(in, "expected dim_labels, found none")
	}
	out, lhs, rhs, err := binaryDims(in, "input", "kernel")
	if err != nil {
		return nil, err
	}
	rank := len(out)
	sp := rank - 2
	ok := sp >= 0 && len(lhs) == rank && len(rhs) == rank && len(cd.InputSpatial) == sp &&
		len(cd.KernelSpatial) == sp && len(cd.OutputSpatial) == sp && len(in.Typed.Window) == sp &&
		inRange(cd.InputSpatial, rank) && inRange(cd.KernelSpatial, rank) && inRange(cd.OutputSpatial, rank) &&
		inRange([]int64{cd.InputBatch, cd.InputFeature, cd.KernelInputFeature, cd.KernelOutputFeature,
			cd.OutputBatch, cd.OutputFeature}, rank)
	if !ok {
		return nil, instrError(in, "expected dim_labels and a window consistent with rank %d", rank)
	}
	inSp, kSp, outSp := make([]int64, sp), make([]int64, sp), make([]int64, sp)
	outDimOf := make([]*Expr, sp)
	for i := range sp {
		inSp[i], kSp[i], outSp[i] = lhs[cd.InputSpatial[i]], rhs[cd.KernelSpatial[i]], out[cd.OutputSpatial[i]]
		outDimOf[i] = Dim(int(cd.OutputSpatial[i]))
	}
	win, err := windowMap(inSp, outSp, in.Typed.Window)
	if err != nil {
		return nil, instrError(in, "%v", err)
	}
	inRes := make([]*Expr, rank)
	winRes := win.Results()
	for i := range sp {
		inRes[cd.InputSpatial[i]] = winRes[i].Replace(outDimOf, nil, nil)
	}
	var inCons []Constraint
	for _, c := range win.Constraints() {
		inCons = append(inCons, Constraint{c.Expr.Replace(outDimOf, nil, nil), c.Bounds})
	}
	inSyms := win.RangeVars()
	kRes := make([]*Expr, rank)
	for i := range sp {
		kRes[cd.KernelSpatial[i]] = Sym(i)
	}
	kSyms := VarsFromSizes(kSp)
	outFeature := Dim(int(cd.OutputFeature))
	kRes[cd.KernelOutputFeature] = outFeature
	groupSize := rhs[cd.KernelInputFeature]
	feature := Sym(len(inSyms))
	kRes[cd.KernelInputFeature] = Sym(len(kSyms))
	inSyms = append(inSyms, Variable{Bounds: Interval{0, groupSize - 1}})
	kSyms = append(kSyms, Variable{Bounds: Interval{0, groupSize - 1}})
	if fgc := in.Typed.FeatureGroupCount; fgc > 1 {
		perGroup := out[cd.OutputFeature] / fgc
		if perGroup <= 0 {
			return nil, instrError(in, "expected output features divisible into %d groups, found %d", fgc, out[cd.OutputFeature])
		}
		feature = Add(Mul(FloorDiv(outFeature, perGroup), groupSize), feature)
	}
	inRes[cd.InputFeature] = feature
	batch := Dim(int(cd.OutputBatch))
	if bgc := in.Typed.BatchGroupCount; bgc > 1 {
		g := Sym(len(inSyms))
		inSyms = append(inSyms, Variable{Bounds: Interval{0, bgc - 1}})
		batch = Add(Mul(g, out[cd.OutputBatch]), batch)
	}
	inRes[cd.InputBatch] = batch
	// The window map may have narrowed the bounds of output spatial dims
	// (padding that is never read); they carry over to the input map.
	inDimVars := dimVars(out)
	for i, v := range win.Dims() {
		d := cd.OutputSpatial[i]
		inDimVars[d].Bounds = inDimVars[d].Bounds.Intersect(v.Bounds)
	}
	inMap, err := newMap(inDimVars, inSyms, nil, inRes, inCons...)
	if err != nil {
		return nil, instrError(in, "%v", err)
	}
	kMap, err := newMap(dimVars(out), kSyms, nil, kRes)
	if err != nil {
		return nil, instrError(in, "%v", err)
	}
	// As XLA: simplified, so that a feature group or kernel dimension of
	// size 1 reads index 0 and takes no symbol.
	inMap, _ = inMap.Simplify().RemoveUnusedSymbols()
	kMap, _ = kMap.Simplify().RemoveUnusedSymbols()
	return fromMaps(inMap, kMap), nil
}
