package hlotest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Verdict is the outcome of one check of a port of XLA's own tests:
// hlo-opt answers as XLA does (Pass), differs on purpose (Differs says
// why) or fails (Detail says how).
type Verdict struct {
	Suite, Name, Check string
	Pass               bool
	Differs, Detail    string
}

// Tally counts the verdicts of one suite.
type Tally struct {
	Pass, Documented, Fail int
}

// Total is the number of checks.
func (t Tally) Total() int { return t.Pass + t.Documented + t.Fail }

// ConformanceSummary is the golden text of a conformance run: per suite
// the checks, passes and their rate, documented differences and failures;
// then every documented difference with its reason, every failure, and
// the tests not ported with theirs.
func ConformanceSummary(title string, suites []string, verdicts []Verdict, notPorted []string) (string, map[string]Tally) {
	tally := map[string]Tally{}
	for _, v := range verdicts {
		t := tally[v.Suite]
		switch {
		case v.Pass:
			t.Pass++
		case v.Differs != "":
			t.Documented++
		default:
			t.Fail++
		}
		tally[v.Suite] = t
	}
	var b strings.Builder
	b.WriteString("# " + title + "\n\n")
	fmt.Fprintf(&b, "%-26s %6s %6s %6s %10s %6s\n", "suite", "checks", "pass", "rate", "documented", "fail")
	for _, s := range suites {
		t := tally[s]
		rate := 100.0
		if t.Total() > 0 {
			rate = 100 * float64(t.Pass) / float64(t.Total())
		}
		fmt.Fprintf(&b, "%-26s %6d %6d %5.1f%% %10d %6d\n", s, t.Total(), t.Pass, rate, t.Documented, t.Fail)
	}
	section := func(title string, lines []string) {
		b.WriteString("\n## " + title + "\n\n")
		for _, l := range lines {
			b.WriteString("- " + l + "\n")
		}
	}
	var documented, failed []string
	for _, v := range verdicts {
		switch {
		case v.Pass:
		case v.Differs != "":
			documented = append(documented, v.Name+": "+v.Check+": "+v.Differs)
		default:
			failed = append(failed, v.Name+": "+v.Check+": "+strings.ReplaceAll(v.Detail, "\n", "\n    "))
		}
	}
	section("Documented differences", documented)
	section("Failures", failed)
	section("Not ported", notPorted)
	return b.String(), tally
}

// RequireConformance checks that at least 98% of each suite's checks pass
// and that none fails without a documented reason.
func RequireConformance(t *testing.T, suites []string, tally map[string]Tally) {
	t.Helper()
	for _, s := range suites {
		n := tally[s]
		assert.Positive(t, n.Total(), "%s: no checks", s)
		assert.GreaterOrEqual(t, 100*n.Pass, 98*n.Total(), "%s: %d of %d pass", s, n.Pass, n.Total())
		assert.Zero(t, n.Fail, "%s: a difference from XLA is fixed or documented", s)
	}
}

// NotPortedList reads the "Not ported" list of an archive's comment: the
// lines "  NAME: reason" after a line that starts with "Not ported".
func NotPortedList(comment string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(comment, "\n") {
		switch {
		case strings.HasPrefix(l, "Not ported"):
			in = true
		case in && strings.HasPrefix(l, "  ") && strings.Contains(l, ": "):
			out = append(out, strings.TrimSpace(l))
		case in && strings.HasPrefix(l, "    "):
			// continuation of the previous reason
			out[len(out)-1] += " " + strings.TrimSpace(l)
		case in && strings.TrimSpace(l) == "":
		default:
			in = false
		}
	}
	return out
}
