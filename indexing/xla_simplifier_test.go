// XLA conformance of building, simplifying and composing indexing maps.
//
// Cases: testdata/indexing/xla-simplifier.txtar, from
// xla/hlo/analysis/indexing_map_test.cc of openxla/xla at commit
// 2c731115ef3bbd9457cfbc46cd5fba5a35ee74bb, extracted by
// testdata/gen/xla_tests.py; its comment says what each step means and
// lists the tests of other APIs, not ported. Each XLA test runs as its
// steps on this package's maps; every "expect" compares our map with XLA's:
// the same text after a parse round trip of both, or the same relation
// (points and results, by enumeration) with a map no bigger than XLA's.
// What Simplify returns (changed or not) is checked where XLA's test checks
// it. The verdicts are the golden testdata/indexing/xla-simplifier.golden.
package indexing

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// simplifierStep is one step of a case: the step's text (the file name
// after "NAME: ") and the map text it holds.
type simplifierStep struct {
	op, data, differs string
}

// simplifierCase is one XLA test: its steps in order.
type simplifierCase struct {
	name  string
	steps []simplifierStep
}

func readSimplifierCases(t *testing.T, archive *hlotest.Archive) []simplifierCase {
	t.Helper()
	var cases []simplifierCase
	for _, f := range archive.Files {
		name, op, isStep := strings.Cut(f.Name, ": ")
		if !isStep {
			cases = append(cases, simplifierCase{name: name})
			continue
		}
		require.NotEmpty(t, cases, f.Name)
		c := &cases[len(cases)-1]
		require.Equal(t, c.name, name, "%s: a step follows its case", f.Name)
		if o, ok := strings.CutSuffix(op, ", why ours differs"); ok {
			require.Equal(t, o, c.steps[len(c.steps)-1].op, f.Name)
			c.steps[len(c.steps)-1].differs = strings.TrimSpace(f.Data)
			continue
		}
		c.steps = append(c.steps, simplifierStep{op: op, data: f.Data})
	}
	return cases
}

// runSimplifierCase runs the steps of c and returns a verdict per check.
func runSimplifierCase(t *testing.T, c simplifierCase) []hlotest.Verdict {
	maps := map[string]*IndexingMap{}
	source := map[string]string{} // the text a map was read from, until it changes
	var out []hlotest.Verdict
	fail := func(step simplifierStep, detail string) {
		out = append(out, hlotest.Verdict{Suite: "simplifier", Name: c.name, Check: step.op, Detail: detail, Differs: step.differs})
	}
	pass := func(step simplifierStep) {
		out = append(out, hlotest.Verdict{Suite: "simplifier", Name: c.name, Check: step.op, Pass: true})
	}
	get := func(name string) *IndexingMap {
		m, ok := maps[name]
		require.True(t, ok, "%s: no map %s", c.name, name)
		return m
	}
	for i, step := range c.steps {
		target, rhs, assign := strings.Cut(step.op, " = ")
		if !assign {
			expectStep(t, step, maps, pass, fail)
			continue
		}
		rhs, flag, _ := strings.Cut(rhs, ", ")
		rhs, keepPoints := strings.CutSuffix(rhs, " preserving points")
		words := strings.Fields(rhs)
		var m *IndexingMap
		var err error
		switch {
		case rhs == "parse":
			if m, err = ParseIndexingMap(step.data); err != nil {
				fail(step, "refused: "+err.Error())
				return out
			}
		case words[0] == "constrain":
			m, err = constrainStep(get(words[1]), step.data)
		case words[0] == "simplify" && keepPoints:
			m = get(words[1]).SimplifyPreservingPoints()
		case words[0] == "simplify":
			m = get(words[1]).Simplify()
		case rhs == "rescale symbols "+words[len(words)-1]:
			m, _ = get(words[len(words)-1]).RescaleSymbols()
		case rhs == "remove unused symbols "+words[len(words)-1]:
			m, _ = get(words[len(words)-1]).RemoveUnusedSymbols()
		case rhs == "remove unused vars "+words[len(words)-1]:
			m, _ = get(words[len(words)-1]).RemoveUnusedVars()
		case rhs == "symbols to dims "+words[len(words)-1]:
			m = get(words[len(words)-1]).ConvertSymbolsToDimensions()
		case words[0] == "compose":
			m, err = Compose(get(words[1]), get(words[2]))
		default:
			t.Fatalf("%s: unknown step %q", c.name, step.op)
		}
		if err != nil {
			fail(step, err.Error())
			return out
		}
		if flag != "" {
			from := words[len(words)-1]
			before := get(from)
			if detail := changedCheck(flag, before, m, nextExpect(c.steps[i+1:], target), source[from]); detail != "" {
				fail(step, detail)
			} else {
				pass(step)
			}
		}
		maps[target] = m
		delete(source, target)
		if rhs == "parse" {
			source[target] = step.data
		}
	}
	return out
}

// constrainStep adds the constraint "expr in [lo, hi]" of text to m.
func constrainStep(m *IndexingMap, text string) (*IndexingMap, error) {
	expr, bounds, ok := strings.Cut(strings.TrimSpace(text), " in ")
	if !ok {
		return nil, fmt.Errorf("expected a constraint, found %q", text)
	}
	e, err := ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	var iv Interval
	if _, err := fmt.Sscanf(bounds, "[%d, %d]", &iv.Lower, &iv.Upper); err != nil {
		return nil, err
	}
	return m.AddConstraint(e, iv)
}

// nextExpect returns the map XLA expects of name next, before name is
// assigned again, or "".
func nextExpect(steps []simplifierStep, name string) string {
	for _, s := range steps {
		if s.op == "expect "+name {
			return s.data
		}
		if strings.HasPrefix(s.op, name+" = ") {
			return ""
		}
	}
	return ""
}

// changedCheck checks what XLA's test says a step returns: "changed" (the
// map changed; also fine when ours was already as simple as XLA's next
// expectation, or when reading XLA's text, source, already rewrote it, as
// our expressions are canonical from the start) or "unchanged" (ours may
// still have simplified, to an equal map no bigger than before).
func changedCheck(flag string, before, after *IndexingMap, next, source string) string {
	changed := !after.Equal(before)
	compact := func(s string) string { return strings.Join(strings.Fields(s), "") }
	switch flag {
	case "changed":
		if changed || (source != "" && compact(source) != compact(before.String())) {
			return ""
		}
		if next != "" {
			if want, err := ParseIndexingMap(next); err == nil && conformanceSize(before) <= conformanceSize(want) {
				return ""
			}
		}
		return "unchanged, XLA's changes: " + before.String()
	case "unchanged":
		if !changed {
			return ""
		}
		if ok, _ := equivalent(before, after); ok && conformanceSize(after) <= conformanceSize(before) {
			return ""
		}
		return "changed to " + after.String()
	}
	return "unknown flag " + flag
}

// expectStep runs an "expect" step.
func expectStep(t *testing.T, step simplifierStep, maps map[string]*IndexingMap, pass func(simplifierStep), fail func(simplifierStep, string)) {
	args := strings.Fields(strings.TrimPrefix(step.op, "expect "))
	switch {
	case len(args) == 3 && (args[1] == "==" || args[1] == "!="):
		a, b := maps[args[0]], maps[args[2]]
		require.NotNil(t, a, step.op)
		require.NotNil(t, b, step.op)
		if a.Equal(b) == (args[1] == "==") {
			pass(step)
		} else {
			fail(step, fmt.Sprintf("%s %s %s", a, map[bool]string{true: "equals", false: "differs from"}[a.Equal(b)], b))
		}
	case len(args) == 1:
		got := maps[args[0]]
		require.NotNil(t, got, step.op)
		want, err := ParseIndexingMap(step.data)
		require.NoError(t, err, "XLA's map of %s", step.op)
		if detail := sameMap(t, want, got); detail != "" {
			fail(step, detail)
		} else {
			pass(step)
		}
	default:
		t.Fatalf("unknown step %q", step.op)
	}
}

// sameMap is "" when got is XLA's map want or an equal one no bigger, or
// says how it differs.
func sameMap(t *testing.T, want, got *IndexingMap) string {
	if canonicalText(t, want) == canonicalText(t, got) {
		return ""
	}
	ok, why := equivalent(want, got)
	switch {
	case !ok:
		return fmt.Sprintf("ours %s, XLA's %s (%s)", got, want, why)
	case conformanceSize(got) > conformanceSize(want):
		return fmt.Sprintf("ours %s is bigger than XLA's %s (size %d > %d)", got, want, conformanceSize(got), conformanceSize(want))
	}
	return ""
}

func TestXLASimplifierConformance(t *testing.T) {
	archive := hlotest.ReadArchive(t, "../testdata/indexing/xla-simplifier.txtar")
	var verdicts []hlotest.Verdict
	for _, c := range readSimplifierCases(t, archive) {
		verdicts = append(verdicts, runSimplifierCase(t, c)...)
	}
	suites := []string{"simplifier"}
	summary, tally := hlotest.ConformanceSummary("XLA's indexing_map_test.cc against this package's maps", suites, verdicts, hlotest.NotPortedList(archive.Comment))
	hlotest.Golden(t, "../testdata/indexing/xla-simplifier.golden", summary)
	hlotest.RequireConformance(t, suites, tally)
}
