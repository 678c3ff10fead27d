package indexing

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// parseEntry parses an HLO module and returns the named instruction.
func parseEntry(t *testing.T, src, name string) *hlo.Instruction {
	t.Helper()
	m, err := hlo.ParseString(src)
	require.NoError(t, err)
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Name == name {
				return in
			}
		}
	}
	require.Failf(t, "instruction not found", "%s", name)
	return nil
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

// seedOpCase is one HLO example of indexing-analysis.txt: the instruction
// and, per operand (output to input) or per result (input to output), the
// maps exactly as the document prints them.
type seedOpCase struct {
	name     string
	hlo      string
	instr    string
	erratum  string         // the SEED-ERRATA item the case follows, if any
	outToIn  map[int]string // operand -> maps (output 0)
	inToOut  map[int]string // operand -> maps to result 0
	outIndex int
}

var seedOpCases = []seedOpCase{
	{
		name: "intro broadcast", erratum: "SEED-ERRATA 1: the introduction's domain is inclusive, [0, 9] not [0, 10]",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[20] parameter(0)
  ROOT bc0 = f32[10, 20, 30] broadcast(p0), dimensions={1}
}`,
		instr:   "bc0",
		outToIn: map[int]string{0: "(d0, d1, d2) -> (d1),\ndomain:\nd0 in [0, 9],\nd1 in [0, 19],\nd2 in [0, 29]"},
		inToOut: map[int]string{0: "(d0)[s0, s1] -> (s0, d0, s1),\ndomain:\nd0 in [0, 19],\ns0 in [0, 9],\ns1 in [0, 29]"},
	},
	{
		name: "elementwise",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[10, 20] parameter(0)
  p1 = f32[10, 20] parameter(1)
  ROOT add = f32[10, 20] add(p0, p1)
}`,
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
		name:    "dynamic-slice",
		erratum: "SEED-ERRATA 5: the result shape s32[1,2,32] is added; SEED-ERRATA 2: rt bounds are [0, dim - size]",
		hlo: `HloModule m
ENTRY e {
  src = s32[2,2,258] parameter(0)
  of1 = s32[] parameter(1)
  of2 = s32[] parameter(2)
  of3 = s32[] parameter(3)
  ROOT ds = s32[1,2,32] dynamic-slice(s32[2,2,258] src, s32[] of1, s32[] of2, s32[] of3), dynamic_slice_sizes={1, 2, 32}
}`,
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
		name:    "dynamic-update-slice",
		erratum: "SEED-ERRATA 6: the map has rt variables only, not s",
		hlo: `HloModule m
ENTRY e {
  src = s32[20,30] parameter(0)
  upd = s32[5,10] parameter(1)
  of1 = s32[] parameter(2)
  of2 = s32[] parameter(3)
  ROOT dus = s32[20,30] dynamic-update-slice(
      s32[20,30] src, s32[5,10] upd, s32[] of1, s32[] of2)
}`,
		instr: "dus",
		outToIn: map[int]string{
			0: "(d0, d1) -> (d0, d1),\ndomain:\nd0 in [0, 19],\nd1 in [0, 29]",
			1: "(d0, d1){rt0, rt1} -> (d0 - rt0, d1 - rt1),\ndomain:\nd0 in [0, 19],\nd1 in [0, 29],\nrt0 in [0, 15],\nrt1 in [0, 20]",
			2: "(d0, d1) -> (),\ndomain:\nd0 in [0, 19],\nd1 in [0, 29]",
			3: "(d0, d1) -> (),\ndomain:\nd0 in [0, 19],\nd1 in [0, 29]",
		},
	},
	{
		name: "gather",
		hlo: `HloModule m
ENTRY e {
  operand = f32[33,76,70] parameter(0)
  indices = s32[1806,2] parameter(1)
  ROOT gather = f32[1806,7,8,4] gather(operand, indices),
    offset_dims={1,2,3},
    collapsed_slice_dims={},
    start_index_map={0,1},
    index_vector_dim=1,
    slice_sizes={7,8,4}
}`,
		instr: "gather",
		outToIn: map[int]string{
			0: "(d0, d1, d2, d3){rt0, rt1} -> (d1 + rt0, d2 + rt1, d3),\ndomain:\n" +
				"d0 in [0, 1805],\nd1 in [0, 6],\nd2 in [0, 7],\nd3 in [0, 3],\nrt0 in [0, 26],\nrt1 in [0, 68]",
			1: "(d0, d1, d2, d3)[s0] -> (d0, s0),\ndomain:\n" +
				"d0 in [0, 1805],\nd1 in [0, 6],\nd2 in [0, 7],\nd3 in [0, 3],\ns0 in [0, 1]",
		},
	},
	{
		name: "transpose", erratum: "SEED-ERRATA 6: no trailing comma after the last domain line",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[3, 12288, 6, 128] parameter(0)
  ROOT transpose = f32[3, 6, 128, 12288] transpose(p0), dimensions={0, 2, 3, 1}
}`,
		instr:   "transpose",
		outToIn: map[int]string{0: "(d0, d1, d2, d3) -> (d0, d3, d1, d2),\ndomain:\nd0 in [0, 2],\nd1 in [0, 5],\nd2 in [0, 127],\nd3 in [0, 12287]"},
		inToOut: map[int]string{0: "(d0, d1, d2, d3) -> (d0, d2, d3, d1),\ndomain:\nd0 in [0, 2],\nd1 in [0, 12287],\nd2 in [0, 5],\nd3 in [0, 127]"},
	},
	{
		name: "reverse",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[1, 17, 9, 9] parameter(0)
  ROOT reverse = f32[1, 17, 9, 9] reverse(p0), dimensions={1, 2}
}`,
		instr:   "reverse",
		outToIn: map[int]string{0: "(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3),\ndomain:\nd0 in [0, 0],\nd1 in [0, 16],\nd2 in [0, 8],\nd3 in [0, 8]"},
		inToOut: map[int]string{0: "(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3),\ndomain:\nd0 in [0, 0],\nd1 in [0, 16],\nd2 in [0, 8],\nd3 in [0, 8]"},
	},
	{
		name: "variadic reduce", erratum: "SEED-ERRATA 5: the max reducer is defined",
		hlo: `HloModule m
max {
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = s32[] parameter(3)
  m0 = f32[] maximum(a0, b0)
  m1 = s32[] maximum(a1, b1)
  ROOT t = (f32[], s32[]) tuple(m0, m1)
}
ENTRY e {
  p0 = f32[256,10] parameter(0)
  p0_init = f32[] constant(-inf)
  p1 = s32[256,10] parameter(1)
  p1_init = s32[] constant(0)
  ROOT reduce = (f32[10], s32[10]) reduce(p0, p1, p0_init, p1_init),
    dimensions={0}, to_apply=max
}`,
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
		name: "slice",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[10, 20, 50] parameter(0)
  ROOT slice = f32[5, 3, 25] slice(f32[10, 20, 50] p0),
    slice={[5:10:1], [3:20:7], [0:50:2]}
}`,
		instr:   "slice",
		outToIn: map[int]string{0: "(d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2),\ndomain:\nd0 in [0, 4],\nd1 in [0, 2],\nd2 in [0, 24]"},
		inToOut: map[int]string{0: "(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2),\ndomain:\n" +
			"d0 in [5, 9],\nd1 in [3, 17],\nd2 in [0, 48],\n(d1 - 3) mod 7 in [0, 0],\nd2 mod 2 in [0, 0]"},
	},
	{
		name: "collapse shape",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[4,8] parameter(0)
  ROOT reshape = f32[32] reshape(p0)
}`,
		instr:   "reshape",
		outToIn: map[int]string{0: "(d0) -> (d0 floordiv 8, d0 mod 8),\ndomain:\nd0 in [0, 31]"},
		inToOut: map[int]string{0: "(d0, d1) -> (d0 * 8 + d1),\ndomain:\nd0 in [0, 3],\nd1 in [0, 7]"},
	},
	{
		name: "expand shape",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[32] parameter(0)
  ROOT reshape = f32[4, 8] reshape(p0)
}`,
		instr:   "reshape",
		outToIn: map[int]string{0: "(d0, d1) -> (d0 * 8 + d1),\ndomain:\nd0 in [0, 3],\nd1 in [0, 7]"},
		inToOut: map[int]string{0: "(d0) -> (d0 floordiv 8, d0 mod 8),\ndomain:\nd0 in [0, 31]"},
	},
	{
		name: "generic reshape 1",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[4,8] parameter(0)
  ROOT reshape = f32[2, 4, 4] reshape(p0)
}`,
		instr:   "reshape",
		outToIn: map[int]string{0: "(d0, d1, d2) -> (d0 * 2 + d1 floordiv 2, d2 + (d1 mod 2) * 4),\ndomain:\nd0 in [0, 1],\nd1 in [0, 3],\nd2 in [0, 3]"},
		inToOut: map[int]string{0: "(d0, d1) -> (d0 floordiv 2, d1 floordiv 4 + (d0 mod 2) * 2, d1 mod 4),\ndomain:\nd0 in [0, 3],\nd1 in [0, 7]"},
	},
	{
		name: "generic reshape 2", erratum: "SEED-ERRATA 6: the comma after d1 in [0, 2] is restored",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[4, 8, 12] parameter(0)
  ROOT reshape = f32[32, 3, 4] reshape(p0)
}`,
		instr:   "reshape",
		outToIn: map[int]string{0: "(d0, d1, d2) -> (d0 floordiv 8, d0 mod 8, d1 * 4 + d2),\ndomain:\nd0 in [0, 31],\nd1 in [0, 2],\nd2 in [0, 3]"},
		inToOut: map[int]string{0: "(d0, d1, d2) -> (d0 * 8 + d1, d2 floordiv 4, d2 mod 4),\ndomain:\nd0 in [0, 3],\nd1 in [0, 7],\nd2 in [0, 11]"},
	},
	{
		name: "concatenate",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[2, 5, 7] parameter(0)
  p1 = f32[2, 11, 7] parameter(1)
  p2 = f32[2, 17, 7] parameter(2)
  ROOT concat = f32[2, 33, 7] concatenate(f32[2, 5, 7] p0, f32[2, 11, 7] p1, f32[2, 17, 7] p2), dimensions={1}
}`,
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
		name: "dot", erratum: "SEED-ERRATA 3: input_2 -> output is (d0, s0, d2)",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[4, 128, 256] parameter(0)
  p1 = f32[4, 256, 64] parameter(1)
  ROOT dot = f32[4, 128, 64] dot(p0, p1),
    lhs_batch_dims={0}, rhs_batch_dims={0},
    lhs_contracting_dims={2}, rhs_contracting_dims={1}
}`,
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
		name: "pad",
		hlo: `HloModule m
ENTRY e {
  p0 = f32[4, 4] parameter(0)
  p1 = f32[] parameter(1)
  ROOT pad = f32[12, 16] pad(p0, p1), padding=1_4_1x4_8_0
}`,
		instr: "pad",
		outToIn: map[int]string{
			0: "(d0, d1) -> ((d0 - 1) floordiv 2, d1 - 4),\ndomain:\nd0 in [1, 7],\nd1 in [4, 7],\n(d0 - 1) mod 2 in [0, 0]",
			1: "(d0, d1) -> (),\ndomain:\nd0 in [0, 11],\nd1 in [0, 15]",
		},
	},
	{
		name: "reduce-window", erratum: "SEED-ERRATA 5: the max reducer is defined",
		hlo: `HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  c_inf = f32[] constant(-inf)
  p0 = f32[1024, 514] parameter(0)
  ROOT reduce-window = f32[1024, 3] reduce-window(p0, c_inf),
    window={size=1x512 pad=0_0x0_0}, to_apply=max
}`,
		instr: "reduce-window",
		outToIn: map[int]string{
			0: "(d0, d1)[s0] -> (d0, d1 + s0),\ndomain:\nd0 in [0, 1023],\nd1 in [0, 2],\ns0 in [0, 511]",
			1: "(d0, d1) -> (),\ndomain:\nd0 in [0, 1023],\nd1 in [0, 2]",
		},
	},
	{
		name: "fusion p0 + transpose(p0)",
		hlo: `HloModule m
f {
  p0 = f32[1000, 1000] parameter(0)
  transpose_p0 = f32[1000, 1000]{0, 1} transpose(p0), dimensions={1, 0}
  ROOT a0 = f32[1000, 1000] add(p0, transpose_p0)
}
ENTRY e {
  p = f32[1000, 1000] parameter(0)
  ROOT fusion = f32[1000, 1000] fusion(p), kind=kLoop, calls=f
}`,
		instr:   "fusion",
		erratum: "SEED-ERRATA 5: the fusion maps' domain (the output's full range) is printed",
		outToIn: map[int]string{0: "(d0, d1) -> (d0, d1),\ndomain:\nd0 in [0, 999],\nd1 in [0, 999]\n\n" +
			"(d0, d1) -> (d1, d0),\ndomain:\nd0 in [0, 999],\nd1 in [0, 999]"},
	},
	{
		name: "fusion deduplicated transpose chain", erratum: "SEED-ERRATA 5: the domain is printed",
		hlo: `HloModule m
f {
  p0 = f32[20, 10, 50] parameter(0)
  lhs_transpose_1 = f32[10, 20, 50] transpose(p0), dimensions={1, 0, 2}
  lhs_e = f32[10, 20, 50] exponential(lhs_transpose_1)
  lhs_transpose_2 = f32[10, 50, 20] transpose(lhs_e), dimensions={0, 2, 1}
  rhs_transpose_1 = f32[50, 10, 20] transpose(p0), dimensions={2, 1, 0}
  rhs_log = f32[50, 10, 20] exponential(rhs_transpose_1)
  rhs_transpose_2 = f32[10, 50, 20] transpose(rhs_log), dimensions={1, 0, 2}
  ROOT add = f32[10, 50, 20] add(lhs_transpose_2, rhs_transpose_2)
}
ENTRY e {
  p = f32[20, 10, 50] parameter(0)
  ROOT fusion = f32[10, 50, 20] fusion(p), kind=kLoop, calls=f
}`,
		instr:   "fusion",
		outToIn: map[int]string{0: "(d0, d1, d2) -> (d2, d0, d1),\ndomain:\nd0 in [0, 9],\nd1 in [0, 49],\nd2 in [0, 19]"},
	},
	{
		name: "softmax fusion", erratum: "SEED-ERRATA 5: the softmax fusion is only an image; this is the fusion it shows",
		hlo: `HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
softmax {
  p0 = f32[2,65,125] parameter(0)
  c0 = f32[] constant(-inf)
  mx = f32[2,65] reduce(p0, c0), dimensions={2}, to_apply=max
  mxb = f32[2,65,125] broadcast(mx), dimensions={0,1}
  sub = f32[2,65,125] subtract(p0, mxb)
  ex = f32[2,65,125] exponential(sub)
  c1 = f32[] constant(0)
  sum = f32[2,65] reduce(ex, c1), dimensions={2}, to_apply=add
  sumb = f32[2,65,125] broadcast(sum), dimensions={0,1}
  ROOT div = f32[2,65,125] divide(ex, sumb)
}
ENTRY e {
  p = f32[2,65,125] parameter(0)
  ROOT fusion = f32[2,65,125] fusion(p), kind=kLoop, calls=softmax
}`,
		instr: "fusion",
		outToIn: map[int]string{0: "(d0, d1, d2) -> (d0, d1, d2),\ndomain:\nd0 in [0, 1],\nd1 in [0, 64],\nd2 in [0, 124]\n\n" +
			"(d0, d1, d2)[s0] -> (d0, d1, s0),\ndomain:\nd0 in [0, 1],\nd1 in [0, 64],\nd2 in [0, 124],\ns0 in [0, 124]"},
	},
	{
		name: "chained reshapes cancel",
		hlo: `HloModule m
f {
  p0 = f32[10, 10, 10] parameter(0)
  reshape1 = f32[50, 20] reshape(p0)
  ROOT reshape2 = f32[10, 10, 10] reshape(reshape1)
}
ENTRY e {
  p = f32[10, 10, 10] parameter(0)
  ROOT fusion = f32[10, 10, 10] fusion(p), kind=kLoop, calls=f
}`,
		instr:   "fusion",
		outToIn: map[int]string{0: "(d0, d1, d2) -> (d0, d1, d2),\ndomain:\nd0 in [0, 9],\nd1 in [0, 9],\nd2 in [0, 9]"},
	},
}

// TestSeedOpMaps checks every HLO example of the indexing analysis
// document: each map must print exactly as the document prints it (with the
// errata of SEED-ERRATA.md named in the case).
func TestSeedOpMaps(t *testing.T) {
	for _, tc := range seedOpCases {
		t.Run(tc.name, func(t *testing.T) {
			in := parseEntry(t, tc.hlo, tc.instr)
			h, err := ComputeOutputToInput(in, tc.outIndex)
			require.NoError(t, err)
			require.Len(t, h.Maps, len(in.Operands))
			for op, want := range tc.outToIn {
				assert.Equal(t, want, mapsText(h.Maps[op]), "output -> operand %d (%s)", op, tc.erratum)
			}
			for op, want := range tc.inToOut {
				io, err := ComputeInputToOutput(in, op)
				require.NoError(t, err)
				assert.Equal(t, want, mapsText(io.Maps[0]), "operand %d -> output (%s)", op, tc.erratum)
			}
		})
	}
}
