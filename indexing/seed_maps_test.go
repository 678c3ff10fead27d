package indexing

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seedMaps are the indexing maps printed in the seed document
// (indexing-analysis.txt), verbatim except where an erratum applies.
var seedMaps = []struct {
	name string
	text string
}{
	{"elementwise", "(d0, d1) -> (d0, d1),\ndomain:\nd0 in [0, 9],\nd1 in [0, 19]"},
	{"broadcast output to input", "(d0, d1, d2) -> (d1),\ndomain:\nd0 in [0, 9],\nd1 in [0, 19],\nd2 in [0, 29]"},
	{"broadcast input to output", "(d0)[s0, s1] -> (s0, d0, s1),\ndomain:\nd0 in [0, 19],\ns0 in [0, 9],\ns1 in [0, 29]"},
	{"dynamic-slice src", "(d0, d1, d2){rt0, rt1, rt2} -> (d0 + rt0, d1 + rt1, d2 + rt2),\ndomain:\n" +
		"d0 in [0, 0],\nd1 in [0, 1],\nd2 in [0, 31],\nrt0 in [0, 1],\nrt1 in [0, 0],\nrt2 in [0, 226]"},
	{"dynamic-slice offsets", "(d0, d1, d2) -> (),\ndomain:\nd0 in [0, 0],\nd1 in [0, 1],\nd2 in [0, 31]"},
	{"dynamic-update-slice src", "(d0, d1) -> (d0, d1),\ndomain:\nd0 in [0, 19],\nd1 in [0, 29]"},
	{"dynamic-update-slice upd", "(d0, d1){rt0, rt1} -> (d0 - rt0, d1 - rt1),\ndomain:\n" +
		"d0 in [0, 19],\nd1 in [0, 29],\nrt0 in [0, 15],\nrt1 in [0, 20]"},
	{"dynamic-update-slice offsets", "(d0, d1) -> (),\ndomain:\nd0 in [0, 19],\nd1 in [0, 29]"},
	{"gather operand", "(d0, d1, d2, d3){rt0, rt1} -> (d1 + rt0, d2 + rt1, d3),\ndomain:\n" +
		"d0 in [0, 1805],\nd1 in [0, 6],\nd2 in [0, 7],\nd3 in [0, 3],\nrt0 in [0, 26],\nrt1 in [0, 68]"},
	{"gather indices", "(d0, d1, d2, d3)[s0] -> (d0, s0),\ndomain:\n" +
		"d0 in [0, 1805],\nd1 in [0, 6],\nd2 in [0, 7],\nd3 in [0, 3],\ns0 in [0, 1]"},
	{"transpose output to input", "(d0, d1, d2, d3) -> (d0, d3, d1, d2),\ndomain:\n" +
		"d0 in [0, 2],\nd1 in [0, 5],\nd2 in [0, 127],\nd3 in [0, 12287]"},
	{"transpose input to output", "(d0, d1, d2, d3) -> (d0, d2, d3, d1),\ndomain:\n" +
		"d0 in [0, 2],\nd1 in [0, 12287],\nd2 in [0, 5],\nd3 in [0, 127]"},
	{"reverse", "(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3),\ndomain:\n" +
		"d0 in [0, 0],\nd1 in [0, 16],\nd2 in [0, 8],\nd3 in [0, 8]"},
	{"reduce output to input", "(d0)[s0] -> (s0, d0),\ndomain:\nd0 in [0, 9],\ns0 in [0, 255]"},
	{"reduce output to init", "(d0) -> (),\ndomain:\nd0 in [0, 9]"},
	{"reduce input to output", "(d0, d1) -> (d1),\ndomain:\nd0 in [0, 255],\nd1 in [0, 9]"},
	{"reduce init to output", "()[s0] -> (s0),\ndomain:\ns0 in [0, 9]"},
	{"slice output to input", "(d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2),\ndomain:\n" +
		"d0 in [0, 4],\nd1 in [0, 2],\nd2 in [0, 24]"},
	{"slice input to output", "(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2),\ndomain:\n" +
		"d0 in [5, 9],\nd1 in [3, 17],\nd2 in [0, 48],\n(d1 - 3) mod 7 in [0, 0],\nd2 mod 2 in [0, 0]"},
	{"collapse shape output to input", "(d0) -> (d0 floordiv 8, d0 mod 8),\ndomain:\nd0 in [0, 31]"},
	{"collapse shape input to output", "(d0, d1) -> (d0 * 8 + d1),\ndomain:\nd0 in [0, 3],\nd1 in [0, 7]"},
	{"generic reshape 1 output to input", "(d0, d1, d2) -> (d0 * 2 + d1 floordiv 2, d2 + (d1 mod 2) * 4),\ndomain:\n" +
		"d0 in [0, 1],\nd1 in [0, 3],\nd2 in [0, 3]"},
	{"generic reshape 1 input to output", "(d0, d1) -> (d0 floordiv 2, d1 floordiv 4 + (d0 mod 2) * 2, d1 mod 4),\ndomain:\n" +
		"d0 in [0, 3],\nd1 in [0, 7]"},
	// SEED-ERRATA 6: the seed omits the comma after "d1 in [0, 2]".
	{"generic reshape 2 output to input", "(d0, d1, d2) -> (d0 floordiv 8, d0 mod 8, d1 * 4 + d2),\ndomain:\n" +
		"d0 in [0, 31],\nd1 in [0, 2],\nd2 in [0, 3]"},
	{"generic reshape 2 input to output", "(d0, d1, d2) -> (d0 * 8 + d1, d2 floordiv 4, d2 mod 4),\ndomain:\n" +
		"d0 in [0, 3],\nd1 in [0, 7],\nd2 in [0, 11]"},
	{"concatenate output to input 1", "(d0, d1, d2) -> (d0, d1, d2),\ndomain:\nd0 in [0, 1],\nd1 in [0, 4],\nd2 in [0, 6]"},
	{"concatenate output to input 2", "(d0, d1, d2) -> (d0, d1 - 5, d2),\ndomain:\nd0 in [0, 1],\nd1 in [5, 15],\nd2 in [0, 6]"},
	{"concatenate output to input 3", "(d0, d1, d2) -> (d0, d1 - 16, d2),\ndomain:\nd0 in [0, 1],\nd1 in [16, 32],\nd2 in [0, 6]"},
	{"concatenate input 2 to output", "(d0, d1, d2) -> (d0, d1 + 5, d2),\ndomain:\nd0 in [0, 1],\nd1 in [0, 10],\nd2 in [0, 6]"},
	{"concatenate input 3 to output", "(d0, d1, d2) -> (d0, d1 + 16, d2),\ndomain:\nd0 in [0, 1],\nd1 in [0, 16],\nd2 in [0, 6]"},
	{"dot output to input 1", "(d0, d1, d2)[s0] -> (d0, d1, s0),\ndomain:\n" +
		"d0 in [0, 3],\nd1 in [0, 127],\nd2 in [0, 63],\ns0 in [0, 255]"},
	{"dot output to input 2", "(d0, d1, d2)[s0] -> (d0, s0, d2),\ndomain:\n" +
		"d0 in [0, 3],\nd1 in [0, 127],\nd2 in [0, 63],\ns0 in [0, 255]"},
	{"dot input 1 to output", "(d0, d1, d2)[s0] -> (d0, d1, s0),\ndomain:\n" +
		"d0 in [0, 3],\nd1 in [0, 127],\nd2 in [0, 255],\ns0 in [0, 63]"},
	// SEED-ERRATA 3: the seed prints (d0, s0, d1); the rhs non-contracting
	// dimension is d2.
	{"dot input 2 to output", "(d0, d1, d2)[s0] -> (d0, s0, d2),\ndomain:\n" +
		"d0 in [0, 3],\nd1 in [0, 255],\nd2 in [0, 63],\ns0 in [0, 127]"},
	{"pad output to input", "(d0, d1) -> ((d0 - 1) floordiv 2, d1 - 4),\ndomain:\n" +
		"d0 in [1, 7],\nd1 in [4, 7],\n(d0 - 1) mod 2 in [0, 0]"},
	{"pad output to init", "(d0, d1) -> (),\ndomain:\nd0 in [0, 11],\nd1 in [0, 15]"},
	{"reduce-window output to input", "(d0, d1)[s0] -> (d0, d1 + s0),\ndomain:\n" +
		"d0 in [0, 1023],\nd1 in [0, 2],\ns0 in [0, 511]"},
	{"reduce-window output to init", "(d0, d1) -> (),\ndomain:\nd0 in [0, 1023],\nd1 in [0, 2]"},
	{"softmax reduction", "(d0, d1, d2)[s0] -> (d0, d1, s0),\ndomain:\n" +
		"d0 in [0, 1],\nd1 in [0, 64],\nd2 in [0, 124],\ns0 in [0, 124]"},
	{"softmax elementwise", "(d0, d1, d2) -> (d0, d1, d2),\ndomain:\nd0 in [0, 1],\nd1 in [0, 64],\nd2 in [0, 124]"},
	// SEED-ERRATA 1: the introduction's bounds are inclusive, [0, 9] and
	// so on, not [0, 10]. The variables keep the document's names.
	{"introduction broadcast", "(i, j, k) -> (j),\ndomain:\ni in [0, 9],\nj in [0, 19],\nk in [0, 29]"},
	{"introduction reduction", "(d0, d1)[r0, r1] -> (r0, d0, d1, r1),\ndomain:\n" +
		"d0 in [0, 3],\nd1 in [0, 7],\nr0 in [0, 1],\nr1 in [0, 15]"},
}

// Every map of the seed parses, prints back exactly in the document's
// multi-line form, and round-trips through the one-line form.
func TestSeedMapsPrintExactly(t *testing.T) {
	for _, tc := range seedMaps {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseIndexingMap(tc.text)
			require.NoError(t, err)
			assert.Equal(t, tc.text, m.MultiLineString())
			oneLine := m.String()
			assert.NotContains(t, oneLine, "\n")
			again, err := ParseIndexingMap(oneLine)
			require.NoError(t, err)
			assert.True(t, m.Equal(again), oneLine)
			assert.Equal(t, oneLine, again.String())
		})
	}
}

// The seed's own slips in map text, and what the parser does with them.
func TestSeedMapSlips(t *testing.T) {
	t.Run("SEED-ERRATA 6: trailing comma in the transpose domain is accepted", func(t *testing.T) {
		m, err := ParseIndexingMap("(d0, d1, d2, d3) -> (d0, d3, d1, d2),\ndomain:\n" +
			"d0 in [0, 2],\nd1 in [0, 5],\nd2 in [0, 127],\nd3 in [0, 12287],")
		require.NoError(t, err)
		assert.True(t, strings.HasSuffix(m.MultiLineString(), "d3 in [0, 12287]"))
	})
	t.Run("SEED-ERRATA 6: missing comma in reshape example 2 is an error", func(t *testing.T) {
		_, err := ParseIndexingMap("(d0, d1, d2) -> (d0 floordiv 8, d0 mod 8, d1 * 4 + d2),\ndomain:\n" +
			"d0 in [0, 31],\nd1 in [0, 2]\nd2 in [0, 3]")
		var perr *ParseError
		require.ErrorAs(t, err, &perr)
		assert.Equal(t, 5, perr.Line)
		assert.Contains(t, perr.Error(), `5:1: expected ","`)
		assert.Equal(t, 1, perr.Col)
	})
	t.Run("double space before the arrow is only whitespace", func(t *testing.T) {
		m, err := ParseIndexingMap("(d0, d1){rt0, rt1}  -> (d0 - rt0, d1 - rt1),\ndomain:\n" +
			"d0 in [0, 19],\nd1 in [0, 29],\nrt0 in [0, 15],\nrt1 in [0, 20]")
		require.NoError(t, err)
		assert.Equal(t, "(d0, d1){rt0, rt1} -> (d0 - rt0, d1 - rt1), domain: "+
			"d0 in [0, 19], d1 in [0, 29], rt0 in [0, 15], rt1 in [0, 20]", m.String())
	})
}

// The expressions of the seed's example affine map
// (d0)[s0, s1] -> (s0 + 5, d0 * 2, s1 * 3 + 50) print as written.
func TestSeedAffineMapExpressions(t *testing.T) {
	for _, s := range []string{"s0 + 5", "d0 * 2", "s1 * 3 + 50"} {
		e, err := ParseExpr(s)
		require.NoError(t, err)
		assert.Equal(t, s, e.String())
	}
}
