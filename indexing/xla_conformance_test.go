// XLA conformance of the indexing analysis.
//
// Cases: testdata/indexing/xla-conformance.txtar, from
// xla/hlo/analysis/indexing_analysis_test.cc of openxla/xla at commit
// 2c731115ef3bbd9457cfbc46cd5fba5a35ee74bb, extracted by
// testdata/gen/xla_tests.py: every TEST_P that checks the maps of an
// instruction (78 tests, 107 checks, every GetOutputToInputIndexing /
// GetInputToOutputIndexing expectation); the ones on XLA-internal APIs
// (GroupIndexingMapsByProducers, the fusion adaptors'
// ComputeGroupedOutputToInputIndexing, ComputeEpilogueInputToOutputIndexing)
// are listed in the archive's comment and not run. Expected strings are
// copied from the test; their "runtime variables:" sections, which name
// the HLO behind each rt variable, are dropped (our maps do not carry
// them); "replica id:" sections (all-gather) are compared.
//
// Each check compares our maps per operand, as sets, first as text after a
// parse round trip of both sides, then semantically (same feasible
// dimension points, same result sets over symbols and rt variables, by
// enumeration; sampled when over a million points); a semantic match must
// be no bigger than XLA's map (expression nodes, constraints, symbols).
// The verdicts and the pass rate are the golden
// testdata/indexing/xla-conformance.golden; the equivalent ones are logged
// with both texts (go test -v).
package indexing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

func TestXLAIndexingConformance(t *testing.T) {
	cases := readXLAIndexingCases(t)
	tally := runXLAIndexingCases(t, cases)
	t.Logf("exact %d, equivalent %d (%v), documented %d, different %d",
		tally.exact, tally.equivalent, tally.equivalentNames, tally.documented, tally.different)
	archive := hlotest.ReadArchive(t, "../testdata/indexing/xla-conformance.txtar")
	suites := []string{"indexing analysis"}
	summary, counts := hlotest.ConformanceSummary("XLA's indexing_analysis_test.cc against ComputeOutputToInput and ComputeInputToOutput",
		suites, tally.verdicts, hlotest.NotPortedList(archive.Comment))
	hlotest.Golden(t, "../testdata/indexing/xla-conformance.golden", summary)
	hlotest.RequireConformance(t, suites, counts)
}

// TestEquivalentDetectsDifferences guards the semantic comparison: maps
// that differ in one point, in a constraint or in a symbol's range are not
// equivalent; renamed symbols and rewritten expressions are.
func TestEquivalentDetectsDifferences(t *testing.T) {
	parse := func(s string) *IndexingMap {
		m, err := ParseIndexingMap(s)
		require.NoError(t, err, s)
		return m
	}
	same := [][2]string{
		{"(d0)[s0, s1] -> (s0, d0 + s1), domain: d0 in [0, 3], s0 in [0, 1], s1 in [0, 2]",
			"(d0)[s0, s1] -> (s1, d0 + s0), domain: d0 in [0, 3], s0 in [0, 2], s1 in [0, 1]"},
		{"(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7], d0 * 8 + d1 in [0, 1]",
			"(d0, d1) -> (d1), domain: d0 in [0, 0], d1 in [0, 1]"},
		{"(d0) -> (d0 floordiv 2), domain: d0 in [0, 5], d0 mod 2 in [1, 1]", "(d0) -> ((d0 - 1) floordiv 2), domain: d0 in [1, 5], d0 mod 2 in [1, 1]"},
		{"KNOWN EMPTY", "(d0) -> (d0), domain: d0 in [0, 5], d0 mod 7 in [6, 6]"},
		{"UNDEFINED", "UNDEFINED"},
	}
	for _, p := range same {
		ok, why := equivalent(parse(p[0]), parse(p[1]))
		assert.True(t, ok, "%s vs %s: %s", p[0], p[1], why)
	}
	different := [][2]string{
		{"(d0) -> (d0), domain: d0 in [0, 9]", "(d0) -> (d0), domain: d0 in [0, 8]"},
		{"(d0) -> (d0), domain: d0 in [0, 9]", "(d0) -> (d0 mod 9), domain: d0 in [0, 9]"},
		{"(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 2]", "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3]"},
		{"(d0) -> (d0), domain: d0 in [0, 9], d0 mod 2 in [0, 0]", "(d0) -> (d0), domain: d0 in [0, 9]"},
		{"(d0) -> (d0), domain: d0 in [0, 9]", "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 0]"},
		{"KNOWN EMPTY", "(d0) -> (d0), domain: d0 in [0, 5]"},
		{"UNDEFINED", "(d0) -> (d0), domain: d0 in [0, 5]"},
	}
	for _, p := range different {
		ok, _ := equivalent(parse(p[0]), parse(p[1]))
		assert.False(t, ok, "%s vs %s", p[0], p[1])
	}
	// A difference in a large domain is found by the sample.
	big := parse("(d0, d1) -> (d0 + d1), domain: d0 in [0, 4095], d1 in [0, 4095]")
	off := parse("(d0, d1) -> (d0 + d1), domain: d0 in [0, 4095], d1 in [0, 4094]")
	ok, _, sampled := equivalentSampled(big, off)
	assert.True(t, sampled)
	assert.False(t, ok)
}
