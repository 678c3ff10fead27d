package memview_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"golang.org/x/net/html"

	"github.com/hlo-opt/hlo-opt/cmd/hlo-opt/internal/htmltest"
	"github.com/hlo-opt/hlo-opt/cmd/hlo-opt/render/memview"
	"github.com/hlo-opt/hlo-opt/cost"
	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
	"github.com/hlo-opt/hlo-opt/passes/render"
)

// run parses file (under testdata) and runs the layout and cost passes for
// the device as hlo-opt --device does.
func run(t *testing.T, file string, device cost.Device) (*passes.Results, *layoutassign.Result, *cost.CostResult) {
	t.Helper()
	m, err := hlo.ParseFile(file, hlotest.ReadTestdata(t, file))
	require.NoError(t, err)
	cfg := cost.DefaultConfig()
	cfg.Device = device
	pl, err := passes.NewPipeline([]*passes.Pass{layoutassign.Pass, cost.CostPass}, passes.Options{Logger: zap.NewNop(), Config: cfg.PipelineConfig()})
	require.NoError(t, err)
	res, err := pl.Run(context.Background(), m)
	require.NoError(t, err)
	lr, ok := passes.ResultOf[*layoutassign.Result](res, layoutassign.Pass)
	require.True(t, ok)
	cr, ok := passes.ResultOf[*cost.CostResult](res, cost.CostPass)
	require.True(t, ok)
	return res, lr, cr
}

// jsonReport is the part of hlo-opt's JSON report the page shows.
type jsonReport struct {
	Layout       layoutassign.ModuleJSON `json:"layout"`
	Computations []struct {
		Name         string `json:"name"`
		Instructions []struct {
			Name string `json:"name"`
			Cost *struct {
				Bytes   int64   `json:"bytes"`
				TimeUS  float64 `json:"time_us"`
				Emitter string  `json:"emitter"`
			} `json:"cost"`
		} `json:"instructions"`
	} `json:"computations"`
}

// pageOf runs the layout and cost passes on file for device and renders
// the page and the JSON report of the run.
func pageOf(t *testing.T, file, device string) (*html.Node, string, jsonReport, *layoutassign.Result, *hlo.Module) {
	t.Helper()
	dev, err := cost.LookupDevice(device, nil)
	require.NoError(t, err)
	res, lr, cr := run(t, file, dev)
	var page bytes.Buffer
	require.NoError(t, memview.Write(&page, memview.Input{File: file, Module: res.Module, Memory: lr.Memory, Cost: cr}))
	var js bytes.Buffer
	require.NoError(t, render.WriteJSON(&js, res, render.JSONOptions{}))
	var rep jsonReport
	require.NoError(t, json.Unmarshal(js.Bytes(), &rep), js.String()[:min(js.Len(), 400)])
	doc, err := html.Parse(bytes.NewReader(page.Bytes()))
	require.NoError(t, err)
	return doc, page.String(), rep, lr, res.Module
}

// The pages of hand-written training steps and of XLA's own TPU compiles
// (one device and four) show what the JSON report says.
func TestPageAgainstJSONReport(t *testing.T) {
	for _, tc := range []struct {
		file   string
		device string
	}{
		{"layout/tpu_train_step.hlo", "tpu-v5e"},
		{"layout/gpu_train_step.hlo", "h100"},
		{"groundtruth/transformer_fwd/tpu-v5e/large/after_optimizations.txt", "tpu-v5e"},
		{"groundtruth/mlp/tpu-v5e-4way/large/after_optimizations.txt", "tpu-v5e"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			doc, page, rep, lr, m := pageOf(t, tc.file, tc.device)
			lj := rep.Layout
			assert.Empty(t, findAll(doc, func(n *html.Node) bool {
				return (n.Data == "script" || n.Data == "img" || n.Data == "link") && (attr(n, "src") != "" || attr(n, "href") != "")
			}), "self-contained: nothing loaded from elsewhere")
			assert.NotContains(t, page, "https://")

			checkHeadline(t, doc, lj)
			checkSummary(t, doc, lj)
			checkCharts(t, doc, lj)
			checkLiveTable(t, doc, lj, lr.Memory, hlo.NewStackFrames(m))
			checkPadding(t, doc, lj, lr.Memory)
			checkFusions(t, doc, page, rep, lr.Memory.Target.Backend == layoutassign.BackendTPU)
		})
	}
}

// checkHeadline: XLA's peak and its terms, the HBM peak beside it, the
// verdict and the capacity of each memory space, as the JSON has them.
func checkHeadline(t *testing.T, doc *html.Node, lj layoutassign.ModuleJSON) {
	t.Helper()
	peak := byID(doc, "xla-peak")
	require.NotNil(t, peak)
	assert.Equal(t, strconv.FormatInt(lj.XLAPeakBytes, 10), attr(peak, "data-bytes"))
	assert.Equal(t, passes.FormatBytes(lj.XLAPeakBytes), text(peak))
	parts := findAll(byID(doc, "peak-parts"), func(n *html.Node) bool { return attr(n, "data-bytes") != "" })
	require.Len(t, parts, len(lj.XLAPeakParts))
	var sum int64
	for i, p := range lj.XLAPeakParts {
		assert.Equal(t, strconv.FormatInt(p.Bytes, 10), attr(parts[i], "data-bytes"))
		assert.Equal(t, p.Space, attr(parts[i], "data-space"))
		assert.Equal(t, strconv.FormatBool(p.Temporaries), attr(parts[i], "data-temporaries"))
		assert.Contains(t, text(parts[i]), passes.FormatBytes(p.Bytes))
		sum += p.Bytes
	}
	assert.Equal(t, lj.XLAPeakBytes, sum, "the terms add up to XLA's peak")
	hbm := byID(doc, "hbm-peak")
	require.NotNil(t, hbm)
	assert.NotEmpty(t, findAll(hbm, func(n *html.Node) bool { return attr(n, "data-bytes") == strconv.FormatInt(lj.Peak.Bytes, 10) }))
	assert.Contains(t, text(hbm), lj.Peak.Instruction)

	verdict := byID(doc, "verdict")
	require.NotNil(t, verdict)
	require.NotNil(t, lj.Capacity)
	assert.Equal(t, lj.Capacity.Verdict, text(verdict))
	want := "exceeds"
	if lj.Capacity.Fits {
		want = "fits"
	}
	assert.Contains(t, attr(verdict, "class"), want)
	caps := rows(byID(doc, "capacity"))
	require.Len(t, caps, len(lj.Capacity.Spaces))
	for i, sp := range lj.Capacity.Spaces {
		assert.Equal(t, sp.Name, text(caps[i][0]))
		assert.Equal(t, strconv.FormatInt(sp.PeakBytes, 10), attr(caps[i][1], "data-v"))
		assert.Equal(t, strconv.FormatInt(sp.CapacityBytes, 10), attr(caps[i][2], "data-v"))
		assert.Equal(t, sp.Fits, text(caps[i][4]) == "fits", sp.Name)
	}
}

// checkSummary: XLA's memory_analysis terms.
func checkSummary(t *testing.T, doc *html.Node, lj layoutassign.ModuleJSON) {
	t.Helper()
	summary := byID(doc, "summary")
	for _, b := range []int64{lj.ArgumentBytes, lj.OutputBytes, lj.AliasedBytes, lj.TemporaryBytes} {
		assert.NotEmpty(t, findAll(summary, func(n *html.Node) bool { return attr(n, "data-bytes") == strconv.FormatInt(b, 10) }), "summary shows %d", b)
	}
}

// checkCharts: one chart per memory space that peaks at 4 KiB or more
// (HBM always), topped by the space's peak, its picked step the peak.
func checkCharts(t *testing.T, doc *html.Node, lj layoutassign.ModuleJSON) {
	t.Helper()
	boxes := findAll(doc, func(n *html.Node) bool { return hasClass(n, "chart-box") })
	var spaces []layoutassign.SpaceJSON
	for _, s := range lj.MemorySpaces {
		if s.Space == 0 || s.PeakBytes >= memview.FoldBelow {
			spaces = append(spaces, s)
		}
	}
	require.Len(t, boxes, len(spaces))
	for i, box := range boxes {
		sp := spaces[i]
		assert.Equal(t, sp.Name, attr(box, "data-space"))
		assert.Equal(t, "0", attr(box, "tabindex"), "the chart takes the arrow keys")
		assert.Len(t, findAll(box, func(n *html.Node) bool { return n.Data == "polyline" }), 2, "padded and unpadded")
		var pts [][]any
		require.NoError(t, json.Unmarshal([]byte(text(findAll(box, func(n *html.Node) bool { return hasClass(n, "points") })[0])), &pts))
		var top float64
		for _, p := range pts {
			top = max(top, p[1].(float64))
		}
		assert.Equal(t, float64(sp.PeakBytes), top, "%s: the chart's top is the space's peak", sp.Name)
		var data struct {
			Peak  int     `json:"peak"`
			Steps [][]any `json:"steps"`
		}
		require.NoError(t, json.Unmarshal([]byte(text(findAll(box, func(n *html.Node) bool { return hasClass(n, "buffers") })[0])), &data))
		assert.Len(t, data.Steps, lj.Steps, "%s: every step", sp.Name)
		st := byID(doc, "status-"+strings.ToLower(sp.Name))
		require.NotNil(t, st, sp.Name)
		assert.Equal(t, strconv.Itoa(data.Peak), attr(st, "data-step"), "the peak is the step shown first")
		assert.Contains(t, text(st), "the peak")
		assert.Contains(t, text(st), passes.FormatBytes(sp.PeakBytes)+" live")
	}
}

// checkLiveTable: the HBM table at the peak is the JSON's allocations at
// the peak, those of 4 KiB and up one row each in the same order, the rest
// in one row; all rows add up to the peak; each is live at the peak step.
func checkLiveTable(t *testing.T, doc *html.Node, lj layoutassign.ModuleJSON, mr *layoutassign.MemoryReport, frames *hlo.StackFrames) {
	t.Helper()
	table := byID(doc, "live-hbm")
	require.NotNil(t, table)
	live := rows(table)
	var big []layoutassign.AllocationJSON
	var smallBytes int64
	small := 0
	for _, a := range lj.Peak.Live {
		if a.Bytes >= memview.FoldBelow {
			big = append(big, a)
		} else {
			small++
			smallBytes += a.Bytes
		}
	}
	require.Len(t, live, min(len(big), memview.MaxLiveRows))
	var sum int64
	for i, r := range live {
		a := big[i]
		assert.Equal(t, strconv.FormatInt(a.Bytes, 10), attr(r[1], "data-v"), "row %d", i)
		assert.Equal(t, a.Shape, text(r[4]))
		assert.Equal(t, a.Kind, text(r[5]))
		assert.True(t, strings.HasPrefix(text(r[6]), a.Instruction), "%s: %s", text(r[6]), a.Instruction)
		steps := text(r[9])
		if a.Kind == layoutassign.KindTemp {
			assert.Equal(t, fmt.Sprintf("%d–%d", a.Start, a.End), steps)
			assert.True(t, a.Start <= lj.Peak.Step && lj.Peak.Step <= a.End, "%s live at the peak step", a.Instruction)
		} else {
			assert.Equal(t, "all", steps, "%s: an allocation of its own", a.Instruction)
		}
		sum += a.Bytes
	}
	folded := footRows(table)
	for _, r := range folded {
		v, err := strconv.ParseInt(attr(r[1], "data-v"), 10, 64)
		require.NoError(t, err)
		sum += v
	}
	if small > 0 {
		require.NotEmpty(t, folded)
		last := folded[len(folded)-1]
		assert.Equal(t, strconv.FormatInt(smallBytes, 10), attr(last[1], "data-v"))
		assert.True(t, strings.HasPrefix(text(last[6]), strconv.Itoa(small)+" buffer"), text(last[6]))
	}
	assert.Equal(t, lj.Peak.Bytes, sum, "the rows add up to the peak")
	// The source column: file:line:function of the stack frames of a JAX
	// dump's instructions.
	found := 0
	for _, r := range live {
		for _, a := range mr.LiveAtPeak {
			if a.Instruction.Name != ownText(r[6]) && label(a.Instruction.Name, a.Index) != ownText(r[6]) {
				continue
			}
			if src, ok := frames.Source(a.Instruction); ok {
				assert.Equal(t, src.String(), text(r[8]), ownText(r[6]))
				found++
			} else {
				assert.Empty(t, text(r[8]), ownText(r[6]))
			}
			break
		}
	}
	if strings.HasPrefix(mr.Module, "jit_") {
		assert.Positive(t, found, "a JAX dump's rows have sources")
	}
}

// checkPadding: each buffer once, most extra bytes first, no name twice
// (an alias is named under its buffer, not in a row of its own); the
// suggestions of the JSON on the rows of their buffers.
func checkPadding(t *testing.T, doc *html.Node, lj layoutassign.ModuleJSON, mr *layoutassign.MemoryReport) {
	t.Helper()
	table := byID(doc, "padding")
	if table == nil {
		assert.Empty(t, lj.Suggestions)
		return
	}
	pad := rows(table)
	prev := int64(1 << 62)
	seen := map[string]bool{}
	for _, r := range pad {
		extra, err := strconv.ParseInt(attr(r[5], "data-v"), 10, 64)
		require.NoError(t, err)
		assert.LessOrEqual(t, extra, prev)
		size, err := strconv.ParseInt(attr(r[3], "data-v"), 10, 64)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, size, int64(memview.FoldBelow), "small buffers are folded")
		prev = extra
		name := ownText(r[0])
		assert.False(t, seen[name], "%s twice", name)
		seen[name] = true
	}
	for _, r := range pad {
		for _, a := range aliasNames(r[0]) {
			assert.False(t, seen[a] && a != ownText(r[0]), "%s has a row and is an alias", a)
		}
	}
	for _, s := range lj.Suggestions {
		for _, r := range pad {
			if ownText(r[0]) == label(s.Instruction, s.Index) {
				assert.Equal(t, s.Shape, text(r[8]), "the suggestion on its buffer's row")
			}
		}
	}
}

// checkFusions: every fusion kernel with the JSON report's bytes; in GPU
// words (emitter, coalesced operands) on a GPU, in TPU words (XLA's fusion
// kind) on a TPU.
func checkFusions(t *testing.T, doc *html.Node, page string, rep jsonReport, tpu bool) {
	t.Helper()
	fus := rows(byID(doc, "fusions"))
	want := map[string]string{}
	for _, c := range rep.Computations {
		for _, in := range c.Instructions {
			if in.Cost != nil && strings.Contains(in.Name, "fusion") {
				want[in.Name] = strconv.FormatInt(in.Cost.Bytes, 10)
			}
		}
	}
	col := 2 // bytes: after the emitter on a GPU, after the fusion kind and the unit on a TPU
	if tpu {
		col = 3
	}
	got := map[string]string{}
	for _, r := range fus {
		got[text(r[0])] = attr(r[col], "data-v")
		if tpu {
			assert.Regexp(t, `^k[A-Z][a-z]+$`, text(r[1]), "XLA's fusion kind")
			assert.Contains(t, []string{"MXU", "vector", "DMA", "collective"}, text(r[2]), "the TPU unit that bounds it")
		}
	}
	for name, w := range want {
		assert.Equal(t, w, got[name], name)
	}
	assert.NotEmpty(t, fus)
	if tpu {
		assert.NotContains(t, page, "coalesced", "no GPU words on a TPU")
		assert.NotContains(t, page, "emitter")
	} else {
		assert.Contains(t, page, "coalesced operands")
	}
}

// Banners: a module before XLA's optimizations, unscheduled or truncated
// says so and what it means; a partitioned one says its figures are per
// device.
func TestPageBanners(t *testing.T) {
	banners := func(t *testing.T, file, src string) (*html.Node, string) {
		t.Helper()
		m, err := hlo.ParseOptions{AllowTruncated: true}.ParseFile(file, []byte(src))
		require.NoError(t, err)
		tgt := layoutassign.TPU()
		tgt.Device, tgt.HBMBytes = "tpu-v5e", 16<<30
		mr, err := layoutassign.AnalyzeMemory(m, tgt)
		require.NoError(t, err)
		var page bytes.Buffer
		require.NoError(t, memview.Write(&page, memview.Input{File: file, Module: m, Memory: mr}))
		doc, err := html.Parse(bytes.NewReader(page.Bytes()))
		require.NoError(t, err)
		return doc, page.String()
	}
	read := func(f string) string { return string(hlotest.ReadTestdata(t, f)) }

	doc, _ := banners(t, "jit_mlp.before_optimizations.txt", read("groundtruth/mlp/tpu-v5e-4way/large/before_optimizations.txt"))
	b := byID(doc, "banner-before")
	require.NotNil(t, b, "a before-optimizations dump")
	assert.Contains(t, text(b), "file name")
	assert.Contains(t, text(b), "upper bound")
	assert.Contains(t, text(b), "over up to 4 devices", "its sharding annotations")
	assert.Nil(t, byID(doc, "per-device"), "global arrays are not per device")

	doc, _ = banners(t, "after_optimizations.txt", read("groundtruth/mlp/tpu-v5e-4way/large/after_optimizations.txt"))
	assert.Nil(t, byID(doc, "banner-before"))
	assert.Nil(t, byID(doc, "banner-unscheduled"))
	pd := byID(doc, "per-device")
	require.NotNil(t, pd)
	assert.Contains(t, text(pd), "num_partitions=4")

	// Unscheduled, no fusion: taken for a module before optimizations.
	var b2 strings.Builder
	b2.WriteString("HloModule big\n\nENTRY e {\n  p0 = f32[128,128] parameter(0)\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b2, "  a%d = f32[128,128] add(%s, p0)\n", i, prev(i))
	}
	b2.WriteString("  ROOT r = f32[128,128] negate(a30)\n}\n")
	doc, _ = banners(t, "big.hlo", b2.String())
	b = byID(doc, "banner-before")
	require.NotNil(t, b)
	assert.Contains(t, text(b), "none of its 32 instructions is a fusion")

	// Unscheduled with fusions: an order of hlo-opt's.
	doc, _ = banners(t, "fused.hlo", read("layout/fusion_params.hlo"))
	b = byID(doc, "banner-unscheduled")
	require.NotNil(t, b)
	assert.Contains(t, text(b), "topologically")

	// Truncated: the entry was lost.
	src := read("groundtruth/mlp/tpu-v5e/small/after_optimizations.txt")
	cut := src[:strings.LastIndex(src, "ROOT")]
	doc, _ = banners(t, "cut.txt", cut)
	b = byID(doc, "banner-truncated")
	require.NotNil(t, b)
	assert.Contains(t, text(b), "No entry computation")
	assert.Nil(t, byID(doc, "xla-peak"), "no peak without an entry")
}

func prev(i int) string {
	if i == 1 {
		return "p0"
	}
	return "a" + strconv.Itoa(i-1)
}

func TestWriteNeedsMemory(t *testing.T) {
	assert.ErrorContains(t, memview.Write(&bytes.Buffer{}, memview.Input{}), "run the layout pass")
}

func slicesIndex(s []layoutassign.SpaceJSON, name string) int {
	for i, x := range s {
		if x.Name == name {
			return i
		}
	}
	return -1
}

// The page's elements, read back with htmltest.
var (
	findAll  = htmltest.FindAll
	byID     = htmltest.ByID
	attr     = htmltest.Attr
	hasClass = htmltest.HasClass
	text     = htmltest.Text
	ownText  = htmltest.OwnText
	rows     = htmltest.Rows
	footRows = htmltest.FootRows
)

// aliasNames are the names of n's "also" list.
func aliasNames(n *html.Node) []string {
	var out []string
	for _, d := range findAll(n, func(n *html.Node) bool { return hasClass(n, "also") }) {
		s := strings.TrimPrefix(text(d), "also ")
		if i := strings.Index(s, " and "); i >= 0 {
			s = s[:i]
		}
		for _, name := range strings.Split(s, ", ") {
			out = append(out, name)
		}
	}
	return out
}

// label is "name" or "name {1,2}".
func label(name string, index []int64) string {
	if len(index) == 0 {
		return name
	}
	parts := make([]string, len(index))
	for i, x := range index {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return name + " {" + strings.Join(parts, ",") + "}"
}

// With the xla-cost pass, the page shows the module's cost_analysis()
// figures and each fusion's flops and bytes accessed beside the cost
// pass's, as the JSON report has them.
func TestPageXLACost(t *testing.T) {
	const file = "groundtruth/transformer_fwd/tpu-v5e/large/after_optimizations.txt"
	m, err := hlo.ParseFile(file, hlotest.ReadTestdata(t, file))
	require.NoError(t, err)
	dev, err := cost.LookupDevice("tpu-v5e", nil)
	require.NoError(t, err)
	cfg := cost.DefaultConfig()
	cfg.Device = dev
	pl, err := passes.NewPipeline([]*passes.Pass{layoutassign.Pass, cost.CostPass, cost.XLACostPass},
		passes.Options{Logger: zap.NewNop(), Config: cfg.PipelineConfig()})
	require.NoError(t, err)
	res, err := pl.Run(context.Background(), m)
	require.NoError(t, err)
	lr, _ := passes.ResultOf[*layoutassign.Result](res, layoutassign.Pass)
	cr, _ := passes.ResultOf[*cost.CostResult](res, cost.CostPass)
	xr, ok := passes.ResultOf[*cost.XLACostResult](res, cost.XLACostPass)
	require.True(t, ok)
	var page bytes.Buffer
	require.NoError(t, memview.Write(&page, memview.Input{File: file, Module: m, Memory: lr.Memory, Cost: cr, XLACost: xr}))
	var js bytes.Buffer
	require.NoError(t, render.WriteJSON(&js, res, render.JSONOptions{}))
	var rep struct {
		XLACost      map[string]any `json:"xla-cost"`
		Computations []struct {
			Instructions []struct {
				Name    string `json:"name"`
				XLACost *struct {
					Flops         float64 `json:"flops"`
					BytesAccessed float64 `json:"bytes_accessed"`
				} `json:"xla-cost"`
			} `json:"instructions"`
		} `json:"computations"`
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &rep))
	doc, err := html.Parse(&page)
	require.NoError(t, err)
	row := byID(doc, "xla-cost")
	require.NotNil(t, row)
	for key, field := range map[string]string{"flops": "flops", "transcendentals": "transcendentals", "bytes accessed": "bytes_accessed", "optimal_seconds": "optimal_seconds"} {
		spans := findAll(row, func(n *html.Node) bool { return attr(n, "data-key") == key })
		if _, ok := rep.XLACost[field]; !ok {
			assert.Empty(t, spans, "%s: not in the JSON, not on the page", key)
			continue
		}
		require.Len(t, spans, 1, key)
		got, err := strconv.ParseFloat(attr(spans[0], "data-v"), 64)
		require.NoError(t, err)
		assert.InEpsilon(t, rep.XLACost[field].(float64), got, 1e-3, key)
	}
	want := map[string]float64{}
	for _, c := range rep.Computations {
		for _, in := range c.Instructions {
			if in.XLACost != nil {
				want[in.Name] = in.XLACost.Flops
			}
		}
	}
	fus := rows(byID(doc, "fusions"))
	require.NotEmpty(t, fus)
	for _, r := range fus {
		w, ok := want[text(r[0])]
		require.True(t, ok, text(r[0]))
		got, err := strconv.ParseFloat(attr(r[7], "data-v"), 64)
		require.NoError(t, err)
		if w == 0 {
			assert.Zero(t, got, text(r[0]))
		} else {
			assert.InEpsilon(t, w, got, 1e-3, text(r[0]))
		}
	}
}
