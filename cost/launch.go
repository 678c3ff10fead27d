package cost

import (
	"github.com/hlo-opt/hlo-opt/hlo"
)

// LaunchDims are the launch dimensions an emitter would use, with the
// per-thread work parameters that shape its thread-id indexing.
type LaunchDims struct {
	Blocks          int64
	ThreadsPerBlock int64
	// Unroll is the loop emitter's unroll factor (elements per thread per
	// loop step), 1 for other emitters.
	Unroll int64
	// Vector is the vector size of the reduction and transpose emitters.
	Vector int64
	// Note names the emitter variant ("multi-row reduction", ...).
	Note string
}

func ceilDiv(a, b int64) int64 {
	if b <= 0 {
		return 0
	}
	q := a / b // not (a+b-1)/b, which overflows for a near 2^63
	if a%b > 0 {
		q++
	}
	return q
}

func roundUp(a, b int64) int64 { return ceilDiv(a, b) * b }

// vectorizationPreventer reports ops that stop the loop emitter from
// unrolling (hlo_fusion_analysis.cc): reduce-window, sort, dot,
// concatenate with more than 10 operands, variadic reduce.
func vectorizationPreventer(c *hlo.Computation) bool {
	if c == nil {
		return false
	}
	for _, in := range c.Instructions {
		switch in.Opcode {
		case hlo.OpReduceWindow, hlo.OpSort, hlo.OpDot:
			return true
		case hlo.OpConcatenate:
			if len(in.Operands) > 10 {
				return true
			}
		case hlo.OpReduce:
			if in.Shape.IsTuple() {
				return true
			}
		}
	}
	return false
}

// bitsRange returns the smallest and largest element widths among the
// given shapes' array leaves.
func bitsRange(shapes ...*hlo.Shape) (lo, hi int64) {
	lo = 1 << 30
	var walk func(s *hlo.Shape)
	walk = func(s *hlo.Shape) {
		if s.IsTuple() {
			for i := range s.Tuple {
				walk(&s.Tuple[i])
			}
			return
		}
		if s.IsArray() {
			b := bitsOf(s)
			lo, hi = min(lo, b), max(hi, b)
		}
	}
	for _, s := range shapes {
		walk(s)
	}
	if hi == 0 {
		lo = 8
	}
	return lo, hi
}

// loopLaunch is the loop emitter's configuration for n output elements
// (ComputeLoopFusionConfig and CalculateLaunchDimensions, newest copy).
func loopLaunch(d *Device, n int64, preventer bool, smallestOutBits int64) LaunchDims {
	if n <= 1 {
		return LaunchDims{Blocks: 1, ThreadsPerBlock: 1, Unroll: 1, Vector: 1, Note: "single thread"}
	}
	u := int64(1)
	if n >= d.ThreadsPerCoreLimit*d.Cores && !preventer {
		switch {
		case n%4 == 0:
			u = 4
		case n%2 == 0:
			u = 2
		}
	}
	if smallestOutBits > 0 && smallestOutBits < 8 {
		u = max(u, ceilDiv(8, smallestOutBits))
	}
	work := ceilDiv(n, u)
	tpb := min(4*d.WarpSize, work)
	return LaunchDims{Blocks: ceilDiv(work, tpb), ThreadsPerBlock: tpb, Unroll: u, Vector: 1, Note: "loop"}
}

// vectorSizeForReduction is GetVectorSizeForMlir.
func vectorSizeForReduction(minor, threads int64, bits int64, complex bool) int64 {
	if minor%2 == 1 || threads*2 > minor || complex || bits >= 64 {
		return 1
	}
	if bits >= 32 {
		return 2
	}
	if threads*4 > minor {
		return 2
	}
	if minor%4 == 0 {
		return 4
	}
	return 2
}

func isPow2(v int64) bool { return v > 0 && v&(v-1) == 0 }

// reductionLaunch is the reduction emitters' configuration (reduction.cc).
func (a *FusionAnalysis) reductionLaunch(d *Device) LaunchDims {
	r := a.Reduction
	D, H, W := r.Dims[0], r.Dims[1], r.Dims[2]
	var shapes []*hlo.Shape
	for _, op := range a.Reduce.Operands {
		shapes = append(shapes, &op.Shape)
	}
	shapes = append(shapes, &a.Reduce.Shape)
	lo, hi := bitsRange(shapes...)
	inBits := bitsOf(&a.Reduce.Operands[0].Shape)
	complex := a.Reduce.Operands[0].Shape.Type.IsComplex()
	warp := d.WarpSize
	if r.IsRow {
		if isPow2(W) {
			v := min(W, max(64/lo, 1))
			if hi >= 32 {
				v = min(v, max(128/hi, 1))
			}
			cfg := func(v int64) (int64, int64, int64) {
				red := max(W/v, 1)
				kept := H
				if H*red > 256 {
					kept = max(256/red, 1)
				}
				return red, kept, D * ceilDiv(H, kept)
			}
			red, kept, blocks := cfg(v)
			for v > 1 && blocks < d.Cores {
				v /= 2
				red, kept, blocks = cfg(v)
			}
			if W <= warp*v {
				return LaunchDims{Blocks: blocks, ThreadsPerBlock: red * kept, Unroll: 1, Vector: v, Note: "multi-row reduction"}
			}
		}
		red := min(1024, roundUp(ceilDiv(W, 32), warp))
		kept := int64(1)
		if red*2 <= 256 {
			kept = H
			if H*red > 256 {
				kept = max(256/red, 1)
			}
		}
		v := vectorSizeForReduction(W, red, inBits, complex)
		tile := min(32/v, ceilDiv(ceilDiv(W, v), red))
		blocks := D * ceilDiv(H, kept) * ceilDiv(W, tile*v*red)
		return LaunchDims{Blocks: blocks, ThreadsPerBlock: red * kept, Unroll: 1, Vector: v, Note: "row reduction"}
	}
	if warp%W == 0 {
		v := vectorSizeForReduction(H*W, 32, inBits, complex)
		return LaunchDims{Blocks: D, ThreadsPerBlock: 128, Unroll: 1, Vector: v, Note: "small column reduction"}
	}
	v := vectorSizeForReduction(W, 32, inBits, complex)
	return LaunchDims{Blocks: D * ceilDiv(W, 32*v), ThreadsPerBlock: 1024, Unroll: 1, Vector: v, Note: "column reduction"}
}

// transposeLaunch is the transpose emitter's configuration: 32-element
// tiles, 8 rows of 32 threads, vectorised when enough blocks remain.
func (a *FusionAnalysis) transposeLaunch(d *Device) LaunchDims {
	t := a.Transpose
	x, y := t.Dims[2], t.Dims[1]
	batch := t.Dims[0]
	if t.Permutation[0] == 2 {
		y, batch = t.Dims[0], t.Dims[1]
	}
	_, hi := bitsRange(&t.Hero.Shape)
	bytes := max(hi/8, 1)
	blocksFor := func(v int64) int64 { return batch * ceilDiv(x, 32*v) * ceilDiv(y, 32*v) }
	for v := 16 / bytes; v >= 2; v /= 2 {
		shm := 32 * 33 * bytes * v * v
		if blocksFor(v)*256 >= v*v*d.Cores*d.ThreadsPerCoreLimit && shm <= d.SharedMemoryPerBlock && x%v == 0 && y%v == 0 {
			return LaunchDims{Blocks: blocksFor(v), ThreadsPerBlock: 256, Unroll: 1, Vector: v, Note: "tiled transpose"}
		}
	}
	return LaunchDims{Blocks: blocksFor(1), ThreadsPerBlock: 256, Unroll: 1, Vector: 1, Note: "tiled transpose"}
}

// Launch returns the launch dimensions of the fusion's emitter on device
// d. Emitters this package does not model (custom, Triton, cuDNN) get
// XLA's fallback: one thread per output element, 128 threads per block.
func (a *FusionAnalysis) Launch(d *Device) LaunchDims {
	if !d.IsGPU() {
		return LaunchDims{Blocks: 1, ThreadsPerBlock: 1, Unroll: 1, Vector: 1, Note: "tpu"}
	}
	rootShape := firstArray(&a.Roots[0].Shape)
	outLo, _ := bitsRange(rootShape)
	switch a.Emitter {
	case EmitterLoop:
		return loopLaunch(d, rootShape.ElementCount(), vectorizationPreventer(a.Fused), outLo)
	case EmitterReduction:
		return a.reductionLaunch(d)
	case EmitterTranspose:
		return a.transposeLaunch(d)
	case EmitterConcatenate:
		n := int64(0)
		for _, op := range a.Heroes[0].Operands {
			n = max(n, op.Shape.ElementCount())
		}
		l := loopLaunch(d, n, false, outLo)
		l.Note = "concatenate (loop over the largest operand)"
		return l
	case EmitterScatter:
		s := a.Roots[0]
		l := loopLaunch(d, s.Operands[len(s.Operands)-1].Shape.ElementCount(), false, 8)
		l.Note = "scatter (loop over the updates)"
		return l
	case EmitterDynamicUpdateSlice:
		r := a.Roots[0]
		for r.Opcode == hlo.OpBitcast {
			r = r.Operands[0]
		}
		l := loopLaunch(d, r.Operands[1].Shape.ElementCount(), false, 8)
		l.Note = "in-place dynamic-update-slice (loop over the update)"
		return l
	case EmitterInputSlices:
		l := loopLaunch(d, a.Roots[0].Operands[0].Shape.ElementCount(), false, 8)
		l.Note = "input slices (loop over the sliced input)"
		return l
	}
	n := elementsRecursive(rootShape)
	tpb := int64(128)
	return LaunchDims{Blocks: max(ceilDiv(n, tpb), 1), ThreadsPerBlock: tpb, Unroll: 1, Vector: 1, Note: "fallback: one thread per output element"}
}
