package memview

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

// Chart geometry in pixels: the plot area and its margins.
const (
	chartW, chartH   = 960, 280
	marginL, marginR = 80, 20
	marginT, marginB = 20, 40
	// maxPoints bounds the points of a series; longer schedules are
	// sampled by keeping each bucket's largest step, so the peak stays.
	maxPoints = 2000
)

// chart is the live-memory chart of one memory space.
type chart struct {
	Space              string
	Peak, PeakUnpadded int64
	PeakStep           int
	PeakAt             string
	Capacity           int64
	CapacityDrawn      bool
	CapacityOff        string // why the capacity line is not drawn
	Steps              int
	SVG                template.HTML
	Width, Height      int
	Points             template.JS
}

// newChart draws the padded and unpadded bytes of sp against program
// order, the peak marked, and the device's capacity as a line when it is
// within 3x the peak (else a note says how far above it is).
func newChart(sp layoutassign.SpaceReport, capacity int64, device string) chart {
	c := chart{Space: sp.Name, Peak: sp.PeakBytes, PeakUnpadded: sp.PeakUnpadded, PeakStep: sp.PeakStep, PeakAt: sp.PeakAt,
		Steps: len(sp.Timeline), Width: chartW, Height: chartH}
	pts := sample(sp.Timeline)
	top := float64(sp.PeakBytes) * 1.1
	drawCap := false
	if capacity > 0 {
		c.Capacity = capacity
		if capacity <= 3*sp.PeakBytes {
			drawCap, c.CapacityDrawn = true, true
			top = max(top, float64(capacity)*1.05)
		} else {
			c.CapacityOff = fmt.Sprintf("%s %s of %s is %.1fx the peak, above the chart", passes.FormatBytes(capacity), sp.Name, device,
				float64(capacity)/float64(max(sp.PeakBytes, 1)))
		}
	}
	if top <= 0 {
		top = 1
	}
	pw, ph := float64(chartW-marginL-marginR), float64(chartH-marginT-marginB)
	n := max(len(sp.Timeline)-1, 1)
	x := func(step int) float64 { return float64(marginL) + pw*float64(step)/float64(n) }
	y := func(b int64) float64 { return float64(marginT) + ph*(1-float64(b)/top) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s memory against program order">`,
		chartW, chartH, chartW, chartH, sp.Name)
	// Axes and grid: 4 horizontal lines with their byte labels.
	for i := 0; i <= 4; i++ {
		v := int64(top * float64(i) / 4)
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/>`, marginL, chartW-marginR, y(v), y(v))
		fmt.Fprintf(&b, `<text class="axis" x="%d" y="%.1f" text-anchor="end">%s</text>`, marginL-6, y(v)+4, passes.FormatBytes(v))
	}
	fmt.Fprintf(&b, `<text class="axis" x="%d" y="%d" text-anchor="middle">program order (schedule step, %d steps)</text>`,
		marginL+int(pw/2), chartH-8, len(sp.Timeline))
	fmt.Fprintf(&b, `<text class="axis" x="%d" y="%d">0</text><text class="axis" x="%d" y="%d" text-anchor="end">%d</text>`,
		marginL, chartH-24, chartW-marginR, chartH-24, len(sp.Timeline)-1)
	series := func(class string, val func(layoutassign.LivePoint) int64) {
		fmt.Fprintf(&b, `<polyline class="%s" points="`, class)
		for i, p := range pts {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%.1f,%.1f", x(p.Step), y(val(p)))
		}
		b.WriteString(`"/>`)
	}
	series("unpadded", func(p layoutassign.LivePoint) int64 { return p.Unpadded })
	series("padded", func(p layoutassign.LivePoint) int64 { return p.Bytes })
	if drawCap {
		fmt.Fprintf(&b, `<line class="capacity" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/>`, marginL, chartW-marginR, y(capacity), y(capacity))
		fmt.Fprintf(&b, `<text class="capacity-label" x="%d" y="%.1f" text-anchor="end">%s capacity %s</text>`,
			chartW-marginR-4, y(capacity)-4, template.HTMLEscapeString(device), passes.FormatBytes(capacity))
	}
	px, py := x(sp.PeakStep), y(sp.PeakBytes)
	fmt.Fprintf(&b, `<circle class="peak" cx="%.1f" cy="%.1f" r="5"><title>peak %s at step %d (%s)</title></circle>`,
		px, py, passes.FormatBytes(sp.PeakBytes), sp.PeakStep, template.HTMLEscapeString(sp.PeakAt))
	anchor := "start"
	if px > float64(chartW)/2 {
		anchor = "end"
	}
	fmt.Fprintf(&b, `<text class="peak-label" x="%.1f" y="%.1f" text-anchor="%s">peak %s at step %d</text>`,
		px, max(py-8, 12), anchor, passes.FormatBytes(sp.PeakBytes), sp.PeakStep)
	fmt.Fprintf(&b, `<line class="cursor" x1="0" x2="0" y1="%d" y2="%d" visibility="hidden"/>`, marginT, chartH-marginB)
	// The step the tables below show, the peak at first.
	fmt.Fprintf(&b, `<line class="selected" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/>`, px, px, marginT, chartH-marginB)
	b.WriteString(`</svg>`)
	c.SVG = template.HTML(b.String())
	// The hover data: step, bytes, unpadded, instruction of every point.
	var js strings.Builder
	js.WriteString("[")
	for i, p := range pts {
		if i > 0 {
			js.WriteByte(',')
		}
		fmt.Fprintf(&js, "[%d,%d,%d,%q]", p.Step, p.Bytes, p.Unpadded, p.At)
	}
	js.WriteString("]")
	c.Points = template.JS(strings.ReplaceAll(js.String(), "<", `\u003c`))
	return c
}

// sample keeps at most maxPoints points of tl: in each bucket of
// consecutive steps the one with the most bytes.
func sample(tl []layoutassign.LivePoint) []layoutassign.LivePoint {
	if len(tl) <= maxPoints {
		return tl
	}
	out := make([]layoutassign.LivePoint, 0, maxPoints)
	for i := 0; i < maxPoints; i++ {
		lo, hi := i*len(tl)/maxPoints, (i+1)*len(tl)/maxPoints
		best := tl[lo]
		for _, p := range tl[lo:hi] {
			if p.Bytes > best.Bytes {
				best = p
			}
		}
		out = append(out, best)
	}
	return out
}
