package memdiff

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/hlo-opt/hlo-opt/passes"
)

// Report is the comparison of two inputs: the diff of each pair of
// modules, and the modules of one side only.
type Report struct {
	A     string   `json:"a"`
	B     string   `json:"b"`
	Pairs []Diff   `json:"pairs"`
	OnlyA []string `json:"only_a"`
	OnlyB []string `json:"only_b"`
}

// Over reports whether some pair's peak or time grew by more than pct
// percent.
func (r *Report) Over(pct float64) bool {
	for _, d := range r.Pairs {
		if d.Over(pct) {
			return true
		}
	}
	return false
}

// WriteJSON writes the report as one JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	out := *r
	if out.Pairs == nil {
		out.Pairs = []Diff{}
	}
	if out.OnlyA == nil {
		out.OnlyA = []string{}
	}
	if out.OnlyB == nil {
		out.OnlyB = []string{}
	}
	return enc.Encode(out)
}

// signed prints a byte delta with its sign: "+1.97MiB", "-512B", "0B".
func signed(n int64) string {
	if n > 0 {
		return "+" + passes.FormatBytes(n)
	}
	return passes.FormatBytes(n)
}

// pct prints a percentage with its sign, "" when there is none to give.
func pct(c Change) string {
	if c.A == 0 {
		if c.B == 0 {
			return ""
		}
		return "(new)"
	}
	return fmt.Sprintf("(%+.1f%%)", c.Percent)
}

func (c Change) String() string {
	return strings.TrimSpace(fmt.Sprintf("%s -> %s  %s %s", passes.FormatBytes(c.A), passes.FormatBytes(c.B), signed(c.Delta), pct(c)))
}

func (t TimeChange) String() string {
	s := fmt.Sprintf("%.1f µs -> %.1f µs  %+.1f µs", t.A, t.B, t.Delta)
	if t.A != 0 {
		s += fmt.Sprintf(" (%+.1f%%)", t.Percent)
	}
	return s
}

// WriteText writes the report as text: per pair the peaks and the time,
// the classes that changed, the buffers that grew or appeared and the
// kernels added, removed or slower.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "hlo-opt diff %s %s\n", r.A, r.B)
	for _, d := range r.Pairs {
		fmt.Fprintf(w, "\n== %s -> %s\n", d.A, d.B)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "peak (XLA's peak_memory_in_bytes)\t%s\n", d.Peak)
		fmt.Fprintf(tw, "HBM peak\t%s\n", d.HBMPeak)
		if d.Time != nil {
			fmt.Fprintf(tw, "estimated time on %s\t%s\n", d.TimeDevice, *d.Time)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		changed := false
		for _, c := range d.Classes {
			if c.Delta == 0 {
				continue
			}
			if !changed {
				fmt.Fprintf(w, "\nAllocation classes that changed (XLA's BufferAssignment stats):\n")
				changed = true
			}
			fmt.Fprintf(tw, "  %s %s\t%s\n", c.Space, c.Class, c.Change)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(w, "\nBuffers: %d -> %d; %d grew or appeared (%s), %d shrank or went (-%s).\n", d.BuffersA, d.BuffersB,
			d.GrewCount, signed(d.GrewBytes), d.Shrank, passes.FormatBytes(d.ShrankBytes))
		for _, b := range d.Grew {
			shape := b.ShapeB
			if b.ShapeA != "" && b.ShapeA != b.ShapeB {
				shape = b.ShapeA + " -> " + b.ShapeB
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", signed(b.Delta), b.Space, b.Instruction, shape)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if d.Time != nil {
			fmt.Fprintf(w, "\nKernels: %d added, %d removed, %d slower.\n", d.AddedCount, d.RemovedCount, d.SlowerCount)
			for _, l := range []struct {
				what string
				ks   []KernelChange
			}{{"added", d.Added}, {"removed", d.Removed}, {"slower", d.Slower}} {
				for _, k := range l.ks {
					fmt.Fprintf(tw, "  %s\t%s\t%s\n", l.what, k.Name, k.TimeChange)
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}
	for _, m := range r.OnlyA {
		fmt.Fprintf(w, "\nonly in %s: %s\n", r.A, m)
	}
	for _, m := range r.OnlyB {
		fmt.Fprintf(w, "\nonly in %s: %s\n", r.B, m)
	}
	return nil
}

//go:embed diff.html.tmpl
var pageText string

var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("diff").Funcs(template.FuncMap{
		"bytes":  passes.FormatBytes,
		"signed": signed,
		"pct":    pct,
	}).Parse(pageText))
})

// WriteHTML writes the report as one self-contained HTML page.
func (r *Report) WriteHTML(w io.Writer) error { return page().Execute(w, r) }
