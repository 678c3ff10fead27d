package layoutassign

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// This file ports the cases of XLA's own tests of the analyses the memory
// report follows, with their expected numbers:
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
	m, err := hlo.ParseString(src)
	require.NoError(t, err)
	target := GPU()
	target.HeapAlignment = 1 // as XLA's tests run buffer assignment
	// The tests are those of XLA's head, whose live ranges of async
	// computations start at the caller's start (the XLA of the ground
	// truth's jax does not).
	target.AsyncFromOuterStart = true
	r, _, _, err := arrayCosts(m, target)
	require.NoError(t, err)
	lv, err := newLiveness(m, m.Entry, target, func(in *hlo.Instruction) []ArrayCost { return r.Arrays[in] })
	require.NoError(t, err)
	return &xlaRun{t: t, m: m, lv: lv}
}

func (x *xlaRun) step(name string) *step {
	for _, st := range x.lv.seq {
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
	st := x.step(name)
	n := nodeAt(st.nodes, path)
	require.GreaterOrEqual(x.t, n, 0, "%s%v", name, path)
	if id := st.defs[n]; id >= 0 {
		return x.lv.values[id]
	}
	require.NotEmpty(x.t, st.sets[n], "%s%v has no value", name, path)
	return x.lv.values[st.sets[n][0]] // the first of several (a loop's)
}

// rng is the live range of the value at name's path.
func (x *xlaRun) rng(name string, path ...int64) [2]int {
	v := x.value(name, path...)
	return [2]int{v.start, v.end}
}

func (x *xlaRun) time(name string) int { return x.step(name).time }

// buffer is the buffer of the value at name's path.
func (x *xlaRun) buffer(name string, path ...int64) int32 {
	v := x.value(name, path...)
	return x.lv.bufOf[slices.Index(x.lv.values, v)]
}

// heapAll replays every value but the constants, as XLA's heap simulator
// tests run the simulator without a set of buffers to assign.
func (x *xlaRun) heapAll() *heapRun {
	var ids []int32
	for id, v := range x.lv.values {
		if v.def.in.Opcode != hlo.OpConstant {
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
		v := x.lv.values[e.v]
		name := v.def.in.Name
		if p := v.path(); len(p) > 0 {
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
	id := int32(slices.Index(x.lv.values, x.value(name, path...)))
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
		out = append(out, x.lv.values[id].def.in.Name)
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
