package dumpdir

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hlo-opt/hlo-opt/passes"
)

// WriteText writes the summary as a table, one module a row, then the
// modules that failed and where hlo-opt and XLA differ, module by module.
func WriteText(w io.Writer, dir string, ss []Summary) error {
	rows := [][]string{{"module", "peak", "HBM peak", "fits", "time", "top padding", "vs XLA"}}
	for _, s := range ss {
		if s.Error != "" {
			rows = append(rows, []string{s.Module, "-", "-", "-", "-", "-", "failed"})
			continue
		}
		rows = append(rows, []string{s.Module, passes.FormatBytes(s.PeakBytes), passes.FormatBytes(s.HBMPeakBytes),
			s.fits(), s.time(), s.padding(), s.vsXLA()})
	}
	// Names and words to the left, figures to the right.
	right := []bool{false, true, true, false, true, false, false}
	width := make([]int, len(right))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	bw := bufio.NewWriter(w)
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				line.WriteString("  ")
			}
			if right[i] {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
		}
		fmt.Fprintln(bw, strings.TrimRight(line.String(), " "))
	}
	fmt.Fprintf(bw, "\n%s in %s; peak is XLA's peak_memory_in_bytes as hlo-opt computes it, fits the HBM verdict (--device).\n", modules(len(ss)), dir)
	if n, first := foreignTimes(ss); n > 0 {
		fmt.Fprintf(bw, "* compiled for another backend than the time's device (give --device for their own time): %s; %s\n", modules(n), first)
	}
	for _, s := range ss {
		switch {
		case s.Error != "":
			fmt.Fprintf(bw, "%s: %s\n", s.Module, s.Error)
		case s.XLA != nil && len(s.XLA.Differences) > 0:
			fmt.Fprintf(bw, "%s differs from XLA's buffer assignment:\n", s.Module)
			for _, d := range s.XLA.Differences {
				fmt.Fprintf(bw, "  %s\n", d)
			}
		}
	}
	return bw.Flush()
}

func modules(n int) string {
	if n == 1 {
		return "1 module"
	}
	return fmt.Sprintf("%d modules", n)
}

// fits is "fits 3%", "EXCEEDS 120%" or "-" without a device.
func (s Summary) fits() string {
	switch {
	case s.Fits == nil:
		return "-"
	case *s.Fits && s.Percent < 0.1:
		return "fits <0.1%"
	case *s.Fits:
		return fmt.Sprintf("fits %.1f%%", s.Percent)
	}
	return fmt.Sprintf("EXCEEDS %.1f%%", s.Percent)
}

// time is "123.4 µs on h100", "-" when the cost pass did not run, with
// " *" when the module was compiled for another backend.
func (s Summary) time() string {
	if s.TimeUS == nil {
		return "-"
	}
	t := fmt.Sprintf("%.1f µs on %s", *s.TimeUS, s.TimeDevice)
	if s.TimeNote != "" {
		t += " *"
	}
	return t
}

// foreignTimes counts the modules timed on another backend's device, with
// the first one's note.
func foreignTimes(ss []Summary) (n int, first string) {
	for _, s := range ss {
		if s.Error == "" && s.TimeNote != "" {
			if n == 0 {
				first = s.Module + ": " + s.TimeNote
			}
			n++
		}
	}
	return n, first
}

// padding is "fusion.3 +12.0KiB", "-" when nothing is padded.
func (s Summary) padding() string {
	if s.TopPadding == "" {
		return "-"
	}
	return s.TopPadding + " +" + passes.FormatBytes(s.TopPaddingBytes)
}

// vsXLA is "agrees", "N differences", or "-" without XLA's files.
func (s Summary) vsXLA() string {
	switch {
	case s.XLA == nil:
		return "-"
	case len(s.XLA.Differences) == 0:
		return "agrees"
	case len(s.XLA.Differences) == 1:
		return "1 difference"
	}
	return fmt.Sprintf("%d differences", len(s.XLA.Differences))
}

// WriteJSON writes the summary as a JSON object: the directory and its
// modules.
func WriteJSON(w io.Writer, dir string, ss []Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if ss == nil {
		ss = []Summary{}
	}
	return enc.Encode(struct {
		Dir     string    `json:"dir"`
		Modules []Summary `json:"modules"`
	}{dir, ss})
}

//go:embed index.html.tmpl
var indexText string

var index = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("index").Funcs(template.FuncMap{
		"bytes": passes.FormatBytes,
		"deref": func(b *bool) bool { return *b },
	}).Parse(indexText))
})

// WriteIndex writes the HTML index of a dump directory: the summary with
// a link to each module's page.
func WriteIndex(w io.Writer, dir string, ss []Summary) error {
	return index().Execute(w, struct {
		Dir     string
		Modules []Summary
	}{dir, ss})
}

// Fitness is the fits column's text, for the index page.
func (s Summary) Fitness() string { return s.fits() }

// Time is the time column's text, for the index page.
func (s Summary) Time() string { return s.time() }

// Padded is the top padding column's text, for the index page.
func (s Summary) Padded() string { return s.padding() }

// VsXLA is the comparison column's text, for the index page.
func (s Summary) VsXLA() string { return s.vsXLA() }
