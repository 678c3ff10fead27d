package cost

import (
	"fmt"
	"strconv"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// Collectives and asynchronous copies move data between devices or memory
// spaces rather than compute: their time is the bytes each device sends
// over the link they use.
//
//   - A collective over n devices runs as a ring (as NCCL and the TPU's
//     collectives do for large arrays): an all-reduce sends 2(n-1)/n of
//     its array per device, an all-gather, reduce-scatter or all-to-all
//     (n-1)/n of the gathered (or scattered) array, a collective-permute
//     or collective-broadcast the array once; over the device's
//     interconnect (NVLink, ICI), one direction of it. One device moves
//     nothing between devices: the op copies its array in memory. A GPU
//     pays its launch overhead once.
//   - A copy-start (the start of an asynchronous copy; its copy-done only
//     waits) moves its operand between memory spaces: to or from host
//     memory (S(5)) over the host link, else within the device at its
//     memory bandwidth (read and write).

// isCollective reports whether in moves data between devices.
func isCollective(in *hlo.Instruction) bool {
	switch in.Opcode {
	case hlo.OpAllReduce, hlo.OpAllReduceStart, hlo.OpAllGather, hlo.OpAllGatherStart, hlo.OpReduceScatter,
		hlo.OpAllToAll, hlo.OpRaggedAllToAll, hlo.OpCollectivePermute, hlo.OpCollectivePermuteStart,
		hlo.OpCollectiveBroadcast:
		return true
	}
	return false
}

// participants is the number of devices of a collective's group: its
// first replica group, else all the module's devices.
func participants(in *hlo.Instruction, devices int64) int64 {
	if g := in.Typed.ReplicaGroups; len(g) > 0 && len(g[0]) > 0 {
		return int64(len(g[0]))
	}
	return max(devices, 1)
}

// ModuleDevices is the number of devices a module runs on: its header's
// replica_count times num_partitions (each 1 when absent).
func ModuleDevices(m *hlo.Module) int64 {
	n := int64(1)
	for _, k := range []string{"replica_count", "num_partitions"} {
		if v, ok := m.Attr(k); ok {
			if c, err := strconv.ParseInt(v, 10, 64); err == nil && c > 0 {
				n *= c
			}
		}
	}
	return n
}

// collectiveEstimate models a collective (the -start of an asynchronous
// one included).
func (m *Model) collectiveEstimate(in *hlo.Instruction, c *InstructionCost) *Estimate {
	d := &m.Device
	n := participants(in, m.Devices)
	e := &Estimate{Instr: in, Emitter: EmitterLibrary, Unit: UnitCollective, Cost: c, Flops: max(c.Flops, 0),
		Launch: LaunchDims{Blocks: 1, ThreadsPerBlock: 1, Unroll: 1, Vector: 1, Note: "collective"}}
	if !d.IsGPU() {
		e.Emitter = EmitterLoop
	}
	// The array the collective is about: its result (the gathered array
	// of an all-gather), or its operand when larger (a reduce-scatter).
	bytes := arrayBytes(firstArray(&in.Shape))
	for _, op := range in.Operands {
		bytes = max(bytes, arrayBytes(&op.Shape))
	}
	e.BytesOutput = arrayBytes(&in.Shape)
	for k, op := range in.Operands {
		size := arrayBytes(&op.Shape)
		e.Reads = append(e.Reads, OperandRead{Operand: k, Bytes: size, NetBytes: size, Utilization: 1, Coalesced: true, Rate: 1})
		e.BytesRead += size
	}
	link := d.InterconnectBandwidth
	var sent float64
	switch {
	case n <= 1 || link <= 0:
		// One device: a copy in memory.
		e.MemoryUS = float64(e.BytesRead+e.BytesOutput) / d.MemoryBandwidth * 1e6
		e.Note = "one device: a copy in memory"
	default:
		frac := float64(n-1) / float64(n)
		switch in.Opcode {
		case hlo.OpAllReduce, hlo.OpAllReduceStart:
			sent = 2 * frac * float64(bytes)
		case hlo.OpCollectivePermute, hlo.OpCollectivePermuteStart, hlo.OpCollectiveBroadcast:
			sent = float64(bytes)
		default:
			sent = frac * float64(bytes)
		}
		e.MemoryUS = sent / link * 1e6
		e.Note = fmt.Sprintf("%d devices: %.4g bytes sent per device over the interconnect", n, sent)
	}
	e.combine(d)
	return e
}

// copyStartEstimate models the transfer of an asynchronous copy.
func (m *Model) copyStartEstimate(in *hlo.Instruction, c *InstructionCost) *Estimate {
	d := &m.Device
	e := &Estimate{Instr: in, Emitter: EmitterLibrary, Unit: UnitDMA, Cost: c,
		Launch: LaunchDims{Blocks: 1, ThreadsPerBlock: 1, Unroll: 1, Vector: 1, Note: "dma"}}
	if !d.IsGPU() {
		e.Emitter = EmitterLoop
	}
	if len(in.Operands) == 0 {
		e.combine(d)
		return e
	}
	src := &in.Operands[0].Shape
	dst := firstArray(&in.Shape)
	size := arrayBytes(src)
	e.Reads = []OperandRead{{Operand: 0, Bytes: size, NetBytes: size, Utilization: 1, Coalesced: true, Rate: 1}}
	e.BytesRead, e.BytesOutput = size, size
	host := memorySpace(src) == hostMemorySpace || memorySpace(dst) == hostMemorySpace
	switch {
	case host && d.HostBandwidth > 0:
		e.MemoryUS = float64(size) / d.HostBandwidth * 1e6
		e.Note = "to or from host memory over the host link"
	case d.IsGPU():
		e.MemoryUS = 2 * float64(size) / d.MemoryBandwidth * 1e6
	default:
		// A TPU's DMA reads the source and writes the destination, on-chip
		// memory counted as the TPU's own cost model counts it.
		e.MemoryUS = float64(size) * (paddingRatio(src) + paddingRatio(dst)) / d.MemoryBandwidth * 1e6
	}
	e.combine(d)
	return e
}

// hostMemorySpace is XLA's memory space of host memory, S(5).
const hostMemorySpace = 5

func memorySpace(s *hlo.Shape) int64 {
	if s.Layout == nil {
		return 0
	}
	return s.Layout.MemorySpace
}
