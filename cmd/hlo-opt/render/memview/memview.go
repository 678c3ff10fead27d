package memview

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/hlo-opt/hlo-opt/cost"
	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

// Input is what the page shows: the memory report of the layout pass
// (required), the module it is of (for its stage, its partitions and the
// source of its instructions) and, when the cost passes ran, their
// estimates.
type Input struct {
	// File names the module's source in the title.
	File   string
	Module *hlo.Module
	Memory *layoutassign.MemoryReport
	// Relayout says the layout pass assigned every layout anew rather
	// than keeping the module's.
	Relayout bool
	Cost     *cost.CostResult
	// XLACost is the xla-cost pass's figures (compiled.cost_analysis()),
	// when it ran.
	XLACost *cost.XLACostResult
}

//go:embed page.html.tmpl
var pageText string

var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"bytes": passes.FormatBytes,
		"sub":   func(a, b int64) int64 { return a - b },
	}).Parse(pageText))
})

// Write renders the page of in to w.
func Write(w io.Writer, in Input) error {
	if in.Memory == nil {
		return fmt.Errorf("memview: no memory report (run the layout pass)")
	}
	return page().Execute(w, build(in))
}

// view is the template's data.
type view struct {
	Title, Module, File, Target, Device, Entry, Order string
	Layouts                                           string
	Steps                                             int
	Banners                                           []banner
	Headline                                          headline
	Verdict, VerdictClass                             string
	Capacity                                          []layoutassign.SpaceVerdict
	Arguments, Outputs, Aliased, Temporaries          int64
	Spaces                                            []spaceView
	Others                                            []layoutassign.SpaceReport // spaces too small for a chart
	Computations                                      []layoutassign.ComputationPeak
	Padding                                           []padRow
	PaddingSmall                                      *padRow
	Fusions                                           []fusionRow
	CostDevice                                        string
	CostTimeUS                                        float64
	HasCost, CostGPU                                  bool
	XLACost                                           *xlaCostView
	MarginL, PlotW                                    int
	FoldBelow                                         int64
}

// xlaCostView is the module's cost_analysis() as the xla-cost pass
// computes it.
type xlaCostView struct {
	Backend                               string
	Flops, Transcendentals, BytesAccessed float64
	OptimalSeconds                        float64
	HasOptimalSeconds                     bool
}

// headline is XLA's peak_memory_in_bytes with its terms, and the HBM
// peak beside it.
type headline struct {
	Bytes     int64
	Parts     []layoutassign.PeakPart
	HBM       int64
	HBMStep   int
	HBMAt     string
	PerDevice string
}

// spaceView is one memory space's chart, its step picker and the table
// of the buffers live at the chosen step (the peak at first).
type spaceView struct {
	chart
	ID     string
	Status string
	Table  stepTable
	Data   template.JS
}

// fusionRow is a fusion kernel of the cost estimate: on a GPU its
// emitter and coalesced reads, on a TPU XLA's fusion kind and the unit
// that bounds it (MXU, vector, DMA).
type fusionRow struct {
	Name, Emitter, Kind, Bound string
	Bytes                      int64
	Flops                      float64
	TimeUS                     float64
	Coalesced, Operands        int
	// HasXLA says the xla-cost pass ran; XLA holds the fusion's
	// cost_analysis() figures (nil when XLA's analysis does not visit it).
	HasXLA bool
	XLA    *cost.XLACostValues
}

func build(in Input) *view {
	mr := in.Memory
	v := &view{
		Module: mr.Module, File: in.File, Target: mr.Target.String(), Device: mr.Target.Device,
		Entry: mr.Entry, Order: mr.Order, Steps: mr.Steps,
		Arguments: mr.ArgumentBytes, Outputs: mr.OutputBytes, Aliased: mr.AliasedBytes, Temporaries: mr.TemporaryBytes,
		Computations: mr.Computations,
		Layouts:      "kept as the module states them", MarginL: marginL, PlotW: chartW - marginL - marginR, FoldBelow: FoldBelow,
		Headline: headline{Bytes: mr.XLAPeakBytes, Parts: mr.XLAPeakParts(), HBM: mr.PeakBytes, HBMStep: mr.PeakStep, HBMAt: mr.PeakAt},
	}
	if in.Relayout {
		v.Layouts = "assigned anew (--relayout)"
	}
	v.Title = "Memory of " + mr.Module
	v.Verdict, v.VerdictClass = mr.Verdict(), "none"
	if mr.Entry != "" && mr.Target.HBMBytes > 0 {
		v.Capacity = mr.SpaceVerdicts()
		v.VerdictClass = "exceeds"
		if mr.Fits() {
			v.VerdictClass = "fits"
		}
	}
	frames := &hlo.StackFrames{}
	if in.Module != nil {
		frames = hlo.NewStackFrames(in.Module)
		st := StageOf(in.Module, in.File)
		v.Banners = st.banners(mr, in.Cost != nil)
		v.Headline.PerDevice = st.PerDevice()
	}
	d := describer{frames: frames}
	for _, sp := range mr.Spaces {
		if len(sp.Timeline) == 0 || sp.PeakBytes < FoldBelow && sp.Space != 0 {
			if sp.PeakBytes > 0 {
				v.Others = append(v.Others, sp)
			}
			continue
		}
		v.Spaces = append(v.Spaces, newSpaceView(sp, mr.Target, d))
	}
	if mr.Entry != "" {
		v.Padding, v.PaddingSmall = padding(mr, d)
	} else {
		v.Padding = blame(mr, d)
	}
	if in.Cost != nil {
		v.HasCost = true
		me := in.Cost.Estimate()
		dev := in.Cost.Device()
		v.CostDevice, v.CostTimeUS, v.CostGPU = me.Device, me.TimeUS, dev.IsGPU()
		v.Fusions = fusions(me, in.XLACost)
	}
	if x := in.XLACost; x != nil {
		c := x.Cost
		v.XLACost = &xlaCostView{Backend: c.Target.String(), Flops: c.Module.Flops, Transcendentals: c.Module.Transcendentals,
			BytesAccessed: c.Module.BytesAccessed, OptimalSeconds: c.Module.OptimalSeconds, HasOptimalSeconds: c.HasOptimalSeconds()}
	}
	return v
}

// newSpaceView draws a space's chart and lays out the table of its peak
// step, with the data the step picker needs for the others.
func newSpaceView(sp layoutassign.SpaceReport, t layoutassign.Target, d describer) spaceView {
	all := sp.Sorted()
	bufs := make([]buffer, len(all))
	var live []buffer
	for i, b := range all {
		bufs[i] = d.buffer(b)
		if b.Live(sp.PeakStep) {
			live = append(live, bufs[i])
		}
	}
	return spaceView{
		chart:  newChart(sp, t.Capacity(sp.Space), t.Device),
		ID:     spaceID(sp.Name),
		Status: status(sp, sp.PeakStep),
		Table:  newStepTable(sp.PeakStep, live),
		Data:   newStepData(sp, bufs),
	}
}

// status describes a step of a space's timeline as the step picker
// shows it: "Step 23 of 36: g — 14.63MiB live (unpadded 14.50MiB), the
// peak".
func status(sp layoutassign.SpaceReport, step int) string {
	p := sp.Timeline[step]
	s := fmt.Sprintf("Step %d of %d: %s — %s live (unpadded %s)", step, len(sp.Timeline), p.At, passes.FormatBytes(p.Bytes), passes.FormatBytes(p.Unpadded))
	if step == sp.PeakStep {
		s += ", the peak"
	}
	return s
}

// spaceID is the element id suffix of a space: "hbm", "vmem", "s3".
func spaceID(name string) string {
	return strings.NewReplacer("(", "", ")", "").Replace(strings.ToLower(name))
}

// fusions are the fusion kernels of an estimate, in module order, with
// xla's figures of each when the xla-cost pass ran.
func fusions(me *cost.ModuleEstimate, xla *cost.XLACostResult) []fusionRow {
	var out []fusionRow
	for _, e := range me.Kernels {
		if e.Instr.Opcode != hlo.OpFusion {
			continue
		}
		kind, _ := e.Instr.Attr("kind")
		r := fusionRow{Name: e.Instr.Name, Emitter: e.Kind(), Kind: kind, Bound: e.Bound, Bytes: e.Bytes(), Flops: e.Flops,
			TimeUS: e.TimeUS, Operands: len(e.Reads)}
		for _, rd := range e.Reads {
			if rd.Coalesced {
				r.Coalesced++
			}
		}
		if xla != nil {
			r.HasXLA, r.XLA = true, xla.Cost.Of(e.Instr)
		}
		out = append(out, r)
	}
	return out
}
