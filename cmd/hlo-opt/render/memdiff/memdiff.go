package memdiff

import (
	"cmp"
	"slices"

	"github.com/hlo-opt/hlo-opt/cost"
	"github.com/hlo-opt/hlo-opt/layoutassign"
)

// Side is one module of a comparison: its memory report and, when the
// cost pass ran, its estimate.
type Side struct {
	// Name is the module's name in the report (a dump's module name, or
	// the file's).
	Name     string
	Memory   *layoutassign.MemoryReport
	Estimate *cost.ModuleEstimate
}

// Change is a figure of A and of B.
type Change struct {
	A     int64 `json:"a"`
	B     int64 `json:"b"`
	Delta int64 `json:"delta"`
	// Percent is Delta over A, in percent (0 when A is 0).
	Percent float64 `json:"percent"`
}

func change(a, b int64) Change {
	c := Change{A: a, B: b, Delta: b - a}
	if a != 0 {
		c.Percent = round1(100 * float64(b-a) / float64(a))
	}
	return c
}

// TimeChange is the estimated time of A and of B, in microseconds.
type TimeChange struct {
	A       float64 `json:"a_us"`
	B       float64 `json:"b_us"`
	Delta   float64 `json:"delta_us"`
	Percent float64 `json:"percent"`
}

func timeChange(a, b float64) TimeChange {
	c := TimeChange{A: round3(a), B: round3(b), Delta: round3(b - a)}
	if a != 0 {
		c.Percent = round1(100 * (b - a) / a)
	}
	return c
}

func round1(f float64) float64 { return float64(int64(10*f+sign(f)*0.5)) / 10 }
func round3(f float64) float64 { return float64(int64(1000*f+sign(f)*0.5)) / 1000 }

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}

// ClassChange is one allocation class of one memory space, as XLA's
// BufferAssignment stats name it ("parameter", "maybe_live_out", ...).
type ClassChange struct {
	Space string `json:"space"`
	Class string `json:"class"`
	Change
}

// BufferChange is a buffer whose size changed, appeared or went: named by
// its defining value (the instruction and tuple index), in its memory
// space.
type BufferChange struct {
	Space       string `json:"space"`
	Instruction string `json:"instruction"`
	ShapeA      string `json:"shape_a,omitempty"`
	ShapeB      string `json:"shape_b,omitempty"`
	Change
}

// KernelChange is a kernel of the cost estimate: added (only in B),
// removed (only in A), or in both with its times.
type KernelChange struct {
	Name string `json:"name"`
	TimeChange
}

// MaxListed bounds each list of buffers and kernels.
const MaxListed = 10

// Diff is what changed from module A to module B.
type Diff struct {
	A string `json:"a"`
	B string `json:"b"`
	// Peak is XLA's peak_memory_in_bytes as hlo-opt computes it, HBMPeak
	// the HBM peak.
	Peak    Change        `json:"xla_peak_memory_bytes"`
	HBMPeak Change        `json:"hbm_peak_bytes"`
	Classes []ClassChange `json:"classes"`
	// Grew are the buffers that grew or appeared, most bytes first (at
	// most MaxListed); Shrank counts those that shrank or went.
	Grew         []BufferChange `json:"grew"`
	GrewCount    int            `json:"grew_count"`
	Shrank       int            `json:"shrank_count"`
	ShrankBytes  int64          `json:"shrank_bytes"`
	GrewBytes    int64          `json:"grew_bytes"`
	BuffersA     int            `json:"buffers_a"`
	BuffersB     int            `json:"buffers_b"`
	Time         *TimeChange    `json:"time,omitempty"`
	TimeDevice   string         `json:"time_device,omitempty"`
	Added        []KernelChange `json:"kernels_added,omitempty"`
	Removed      []KernelChange `json:"kernels_removed,omitempty"`
	Slower       []KernelChange `json:"kernels_slower,omitempty"`
	AddedCount   int            `json:"kernels_added_count"`
	RemovedCount int            `json:"kernels_removed_count"`
	SlowerCount  int            `json:"kernels_slower_count"`
}

// Compare says what changed from a to b.
func Compare(a, b Side) Diff {
	d := Diff{A: a.Name, B: b.Name}
	ma, mb := a.Memory, b.Memory
	d.Peak = change(ma.XLAPeakBytes, mb.XLAPeakBytes)
	d.HBMPeak = change(ma.PeakBytes, mb.PeakBytes)
	d.Classes = classes(ma, mb)
	d.buffers(ma, mb)
	if a.Estimate != nil && b.Estimate != nil {
		t := timeChange(a.Estimate.TimeUS, b.Estimate.TimeUS)
		d.Time, d.TimeDevice = &t, b.Estimate.Device
		d.kernels(a.Estimate, b.Estimate)
	}
	return d
}

// classes are the BufferStats classes of every memory space either
// module uses, by space.
func classes(a, b *layoutassign.MemoryReport) []ClassChange {
	stats := func(mr *layoutassign.MemoryReport) map[int64]layoutassign.BufferStats {
		m := map[int64]layoutassign.BufferStats{}
		for _, sp := range mr.Spaces {
			m[sp.Space] = sp.Stats
		}
		return m
	}
	sa, sb := stats(a), stats(b)
	var spaces []int64
	for s := range sa {
		spaces = append(spaces, s)
	}
	for s := range sb {
		if _, ok := sa[s]; !ok {
			spaces = append(spaces, s)
		}
	}
	slices.Sort(spaces)
	var out []ClassChange
	for _, s := range spaces {
		ca, cb := sa[s].Classes(), sb[s].Classes()
		for i := range ca {
			out = append(out, ClassChange{Space: layoutassign.SpaceName(s), Class: ca[i].Name, Change: change(ca[i].Bytes, cb[i].Bytes)})
		}
	}
	return out
}

// bufferKey names a buffer across two compiles: its memory space and its
// defining value (XLA keeps most instruction names from one batch size to
// another).
type bufferKey struct {
	space int64
	ref   string
}

// buffers sets the buffers that grew or appeared, and counts the others.
func (d *Diff) buffers(a, b *layoutassign.MemoryReport) {
	type sized struct {
		bytes int64
		shape string
	}
	index := func(mr *layoutassign.MemoryReport) map[bufferKey]sized {
		m := map[bufferKey]sized{}
		for _, sp := range mr.Spaces {
			for _, buf := range sp.Buffers {
				k := bufferKey{sp.Space, layoutassign.ValueRef{Instruction: buf.Instruction, Index: buf.Index}.String()}
				m[k] = sized{buf.Cost.Bytes, layoutassign.AbbreviateShape(buf.Cost.Shape.String())}
			}
		}
		return m
	}
	ia, ib := index(a), index(b)
	d.BuffersA, d.BuffersB = len(ia), len(ib)
	var grew []BufferChange
	note := func(k bufferKey, x, y sized) {
		c := BufferChange{Space: layoutassign.SpaceName(k.space), Instruction: k.ref, ShapeA: x.shape, ShapeB: y.shape, Change: change(x.bytes, y.bytes)}
		switch {
		case c.Delta > 0:
			grew = append(grew, c)
			d.GrewBytes += c.Delta
		case c.Delta < 0:
			d.Shrank++
			d.ShrankBytes -= c.Delta
		}
	}
	for k, x := range ia {
		note(k, x, ib[k])
	}
	for k, y := range ib {
		if _, ok := ia[k]; !ok {
			note(k, sized{}, y)
		}
	}
	slices.SortFunc(grew, func(x, y BufferChange) int {
		return cmp.Or(cmp.Compare(y.Delta, x.Delta), cmp.Compare(x.Space, y.Space), cmp.Compare(x.Instruction, y.Instruction))
	})
	d.GrewCount = len(grew)
	d.Grew = grew[:min(len(grew), MaxListed)]
}

// kernels sets the kernels added, removed and slower, each list longest
// (most time) first.
func (d *Diff) kernels(a, b *cost.ModuleEstimate) {
	times := func(me *cost.ModuleEstimate) map[string]float64 {
		m := map[string]float64{}
		for _, k := range me.Kernels {
			m[k.Instr.Parent.Name+"/"+k.Instr.Name] += k.TimeUS
		}
		return m
	}
	ta, tb := times(a), times(b)
	for name, x := range ta {
		y, ok := tb[name]
		switch {
		case !ok:
			d.Removed = append(d.Removed, KernelChange{name, timeChange(x, 0)})
		case y > x:
			d.Slower = append(d.Slower, KernelChange{name, timeChange(x, y)})
		}
	}
	for name, y := range tb {
		if _, ok := ta[name]; !ok {
			d.Added = append(d.Added, KernelChange{name, timeChange(0, y)})
		}
	}
	byDelta := func(x, y KernelChange) int {
		return cmp.Or(cmp.Compare(abs(y.Delta), abs(x.Delta)), cmp.Compare(x.Name, y.Name))
	}
	d.AddedCount, d.RemovedCount, d.SlowerCount = len(d.Added), len(d.Removed), len(d.Slower)
	for _, l := range []*[]KernelChange{&d.Added, &d.Removed, &d.Slower} {
		slices.SortFunc(*l, byDelta)
		*l = (*l)[:min(len(*l), MaxListed)]
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// Over reports whether B's peak or time grew by more than pct percent of
// A's (a figure A lacks, 0, never counts).
func (d Diff) Over(pct float64) bool {
	over := func(a, b float64) bool { return a > 0 && 100*(b-a)/a > pct }
	return over(float64(d.Peak.A), float64(d.Peak.B)) || d.Time != nil && over(d.Time.A, d.Time.B)
}
