package cost

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/indexing"
)

// CoalescingMode selects how reads are judged.
type CoalescingMode int

const (
	// Heuristic is XLA's IsReadCoalescedHeuristic: one verdict for the
	// whole fusion from minor-dimension transposes (the mode the GPU
	// performance model uses).
	Heuristic CoalescingMode = iota
	// Indexing composes thread-id -> output -> operand -> physical offset
	// maps and samples one warp (CoalescingAnalysis with
	// use_heuristic=false). Where no thread-id maps are available for the
	// fusion's emitter it falls back to Heuristic, as XLA does.
	Indexing
)

// String returns "heuristic" or "indexing".
func (m CoalescingMode) String() string {
	if m == Indexing {
		return "indexing"
	}
	return "heuristic"
}

// OperandCoalescing is the verdict for one operand of a fusion.
type OperandCoalescing struct {
	Operand   int    `json:"operand"`
	Coalesced bool   `json:"coalesced"`
	Reason    string `json:"reason"`
}

// firstNonTrivial returns the most-minor dimension of size > 1 in s's
// layout, or -1.
func firstNonTrivial(s *hlo.Shape) int64 {
	for _, d := range s.MinorToMajor() {
		if s.Dims[d] > 1 {
			return d
		}
	}
	return -1
}

// TransposesMinorDimension is XLA's TransposesMinorDimension
// (xla/service/gpu/gpu_fusible.cc, newer version): a fusion if any fused
// instruction does; a copy if the most-minor non-trivial dimension differs
// between operand and result layouts; a transpose if the result's
// most-minor non-trivial dimension does not read the operand's most-minor
// non-trivial dimension.
func TransposesMinorDimension(in *hlo.Instruction) bool {
	switch in.Opcode {
	case hlo.OpFusion:
		return anyFused(in, TransposesMinorDimension)
	case hlo.OpCopy:
		if len(in.Operands) != 1 || !in.Shape.IsArray() || in.Operands[0].Shape.Rank() != in.Shape.Rank() {
			return false
		}
		return firstNonTrivial(&in.Operands[0].Shape) != firstNonTrivial(&in.Shape)
	case hlo.OpTranspose:
		if len(in.Operands) != 1 || len(in.Typed.Dimensions) != in.Shape.Rank() {
			return false
		}
		out := firstNonTrivial(&in.Shape)
		if out < 0 {
			return false
		}
		src := in.Typed.Dimensions[out]
		op := &in.Operands[0].Shape
		for _, d := range op.MinorToMajor() {
			if d == src {
				return false
			}
			if op.Dims[d] > 1 {
				return true
			}
		}
	}
	return false
}

// isBroadcastLike walks up single-operand bitcasts and elementwise ops to
// a broadcast or iota.
func isBroadcastLike(in *hlo.Instruction) bool {
	for {
		if in.Opcode == hlo.OpBroadcast || in.Opcode == hlo.OpIota {
			return true
		}
		if len(in.Operands) != 1 {
			return false
		}
		if in.Opcode != hlo.OpBitcast && !in.IsElementwise() {
			return false
		}
		in = in.Operands[0]
	}
}

// badTranspose returns the first (fused) instruction that transposes its
// minor dimension and whose operand is not a broadcast or iota.
func badTranspose(in *hlo.Instruction) *hlo.Instruction {
	bad := func(f *hlo.Instruction) bool {
		return TransposesMinorDimension(f) && len(f.Operands) > 0 && !isBroadcastLike(f.Operands[0])
	}
	if c := fusedComputation(in); c != nil {
		if i := slices.IndexFunc(c.Instructions, bad); i >= 0 {
			return c.Instructions[i]
		}
		return nil
	}
	if bad(in) {
		return in
	}
	return nil
}

// HeuristicCoalesced is XLA's IsReadCoalescedHeuristic for a producer and
// an optional consumer (nil) fused under emitter kind: not coalesced if
// (outside the transpose emitter, which goes through shared memory) either
// transposes its minor dimension other than of a broadcast/iota, or if both
// are reduction heroes fused by the reduction emitter; else coalesced.
func HeuristicCoalesced(kind EmitterKind, producer, consumer *hlo.Instruction) (bool, string) {
	if kind != EmitterTranspose {
		for _, in := range []*hlo.Instruction{producer, consumer} {
			if in == nil {
				continue
			}
			if t := badTranspose(in); t != nil {
				return false, fmt.Sprintf("heuristic: %s transposes the minor dimension", t.Name)
			}
		}
	}
	if kind == EmitterReduction && consumer != nil && isReductionHeroInstr(producer) && isReductionHeroInstr(consumer) {
		return false, "heuristic: fusing two row reductions breaks coalescing"
	}
	if kind == EmitterTranspose {
		return true, "heuristic: transpose emitter reads through shared memory"
	}
	return true, "heuristic: no minor-dimension transpose"
}

// isReductionHeroInstr is XLA's IsInputFusibleReduction for an unfused
// instruction or a fusion: some root's hero is a real reduction.
func isReductionHeroInstr(in *hlo.Instruction) bool {
	a := AnalyzeFusion(in)
	for i, r := range a.Roots {
		if isRealReductionHero(r, a.Heroes[i]) {
			return true
		}
	}
	return false
}

// Coalescing returns the verdict for every operand of the analysed fusion
// (or unfused instruction) on device d. In Heuristic mode every operand
// gets the fusion-wide verdict. In Indexing mode the emitter's thread-id
// map is composed with each operand's indexing and layout and one warp is
// sampled (IsIndexingCoalesced); rank-0 and unread operands are coalesced.
func (a *FusionAnalysis) Coalescing(mode CoalescingMode, d *Device) []OperandCoalescing {
	return a.coalescing(mode, d, nil, nil)
}

// VerdictCache memoizes indexing-based verdicts, which depend only on the
// emitter's configuration and the shapes and layouts involved; kernels of
// one model repeat them. It is safe for concurrent use: goroutines that
// miss the same entry at once both compute it, to equal values.
type VerdictCache struct {
	mu      sync.Mutex // guards the maps, not the computations
	m       map[string]OperandCoalescing
	threads map[string]*indexing.IndexingMap
	whole   map[string][]OperandCoalescing
	// logical holds, by thread map (each cached thread map is built for
	// one indexed shape), the thread -> logical index map.
	logical map[*indexing.IndexingMap]logicalMap
}

// logicalMap is a thread -> logical index map, or the error building it.
type logicalMap struct {
	m   *indexing.IndexingMap
	err error
}

// NewVerdictCache returns an empty cache.
func NewVerdictCache() *VerdictCache {
	return &VerdictCache{
		m:       map[string]OperandCoalescing{},
		threads: map[string]*indexing.IndexingMap{},
		whole:   map[string][]OperandCoalescing{},
		logical: map[*indexing.IndexingMap]logicalMap{},
	}
}

// CoalescingCached is Coalescing with verdicts memoized in cache (nil for
// none).
func (a *FusionAnalysis) CoalescingCached(mode CoalescingMode, d *Device, cache *VerdictCache) []OperandCoalescing {
	return slices.Clone(a.coalescingShared(mode, d, cache))
}

// coalescingShared is CoalescingCached, its verdicts the cache's own when
// it had them (shared by every kernel of one signature: the caller must
// not change them).
func (a *FusionAnalysis) coalescingShared(mode CoalescingMode, d *Device, cache *VerdictCache) []OperandCoalescing {
	// An unfused instruction's verdicts follow from its signature alone.
	if cache != nil && a.Fused == nil && mode == Indexing {
		var buf [256]byte
		var sig []byte
		key := appendElementwiseKey(buf[:0], a, d)
		if key == nil {
			key = appendSignature(buf[:0], a.Fusion)
			sig = key
		}
		cache.mu.Lock()
		v, ok := cache.whole[string(key)]
		cache.mu.Unlock()
		if ok {
			return v
		}
		out := a.coalescing(mode, d, cache, sig)
		cache.mu.Lock()
		cache.whole[string(key)] = out
		cache.mu.Unlock()
		return out
	}
	return a.coalescing(mode, d, cache, nil)
}

// coalescing computes the verdicts; sig is the signature of an unfused
// instruction when the caller has it (nil otherwise).
func (a *FusionAnalysis) coalescing(mode CoalescingMode, d *Device, cache *VerdictCache, sig []byte) []OperandCoalescing {
	ok, why := HeuristicCoalesced(a.Emitter, a.Fusion, nil)
	out := make([]OperandCoalescing, len(a.Fusion.Operands))
	for i := range out {
		out[i] = OperandCoalescing{Operand: i, Coalesced: ok, Reason: why}
	}
	if mode != Indexing || d == nil || !d.IsGPU() {
		return out
	}
	tm := &threadMapper{a: a, d: d, cache: cache}
	if cache != nil {
		tm.keyBase = a.cacheKeyBase(d)
	}
	lazyMap := tm.get
	switch a.Emitter {
	case EmitterLoop, EmitterReduction, EmitterTranspose:
		tm.has = true
	}
	if !tm.has {
		for i := range out {
			out[i].Reason += " (no thread-id indexing for the " + a.Emitter.String() + " emitter: heuristic fallback)"
		}
		return out
	}
	froms, fromShape := a.indexedFrom()
	tm.fromShape = fromShape
	ident, other, mismatch := reachOperands(froms, fromShape, a.operandLeaves())
	for k := range out {
		op := &a.Fusion.Operands[k].Shape
		switch {
		case op.IsArray() && op.Rank() == 0:
			out[k] = OperandCoalescing{Operand: k, Coalesced: true, Reason: "scalar operand"}
			continue
		case mismatch[k]:
			out[k].Reason = "read by a root whose shape differs from the indexed one: " + why
			continue
		case len(ident[k]) == 0 && len(other[k]) == 0:
			out[k] = OperandCoalescing{Operand: k, Coalesced: true, Reason: "not read through the hero's indexing (epilogue or unused)"}
			continue
		}
		if len(ident[k]) > 0 {
			out[k] = a.identityVerdict(k, lazyMap, fromShape, op, d, cache, tm.keyBase)
			if !out[k].Coalesced {
				continue
			}
		}
		if len(other[k]) > 0 {
			var key []byte
			if cache != nil && a.Fused == nil {
				// An unfused instruction's maps follow from its opcode,
				// attributes and shapes.
				if sig == nil {
					sig = appendSignature(nil, a.Fusion)
				}
				key = append(appendInts(slices.Clip(tm.keyBase), -3, int64(k)), sig...)
				cache.mu.Lock()
				v, ok := cache.m[string(key)]
				cache.mu.Unlock()
				if ok {
					out[k] = v
					continue
				}
			}
			mm, err := lazyMap()
			if err != nil {
				out[k] = OperandCoalescing{Operand: k, Coalesced: false, Reason: err.Error()}
				continue
			}
			out[k] = a.indexedVerdict(k, threadToLogical(mm, fromShape, cache), other[k])
			if key != nil {
				cache.mu.Lock()
				cache.m[string(key)] = out[k]
				cache.mu.Unlock()
			}
		}
	}
	return out
}

// cacheKeyBase is the part of a VerdictCache key that the launch and the
// hero give.
func (a *FusionAnalysis) cacheKeyBase(d *Device) []byte {
	l := a.Launch(d)
	k := appendInts(make([]byte, 0, 128), int64(a.Emitter), l.Blocks, l.ThreadsPerBlock, l.Unroll, l.Vector)
	k = appendInts(k, int64(len(l.Note)))
	k = append(k, l.Note...)
	k = appendInts(k, a.Reduction.Dims[:]...)
	k = appendInts(k, a.Transpose.Dims[:]...)
	return appendInts(k, int64(a.Transpose.Permutation[0]), int64(a.Transpose.Permutation[1]))
}

// threadMapper builds a fusion's first-warp thread map once, on first use,
// through the VerdictCache when there is one.
type threadMapper struct {
	a         *FusionAnalysis
	d         *Device
	cache     *VerdictCache
	keyBase   []byte
	fromShape *hlo.Shape
	m         *indexing.IndexingMap
	has       bool
	err       error
}

func (t *threadMapper) get() (*indexing.IndexingMap, error) {
	if t.m != nil || t.err != nil {
		return t.m, t.err
	}
	var tkey []byte
	if t.cache != nil {
		tkey = appendInts(appendInts(appendInts(slices.Clip(t.keyBase), -4), t.fromShape.Dims...), t.fromShape.MinorToMajor()...)
		t.cache.mu.Lock()
		c, ok := t.cache.threads[string(tkey)]
		t.cache.mu.Unlock()
		if ok {
			t.m = c
			return t.m, nil
		}
	}
	t.m, t.has, t.err = t.a.ThreadMap(t.d)
	if t.err == nil && t.m != nil {
		t.m, t.err = firstWarp(t.m)
	}
	if t.cache != nil && t.err == nil && t.m != nil {
		t.cache.mu.Lock()
		t.cache.threads[string(tkey)] = t.m
		t.cache.mu.Unlock()
	}
	return t.m, t.err
}

// indexedFrom returns the instructions the thread map indexes (the roots
// of a loop fusion; the hero's inputs and the side outputs otherwise) and
// the shape whose physical offsets it yields.
func (a *FusionAnalysis) indexedFrom() ([]*hlo.Instruction, *hlo.Shape) {
	if a.Emitter == EmitterLoop {
		return slices.Clone(a.Roots), firstArray(&a.Roots[0].Shape)
	}
	hero := a.Reduce
	if a.Emitter == EmitterTranspose {
		hero = a.Transpose.Hero
	}
	n := len(hero.Operands)
	if hero.Opcode == hlo.OpReduce {
		n /= 2
	}
	froms := slices.Clone(hero.Operands[:n])
	for i, r := range a.Roots {
		if a.Heroes[i] != a.Reduce && a.Heroes[i] != a.Transpose.Hero {
			froms = append(froms, r) // side outputs follow the hero's input indexing
		}
	}
	return froms, &hero.Operands[0].Shape
}

// operandLeaves maps each fused parameter (or unfused operand) to the
// fusion operands it is.
func (a *FusionAnalysis) operandLeaves() map[*hlo.Instruction][]int {
	leaves := map[*hlo.Instruction][]int{}
	if a.Fused != nil {
		for k, p := range a.Fused.Params {
			if p != nil {
				leaves[p] = append(leaves[p], k)
			}
		}
		return leaves
	}
	for k, op := range a.Fusion.Operands {
		leaves[op] = append(leaves[op], k)
	}
	return leaves
}

// reachOperands returns, per fusion operand, the instructions of froms that
// read it elementwise (ident) or otherwise (other), and the operands read
// by one whose shape differs from fromShape (mismatch).
func reachOperands(froms []*hlo.Instruction, fromShape *hlo.Shape, leaves map[*hlo.Instruction][]int) (ident, other map[int][]*hlo.Instruction, mismatch map[int]bool) {
	ident, other, mismatch = map[int][]*hlo.Instruction{}, map[int][]*hlo.Instruction{}, map[int]bool{}
	for _, f := range froms {
		if fs := firstArray(&f.Shape); !fs.IsArray() || !equalDims(fs, fromShape) {
			for _, ks := range leavesBelow(f, leaves) {
				mismatch[ks] = true
			}
			continue
		}
		reach(f, f, true, leaves, ident, other, map[reachKey]bool{})
	}
	return ident, other, mismatch
}

// threadToLogical returns the map from the thread ids of thread map m (to
// the linear offset of fromShape) to the logical index of fromShape,
// memoized in cache (nil for none) by m: a cached thread map belongs to
// one shape.
func threadToLogical(m *indexing.IndexingMap, fromShape *hlo.Shape, cache *VerdictCache) logicalMap {
	if cache != nil {
		cache.mu.Lock()
		l, ok := cache.logical[m]
		cache.mu.Unlock()
		if ok {
			return l
		}
	}
	var l logicalMap
	l.m, l.err = indexing.NewIndexingMap(m.Dims(), m.RangeVars(), nil, Delinearize(fromShape, m.Results()[0]), m.Constraints()...)
	if cache != nil {
		cache.mu.Lock()
		cache.logical[m] = l
		cache.mu.Unlock()
	}
	return l
}

// identityVerdict judges operand k when it is read at the same logical
// index as the indexed instruction (elementwise paths only): the thread
// map relinearized for the operand's layout. Verdicts are memoized.
func (a *FusionAnalysis) identityVerdict(k int, lazyMap func() (*indexing.IndexingMap, error), fromShape, op *hlo.Shape, d *Device, cache *VerdictCache, keyBase []byte) OperandCoalescing {
	var key []byte
	if cache != nil {
		if a.Emitter == EmitterLoop && sameStrides(fromShape, op) {
			// The operand is read in the output's own order: one warp's
			// map depends only on the unroll factor, the threads of the
			// warp, the element size and (for tiny outputs) the count.
			l := a.Launch(d)
			n := fromShape.ElementCount()
			key = appendInts([]byte("loop-identity,"), l.Unroll, min(l.ThreadsPerBlock, warpSize), min(n, warpSize*l.Unroll+1), bitsOf(op))
		} else {
			kb := appendInts(slices.Clip(keyBase), -1)
			kb = appendInts(kb, fromShape.Dims...)
			kb = appendInts(kb, fromShape.MinorToMajor()...)
			kb = appendInts(kb, -2)
			kb = appendInts(kb, op.Dims...)
			kb = appendInts(kb, op.MinorToMajor()...)
			key = appendInts(kb, bitsOf(op))
		}
		cache.mu.Lock()
		v, ok := cache.m[string(key)]
		cache.mu.Unlock()
		if ok {
			v.Operand = k
			return v
		}
	}
	m, err := lazyMap()
	if err != nil {
		return OperandCoalescing{Operand: k, Coalesced: false, Reason: err.Error()}
	}
	v := a.judge(k, m, fromShape, op)
	if cache != nil {
		cache.mu.Lock()
		cache.m[string(key)] = v
		cache.mu.Unlock()
	}
	return v
}

// indexedVerdict judges operand k read through non-elementwise ops: the
// thread -> logical index map of each indexed instruction in froms is
// composed with its output-to-input maps down to the operand (indexing's
// per-op maps composed through the fused computation), then with the
// operand's linear offset map, and every resulting map must be coalesced.
func (a *FusionAnalysis) indexedVerdict(k int, logical logicalMap, froms []*hlo.Instruction) OperandCoalescing {
	op := a.Fusion.Operands[k].Shape
	thread, err := logical.m, logical.err
	if err != nil {
		return OperandCoalescing{Operand: k, Coalesced: false, Reason: err.Error()}
	}
	var maps []*indexing.IndexingMap
	for _, f := range froms {
		set, err := a.mapsTo(f, k)
		if err != nil {
			return OperandCoalescing{Operand: k, Coalesced: false, Reason: "indexing: " + err.Error()}
		}
		maps = append(maps, set...)
	}
	if len(maps) == 0 {
		return OperandCoalescing{Operand: k, Coalesced: true, Reason: "not read through the hero's indexing (epilogue or unused)"}
	}
	last := OperandCoalescing{Operand: k, Coalesced: true}
	for _, mp := range maps {
		if mp.IsUndefined() {
			return OperandCoalescing{Operand: k, Coalesced: false, Reason: "indexing: undefined indexing map"}
		}
		composed, err := indexing.Compose(thread, mp)
		if err != nil {
			return OperandCoalescing{Operand: k, Coalesced: false, Reason: "indexing: " + err.Error()}
		}
		phys, err := indexing.ComposePhysical(composed, op, false)
		if err != nil {
			return OperandCoalescing{Operand: k, Coalesced: false, Reason: "indexing: " + err.Error()}
		}
		ok, why := IsIndexingCoalesced(indexing.AssignRTVarsToMidpoint(phys), max(bitsOf(&op)/8, 1))
		last = OperandCoalescing{Operand: k, Coalesced: ok, Reason: "indexing: " + why}
		if !ok {
			return last
		}
	}
	return last
}

// mapsTo returns the output-to-input maps from the indices of f (a root
// of the fusion, an operand of its hero, or the unfused instruction
// itself) to operand k.
func (a *FusionAnalysis) mapsTo(f *hlo.Instruction, k int) ([]*indexing.IndexingMap, error) {
	if a.Fused == nil {
		idx, err := indexing.ComputeOutputToInput(f, 0)
		if err != nil {
			return nil, err
		}
		if k < len(idx.Maps) {
			return idx.Maps[k], nil
		}
		return nil, nil
	}
	if i := slices.Index(a.Roots, f); i >= 0 {
		idx, err := indexing.ComputeFusionOutputToInput(a.Fusion, i)
		if err != nil {
			return nil, err
		}
		if k < len(idx.Maps) {
			return idx.Maps[k], nil
		}
		return nil, nil
	}
	hero := a.Reduce
	if a.Emitter == EmitterTranspose {
		hero = a.Transpose.Hero
	}
	if hero == nil {
		return nil, fmt.Errorf("no hero for %s", f.Name)
	}
	j := slices.Index(hero.Operands, f)
	if j < 0 {
		return nil, fmt.Errorf("%s is not an operand of the hero %s", f.Name, hero.Name)
	}
	idx, err := indexing.ComputeFusedOutputToInputFrom(hero, j)
	if err != nil {
		return nil, err
	}
	if k < len(idx.Maps) {
		return idx.Maps[k], nil
	}
	return nil, nil
}

// firstWarp restricts a thread-id map to the warp IsIndexingCoalesced
// samples (thread x in [0, 31], every other grid dim 0) before it is
// composed with operand maps, so that the compositions stay small; the
// sampling that follows is unchanged by it.
func firstWarp(m *indexing.IndexingMap) (*indexing.IndexingMap, error) {
	dims := m.Dims()
	for i := range dims {
		if i == 0 {
			dims[i].Bounds.Upper = min(dims[i].Bounds.Upper, warpSize-1)
		} else {
			dims[i].Bounds = indexing.Interval{Lower: 0, Upper: 0}
		}
	}
	r, err := indexing.NewIndexingMap(dims, m.RangeVars(), m.RTVars(), m.Results(), m.Constraints()...)
	if err != nil {
		return nil, err
	}
	return r.Simplify(), nil
}

// appendElementwiseKey appends to b the cache key of an unfused elementwise
// loop kernel whose operands share its layout (or are scalars): every
// operand is then read in the output's own order, so the verdicts depend
// only on the unroll factor, the threads of the first warp, the element
// count when it is below one warp's worth, and the operands' element
// sizes. It returns nil when the instruction does not qualify.
func appendElementwiseKey(b []byte, a *FusionAnalysis, d *Device) []byte {
	in := a.Fusion
	if a.Emitter != EmitterLoop || !in.IsElementwise() || !in.Shape.IsArray() {
		return nil
	}
	b = append(b, "ew,"...)
	for _, op := range in.Operands {
		s := &op.Shape
		if !s.IsArray() {
			return nil
		}
		if s.Rank() == 0 {
			b = appendInts(b, -1)
			continue
		}
		if !equalDims(s, &in.Shape) || !sameStrides(s, &in.Shape) {
			return nil
		}
		b = appendInts(b, bitsOf(s))
	}
	l := a.Launch(d)
	n := in.Shape.ElementCount()
	return appendInts(b, -2, l.Unroll, min(l.ThreadsPerBlock, warpSize), min(n, warpSize*l.Unroll+1))
}

// appendSignature appends to b what an unfused instruction's indexing
// depends on: opcode, result and operand shapes and the attributes
// analyses read.
func appendSignature(b []byte, in *hlo.Instruction) []byte {
	b = append(b, in.Opcode...)
	b = appendShape(b, &in.Shape)
	for _, op := range in.Operands {
		b = appendShape(b, &op.Shape)
	}
	for _, at := range in.Attrs {
		switch at.Name {
		case "metadata", "frontend_attributes", "sharding", "backend_config", "statistics":
			continue
		}
		b = append(b, '|')
		b = append(b, at.Name...)
		b = append(b, '=')
		b = append(b, at.Value...)
	}
	return b
}

// appendShape appends a compact encoding of a shape's type, dims and
// minor_to_major (tuples element by element).
func appendShape(b []byte, s *hlo.Shape) []byte {
	b = append(b, '|')
	if s.IsTuple() {
		b = append(b, '(')
		for i := range s.Tuple {
			b = appendShape(b, &s.Tuple[i])
		}
		return append(b, ')')
	}
	b = appendInts(b, int64(s.Type), bitsOf(s))
	b = appendInts(b, s.Dims...)
	b = append(b, ':')
	return appendInts(b, s.MinorToMajor()...)
}

// appendInts appends a compact encoding of vs to b that delimits itself:
// the count, then each value, as varints.
func appendInts(b []byte, vs ...int64) []byte {
	b = binary.AppendUvarint(b, uint64(len(vs)))
	for _, v := range vs {
		b = binary.AppendVarint(b, v)
	}
	return b
}

func equalDims(a, b *hlo.Shape) bool {
	if len(a.Dims) != len(b.Dims) {
		return false
	}
	for i := range a.Dims {
		if a.Dims[i] != b.Dims[i] {
			return false
		}
	}
	return true
}

// judge composes the thread map (offsets of fromShape) with the identity
// logical map to operand k and its layout, and samples one warp.
func (a *FusionAnalysis) judge(k int, m *indexing.IndexingMap, fromShape, op *hlo.Shape) OperandCoalescing {
	mm := m
	if !fromShape.IsArray() || !op.IsArray() {
		// A tuple (a copy of one): no elements to index, as the
		// indexing pass's undefined map for it says.
		return OperandCoalescing{Operand: k, Coalesced: false, Reason: "indexing: undefined indexing map"}
	}
	if fromShape.ElementCount() == 0 || op.ElementCount() == 0 {
		// Nothing is read: no strides to linearize by.
		return OperandCoalescing{Operand: k, Coalesced: true, Reason: "no elements"}
	}
	if !sameStrides(fromShape, op) {
		lin := Linearize(op, Delinearize(fromShape, m.Results()[0]))
		var err error
		mm, err = indexing.NewIndexingMap(m.Dims(), m.RangeVars(), nil, []*indexing.Expr{lin}, m.Constraints()...)
		if err != nil {
			return OperandCoalescing{Operand: k, Coalesced: false, Reason: err.Error()}
		}
	}
	ok, why := IsIndexingCoalesced(mm, max(bitsOf(op)/8, 1))
	return OperandCoalescing{Operand: k, Coalesced: ok, Reason: "indexing: " + why}
}

type reachKey struct {
	in    *hlo.Instruction
	ident bool
}

// reach walks from an indexed instruction down to the leaves, recording
// per leaf whether it is reached through elementwise ops of the same
// dimensions only (identity logical indexing) or through anything else.
func reach(from, n *hlo.Instruction, id bool, leaves map[*hlo.Instruction][]int, ident, other map[int][]*hlo.Instruction, seen map[reachKey]bool) {
	if seen[reachKey{n, id}] {
		return
	}
	seen[reachKey{n, id}] = true
	if ks, ok := leaves[n]; ok {
		for _, k := range ks {
			if id {
				ident[k] = append(ident[k], from)
			} else if !slices.Contains(other[k], from) {
				other[k] = append(other[k], from)
			}
		}
		return
	}
	next := id && n.IsElementwise() && equalDims(&n.Shape, &from.Shape)
	for _, op := range n.Operands {
		reach(from, op, next, leaves, ident, other, seen)
	}
}

// leavesBelow lists the leaf indices reachable from n.
func leavesBelow(n *hlo.Instruction, leaves map[*hlo.Instruction][]int) []int {
	var out []int
	seen := map[*hlo.Instruction]bool{}
	var walk func(*hlo.Instruction)
	walk = func(x *hlo.Instruction) {
		if seen[x] {
			return
		}
		seen[x] = true
		if ks, ok := leaves[x]; ok {
			out = append(out, ks...)
			return
		}
		for _, op := range x.Operands {
			walk(op)
		}
	}
	walk(n)
	return out
}
