package cost

import (
	"github.com/hlo-opt/hlo-opt/hlo"
)

// A TPU runs a fusion as one program on its TensorCore: the matrix units
// (MXU) take the dots and convolutions, the vector unit everything else,
// while DMAs stream the operands in from HBM and the result out, tile by
// tile, overlapping the two. There are no GPU emitters, threads or
// coalescing. The model: flops as the TPU's cost_analysis() counts them
// (XLACost), split between the MXU at the
// device's matrix peak for the operand class and the vector unit at its
// peak, transcendentals at the rate the TPU's cost model takes (known for
// the chips xla-cost probed); memory bytes as the TPU's cost analysis
// counts them (tiled, padded sizes), but each operand read at most once
// (the kernel keeps what it reads in VMEM), at the HBM bandwidth; the kernel
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

// tpuEstimate is the roofline of one TPU kernel, from the figures XLA's
// TPU cost analysis gives it (m.xlaV and m.xlaSizes, which estimateKernel
// fills first):
// its flops, transcendentals and the bytes of each operand and of its
// output, as the TPU counts them (tiled, padded sizes).
func (m *Model) tpuEstimate(in *hlo.Instruction) *Estimate {
	d := &m.Device
	x := &m.xlaV
	total := max(x.Flops, 0)
	mxu := min(mxuFlops(in, 0), total)
	vec := total - mxu
	// A custom call XLA cannot cost (-1) moves its operands and output
	// once.
	unknown := x.BytesAccessed < 0
	out := x.OutputBytes
	if unknown {
		out = m.xla.outBytes(in)
	}
	c := &InstructionCost{Flops: total, OutputBytes: int64(max(out, 0)), Operands: make([]OperandCost, len(in.Operands))}
	e := &Estimate{Instr: in, Unit: UnitVector, Cost: c, Flops: total, MatrixUnit: mxu > 0,
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
	if r := tpuRatesByDevice[d.Name].transcendentals; r > 0 && x.Transcendentals > 0 {
		e.ComputeUS += x.Transcendentals / r * 1e6
	}
	outElems := computedElements(in)
	read := 0.0
	e.Reads = make([]OperandRead, 0, len(in.Operands))
	for k := range in.Operands {
		size := int64(m.xlaSizes[k])
		bytes := size
		if !unknown {
			bytes = readBytes(int64(max(at(x.OperandBytes, k), 0)), size, outElems)
		}
		// Reads of data already on chip come from VMEM: memory moves the
		// operand's tiles at most once.
		r := OperandRead{Operand: k, Bytes: bytes, NetBytes: min(size, bytes), Coalesced: true, Rate: 1}
		if size > 0 {
			r.Utilization = float64(bytes) / float64(size)
		}
		c.Operands[k] = OperandCost{Operand: k, Utilization: r.Utilization, BytesAccessed: bytes}
		r.TimeUS = float64(r.NetBytes) / d.MemoryBandwidth * 1e6
		read += float64(r.NetBytes)
		e.BytesRead += bytes
		e.Reads = append(e.Reads, r)
	}
	e.BytesOutput = c.OutputBytes
	// What XLA counts beyond the operands and the output: a fusion's
	// constants.
	if !unknown {
		c.ConstantBytes = max(int64(x.BytesAccessed-x.OutputBytes)-e.BytesRead, 0)
	}
	c.total()
	e.MemoryUS = (read + float64(e.BytesOutput+c.ConstantBytes)) / d.MemoryBandwidth * 1e6
	e.combine(d)
	return e
}

// mxuFlops is the flops of the dots and convolutions of a TPU kernel,
// walking into the fusions a TPU fusion nests.
func mxuFlops(in *hlo.Instruction, depth int) float64 {
	switch in.Opcode {
	case hlo.OpDot, hlo.OpScaledDot, hlo.OpRaggedDot:
		return dotFlops(in)
	case hlo.OpConvolution:
		return convFlops(in)
	case hlo.OpFusion:
		comp := fusedComputation(in)
		if comp == nil || depth > 16 {
			return 0
		}
		f := 0.0
		for _, g := range comp.Instructions {
			f += mxuFlops(g, depth+1)
		}
		return f
	}
	return 0
}

// paddingRatio is an array's tiled size over its unpadded size: the DMAs
// move whole tiles (1 for a shape without tiles or a tuple).
func paddingRatio(s *hlo.Shape) float64 {
	if !s.IsArray() || s.Layout == nil || len(s.Layout.Tiles) == 0 {
		return 1
	}
	padded, err := hlo.PaddedBytes(*s, hlo.SizeOptions{})
	unpadded := ShapeBytes(s)
	if err != nil || unpadded <= 0 {
		return 1
	}
	return float64(padded) / float64(unpadded)
}
