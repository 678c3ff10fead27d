package xladiff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/xladump"
	"github.com/hlo-opt/hlo-opt/layoutassign"
)

// Backend is one target XLA compiled for and the hlo-opt flags a user
// gives for it.
type Backend struct {
	// Name is the compile directory's name: tpu-v5e, tpu-v6e, tpu-v4,
	// h100 or cpu.
	Name string
	// Flags select the device (or the target, for the CPU).
	Flags []string
	// TPU backends have their layouts compared.
	TPU bool
}

// Backends are the backends the differential tester compiles for.
var Backends = []Backend{
	{Name: "tpu-v5e", Flags: []string{"--device=tpu-v5e"}, TPU: true},
	{Name: "tpu-v6e", Flags: []string{"--device=tpu-v6e"}, TPU: true},
	{Name: "tpu-v4", Flags: []string{"--device=tpu-v4"}, TPU: true},
	{Name: "h100", Flags: []string{"--device=h100"}},
	{Name: "cpu", Flags: []string{"--target=cpu"}},
}

// LookupBackend returns the backend named name.
func LookupBackend(name string) (Backend, error) {
	for _, b := range Backends {
		if b.Name == name {
			return b, nil
		}
	}
	names := make([]string, len(Backends))
	for i, b := range Backends {
		names[i] = b.Name
	}
	return Backend{}, fmt.Errorf("unknown backend %q (known: %s)", name, strings.Join(names, ", "))
}

// The figures compared, in the order of the table.
const (
	Parse       = "parse"
	Verify      = "verify"
	RoundTrip   = "round trip"
	Arguments   = "arguments"
	Outputs     = "outputs"
	Aliased     = "aliased"
	Temporaries = "temporaries"
	PeakExact   = "peak exact"
	Peak5       = "peak within 5%"
	Sizes       = "buffer sizes"
	Classes     = "allocation classes"
	Layouts     = "TPU layouts"
	Flops       = "xla-cost flops"
)

// Figures lists the figures in table order.
var Figures = []string{Parse, Verify, RoundTrip, Arguments, Outputs, Aliased, Temporaries, PeakExact, Peak5, Sizes, Classes, Layouts, Flops}

// Outcome is one figure of one compile.
type Outcome struct {
	Figure string `json:"figure"`
	// Agree: hlo-opt's figure is XLA's (peak within 5%: within 5% of it;
	// flops: within 1%).
	Agree bool `json:"agree"`
	// XLA and Ours are the numbers set side by side, where there is one.
	XLA  float64 `json:"xla,omitempty"`
	Ours float64 `json:"ours,omitempty"`
	// Count items were compared, Equal of them agree (buffer sizes:
	// values; TPU layouts: arrays).
	Count int `json:"count,omitempty"`
	Equal int `json:"equal,omitempty"`
	// Detail says what differs (the first differing items).
	Detail string `json:"detail,omitempty"`
	// List names every differing item where the figure counts items (TPU
	// layouts: each array whose minor_to_major or tiles differ, with both
	// shapes).
	List []string `json:"list,omitempty"`
}

// Result is every figure of one compile.
type Result struct {
	Dir      string    `json:"dir"`
	Backend  string    `json:"backend"`
	Outcomes []Outcome `json:"outcomes"`
}

// Outcome returns the outcome of figure, false when it was not compared.
func (r *Result) Outcome(figure string) (Outcome, bool) {
	for _, o := range r.Outcomes {
		if o.Figure == figure {
			return o, true
		}
	}
	return Outcome{}, false
}

// Disagreements lists the figures that differ from XLA's.
func (r *Result) Disagreements() []Outcome {
	var out []Outcome
	for _, o := range r.Outcomes {
		if !o.Agree {
			out = append(out, o)
		}
	}
	return out
}

// Runner runs the hlo-opt command with args and returns what it wrote to
// stdout and stderr and its exit code.
type Runner func(ctx context.Context, args []string) (stdout, stderr []byte, code int)

// compile is what XLA wrote for one compile.
type compile struct {
	before, after []byte
	ba            *xladump.BufferAssignment
	ma            *xladump.MemoryAnalysis
	ca            *xladump.CostAnalysis
}

func readCompile(dir string) (*compile, error) {
	var c compile
	var err error
	if c.before, err = os.ReadFile(filepath.Join(dir, xladump.BeforeOptimizations)); err != nil {
		return nil, err
	}
	if c.after, err = os.ReadFile(filepath.Join(dir, xladump.AfterOptimizations)); err != nil {
		return nil, err
	}
	if src, err := os.ReadFile(filepath.Join(dir, xladump.BufferAssignmentTxt)); err == nil {
		if c.ba, err = xladump.ParseBufferAssignment(string(src)); err != nil {
			return nil, fmt.Errorf("%s: %w", xladump.BufferAssignmentTxt, err)
		}
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	if c.ma, err = xladump.ReadJSON[xladump.MemoryAnalysis](filepath.Join(dir, xladump.MemoryAnalysisJSON)); err != nil {
		return nil, err
	}
	if c.ca, err = xladump.ReadJSON[xladump.CostAnalysis](filepath.Join(dir, xladump.CostAnalysisJSON)); err != nil {
		return nil, err
	}
	return &c, nil
}

// Compare runs hlo-opt on the compile in dir for backend b and sets every
// figure beside XLA's. An error means the compile could not be read;
// what hlo-opt gets wrong (a refusal included) is an outcome.
func Compare(ctx context.Context, dir string, b Backend, run Runner) (*Result, error) {
	d, err := newDiffer(ctx, dir, b, run)
	if err != nil {
		return nil, err
	}
	d.text(dir)
	d.memory(filepath.Join(dir, xladump.AfterOptimizations))
	if b.TPU {
		d.layouts(filepath.Join(dir, xladump.BeforeOptimizations))
	}
	d.flops(filepath.Join(dir, xladump.AfterOptimizations))
	return d.r, nil
}

// CompareLayouts sets only the TPU layouts beside XLA's (none for other
// backends): one hlo-opt run a compile, the quick loop of work on the
// layout rules.
func CompareLayouts(ctx context.Context, dir string, b Backend, run Runner) (*Result, error) {
	d, err := newDiffer(ctx, dir, b, run)
	if err != nil {
		return nil, err
	}
	if b.TPU {
		d.layouts(filepath.Join(dir, xladump.BeforeOptimizations))
	}
	return d.r, nil
}

func newDiffer(ctx context.Context, dir string, b Backend, run Runner) (*differ, error) {
	c, err := readCompile(dir)
	if err != nil {
		return nil, err
	}
	return &differ{ctx: ctx, run: run, b: b, c: c, r: &Result{Dir: dir, Backend: b.Name}}, nil
}

type differ struct {
	ctx context.Context
	run Runner
	b   Backend
	c   *compile
	r   *Result
}

func (d *differ) add(o Outcome) { d.r.Outcomes = append(d.r.Outcomes, o) }

// hloOpt runs the command on file with the backend's flags and args; err
// is its first line of stderr when it fails.
func (d *differ) hloOpt(file string, args ...string) ([]byte, error) {
	full := append(append(slices.Clone(args), d.b.Flags...), file)
	out, errOut, code := d.run(d.ctx, full)
	if code != 0 {
		line, _, _ := strings.Cut(strings.TrimSpace(string(errOut)), "\n")
		return nil, fmt.Errorf("hlo-opt %s: exit %d: %s", strings.Join(args, " "), code, line)
	}
	return out, nil
}

// text: both modules parse, verify and print back byte for byte.
func (d *differ) text(dir string) {
	parse, verify, trip := Outcome{Figure: Parse, Agree: true}, Outcome{Figure: Verify, Agree: true}, Outcome{Figure: RoundTrip, Agree: true}
	fail := func(o *Outcome, name string, err error) {
		if o.Agree {
			o.Agree, o.Detail = false, name+": "+err.Error()
		}
	}
	for _, f := range []struct {
		name string
		src  []byte
	}{{xladump.AfterOptimizations, d.c.after}, {xladump.BeforeOptimizations, d.c.before}} {
		path := filepath.Join(dir, f.name)
		out, errOut, code := d.run(d.ctx, []string{path})
		switch {
		case code != 0:
			line, _, _ := strings.Cut(strings.TrimSpace(string(errOut)), "\n")
			fail(&parse, f.name, fmt.Errorf("exit %d: %s", code, line))
			fail(&trip, f.name, fmt.Errorf("not parsed"))
		case !bytes.Equal(out, f.src):
			fail(&trip, f.name, fmt.Errorf("printed text differs at line %d", firstDiffLine(out, f.src)))
		}
		if _, err := d.hloOpt(path, "--passes=verify"); err != nil {
			fail(&verify, f.name, err)
		}
	}
	d.add(parse)
	d.add(verify)
	d.add(trip)
}

// firstDiffLine is the 1-based number of the first line where a and b
// differ.
func firstDiffLine(a, b []byte) int {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(la), len(lb)) {
		if !bytes.Equal(la[i], lb[i]) {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

// layoutReport is the part of `hlo-opt --passes=layout --format=json` the
// differ reads.
type layoutReport struct {
	Layout       layoutassign.ModuleJSON `json:"layout"`
	Computations []struct {
		Instructions []struct {
			Name   string                  `json:"name"`
			Layout *layoutassign.ArrayJSON `json:"layout"`
		} `json:"instructions"`
	} `json:"computations"`
}

// memory: the memory report of the after-optimizations module against
// memory_analysis() and the buffer assignment.
func (d *differ) memory(path string) {
	out, err := d.hloOpt(path, "--passes=layout", "--format=json")
	var rep layoutReport
	if err == nil {
		err = json.Unmarshal(out, &rep)
	}
	if err != nil {
		var figures []string
		if d.c.ma != nil {
			figures = append(figures, Arguments, Outputs, Aliased, PeakExact, Peak5)
			if !d.b.TPU {
				figures = append(figures, Temporaries)
			}
		}
		if d.c.ba != nil {
			figures = append(figures, Sizes, Classes)
		}
		for _, f := range figures {
			d.add(Outcome{Figure: f, Detail: err.Error()})
		}
		return
	}
	if ma := d.c.ma; ma != nil {
		l := rep.Layout
		exact := func(f string, xla, ours int64) {
			d.add(Outcome{Figure: f, Agree: xla == ours, XLA: float64(xla), Ours: float64(ours)})
		}
		exact(Arguments, ma.Arguments, l.ArgumentBytes)
		exact(Outputs, ma.Outputs, l.OutputBytes)
		exact(Aliased, ma.Aliased, l.AliasedBytes)
		if !d.b.TPU { // the TPU's memory_analysis() reports 0 temp bytes
			exact(Temporaries, ma.Temporaries, l.TemporaryBytes)
		}
		exact(PeakExact, ma.Peak, l.XLAPeakBytes)
		d.add(Outcome{Figure: Peak5, Agree: within(float64(l.XLAPeakBytes), float64(ma.Peak), 0.05),
			XLA: float64(ma.Peak), Ours: float64(l.XLAPeakBytes)})
	}
	if d.c.ba != nil {
		d.add(d.sizes(&rep))
		d.add(classes(d.c.ba.Stats(), rep.Layout.BufferAssignment))
	}
}

// within reports whether ours is within tol (a fraction) of xla.
func within(ours, xla, tol float64) bool {
	if xla == 0 {
		return ours == 0
	}
	return math.Abs(ours-xla) <= tol*math.Abs(xla)
}

// maxDetails bounds the items an outcome's detail names.
const maxDetails = 4

// sizes sets every value of XLA's buffer assignment beside the report's
// size of that array leaf or tuple table.
func (d *differ) sizes(rep *layoutReport) Outcome {
	byName := map[string]*layoutassign.ArrayJSON{}
	for _, c := range rep.Computations {
		for _, in := range c.Instructions {
			if in.Layout != nil {
				byName[in.Name] = in.Layout
			}
		}
	}
	o := Outcome{Figure: Sizes}
	var misses []string
	for _, v := range d.c.ba.Values() {
		o.Count++
		ours, ok := valueBytes(byName[v.Instruction], v.Index)
		if ok && ours == v.Size {
			o.Equal++
			continue
		}
		what := fmt.Sprint(ours)
		if !ok {
			what = "none"
		}
		misses = append(misses, fmt.Sprintf("%s %s: XLA %d, ours %s", v.Instruction, v.Shape, v.Size, what))
	}
	o.Agree = o.Equal == o.Count
	o.Detail = listDetail(misses)
	return o
}

// listDetail joins the first maxDetails items and counts the rest.
func listDetail(items []string) string {
	if len(items) > maxDetails {
		return strings.Join(items[:maxDetails], "; ") + fmt.Sprintf("; %d more", len(items)-maxDetails)
	}
	return strings.Join(items, "; ")
}

// valueBytes is the report's size of the value at index of an
// instruction: its array, a tuple leaf, or a tuple's index table.
func valueBytes(j *layoutassign.ArrayJSON, index []int64) (int64, bool) {
	switch {
	case j == nil:
		return 0, false
	case len(j.Leaves) == 0 && len(j.Tables) == 0:
		return j.Bytes, len(index) == 0
	}
	for _, t := range j.Tables {
		if slices.Equal(t.Index, index) {
			return t.Bytes, true
		}
	}
	for _, l := range j.Leaves {
		if slices.Equal(l.Index, index) {
			return l.Bytes, true
		}
	}
	return 0, false
}

// classes sets XLA's allocation classes beside the report's
// buffer_assignment stats.
func classes(xla xladump.AllocationStats, ours layoutassign.BufferStats) Outcome {
	o := Outcome{Figure: Classes}
	var misses []string
	for _, f := range []struct {
		name      string
		xla, ours int64
	}{
		{"parameter", xla.Parameter, ours.ParameterBytes},
		{"constant", xla.Constant, ours.ConstantBytes},
		{"maybe-live-out", xla.MaybeLiveOut, ours.MaybeLiveOutBytes},
		{"preallocated temp", xla.PreallocatedTemp, ours.PreallocatedTempBytes},
		{"thread-local", xla.ThreadLocal, ours.ThreadLocalBytes},
		{"total", xla.Total, ours.TotalBytes},
	} {
		o.Count++
		if f.xla == f.ours {
			o.Equal++
			continue
		}
		misses = append(misses, fmt.Sprintf("%s: XLA %d, ours %d", f.name, f.xla, f.ours))
	}
	o.Agree = o.Equal == o.Count
	o.Detail = listDetail(misses)
	return o
}

// layouts: the layouts --relayout assigns to the before-optimizations
// module against XLA's after optimizations.
func (d *differ) layouts(path string) {
	out, err := d.hloOpt(path, "--passes=layout-assign", "--relayout", "--emit=module")
	var ours, after *hlo.Module
	if err == nil {
		ours, err = hlo.ParseFile("hlo-opt output", out)
	}
	if err == nil {
		after, err = hlo.ParseFile(xladump.AfterOptimizations, d.c.after)
	}
	if err != nil {
		d.add(Outcome{Figure: Layouts, Detail: err.Error()})
		return
	}
	n := xladump.NewLayoutTally()
	n.Compare("", ours, after)
	o := Outcome{Figure: Layouts, Count: n.Arrays, Equal: n.LayoutsEqual()}
	o.Agree = o.Equal == o.Count
	var misses []string
	for _, k := range sortedKeys(n.Misses) {
		if !xladump.IsSpaceMiss(k) {
			misses = append(misses, fmt.Sprintf("%d %s, e.g.%s", n.Misses[k], k, n.Examples[k]))
		}
	}
	o.Detail = listDetail(misses)
	for _, m := range n.List {
		if !xladump.IsSpaceMiss(m) {
			o.List = append(o.List, m)
		}
	}
	d.add(o)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// XLACostPass is the pass that gives compiled.cost_analysis()'s figures
// (issue 23); its JSON puts the module's totals under its name.
const XLACostPass = "xla-cost"

// flops: the xla-cost pass's flops against compiled.cost_analysis(), where
// XLA gives one (not the deviceless GPU compile) and the command offers
// the pass.
func (d *differ) flops(path string) {
	if d.c.ca == nil {
		return
	}
	list, _, code := d.run(d.ctx, []string{"--list-passes"})
	if code != 0 || !slices.ContainsFunc(strings.Split(string(list), "\n"), func(l string) bool {
		f := strings.Fields(l)
		return len(f) > 0 && f[0] == XLACostPass
	}) {
		return
	}
	out, err := d.hloOpt(path, "--passes="+XLACostPass, "--format=json")
	var rep map[string]json.RawMessage
	var cost struct {
		Flops *float64 `json:"flops"`
	}
	if err == nil {
		err = json.Unmarshal(out, &rep)
	}
	if err == nil {
		if raw, ok := rep[XLACostPass]; ok {
			err = json.Unmarshal(raw, &cost)
		}
		if err == nil && cost.Flops == nil {
			err = fmt.Errorf("the JSON report has no %q.flops", XLACostPass)
		}
	}
	if err != nil {
		d.add(Outcome{Figure: Flops, Detail: err.Error()})
		return
	}
	d.add(Outcome{Figure: Flops, Agree: within(*cost.Flops, d.c.ca.Flops, 0.01), XLA: d.c.ca.Flops, Ours: *cost.Flops})
}
