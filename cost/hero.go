package cost

import (
	"slices"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// EmitterKind is the GPU emitter XLA would pick for a fusion
// (HloFusionAnalysis::EmitterFusionKind), decided from the fused
// computation, never from the fusion's kind= attribute.
type EmitterKind int

// The emitter kinds.
const (
	EmitterLoop EmitterKind = iota
	EmitterReduction
	EmitterTranspose
	EmitterConcatenate
	EmitterInputSlices
	EmitterScatter
	EmitterDynamicUpdateSlice
	EmitterCustom
	EmitterTriton
	EmitterCuDNN
	// EmitterLibrary is an unfused dot, convolution or custom call: a
	// library call (cuBLAS, cuDNN) or a custom kernel, not a fusion emitter.
	EmitterLibrary
)

var emitterNames = [...]string{
	EmitterLoop:               "loop",
	EmitterReduction:          "reduction",
	EmitterTranspose:          "transpose",
	EmitterConcatenate:        "concatenate",
	EmitterInputSlices:        "input-slices",
	EmitterScatter:            "scatter",
	EmitterDynamicUpdateSlice: "in-place-dynamic-update-slice",
	EmitterCustom:             "custom",
	EmitterTriton:             "triton",
	EmitterCuDNN:              "cudnn",
	EmitterLibrary:            "library",
}

// String returns the emitter's short name ("loop", "reduction", ...).
func (k EmitterKind) String() string {
	if int(k) < len(emitterNames) {
		return emitterNames[k]
	}
	return "unknown"
}

// ReductionDims is XLA's ReductionDimensions: whether the reduction is a
// row reduction and its [D, H, W] extents, major to minor. For a row
// reduction D is a reduced batch, H kept and W reduced (the minor,
// contiguous dim); for a column reduction D and W are kept and H reduced.
type ReductionDims struct {
	IsRow bool
	Dims  [3]int64
}

// TransposeDesc is a tiled transpose: its hero, the normalized result
// dimensions (3-D, leading 1 for a 2-D transpose) and the permutation
// ({0,2,1} or {2,1,0}; result dim j reads operand dim Permutation[j]).
type TransposeDesc struct {
	Hero        *hlo.Instruction
	Dims        [3]int64
	Permutation [3]int
}

// Tiled-transpose thresholds (xla/service/gpu/ir_emission_utils.h):
// both swapped dims >= 16, or both >= 8 with a product >= 64*128.
const (
	minDimToTransposeTiled   = 16
	minDimToTransposeTiled2  = 8
	minTotalToTransposeTiled = 64 * 128
	warpSize                 = 32
)

// TiledTranspose describes in as a tiled transpose the transpose emitter
// handles, or returns false: in must be a transpose (or a copy that changes
// the layout) whose physical permutation normalizes to {0,2,1} or {2,1,0}
// with both swapped dimensions large enough.
func TiledTranspose(in *hlo.Instruction) (TransposeDesc, bool) {
	if (in.Opcode != hlo.OpTranspose && in.Opcode != hlo.OpCopy) || len(in.Operands) != 1 || !in.Shape.IsArray() {
		return TransposeDesc{}, false
	}
	perm, sizes := normalizedTranspose(in)
	var d TransposeDesc
	switch {
	case slices.Equal(perm, []int{1, 0}):
		d = TransposeDesc{Hero: in, Dims: [3]int64{1, sizes[0], sizes[1]}, Permutation: [3]int{0, 2, 1}}
	case slices.Equal(perm, []int{0, 2, 1}):
		d = TransposeDesc{Hero: in, Dims: [3]int64{sizes[0], sizes[1], sizes[2]}, Permutation: [3]int{0, 2, 1}}
	case slices.Equal(perm, []int{2, 1, 0}):
		d = TransposeDesc{Hero: in, Dims: [3]int64{sizes[0], sizes[1], sizes[2]}, Permutation: [3]int{2, 1, 0}}
	default:
		return TransposeDesc{}, false
	}
	a, b := d.Dims[1], d.Dims[2]
	if d.Permutation[0] == 2 {
		a = d.Dims[0]
	}
	if (a >= minDimToTransposeTiled && b >= minDimToTransposeTiled) ||
		(a >= minDimToTransposeTiled2 && b >= minDimToTransposeTiled2 && a*b >= minTotalToTransposeTiled) {
		return d, true
	}
	return TransposeDesc{}, false
}

// keptAndReduced splits the dims of s, the operand of reduce, into those
// it keeps and those it reduces, each in increasing order.
func keptAndReduced(reduce *hlo.Instruction, s *hlo.Shape) (keep, reduced []int64) {
	for d := range int64(len(s.Dims)) {
		if slices.Contains(reduce.Typed.Dimensions, d) {
			reduced = append(reduced, d)
		} else {
			keep = append(keep, d)
		}
	}
	return keep, reduced
}

// dimsConsecutive reports whether the dims occupy consecutive positions in
// the layout's minor_to_major order (XLA's LayoutUtil::AreDimensionsConsecutive).
func dimsConsecutive(s *hlo.Shape, dims []int64) bool {
	m2m := s.MinorToMajor()
	var pos []int
	for i, d := range m2m {
		if slices.Contains(dims, d) {
			pos = append(pos, i)
		}
	}
	for i := 1; i < len(pos); i++ {
		if pos[i] != pos[i-1]+1 {
			return false
		}
	}
	return true
}

// partitionByMiddle splits s physically into (major, middle, minor)
// element products, where middle are the given dims (consecutive in the
// layout).
func partitionByMiddle(s *hlo.Shape, middle []int64) [3]int64 {
	out := [3]int64{1, 1, 1}
	m2m := s.MinorToMajor()
	part := 2
	for _, d := range m2m {
		in := slices.Contains(middle, d)
		if in {
			part = 1
		} else if part == 1 {
			part = 0
		}
		out[part] *= s.Dims[d]
	}
	return out
}

// ReductionKind classifies a reduce instruction as XLA's
// GetReductionKindAndContiguousComponents does
// (xla/service/gpu/reduction_utils.cc).
func ReductionKind(reduce *hlo.Instruction) ReductionDims {
	in := &reduce.Operands[0].Shape
	keep, reduced := keptAndReduced(reduce, in)
	if len(keep) == 0 {
		return ReductionDims{IsRow: true, Dims: [3]int64{1, 1, in.ElementCount()}}
	}
	if dimsConsecutive(in, keep) {
		p := partitionByMiddle(in, keep)
		if p[1] == 1 {
			return ReductionDims{IsRow: true, Dims: [3]int64{1, 1, p[0] * p[2]}}
		}
		if p[2] == 1 {
			return ReductionDims{IsRow: false, Dims: [3]int64{1, p[0], p[1]}}
		}
		return ReductionDims{IsRow: true, Dims: p}
	}
	p := partitionByMiddle(in, reduced)
	if p[2] == 1 {
		return ReductionDims{IsRow: true, Dims: [3]int64{1, p[0], p[1]}}
	}
	return ReductionDims{IsRow: false, Dims: p}
}

// fasterThanElemental is XLA's IsUnnestedReductionFasterThanElemental.
func (r ReductionDims) fasterThanElemental() bool {
	if r.IsRow {
		w := r.Dims[2]
		return w >= warpSize || warpSize%w == 0
	}
	h, w := r.Dims[1], r.Dims[2]
	switch {
	case h < warpSize:
		return false
	case h < 2*warpSize && w < warpSize:
		return false
	case h < 4*warpSize && w < 8:
		return false
	case h < 8*warpSize && w < 3:
		return false
	}
	return true
}

// raceFree is XLA's ReductionIsRaceFree: row W <= 1024*16 and D <= 8;
// column H <= warp*128.
func (r ReductionDims) raceFree() bool {
	if r.IsRow {
		return r.Dims[2] <= 1024*16 && r.Dims[0] <= 8
	}
	return r.Dims[1] <= warpSize*128
}

// IsContiguousReduction is XLA's IsReductionFromOrToContiguousDimensions: a
// reduce whose kept or reduced dims are consecutive in the layout and that
// the reduction emitter handles faster than the loop emitter.
func IsContiguousReduction(in *hlo.Instruction) bool {
	if in.Opcode != hlo.OpReduce || len(in.Operands) < 2 {
		return false
	}
	op := &in.Operands[0].Shape
	if !op.IsArray() {
		return false
	}
	keep, reduced := keptAndReduced(in, op)
	if len(reduced) == 0 {
		return false
	}
	if !dimsConsecutive(op, keep) && !dimsConsecutive(op, reduced) {
		return false
	}
	return ReductionKind(in).fasterThanElemental()
}

// isRealReductionHero is XLA's IsRealReductionHero: a contiguous reduction
// that is the root itself or race free.
func isRealReductionHero(root, hero *hlo.Instruction) bool {
	if !IsContiguousReduction(hero) {
		return false
	}
	return root == hero || ReductionKind(hero).raceFree()
}

// FusionRoots returns the outputs of a fused computation: the root, or the
// operands of a root tuple.
func FusionRoots(c *hlo.Computation) []*hlo.Instruction {
	if c.Root == nil {
		return nil
	}
	if c.Root.Opcode == hlo.OpTuple {
		return slices.Clone(c.Root.Operands)
	}
	return []*hlo.Instruction{c.Root}
}

// FindHero is XLA's FindNonTrivialHero for a fusion root: walk up through
// single-operand intermediate ops; then look (producers of the walked-to
// instruction, breadth first) for exactly one tiled transpose, then exactly
// one concatenate, reached through intermediate ops of up to 3 operands
// and with only intermediate ops among its transitive users; else the
// reduce reached by the walk, else the root itself.
func FindHero(root *hlo.Instruction, us map[*hlo.Instruction][]*hlo.Instruction) *hlo.Instruction {
	hero := root
	for isIntermediate(hero, 1) && len(hero.Operands) == 1 && hero.Operands[0].Opcode != hlo.OpParameter {
		hero = hero.Operands[0]
	}
	isTranspose := func(in *hlo.Instruction) bool { _, ok := TiledTranspose(in); return ok }
	if t := findUniqueHero(hero, us, isTranspose); t != nil {
		return t
	}
	isConcat := func(in *hlo.Instruction) bool { return in.Opcode == hlo.OpConcatenate }
	if c := findUniqueHero(hero, us, isConcat); c != nil {
		return c
	}
	if hero.Opcode != hlo.OpReduce {
		return root
	}
	return hero
}

func findUniqueHero(start *hlo.Instruction, us map[*hlo.Instruction][]*hlo.Instruction, pred func(*hlo.Instruction) bool) *hlo.Instruction {
	var found *hlo.Instruction
	seen := map[*hlo.Instruction]bool{start: true}
	queue := []*hlo.Instruction{start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if pred(n) {
			if found != nil {
				return nil
			}
			found = n
			continue
		}
		if !isIntermediate(n, 3) {
			continue
		}
		for _, op := range n.Operands {
			if !seen[op] {
				seen[op] = true
				queue = append(queue, op)
			}
		}
	}
	if found == nil {
		return nil
	}
	// No non-trivial op may be reachable from the hero's users.
	seen = map[*hlo.Instruction]bool{}
	queue = slices.Clone(us[found])
	for _, u := range queue {
		seen[u] = true
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n.Opcode != hlo.OpTuple && n.Opcode != hlo.OpParameter && !isIntermediate(n, 3) {
			return nil
		}
		for _, u := range us[n] {
			if !seen[u] {
				seen[u] = true
				queue = append(queue, u)
			}
		}
	}
	return found
}

// FusionAnalysis is what the GPU backend decides about one fusion before
// emitting it: its roots, their heroes and the emitter.
type FusionAnalysis struct {
	// Fusion is the analysed instruction (a fusion, or an unfused
	// instruction analysed as a one-instruction fusion).
	Fusion *hlo.Instruction
	// Fused is the fused computation, nil for an unfused instruction.
	Fused *hlo.Computation
	// Roots are the outputs (the operands of a root tuple) and Heroes
	// their heroes, index for index.
	Roots  []*hlo.Instruction
	Heroes []*hlo.Instruction
	// Emitter is the chosen emitter and Reason the rule that chose it.
	Emitter EmitterKind
	Reason  string
	users   map[*hlo.Instruction][]*hlo.Instruction
	// Reduce is the first real reduction hero and Reduction its
	// classification (EmitterReduction only).
	Reduce    *hlo.Instruction
	Reduction ReductionDims
	// Transpose is the consistent tiled transpose (EmitterTranspose only).
	Transpose TransposeDesc
}

// smallestBits returns the smallest element width among the fusion's
// parameters and root outputs.
func smallestBits(fused *hlo.Computation, roots []*hlo.Instruction) int64 {
	best := int64(1 << 30)
	for _, p := range fused.Params {
		if lo, _ := bitsRange(&p.Shape); lo < best {
			best = lo
		}
	}
	for _, r := range roots {
		if lo, _ := bitsRange(&r.Shape); lo < best {
			best = lo
		}
	}
	return best
}

// fusionKinds are the kinds of a GPU fusion's backend_config that choose
// its emitter, the one a config holds first in the list.
var fusionKinds = []string{"__triton_gemm", "__triton_nested_gemm_fusion", "__triton", "__cudnn", "__custom_fusion", "__dynamic_memcpy"}

// backendKind returns the "kind" of a fusion's backend_config, if any.
func backendKind(in *hlo.Instruction) string {
	if in.Opcode != hlo.OpFusion {
		return ""
	}
	v, ok := in.Attr("backend_config")
	if !ok {
		return ""
	}
	return kindIn(v)
}

// kindIn is the first of fusionKinds that the backend config v holds
// (strings.Contains), found in one pass over its "__".
func kindIn(v string) string {
	found := 0
	for i := strings.Index(v, "__"); i >= 0; {
		for k, kind := range fusionKinds {
			if strings.HasPrefix(v[i:], kind) {
				found |= 1 << k
			}
		}
		j := strings.Index(v[i+1:], "__")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	for k, kind := range fusionKinds {
		if found&(1<<k) != 0 {
			return kind
		}
	}
	return ""
}

// AnalyzeFusion picks the emitter of a fusion instruction following XLA's
// HloFusionAnalysis::GetEmitterFusionKind
// (xla/service/gpu/hlo_fusion_analysis.cc). A non-fusion instruction is
// analysed as if it were the root of a single-instruction fusion.
func AnalyzeFusion(fusion *hlo.Instruction) *FusionAnalysis { return analyzeReusing(fusion, nil) }

// analyzeReusing is AnalyzeFusion, an unfused instruction's analysis made
// in single when it is not nil (the analysis is then the caller's until
// it analyses the next with single): the cost passes analyse every
// kernel, most of them unfused, more than once.
func analyzeReusing(fusion *hlo.Instruction, single *singleAnalysis) *FusionAnalysis {
	fused := fusedComputation(fusion)
	if fused == nil {
		if single == nil {
			single = new(singleAnalysis)
		}
		return single.analyze(fusion)
	}
	a := &FusionAnalysis{Fusion: fusion, Fused: fused, users: users(fused)}
	a.Roots = FusionRoots(fused)
	for _, r := range a.Roots {
		a.Heroes = append(a.Heroes, FindHero(r, a.users))
	}
	a.Emitter, a.Reason = a.pickEmitter()
	return a
}

// singleAnalysis is the analysis of an unfused instruction and its one
// root.
type singleAnalysis struct {
	a   FusionAnalysis
	one [1]*hlo.Instruction
}

// analyze sets b to the analysis of in and returns it.
func (b *singleAnalysis) analyze(in *hlo.Instruction) *FusionAnalysis {
	*b = singleAnalysis{one: [1]*hlo.Instruction{in}}
	a := &b.a
	a.Fusion, a.Roots, a.Heroes = in, b.one[:], b.one[:]
	if reason := unfusedLibraryCall(in.Opcode); reason != "" {
		a.Emitter, a.Reason = EmitterLibrary, reason
		return a
	}
	a.Emitter, a.Reason = a.pickEmitter()
	return a
}

// unfusedLibraryCall is the reason an unfused op runs as a library call,
// "" when it does not.
func unfusedLibraryCall(op hlo.Opcode) string {
	switch op {
	case hlo.OpDot:
		return string("unfused " + hlo.OpDot)
	case hlo.OpConvolution:
		return string("unfused " + hlo.OpConvolution)
	case hlo.OpCustomCall:
		return string("unfused " + hlo.OpCustomCall)
	case hlo.OpFft:
		return string("unfused " + hlo.OpFft)
	case hlo.OpCholesky:
		return string("unfused " + hlo.OpCholesky)
	case hlo.OpTriangularSolve:
		return string("unfused " + hlo.OpTriangularSolve)
	}
	return ""
}

func (a *FusionAnalysis) pickEmitter() (EmitterKind, string) {
	switch kind := backendKind(a.Fusion); kind {
	case "__triton_gemm", "__triton_nested_gemm_fusion", "__triton":
		return EmitterTriton, "backend_config kind " + kind
	case "__cudnn":
		return EmitterCuDNN, "backend_config kind __cudnn"
	case "__custom_fusion", "__dynamic_memcpy":
		return EmitterCustom, "backend_config kind " + kind
	}
	if a.Fused != nil && smallestBits(a.Fused, a.Roots) < 8 {
		if len(a.Roots) > 1 && a.allNonStridedSlices() {
			return EmitterInputSlices, "sub-byte type; roots are non-strided slices"
		}
		return EmitterLoop, "sub-byte input or output type"
	}
	for i, r := range a.Roots {
		if isRealReductionHero(r, a.Heroes[i]) {
			first := a.Heroes[i]
			kind := ReductionKind(first)
			ok := true
			for j, r2 := range a.Roots {
				if a.Heroes[j] == first {
					continue
				}
				if !isRealReductionHero(r2, a.Heroes[j]) {
					if elementsRecursive(&r2.Shape) != first.Operands[0].Shape.ElementCount() {
						ok = false
						break
					}
				} else if ReductionKind(a.Heroes[j]) != kind {
					ok = false
					break
				}
			}
			if ok {
				a.Reduce, a.Reduction = first, kind
				kindName := "column"
				if kind.IsRow {
					kindName = "row"
				}
				return EmitterReduction, kindName + " reduction hero " + first.Name
			}
			break
		}
	}
	if t, ok := a.consistentTranspose(); ok && t.Permutation[2] != 2 {
		a.Transpose = t
		return EmitterTranspose, "tiled transpose hero " + t.Hero.Name
	}
	if len(a.Roots) > 1 {
		if a.allNonStridedSlices() {
			return EmitterInputSlices, "roots are non-strided slices"
		}
		return EmitterLoop, "multi-output fusion"
	}
	root := a.Roots[0]
	if root.Opcode == hlo.OpScatter {
		return EmitterScatter, "scatter root"
	}
	if h := a.Heroes[0]; h.Opcode == hlo.OpConcatenate && len(h.Operands) <= 4 && !a.rootIsTuple() {
		return EmitterConcatenate, "concatenate hero " + h.Name
	}
	if a.Fused != nil && a.allInPlaceDUS() {
		return EmitterDynamicUpdateSlice, "dynamic-update-slice root"
	}
	return EmitterLoop, "elementwise/loop"
}

func (a *FusionAnalysis) rootIsTuple() bool {
	return a.Fused != nil && a.Fused.Root.Opcode == hlo.OpTuple
}

func (a *FusionAnalysis) allNonStridedSlices() bool {
	for _, r := range a.Roots {
		if r.Opcode != hlo.OpSlice {
			return false
		}
		for _, s := range r.Typed.Slice {
			if s.Stride != 1 {
				return false
			}
		}
	}
	return true
}

// allInPlaceDUS reports whether every root is a dynamic-update-slice
// (possibly under bitcasts) whose operand 0 is a fusion parameter.
func (a *FusionAnalysis) allInPlaceDUS() bool {
	for _, r := range a.Roots {
		for r.Opcode == hlo.OpBitcast {
			r = r.Operands[0]
		}
		if r.Opcode != hlo.OpDynamicUpdateSlice {
			return false
		}
		p := r.Operands[0]
		for p.Opcode == hlo.OpBitcast {
			p = p.Operands[0]
		}
		if p.Opcode != hlo.OpParameter {
			return false
		}
	}
	return true
}

// consistentTranspose reports a tiled transpose shared by all roots: every
// hero that is a tiled transpose has the same normalized dims and
// permutation, and every other root has as many elements as the
// transpose's result or operand.
func (a *FusionAnalysis) consistentTranspose() (TransposeDesc, bool) {
	var first TransposeDesc
	found := false
	for _, h := range a.Heroes {
		if t, ok := TiledTranspose(h); ok {
			if !found {
				first, found = t, true
			} else if t.Dims != first.Dims || t.Permutation != first.Permutation {
				return TransposeDesc{}, false
			}
		}
	}
	if !found {
		return TransposeDesc{}, false
	}
	n := first.Hero.Shape.ElementCount()
	for i, h := range a.Heroes {
		if _, ok := TiledTranspose(h); ok {
			continue
		}
		if a.Roots[i].Shape.ElementCount() != n {
			return TransposeDesc{}, false
		}
	}
	return first, true
}
