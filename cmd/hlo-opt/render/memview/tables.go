package memview

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

// FoldBelow is the size under which buffers are folded into one row of
// a table (TPU scalars take 512 bytes each: a program has hundreds).
const FoldBelow = 4 << 10

// MaxLiveRows bounds the rows of the buffers live at a step; the rest
// are summed in one row.
const MaxLiveRows = 100

// MaxAliases is how many aliases a buffer's row names.
const MaxAliases = 3

// buffer is one row's worth of a buffer: what the tables and the step
// picker show.
type buffer struct {
	Bytes, Unpadded int64
	Shape, Kind     string
	Instruction     string // the defining value: "name" or "name {1}"
	Also            string // its aliases, "also copy-done.3, ..."
	Operator        string // op_name
	Source, Stack   string // file:line:function, the whole stack
	Rule            string
	Start, End      int
	Own             bool // an allocation of its own (parameter, constant, output)
}

// Padding is the bytes the layout adds.
func (b buffer) Padding() int64 { return b.Bytes - b.Unpadded }

// Steps is the live steps as the tables print them: "all" for an
// allocation of its own, "a–b" for a temporary, "–" for one that lives
// only between two steps' fullest moments.
func (b buffer) Steps() string {
	switch {
	case b.Own:
		return "all"
	case b.Start > b.End:
		return "–"
	}
	return strconv.Itoa(b.Start) + "–" + strconv.Itoa(b.End)
}

// describer makes rows of buffers: their names, aliases and origins.
type describer struct {
	frames *hlo.StackFrames
}

func (d describer) buffer(b layoutassign.Buffer) buffer {
	r := buffer{Bytes: b.Cost.Bytes, Unpadded: b.Cost.Unpadded, Shape: layoutassign.AbbreviateShape(b.Cost.Shape.String()), Kind: b.Kind,
		Instruction: label(b.Instruction, b.Index), Rule: b.Cost.Rule.Name, Start: b.Start, End: b.End, Own: b.Kind != layoutassign.KindTemp}
	r.Also = also(b.Aliases)
	r.Operator = opName(b.Instruction)
	st := d.frames.StackOf(b.Instruction)
	if len(st) > 0 {
		r.Source = st[0].String()
		frames := make([]string, len(st))
		for i, f := range st {
			frames[i] = f.String()
		}
		r.Stack = strings.Join(frames, "\n")
	}
	return r
}

// also names a buffer's aliases: "also copy-done.3, bitcast.1 and 4 more".
func also(refs []layoutassign.ValueRef) string {
	if len(refs) == 0 {
		return ""
	}
	var names []string
	for _, r := range refs[:min(len(refs), MaxAliases)] {
		names = append(names, label(r.Instruction, r.Index))
	}
	s := "also " + strings.Join(names, ", ")
	if n := len(refs) - MaxAliases; n > 0 {
		s += fmt.Sprintf(" and %d more", n)
	}
	return s
}

// liveRow is a row of the table of buffers live at a step: a buffer, or
// the sum of the buffers folded into one row (Count of them).
type liveRow struct {
	Rank int
	buffer
	Count int
}

// stepTable is the table of the buffers live at one step: the largest
// MaxLiveRows of FoldBelow and more, then one row for the rest of those,
// one for the smaller ones.
type stepTable struct {
	Step  int
	Rows  []liveRow
	More  *liveRow // the buffers past MaxLiveRows
	Small *liveRow // the buffers under FoldBelow
}

// newStepTable lays out the buffers live at a step, in LiveAt's order.
func newStepTable(step int, live []buffer) stepTable {
	t := stepTable{Step: step}
	for _, b := range live {
		switch {
		case b.Bytes < FoldBelow:
			t.Small = fold(t.Small, b, "under "+passes.FormatBytes(FoldBelow))
		case len(t.Rows) < MaxLiveRows:
			t.Rows = append(t.Rows, liveRow{Rank: len(t.Rows) + 1, buffer: b, Count: 1})
		default:
			t.More = fold(t.More, b, "more")
		}
	}
	return t
}

// fold adds b to the folded row r (nil: a new one), named "N buffers
// what".
func fold(r *liveRow, b buffer, what string) *liveRow {
	if r == nil {
		r = &liveRow{}
	}
	r.Count++
	r.Bytes += b.Bytes
	r.Unpadded += b.Unpadded
	r.Instruction = buffers(r.Count) + " " + what
	return r
}

// buffers is "1 buffer", "2 buffers".
func buffers(n int) string {
	if n == 1 {
		return "1 buffer"
	}
	return strconv.Itoa(n) + " buffers"
}

// stepData is what the page's script needs to show any step of a space:
// the timeline, and every buffer once with its live steps, in LiveAt's
// order (so that those of a step, in this order, are LiveAt's list).
type stepData struct {
	Peak    int        `json:"peak"`
	Steps   []stepJSON `json:"steps"`
	Buffers [][]any    `json:"buffers"`
	Fold    int64      `json:"fold"`
	MaxRows int        `json:"max_rows"`
}

// stepJSON is [bytes, unpadded, instruction] of one step.
type stepJSON [3]any

// newStepData encodes a space's timeline and buffers for the script.
func newStepData(sp layoutassign.SpaceReport, bufs []buffer) template.JS {
	d := stepData{Peak: sp.PeakStep, Steps: make([]stepJSON, len(sp.Timeline)), Fold: FoldBelow, MaxRows: MaxLiveRows,
		Buffers: make([][]any, len(bufs))}
	for i, p := range sp.Timeline {
		d.Steps[i] = stepJSON{p.Bytes, p.Unpadded, p.At}
	}
	for i, b := range bufs {
		d.Buffers[i] = []any{b.Bytes, b.Unpadded, b.Shape, b.Kind, b.Instruction, b.Also, b.Operator, b.Source, b.Stack, b.Start, b.End, b.Own}
	}
	js, err := json.Marshal(d)
	if err != nil {
		panic(err) // numbers and strings only
	}
	return template.JS(strings.ReplaceAll(string(js), "<", `\u003c`))
}

// padRow is one buffer of the padding table, or the buffers under
// FoldBelow folded into one row.
type padRow struct {
	Space string
	buffer
	Expansion float64
	Suggested string
	Saving    int64
	Count     int
}

// MaxPadded bounds the padding table.
const MaxPadded = 25

// padding lists the buffers of every space with the most padding, each
// once (an alias's suggestion goes to its buffer), those under FoldBelow
// in one row at the end.
func padding(mr *layoutassign.MemoryReport, d describer) (rows []padRow, small *padRow) {
	type key struct {
		name  string
		index string
	}
	sugg := map[key]layoutassign.ArraySuggestion{}
	for _, s := range mr.Suggestions {
		sugg[key{s.Instruction, fmt.Sprint(s.Index)}] = s
	}
	for _, sp := range mr.Spaces {
		for _, b := range sp.Buffers {
			if b.Cost.Bytes <= b.Cost.Unpadded {
				continue
			}
			if b.Cost.Bytes < FoldBelow {
				if small == nil {
					small = &padRow{}
				}
				small.Count++
				small.Bytes += b.Cost.Bytes
				small.Unpadded += b.Cost.Unpadded
				continue
			}
			r := padRow{Space: sp.Name, buffer: d.buffer(b), Expansion: b.Cost.Expansion, Count: 1}
			refs := append([]layoutassign.ValueRef{{Instruction: b.Instruction, Index: b.Index}}, b.Aliases...)
			for _, ref := range refs {
				if s, ok := sugg[key{ref.Instruction.Name, fmt.Sprint(ref.Index)}]; ok && r.Suggested == "" {
					r.Suggested, r.Saving = s.Shape.String(), s.Before-s.After
				}
			}
			rows = append(rows, r)
		}
	}
	slices.SortStableFunc(rows, func(a, b padRow) int {
		return cmp.Or(cmp.Compare(b.Padding(), a.Padding()), strings.Compare(a.Instruction, b.Instruction))
	})
	if small != nil {
		small.Instruction = buffers(small.Count) + " under " + passes.FormatBytes(FoldBelow)
		small.Expansion = float64(small.Bytes) / float64(max(small.Unpadded, 1))
	}
	return rows[:min(len(rows), MaxPadded)], small
}

// blame lists the padded arrays of a module without entry computation,
// which has no buffers: each instruction leaf outside fused computations,
// most extra bytes first.
func blame(mr *layoutassign.MemoryReport, d describer) []padRow {
	fused := map[*hlo.Computation]bool{}
	for in := range mr.Arrays() {
		if in.Opcode == hlo.OpFusion {
			for _, c := range in.Called {
				fused[c] = true
			}
		}
	}
	var rows []padRow
	for in, costs := range mr.Arrays() {
		if fused[in.Parent] {
			continue // never materialised
		}
		for _, c := range costs {
			if c.Bytes <= c.Unpadded || c.Unsized {
				continue
			}
			b := d.buffer(layoutassign.Buffer{Allocation: layoutassign.Allocation{Instruction: in, Index: c.Index, Cost: c}})
			rows = append(rows, padRow{buffer: b, Expansion: c.Expansion, Count: 1})
		}
	}
	slices.SortFunc(rows, func(a, b padRow) int {
		return cmp.Or(cmp.Compare(b.Padding(), a.Padding()), strings.Compare(a.Instruction, b.Instruction))
	})
	return rows[:min(len(rows), MaxPadded)]
}

// label is "name", or "name {1,2}" for a tuple leaf.
func label(in *hlo.Instruction, index []int64) string {
	return layoutassign.ValueRef{Instruction: in, Index: index}.String()
}

var opNameRE = regexp.MustCompile(`op_name="((?:[^"\\]|\\.)*)"`)

// opName is the op_name of in's metadata.
func opName(in *hlo.Instruction) string {
	if in == nil {
		return ""
	}
	md, ok := in.Attr("metadata")
	if !ok {
		return ""
	}
	if m := opNameRE.FindStringSubmatch(md); m != nil {
		return m[1]
	}
	return ""
}
