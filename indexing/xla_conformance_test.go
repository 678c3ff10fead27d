// XLA conformance of the indexing analysis.
//
// Cases: testdata/indexing/xla-conformance.txtar, from
// xla/hlo/analysis/indexing_analysis_test.cc of openxla/xla at
// commit 4b655499a065b43309e42678b63404170b1d50a2. Every TEST_F that checks
// the maps of an instruction is ported (72 tests, 100 checks: every
// GetOutputToInputIndexing / GetInputToOutputIndexing expectation); the
// ones on XLA-internal APIs (GroupIndexingMapsByProducers, the fusion
// adaptors' ComputeGroupedOutputToInputIndexing, and
// ComputeEpilogueInputToOutputIndexing) are not. Expected strings are
// copied from the test; their "runtime variables:" sections, which name the
// HLO behind each rt variable, are dropped (our maps do not carry them).
//
// Each check compares our maps per operand, as sets, first as text after a
// parse round trip of both sides, then semantically (same feasible
// dimension points, same result sets over symbols and rt variables, by
// enumeration; sampled when over a million points). Result:
//
//   - 96 exact.
//   - 3 equivalent, printed differently because our simplifier goes
//     further than MLIR's: ReshapePreservesSize1Dims (d0 in [0, 0], so
//     d0 * 32 + d1 is d1), FusionOpReshapeOfConcat (the constraint
//     d0 * 8 + d1 in [0, 1] narrows d0 to [0, 0] and d1 to [0, 1]; the map
//     becomes d1), FusionOpWithPadAndDynamicSlice (d1 + rt0 in
//     [4096, 8191] with d1 <= 4095 tightens rt0 to [1, 4096]).
//   - 1 documented difference: FusionWithRTVarsSimplification_Iota (XLA
//     folds an iota start past the gather's clamp range; we keep rt0).
//   - 0 different. Two disagreements found by this table were fixed: the
//     HLO parser now reads a layout after a space ("f32[51,16] {0,1}"),
//     and constant and iota starts of dynamic-slice, dynamic-update-slice
//     and gather fold into the map (XLA's OptimizeRTVar).
package indexing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestXLAIndexingConformance(t *testing.T) {
	cases := readXLAIndexingCases(t)
	tally := runXLAIndexingCases(t, cases)
	t.Logf("exact %d, equivalent %d (%v), documented %d, different %d",
		tally.exact, tally.equivalent, tally.equivalentNames, tally.documented, tally.different)
	assert.Equal(t, 72, len(cases))
	// The file comment states these counts.
	assert.Equal(t, 96, tally.exact)
	assert.Equal(t, []string{"ReshapePreservesSize1Dims#0", "FusionOpReshapeOfConcat#0", "FusionOpWithPadAndDynamicSlice#0"},
		tally.equivalentNames)
	assert.Equal(t, 1, tally.documented)
	assert.Zero(t, tally.different)
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
