package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/hlo-opt/hlo-opt/cost"
	"github.com/hlo-opt/hlo-opt/graph"
	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

// renderDOT draws the call graph, or with --computation one computation's
// instruction graph; when the layout or cost pass ran, each box gets its
// bytes and time and a fill by time (by bytes without the cost pass).
func (d *driver) renderDOT(w io.Writer, m *hlo.Module, res *passes.Results) error {
	o := d.o
	fig := newDOTFigures(res)
	var b []byte
	var err error
	if o.computation != "" {
		c := m.Computation(o.computation)
		if c == nil {
			return unknownComputation(d.filename, m, o.computation)
		}
		opts := graph.DOTOptions{ExpandFusions: o.expandFusions, MaxNodes: o.maxNodes}
		if fig != nil {
			opts.Annotate = fig.instructions(c)
		}
		b, err = graph.DOT(c, opts)
	} else if fig != nil {
		b, err = graph.NewCallGraph(m).DOTAnnotated(fig.computations(m))
	} else {
		b, err = graph.NewCallGraph(m).DOT()
	}
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// maxListed bounds the computation names an unknown --computation lists.
const maxListed = 30

// unknownComputation says that m has no computation name, and which it
// has: the entry first, then in module order.
func unknownComputation(file string, m *hlo.Module, name string) error {
	var names []string
	if m.Entry != nil {
		names = append(names, m.Entry.Name+" (entry)")
	}
	for _, c := range m.Computations {
		if c != m.Entry {
			names = append(names, c.Name)
		}
	}
	more := ""
	if len(names) > maxListed {
		more = fmt.Sprintf(" and %d more", len(names)-maxListed)
		names = names[:maxListed]
	}
	return fmt.Errorf("%s: --computation: no computation %q; the module has %s%s", file, name, strings.Join(names, ", "), more)
}

// dotFigures are what the layout and cost passes say of each instruction
// of the module: the bytes of its result as laid out, the time of its
// kernel.
type dotFigures struct {
	bytes map[*hlo.Instruction]int64
	time  map[*hlo.Instruction]float64
}

// newDOTFigures collects the figures of res; nil when neither pass ran.
func newDOTFigures(res *passes.Results) *dotFigures {
	var f dotFigures
	for _, p := range res.Passes {
		v, _ := res.Of(p)
		switch r := v.(type) {
		case *layoutassign.Result:
			f.bytes = map[*hlo.Instruction]int64{}
			for in, costs := range r.Memory.Arrays() {
				for _, c := range costs {
					f.bytes[in] += c.Bytes
				}
			}
		case *cost.CostResult:
			f.time = map[*hlo.Instruction]float64{}
			for _, k := range r.Estimate().Kernels {
				f.time[k.Instr] += k.TimeUS
			}
		}
	}
	if f.bytes == nil && f.time == nil {
		return nil
	}
	return &f
}

// heat is a sequential palette, light to dark (ColorBrewer's Reds).
var heat = []string{"#fff5f0", "#fee0d2", "#fcbba1", "#fc9272", "#fb6a4a", "#ef3b2c", "#cb181d", "#a50f15"}

// fill is the color of v among values up to top: the palette's step of
// v/top; "" for nothing.
func fill(v, top float64) string {
	if v <= 0 || top <= 0 {
		return ""
	}
	return heat[min(int(v/top*float64(len(heat))), len(heat)-1)]
}

// line is "4.0MiB, 12.3 µs", each part when its pass ran.
func (f *dotFigures) line(bytes int64, hasBytes bool, us float64, hasTime bool) string {
	var parts []string
	if f.bytes != nil && hasBytes {
		parts = append(parts, passes.FormatBytes(bytes))
	}
	if f.time != nil && hasTime {
		parts = append(parts, fmt.Sprintf("%.3g µs", us))
	}
	return strings.Join(parts, ", ")
}

// instructions annotates c's instructions, filled by their share of the
// most time (or bytes) of one instruction of c.
func (f *dotFigures) instructions(c *hlo.Computation) func(*hlo.Instruction) graph.Annotation {
	var topB int64
	var topT float64
	for _, in := range c.Instructions {
		topB, topT = max(topB, f.bytes[in]), max(topT, f.time[in])
	}
	return func(in *hlo.Instruction) graph.Annotation {
		b, hasB := f.bytes[in]
		t, hasT := f.time[in]
		a := graph.Annotation{Line: f.line(b, hasB, t, hasT)}
		if f.time != nil {
			a.Fill = fill(t, topT)
		} else {
			a.Fill = fill(float64(b), float64(topB))
		}
		return a
	}
}

// computations annotates each computation of m with the bytes of its
// instructions' results and the time of its kernels, filled by time (or
// bytes) against the largest computation's. A fused computation, whose
// values are never in memory, is left as it is.
func (f *dotFigures) computations(m *hlo.Module) func(*hlo.Computation) graph.Annotation {
	type sum struct {
		bytes int64
		time  float64
		n     int
	}
	sums := map[*hlo.Computation]sum{}
	fused := map[*hlo.Computation]bool{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == hlo.OpFusion {
				for _, fc := range in.Called {
					fused[fc] = true
				}
			}
		}
	}
	var top sum
	for _, c := range m.Computations {
		if fused[c] {
			continue
		}
		var s sum
		for _, in := range c.Instructions {
			s.bytes += f.bytes[in]
			if t, ok := f.time[in]; ok {
				s.time += t
				s.n++
			}
		}
		sums[c] = s
		top.bytes, top.time = max(top.bytes, s.bytes), max(top.time, s.time)
	}
	return func(c *hlo.Computation) graph.Annotation {
		if fused[c] {
			return graph.Annotation{}
		}
		s := sums[c]
		a := graph.Annotation{Line: f.line(s.bytes, true, s.time, s.n > 0)}
		switch {
		case s.n == 1:
			a.Line += " (1 kernel)"
		case s.n > 1:
			a.Line += fmt.Sprintf(" (%d kernels)", s.n)
		}
		if f.time != nil {
			a.Fill = fill(s.time, top.time)
		} else {
			a.Fill = fill(float64(s.bytes), float64(top.bytes))
		}
		return a
	}
}
