package cost

import (
	"github.com/hlo-opt/hlo-opt/hlo"
)

// A TPU runs a fusion as one program on its TensorCore: the matrix units
// (MXU) take the dots and convolutions, the vector unit everything else,
// while DMAs stream the operands in from HBM and the result out, tile by
// tile, overlapping the two. There are no GPU emitters, threads or
// coalescing. The model: flops as XLA's HloCostAnalysis counts them (what
// the TPU's cost_analysis() reports), split between the MXU at the
// device's matrix peak for the operand class and the vector unit at its
// peak, transcendentals at the rate the TPU's cost model takes (known for
// the chips xla-cost probed); memory bytes as the cost analysis's bytes accessed, but each
// operand read at most once (the kernel keeps what it reads in VMEM) and
// each array at its tiled (padded) size, at the HBM bandwidth; the kernel
// takes the longer of compute and memory time, without a launch overhead.
// XLA's optimal_seconds is the same roofline; as there, arrays placed in
// on-chip memory (VMEM, S(1)) count as memory traffic like those in HBM.

// Kernel units of the TPU model.
const (
	UnitMXU        = "MXU"
	UnitVector     = "vector"
	UnitDMA        = "DMA"
	UnitCollective = "collective"
)

// tpuEstimate is the roofline of one TPU kernel.
func (m *Model) tpuEstimate(in *hlo.Instruction) *Estimate {
	d := &m.Device
	costs := m.baseCosts()
	c := costs.Of(in)
	mxu, vec := tpuFlops(costs, in, 0)
	e := &Estimate{Instr: in, Unit: UnitVector, Cost: c, Flops: mxu + vec, MatrixUnit: mxu > 0,
		Launch: LaunchDims{Blocks: 1, ThreadsPerBlock: 1, Unroll: 1, Vector: 1, Note: "tpu"}}
	if mxu > 0 {
		e.Unit = UnitMXU
		e.ComputeUS = mxu / d.MatrixPeak(matrixClass(in)) * 1e6
	}
	if vec > 0 && d.VectorPeakFlops > 0 {
		e.ComputeUS += vec / d.VectorPeakFlops * 1e6
	}
	// Transcendentals (exp, tanh, ...) at the rate the TPU compiler's cost
	// model divides them by (xla-cost's probes), where it is known.
	if r := tpuRatesByDevice[d.Name].transcendentals; r > 0 && m.xlaV.Transcendentals > 0 {
		e.ComputeUS += m.xlaV.Transcendentals / r * 1e6
	}
	outElems := computedElements(in)
	hbm := 0.0
	for k, op := range in.Operands {
		size := arrayBytes(&op.Shape)
		bytes := int64(0)
		if k < len(c.Operands) {
			bytes = readBytes(max(c.Operands[k].BytesAccessed, 0), size, outElems)
		}
		r := OperandRead{Operand: k, Bytes: bytes, NetBytes: min(size, bytes), Coalesced: true, Rate: 1}
		if size > 0 {
			r.Utilization = float64(bytes) / float64(size)
		}
		// Reads of data already on chip come from VMEM: memory moves the
		// operand's tiles at most once.
		r.TimeUS = float64(r.NetBytes) * paddingRatio(&op.Shape) / d.MemoryBandwidth * 1e6
		hbm += r.TimeUS
		e.BytesRead += bytes
		e.Reads = append(e.Reads, r)
	}
	e.BytesOutput = max(c.OutputBytes, 0)
	hbm += float64(e.BytesOutput) * paddingRatio(&in.Shape) / d.MemoryBandwidth * 1e6
	hbm += float64(max(c.ConstantBytes, 0)) / d.MemoryBandwidth * 1e6
	e.MemoryUS = hbm
	e.combine(d)
	return e
}

// tpuFlops splits the flops of a TPU kernel between the matrix units
// (dots, convolutions) and the vector unit, walking into the fusions a
// TPU fusion nests. A reduce-window counts its reducer once per window
// element it reduces (effectiveWindow: a window spanning a whole dimension
// counts that dimension once, as XLA's TPU backend reduces it).
func tpuFlops(c *Costs, in *hlo.Instruction, depth int) (mxu, vec float64) {
	switch in.Opcode {
	case hlo.OpDot, hlo.OpConvolution, hlo.OpRaggedDot, hlo.OpScaledDot:
		return max(c.Of(in).Flops, 0), 0
	case hlo.OpReduceWindow:
		out := float64(firstArray(&in.Shape).ElementCount())
		return 0, out * float64(max(effectiveWindow(in)-1, 1)) * c.computationFlops(calledComp(in))
	case hlo.OpFusion:
		comp := fusedComputation(in)
		if comp == nil || depth > 16 {
			break
		}
		for _, f := range comp.Instructions {
			a, b := tpuFlops(c, f, depth+1)
			mxu, vec = mxu+a, vec+b
		}
		return mxu, vec
	}
	return 0, max(c.Of(in).Flops, 0)
}

// paddingRatio is an array's tiled size over its unpadded size: the DMAs
// move whole tiles (1 for a shape without tiles or a tuple).
func paddingRatio(s *hlo.Shape) float64 {
	if !s.IsArray() || s.Layout == nil || len(s.Layout.Tiles) == 0 {
		return 1
	}
	padded, err := hlo.PaddedBytes(*s, hlo.SizeOptions{})
	unpadded, err2 := hlo.UnpaddedBytes(*s, hlo.SizeOptions{})
	if err != nil || err2 != nil || unpadded <= 0 {
		return 1
	}
	return float64(padded) / float64(unpadded)
}
