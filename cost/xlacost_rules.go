package cost

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// XLACost is what compiled.cost_analysis() returns for module m compiled
// for target t: XLA's HloCostAnalysis (xla/service/hlo_cost_analysis.cc)
// run over the entry computation, with the shape sizes of the backend and,
// for a TPU, the rules the TPU compiler's own analysis follows (measured:
// testdata/xla-cost/probes). m must be laid out (after XLA's
// optimizations, or after layoutassign.Assign): sizes follow the layouts.
//
// The figures agree with XLA's within 1% on flops and bytes accessed on
// the CPU compiles of testdata/groundtruth, and on flops on the TPU ones;
// `go doc ./cost` lists where they differ.
func XLACost(m *hlo.Module, t XLATarget) *XLAModuleCost {
	a := newXLAAnalysis(t)
	c := &XLAModuleCost{Target: t, module: m, byComputation: make([][]XLACostValues, len(m.Computations))}
	a.out = c
	if m.Entry != nil {
		c.Module = a.computation(m.Entry)
	}
	return c
}

// xlaAnalysis is one run of XLACost: the figures of the instructions
// visited so far.
type xlaAnalysis struct {
	target XLATarget
	// out receives the figures of each computation visited (record),
	// unless the analysis is unrecorded.
	out *XLAModuleCost
	// floats is what operand slices are cut from (newFloats): the chunk
	// set aside for the computation being visited; an unrecorded analysis
	// reuses it for each kernel (reuse).
	floats []float64
	// unrecorded keeps no instruction's figures: the analysis is asked
	// for totals only.
	unrecorded bool
	// active guards against a computation that (through a malformed
	// module) calls itself.
	active map[*hlo.Computation]bool
	tpu    *tpuRules
}

func newXLAAnalysis(t XLATarget) *xlaAnalysis {
	a := &xlaAnalysis{target: t, active: map[*hlo.Computation]bool{}}
	if t.Backend == XLATPU {
		a.tpu = newTPURules(t.Device)
	}
	return a
}

// take cuts n zeroed elements from *buf; when it is full, from a new
// chunk of at least grow (what was cut before stays with whoever holds it).
func take[T any](buf *[]T, n, grow int) []T {
	b := *buf
	if len(b)+n > cap(b) {
		b = make([]T, 0, max(n, grow))
	}
	s := b[len(b) : len(b)+n : len(b)+n]
	*buf = b[:len(b)+n]
	clear(s)
	return s
}

// newFloats cuts n zeroed floats from a.floats.
func (a *xlaAnalysis) newFloats(n int) []float64 {
	grow := n
	if a.unrecorded {
		grow = 2*cap(a.floats) + 64 // one chunk for every kernel, soon
	}
	return take(&a.floats, n, grow)
}

// reuse lets an unrecorded analysis's operand slices be overwritten:
// before each kernel, once the last one's figures were read.
func (a *xlaAnalysis) reuse() { a.floats = a.floats[:0] }

// computation is ProcessSubcomputation: every instruction of c visited,
// the sum of their figures returned.
func (a *xlaAnalysis) computation(c *hlo.Computation) (total XLACostValues) {
	if c == nil || a.active[c] {
		return total
	}
	a.active[c] = true
	defer delete(a.active, c)
	ops, most := 0, 0
	for _, in := range c.Instructions {
		ops += len(in.Operands)
		most = max(most, len(in.Operands))
	}
	// The figures of c's instructions (one at a time when only the total
	// is kept), one chunk for their operand slices and those of the total,
	// which grow to the most operands of an instruction.
	var vals []XLACostValues
	var scratch XLACostValues
	if !a.unrecorded {
		vals = make([]XLACostValues, len(c.Instructions))
		a.record(c, vals)
		// A computation an instruction calls cuts from a chunk of its
		// own; the caller's goes on with the rest of its own (it had
		// every instruction after such a call make a slice).
		outer := a.floats
		defer func() { a.floats = outer }()
		a.floats = make([]float64, 0, 2*(ops+most))
	}
	total.OperandBytes, total.OperandUtilization = a.newFloats(most)[:0], a.newFloats(most)[:0]
	for i, in := range c.Instructions {
		if a.unrecorded {
			a.fill(&scratch, in)
			total.add(&scratch)
			continue
		}
		a.fill(&vals[i], in)
		total.add(&vals[i])
	}
	return total
}

// record makes vals the figures of c's instructions in a.out: those of
// its last visit, when several instructions call c.
func (a *xlaAnalysis) record(c *hlo.Computation, vals []XLACostValues) {
	o := a.out
	if ci := o.module.ComputationIndex(c); ci >= 0 {
		o.byComputation[ci] = vals
		return
	}
	if o.foreign == nil {
		o.foreign = map[*hlo.Computation][]XLACostValues{}
	}
	o.foreign[c] = vals
}

// size is GetShapeSize: the bytes of a shape on the backend; a tuple's
// are those of its index table.
func (a *xlaAnalysis) size(s *hlo.Shape) float64 {
	if s.IsTuple() {
		return float64(a.tupleTable(len(s.Tuple)))
	}
	if a.tpu != nil {
		return tpuShapeSize(s)
	}
	return shapeSize(s)
}

// sizeOf is the size of in's shape; an array's on a TPU is memoized
// (outBytes, which for an array is its size).
func (a *xlaAnalysis) sizeOf(in *hlo.Instruction) float64 {
	if a.tpu == nil || in.Shape.IsTuple() {
		return a.size(&in.Shape)
	}
	return a.outBytes(in)
}

// outBytes is the leafBytes of in's shape, what it writes; a TPU's are
// memoized (tpuRules.sizes).
func (a *xlaAnalysis) outBytes(in *hlo.Instruction) float64 {
	if a.tpu == nil {
		return a.leafBytes(&in.Shape)
	}
	memo := a.tpu.memo(in)
	if memo != nil && memo.shape == &in.Shape {
		return memo.bytes
	}
	n := a.leafBytes(&in.Shape)
	if memo != nil {
		memo.shape, memo.bytes = &in.Shape, n
	}
	return n
}

// leafBytes is the bytes of the arrays of s (s itself when an array),
// what an instruction writes.
func (a *xlaAnalysis) leafBytes(s *hlo.Shape) float64 {
	if !s.IsTuple() {
		return a.size(s)
	}
	n := 0.0
	for i := range s.Tuple {
		n += a.leafBytes(&s.Tuple[i])
	}
	return n
}

// tupleTable is the size of a tuple's index table, as measured: one
// 8-byte pointer per element on a GPU (the ground truth's h100-measured
// compiles), 4 bytes on the CPU (testdata/xla-cost/probes/cpu), 4 bytes
// rounded up to the TPU's alignment on a TPU.
func (a *xlaAnalysis) tupleTable(n int) int64 {
	switch {
	case a.tpu != nil:
		return a.tpu.tupleTable(n)
	case a.target.Backend == XLAGPU:
		return 8 * int64(n)
	}
	return 4 * int64(n)
}

// fill sets v to in's figures: Preprocess, the opcode's handler and
// Postprocess.
func (a *xlaAnalysis) fill(v *XLACostValues, in *hlo.Instruction) {
	a.setDefaults(v, in)
	a.apply(v, in)
}

// apply changes v from the defaults to in's figures: the opcode's handler
// and Postprocess.
func (a *xlaAnalysis) apply(v *XLACostValues, in *hlo.Instruction) {
	if a.handle(in, v) {
		v.OptimalSeconds = a.seconds(in, v)
	}
}

// defaults are Preprocess's figures: every operand and the output read or
// written whole, each operand fully used.
func (a *xlaAnalysis) defaults(in *hlo.Instruction) *XLACostValues {
	v := &XLACostValues{}
	a.setDefaults(v, in)
	return v
}

// setDefaults sets v to defaults' figures.
func (a *xlaAnalysis) setDefaults(v *XLACostValues, in *hlo.Instruction) {
	*v = XLACostValues{OutputBytes: a.outBytes(in)}
	v.BytesAccessed = v.OutputBytes
	n := len(in.Operands)
	v.OperandBytes, v.OperandUtilization = a.newFloats(n), a.newFloats(n)
	for i, op := range in.Operands {
		b := a.sizeOf(op)
		v.OperandBytes[i] = b
		v.OperandUtilization[i] = 1
		v.BytesAccessed += b
	}
}

// seconds is the time at the backend's rates: the slowest of the figures
// (only the TPU compiler has rates; 0 elsewhere).
func (a *xlaAnalysis) seconds(in *hlo.Instruction, v *XLACostValues) float64 {
	if a.tpu == nil {
		return 0
	}
	return a.tpu.seconds(in, v)
}

// zeroBytes is the handlers' "touches no memory": no bytes read or written.
func zeroBytes(v *XLACostValues) {
	v.BytesAccessed, v.OutputBytes = 0, 0
	clear(v.OperandBytes)
}

// handle applies the opcode's rule to v; it reports whether the time is
// the bottleneck of v's figures (false where XLA sums or skips it).
func (a *xlaAnalysis) handle(in *hlo.Instruction, v *XLACostValues) bool {
	if a.tpu != nil {
		if done, seconds := a.tpu.handle(a, in, v); done {
			return seconds
		}
	}
	switch in.Opcode {
	case hlo.OpParameter, hlo.OpConstant, hlo.OpGetTupleElement, hlo.OpAfterAll, hlo.OpAddDependency, hlo.OpDomain:
		zeroBytes(v)
		return false
	case hlo.OpBitcast:
		zeroBytes(v)
	case hlo.OpTranspose:
		if isBitcastTranspose(in) {
			zeroBytes(v)
		}
	case hlo.OpCopy, hlo.OpIota, hlo.OpReverse, hlo.OpConcatenate, hlo.OpPad, hlo.OpReshape, hlo.OpDynamicReshape:
	case hlo.OpTuple:
		clear(v.OperandBytes)
		v.OutputBytes = a.sizeOf(in)
		v.BytesAccessed = v.OutputBytes
	case hlo.OpSlice, hlo.OpDynamicSlice:
		a.sliceLike(in, v)
	case hlo.OpGather:
		a.gather(in, v)
	case hlo.OpDynamicUpdateSlice:
		a.dynamicUpdateSlice(in, v)
	case hlo.OpScatter:
		a.scatter(in, v)
	case hlo.OpDot, hlo.OpScaledDot, hlo.OpRaggedDot:
		v.Flops = dotFlops(in)
	case hlo.OpConvolution:
		v.Flops = convFlops(in)
	case hlo.OpFft:
		v.Flops = fftFlops(in)
	case hlo.OpSort:
		v.Flops = sortFlops(in)
	case hlo.OpReduce:
		a.reduce(in, v)
	case hlo.OpReduceWindow:
		a.reduceWindow(in, v)
	case hlo.OpSelectAndScatter:
		a.selectAndScatter(in, v)
	case hlo.OpMap:
		sub := a.computation(calledComp(in))
		v.scaleComputed(&sub, float64(in.Shape.ElementCount()))
	case hlo.OpAllReduce, hlo.OpAllReduceStart:
		a.allReduce(in, v)
	case hlo.OpRng:
		v.Transcendentals = float64(in.Shape.ElementCount())
	case hlo.OpRngBitGenerator:
		v.Transcendentals = float64(elementsRecursive(&in.Shape))
	case hlo.OpTriangularSolve:
		a.triangularSolve(in, v)
	case hlo.OpCholesky:
		a.cholesky(in, v)
	case hlo.OpCustomCall:
		customCallUnknown(v)
		return false
	case hlo.OpFusion:
		a.fusion(in, v)
	case hlo.OpCall:
		*v = a.computation(calledComp(in))
		return false
	case hlo.OpWhile:
		body, cond := a.computation(calledNamed(in, "body")), a.computation(calledNamed(in, "condition"))
		*v = XLACostValues{}
		v.add(&body)
		v.add(&cond)
		return false
	case hlo.OpConditional:
		a.conditional(in, v)
		return false
	case hlo.OpAsyncStart:
		*v = a.computation(calledComp(in))
	default:
		if in.IsElementwise() || in.Opcode == hlo.OpBitcastConvert || in.Opcode == hlo.OpStochasticConvert {
			a.elementwise(in, v)
		}
		// Everything else (collectives but all-reduce, copy-start/done,
		// send/recv, top-k, async-done, ...) keeps the defaults.
	}
	return true
}

// elementwise counts one flop, or one transcendental, per output element.
func (a *xlaAnalysis) elementwise(in *hlo.Instruction, v *XLACostValues) {
	if in.Opcode == hlo.OpCopy {
		return
	}
	n := float64(in.Shape.ElementCount())
	if hlo.Info(in.Opcode).Transcendental {
		v.Transcendentals = n
	} else {
		v.Flops = n
	}
}

// customCallUnknown marks a custom call's figures as XLA's "unknown": -1.
func customCallUnknown(v *XLACostValues) {
	v.Flops, v.BytesAccessed, v.OutputBytes, v.OptimalSeconds = -1, -1, -1, -1
	for i := range v.OperandBytes {
		v.OperandBytes[i] = -1
	}
}

// sliceLike is slice, dynamic-slice and gather: the output read from
// operand 0, plus the indices.
func (a *xlaAnalysis) sliceLike(in *hlo.Instruction, v *XLACostValues) {
	if len(in.Operands) == 0 {
		return
	}
	out := a.sizeOf(in)
	v.OutputBytes = out
	v.BytesAccessed = 2 * out
	v.OperandBytes[0] = out
	v.OperandUtilization[0] = elemRatio(in.Shape.ElementCount(), in.Operands[0].Shape.ElementCount())
	// Only the first index operand is charged (a dynamic-slice's others
	// keep their reads in the per-operand figures only), as XLA does.
	if in.Opcode != hlo.OpSlice && len(in.Operands) > 1 {
		v.BytesAccessed += v.OperandBytes[1]
	}
}

// dynamicUpdateSlice writes the update in place: operand 0 aliases the
// output and is not read.
func (a *xlaAnalysis) dynamicUpdateSlice(in *hlo.Instruction, v *XLACostValues) {
	if len(in.Operands) < 3 {
		return
	}
	upd := a.sizeOf(in.Operands[1])
	idx := a.sizeOf(in.Operands[2])
	v.BytesAccessed = 2*upd + idx
	v.OutputBytes = upd
	v.OperandBytes[0] = 0
	out := in.Shape.ElementCount()
	v.OperandUtilization[0] = elemRatio(out-in.Operands[1].Shape.ElementCount(), out)
}

// gather reads the output's size from operand 0, plus the indices (on a
// TPU, whole tiles: tpuRules.gather).
func (a *xlaAnalysis) gather(in *hlo.Instruction, v *XLACostValues) {
	if a.tpu != nil {
		a.tpu.gather(a, in, v)
		return
	}
	a.sliceLike(in, v)
}

// scatter reads and writes the updates' size in each scattered operand,
// reads the indices, and applies the combiner once per update element (on
// a TPU, whole tiles: tpuRules.scatter).
func (a *xlaAnalysis) scatter(in *hlo.Instruction, v *XLACostValues) {
	n := (len(in.Operands) - 1) / 2
	if n < 1 {
		return
	}
	if a.tpu != nil {
		a.tpu.scatter(a, in, v)
		return
	}
	total := 0.0
	for i := range n {
		u := a.sizeOf(in.Operands[n+1+i])
		v.OperandBytes[i] = u
		v.OperandBytes[n+1+i] = u
		total += u
	}
	idx := a.sizeOf(in.Operands[n])
	v.OperandBytes[n] = idx
	v.BytesAccessed = 3*total + idx
	v.OutputBytes = total
	sub := a.computation(calledComp(in))
	v.scaleComputed(&sub, float64(in.Operands[n+1].Shape.ElementCount()))
}

// reduce applies the reducer (inputs - outputs) times.
func (a *xlaAnalysis) reduce(in *hlo.Instruction, v *XLACostValues) {
	sub := a.computation(calledComp(in))
	if len(in.Operands) == 0 {
		return
	}
	v.scaleComputed(&sub, float64(reduceSteps(in)))
}

// reduceWindow applies the reducer (window - 1) times per output element;
// a window that spans a whole dimension with padding window-1 on both
// sides (XLA's lowering of a reduce followed by a broadcast, or of a
// cumulative sum) counts out/dim + dim - 1 steps, as XLA does.
func (a *xlaAnalysis) reduceWindow(in *hlo.Instruction, v *XLACostValues) {
	sub := a.computation(calledComp(in))
	v.scaleComputed(&sub, float64(reduceWindowSteps(in)))
}

// reduceWindowSteps is the number of times a reduce-window applies its
// reducer (HloCostAnalysis::HandleReduceWindow).
func reduceWindowSteps(in *hlo.Instruction) int64 {
	win := int64(1)
	reducing, padded := 0, 0
	for _, w := range in.Typed.Window {
		win *= w.Size
		if w.Size != 1 {
			reducing++
		}
		if w.PadLow != 0 || w.PadHigh != 0 {
			padded++
		}
	}
	out := firstArray(&in.Shape).ElementCount()
	if reducing == 1 && padded == 1 && in.Shape.IsArray() {
		for d, w := range in.Typed.Window {
			if w.Size == 1 || w.PadLow == 0 || w.PadLow != w.PadHigh || w.Size != 2*w.PadLow+1 {
				continue
			}
			if d < in.Shape.Rank() && w.PadLow == in.Shape.Dims[d]-1 {
				dim := in.Shape.Dims[d]
				return out/dim + dim - 1
			}
			break
		}
	}
	return (win - 1) * out
}

// selectAndScatter runs the select (window - 1) times and the scatter once
// per source element.
func (a *xlaAnalysis) selectAndScatter(in *hlo.Instruction, v *XLACostValues) {
	if len(in.Operands) < 2 || len(in.Called) < 2 {
		return
	}
	src := float64(in.Operands[1].Shape.ElementCount())
	win := int64(1)
	for _, w := range in.Typed.Window {
		win *= w.Size
	}
	sel, sc := a.computation(calledNamed(in, "select")), a.computation(calledNamed(in, "scatter"))
	v.Flops += sel.Flops*src*float64(win-1) + sc.Flops*src
	v.Transcendentals += sel.Transcendentals*src*float64(win-1) + sc.Transcendentals*src
}

// allReduce counts one flop per output element (XLA assumes two replicas)
// and writes the output's arrays.
func (a *xlaAnalysis) allReduce(in *hlo.Instruction, v *XLACostValues) {
	out := 0.0
	for _, l := range in.Shape.Leaves() {
		if l.Shape.IsArray() {
			v.Flops += float64(l.Shape.ElementCount())
			out += a.size(l.Shape)
		}
	}
	v.OutputBytes = out
	v.BytesAccessed = out
	for _, op := range in.Operands {
		v.BytesAccessed += a.sizeOf(op)
	}
}

// triangularSolve reads half of the triangular matrix; batch * m * n^2
// multiply-adds. (XLA records operand 1's bytes under operand 0, which
// is kept.)
func (a *xlaAnalysis) triangularSolve(in *hlo.Instruction, v *XLACostValues) {
	if len(in.Operands) < 2 {
		return
	}
	out := a.sizeOf(in)
	aBytes, bBytes := a.sizeOf(in.Operands[0]), a.sizeOf(in.Operands[1])
	v.OutputBytes = out
	v.BytesAccessed = out + aBytes/2 + bBytes
	v.OperandBytes[0] = bBytes
	as := &in.Operands[0].Shape
	if as.Rank() > 0 {
		v.Flops = 2 * float64(as.Dims[as.Rank()-1]) * float64(in.Operands[1].Shape.ElementCount())
	}
}

// cholesky reads and writes half of the matrix: batch * n^3 / 3 flops.
func (a *xlaAnalysis) cholesky(in *hlo.Instruction, v *XLACostValues) {
	if len(in.Operands) < 1 {
		return
	}
	half := a.sizeOf(in.Operands[0]) / 2
	v.OutputBytes = half
	v.OperandBytes[0] = half
	v.BytesAccessed = 2 * half
	as := &in.Operands[0].Shape
	if as.Rank() > 0 {
		v.Flops = float64(as.Dims[as.Rank()-1] * as.ElementCount() / 3)
	}
}

// conditional takes, per figure, the largest over the branches.
func (a *xlaAnalysis) conditional(in *hlo.Instruction, v *XLACostValues) {
	*v = XLACostValues{}
	for i, c := range in.Called {
		b := a.computation(c)
		if i == 0 {
			*v = b
			continue
		}
		v.maxOf(&b)
	}
}

// calledNamed returns the computation in calls under attribute name
// (body=, condition=, select=, scatter=), or nil.
func calledNamed(in *hlo.Instruction, name string) *hlo.Computation {
	want, ok := in.Attr(name)
	if !ok {
		return nil
	}
	want = strings.TrimPrefix(want, "%")
	for _, c := range in.Called {
		if c.Name == want {
			return c
		}
	}
	return nil
}

// convFlops is HloCostAnalysis::GetConvolutionFlops (the GPU cost
// analysis's as well): 2 * (input features / feature
// groups) * output features * (batch / batch groups) * the kernel taps that
// land on real input elements, summed over output positions.
func convFlops(in *hlo.Instruction) float64 {
	if len(in.Operands) < 2 || in.Typed.Conv == nil {
		return 0
	}
	lhs, k, out := &in.Operands[0].Shape, &in.Operands[1].Shape, firstArray(&in.Shape)
	cd := in.Typed.Conv
	dim := func(s *hlo.Shape, d int64) int64 {
		if d >= 0 && int(d) < s.Rank() {
			return s.Dims[d]
		}
		return 1
	}
	fgc, bgc := max(in.Typed.FeatureGroupCount, 1), max(in.Typed.BatchGroupCount, 1)
	fma := float64(dim(lhs, cd.InputFeature)/fgc) * float64(dim(out, cd.OutputFeature)) * float64(dim(lhs, cd.InputBatch)/bgc)
	for i, ks := range cd.KernelSpatial {
		var inSize, outSize int64 = 1, 1
		if i < len(cd.InputSpatial) {
			inSize = dim(lhs, cd.InputSpatial[i])
		}
		if i < len(cd.OutputSpatial) {
			outSize = dim(out, cd.OutputSpatial[i])
		}
		w := hlo.WindowDim{Size: dim(k, ks), Stride: 1, BaseDilation: 1, WindowDilation: 1}
		if i < len(in.Typed.Window) {
			w = in.Typed.Window[i]
		}
		fma *= float64(validTaps(inSize, outSize, dim(k, ks), w))
	}
	return 2 * fma
}

// validTaps counts the (output position, kernel tap) pairs of one spatial
// dimension that read a real input element (neither padding nor a hole of
// the base dilation). Like XLA it counts without visiting every pair where
// it can: the two degenerate windows XLA's lowerings make (a kernel as long
// as the input with a stride and base dilation that visit each element
// once; a one-element input padded to the kernel's length) and, for stride
// and base dilation 1, each tap's run of positions at once.
func validTaps(inSize, outSize, kSize int64, w hlo.WindowDim) int64 {
	stride, ld, rd := max(w.Stride, 1), max(w.BaseDilation, 1), max(w.WindowDilation, 1)
	switch {
	case inSize == outSize && kSize == outSize && inSize == ld && rd == 1 && max(1, inSize-1) == stride && w.PadLow == 0 && w.PadHigh == 0:
		return inSize
	case inSize == 1 && kSize == outSize && rd == 1 && ld == 1 && stride == 1 && w.PadLow == outSize-1 && w.PadHigh == outSize-1:
		return outSize
	}
	n := int64(0)
	for t := range kSize {
		if stride == 1 && ld == 1 {
			base := w.PadLow - t*rd
			n += max(min(inSize+base, outSize)-max(base, 0), 0)
			continue
		}
		for o := range outSize {
			pos := o*stride - w.PadLow + t*rd
			if pos < 0 || pos%ld != 0 || pos/ld >= inSize {
				continue
			}
			n++
		}
	}
	return n
}

// fftFlops is HandleFft: 2 * 4 multiply-adds per complex product, times
// the product of floor(log2) of the transform lengths, times the input's
// elements.
func fftFlops(in *hlo.Instruction) float64 {
	if len(in.Operands) < 1 {
		return 0
	}
	logs := int64(1)
	s, _ := in.Attr("fft_length")
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == '{' || r == '}' || r == ',' || r == ' ' }) {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n <= 0 {
			continue
		}
		logs *= int64(bits.Len64(uint64(n)) - 1)
	}
	return 8 * float64(logs) * float64(firstArray(&in.Operands[0].Shape).ElementCount())
}

// sortFlops is HandleSort's n * ceil(log2(n)) comparisons of operand 0's
// n elements (GpuHloCostAnalysis inherits it).
func sortFlops(in *hlo.Instruction) float64 {
	if len(in.Operands) == 0 {
		return 0
	}
	n := uint64(firstArray(&in.Operands[0].Shape).ElementCount())
	return float64(n) * float64(log2Ceiling(n))
}

// reduceSteps is how many times a reduce applies its reducer: the input
// elements less the output elements (HandleReduce, the GPU's too).
func reduceSteps(in *hlo.Instruction) int64 {
	return in.Operands[0].Shape.ElementCount() - firstArray(&in.Shape).ElementCount()
}

// log2Ceiling is ceil(log2(n)) for n >= 1, as XLA's Log2Ceiling.
func log2Ceiling(n uint64) int {
	if n <= 1 {
		return 0
	}
	return bits.Len64(n - 1)
}

// fusion is HandleFusion: the fused instructions' flops and
// transcendentals, the fusion's outputs written, each parameter read as
// FusionParameterReadBytes says, fused constants of more than one element
// read once. A custom fusion around a gather or scatter is costed as that
// gather or scatter.
func (a *xlaAnalysis) fusion(f *hlo.Instruction, v *XLACostValues) {
	comp := fusedComputation(f)
	if comp == nil {
		return
	}
	if f.Typed.FusionKind == "kCustom" {
		for _, in := range comp.Instructions {
			if in.Opcode == hlo.OpGather || in.Opcode == hlo.OpScatter {
				w := a.defaults(f)
				if in.Opcode == hlo.OpGather {
					a.gather(in, w)
				} else {
					a.scatter(in, w)
				}
				*v = *w
				return
			}
		}
	}
	sub := a.computation(comp)
	*v = sub
	// The keys of the fused instructions' operand positions stay where the
	// fusion has none of its own, as in XLA's sums.
	n := max(len(sub.OperandBytes), len(f.Operands))
	v.OperandBytes = append(a.newFloats(n)[:0], sub.OperandBytes...)
	n = max(len(sub.OperandUtilization), len(f.Operands))
	v.OperandUtilization = append(a.newFloats(n)[:0], sub.OperandUtilization...)
	v.BytesAccessed = 0
	v.OutputBytes = fusionOutputBytes(f, comp, a.size)
	v.BytesAccessed += v.OutputBytes
	for _, in := range comp.Instructions {
		if in.Opcode == hlo.OpConstant && elementsRecursive(&in.Shape) > 1 {
			v.BytesAccessed += a.sizeOf(in)
		}
	}
	for i := range f.Operands {
		b := 0.0
		if i < len(comp.Params) && comp.Params[i] != nil {
			b = fusionParamBytes(comp.Params[i], a.parameterReadBytes)
		}
		v.BytesAccessed += b
		v.OperandBytes = setAt(v.OperandBytes, i, b)
		v.OperandUtilization = setAt(v.OperandUtilization, i, 1)
	}
}

// fusionOutputBytes is HloCostAnalysis's FusionProcessOutputBytesAccessed,
// which GpuHloCostAnalysis inherits: every array of the fusion's output is
// written, but a dynamic-update-slice root writes only its update. size is
// the backend's shape size.
func fusionOutputBytes(f *hlo.Instruction, comp *hlo.Computation, size func(*hlo.Shape) float64) float64 {
	root := comp.Root
	write := func(r *hlo.Instruction, s *hlo.Shape) float64 {
		if r != nil && r.Opcode == hlo.OpDynamicUpdateSlice && len(r.Operands) > 1 {
			return size(&r.Operands[1].Shape)
		}
		return leafSum(s, size)
	}
	if !f.Shape.IsTuple() {
		return write(root, &f.Shape)
	}
	n := 0.0
	for i := range f.Shape.Tuple {
		var r *hlo.Instruction
		if root != nil && root.Opcode == hlo.OpTuple && i < len(root.Operands) {
			r = root.Operands[i]
		}
		n += write(r, &f.Shape.Tuple[i])
	}
	return n
}

// leafSum is size summed over the arrays of s.
func leafSum(s *hlo.Shape, size func(*hlo.Shape) float64) float64 {
	switch {
	case s.IsTuple():
		n := 0.0
		for i := range s.Tuple {
			n += leafSum(&s.Tuple[i], size)
		}
		return n
	case s.IsArray():
		return size(s)
	}
	return 0
}

// fusionParamBytes is HloCostAnalysis's FusionProcessOperandBytesRead for
// one fused parameter, which GpuHloCostAnalysis inherits: a tuple
// parameter is read leaf by leaf, each through the get-tuple-elements
// that take it (the tuple itself where none does). read is the backend's
// FusionParameterReadBytes.
func fusionParamBytes(p *hlo.Instruction, read func(*hlo.Instruction) float64) float64 {
	if !p.Shape.IsTuple() {
		return read(p)
	}
	n := 0.0
	for _, l := range p.Shape.Leaves() {
		g := p
		for _, k := range l.Index {
			for _, u := range usersIn(g) {
				if u.Opcode == hlo.OpGetTupleElement && u.Typed.TupleIndex == k {
					g = u
					break
				}
			}
		}
		n += read(g)
	}
	return n
}

// usersIn lists the users of in within its computation, in program
// order, each once.
func usersIn(in *hlo.Instruction) []*hlo.Instruction {
	if in.Parent == nil {
		return nil
	}
	var us []*hlo.Instruction
	for _, u := range in.Parent.Instructions {
		if slices.Contains(u.Operands, in) {
			us = append(us, u)
		}
	}
	return us
}

// parameterReadBytes is FusionParameterReadBytes: the bytes a fused
// parameter (or a get-tuple-element of one) is read with. A slice or a
// dynamic-slice of it reads its result; a broadcast or reshape reads it
// whole, each; a dynamic-update-slice into it reads nothing (the operand
// aliases the output); every other user shares one whole read. A nested
// fusion's user is followed into its own parameter.
func (a *xlaAnalysis) parameterReadBytes(p *hlo.Instruction) float64 {
	size := a.sizeOf(p)
	n, shared := 0.0, false
	share := func(s float64) float64 {
		if shared {
			return 0
		}
		shared = true
		return s
	}
	for _, u := range usersIn(p) {
		switch u.Opcode {
		case hlo.OpFusion:
			n += a.nestedFusionReadBytes(p, u)
		case hlo.OpSlice:
			n += a.sizeOf(u)
		case hlo.OpDynamicSlice:
			if u.Operands[0] == p {
				n += a.sizeOf(u)
			} else {
				n += share(size)
			}
		case hlo.OpDynamicUpdateSlice:
			if u.Operands[0] != p {
				n += share(size)
			}
		case hlo.OpBroadcast, hlo.OpReshape:
			n += size
		default:
			n += share(size)
		}
	}
	return n
}

// nestedFusionReadBytes is what a fused parameter p costs through the
// nested fusion u that uses it: when the nested fusion is simple (p goes
// straight to its root), the nested fusion's slicing users decide, else
// the nested parameter's own read, once.
func (a *xlaAnalysis) nestedFusionReadBytes(p, u *hlo.Instruction) float64 {
	comp := fusedComputation(u)
	if comp == nil {
		return 0
	}
	n := 0.0
	for idx, op := range u.Operands {
		if op != p || idx >= len(comp.Params) {
			continue
		}
		param := comp.Params[idx]
		root := comp.Root
		simple := root == nil || len(root.Operands) == 0 || root.Operands[0] == param
		shared := false
		for _, fu := range usersIn(u) {
			switch {
			case simple && fu.Opcode == hlo.OpSlice:
				n += a.sizeOf(fu)
			case simple && fu.Opcode == hlo.OpDynamicSlice:
				if fu.Operands[0] == u {
					n += a.sizeOf(fu)
				} else if !shared {
					shared = true
					n += a.sizeOf(u)
				}
			case simple && fu.Opcode == hlo.OpDynamicUpdateSlice:
				if fu.Operands[0] != u && !shared {
					shared = true
					n += a.sizeOf(u)
				}
			case !shared:
				shared = true
				n += a.parameterReadBytes(param)
			}
		}
	}
	return n
}
