package layoutassign

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/passes"
)

func parse(t *testing.T, src string) *hlo.Module {
	t.Helper()
	m, err := hlo.ParseString(src)
	require.NoError(t, err)
	return m
}

// TestLivenessPeak checks the analysis on a module whose figures are
// known: the dynamic-update-slice writes into the donated parameter (one
// buffer, a parameter allocation that lives out), sum takes over b1's
// buffer (an elementwise op writing over an operand that dies at it), so
// the temporaries peak at b1 and b2 (256 KiB each on the TPU, f32[512,128]
// tiled 8x128); the parameters and constants (512 B scalars on the TPU)
// are live throughout.
func TestLivenessPeak(t *testing.T) {
	m := parse(t, `HloModule live, input_output_alias={ {}: (0, {}, may-alias) }

ENTRY main {
  buf = f32[1024,128] parameter(0)
  i = s32[] parameter(1)
  zero = f32[] constant(0)
  b1 = f32[512,128] broadcast(zero), dimensions={}
  b2 = f32[512,128] broadcast(zero), dimensions={}
  sum = f32[512,128] add(b1, b2)
  z = s32[] constant(0)
  ROOT dus = f32[1024,128] dynamic-update-slice(buf, sum, i, z)
}
`)
	_, err := Assign(m, Options{Target: TPU()})
	require.NoError(t, err)
	r, err := AnalyzeMemory(m, TPU())
	require.NoError(t, err)
	const kib = 1024
	assert.Equal(t, int64(512*kib+512), r.ArgumentBytes)
	assert.Equal(t, int64(512*kib), r.OutputBytes, "the donated parameter is the output")
	assert.Equal(t, int64(512*kib), r.AliasedBytes)
	assert.Equal(t, int64(512*kib), r.TemporaryBytes, "b1 and b2; sum reuses b1")
	assert.Equal(t, int64(1024), r.Stats.ConstantBytes)
	assert.Equal(t, int64(512*kib+512+1024+512*kib), r.PeakBytes)
	assert.Equal(t, "b2", r.PeakAt)
	require.NotEmpty(t, r.LiveAtPeak)
	assert.Equal(t, "buf", r.LiveAtPeak[0].Instruction.Name)
	assert.Equal(t, "parameter, maybe-live-out", r.LiveAtPeak[0].Kind)
	var sum int64
	for i, a := range r.LiveAtPeak {
		sum += a.Cost.Bytes
		if i > 0 {
			assert.GreaterOrEqual(t, r.LiveAtPeak[i-1].Cost.Bytes, a.Cost.Bytes, "largest first")
		}
	}
	assert.Equal(t, r.PeakBytes, sum, "the peak is the allocations live at it")
}

// TestPassInPipeline runs the pass as hlo-opt does: the result is a
// *Result, the IR changed (verified after the pass), and the JSON report
// of an instruction has the documented fields.
func TestPassInPipeline(t *testing.T) {
	m := parse(t, `HloModule p

ENTRY main {
  a = bf16[3,5] parameter(0)
  ROOT n = bf16[3,5] negate(a)
}
`)
	res := runPass(t, m, Options{Target: TPU()})
	require.Len(t, res.Passes, 1)
	r, ok := passes.ResultOf[*Result](res, res.Passes[0])
	require.True(t, ok)
	assert.True(t, r.Assignment.Changed)
	j, ok := r.InstructionReport(m.Entry.Root).(ArrayJSON)
	require.True(t, ok)
	assert.Equal(t, "bf16[3,5]{1,0:T(4,128)(2,1)}", j.Shape)
	assert.Equal(t, int64(4*128*2), j.Bytes)
	assert.Equal(t, int64(30), j.UnpaddedBytes)
	assert.Equal(t, RuleTPUCompact4x128.Name, j.Rule)
	assert.InDelta(t, 1024.0/30.0, j.Expansion, 0.001)
}

// A computation called from two call sites is analysed as XLA's
// FlattenCallGraph leaves it, one copy per call: the parameter of the
// first call does not share a buffer with the result of the second.
func TestMemoryFlattensCallGraph(t *testing.T) {
	m := parse(t, `HloModule m

callee {
  a = f32[1024] parameter(0)
  ROOT n = f32[1024] negate(a)
}

ENTRY main {
  p = f32[1024] parameter(0)
  c1 = f32[1024] call(p), to_apply=callee
  e = f32[1024] exponential(c1)
  c2 = f32[1024] call(e), to_apply=callee
  ROOT out = f32[1024] add(c2, e)
}`)
	r, err := AnalyzeMemory(m, GPU())
	require.NoError(t, err)
	for _, a := range r.LiveAtPeak {
		if a.Instruction.Name == "p" {
			assert.Equal(t, KindParameter, a.Kind)
			assert.Same(t, m.Entry.Params[0], a.Instruction, "allocations name the module's instructions")
		}
	}
	assert.Equal(t, 9, r.Steps, "callee flattened once per call (5 + 2 + 2)")
	assert.Equal(t, int64(4096), r.ArgumentBytes)
	assert.Equal(t, int64(4096), r.OutputBytes)
}

// An async chain whose start binds nothing (its result is ()) gets its
// result at the async-update, from the computation it runs: the output is
// that computation's value, not the start's empty tuple (the SparseCore
// gather offload of XLA's TPU v6e compiles).
func TestAsyncResultBoundAtUpdate(t *testing.T) {
	m := parse(t, `HloModule m, is_scheduled=true

offload {
  t = f32[1024] parameter(0)
  ROOT g = f32[1024] negate(t)
}, execution_thread="sparsecore"

ENTRY main {
  p = f32[1024] parameter(0)
  s = ((), (), s32[]) async-start(), async_execution_thread="sparsecore", calls=offload
  u = ((f32[1024]), f32[1024], s32[]) async-update(s, p)
  d = f32[1024] async-done(u)
  ROOT out = f32[1024] bitcast(d)
}`)
	r, err := AnalyzeMemory(m, GPU())
	require.NoError(t, err)
	assert.Equal(t, int64(4096), r.OutputBytes, "the result bound at the update is the output")
	assert.Equal(t, int64(4096), r.ArgumentBytes)
}

// A suggestion is measured against the array as the module lays it out:
// none when the module's layout is already smaller than the proposal.
func TestSuggestionAgainstModuleLayout(t *testing.T) {
	sh, err := hlo.ParseShape("f32[128,2]{1,0}")
	require.NoError(t, err)
	s, ok := suggestFor(&ArrayCost{Shape: &sh, Bytes: 65536}, TPU())
	require.True(t, ok)
	assert.Equal(t, int64(65536), s.Before)
	assert.Less(t, s.After, s.Before)
	assert.False(t, s.Shape.Equal(sh))
	_, ok = suggestFor(&ArrayCost{Shape: &sh, Bytes: s.After}, TPU())
	assert.False(t, ok, "the module's layout is as small as the proposal")
}

// A tuple copy whose abbreviated shapes read the same names the leaves
// that change layout.
func TestCopiedLeaves(t *testing.T) {
	leaves := func(m2m []string) string {
		var parts []string
		for _, l := range m2m {
			parts = append(parts, "f32[8,8]{"+l+"}")
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	from := strings.Split(strings.Repeat("1,0 ", 12), " ")[:12]
	to := slices.Clone(from)
	to[9], to[11] = "0,1", "0,1"
	c := Copy{From: leaves(from), To: leaves(to)}
	assert.Equal(t, AbbreviateShape(c.From), AbbreviateShape(c.To))
	assert.Equal(t, " (leaves {9} {11} change layout)", copiedLeaves(c))
	to[0] = "0,1" // abbreviated shapes drop the layouts of the elements they show
	assert.Equal(t, " (leaves {0} {9} ... 1 more change layout)", copiedLeaves(Copy{From: leaves(from), To: leaves(to)}))
	assert.Empty(t, copiedLeaves(Copy{From: "f32[8,8]{1,0}", To: "f32[8,8]{0,1}"}), "arrays print whole")
}

// The memory report's invariants, checked over every corpus module (as
// written, and after the whole assignment on the TPU) and over generated
// modules, on the TPU, the GPU and the CPU:
//
//   - the aliased bytes are at most the output and the argument bytes;
//   - each space's peak is the sum of what is live at it, at most what
//     every buffer would take with an allocation of its own, and at least
//     its parameters, constants and outputs;
//   - the temporaries' peak is at most the temp allocation, which holds
//     the heap the best-fit placement needs;
//   - the spaces' stats add up to the module's, the HBM figures are the
//     report's, and XLA's peak is at least the HBM peak;
//   - every allocation holds buffers that never interfere, and is as large
//     as each of them;
//   - both best-fit heaps place temporaries that are live at the same
//     time at disjoint offsets, in a heap at least the temporaries' peak;
//   - every suggestion names a layout other than the array's, measured
//     against the array's size in the module, and saves memory.

func TestMemoryInvariantsCorpus(t *testing.T) {
	for _, cm := range hlotest.CorpusModules(t) {
		for _, tgt := range []Target{TPU(), GPU()} {
			checkMemoryInvariants(t, cm.Name()+"/"+tgt.Backend.String(), cm.Module, tgt)
		}
		if cm.Module.Entry == nil {
			continue // a truncated dump that lost its entry
		}
		m, err := hlo.ParseString(cm.Module.String())
		if err != nil {
			continue // a module that does not reparse is the corpus tests' business
		}
		if _, err := Assign(m, Options{Target: TPU(), Relayout: true}); err != nil {
			continue
		}
		checkMemoryInvariants(t, cm.Name()+"/relayout", m, TPU())
	}
}

// TestMemoryInvariantsTestdata checks the invariants on every module of
// testdata (the ground truth's XLA compiles, testdata/xla-today, the
// passes' inputs), for the TPU and the GPU.
func TestMemoryInvariantsTestdata(t *testing.T) {
	corpus := hlotest.FindCorpus(t)
	n := 0
	for _, f := range hlotest.ModuleFiles(t, "verify") {
		if corpus != "" && strings.HasPrefix(f, corpus) {
			continue // TestMemoryInvariantsCorpus
		}
		for _, cm := range hlotest.ParseModules(t, f) {
			if _, err := AnalyzeMemory(cm.Module, TPU()); err != nil {
				t.Logf("%s#%d: %v (refused: an error, as it should be)", f, cm.Chunk, err)
				continue
			}
			n++
			for _, tgt := range []Target{TPU(), GPU()} {
				checkMemoryInvariants(t, f+"#"+strconv.Itoa(cm.Chunk)+"/"+tgt.Backend.String(), cm.Module, tgt)
			}
		}
	}
	assert.Greater(t, n, 500, "the modules of testdata")
}

func TestMemoryInvariantsGenerated(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 50
	}
	for seed := range n {
		g := &moduleGen{r: rand.New(rand.NewPCG(uint64(seed), 10))}
		src := g.module(seed)
		m, err := hlo.ParseString(src)
		require.NoError(t, err, src)
		for _, tgt := range []Target{TPU(), GPU(), CPU()} {
			if !checkMemoryInvariants(t, fmt.Sprintf("seed %d/%s", seed, tgt.Backend), m, tgt) {
				t.Log(src)
				return
			}
		}
	}
}

// checkMemoryInvariants reports whether every invariant holds.
func checkMemoryInvariants(t *testing.T, name string, m *hlo.Module, tgt Target) bool {
	t.Helper()
	r, err := AnalyzeMemory(m, tgt)
	if !assert.NoError(t, err, name) {
		return false
	}
	ok := true
	check := func(cond bool, format string, args ...any) {
		if !cond {
			ok = false
			t.Errorf("%s: "+format, append([]any{name}, args...)...)
		}
	}
	checkSuggestions(t, name, m, r, check)
	if m.Entry == nil {
		for _, c := range r.Computations {
			check(c.PeakBytes >= c.ArgumentBytes, "%s: peak %d below arguments %d", c.Computation, c.PeakBytes, c.ArgumentBytes)
		}
		return ok
	}
	var sum BufferStats
	for _, sp := range r.Spaces {
		s := sp.Name
		sum.add(sp.Stats)
		check(sp.AliasedBytes <= sp.OutputBytes && sp.AliasedBytes <= sp.ArgumentBytes,
			"%s: aliased %d above output %d or arguments %d", s, sp.AliasedBytes, sp.OutputBytes, sp.ArgumentBytes)
		var live int64
		for _, a := range sp.LiveAtPeak {
			live += a.Cost.Bytes
		}
		check(live == sp.PeakBytes, "%s: live at the peak %d, peak %d", s, live, sp.PeakBytes)
		var most LivePoint
		for _, p := range sp.Timeline {
			check(p.Unpadded <= p.Bytes, "%s: step %d unpadded %d above padded %d", s, p.Step, p.Unpadded, p.Bytes)
			if p.Bytes > most.Bytes {
				most = p
			}
		}
		check(len(sp.Timeline) == 0 || most.Bytes == sp.PeakBytes && most.Step == sp.PeakStep,
			"%s: the timeline's top %d at step %d, the peak %d at step %d", s, most.Bytes, most.Step, sp.PeakBytes, sp.PeakStep)
		checkStepBuffers(sp, len(r.Spaces[0].Timeline), check)
		check(sp.PeakBytes <= sp.WithoutReuseBytes, "%s: peak %d above no-reuse %d", s, sp.PeakBytes, sp.WithoutReuseBytes)
		check(sp.PeakBytes-sp.TemporaryPeakBytes >= sp.ArgumentBytes, "%s: peak %d less temporaries %d below arguments %d",
			s, sp.PeakBytes, sp.TemporaryPeakBytes, sp.ArgumentBytes)
		check(sp.TemporaryPeakBytes <= sp.TemporaryBytes, "%s: temporary peak %d above temp allocation %d", s, sp.TemporaryPeakBytes, sp.TemporaryBytes)
		// No sign for the fragmentation: XLA's is the heap less
		// NoFragmentationStatsHeap's figure, which counts a shared buffer
		// twice, so it is negative when sharing saves more than the
		// best-fit placement wastes (XLA's latency-hiding scheduler
		// clamps it at 0 for that reason).
	}
	check(sum == r.Stats, "spaces' stats %+v, module's %+v", sum, r.Stats)
	hbm := r.Spaces[0]
	check(hbm.Space == 0 && r.PeakBytes == hbm.PeakBytes && r.ArgumentBytes == hbm.ArgumentBytes && r.OutputBytes == hbm.OutputBytes &&
		r.AliasedBytes == hbm.AliasedBytes && r.TemporaryBytes == hbm.TemporaryBytes, "HBM figures differ from the report's")
	if tgt.Backend == BackendCPU {
		var static int64
		for _, sp := range r.Spaces {
			static += sp.PeakBytes - sp.TemporaryPeakBytes
		}
		check(r.XLAPeakBytes == static, "CPU: XLA peak %d, want the peaks less their temporaries, %d", r.XLAPeakBytes, static)
	} else {
		// XLA's peak leaves offloaded contexts out (xlaTempPeak).
		hbmPeak := r.PeakBytes - hbm.TemporaryPeakBytes + hbm.xlaTempPeak
		check(r.XLAPeakBytes >= hbmPeak, "XLA peak %d below HBM peak %d (offloaded contexts aside)", r.XLAPeakBytes, hbmPeak)
	}
	var parts int64
	for _, p := range r.XLAPeakParts() {
		parts += p.Bytes
	}
	check(parts == r.XLAPeakBytes, "XLA peak's parts add up to %d, the peak is %d", parts, r.XLAPeakBytes)
	if ok {
		ok = checkAllocations(t, name, m, tgt, r)
	}
	return ok
}

// checkStepBuffers checks that the buffers live at each step add up to
// the timeline there, padded and unpadded, that those at the peak are
// LiveAtPeak, that an allocation of its own spans the program and a
// temporary's steps lie in it, and that a buffer is not among its own
// aliases.
func checkStepBuffers(sp SpaceReport, steps int, check func(bool, string, ...any)) {
	s := sp.Name
	for _, p := range sp.Timeline {
		var bytes, unpadded int64
		for _, b := range sp.LiveAt(p.Step) {
			bytes += b.Cost.Bytes
			unpadded += b.Cost.Unpadded
		}
		check(bytes == p.Bytes && unpadded == p.Unpadded, "%s: step %d: buffers live %d (unpadded %d), timeline %d (%d)",
			s, p.Step, bytes, unpadded, p.Bytes, p.Unpadded)
		if bytes != p.Bytes {
			return
		}
	}
	atPeak := sp.LiveAt(sp.PeakStep)
	check(len(atPeak) == len(sp.LiveAtPeak), "%s: %d buffers live at step %d, %d at the peak", s, len(atPeak), sp.PeakStep, len(sp.LiveAtPeak))
	for i := range min(len(atPeak), len(sp.LiveAtPeak)) {
		check(atPeak[i].Instruction == sp.LiveAtPeak[i].Instruction && slices.Equal(atPeak[i].Index, sp.LiveAtPeak[i].Index),
			"%s: buffer %d at the peak differs", s, i)
	}
	for _, b := range sp.Buffers {
		if b.Kind == KindTemp {
			check(b.Start > b.End || 0 <= b.Start && b.End < steps, "%s: %s%v live at steps %d-%d of %d", s, b.Instruction.Name, b.Index, b.Start, b.End, steps)
		} else {
			check(b.Start == 0 && b.End == max(steps-1, 0), "%s: %s %s%v live at steps %d-%d of %d", s, b.Kind, b.Instruction.Name, b.Index, b.Start, b.End, steps)
		}
		for _, a := range b.Aliases {
			check(a.Instruction != b.Instruction || !slices.Equal(a.Index, b.Index), "%s: %s%v among its own aliases", s, b.Instruction.Name, b.Index)
		}
	}
}

// checkSuggestions checks that each suggestion starts from the array as
// the module lays it out and changes its layout.
func checkSuggestions(t *testing.T, name string, m *hlo.Module, r *MemoryReport, check func(bool, string, ...any)) {
	t.Helper()
	byName := map[string][]*hlo.Instruction{} // names repeat across computations
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			byName[in.Name] = append(byName[in.Name], in)
		}
	}
	for _, s := range r.Suggestions {
		found := false
		for _, in := range byName[s.Instruction] {
			for _, ac := range r.ArraysOf(in) {
				found = found || slices.Equal(ac.Index, s.Index) && s.Before == ac.Bytes && s.After < s.Before && !s.Shape.Equal(*ac.Shape)
			}
		}
		check(found, "suggestion for %s%v: no array of %d bytes other than %s", s.Instruction, s.Index, s.Before, s.Shape)
	}
}

// checkAllocations rebuilds the entry's buffer assignment and checks the
// allocations and the heaps.
func checkAllocations(t *testing.T, name string, m *hlo.Module, tgt Target, r *MemoryReport) bool {
	t.Helper()
	lv, err := newLiveness(m, m.Entry, tgt, r.ArraysOf)
	require.NoError(t, err, name)
	infos := lv.classify()
	all := make([]int32, len(lv.buffers))
	sizes := make([]int64, len(lv.buffers))
	lens := make([]int, len(lv.buffers))
	for b := range all {
		all[b], sizes[b], lens[b] = int32(b), infos[b].size, len(lv.buffers[b])
	}
	allocs, temps := lv.assign(all, infos)
	ok := true
	plainAllocs, plainTemps := lv.assignWith(all, infos, &plainFinder{lv: lv})
	if !assert.Equal(t, len(plainAllocs), len(allocs), "%s: allocations", name) || !assert.Equal(t, plainTemps, temps, "%s: temporaries", name) {
		ok = false
	}
	for i := range min(len(allocs), len(plainAllocs)) {
		if !assert.Equal(t, plainAllocs[i].values, allocs[i].values, "%s: allocation %d", name, i) {
			ok = false
			break
		}
	}
	for _, a := range allocs {
		for i, x := range a.values {
			if sizes[lv.bufOf[x]] > a.size {
				ok = false
				t.Errorf("%s: allocation of %s (%d bytes) holds a %d-byte buffer", name, lv.def(&lv.values[a.first]).in.Name, a.size, sizes[lv.bufOf[x]])
			}
			for _, y := range a.values[i+1:] {
				if lv.bufOf[x] != lv.bufOf[y] && lv.interfere(&lv.values[x], &lv.values[y]) {
					ok = false
					t.Errorf("%s: allocation of %s holds %s and %s, live at once", name, lv.def(&lv.values[a.first]).in.Name,
						lv.def(&lv.values[x]).in.Name, lv.def(&lv.values[y]).in.Name)
				}
			}
		}
	}
	for sp, ids := range temps {
		run := lv.simulate(sp, ids, lv.bufOf, sizes, lens)
		smallest := int64(math.MaxInt64)
		for _, order := range []heapOrder{spatial, temporal} {
			heap, offsets := run.bestFit(order, tgt.heapAlignment(sp))
			smallest = min(smallest, heap)
			if heap < run.peak {
				ok = false
				t.Errorf("%s: S(%d) heap %d below the temporaries' peak %d", name, sp, heap, run.peak)
			}
			ivs, _ := run.intervals()
			placed := offsetMap(offsets)
			ok = checkDisjoint(t, fmt.Sprintf("%s: S(%d)", name, sp), ivs, placed) && ok
			refHeap, refOffsets := bestFitScan(ivs, order.cmp, tgt.heapAlignment(sp))
			if heap != refHeap || !maps.Equal(placed, refOffsets) {
				ok = false
				t.Errorf("%s: S(%d) best-fit heap %d, by scanning every placed interval %d (or offsets differ)", name, sp, heap, refHeap)
			}
		}
		// The placement keeps the smaller heap, whether or not the size
		// order reached the peak and the duration order was left out.
		run.heapSize = -1
		run.place(tgt.heapAlignment(sp))
		if run.heapSize != smallest {
			ok = false
			t.Errorf("%s: S(%d) placement's heap %d, the smaller order's %d", name, sp, run.heapSize, smallest)
		}
	}
	return ok
}

// offsetMap is bestFit's offsets by value id as a map of the placed ones.
func offsetMap(offsets []int64) map[int32]int64 {
	m := map[int32]int64{}
	for id, off := range offsets {
		if off >= 0 {
			m[int32(id)] = off
		}
	}
	return m
}

// checkDisjoint checks that intervals live at the same time, other than
// ones placed together (colocated), do not overlap in the heap.
func checkDisjoint(t *testing.T, name string, ivs []interval, offsets map[int32]int64) bool {
	t.Helper()
	group := make([]int, len(ivs))
	for i := range group {
		group[i] = -1
	}
	for i := range ivs {
		if group[i] < 0 {
			group[i] = i
			for _, k := range transitive(nil, &ivs[i], ivs) {
				group[k] = i
			}
		}
	}
	order := make([]int, len(ivs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return ivs[a].start - ivs[b].start })
	for x, i := range order {
		a := &ivs[i]
		for _, j := range order[x+1:] {
			b := &ivs[j]
			if b.start > a.end {
				break
			}
			if group[i] == group[j] {
				continue
			}
			oa, ob := offsets[a.id], offsets[b.id]
			if oa < ob+b.size && ob < oa+a.size {
				t.Errorf("%s: values %d [%d,%d) and %d [%d,%d) overlap while both live", name, a.id, oa, oa+a.size, b.id, ob, ob+b.size)
				return false
			}
		}
	}
	return true
}

// plainFinder is the reuse of assign done the plain way, the yardstick of
// reuser: every allocation checked with lv.fits, the last made first.
type plainFinder struct {
	lv       *liveness
	reusable []*alloc
}

func (p *plainFinder) find(b int32, in bufferInfo, of []*alloc) *alloc {
	lv := p.lv
	if in.constant || in.param || lv.tupleBuffer(b) {
		return nil
	}
	if a := lv.operandAlloc(b, of, func(a *alloc) bool { return lv.fits(a, b, in) }); a != nil {
		return a
	}
	for i := len(p.reusable) - 1; i >= 0; i-- {
		if lv.fits(p.reusable[i], b, in) {
			return p.reusable[i]
		}
	}
	return nil
}

func (p *plainFinder) hold(a *alloc, ids []int32, made bool) {
	a.values = append(a.values, ids...)
	if made {
		p.reusable = append(p.reusable, a)
	}
}

// bestFitScan is the best-fit placement of bestFit done the plain way,
// the yardstick of its heap index: each interval in order is checked
// against every placed one, kept sorted by offset.
func bestFitScan(ivs []interval, order intervalOrder, align int64) (int64, map[int32]int64) {
	type chunk struct {
		offset, size int64
		start, end   int
	}
	offsets := map[int32]int64{}
	sorted := make([]int, len(ivs))
	for i := range sorted {
		sorted[i] = i
	}
	slices.SortStableFunc(sorted, func(a, b int) int { return order(&ivs[a], &ivs[b]) })
	var placed []chunk // by offset
	var heap int64
	for _, k := range sorted {
		iv := &ivs[k]
		if !iv.need {
			continue
		}
		group := transitive([]int{k}, iv, ivs)
		size := int64(0)
		for _, g := range group {
			size = max(size, ivs[g].size)
		}
		best, bestLen := int64(-1), int64(math.MaxInt64)
		free := int64(0)
		for _, c := range placed {
			if !slices.ContainsFunc(group, func(g int) bool { return c.start <= ivs[g].end && ivs[g].start <= c.end }) {
				continue
			}
			if gap := c.offset - free; c.offset > free && gap >= size && gap < bestLen {
				best, bestLen = free, gap
			}
			free = max(free, alignUp(c.offset+c.size, align))
		}
		if best < 0 {
			best = free
		}
		at, _ := slices.BinarySearchFunc(placed, best, func(c chunk, o int64) int { return cmp.Compare(c.offset, o) })
		for _, g := range group {
			placed = slices.Insert(placed, at, chunk{best, size, ivs[g].start, ivs[g].end})
			offsets[ivs[g].id] = best
		}
		heap = max(heap, best+size)
	}
	return heap, offsets
}

// moduleGen writes random modules: elementwise chains, while loops over
// a tuple, reductions, in-place dynamic-update-slices, custom calls with
// tuple results, fusions, calls, conditionals, copy-start/copy-done, some parameters in S(1), sometimes scheduled, sometimes
// with an input_output_alias.
type moduleGen struct {
	r    *rand.Rand
	b    strings.Builder
	vals []string // names of the f32[8,128] values so far
	n    int
}

func (g *moduleGen) name(prefix string) string {
	g.n++
	return fmt.Sprintf("%s.%d", prefix, g.n)
}

func (g *moduleGen) pick() string { return g.vals[g.r.IntN(len(g.vals))] }

func (g *moduleGen) line(format string, args ...any) {
	fmt.Fprintf(&g.b, "  "+format+"\n", args...)
}

const genArray = "f32[8,128]"

func (g *moduleGen) module(seed int) string {
	var entry strings.Builder
	g.b = strings.Builder{}
	nParams := 1 + g.r.IntN(3)
	for i := range nParams {
		space := ""
		if g.r.IntN(5) == 0 {
			space = "{1,0:S(1)}"
		}
		p := fmt.Sprintf("p%d", i)
		g.line("%s = %s%s parameter(%d)", p, genArray, space, i)
		g.vals = append(g.vals, p)
	}
	g.line("big = f32[32,128] parameter(%d)", nParams)
	for range 3 + g.r.IntN(12) {
		g.step()
	}
	body := g.b.String()
	var root string
	alias := ""
	if k := 1 + g.r.IntN(3); k > 1 {
		elems := make([]string, k)
		for i := range elems {
			elems[i] = g.pick()
		}
		root = fmt.Sprintf("ROOT out = (%s) tuple(%s)", strings.TrimSuffix(strings.Repeat(genArray+", ", k), ", "), strings.Join(elems, ", "))
		if g.r.IntN(2) == 0 {
			alias = ", input_output_alias={ {0}: (0, {}, may-alias) }"
		}
	} else {
		root = fmt.Sprintf("ROOT out = %s copy(%s)", genArray, g.pick())
	}
	sched := ""
	if g.r.IntN(2) == 0 {
		sched = ", is_scheduled=true"
	}
	fmt.Fprintf(&entry, "HloModule gen%d%s%s\n\n", seed, sched, alias)
	entry.WriteString(`add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

body {
  p = (s32[], f32[8,128]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[8,128] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  e = f32[8,128] exponential(x)
  x2 = f32[8,128] add(e, x)
  ROOT t = (s32[], f32[8,128]) tuple(i2, x2)
}

cond {
  p = (s32[], f32[8,128]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

fused {
  a = f32[8,128] parameter(0)
  b = f32[8,128] parameter(1)
  m = f32[8,128] multiply(a, b)
  ROOT s = f32[8,128] add(m, a)
}

callee {
  a = f32[8,128] parameter(0)
  n = f32[8,128] negate(a)
  ROOT e = f32[8,128] exponential(n)
}

then {
  a = f32[8,128] parameter(0)
  ROOT n = f32[8,128] negate(a)
}

else {
  a = f32[8,128] parameter(0)
  ROOT c = f32[8,128] copy(a)
}

ENTRY main {
`)
	entry.WriteString(body)
	entry.WriteString("  " + root + "\n}\n")
	return entry.String()
}

func (g *moduleGen) step() {
	switch k := g.r.IntN(14); {
	case k < 3:
		op := []string{"negate", "exponential", "copy", "tanh"}[g.r.IntN(4)]
		v := g.name(op)
		g.line("%s = %s %s(%s)", v, genArray, op, g.pick())
		g.vals = append(g.vals, v)
	case k < 6:
		op := []string{"add", "multiply", "subtract"}[g.r.IntN(3)]
		v := g.name(op)
		g.line("%s = %s %s(%s, %s)", v, genArray, op, g.pick(), g.pick())
		g.vals = append(g.vals, v)
	case k == 6:
		z, init, w, v := g.name("zero"), g.name("init"), g.name("while"), g.name("gte")
		g.line("%s = s32[] constant(0)", z)
		g.line("%s = (s32[], %s) tuple(%s, %s)", init, genArray, z, g.pick())
		g.line("%s = (s32[], %s) while(%s), condition=cond, body=body", w, genArray, init)
		g.line("%s = %s get-tuple-element(%s), index=1", v, genArray, w)
		g.vals = append(g.vals, v)
	case k == 7:
		c, rd, v := g.name("c"), g.name("reduce"), g.name("broadcast")
		g.line("%s = f32[] constant(0)", c)
		g.line("%s = f32[8] reduce(%s, %s), dimensions={1}, to_apply=add", rd, g.pick(), c)
		g.line("%s = %s broadcast(%s), dimensions={0}", v, genArray, rd)
		g.vals = append(g.vals, v)
	case k == 8:
		i, d, s := g.name("i"), g.name("dus"), g.name("slice")
		g.line("%s = s32[] constant(%d)", i, 8*g.r.IntN(4))
		g.line("%s = f32[32,128] dynamic-update-slice(big, %s, %s, %s)", d, g.pick(), i, i)
		g.line("%s = %s slice(%s), slice={[0:8], [0:128]}", s, genArray, d)
		g.vals = append(g.vals, s)
	case k == 10:
		v := g.name("fusion")
		g.line("%s = %s fusion(%s, %s), kind=kLoop, calls=fused", v, genArray, g.pick(), g.pick())
		g.vals = append(g.vals, v)
	case k == 11:
		v := g.name("call")
		g.line("%s = %s call(%s), to_apply=callee", v, genArray, g.pick())
		g.vals = append(g.vals, v)
	case k == 12:
		c, p, v := g.name("c"), g.name("pred"), g.name("conditional")
		g.line("%s = s32[] constant(%d)", c, g.r.IntN(2))
		g.line("%s = pred[] compare(%s, %s), direction=EQ", p, c, c)
		g.line("%s = %s conditional(%s, %s, %s), true_computation=then, false_computation=else", v, genArray, p, g.pick(), g.pick())
		g.vals = append(g.vals, v)
	case k == 13:
		cs, v := g.name("copy-start"), g.name("copy-done")
		g.line("%s = (%s, %s, u32[]) copy-start(%s)", cs, genArray, genArray, g.pick())
		g.line("%s = %s copy-done(%s)", v, genArray, cs)
		g.vals = append(g.vals, v)
	default:
		cc, v := g.name("custom-call"), g.name("gte")
		g.line(`%s = (%s, s8[4096]) custom-call(%s), custom_call_target="__cublas$gemm"`, cc, genArray, g.pick())
		g.line("%s = %s get-tuple-element(%s), index=0", v, genArray, cc)
		g.vals = append(g.vals, v)
	}
}

// TestXLACases and its helpers below port the cases of XLA's own tests of
// the analyses the memory report follows, with their expected numbers:
//
//	xla/hlo/utils/hlo_live_range_test.cc              (HloLiveRangeTest)
//	xla/service/heap_simulator/heap_simulator_test.cc (MinimumMemoryForSequenceTest,
//	    HeapSimulatorTest, NoFragmentationStatsHeapTest,
//	    GlobalDecreasingSizeBestFitHeapTest)
//	xla/service/buffer_assignment_test.cc             (BufferAssignmentTest)
//
// Modules XLA's tests build with HloComputation::Builder are written here
// as the text they print. Sizes are XLA's ShapeUtil::ByteSizeOf with
// 8-byte pointers (the GPU target). A case that does not agree with XLA
// says why in its differs field; TestXLACases requires the others to
// agree, the differing ones to still differ, and at least 90% to agree.

// xlaRun is the analysis of one module as a test looks at it.
type xlaRun struct {
	t  *testing.T
	m  *hlo.Module
	lv *liveness
}

func analyzeXLA(t *testing.T, src string) *xlaRun {
	t.Helper()
	m := parse(t, src)
	target := GPU()
	target.HeapAlignment = 1 // as XLA's tests run buffer assignment
	// The tests are those of XLA's head, whose live ranges of async
	// computations start at the caller's start (the XLA of the ground
	// truth's jax does not).
	target.AsyncFromOuterStart = true
	r, _, err := arrayCosts(m, target)
	require.NoError(t, err)
	lv, err := newLiveness(m, m.Entry, target, r.ArraysOf)
	require.NoError(t, err)
	return &xlaRun{t: t, m: m, lv: lv}
}

func (x *xlaRun) step(name string) *step {
	for i := range x.lv.seq {
		st := &x.lv.seq[i]
		if st.in.Name == name {
			return st
		}
	}
	x.t.Fatalf("no scheduled instruction %s", name)
	return nil
}

// value is the value at instruction name's node path: the one it defines
// there, else the one that flows there.
func (x *xlaRun) value(name string, path ...int64) *hloValue {
	return &x.lv.values[x.valueID(name, path...)]
}

// valueID is the id of value.
func (x *xlaRun) valueID(name string, path ...int64) int32 {
	st := x.step(name)
	n := nodeAt(st.nodes, path)
	require.GreaterOrEqual(x.t, n, 0, "%s%v", name, path)
	if id := st.defs[n]; id >= 0 {
		return id
	}
	require.NotEmpty(x.t, st.sets[n], "%s%v has no value", name, path)
	return st.sets[n][0] // the first of several (a loop's)
}

// rng is the live range of the value at name's path.
func (x *xlaRun) rng(name string, path ...int64) [2]int {
	v := x.value(name, path...)
	return [2]int{v.start, v.end}
}

func (x *xlaRun) time(name string) int { return x.step(name).time }

// buffer is the buffer of the value at name's path.
func (x *xlaRun) buffer(name string, path ...int64) int32 {
	return x.lv.bufOf[x.valueID(name, path...)]
}

// heapAll replays every value but the constants, as XLA's heap simulator
// tests run the simulator without a set of buffers to assign.
func (x *xlaRun) heapAll() *heapRun {
	var ids []int32
	for id := range x.lv.values {
		if x.lv.def(&x.lv.values[id]).in.Opcode != hlo.OpConstant {
			ids = append(ids, int32(id))
		}
	}
	infos := x.lv.classify()
	sizes := make([]int64, len(x.lv.buffers))
	lens := make([]int, len(x.lv.buffers))
	for b, vs := range x.lv.buffers {
		sizes[b], lens[b] = infos[b].size, len(vs)
	}
	return x.lv.simulate(0, ids, x.lv.bufOf, sizes, lens)
}

// calls lists the heap events as HeapSimulatorTracker records them:
// "Alloc mul", "Share add", "Free param{1}".
func (x *xlaRun) calls() []string {
	var out []string
	for _, e := range x.heapAll().events {
		v := &x.lv.values[e.v]
		name := x.lv.def(v).in.Name
		if p := x.lv.path(v); len(p) > 0 {
			name += "{" + joinInts(p) + "}"
		}
		out = append(out, [...]string{"Alloc", "Share", "Free"}[e.kind]+" "+name)
	}
	return out
}

// peakMoment is HloLiveRange::ComputePeakMemoryMoment: the first step at
// which the values live (constants included) add up to the most, and that
// sum.
func (x *xlaRun) peakMoment() (int, int64) {
	delta := map[int]int64{}
	var times []int
	for _, v := range x.lv.values {
		for _, t := range []int{v.start, v.end + 1} {
			if _, ok := delta[t]; !ok {
				times = append(times, t)
			}
		}
		delta[v.start] += v.size
		delta[v.end+1] -= v.size
	}
	slices.Sort(times)
	var cur, peak int64
	at := 0
	for _, t := range times {
		cur += delta[t]
		if cur > peak {
			peak, at = cur, t
		}
	}
	return at, peak
}

// allocation returns the report's allocation kind of the buffer holding
// the value at name's path, and the buffer's allocation (nil for a
// temporary).
func (x *xlaRun) allocation(name string, path ...int64) (*alloc, bool) {
	id := x.valueID(name, path...)
	infos := x.lv.classify()
	var bufs []int32
	for b := range x.lv.buffers {
		bufs = append(bufs, int32(b))
	}
	allocs, _ := x.lv.assign(bufs, infos)
	for _, a := range allocs {
		if slices.Contains(a.values, id) {
			return a, true
		}
	}
	return nil, false
}

// namesOf returns the instruction names of values, sorted.
func (x *xlaRun) namesOf(ids []int32) []string {
	var out []string
	for _, id := range ids {
		out = append(out, x.lv.def(&x.lv.values[id]).in.Name)
	}
	slices.Sort(out)
	return out
}

type xlaCase struct {
	// name is the XLA test the case ports.
	name string
	src  string
	// check compares the analysis with XLA's expected numbers; it reports
	// each mismatch to the returned list.
	check func(x *xlaRun) []string
	// differs, when not empty, says why this case is expected to disagree.
	differs string
}

// expect records a mismatch of got and want.
func expect(diffs *[]string, what string, got, want any) {
	if fmt.Sprint(got) != fmt.Sprint(want) {
		*diffs = append(*diffs, fmt.Sprintf("%s: got %v, want %v", what, got, want))
	}
}

// ranges checks live ranges: name{path} -> [start end].
func ranges(want map[string][2]int) func(x *xlaRun) []string {
	return func(x *xlaRun) []string {
		var d []string
		for _, k := range sortedNames(want) {
			name, path := splitPos(k)
			expect(&d, "live range of "+k, x.rng(name, path...), want[k])
		}
		return d
	}
}

// times checks schedule times.
func times(want map[string]int) func(x *xlaRun) []string {
	return func(x *xlaRun) []string {
		var d []string
		for _, k := range sortedNames(want) {
			expect(&d, "time of "+k, x.time(k), want[k])
		}
		return d
	}
}

// callSequence checks the heap simulator's calls.
func callSequence(want ...string) func(x *xlaRun) []string {
	return func(x *xlaRun) []string {
		var d []string
		expect(&d, "calls", strings.Join(x.calls(), "; "), strings.Join(want, "; "))
		return d
	}
}

func sortedNames[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// splitPos splits "name{1,0}" into the name and path.
func splitPos(s string) (string, []int64) {
	i := strings.IndexByte(s, '{')
	if i < 0 {
		return s, nil
	}
	return s[:i], parseIndex(strings.TrimSuffix(s[i+1:], "}"))
}

func TestXLACases(t *testing.T) {
	agree := 0
	for _, c := range xlaCases {
		t.Run(c.name, func(t *testing.T) {
			diffs := c.check(analyzeXLA(t, c.src))
			if c.differs == "" {
				assert.Empty(t, diffs)
			} else {
				assert.NotEmpty(t, diffs, "documented to differ (%s) but agrees: drop differs", c.differs)
				t.Logf("differs as documented (%s): %v", c.differs, diffs)
			}
			if len(diffs) == 0 {
				agree++
			}
		})
	}
	for _, c := range heapAlgorithmCases {
		t.Run(c.name, func(t *testing.T) {
			if c.check() {
				agree++
			}
		})
	}
	total := len(xlaCases) + len(heapAlgorithmCases)
	t.Logf("%d of %d XLA cases agree (%.0f%%)", agree, total, 100*float64(agree)/float64(total))
	assert.GreaterOrEqual(t, float64(agree), 0.9*float64(total), "at least 90%% of XLA's cases agree")
}

// TestHeapOrders checks the radix sort of each best-fit order against a
// sort by its comparator on random intervals: sizes from a few (many
// ties) or many, lives short or long, ids shuffled.
func TestHeapOrders(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 2))
	for round := range 200 {
		n := 1 + r.IntN(300)
		ivs := make([]interval, n)
		ids := r.Perm(3 * n)
		now := 0
		for k := range ivs {
			now += 1 + r.IntN(3)
			life := r.IntN(1 + []int{4, 200}[round%2])
			ivs[k] = interval{id: int32(ids[k]), size: 16 * (1 + r.Int64N([]int64{3, 1 << 20}[round%3/2])), start: now, end: now + life}
			ivs[k].colocatedEnd = ivs[k].end + r.IntN(1+life)
		}
		horizon := now
		for _, iv := range ivs {
			horizon = max(horizon, iv.colocatedEnd+1)
		}
		for _, order := range []heapOrder{spatial, temporal} {
			want := make([]int32, n)
			for k := range want {
				want[k] = int32(k)
			}
			slices.SortStableFunc(want, func(a, b int32) int { return order.cmp(&ivs[a], &ivs[b]) })
			require.Equal(t, want, order.sort(ivs, horizon), "round %d", round)
		}
	}
}

// TestHeapIndexGaps gathers random unions of one heap index (some past
// bigRoomLog, so spanSets; enough at once that the gathered union passes
// foundMerged) and checks bestGap against the plain definition: the bytes
// the gathered spans use marked one by one, the smallest run of free
// bytes below the highest used one that holds size (then the lowest), else
// the end of the highest.
func TestHeapIndexGaps(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 1))
	var x heapIndex
	for round := range 400 {
		x.reset(32)
		limit := int64(64 << (round % 8))
		unions := 1 + r.IntN(len(x.cover))
		long := []int64{8, limit / 16}[r.IntN(2)]
		for range r.IntN(2000) {
			lo := r.Int64N(limit)
			x.unite(&x.cover[r.IntN(unions)], span{lo, lo + 1 + r.Int64N(long)})
		}
		used := make([]bool, 2*limit+1)
		top := int64(0)
		for range 1 + r.IntN(8) {
			u := &x.cover[r.IntN(unions)]
			for _, sp := range x.appendTo(nil, u) {
				for b := sp.lo; b < sp.hi; b++ {
					used[b] = true
				}
				top = max(top, sp.hi)
			}
			x.gather(u)
		}
		size := 1 + r.Int64N(limit/8+1)
		want, wantLen := top, int64(math.MaxInt64)
		for b := int64(0); b < top; {
			if used[b] {
				b++
				continue
			}
			hole := b
			for b < top && !used[b] {
				b++
			}
			if n := b - hole; n >= size && n < wantLen {
				want, wantLen = hole, n
			}
		}
		require.Equal(t, want, x.bestGap(size), "round %d, size %d", round, size)
		assert.Empty(t, x.found, "round %d: spans left after bestGap", round)
	}
}

// TestHeapIndexUnions unites random spans into a few unions of one heap
// index at once (so that blocks move, are freed and reused) and checks
// each against a spanSet given the same spans, through the union's growth
// past bigRoomLog into a spanSet of its own and after a reset.
func TestHeapIndexUnions(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 1))
	var x heapIndex
	for round, c := range []struct{ spans, unions int }{{300, 16}, {4000, 3}} {
		x.reset(8)
		ref := make([]spanSet, len(x.cover))
		for range c.spans {
			k := r.IntN(c.unions)
			lo := r.Int64N(1 << 14)
			sp := span{lo, lo + 1 + r.Int64N(8)}
			x.unite(&x.cover[k], sp)
			ref[k].add(sp)
		}
		for k := range ref {
			assert.Equal(t, ref[k].appendTo(nil), x.appendTo(nil, &x.cover[k]), "round %d, union %d", round, k)
		}
		if round > 0 {
			assert.NotEmpty(t, x.big, "round %d: no union outgrew the arena", round)
		}
	}
}

// TestOutputSharesOperandReadBeforeItsBitcast: a value whose range ends at
// a bitcast of it, read directly by the output that writes over it, shares
// the output's allocation (XLA's LiveRangeInterferes checks every position
// of the operand, as on seed 12629's H100 compile, where a gemm result
// bitcast for another dot goes into the loop fusion's output): no
// temporary.
func TestOutputSharesOperandReadBeforeItsBitcast(t *testing.T) {
	m := parse(t, `HloModule share, is_scheduled=true

ENTRY main {
  p = f32[64,128] parameter(0)
  a = f32[64,128] exponential(p)
  b = f32[8,8,128] bitcast(a)
  c = f32[8,8,128] negate(b)
  u = f32[64,128] negate(a)
  ROOT t = (f32[8,8,128], f32[64,128]) tuple(c, u)
}
`)
	r, err := AnalyzeMemory(m, GPU())
	require.NoError(t, err)
	assert.Equal(t, int64(0), r.TemporaryBytes, "u writes over a")
	assert.Equal(t, int64(2*64*128*4+16), r.OutputBytes, "c, u and the tuple's table")
}
