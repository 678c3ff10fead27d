package cost

import (
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/layoutassign"
)

// tpuRules are the TPU compiler's cost analysis where it differs from
// HloCostAnalysis.
type tpuRules struct {
	device string
	layout layoutassign.Target
	rates  tpuRates
	// sizes memoizes outBytes: an analysis sizes each instruction's
	// shape as its output and again as every user's operand, and a tiled
	// size costs a walk of the layout's tiles. sizes holds, per
	// computation, its instructions' bytes by position, each with the
	// shape it is the size of (an instruction replaced or moved, in a
	// module edited between two uses of a Model, is sized again); last is
	// lastComp's, the computation sized last. A lookup per change of
	// computation: a map by shape had an entry per instruction, tens of
	// thousands whose lookups miss the caches.
	sizes    map[*hlo.Computation][]sizeMemo
	lastComp *hlo.Computation
	last     []sizeMemo
}

// sizeMemo is the memoized size of a shape (nil: none yet).
type sizeMemo struct {
	shape *hlo.Shape
	bytes float64
}

// tpuRates are the per-second rates the TPU compiler's cost analysis
// divides by for optimal_seconds, measured from its cost_analysis() of the
// probes (testdata/xla-cost/probes/tpu-*): bytes accessed (about 90% of
// the HBM bandwidth), flops (the matrix units' peak) and transcendentals
// (the vector units' lanes per cycle times the clock).
type tpuRates struct {
	bytes, flops, transcendentals float64
}

// tpuRatesByDevice holds the rates of the TPUs probed; another TPU gets
// no optimal_seconds.
var tpuRatesByDevice = map[string]tpuRates{
	"tpu-v5e": {bytes: 7.3766062e11, flops: 1.97e14, transcendentals: 1.536e12},
	"tpu-v6e": {bytes: 1.638e12, flops: 9.18e14, transcendentals: 1.792e12},
	"tpu-v4":  {bytes: 4.9123688e11, flops: 1.37e14, transcendentals: 5.3775e11},
}

func newTPURules(device string) *tpuRules {
	t, err := layoutassign.ParseTarget(device)
	if err != nil || t.Backend != layoutassign.BackendTPU {
		t = layoutassign.TPU()
	}
	return &tpuRules{device: device, layout: t, rates: tpuRatesByDevice[device], sizes: map[*hlo.Computation][]sizeMemo{}}
}

// memo is in's entry in sizes, or nil when in.Index does not point back
// to it or is past what its computation held when first sized (a module
// edited by hand).
func (r *tpuRules) memo(in *hlo.Instruction) *sizeMemo {
	p := in.Parent
	if p == nil || in.Index < 0 || in.Index >= len(p.Instructions) || p.Instructions[in.Index] != in {
		return nil
	}
	if p != r.lastComp {
		b, ok := r.sizes[p]
		if !ok {
			b = make([]sizeMemo, len(p.Instructions))
			r.sizes[p] = b
		}
		r.lastComp, r.last = p, b
	}
	if in.Index >= len(r.last) {
		return nil
	}
	return &r.last[in.Index]
}

// tpuShapeSize is the TPU's shape size: an array's tiled, padded bytes;
// an untiled scalar (a DMA semaphore u32[]{:S(2)}) counts 4096 bytes, as
// the TPU's analysis counts it (measured: every copy-start of the probes).
func tpuShapeSize(s *hlo.Shape) float64 {
	n, err := hlo.PaddedBytes(*s, hlo.SizeOptions{PredBytes: 1})
	if err != nil {
		return shapeSize(s)
	}
	if s.Rank() == 0 && (s.Layout == nil || len(s.Layout.Tiles) == 0) {
		n = 4096
	}
	return float64(n)
}

// tupleTable is a tuple's index table as the TPU's buffer assignment sizes
// it (4 bytes per element, 512-byte units; 32 on v6e).
func (r *tpuRules) tupleTable(n int) int64 { return r.layout.TupleTableBytes(n) }

// seconds is the slowest of v's figures at the device's rates.
func (r *tpuRules) seconds(_ *hlo.Instruction, v *XLACostValues) float64 {
	s := 0.0
	for _, f := range []struct{ n, rate float64 }{{v.BytesAccessed, r.rates.bytes}, {v.Flops, r.rates.flops}, {v.Transcendentals, r.rates.transcendentals}} {
		if f.rate != 0 {
			s = max(s, f.n/f.rate)
		}
	}
	return s
}

// handle applies the TPU's rule for in, when it has one of its own.
func (r *tpuRules) handle(a *xlaAnalysis, in *hlo.Instruction, v *XLACostValues) (done, seconds bool) {
	switch in.Opcode {
	case hlo.OpCustomCall:
		// The TPU knows some of its custom calls: their bytes are the
		// defaults; TopK compares every input element with each of the k
		// it keeps, and so does the TopKBatchMajorSmallK that a small k
		// along the minor dim becomes (seeds 10650 and 1083: s32[257,129]
		// and s32[24,255] with k 2, 66306 and 12240 flops); AllocateBuffer
		// moves nothing. Others are XLA's unknown (-1), as on every
		// backend.
		switch in.CustomCallTarget() {
		case "TopK", "TopKBatchMajorSmallK":
			out := firstArray(&in.Shape)
			if len(in.Operands) > 0 && out.Rank() > 0 {
				v.Flops = float64(in.Operands[0].Shape.ElementCount() * out.Dims[out.Rank()-1])
			}
		case "AssumeGatherIndicesInBound":
		case "AllocateBuffer":
			// An allocation: no figures at all, as for a parameter.
			zeroBytes(v)
			return true, false
		default:
			return false, false
		}
		return true, true
	}
	return false, false
}

// gather reads whole tiles: each gathered window (slice_sizes) is read as
// the tiles of operand 0's layout it touches, so a row of a (8,128)-tiled
// table costs 8 rows (measured: the ground truth's gather_embedding);
// plus the indices, and the output written.
func (r *tpuRules) gather(a *xlaAnalysis, in *hlo.Instruction, v *XLACostValues) {
	if len(in.Operands) < 2 || in.Typed.Gather == nil {
		return
	}
	op := &in.Operands[0].Shape
	win := in.Typed.Gather.SliceSizes
	read := float64(windows(in.Shape.ElementCount(), win)) * r.windowBytes(op, win)
	idx := a.sizeOf(in.Operands[1])
	out := a.sizeOf(in)
	v.OperandBytes[0], v.OperandBytes[1], v.OutputBytes = read, idx, out
	v.BytesAccessed = read + idx + out
}

// scatter reads and writes whole tiles of each scattered operand, one
// window per update (measured: the ground truth's scatter_embedding),
// reads the indices and updates, and applies the combiner once per update
// element; the combiner's per-operand utilizations are multiplied too, as
// the TPU's analysis does.
func (r *tpuRules) scatter(a *xlaAnalysis, in *hlo.Instruction, v *XLACostValues) {
	n := (len(in.Operands) - 1) / 2
	sd := in.Typed.Scatter
	total := 0.0
	for i := range n {
		op, upd := &in.Operands[i].Shape, &in.Operands[n+1+i].Shape
		win := make([]int64, op.Rank())
		if sd != nil {
			k := 0
			for d := range win {
				win[d] = 1
				if slices.Contains(sd.InsertedWindowDims, int64(d)) || slices.Contains(sd.InputBatchingDims, int64(d)) {
					continue
				}
				if k < len(sd.UpdateWindowDims) && int(sd.UpdateWindowDims[k]) < upd.Rank() {
					win[d] = upd.Dims[sd.UpdateWindowDims[k]]
				}
				k++
			}
		}
		b := float64(windows(upd.ElementCount(), win)) * r.windowBytes(op, win)
		v.OperandBytes[i] = b
		u := a.sizeOf(in.Operands[n+1+i])
		v.OperandBytes[n+1+i] = u
		total += 2*b + u
	}
	out := 0.0
	for i := range n {
		out += v.OperandBytes[i]
	}
	v.OutputBytes = out
	idx := a.sizeOf(in.Operands[n])
	v.OperandBytes[n] = idx
	v.BytesAccessed = total + idx
	sub := a.computation(calledComp(in))
	count := float64(in.Operands[n+1].Shape.ElementCount())
	if n > 1 {
		// A variadic scatter (the TPU's two f32 halves of a complex64
		// scatter, a kCustom fusion) applies its combiner once per update
		// window, not per element (libtpu's cost_analysis() of complex64
		// scatter-adds, -muls and -sets of 8 to 256 windows of 8 to 256
		// elements: flops = windows x combiner flops, utilizations too).
		count = float64(windows(in.Operands[n+1].Shape.ElementCount(), updateWindow(in, n)))
	}
	v.scaleComputed(&sub, count)
	for i, u := range sub.OperandUtilization {
		if i < len(v.OperandUtilization) && u != 0 {
			v.OperandUtilization[i] = u * count
		}
	}
}

// windows is how many windows of the given sizes make elems elements.
func windows(elems int64, win []int64) int64 {
	w := int64(1)
	for _, d := range win {
		w *= max(d, 1)
	}
	return elems / w
}

// windowBytes is the bytes of the tiles a window of the given sizes
// touches in an array laid out as s.
func (r *tpuRules) windowBytes(s *hlo.Shape, win []int64) float64 {
	w := *s
	w.Dims = win
	w.Dynamic = nil
	return tpuShapeSize(&w)
}

// updateWindow is the sizes of a scatter's update window dims (of its
// first updates operand; n is the number of scattered operands).
func updateWindow(in *hlo.Instruction, n int) []int64 {
	sd := in.Typed.Scatter
	if sd == nil || n+1 >= len(in.Operands) {
		return nil
	}
	upd := &in.Operands[n+1].Shape
	var win []int64
	for _, d := range sd.UpdateWindowDims {
		if d >= 0 && int(d) < upd.Rank() {
			win = append(win, upd.Dims[d])
		}
	}
	return win
}
