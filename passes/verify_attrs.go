package passes

import (
	"fmt"
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// The checks of the attributes the analyses read, following XLA's shape
// inference (xla/service/shape_inference.cc) and HloVerifier: dimension
// numbers in range, unique and, where XLA asks it, sorted; sizes within
// the operands; and, where the result shape follows from the operands and
// the attributes, the stated one compared with it. An analysis can then
// trust what verify let through.

// dimsProblem says what is wrong with a list of dimension numbers of a
// rank-n shape ("" when nothing): each in [0, n), no repeats, ascending
// when sorted.
func dimsProblem(what string, dims []int64, n int, sorted bool) string {
	for i, d := range dims {
		switch {
		case d < 0 || d >= int64(n):
			return fmt.Sprintf("%s %s: dimension %d out of range for rank %d", what, braces(dims), d, n)
		case slices.Contains(dims[:i], d):
			return fmt.Sprintf("%s %s: dimension %d repeated", what, braces(dims), d)
		case sorted && i > 0 && dims[i-1] > d:
			return fmt.Sprintf("%s %s: not sorted", what, braces(dims))
		}
	}
	return ""
}

// dimsCheck is one list of dimension numbers of a rank-n shape for
// dimsProblem.
type dimsCheck struct {
	what   string
	dims   []int64
	n      int
	sorted bool
}

// firstDimsProblem is the dimsProblem of the first check that has one.
func firstDimsProblem(checks ...dimsCheck) string {
	for _, c := range checks {
		if p := dimsProblem(c.what, c.dims, c.n, c.sorted); p != "" {
			return p
		}
	}
	return ""
}

// attrs checks in's attributes against its operands and result; info is
// its opcode's (lookupOp). The operands are known to be defined and their
// count right.
func (v *verifier) attrs(in *hlo.Instruction, info opInfo) {
	if check := attrChecks[in.Opcode]; check != nil {
		if problem := check(in); problem != "" {
			v.errorf(in, in.Parent, "%s", problem)
		}
	}
	v.moreAttrs(in, info)
}

// attrChecks are the attribute checks of attrs by opcode.
var attrChecks = map[hlo.Opcode]func(*hlo.Instruction) string{
	hlo.OpDot:                dotProblem,
	hlo.OpGather:             gatherProblem,
	hlo.OpScatter:            scatterProblem,
	hlo.OpSlice:              sliceProblem,
	hlo.OpDynamicSlice:       dynamicSliceProblem,
	hlo.OpDynamicUpdateSlice: dusProblem,
	hlo.OpPad:                padProblem,
	hlo.OpReduce:             reduceProblem,
	hlo.OpConvolution:        convProblem,
	hlo.OpReverse:            reverseProblem,
	hlo.OpCall:               callProblem,
}

func reverseProblem(in *hlo.Instruction) string {
	if len(in.Operands) != 1 || !in.Operands[0].Shape.IsArray() {
		return ""
	}
	return dimsProblem("dimensions", in.Typed.Dimensions, in.Operands[0].Shape.Rank(), false)
}

// arrays reports whether every operand and the result are arrays (the
// checks below leave tuples and tokens to the shape checks).
func arrays(in *hlo.Instruction, n int) bool {
	if len(in.Operands) < n || !in.Shape.IsArray() {
		return false
	}
	for _, op := range in.Operands[:n] {
		if !op.Shape.IsArray() {
			return false
		}
	}
	return true
}

func wantDims(in *hlo.Instruction, want []int64) string {
	if !slices.Equal(in.Shape.Dims, want) {
		return fmt.Sprintf("result %s, want dimensions %s", in.Shape.StringNoLayout(), brackets(want))
	}
	return ""
}

func dotProblem(in *hlo.Instruction) string {
	if len(in.Operands) != 2 || !arrays(in, 2) {
		return "" // sparse dots carry metadata operands
	}
	dn := in.Typed.Dot
	if dn == nil {
		dn = &hlo.DotDims{}
	}
	lhs, rhs := in.Operands[0].Shape.Dims, in.Operands[1].Shape.Dims
	if len(dn.LhsBatch) != len(dn.RhsBatch) || len(dn.LhsContracting) != len(dn.RhsContracting) {
		return fmt.Sprintf("dot has %d/%d batch and %d/%d contracting dimensions (lhs/rhs)",
			len(dn.LhsBatch), len(dn.RhsBatch), len(dn.LhsContracting), len(dn.RhsContracting))
	}
	if p := firstDimsProblem(
		dimsCheck{"lhs batch and contracting dimensions", append(slices.Clone(dn.LhsBatch), dn.LhsContracting...), len(lhs), false},
		dimsCheck{"rhs batch and contracting dimensions", append(slices.Clone(dn.RhsBatch), dn.RhsContracting...), len(rhs), false},
	); p != "" {
		return p
	}
	for i := range dn.LhsContracting {
		if a, b := lhs[dn.LhsContracting[i]], rhs[dn.RhsContracting[i]]; a != b {
			return fmt.Sprintf("dot contracts lhs dimension %d (size %d) with rhs dimension %d (size %d)", dn.LhsContracting[i], a, dn.RhsContracting[i], b)
		}
	}
	var want []int64
	for i := range dn.LhsBatch {
		if a, b := lhs[dn.LhsBatch[i]], rhs[dn.RhsBatch[i]]; a != b {
			return fmt.Sprintf("dot batch lhs dimension %d (size %d) and rhs dimension %d (size %d) differ", dn.LhsBatch[i], a, dn.RhsBatch[i], b)
		}
		want = append(want, lhs[dn.LhsBatch[i]])
	}
	for _, side := range []struct {
		dims         []int64
		batch, contr []int64
	}{{lhs, dn.LhsBatch, dn.LhsContracting}, {rhs, dn.RhsBatch, dn.RhsContracting}} {
		for d, size := range side.dims {
			if !slices.Contains(side.batch, int64(d)) && !slices.Contains(side.contr, int64(d)) {
				want = append(want, size)
			}
		}
	}
	return wantDims(in, want)
}

// indexVector returns the size of the index vector of a gather or scatter
// (1 when index_vector_dim is the indices' rank) and the indices' batch
// dims, or a problem.
func indexVector(idx []int64, ivd int64) (int64, []int64, string) {
	if ivd < 0 || ivd > int64(len(idx)) {
		return 0, nil, fmt.Sprintf("index_vector_dim %d out of range for indices of rank %d", ivd, len(idx))
	}
	size := int64(1)
	if ivd < int64(len(idx)) {
		size = idx[ivd]
	}
	var batch []int64
	for d, s := range idx {
		if int64(d) != ivd {
			batch = append(batch, s)
		}
	}
	return size, batch, ""
}

func gatherProblem(in *hlo.Instruction) string {
	g := in.Typed.Gather
	if g == nil || !arrays(in, 2) {
		return ""
	}
	op, idx, out := in.Operands[0].Shape.Dims, in.Operands[1].Shape.Dims, in.Shape.Dims
	vec, batch, p := indexVector(idx, g.IndexVectorDim)
	if p != "" {
		return p
	}
	if p := firstDimsProblem(
		dimsCheck{"offset_dims", g.OffsetDims, len(out), true},
		dimsCheck{"collapsed_slice_dims", g.CollapsedSliceDims, len(op), true},
		dimsCheck{"operand_batching_dims", g.OperandBatchingDims, len(op), true},
		dimsCheck{"start_index_map", g.StartIndexMap, len(op), false},
		dimsCheck{"collapsed_slice_dims and operand_batching_dims", append(slices.Clone(g.CollapsedSliceDims), g.OperandBatchingDims...), len(op), false},
		dimsCheck{"start_indices_batching_dims", g.StartIndicesBatchingDims, len(idx), false},
	); p != "" {
		return p
	}
	switch {
	case slices.Contains(g.StartIndicesBatchingDims, g.IndexVectorDim):
		return fmt.Sprintf("start_indices_batching_dims %s contain index_vector_dim %d", braces(g.StartIndicesBatchingDims), g.IndexVectorDim)
	case int64(len(g.StartIndexMap)) != vec:
		return fmt.Sprintf("start_index_map %s has %d entries, the index vector %d", braces(g.StartIndexMap), len(g.StartIndexMap), vec)
	case len(g.SliceSizes) != len(op):
		return fmt.Sprintf("slice_sizes %s has %d entries for an operand of rank %d", braces(g.SliceSizes), len(g.SliceSizes), len(op))
	case len(g.OffsetDims)+len(g.CollapsedSliceDims)+len(g.OperandBatchingDims) != len(op):
		return fmt.Sprintf("offset_dims %s, collapsed_slice_dims %s and operand_batching_dims %s do not cover the operand's %d dimensions",
			braces(g.OffsetDims), braces(g.CollapsedSliceDims), braces(g.OperandBatchingDims), len(op))
	case len(out) != len(batch)+len(g.OffsetDims):
		return fmt.Sprintf("result %s, want rank %d (%d batch and %d offset dimensions)", in.Shape.StringNoLayout(), len(batch)+len(g.OffsetDims), len(batch), len(g.OffsetDims))
	}
	var offsets []int64
	for i, s := range g.SliceSizes {
		if s < 0 || s > op[i] {
			return fmt.Sprintf("slice size %d of dimension %d outside the operand's %d", s, i, op[i])
		}
		if slices.Contains(g.CollapsedSliceDims, int64(i)) || slices.Contains(g.OperandBatchingDims, int64(i)) {
			if s > 1 {
				return fmt.Sprintf("collapsed or batching dimension %d has slice size %d, want at most 1", i, s)
			}
			continue
		}
		offsets = append(offsets, s)
	}
	want := make([]int64, len(out))
	b, o := 0, 0
	for d := range want {
		if slices.Contains(g.OffsetDims, int64(d)) {
			want[d] = offsets[o]
			o++
		} else {
			want[d] = batch[b]
			b++
		}
	}
	return wantDims(in, want)
}

func scatterProblem(in *hlo.Instruction) string {
	sc := in.Typed.Scatter
	n := len(in.Operands) / 2
	if sc == nil || len(in.Operands) < 3 || len(in.Operands)%2 != 1 {
		return ""
	}
	for _, o := range in.Operands {
		if !o.Shape.IsArray() {
			return ""
		}
	}
	op, idx, upd := in.Operands[0].Shape.Dims, in.Operands[n].Shape.Dims, in.Operands[n+1].Shape.Dims
	vec, batch, p := indexVector(idx, sc.IndexVectorDim)
	if p != "" {
		return p
	}
	if p := firstDimsProblem(
		dimsCheck{"update_window_dims", sc.UpdateWindowDims, len(upd), true},
		dimsCheck{"inserted_window_dims", sc.InsertedWindowDims, len(op), true},
		dimsCheck{"input_batching_dims", sc.InputBatchingDims, len(op), true},
		dimsCheck{"inserted_window_dims and input_batching_dims", append(slices.Clone(sc.InsertedWindowDims), sc.InputBatchingDims...), len(op), false},
		dimsCheck{"scatter_dims_to_operand_dims", sc.ScatterDimsToOperandDims, len(op), false},
		dimsCheck{"scatter_indices_batching_dims", sc.ScatterIndicesBatchingDims, len(idx), false},
	); p != "" {
		return p
	}
	switch {
	case slices.Contains(sc.ScatterIndicesBatchingDims, sc.IndexVectorDim):
		return fmt.Sprintf("scatter_indices_batching_dims %s contain index_vector_dim %d", braces(sc.ScatterIndicesBatchingDims), sc.IndexVectorDim)
	case int64(len(sc.ScatterDimsToOperandDims)) != vec:
		return fmt.Sprintf("scatter_dims_to_operand_dims %s has %d entries, the index vector %d", braces(sc.ScatterDimsToOperandDims), len(sc.ScatterDimsToOperandDims), vec)
	case len(sc.UpdateWindowDims)+len(sc.InsertedWindowDims)+len(sc.InputBatchingDims) != len(op):
		return fmt.Sprintf("update_window_dims %s, inserted_window_dims %s and input_batching_dims %s do not cover the operand's %d dimensions",
			braces(sc.UpdateWindowDims), braces(sc.InsertedWindowDims), braces(sc.InputBatchingDims), len(op))
	case len(upd) != len(batch)+len(sc.UpdateWindowDims):
		return fmt.Sprintf("updates of rank %d, want %d (%d scatter and %d window dimensions)", len(upd), len(batch)+len(sc.UpdateWindowDims), len(batch), len(sc.UpdateWindowDims))
	}
	// Window dims of the updates fit the operand's dims they update; the
	// other update dims are the indices' batch dims.
	var window []int64 // operand dims with a window dim, in order
	for d := range int64(len(op)) {
		if !slices.Contains(sc.InsertedWindowDims, d) && !slices.Contains(sc.InputBatchingDims, d) {
			window = append(window, d)
		}
	}
	w, b := 0, 0
	for d, s := range upd {
		if slices.Contains(sc.UpdateWindowDims, int64(d)) {
			if s > op[window[w]] {
				return fmt.Sprintf("update window dimension %d (size %d) larger than operand dimension %d (size %d)", d, s, window[w], op[window[w]])
			}
			w++
		} else {
			if s != batch[b] {
				return fmt.Sprintf("update scatter dimension %d has size %d, the indices' %d", d, s, batch[b])
			}
			b++
		}
	}
	for k := range n {
		o, u := &in.Operands[k].Shape, &in.Operands[n+1+k].Shape
		if !slices.Equal(o.Dims, op) || !slices.Equal(u.Dims, upd) {
			return fmt.Sprintf("operand %d %s or updates %s differ from the first", k, o.StringNoLayout(), u.StringNoLayout())
		}
	}
	if n == 1 {
		return wantDims(in, op)
	}
	return ""
}

func sliceProblem(in *hlo.Instruction) string {
	if !arrays(in, 1) || len(in.Typed.Slice) != in.Operands[0].Shape.Rank() {
		return "" // the shape checks report a wrong count
	}
	op := in.Operands[0].Shape.Dims
	for i, s := range in.Typed.Slice {
		if s.Start < 0 || s.Start > s.Limit || s.Limit > op[i] || s.Stride <= 0 {
			return fmt.Sprintf("slice [%d:%d:%d] of dimension %d outside [0:%d] or with a non-positive stride", s.Start, s.Limit, s.Stride, i, op[i])
		}
	}
	return ""
}

func dynamicSliceProblem(in *hlo.Instruction) string {
	if !arrays(in, 1) {
		return ""
	}
	op, sizes := in.Operands[0].Shape.Dims, in.Typed.DynamicSliceSizes
	if len(sizes) != len(op) {
		return fmt.Sprintf("dynamic_slice_sizes %s has %d entries for an operand of rank %d", braces(sizes), len(sizes), len(op))
	}
	for i, s := range sizes {
		if s < 0 || s > op[i] {
			return fmt.Sprintf("dynamic slice size %d of dimension %d outside the operand's %d", s, i, op[i])
		}
	}
	return wantDims(in, sizes)
}

func dusProblem(in *hlo.Instruction) string {
	if !arrays(in, 2) {
		return ""
	}
	op, upd := in.Operands[0].Shape.Dims, in.Operands[1].Shape.Dims
	if len(upd) != len(op) {
		return fmt.Sprintf("update of rank %d for an operand of rank %d", len(upd), len(op))
	}
	for i := range op {
		if upd[i] > op[i] {
			return fmt.Sprintf("update dimension %d (size %d) larger than the operand's %d", i, upd[i], op[i])
		}
	}
	return wantDims(in, op)
}

func padProblem(in *hlo.Instruction) string {
	if !arrays(in, 2) {
		return ""
	}
	op, pads := in.Operands[0].Shape.Dims, in.Typed.Padding
	if len(pads) != len(op) {
		return fmt.Sprintf("padding has %d dimensions for an operand of rank %d", len(pads), len(op))
	}
	want := make([]int64, len(op))
	for i, p := range pads {
		if p.Interior < 0 {
			return fmt.Sprintf("negative interior padding %d in dimension %d", p.Interior, i)
		}
		want[i] = p.Low + p.High + op[i] + max(op[i]-1, 0)*p.Interior
		if want[i] < 0 {
			return fmt.Sprintf("padding of dimension %d leaves a negative size %d", i, want[i])
		}
	}
	return wantDims(in, want)
}

func reduceProblem(in *hlo.Instruction) string {
	n := len(in.Operands) / 2
	if n == 0 || len(in.Operands)%2 != 0 || !in.Operands[0].Shape.IsArray() {
		return ""
	}
	op := in.Operands[0].Shape.Dims
	dims := in.Typed.Dimensions
	if p := dimsProblem("dimensions", dims, len(op), false); p != "" {
		return p
	}
	var want []int64
	for d, s := range op {
		if !slices.Contains(dims, int64(d)) {
			want = append(want, s)
		}
	}
	results := []hlo.Shape{in.Shape}
	if in.Shape.IsTuple() {
		results = in.Shape.Tuple
	}
	if len(results) != n {
		return fmt.Sprintf("reduce of %d inputs has %d results", n, len(results))
	}
	for k := range n {
		if !in.Operands[k].Shape.IsArray() || !slices.Equal(in.Operands[k].Shape.Dims, op) {
			return fmt.Sprintf("reduce input %d %s differs from input 0 %s", k, in.Operands[k].Shape.StringNoLayout(), in.Operands[0].Shape.StringNoLayout())
		}
		if !slices.Equal(results[k].Dims, want) {
			return fmt.Sprintf("reduce result %s, want dimensions %s", results[k].StringNoLayout(), brackets(want))
		}
	}
	return ""
}

func convProblem(in *hlo.Instruction) string {
	cd := in.Typed.Conv
	if cd == nil || !arrays(in, 2) {
		return ""
	}
	lhs, rhs, out := in.Operands[0].Shape.Dims, in.Operands[1].Shape.Dims, in.Shape.Dims
	ns := len(cd.InputSpatial)
	if len(lhs) != ns+2 || len(rhs) != ns+2 || len(out) != ns+2 || len(cd.KernelSpatial) != ns || len(cd.OutputSpatial) != ns {
		return fmt.Sprintf("dim_labels %s do not fit ranks %d, %d -> %d", cd.Labels, len(lhs), len(rhs), len(out))
	}
	if len(in.Typed.Window) != 0 && len(in.Typed.Window) != ns {
		return fmt.Sprintf("window has %d dimensions for %d spatial ones", len(in.Typed.Window), ns)
	}
	fgc, bgc := in.Typed.FeatureGroupCount, in.Typed.BatchGroupCount
	inF, kIn, kOut := lhs[cd.InputFeature], rhs[cd.KernelInputFeature], rhs[cd.KernelOutputFeature]
	switch {
	case fgc <= 0 || bgc <= 0:
		return fmt.Sprintf("feature_group_count %d and batch_group_count %d must be positive", fgc, bgc)
	case inF%fgc != 0 || kOut%fgc != 0:
		return fmt.Sprintf("feature_group_count %d does not divide the input features %d and the kernel output features %d", fgc, inF, kOut)
	case inF != kIn*fgc:
		return fmt.Sprintf("input features %d, kernel input features %d x feature_group_count %d", inF, kIn, fgc)
	case lhs[cd.InputBatch]%bgc != 0 || kOut%bgc != 0:
		return fmt.Sprintf("batch_group_count %d does not divide the batch %d and the kernel output features %d", bgc, lhs[cd.InputBatch], kOut)
	case out[cd.OutputFeature] != kOut:
		return fmt.Sprintf("output features %d, kernel output features %d", out[cd.OutputFeature], kOut)
	}
	return ""
}

// callProblem checks a call against its computation: as many parameters
// as operands, of their shapes, and the root of the call's shape.
func callProblem(in *hlo.Instruction) string {
	if len(in.Called) != 1 || in.Called[0] == nil {
		return ""
	}
	cc := in.Called[0]
	if len(cc.Params) != len(in.Operands) {
		return fmt.Sprintf("call has %d operands, %s has %d parameters", len(in.Operands), cc.Name, len(cc.Params))
	}
	for k, p := range cc.Params {
		if p != nil && !p.Shape.EqualIgnoringLayout(in.Operands[k].Shape) {
			return fmt.Sprintf("call operand %d %s, parameter %d of %s is %s", k, in.Operands[k].Shape.StringNoLayout(), k, cc.Name, p.Shape.StringNoLayout())
		}
	}
	if cc.Root != nil && !cc.Root.Shape.EqualIgnoringLayout(in.Shape) {
		return fmt.Sprintf("call shape %s, %s returns %s", in.Shape.StringNoLayout(), cc.Name, cc.Root.Shape.StringNoLayout())
	}
	return ""
}

func brackets(dims []int64) string {
	b := braces(dims)
	return "[" + b[1:len(b)-1] + "]"
}
