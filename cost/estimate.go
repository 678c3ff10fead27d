package cost

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// Constants of XLA's GPU performance model
// (xla/service/gpu/model/gpu_performance_model_base.h).
const (
	l2CacheSpeedup = 2.5
	l1CacheSpeedup = 8.0
	// memoryComputeParallelism is p in exec = compute + memory -
	// min(compute, memory) * p (1.0 outside priority fusion).
	memoryComputeParallelism = 1.0
)

// OperandRead is the modelled read of one operand.
type OperandRead struct {
	Operand  int
	Bytes    int64 // bytes accessed (repeated reads included)
	NetBytes int64 // distinct bytes: min(operand size, Bytes)
	// Utilization is Bytes over the operand's size: how often the kernel
	// reads the operand, at most once per element it computes.
	Utilization float64
	Coalesced   bool
	// Rate is the DRAM bandwidth utilisation: 1 if coalesced, else element
	// bytes over the DRAM->L2 transaction size.
	Rate   float64
	TimeUS float64
}

// Estimate is the modelled run time of one kernel (a fusion or an unfused
// instruction).
type Estimate struct {
	Instr *hlo.Instruction
	// Emitter is the GPU emitter; Unit, when set, what runs the kernel
	// instead: a TPU's MXU or vector unit, a DMA, a collective (Kind
	// gives the one to show).
	Emitter EmitterKind
	Unit    string
	Launch  LaunchDims
	// Flops is the kernel's flops as XLA's cost_analysis() counts them on
	// the device's backend (XLACost), or the model's own count where XLA
	// cannot cost the kernel (a library call); the compute time comes
	// from the model's own weights (the GPU performance model's 3 per
	// elementwise element, padded tiles, the TPU's vector and matrix
	// units).
	Flops       float64
	BytesRead   int64
	BytesOutput int64
	Reads       []OperandRead
	ComputeUS   float64
	MemoryUS    float64
	// ExecUS combines compute and memory time; TimeUS adds the launch
	// overhead.
	ExecUS float64
	TimeUS float64
	// Bound is "memory" or "compute".
	Bound string
	// MatrixUnit reports that the compute time used the matrix-unit peak.
	MatrixUnit bool
	Cost       *InstructionCost
	Coalescing []OperandCoalescing
	// Executions is how often the kernel runs per run of the module (a
	// loop body's kernels the loop's known trip count); 0 or 1 once.
	Executions int64
	// Note says how the model ran the kernel when it is not what the
	// emitter's launch says: the tiles of a block-level kernel, or why
	// the kernel is estimated as XLA would emit it instead.
	Note string
}

// combine sets ExecUS, TimeUS and Bound from ComputeUS and MemoryUS on d,
// as XLA's GPU performance model combines compute and memory time.
func (e *Estimate) combine(d *Device) {
	e.ExecUS = e.ComputeUS + e.MemoryUS - math.Min(e.ComputeUS, e.MemoryUS)*memoryComputeParallelism
	e.TimeUS = e.ExecUS + d.KernelLaunchOverheadUS
	e.Bound = "memory"
	if e.ComputeUS > e.MemoryUS {
		e.Bound = "compute"
	}
}

// Kind is what runs the kernel: its Unit when set, else its GPU emitter.
func (e *Estimate) Kind() string {
	if e.Unit != "" {
		return e.Unit
	}
	return e.Emitter.String()
}

// Bytes is every byte the kernel moves as the model counts them: its
// operand reads (repeated ones included), fused constants and output.
func (e *Estimate) Bytes() int64 {
	n := satAdd(max(e.BytesRead, 0), max(e.BytesOutput, 0))
	if e.Cost != nil {
		n = satAdd(n, max(e.Cost.ConstantBytes, 0))
	}
	return n
}

// usesMatrixUnit reports whether a kernel's flops run on tensor cores / the
// MXU: a dot, a convolution, a gemm or convolution custom call, or a
// fusion (Triton, cuDNN, custom) containing a dot or convolution.
func usesMatrixUnit(in *hlo.Instruction) bool {
	switch in.Opcode {
	case hlo.OpDot, hlo.OpConvolution:
		return true
	case hlo.OpCustomCall:
		return customCallFlops(in) > 0
	case hlo.OpFusion:
		return anyFused(in, usesMatrixUnit)
	}
	return false
}

// matrixClass is the operand class whose matrix throughput bounds a
// kernel's dot or convolution (Device.MatrixPeakFlops): the type of the
// first such op's left operand, f32 split by precision (HIGHEST runs on
// the FP32 lanes, anything else as TF32, XLA's default on NVIDIA GPUs since
// Ampere). "" when the kernel has none.
func matrixClass(in *hlo.Instruction) string {
	switch in.Opcode {
	case hlo.OpDot, hlo.OpConvolution, hlo.OpCustomCall:
		if len(in.Operands) == 0 || in.Opcode == hlo.OpCustomCall && customCallFlops(in) == 0 {
			return ""
		}
		t := firstArray(&in.Operands[0].Shape).Type
		switch {
		case t == hlo.BF16 || t == hlo.F16:
			return "bf16"
		case t == hlo.F32:
			if highestPrecision(in) {
				return "f32"
			}
			return "tf32"
		case t == hlo.F64:
			return "f64"
		case t.IsInteger():
			return "s8"
		case t.IsFloat() && t.BitWidth() <= 8:
			return "f8"
		}
		return ""
	case hlo.OpFusion:
		if c := fusedComputation(in); c != nil {
			for _, f := range c.Instructions {
				if cl := matrixClass(f); cl != "" {
					return cl
				}
			}
		}
	}
	return ""
}

// highestPrecision reports operand_precision HIGHEST on a dot or
// convolution, or in a gemm custom call's backend config.
func highestPrecision(in *hlo.Instruction) bool {
	if v, ok := in.Attr("operand_precision"); ok {
		return strings.Contains(strings.ToLower(v), "highest")
	}
	if v, ok := in.Attr("backend_config"); ok {
		return strings.Contains(v, `"operand_precision":["HIGHEST"`)
	}
	return false
}

// Model estimates kernel times on one device.
type Model struct {
	Device Device
	Mode   CoalescingMode
	Costs  *Costs
	// Devices is the number of devices the module runs on
	// (ModuleDevices), the group of a collective that names none.
	Devices int64
	// xla is the memo of XLA's cost_analysis() (XLACost's rules), whose
	// flops the estimates report and whose TPU figures the TPU model
	// uses; xlaV holds the last kernel's figures and xlaSizes the sizes
	// of its operands (what the analysis charges them before its rule).
	xla      *xlaAnalysis
	xlaV     XLACostValues
	xlaSizes []float64
	// scratch, when set, is the estimate that estimate fills again for
	// each kernel, for a caller that is done with an estimate before it
	// asks for the next (the cost pass's summary).
	scratch *Estimate
}

// newEstimate returns an empty estimate with room for the reads of reads
// operands: m.scratch when the model has one.
func (m *Model) newEstimate(reads int) *Estimate {
	e := m.scratch
	if e == nil {
		e = &Estimate{}
		if reads > 0 {
			e.Reads = make([]OperandRead, 0, reads)
		}
		return e
	}
	*e = Estimate{Reads: e.Reads[:0]}
	if cap(e.Reads) < reads {
		e.Reads = make([]OperandRead, 0, reads)
	}
	return e
}

// NewModel returns a model for device d with heuristic coalescing.
func NewModel(d Device) *Model {
	return &Model{Device: d, Mode: Heuristic, Costs: NewCosts()}
}

// adjustBandwidth caps bandwidth at what num_blocks blocks can issue: one
// MemoryTransactionBytesPerClock transaction per block per clock.
func (m *Model) adjustBandwidth(bw float64, blocks int64) float64 {
	d := &m.Device
	if !d.IsGPU() || d.MemoryTransactionBytesPerClock <= 0 {
		return bw
	}
	return math.Min(bw, float64(blocks)*d.ClockGHz*1e9*float64(d.MemoryTransactionBytesPerClock))
}

// readTime is ReadTimeWithDRAMHeuristic in seconds.
func (m *Model) readTime(blocks, net, total int64, rate float64) float64 {
	d := &m.Device
	dram := d.MemoryBandwidth * rate
	rest := d.MemoryBandwidth
	if d.IsGPU() && net < d.L2CacheBytes {
		rest *= l2CacheSpeedup
		if net < d.L1CachePerCore*d.Cores {
			rest *= l1CacheSpeedup
		}
	} else {
		rest *= rate
	}
	dram = m.adjustBandwidth(dram, blocks)
	rest = m.adjustBandwidth(rest, blocks)
	fromDRAM := min(net, total)
	t := float64(fromDRAM) / dram
	if again := total - fromDRAM; again > 0 {
		t += float64(again) / rest
	}
	return t
}

// Estimate models one kernel: flops and bytes from the GPU cost analysis,
// launch dimensions from the emitter, coalescing per operand, then XLA's
// roofline: exec = compute + memory - min(compute, memory) (they overlap
// fully), plus the launch overhead.
func (m *Model) Estimate(in *hlo.Instruction) *Estimate {
	return m.estimateKernel(in, func() (*FusionAnalysis, *InstructionCost) { return AnalyzeFusion(in), m.costs().Of(in) },
		func(a *FusionAnalysis) []OperandCoalescing { return a.Coalescing(m.Mode, &m.Device) })
}

// estimateKernel is the one choice of model for a kernel, shared by
// Estimate and the cost pass: a TPU kernel from XLA's TPU cost analysis,
// a collective or a copy-start from what it moves, a block-level (Triton)
// fusion from its tiles, anything else from its GPU cost analysis and the
// coalescing of its reads. gpu makes the kernel's emitter analysis and GPU
// cost analysis, and coal the coalescing, only when the model needs them.
func (m *Model) estimateKernel(in *hlo.Instruction, gpu func() (*FusionAnalysis, *InstructionCost), coal func(*FusionAnalysis) []OperandCoalescing) *Estimate {
	f := m.xlaFlops(in) // the TPU model reads m.xlaV's transcendentals
	var e *Estimate
	switch {
	case isCollective(in):
		_, c := gpu()
		e = m.collectiveEstimate(in, c)
	case in.Opcode == hlo.OpCopyStart:
		_, c := gpu()
		e = m.copyStartEstimate(in, c)
	case !m.Device.IsGPU():
		e = m.tpuEstimate(in)
	default:
		a, c := gpu()
		e = m.gpuEstimate(a, c, func() []OperandCoalescing { return coal(a) })
	}
	if f >= 0 {
		e.Flops = f
	}
	return e
}

// gpuEstimate picks the GPU model of a kernel (see estimateKernel).
func (m *Model) gpuEstimate(a *FusionAnalysis, c *InstructionCost, coal func() []OperandCoalescing) *Estimate {
	if a.Emitter == EmitterTriton {
		if e := m.tiledEstimate(a); e != nil {
			return e
		}
	}
	if why := recomputedReduction(a, c); why != "" {
		if bl, ok := newBlockLevel(a); ok {
			if e := m.searchTiling(a, bl); e != nil {
				e.Note = why + ": estimated as the block-level fusion XLA makes of it, " + e.Note
				return e
			}
		}
	}
	if a.Emitter == EmitterReduction && !a.Reduction.raceFree() {
		return m.splitReduction(a, c, coal())
	}
	return m.estimate(a, c, coal())
}

// splitReduction estimates a reduction fusion whose reduction is not race
// free as XLA's GPU backend runs it: its tree reduction rewriter
// (GpuTreeReductionRewriter) cuts such a reduce in two before fusion. The
// first kernel is the fusion with the reduced dimension cut to partial
// results (a batched row reduction reduces its rows only; a long row or
// column is cut into k = ceil(sqrt(n)) pieces of k, each reduced); it
// writes the partial results, which a second kernel reads and reduces.
func (m *Model) splitReduction(a *FusionAnalysis, c *InstructionCost, coal []OperandCoalescing) *Estimate {
	r := a.Reduction
	first := r
	D, H, W := r.Dims[0], r.Dims[1], r.Dims[2]
	var partials int64
	switch {
	case r.IsRow && D > 8:
		first.Dims = [3]int64{1, D * H, W}
		partials = D * H
	case r.IsRow:
		k := int64(math.Ceil(math.Sqrt(float64(W))))
		first.Dims = [3]int64{D, H * k, k}
		partials = D * H * k
	default:
		k := int64(math.Ceil(math.Sqrt(float64(H))))
		first.Dims = [3]int64{D, k, k * W}
		partials = D * k * W
	}
	split := *a
	split.Reduction = first
	e := m.estimate(&split, c, coal)
	d := &m.Device
	bytes := float64(partials * max(bitsOf(firstArray(&a.Reduce.Shape))/8, 1))
	e.MemoryUS += 2 * bytes / d.MemoryBandwidth * 1e6 // written, then read again
	e.combine(d)
	e.TimeUS += d.KernelLaunchOverheadUS
	e.Note = fmt.Sprintf("reduction not race free: two kernels, as XLA's tree reduction rewriter splits it (%d partial results)", partials)
	return e
}

// recomputedReduction says why a kernel's emitter would compute one of its
// reductions again and again (a loop emitter evaluates each output
// element's expression in full): a reduce that is not the hero of a root
// whose result the fusion reads more than once (the cost analysis's
// utilization of it, c.FusedUtilization, is above 1: a broadcast of it
// feeds the fusion's elements), or a reduce-window whose window spans a
// whole dimension (XLA's TPU lowering of cumulative sums and of a
// reduction's broadcast). XLA's GPU backend makes such fusions
// block-level (Triton) ones, whose tiles hold the reduced rows; "" when
// the kernel has none.
func recomputedReduction(a *FusionAnalysis, c *InstructionCost) string {
	if a.Emitter == EmitterTriton {
		return ""
	}
	check := func(in *hlo.Instruction) string {
		switch in.Opcode {
		case hlo.OpReduceWindow:
			if effectiveWindow(in) < windowElements(in) {
				return "reduce-window " + in.Name + " spans a whole dimension"
			}
		case hlo.OpReduce:
			if u := c.FusedUtilization[in]; u > 1+1e-9 && !slices.Contains(a.Heroes, in) {
				return fmt.Sprintf("reduce %s is computed %.4g times over", in.Name, u)
			}
		}
		return ""
	}
	if a.Fused == nil {
		return check(a.Fusion)
	}
	for _, in := range a.Fused.Instructions {
		if why := check(in); why != "" {
			return why
		}
	}
	return ""
}

// windowElements is the number of elements of a reduce-window's window.
func windowElements(in *hlo.Instruction) int64 {
	n := int64(1)
	for _, w := range in.Typed.Window {
		n = satMul(n, max(w.Size, 1))
	}
	return n
}

// estimate models a kernel from its analysis, cost and coalescing.
func (m *Model) estimate(a *FusionAnalysis, c *InstructionCost, coal []OperandCoalescing) *Estimate {
	d := &m.Device
	in := a.Fusion
	e := m.newEstimate(len(in.Operands))
	e.Instr, e.Emitter, e.Cost, e.Flops, e.BytesOutput = in, a.Emitter, c, c.Flops, c.OutputBytes
	e.Launch = a.Launch(d)
	e.Coalescing = coal
	e.MatrixUnit = usesMatrixUnit(in)
	if e.MatrixUnit || !d.IsGPU() {
		e.ComputeUS = c.Flops / d.MatrixPeak(matrixClass(in)) * 1e6
	} else {
		fpus := min(e.Launch.ThreadsPerBlock, d.FPUsPerCore)
		cores := min(e.Launch.Blocks, d.Cores)
		rate := d.ClockGHz * 1e9 * 2 * float64(fpus*cores)
		if rate > 0 {
			e.ComputeUS = c.Flops / rate * 1e6
		}
	}
	read := 0.0
	inPlace, updBytes := scatterInPlace(a)
	outElems := computedElements(in)
	for k, op := range in.Operands {
		size := ShapeBytes(&op.Shape)
		if op.Shape.IsTuple() {
			size = arrayBytes(&op.Shape)
		}
		bytes := readBytes(c.Operands[k].BytesAccessed, size, outElems)
		if k == inPlace {
			bytes = min(bytes, updBytes)
		}
		r := OperandRead{Operand: k, Bytes: bytes, NetBytes: min(size, bytes), Coalesced: true, Rate: 1}
		if size > 0 {
			r.Utilization = float64(bytes) / float64(size)
		}
		if k < len(e.Coalescing) && !e.Coalescing[k].Coalesced && d.IsGPU() {
			r.Coalesced = false
			elem := max(bitsOf(firstArray(&op.Shape))/8, 1)
			r.Rate = math.Min(1, float64(elem)/float64(d.DRAMToL2TransactionBytes))
		}
		if r.Bytes > 0 {
			r.TimeUS = m.readTime(e.Launch.Blocks, r.NetBytes, r.Bytes, r.Rate) * 1e6
		}
		read += r.TimeUS
		e.BytesRead += r.Bytes
		e.Reads = append(e.Reads, r)
	}
	if c.ConstantBytes > 0 {
		read += m.readTime(e.Launch.Blocks, c.ConstantBytes, c.ConstantBytes, 1) * 1e6
	}
	written := writtenBytes(in, c)
	if inPlace >= 0 {
		written = min(written, updBytes)
	}
	write := float64(written) / d.MemoryBandwidth * 1e6
	e.MemoryUS = read + write
	e.combine(d)
	return e
}

// computedElements is the number of elements a kernel computes: the
// elements of its fused computation's outputs, or of its own result.
func computedElements(in *hlo.Instruction) int64 {
	if c := fusedComputation(in); c != nil && c.Root != nil {
		return elementsRecursive(&c.Root.Shape)
	}
	return elementsRecursive(&in.Shape)
}

// readBytes is what the time model charges for reading an operand of size
// bytes that the cost analysis says is accessed for accessed bytes, in a
// kernel computing outElems elements. XLA's GpuHloCostAnalysis counts
// every access of every fused instruction: a scalar broadcast into a
// reduction is read once per reduced element, and a reduction's input
// behind another reduction's broadcast once per element of the outer one.
// A kernel holds a value it has loaded in a register for as long as it
// works on one output element, so it reads each operand element at most
// once per element it computes: the model charges at most outElems reads
// of the whole operand.
func readBytes(accessed, size, outElems int64) int64 {
	if size <= 0 || outElems <= 0 || accessed/size < outElems {
		return accessed
	}
	return min(accessed, satMul(size, outElems))
}

// satMul is a*b for non-negative a and b, saturated at the largest int64.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// xlaTarget is the backend (and chip) whose cost_analysis() a device's
// reports give the flops of.
func xlaTarget(d *Device) XLATarget {
	if d.IsGPU() {
		return XLATarget{Backend: XLAGPU, Device: d.Name}
	}
	return XLATarget{Backend: XLATPU, Device: d.Name}
}

// xlaFlops is what XLA's cost_analysis() counts for kernel in on the
// device's backend (XLACost's rules: 1 per element of an elementwise op,
// none for a transcendental one, as HloCostAnalysis counts), or -1 when
// XLA cannot cost it (a library call). The model memoizes the analysis.
func (m *Model) xlaFlops(in *hlo.Instruction) float64 {
	if m.xla == nil {
		m.xla = newXLAAnalysis(xlaTarget(&m.Device))
		m.xla.unrecorded = true
	}
	// The kernel's figures are scratch, their memory reused for the next
	// kernel's.
	m.xla.reuse()
	m.xla.setDefaults(&m.xlaV, in)
	m.xlaSizes = append(m.xlaSizes[:0], m.xlaV.OperandBytes...)
	m.xla.apply(&m.xlaV, in)
	return m.xlaV.Flops
}

// writtenBytes is what a kernel writes to memory: the cost analysis's output
// bytes, except for a library call with a tuple result (a cuBLAS gemm's
// result and workspace): XLA's cost analysis charges such a tuple as its
// index table, a quirk Costs keeps so that bytes accessed match XLA's, but
// the call does write its whole result (element 0).
func writtenBytes(in *hlo.Instruction, c *InstructionCost) int64 {
	if in.Opcode == hlo.OpCustomCall && in.Shape.IsTuple() && len(in.Shape.Tuple) > 0 && customCallFlops(in) > 0 {
		return max(c.OutputBytes, ShapeBytes(&in.Shape.Tuple[0]))
	}
	return c.OutputBytes
}

// scatterInPlace finds the fusion operand a scatter fusion updates in place
// and the bytes of its updates: the kernel reads and writes only the rows
// it updates. XLA's cost analysis charges the whole operand and output (a
// quirk Costs keeps, so that bytes accessed match XLA's); the time model
// charges the updates. It returns -1 when a is no such fusion.
func scatterInPlace(a *FusionAnalysis) (int, int64) {
	if a.Emitter != EmitterScatter || a.Fused == nil || len(a.Roots) != 1 {
		return -1, 0
	}
	s := a.Roots[0]
	if s.Opcode != hlo.OpScatter || len(s.Operands) != 3 || s.Operands[0].Opcode != hlo.OpParameter {
		return -1, 0
	}
	return s.Operands[0].ParameterNumber, ShapeBytes(&s.Operands[2].Shape)
}

// Reasons explains an estimate: what bounds it and what wastes time.
func (e *Estimate) Reasons() []string {
	r := []string{fmt.Sprintf("%s-bound (compute %.3g us, memory %.3g us)", e.Bound, e.ComputeUS, e.MemoryUS)}
	if e.Note != "" {
		r = append(r, e.Note)
	}
	for _, rd := range e.Reads {
		if !rd.Coalesced {
			why := ""
			if rd.Operand < len(e.Coalescing) {
				why = ": " + e.Coalescing[rd.Operand].Reason
			}
			r = append(r, fmt.Sprintf("operand %d uncoalesced, bandwidth x%.3g%s", rd.Operand, rd.Rate, why))
		}
	}
	total := float64(e.BytesRead + e.BytesOutput)
	for _, rd := range e.Reads {
		if rd.Utilization <= 1.0001 || rd.Bytes <= 0 {
			continue
		}
		// Re-reads: the bytes beyond one read of the operand. Worth naming
		// only when they are a real share of the kernel's traffic, not a
		// reduce's scalar init value read once per output.
		reread := float64(rd.Bytes) * (1 - 1/rd.Utilization)
		if total > 0 && reread >= rereadShare*total {
			r = append(r, fmt.Sprintf("operand %d read %.3gx (utilization %.4g): %.0f%% of the kernel's bytes are re-reads",
				rd.Operand, rd.Utilization, rd.Utilization, 100*reread/total))
		}
	}
	return r
}

// rereadShare is the share of a kernel's bytes that repeated reads of one
// operand must reach for Reasons to name them.
const rereadShare = 0.1

// isKernel reports whether an instruction launches work of its own; the
// rest move no data (parameter, tuple, bitcast, ...) or are control flow
// whose called computations are estimated instead.
func isKernel(in *hlo.Instruction) bool {
	switch in.Opcode {
	case hlo.OpParameter, hlo.OpConstant, hlo.OpGetTupleElement, hlo.OpTuple, hlo.OpBitcast, hlo.OpAfterAll,
		hlo.OpPartitionID, hlo.OpReplicaID, hlo.OpOptimizationBarrier, hlo.OpAddDependency, hlo.OpDomain,
		hlo.OpWhile, hlo.OpConditional, hlo.OpCall, hlo.OpAsyncStart, hlo.OpAsyncUpdate, hlo.OpAsyncDone,
		hlo.OpCopyDone, hlo.OpSend, hlo.OpSendDone, hlo.OpRecv, hlo.OpRecvDone,
		hlo.OpAllReduceDone, hlo.OpAllGatherDone, hlo.OpCollectivePermuteDone, hlo.OpIota, hlo.OpGetDimensionSize,
		hlo.OpSetDimensionSize, hlo.OpInfeed, hlo.OpOutfeed, hlo.OpRngGetAndUpdateState:
		return false
	case hlo.OpReshape:
		return !isBitcastReshape(in)
	case hlo.OpTranspose:
		return !isBitcastTranspose(in)
	}
	return true
}

// ModuleEstimate is the estimate of every kernel of a module.
type ModuleEstimate struct {
	Device string
	// Kernels are the kernels' estimates in module order; nil in a
	// summary (Config.Summary), which keeps its Top kernels only.
	Kernels []*Estimate
	// TimeUS, Flops and Bytes sum the kernels, each times its Executions.
	TimeUS float64
	Flops  float64
	Bytes  int64
	// Note, when set, is a line the report prints under its head: that
	// the module was compiled for another backend than the device's.
	Note string
	// count is the number of kernels summed, and top, in a summary, the
	// most expensive of them in Top's order.
	count int
	top   []*Estimate
}

// add counts e, Executions times, into the totals.
func (me *ModuleEstimate) add(e *Estimate) {
	me.Kernels = append(me.Kernels, e)
	me.addFigures(kernelFigures{e.TimeUS, e.Flops, e.Bytes()}, e.runs())
}

// NumKernels is the number of kernels the totals sum.
func (me *ModuleEstimate) NumKernels() int {
	if me.Kernels != nil {
		return len(me.Kernels)
	}
	return me.count
}

// kernelFigures are what a module's totals take from a kernel's estimate:
// its TimeUS, Flops and Bytes.
type kernelFigures struct {
	time, flops float64
	bytes       int64
}

// addFigures counts a kernel of figures f that runs runs times into the
// totals.
func (me *ModuleEstimate) addFigures(f kernelFigures, runs int64) {
	me.count++
	n := float64(runs)
	me.TimeUS += f.time * n
	me.Flops += f.flops * n
	me.Bytes = satAdd(me.Bytes, satMul(f.bytes, runs))
}

// runs is how often the kernel runs per run of the module (Executions, at
// least 1).
func (e *Estimate) runs() int64 { return max(e.Executions, 1) }

// executions returns the computations whose instructions run as kernels
// (the entry and, transitively, the bodies of while, conditional, call and
// async ops; not fused computations or reducers), in module order, with
// how often each runs per run of the module: a while loop's body as often
// as its known_trip_count says (its condition once more), times the runs
// of the computation the loop is in; once when the count is unknown. Each
// branch of a conditional is counted as if it ran.
func executions(m *hlo.Module) ([]*hlo.Computation, map[*hlo.Computation]int64) {
	if m.Entry == nil {
		return nil, nil
	}
	runs := map[*hlo.Computation]int64{m.Entry: 1}
	stack := []*hlo.Computation{m.Entry}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, in := range c.Instructions {
			switch in.Opcode {
			case hlo.OpWhile, hlo.OpConditional, hlo.OpCall, hlo.OpAsyncStart:
			default:
				continue
			}
			trips, known := knownTripCount(in)
			for _, cc := range in.Called {
				if cc == nil {
					continue
				}
				n := runs[c]
				if in.Opcode == hlo.OpWhile && known {
					if cc == whileBody(in) {
						n = satMul(n, trips)
					} else {
						n = satMul(n, satAdd(trips, 1)) // the condition
					}
				}
				if _, seen := runs[cc]; !seen {
					runs[cc] = n
					stack = append(stack, cc)
				}
			}
		}
	}
	var out []*hlo.Computation
	for _, c := range m.Computations {
		if _, ok := runs[c]; ok {
			out = append(out, c)
		}
	}
	return out, runs
}

// whileBody is the body computation of a while (its body= attribute).
func whileBody(in *hlo.Instruction) *hlo.Computation {
	name, _ := in.Attr("body")
	name = strings.TrimPrefix(name, "%")
	for _, c := range in.Called {
		if c != nil && c.Name == name {
			return c
		}
	}
	return nil
}

// knownTripCount reads a while loop's "known_trip_count":{"n":"N"} from its
// backend_config.
func knownTripCount(in *hlo.Instruction) (int64, bool) {
	if in.Opcode != hlo.OpWhile {
		return 0, false
	}
	raw, ok := in.Attr("backend_config")
	if !ok || !strings.Contains(raw, "known_trip_count") {
		return 0, false
	}
	var cfg struct {
		KnownTripCount *struct {
			N json.Number `json:"n"`
		} `json:"known_trip_count"`
	}
	if json.Unmarshal([]byte(raw), &cfg) != nil || cfg.KnownTripCount == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(cfg.KnownTripCount.N.String(), 10, 64)
	return n, err == nil && n >= 0
}

// EstimateModule estimates every kernel of the module and sums them, each
// loop body times its known trip count.
func (m *Model) EstimateModule(mod *hlo.Module) *ModuleEstimate {
	if m.Devices == 0 {
		m.Devices = ModuleDevices(mod)
	}
	me := &ModuleEstimate{Device: m.Device.Name, Note: foreignNote(compiledFor(mod), &m.Device)}
	comps, runs := executions(mod)
	var ests []*Estimate
	for _, c := range comps {
		for _, in := range c.Instructions {
			if !isKernel(in) {
				continue
			}
			e := m.Estimate(in)
			e.Executions = runs[c]
			ests = append(ests, e)
		}
	}
	for _, e := range ests {
		me.add(e)
	}
	return me
}

// Top returns the n kernels that take the most time per run of the
// module (their time times their executions), first the most (ties by
// module order).
func (me *ModuleEstimate) Top(n int) []*Estimate {
	if me.Kernels == nil && me.top != nil {
		return me.top[:min(n, len(me.top))]
	}
	total := make([]float64, len(me.Kernels))
	for i, e := range me.Kernels {
		total[i] = e.TimeUS * float64(e.runs())
	}
	idx := topIndices(total, n)
	out := make([]*Estimate, len(idx))
	for i, k := range idx {
		out[i] = me.Kernels[k]
	}
	return out
}

// topIndices returns the indices of the n largest of total, the largest
// first (ties by index): the first n of a stable sort, found in one pass
// that keeps the n largest so far (a module has tens of thousands of
// kernels, a report lists ten).
func topIndices(total []float64, n int) []int {
	if n <= 0 {
		return nil
	}
	top := make([]int, 0, min(n, len(total)))
	for i, t := range total {
		if len(top) == n && !(t > total[top[n-1]]) {
			continue
		}
		at := len(top)
		for at > 0 && t > total[top[at-1]] {
			at--
		}
		if len(top) < n {
			top = append(top, 0)
		}
		copy(top[at+1:], top[at:])
		top[at] = i
	}
	return top
}

// Report prints the module estimate and its n most expensive kernels.
func (me *ModuleEstimate) Report(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "device %s: %d kernels, %.4g us, %.4g GFLOP, %.4g MB\n",
		me.Device, me.NumKernels(), me.TimeUS, me.Flops/1e9, float64(me.Bytes)/1e6)
	if me.Note != "" {
		b.WriteString("note: " + me.Note + "\n")
	}
	for i, e := range me.Top(n) {
		share := 0.0
		if me.TimeUS > 0 {
			share = 100 * e.TimeUS * float64(e.runs()) / me.TimeUS
		}
		times := ""
		if e.runs() > 1 {
			times = fmt.Sprintf(" x %d runs", e.runs())
		}
		fmt.Fprintf(&b, "%2d. %s %s (%s): %.4g us%s (%.1f%%), %.4g flops, %d bytes\n",
			i+1, e.Instr.Name, e.Instr.Opcode, e.Kind(), e.TimeUS, times, share, e.Flops, e.Bytes())
		for _, r := range e.Reasons() {
			fmt.Fprintf(&b, "      %s\n", r)
		}
	}
	return b.String()
}
