package memview_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"golang.org/x/net/html"

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

func TestPageAgainstJSONReport(t *testing.T) {
	for _, tc := range []struct {
		file   string
		device string
	}{
		{"layout/tpu_train_step.hlo", "tpu-v5e"},
		{"layout/gpu_train_step.hlo", "h100"},
	} {
		t.Run(tc.device, func(t *testing.T) {
			dev, err := cost.LookupDevice(tc.device, nil)
			require.NoError(t, err)
			res, lr, cr := run(t, tc.file, dev)
			var page bytes.Buffer
			require.NoError(t, memview.Write(&page, memview.Input{File: tc.file, Memory: lr.Memory, Cost: cr}))
			var js bytes.Buffer
			require.NoError(t, render.WriteJSON(&js, res, render.JSONOptions{}))
			var rep jsonReport
			require.NoError(t, json.Unmarshal(js.Bytes(), &rep), js.String()[:min(js.Len(), 400)])
			lj := rep.Layout

			doc, err := html.Parse(bytes.NewReader(page.Bytes()))
			require.NoError(t, err)
			assert.Empty(t, findAll(doc, func(n *html.Node) bool {
				return (n.Data == "script" || n.Data == "img" || n.Data == "link") && (attr(n, "src") != "" || attr(n, "href") != "")
			}), "self-contained: nothing loaded from elsewhere")
			assert.NotContains(t, page.String(), "http://www.w3.org/1999/xhtml\"", "no external namespace loads")
			assert.NotContains(t, page.String(), "https://")

			// The verdict and the summary.
			verdict := byID(doc, "verdict")
			require.NotNil(t, verdict)
			require.NotNil(t, lj.Capacity)
			assert.Equal(t, lj.Capacity.Verdict, text(verdict))
			wantClass := "exceeds"
			if lj.Capacity.Fits {
				wantClass = "fits"
			}
			assert.Contains(t, attr(verdict, "class"), wantClass)
			peak := byID(doc, "peak")
			require.NotNil(t, peak)
			assert.Equal(t, strconv.FormatInt(lj.Peak.Bytes, 10), attr(peak, "data-bytes"))
			assert.Contains(t, text(peak), passes.FormatBytes(lj.Peak.Bytes))
			assert.Contains(t, text(peak), lj.Peak.Instruction)
			summary := byID(doc, "summary")
			for _, b := range []int64{lj.ArgumentBytes, lj.OutputBytes, lj.AliasedBytes, lj.TemporaryBytes, lj.XLAPeakBytes} {
				assert.NotEmpty(t, findAll(summary, func(n *html.Node) bool { return attr(n, "data-bytes") == strconv.FormatInt(b, 10) }), "summary shows %d", b)
			}

			// One chart per memory space with a peak; the HBM chart's top is
			// the peak, and the hover data reach it.
			boxes := findAll(doc, func(n *html.Node) bool { return hasClass(n, "chart-box") })
			var spaces []string
			for _, s := range lj.MemorySpaces {
				if s.PeakBytes > 0 {
					spaces = append(spaces, s.Name)
				}
			}
			require.Len(t, boxes, len(spaces))
			for i, box := range boxes {
				assert.Equal(t, spaces[i], attr(box, "data-space"))
				svg := findAll(box, func(n *html.Node) bool { return n.Data == "svg" })
				require.Len(t, svg, 1)
				w, _ := strconv.Atoi(attr(svg[0], "width"))
				h, _ := strconv.Atoi(attr(svg[0], "height"))
				assert.Positive(t, w)
				assert.Positive(t, h)
				assert.Len(t, findAll(box, func(n *html.Node) bool { return n.Data == "polyline" }), 2, "padded and unpadded")
				scripts := findAll(box, func(n *html.Node) bool { return n.Data == "script" })
				require.Len(t, scripts, 1)
				var pts [][]any
				require.NoError(t, json.Unmarshal([]byte(text(scripts[0])), &pts))
				var top float64
				for _, p := range pts {
					top = max(top, p[1].(float64))
				}
				sp := lj.MemorySpaces[slicesIndex(lj.MemorySpaces, spaces[i])]
				assert.Equal(t, float64(sp.PeakBytes), top, "%s: the chart's top is the space's peak", spaces[i])
				assert.Len(t, pts, lj.Steps, "a point per step")
			}
			hbm := boxes[0]
			if lj.Capacity.HBMBytes <= 3*lj.Peak.Bytes {
				assert.Len(t, findAll(hbm, func(n *html.Node) bool { return hasClass(n, "capacity") }), 1, "the capacity line")
			}

			// The allocations at the peak: the JSON report's, in its order.
			live := rows(byID(doc, "live"))
			require.Len(t, live, len(lj.Peak.Live))
			var sum int64
			for i, a := range lj.Peak.Live {
				assert.Equal(t, strconv.FormatInt(a.Bytes, 10), attr(live[i][1], "data-v"), "allocation %d", i)
				assert.Equal(t, a.Shape, text(live[i][4]))
				assert.Equal(t, a.Kind, text(live[i][5]))
				sum += a.Bytes
			}
			assert.Equal(t, lj.Peak.Bytes, sum, "the allocations at the peak add up to it")

			// Padding blame: largest extra first, suggestions as the report's.
			pad := rows(byID(doc, "padding"))
			if !dev.IsGPU() {
				require.NotEmpty(t, pad, "a TPU program pads")
			} else {
				assert.Contains(t, page.String(), "No array is padded.")
			}
			prev := int64(1 << 62)
			for _, r := range pad {
				extra, err := strconv.ParseInt(attr(r[4], "data-v"), 10, 64)
				require.NoError(t, err)
				assert.LessOrEqual(t, extra, prev)
				prev = extra
			}
			for _, s := range lj.Suggestions {
				found := false
				for _, r := range pad {
					if strings.HasPrefix(text(r[0]), s.Instruction) && text(r[7]) == s.Shape {
						found = true
					}
				}
				if !found && len(pad) < memview.MaxBlamed {
					t.Errorf("suggestion for %s (%s) not in the padding table", s.Instruction, s.Shape)
				}
			}

			// The fusion table: every fusion kernel with the JSON report's
			// bytes and emitter.
			fus := rows(byID(doc, "fusions"))
			want := map[string][2]string{}
			for _, c := range rep.Computations {
				for _, in := range c.Instructions {
					if in.Cost != nil && strings.Contains(in.Name, "fusion") {
						want[in.Name] = [2]string{strconv.FormatInt(in.Cost.Bytes, 10), in.Cost.Emitter}
					}
				}
			}
			got := map[string][2]string{}
			for _, r := range fus {
				got[text(r[0])] = [2]string{attr(r[2], "data-v"), text(r[1])}
			}
			for name, w := range want {
				assert.Equal(t, w, got[name], name)
			}
			assert.NotEmpty(t, fus)
		})
	}
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

func findAll(n *html.Node, f func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	if n == nil {
		return nil
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && f(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func byID(doc *html.Node, id string) *html.Node {
	ns := findAll(doc, func(n *html.Node) bool { return attr(n, "id") == id })
	if len(ns) == 0 {
		return nil
	}
	return ns[0]
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, c string) bool {
	return strings.Contains(" "+attr(n, "class")+" ", " "+c+" ")
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

// rows returns the cells of each body row of table.
func rows(table *html.Node) [][]*html.Node {
	var out [][]*html.Node
	for _, tr := range findAll(table, func(n *html.Node) bool { return n.Data == "tr" && n.Parent != nil && n.Parent.Data == "tbody" }) {
		out = append(out, findAll(tr, func(n *html.Node) bool { return n.Data == "td" }))
	}
	return out
}
