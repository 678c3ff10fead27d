// XLA conformance of the parser and printer.
//
// Cases: testdata/xla-parser.txtar, every test of XLA's
// xla/hlo/parser/hlo_parser_test.cc that parses HLO text (its round-trip
// tables and its TEST_Fs), extracted by testdata/gen/xla_tests.py; its
// comment says what each check means. Each check of XLA's is run against
// hlo.Parse and the printer: a text XLA accepts must parse and print as
// XLA prints it, a text XLA rejects must be refused with a positioned
// error that contains XLA's key phrases. The verdicts, the pass rate of
// each suite and the documented differences are the golden
// testdata/xla-parser.golden.
package hlo_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// xlaCase is one case of an archive of XLA tests: the input and its checks.
type xlaCase struct {
	name, input string
	checks      []xlaCheck
}

// xlaCheck is one expectation of XLA's on a case. A check hlo-opt answers
// otherwise on purpose has differs (why) and ours (what it answers).
type xlaCheck struct {
	kind, want    string
	differs, ours string
}

// readXLACases reads an archive of XLA tests: "-- NAME --" holds a case's
// input, "-- NAME: CHECK --" each of its checks, "-- NAME: CHECK, why ours
// differs --" and "-- NAME: CHECK, ours --" a documented difference.
func readXLACases(t *testing.T, path string) []xlaCase {
	t.Helper()
	var cases []xlaCase
	for _, f := range hlotest.ReadArchive(t, path).Files {
		name, check, isCheck := strings.Cut(f.Name, ": ")
		if !isCheck {
			cases = append(cases, xlaCase{name: name, input: f.Data})
			continue
		}
		require.NotEmpty(t, cases, f.Name)
		c := &cases[len(cases)-1]
		require.Equal(t, c.name, name, "%s: a check follows its case", f.Name)
		if k, ok := strings.CutSuffix(check, ", why ours differs"); ok {
			require.Equal(t, k, c.checks[len(c.checks)-1].kind, f.Name)
			c.checks[len(c.checks)-1].differs = strings.TrimSpace(f.Data)
			continue
		}
		if k, ok := strings.CutSuffix(check, ", ours"); ok {
			require.Equal(t, k, c.checks[len(c.checks)-1].kind, f.Name)
			c.checks[len(c.checks)-1].ours = f.Data
			continue
		}
		c.checks = append(c.checks, xlaCheck{kind: check, want: f.Data})
	}
	return cases
}

// parserSuite is the suite of a parser check: what XLA accepts, or what it
// rejects.
func parserSuite(kind string) string {
	if kind == "rejected" {
		return "parser errors"
	}
	return "parser round trips"
}

// runParserCheck answers one check: "" when hlo-opt does what XLA does, or
// what it does instead.
func runParserCheck(c xlaCase, k xlaCheck) string {
	m, err := hlo.ParseFile("xla.hlo", []byte(c.input))
	if k.kind == "rejected" {
		return checkRejected(err, k.want)
	}
	if err != nil {
		return "refused: " + err.Error()
	}
	print := func(opts hlo.PrintOptions) string {
		var b strings.Builder
		if err := m.Print(&b, opts); err != nil {
			return err.Error()
		}
		return b.String()
	}
	differ := func(want, got string) string {
		if want == got {
			return ""
		}
		return "prints " + firstLineDiff(want, got)
	}
	switch k.kind {
	case "accepted":
		return ""
	case "round trip":
		return differ(c.input, print(hlo.PrintOptions{Classic: true}))
	case "round trip, short":
		return differ(c.input, print(hlo.PrintOptions{Short: true}))
	case "prints short":
		return differ(strings.TrimSpace(k.want), strings.TrimSpace(print(hlo.PrintOptions{Short: true})))
	case "prints":
		return differ(k.want, print(hlo.PrintOptions{ElideLargeConstants: true}))
	case "prints short, contains":
		if got := print(hlo.PrintOptions{Short: true}); !strings.Contains(got, strings.TrimSuffix(k.want, "\n")) {
			return "prints\n" + got + "\nwithout " + k.want
		}
		return ""
	case "prints attribute":
		if got := print(hlo.PrintOptions{}); !strings.Contains(got, ", "+strings.TrimSuffix(k.want, "\n")) {
			return "prints\n" + got + "\nwithout " + k.want
		}
		return ""
	case "entry":
		if got, want := m.Entry.Name, strings.TrimSpace(k.want); got != want {
			return "entry " + got
		}
		return ""
	case "root":
		if got, want := m.Entry.Root.Name, strings.TrimSpace(k.want); got != want {
			return "root " + got
		}
		return ""
	}
	return "unknown check " + k.kind
}

// checkRejected answers a "rejected" check: the error must be a positioned
// hlo.ErrorList whose first error contains every phrase, at "at L:C".
func checkRejected(err error, want string) string {
	if err == nil {
		return "accepted"
	}
	var list hlo.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return "error without position: " + err.Error()
	}
	first := list[0]
	if !first.Pos.IsValid() || first.Filename != "xla.hlo" {
		return "error without position: " + err.Error()
	}
	for _, line := range strings.Split(strings.TrimSuffix(want, "\n"), "\n") {
		if line == "" {
			continue
		}
		if at, ok := strings.CutPrefix(line, "at "); ok {
			if got := fmt.Sprintf("%d:%d", first.Pos.Line, first.Pos.Col); got != at {
				return "error at " + got + " instead of " + at + ": " + err.Error()
			}
			continue
		}
		if !strings.Contains(first.Msg, line) {
			return fmt.Sprintf("error without %q: %s", line, err.Error())
		}
	}
	return ""
}

func TestXLAParserConformance(t *testing.T) {
	archive := hlotest.ReadArchive(t, "testdata/xla-parser.txtar")
	cases := readXLACases(t, "testdata/xla-parser.txtar")
	var verdicts []hlotest.Verdict
	for _, c := range cases {
		for _, k := range c.checks {
			got := runParserCheck(c, k)
			v := hlotest.Verdict{Suite: parserSuite(k.kind), Name: c.name, Check: k.kind, Pass: got == ""}
			switch {
			case k.differs != "":
				v.Differs = k.differs
				assert.False(t, v.Pass, "%s: %s passes; drop its documented difference", c.name, k.kind)
				assert.Equal(t, strings.TrimSpace(k.ours), strings.TrimSpace(got), "%s: %s: %s", c.name, k.kind, k.differs)
			case !v.Pass:
				v.Detail = got
			}
			verdicts = append(verdicts, v)
		}
	}
	suites := []string{"parser round trips", "parser errors"}
	summary, tally := hlotest.ConformanceSummary("XLA's hlo_parser_test.cc against hlo.Parse and the printer", suites, verdicts, hlotest.NotPortedList(archive.Comment))
	hlotest.Golden(t, "testdata/xla-parser.golden", summary)
	hlotest.RequireConformance(t, suites, tally)
}

// firstLineDiff describes the first line where got differs from want.
func firstLineDiff(want, got string) string {
	if n, a, b := hlotest.FirstDifferentLine(want, got); n > 0 {
		return fmt.Sprintf("line %d %q instead of %q", n, b, a)
	}
	return ""
}
