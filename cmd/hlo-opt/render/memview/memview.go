package memview

import (
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hlo-opt/hlo-opt/cost"
	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

// Input is what the page shows: the memory report of the layout pass
// (required) and, when the cost passes ran, their estimates.
type Input struct {
	// File names the module's source in the title.
	File   string
	Memory *layoutassign.MemoryReport
	// Relayout says the layout pass assigned every layout anew rather
	// than keeping the module's.
	Relayout bool
	Cost     *cost.CostResult
}

// MaxBlamed bounds the padding table.
const MaxBlamed = 25

//go:embed page.html.tmpl
var pageText string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"bytes": passes.FormatBytes,
}).Parse(pageText))

// Write renders the page of in to w.
func Write(w io.Writer, in Input) error {
	if in.Memory == nil {
		return fmt.Errorf("memview: no memory report (run the layout pass)")
	}
	v := build(in)
	return page.Execute(w, v)
}

// view is the template's data.
type view struct {
	Title, Module, File, Target, Device, Entry, Order string
	Layouts                                           string
	Steps                                             int
	Arguments, Outputs, Aliased, Temporaries          int64
	Peak, PeakUnpadded, XLAPeak                       int64
	PeakAt                                            string
	PeakStep                                          int
	Verdict                                           string
	Fits, Exceeds                                     bool
	Notes                                             []string
	Charts                                            []chart
	Live                                              []liveRow
	Blamed                                            []blameRow
	Computations                                      []layoutassign.ComputationPeak
	Fusions                                           []fusionRow
	CostDevice                                        string
	CostTimeUS                                        float64
	HasCost, CostGPU                                  bool
	MarginL, PlotW                                    int
}

type liveRow struct {
	Rank                               int
	Bytes, Unpadded, Padding           int64
	Shape, Kind, Instruction, Operator string
	Source, Rule                       string
	Start, End                         int
}

type blameRow struct {
	Instruction, Shape, Rule string
	Bytes, Unpadded, Extra   int64
	Expansion                float64
	Suggested                string
	Saving                   int64
}

type fusionRow struct {
	Name, Emitter, Bound string
	Bytes                int64
	Flops                float64
	TimeUS               float64
	Coalesced, Operands  int
}

func build(in Input) *view {
	mr := in.Memory
	v := &view{
		Module: mr.Module, File: in.File, Target: mr.Target.String(), Device: mr.Target.Device,
		Entry: mr.Entry, Order: mr.Order, Steps: mr.Steps,
		Arguments: mr.ArgumentBytes, Outputs: mr.OutputBytes, Aliased: mr.AliasedBytes, Temporaries: mr.TemporaryBytes,
		Peak: mr.PeakBytes, PeakUnpadded: mr.PeakUnpadded, XLAPeak: mr.XLAPeakBytes, PeakAt: mr.PeakAt, PeakStep: mr.PeakStep,
		Verdict: mr.Verdict(), Computations: mr.Computations,
		Layouts: "kept as the module states them", MarginL: marginL, PlotW: chartW - marginL - marginR,
	}
	if in.Relayout {
		v.Layouts = "assigned anew (--relayout)"
	}
	v.Title = "Memory of " + mr.Module
	if mr.Target.HBMBytes > 0 {
		v.Fits, v.Exceeds = mr.PeakBytes <= mr.Target.HBMBytes, mr.PeakBytes > mr.Target.HBMBytes
	}
	if mr.Entry == "" {
		v.Notes = append(v.Notes, "The module has no entry computation (a truncated dump): no program-order chart; each computation no other calls is reported as if it were the entry.")
	}
	for _, sp := range mr.Spaces {
		if len(sp.Timeline) == 0 || sp.PeakBytes == 0 {
			continue
		}
		var capacity int64
		if sp.Space == 0 {
			capacity = mr.Target.HBMBytes
		}
		v.Charts = append(v.Charts, newChart(sp, capacity, mr.Target.Device))
	}
	for i, a := range mr.LiveAtPeak {
		op, src := metadata(a.Instruction)
		v.Live = append(v.Live, liveRow{
			Rank: i + 1, Bytes: a.Cost.Bytes, Unpadded: a.Cost.Unpadded, Padding: a.Cost.Bytes - a.Cost.Unpadded,
			Shape: layoutassign.AbbreviateShape(a.Cost.Shape.String()), Kind: a.Kind, Instruction: label(a.Instruction, a.Index), Operator: op, Source: src,
			Rule: a.Cost.Rule.Name, Start: a.Start, End: a.End,
		})
	}
	v.Blamed = blame(mr)
	if in.Cost != nil {
		v.HasCost = true
		me := in.Cost.Estimate()
		dev := in.Cost.Device()
		v.CostDevice, v.CostTimeUS, v.CostGPU = me.Device, me.TimeUS, dev.IsGPU()
		for _, e := range me.Kernels {
			if e.Instr.Opcode != hlo.OpFusion {
				continue
			}
			r := fusionRow{Name: e.Instr.Name, Emitter: e.Kind(), Bound: e.Bound, Bytes: e.Bytes(), Flops: e.Flops,
				TimeUS: e.TimeUS, Operands: len(e.Reads)}
			for _, rd := range e.Reads {
				if rd.Coalesced {
					r.Coalesced++
				}
			}
			v.Fusions = append(v.Fusions, r)
		}
	}
	return v
}

// blame lists the arrays (outside fused computations) with the most
// padding, one row per instruction leaf, with the suggested layout when
// the report has one.
func blame(mr *layoutassign.MemoryReport) []blameRow {
	type key struct {
		name  string
		index string
	}
	sugg := map[key]layoutassign.ArraySuggestion{}
	for _, s := range mr.Suggestions {
		sugg[key{s.Instruction, fmt.Sprint(s.Index)}] = s
	}
	fused := map[*hlo.Computation]bool{}
	for in := range mr.Arrays {
		if in.Opcode == hlo.OpFusion {
			for _, c := range in.Called {
				fused[c] = true
			}
		}
	}
	var rows []blameRow
	for in, costs := range mr.Arrays {
		if fused[in.Parent] {
			continue // never materialised
		}
		for _, c := range costs {
			if c.Bytes <= c.Unpadded || c.Unsized {
				continue
			}
			r := blameRow{Instruction: label(in, c.Index), Shape: c.Shape.String(), Rule: c.Rule.Name,
				Bytes: c.Bytes, Unpadded: c.Unpadded, Extra: c.Bytes - c.Unpadded, Expansion: c.Expansion}
			if s, ok := sugg[key{in.Name, fmt.Sprint(c.Index)}]; ok {
				r.Suggested, r.Saving = s.Shape.String(), s.Before-s.After
			}
			rows = append(rows, r)
		}
	}
	slices.SortFunc(rows, func(a, b blameRow) int {
		return cmp.Or(cmp.Compare(b.Extra, a.Extra), strings.Compare(a.Instruction, b.Instruction))
	})
	return rows[:min(len(rows), MaxBlamed)]
}

func label(in *hlo.Instruction, index []int64) string {
	if in == nil {
		return ""
	}
	if len(index) == 0 {
		return in.Name
	}
	parts := make([]string, len(index))
	for i, x := range index {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return in.Name + " {" + strings.Join(parts, ",") + "}"
}

var (
	opNameRE = regexp.MustCompile(`op_name="((?:[^"\\]|\\.)*)"`)
	fileRE   = regexp.MustCompile(`source_file="((?:[^"\\]|\\.)*)"`)
	lineRE   = regexp.MustCompile(`source_line=(\d+)`)
)

// metadata returns the op_name and "file:line" of in's metadata.
func metadata(in *hlo.Instruction) (op, src string) {
	if in == nil {
		return "", ""
	}
	md, ok := in.Attr("metadata")
	if !ok {
		return "", ""
	}
	if m := opNameRE.FindStringSubmatch(md); m != nil {
		op = m[1]
	}
	if m := fileRE.FindStringSubmatch(md); m != nil {
		src = m[1]
		if l := lineRE.FindStringSubmatch(md); l != nil {
			src += ":" + l[1]
		}
	}
	return op, src
}
