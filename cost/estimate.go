package cost

import (
	"fmt"
	"math"
	"sort"
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
	Operand   int
	Bytes     int64 // bytes accessed (repeated reads included)
	NetBytes  int64 // distinct bytes: min(operand size, Bytes)
	Coalesced bool
	// Rate is the DRAM bandwidth utilisation: 1 if coalesced, else element
	// bytes over the DRAM->L2 transaction size.
	Rate   float64
	TimeUS float64
}

// Estimate is the modelled run time of one kernel (a fusion or an unfused
// instruction).
type Estimate struct {
	Instr       *hlo.Instruction
	Emitter     EmitterKind
	Launch      LaunchDims
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

// Bytes is every byte the kernel moves: reads, fused constants and output.
func (e *Estimate) Bytes() int64 { return e.Cost.BytesAccessed }

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
	a := AnalyzeFusion(in)
	if a.Emitter == EmitterTriton {
		if e := m.tiledEstimate(a); e != nil {
			return e
		}
	}
	return m.estimate(a, m.Costs.Of(in), a.Coalescing(m.Mode, &m.Device))
}

// estimate models a kernel from its analysis, cost and coalescing.
func (m *Model) estimate(a *FusionAnalysis, c *InstructionCost, coal []OperandCoalescing) *Estimate {
	d := &m.Device
	in := a.Fusion
	e := &Estimate{Instr: in, Emitter: a.Emitter, Cost: c, Flops: c.Flops, BytesOutput: c.OutputBytes}
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
	if len(in.Operands) > 0 {
		e.Reads = make([]OperandRead, 0, len(in.Operands))
	}
	inPlace, updBytes := scatterInPlace(a)
	for k, op := range in.Operands {
		oc := c.Operands[k]
		size := ShapeBytes(&op.Shape)
		if op.Shape.IsTuple() {
			size = arrayBytes(&op.Shape)
		}
		bytes := oc.BytesAccessed
		if k == inPlace {
			bytes = min(bytes, updBytes)
		}
		r := OperandRead{Operand: k, Bytes: bytes, NetBytes: min(size, bytes), Coalesced: true, Rate: 1}
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
	for _, rd := range e.Reads {
		if !rd.Coalesced {
			why := ""
			if rd.Operand < len(e.Coalescing) {
				why = ": " + e.Coalescing[rd.Operand].Reason
			}
			r = append(r, fmt.Sprintf("operand %d uncoalesced, bandwidth x%.3g%s", rd.Operand, rd.Rate, why))
		}
	}
	for _, oc := range e.Cost.Operands {
		if oc.Utilization <= 1.0001 || oc.BytesAccessed <= 0 {
			continue
		}
		// Re-reads: the bytes beyond one read of the operand. Worth naming
		// only when they are a real share of the kernel's traffic, not a
		// reduce's scalar init value read once per output.
		reread := float64(oc.BytesAccessed) * (1 - 1/oc.Utilization)
		if e.Cost.BytesAccessed > 0 && reread >= rereadShare*float64(e.Cost.BytesAccessed) {
			r = append(r, fmt.Sprintf("operand %d read %.3gx (utilization %.4g): %.0f%% of the kernel's bytes are re-reads",
				oc.Operand, oc.Utilization, oc.Utilization, 100*reread/float64(e.Cost.BytesAccessed)))
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
		hlo.OpCopyStart, hlo.OpCopyDone, hlo.OpSend, hlo.OpSendDone, hlo.OpRecv, hlo.OpRecvDone,
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
	Device  string
	Kernels []*Estimate // in module order
	TimeUS  float64
	Flops   float64
	Bytes   int64
}

// kernelComputations returns the computations whose instructions run as
// kernels: the entry and, transitively, the bodies of while, conditional,
// call and async ops, in module order; fused computations and reducers are
// excluded.
func kernelComputations(m *hlo.Module) []*hlo.Computation {
	if m.Entry == nil {
		return nil
	}
	keep := map[*hlo.Computation]bool{m.Entry: true}
	stack := []*hlo.Computation{m.Entry}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, in := range c.Instructions {
			switch in.Opcode {
			case hlo.OpWhile, hlo.OpConditional, hlo.OpCall, hlo.OpAsyncStart:
				for _, cc := range in.Called {
					if cc != nil && !keep[cc] {
						keep[cc] = true
						stack = append(stack, cc)
					}
				}
			}
		}
	}
	var out []*hlo.Computation
	for _, c := range m.Computations {
		if keep[c] {
			out = append(out, c)
		}
	}
	return out
}

// EstimateModule estimates every kernel of the module (each loop body
// counted once) and sums them.
func (m *Model) EstimateModule(mod *hlo.Module) *ModuleEstimate {
	me := &ModuleEstimate{Device: m.Device.Name}
	for _, c := range kernelComputations(mod) {
		for _, in := range c.Instructions {
			if !isKernel(in) {
				continue
			}
			e := m.Estimate(in)
			me.Kernels = append(me.Kernels, e)
			me.TimeUS += e.TimeUS
			me.Flops += e.Flops
			me.Bytes += e.Bytes()
		}
	}
	return me
}

// Top returns the n most expensive kernels, slowest first (ties by module
// order).
func (me *ModuleEstimate) Top(n int) []*Estimate {
	idx := make([]int, len(me.Kernels))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return me.Kernels[idx[a]].TimeUS > me.Kernels[idx[b]].TimeUS })
	if n > len(idx) {
		n = len(idx)
	}
	out := make([]*Estimate, n)
	for i := range out {
		out[i] = me.Kernels[idx[i]]
	}
	return out
}

// Report prints the module estimate and its n most expensive kernels.
func (me *ModuleEstimate) Report(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "device %s: %d kernels, %.4g us, %.4g GFLOP, %.4g MB\n",
		me.Device, len(me.Kernels), me.TimeUS, me.Flops/1e9, float64(me.Bytes)/1e6)
	for i, e := range me.Top(n) {
		share := 0.0
		if me.TimeUS > 0 {
			share = 100 * e.TimeUS / me.TimeUS
		}
		fmt.Fprintf(&b, "%2d. %s %s (%s): %.4g us (%.1f%%), %.4g flops, %d bytes\n",
			i+1, e.Instr.Name, e.Instr.Opcode, e.Emitter, e.TimeUS, share, e.Flops, e.Bytes())
		for _, r := range e.Reasons() {
			fmt.Fprintf(&b, "      %s\n", r)
		}
	}
	return b.String()
}
