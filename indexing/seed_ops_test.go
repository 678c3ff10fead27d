package indexing

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// parseEntry parses an HLO module and returns the named instruction.
func parseEntry(t *testing.T, src, name string) *hlo.Instruction {
	t.Helper()
	m, err := hlo.ParseString(src)
	require.NoError(t, err)
	return hlotest.Instruction(t, m, name)
}

// mapsText prints a set of maps in the document's multi-line notation,
// separated by blank lines.
func mapsText(set []*IndexingMap) string {
	parts := make([]string, len(set))
	for i, m := range set {
		parts[i] = m.MultiLineString()
	}
	return strings.Join(parts, "\n\n")
}

// seedOpCase is one HLO example of indexing-analysis.txt: its module
// testdata/indexing/seed_<file>.hlo (which the CLI golden test also runs;
// its comment names the SEED-ERRATA items it follows), the instruction and,
// per operand (output to input) or per result (input to output), the maps
// exactly as the document prints them.
type seedOpCase struct {
	file     string
	instr    string
	outToIn  map[int]string // operand -> maps (output 0)
	inToOut  map[int]string // operand -> maps to result 0
	outIndex int
}

var seedOpCases = []seedOpCase{
	{
		file:    "intro_broadcast",
		instr:   "bc0",
		outToIn: map[int]string{0: "(d0, d1, d2) -> (d1),\ndomain:\nd0 in [0, 9],\nd1 in [0, 19],\nd2 in [0, 29]"},
		inToOut: map[int]string{0: "(d0)[s0, s1] -> (s0, d0, s1),\ndomain:\nd0 in [0, 19],\ns0 in [0, 9],\ns1 in [0, 29]"},
	},
	{
		file:  "elementwise",
		instr: "add",
		outToIn: map[int]string{
			0: "(d0, d1) -> (d0, d1),\ndomain:\nd0 in [0, 9],\nd1 in [0, 19]",
			1: "(d0, d1) -> (d0, d1),\ndomain:\nd0 in [0, 9],\nd1 in [0, 19]",
		},
		inToOut: map[int]string{
			0: "(d0, d1) -> (d0, d1),\ndomain:\nd0 in [0, 9],\nd1 in [0, 19]",
			1: "(d0, d1) -> (d0, d1),\ndomain:\nd0 in [0, 9],\nd1 in [0, 19]",
		},
	},
	{
		file:  "dynamic_slice",
		instr: "ds",
		outToIn: map[int]string{
			0: "(d0, d1, d2){rt0, rt1, rt2} -> (d0 + rt0, d1 + rt1, d2 + rt2),\ndomain:\n" +
				"d0 in [0, 0],\nd1 in [0, 1],\nd2 in [0, 31],\nrt0 in [0, 1],\nrt1 in [0, 0],\nrt2 in [0, 226]",
			1: "(d0, d1, d2) -> (),\ndomain:\nd0 in [0, 0],\nd1 in [0, 1],\nd2 in [0, 31]",
			2: "(d0, d1, d2) -> (),\ndomain:\nd0 in [0, 0],\nd1 in [0, 1],\nd2 in [0, 31]",
			3: "(d0, d1, d2) -> (),\ndomain:\nd0 in [0, 0],\nd1 in [0, 1],\nd2 in [0, 31]",
		},
	},
	{
		file:  "dynamic_update_slice",
		instr: "dus",
		outToIn: map[int]string{
			0: "(d0, d1) -> (d0, d1),\ndomain:\nd0 in [0, 19],\nd1 in [0, 29]",
			1: "(d0, d1){rt0, rt1} -> (d0 - rt0, d1 - rt1),\ndomain:\nd0 in [0, 19],\nd1 in [0, 29],\nrt0 in [0, 15],\nrt1 in [0, 20]",
			2: "(d0, d1) -> (),\ndomain:\nd0 in [0, 19],\nd1 in [0, 29]",
			3: "(d0, d1) -> (),\ndomain:\nd0 in [0, 19],\nd1 in [0, 29]",
		},
	},
	{
		file:  "gather",
		instr: "gather",
		outToIn: map[int]string{
			0: "(d0, d1, d2, d3){rt0, rt1} -> (d1 + rt0, d2 + rt1, d3),\ndomain:\n" +
				"d0 in [0, 1805],\nd1 in [0, 6],\nd2 in [0, 7],\nd3 in [0, 3],\nrt0 in [0, 26],\nrt1 in [0, 68]",
			1: "(d0, d1, d2, d3)[s0] -> (d0, s0),\ndomain:\n" +
				"d0 in [0, 1805],\nd1 in [0, 6],\nd2 in [0, 7],\nd3 in [0, 3],\ns0 in [0, 1]",
		},
	},
	{
		file:    "transpose",
		instr:   "transpose",
		outToIn: map[int]string{0: "(d0, d1, d2, d3) -> (d0, d3, d1, d2),\ndomain:\nd0 in [0, 2],\nd1 in [0, 5],\nd2 in [0, 127],\nd3 in [0, 12287]"},
		inToOut: map[int]string{0: "(d0, d1, d2, d3) -> (d0, d2, d3, d1),\ndomain:\nd0 in [0, 2],\nd1 in [0, 12287],\nd2 in [0, 5],\nd3 in [0, 127]"},
	},
	{
		file:    "reverse",
		instr:   "reverse",
		outToIn: map[int]string{0: "(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3),\ndomain:\nd0 in [0, 0],\nd1 in [0, 16],\nd2 in [0, 8],\nd3 in [0, 8]"},
		inToOut: map[int]string{0: "(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3),\ndomain:\nd0 in [0, 0],\nd1 in [0, 16],\nd2 in [0, 8],\nd3 in [0, 8]"},
	},
	{
		file:  "variadic_reduce",
		instr: "reduce",
		outToIn: map[int]string{
			0: "(d0)[s0] -> (s0, d0),\ndomain:\nd0 in [0, 9],\ns0 in [0, 255]",
			1: "(d0)[s0] -> (s0, d0),\ndomain:\nd0 in [0, 9],\ns0 in [0, 255]",
			2: "(d0) -> (),\ndomain:\nd0 in [0, 9]",
			3: "(d0) -> (),\ndomain:\nd0 in [0, 9]",
		},
		inToOut: map[int]string{
			0: "(d0, d1) -> (d1),\ndomain:\nd0 in [0, 255],\nd1 in [0, 9]",
			1: "(d0, d1) -> (d1),\ndomain:\nd0 in [0, 255],\nd1 in [0, 9]",
			2: "()[s0] -> (s0),\ndomain:\ns0 in [0, 9]",
			3: "()[s0] -> (s0),\ndomain:\ns0 in [0, 9]",
		},
	},
	{
		file:    "slice",
		instr:   "slice",
		outToIn: map[int]string{0: "(d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2),\ndomain:\nd0 in [0, 4],\nd1 in [0, 2],\nd2 in [0, 24]"},
		inToOut: map[int]string{0: "(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2),\ndomain:\n" +
			"d0 in [5, 9],\nd1 in [3, 17],\nd2 in [0, 48],\n(d1 - 3) mod 7 in [0, 0],\nd2 mod 2 in [0, 0]"},
	},
	{
		file:    "collapse_shape",
		instr:   "reshape",
		outToIn: map[int]string{0: "(d0) -> (d0 floordiv 8, d0 mod 8),\ndomain:\nd0 in [0, 31]"},
		inToOut: map[int]string{0: "(d0, d1) -> (d0 * 8 + d1),\ndomain:\nd0 in [0, 3],\nd1 in [0, 7]"},
	},
	{
		file:    "expand_shape",
		instr:   "reshape",
		outToIn: map[int]string{0: "(d0, d1) -> (d0 * 8 + d1),\ndomain:\nd0 in [0, 3],\nd1 in [0, 7]"},
		inToOut: map[int]string{0: "(d0) -> (d0 floordiv 8, d0 mod 8),\ndomain:\nd0 in [0, 31]"},
	},
	{
		file:    "generic_reshape_1",
		instr:   "reshape",
		outToIn: map[int]string{0: "(d0, d1, d2) -> (d0 * 2 + d1 floordiv 2, d2 + (d1 mod 2) * 4),\ndomain:\nd0 in [0, 1],\nd1 in [0, 3],\nd2 in [0, 3]"},
		inToOut: map[int]string{0: "(d0, d1) -> (d0 floordiv 2, d1 floordiv 4 + (d0 mod 2) * 2, d1 mod 4),\ndomain:\nd0 in [0, 3],\nd1 in [0, 7]"},
	},
	{
		file:    "generic_reshape_2",
		instr:   "reshape",
		outToIn: map[int]string{0: "(d0, d1, d2) -> (d0 floordiv 8, d0 mod 8, d1 * 4 + d2),\ndomain:\nd0 in [0, 31],\nd1 in [0, 2],\nd2 in [0, 3]"},
		inToOut: map[int]string{0: "(d0, d1, d2) -> (d0 * 8 + d1, d2 floordiv 4, d2 mod 4),\ndomain:\nd0 in [0, 3],\nd1 in [0, 7],\nd2 in [0, 11]"},
	},
	{
		file:  "concatenate",
		instr: "concat",
		outToIn: map[int]string{
			0: "(d0, d1, d2) -> (d0, d1, d2),\ndomain:\nd0 in [0, 1],\nd1 in [0, 4],\nd2 in [0, 6]",
			1: "(d0, d1, d2) -> (d0, d1 - 5, d2),\ndomain:\nd0 in [0, 1],\nd1 in [5, 15],\nd2 in [0, 6]",
			2: "(d0, d1, d2) -> (d0, d1 - 16, d2),\ndomain:\nd0 in [0, 1],\nd1 in [16, 32],\nd2 in [0, 6]",
		},
		inToOut: map[int]string{
			0: "(d0, d1, d2) -> (d0, d1, d2),\ndomain:\nd0 in [0, 1],\nd1 in [0, 4],\nd2 in [0, 6]",
			1: "(d0, d1, d2) -> (d0, d1 + 5, d2),\ndomain:\nd0 in [0, 1],\nd1 in [0, 10],\nd2 in [0, 6]",
			2: "(d0, d1, d2) -> (d0, d1 + 16, d2),\ndomain:\nd0 in [0, 1],\nd1 in [0, 16],\nd2 in [0, 6]",
		},
	},
	{
		file:  "dot",
		instr: "dot",
		outToIn: map[int]string{
			0: "(d0, d1, d2)[s0] -> (d0, d1, s0),\ndomain:\nd0 in [0, 3],\nd1 in [0, 127],\nd2 in [0, 63],\ns0 in [0, 255]",
			1: "(d0, d1, d2)[s0] -> (d0, s0, d2),\ndomain:\nd0 in [0, 3],\nd1 in [0, 127],\nd2 in [0, 63],\ns0 in [0, 255]",
		},
		inToOut: map[int]string{
			0: "(d0, d1, d2)[s0] -> (d0, d1, s0),\ndomain:\nd0 in [0, 3],\nd1 in [0, 127],\nd2 in [0, 255],\ns0 in [0, 63]",
			1: "(d0, d1, d2)[s0] -> (d0, s0, d2),\ndomain:\nd0 in [0, 3],\nd1 in [0, 255],\nd2 in [0, 63],\ns0 in [0, 127]",
		},
	},
	{
		file:  "pad",
		instr: "pad",
		outToIn: map[int]string{
			0: "(d0, d1) -> ((d0 - 1) floordiv 2, d1 - 4),\ndomain:\nd0 in [1, 7],\nd1 in [4, 7],\n(d0 - 1) mod 2 in [0, 0]",
			1: "(d0, d1) -> (),\ndomain:\nd0 in [0, 11],\nd1 in [0, 15]",
		},
	},
	{
		file:  "reduce_window",
		instr: "reduce-window",
		outToIn: map[int]string{
			0: "(d0, d1)[s0] -> (d0, d1 + s0),\ndomain:\nd0 in [0, 1023],\nd1 in [0, 2],\ns0 in [0, 511]",
			1: "(d0, d1) -> (),\ndomain:\nd0 in [0, 1023],\nd1 in [0, 2]",
		},
	},
	{
		file:  "fusion_p0_plus_transposep0",
		instr: "fusion",
		outToIn: map[int]string{0: "(d0, d1) -> (d0, d1),\ndomain:\nd0 in [0, 999],\nd1 in [0, 999]\n\n" +
			"(d0, d1) -> (d1, d0),\ndomain:\nd0 in [0, 999],\nd1 in [0, 999]"},
	},
	{
		file:    "fusion_deduplicated_transpose_chain",
		instr:   "fusion",
		outToIn: map[int]string{0: "(d0, d1, d2) -> (d2, d0, d1),\ndomain:\nd0 in [0, 9],\nd1 in [0, 49],\nd2 in [0, 19]"},
	},
	{
		file:  "softmax_fusion",
		instr: "fusion",
		outToIn: map[int]string{0: "(d0, d1, d2) -> (d0, d1, d2),\ndomain:\nd0 in [0, 1],\nd1 in [0, 64],\nd2 in [0, 124]\n\n" +
			"(d0, d1, d2)[s0] -> (d0, d1, s0),\ndomain:\nd0 in [0, 1],\nd1 in [0, 64],\nd2 in [0, 124],\ns0 in [0, 124]"},
	},
	{
		file:    "chained_reshapes_cancel",
		instr:   "fusion",
		outToIn: map[int]string{0: "(d0, d1, d2) -> (d0, d1, d2),\ndomain:\nd0 in [0, 9],\nd1 in [0, 9],\nd2 in [0, 9]"},
	},
}

// seedErrata is the SEED-ERRATA comment of a seed example's module.
func seedErrata(src string) string {
	var items []string
	for line := range strings.Lines(src) {
		if e, ok := strings.CutPrefix(line, "// "); ok && strings.HasPrefix(e, "SEED-ERRATA") {
			items = append(items, strings.TrimSpace(e))
		}
	}
	return strings.Join(items, "; ")
}

// TestSeedOpMaps checks every HLO example of the indexing analysis
// document: each map must print exactly as the document prints it (with the
// errata of SEED-ERRATA.md named in the case).
func TestSeedOpMaps(t *testing.T) {
	for _, tc := range seedOpCases {
		t.Run(tc.file, func(t *testing.T) {
			src := hlotest.ReadTestdata(t, "indexing", "seed_"+tc.file+".hlo")
			in := parseEntry(t, string(src), tc.instr)
			erratum := seedErrata(string(src))
			h, err := ComputeOutputToInput(in, tc.outIndex)
			require.NoError(t, err)
			require.Len(t, h.Maps, len(in.Operands))
			for op, want := range tc.outToIn {
				assert.Equal(t, want, mapsText(h.Maps[op]), "output -> operand %d (%s)", op, erratum)
			}
			for op, want := range tc.inToOut {
				io, err := ComputeInputToOutput(in, op)
				require.NoError(t, err)
				assert.Equal(t, want, mapsText(io.Maps[0]), "operand %d -> output (%s)", op, erratum)
			}
		})
	}
}
