package xladiff

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Cell is one figure on one backend summed over compiles: Agree of N
// compiles agree with XLA; for the figures over items (buffer sizes,
// TPU layouts), Equal of Count items.
type Cell struct {
	N, Agree     int
	Count, Equal int
}

// Share is the fraction that agrees: of the items where the figure counts
// them, else of the compiles; -1 when nothing was compared.
func (c Cell) Share() float64 {
	switch {
	case c.Count > 0:
		return float64(c.Equal) / float64(c.Count)
	case c.N > 0:
		return float64(c.Agree) / float64(c.N)
	}
	return -1
}

func (c Cell) String() string {
	switch {
	case c.N == 0:
		return "-"
	case c.Count > 0:
		return fmt.Sprintf("%d/%d (%s)", c.Equal, c.Count, percent(c.Share()))
	}
	return fmt.Sprintf("%d/%d (%s)", c.Agree, c.N, percent(c.Share()))
}

func percent(f float64) string {
	s := fmt.Sprintf("%.1f%%", 100*f)
	if f < 1 && s == "100.0%" {
		s = "99.9%"
	}
	return s
}

// Tally sums outcomes per backend and figure.
type Tally struct {
	// Compiles counts the compiles per backend.
	Compiles map[string]int
	Cells    map[string]map[string]*Cell
}

// NewTally returns an empty tally.
func NewTally() *Tally {
	return &Tally{Compiles: map[string]int{}, Cells: map[string]map[string]*Cell{}}
}

// Add counts one compile's outcomes.
func (t *Tally) Add(r *Result) {
	t.Compiles[r.Backend]++
	for _, o := range r.Outcomes {
		for _, be := range []string{r.Backend, allBackends} {
			m := t.Cells[be]
			if m == nil {
				m = map[string]*Cell{}
				t.Cells[be] = m
			}
			c := m[o.Figure]
			if c == nil {
				c = &Cell{}
				m[o.Figure] = c
			}
			c.N++
			if o.Agree {
				c.Agree++
			}
			c.Count += o.Count
			c.Equal += o.Equal
		}
	}
}

// allBackends is the column that sums every backend.
const allBackends = "all"

// Cell returns the cell of figure on backend ("all" for every backend).
func (t *Tally) Cell(backend, figure string) Cell {
	if c := t.Cells[backend][figure]; c != nil {
		return *c
	}
	return Cell{}
}

// backends lists the tallied backends in Backends order, then others.
func (t *Tally) backends() []string {
	var out []string
	for _, b := range Backends {
		if t.Compiles[b.Name] > 0 {
			out = append(out, b.Name)
		}
	}
	var rest []string
	for b := range t.Compiles {
		if !slices.Contains(out, b) {
			rest = append(rest, b)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// Criterion is one line of the "Done when": figure agrees on at
// least Share of the compiles (of the items for buffer sizes and TPU
// layouts) on every backend.
type Criterion struct {
	Figure string
	Share  float64
}

// Criteria are the differential tester's targets.
var Criteria = []Criterion{
	{Parse, 1}, {Verify, 1}, {RoundTrip, 1},
	{Arguments, 1}, {Outputs, 1}, {Aliased, 1},
	{PeakExact, 0.95}, {Peak5, 0.99},
	{Sizes, 1}, {Layouts, 0.97}, {Flops, 0.95},
}

// Met reports, for a criterion, the backends where it fails (nothing
// compared counts as met).
func (t *Tally) Met(c Criterion) (failing []string) {
	for _, be := range t.backends() {
		if s := t.Cell(be, c.Figure).Share(); s >= 0 && s < c.Share {
			failing = append(failing, be)
		}
	}
	return failing
}

// WriteTable writes the agreement table: a row per figure, a column per
// backend and one for all, then each criterion and whether it holds.
func (t *Tally) WriteTable(w io.Writer) error {
	bes := t.backends()
	var b strings.Builder
	b.WriteString("| figure |")
	for _, be := range bes {
		fmt.Fprintf(&b, " %s |", be)
	}
	b.WriteString(" all |\n|---|")
	b.WriteString(strings.Repeat("---|", len(bes)+1))
	b.WriteString("\n| compiles |")
	total := 0
	for _, be := range bes {
		fmt.Fprintf(&b, " %d |", t.Compiles[be])
		total += t.Compiles[be]
	}
	fmt.Fprintf(&b, " %d |\n", total)
	for _, f := range Figures {
		fmt.Fprintf(&b, "| %s |", f)
		for _, be := range append(slices.Clone(bes), allBackends) {
			fmt.Fprintf(&b, " %s |", t.Cell(be, f))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nBuffer sizes count values, allocation classes the six classes, TPU layouts arrays; the other rows count compiles.\n\n")
	for _, c := range Criteria {
		state := "holds"
		if f := t.Met(c); len(f) > 0 {
			state = "fails on " + strings.Join(f, ", ")
		} else if t.Cell(allBackends, c.Figure).N == 0 {
			state = "not compared"
		}
		fmt.Fprintf(&b, "- %s on >= %s: %s\n", c.Figure, percent(c.Share), state)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
