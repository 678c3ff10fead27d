package cost

import (
	"testing"

	"github.com/hlo-opt/hlo-opt/indexing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const gridDomain = "d0 in [0, 127], d1 in [0, 0], d2 in [0, 0], d3 in [0, 99], d4 in [0, 0], d5 in [0, 0]"

// The worked examples of SEMANTICS a.3 (from coalescing_analysis_test.cc).
func TestIsIndexingCoalescedVectors(t *testing.T) {
	cases := []struct {
		name, m   string
		bytes     int64
		want      bool
		reasonHas string
	}{
		{"variadic reduce via loop: 8 runs of 4", "(d0, d1, d2, d3, d4, d5)[s0] -> ((d0 floordiv 4) * 40 + d0 mod 4 + s0 * 4), domain: " + gridDomain + ", s0 in [0, 9]",
			4, false, "8 runs, 8 transactions of 128 B where 1 suffice"},
		{"unrolled loop", "(d0, d1, d2, d3, d4, d5)[s0] -> (d0 * 4 + s0 + d3 * 512), domain: " + gridDomain + ", s0 in [0, 3]",
			4, true, "thread stride 4 elements: 1 runs, 4 transactions"},
		{"stride 100", "(d0, d1, d2, d3, d4, d5) -> (d0 * 100), domain: " + gridDomain,
			4, false, "thread stride 100 elements: 32 runs, 32 transactions of 128 B where 1 suffice"},
		{"stride 200 under a loop", "(d0, d1, d2, d3, d4, d5)[s0, s1] -> (d0 * 200 + s1 * 7 + s0), domain: " + gridDomain + ", s0 in [0, 3], s1 in [0, 2]",
			4, false, "32 runs"},
		{"contiguous", "(d0, d1, d2, d3, d4, d5) -> (d0 + d3 * 128), domain: " + gridDomain,
			4, true, "thread stride 1"},
		{"reversed", "(d0, d1, d2, d3, d4, d5) -> (-d0 + 127), domain: " + gridDomain,
			2, true, "thread stride -1"},
		{"mixed summand", "(d0, d1, d2, d3, d4, d5)[s0] -> ((d0 + s0) mod 7), domain: " + gridDomain + ", s0 in [0, 3]",
			4, false, "both the thread and the loop"},
		{"runtime offset", "(d0, d1, d2, d3, d4, d5){rt0} -> (d0 + rt0 * 32), domain: " + gridDomain + ", rt0 in [0, 10]",
			4, true, "thread stride 1"},
		{"undefined", "UNDEFINED", 4, false, "undefined"},
		// A broadcast row read by a loop fusion: the whole warp reads one
		// element (the block index picks it), so f(d0) is constant: one
		// run, one transaction.
		{"broadcast row, warp reads one element", "(d0, d1, d2, d3, d4, d5) -> (d3), domain: " + gridDomain,
			4, true, "1 runs, 1 transactions"},
		{"broadcast row under a loop", "(d0, d1, d2, d3, d4, d5)[s0] -> (d3 * 4 + s0), domain: " + gridDomain + ", s0 in [0, 3]",
			4, true, "1 runs, 1 transactions"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := indexing.ParseIndexingMap(tc.m)
			require.NoError(t, err)
			got, why := IsIndexingCoalesced(m, tc.bytes)
			assert.Equal(t, tc.want, got, why)
			assert.Contains(t, why, tc.reasonHas)
		})
	}
}
