// XLA conformance of shapes and layouts.
//
// Cases: testdata/xla-shapes.txtar, the tests of XLA's shape_util_test.cc,
// shape_test.cc, layout_util_test.cc and layout_test.cc and the ParseShape
// tests of hlo_parser_test.cc, translated by testdata/gen/xla_tests.py into
// the text XLA prints for the shapes they build; its comment says what each
// check means and lists the tests of APIs hlo-opt has no counterpart of.
// Each check runs on hlo.ParseShape and the Shape API; the verdicts are the
// golden testdata/xla-shapes.golden.
package hlo_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

func TestXLAShapesConformance(t *testing.T) {
	archive := hlotest.ReadArchive(t, "testdata/xla-shapes.txtar")
	var verdicts []hlotest.Verdict
	for _, c := range readXLACases(t, "testdata/xla-shapes.txtar") {
		for _, k := range c.checks {
			detail := runShapeCheck(t, k)
			verdicts = append(verdicts, hlotest.Verdict{Suite: "shapes", Name: c.name, Check: k.kind,
				Pass: detail == "", Detail: detail, Differs: k.differs})
		}
	}
	suites := []string{"shapes"}
	summary, tally := hlotest.ConformanceSummary("XLA's shape and layout tests against hlo.ParseShape and the Shape API", suites, verdicts,
		hlotest.NotPortedList(archive.Comment))
	hlotest.Golden(t, "testdata/xla-shapes.golden", summary)
	hlotest.RequireConformance(t, suites, tally)
}

// shapeCompares are the comparisons of the "equal ..." and "compatible ..."
// checks: ShapeUtil::Equal, Compatible and their variants, and Shape::Equal
// with its Ignore options.
var shapeCompares = map[string]hlo.ShapeCompare{
	"equal":                            {},
	"equal ignoring fp precision":      {IgnoreFpPrecision: true},
	"equal ignoring element type":      {IgnoreElementType: true},
	"equal ignoring buffer":            {IgnoreBuffer: true},
	"equal ignoring buffer, layout":    {IgnoreBuffer: true, IgnoreLayout: true},
	"compatible":                       {IgnoreLayout: true, IgnoreDynamicDimension: true},
	"compatible ignoring fp precision": {IgnoreLayout: true, IgnoreDynamicDimension: true, IgnoreFpPrecision: true},
	"compatible ignoring element type": {IgnoreLayout: true, IgnoreDynamicDimension: true, IgnoreElementType: true},
}

var (
	subshapeCheck = regexp.MustCompile(`^subshape \{([0-9,]*)\} equal$`)
	linearCheck   = regexp.MustCompile(`^linear index ([0-9,]+)$`)
)

// runShapeCheck answers one check: "" when hlo does what XLA does, or what
// it does instead.
func runShapeCheck(t *testing.T, k xlaCheck) string {
	lines := strings.Split(strings.TrimSuffix(k.want, "\n"), "\n")
	kind, want, _ := strings.Cut(k.kind, ": ")
	if kind == "rejected" {
		_, err := hlo.ParseShape(lines[0])
		switch {
		case err == nil:
			return "accepted"
		case !regexp.MustCompile(`^\d+:\d+: `).MatchString(err.Error()):
			return "error without a position: " + err.Error()
		case len(lines) > 1 && !strings.Contains(err.Error(), lines[1]):
			return "error without XLA's phrase: " + err.Error()
		}
		return ""
	}
	shapes := make([]hlo.Shape, 0, 2)
	for _, l := range lines {
		if strings.HasPrefix(k.kind, "prints") || strings.HasPrefix(k.kind, "layout prints") {
			if len(shapes) == 1 {
				break // the second line is what XLA prints
			}
		}
		sh, err := hlo.ParseShape(l)
		if err != nil {
			return "refused " + l + ": " + err.Error()
		}
		shapes = append(shapes, sh)
	}
	got := ""
	switch cmp, isCompare := shapeCompares[kind]; {
	case kind == "parses":
		return ""
	case isCompare:
		got = strconv.FormatBool(cmp.Equal(shapes[0], shapes[1]))
	case kind == "layout equal":
		got = strconv.FormatBool(shapes[0].Layout.String() == shapes[1].Layout.String())
	case kind == "prints":
		return sameText(lines[1], shapes[0].String())
	case kind == "prints without layout":
		return sameText(lines[1], shapes[0].StringNoLayout())
	case kind == "layout prints":
		return sameText(lines[1], shapes[0].Layout.String())
	case kind == "elements":
		got = strconv.FormatInt(shapes[0].ElementCount(), 10)
	case kind == "bytes":
		n, err := hlo.ByteSizeOf(shapes[0], 8)
		if err != nil {
			return err.Error()
		}
		got = strconv.FormatInt(n, 10)
	case subshapeCheck.MatchString(kind):
		sub, ok := shapes[0].Subshape(intList(t, subshapeCheck.FindStringSubmatch(kind)[1]))
		got = strconv.FormatBool(ok && hlo.ShapeCompare{}.Equal(*sub, shapes[1]))
	case linearCheck.MatchString(kind):
		n, err := hlo.LinearIndex(shapes[0], intList(t, linearCheck.FindStringSubmatch(kind)[1]))
		if err != nil {
			return err.Error()
		}
		got = strconv.FormatInt(n, 10)
	default:
		t.Fatalf("unknown check %q", k.kind)
	}
	if got != want {
		return fmt.Sprintf("ours %s", got)
	}
	return ""
}

// sameText is "" when got is XLA's text want, or says what hlo prints.
func sameText(want, got string) string {
	if want == got {
		return ""
	}
	return "prints " + got
}

func intList(t *testing.T, s string) []int64 {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		if f == "" {
			continue
		}
		n, err := strconv.ParseInt(f, 10, 64)
		require.NoError(t, err, s)
		out = append(out, n)
	}
	return out
}
