package hlo

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest/hlogen"
)

func mustParse(t *testing.T, src string) *Module {
	t.Helper()
	m, err := ParseFile("t.hlo", []byte(src))
	require.NoError(t, err)
	return m
}

func instr(t *testing.T, m *Module, name string) *Instruction {
	t.Helper()
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Name == name {
				return in
			}
		}
	}
	require.Failf(t, "no instruction", "%s", name)
	return nil
}

// The first example of the shapes-and-layout seed: add.936.
func TestSeedAddShape(t *testing.T) {
	sh, err := ParseShape("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}")
	require.NoError(t, err)
	assert.Equal(t, BF16, sh.Type)
	assert.Equal(t, []int64{8, 1, 1280, 16384}, sh.Dims)
	require.NotNil(t, sh.Layout)
	assert.Equal(t, []int64{3, 2, 0, 1}, sh.Layout.MinorToMajor)
	assert.Equal(t, []Tile{{8, 128}, {2, 1}}, sh.Layout.Tiles)
	assert.Equal(t, int64(0), sh.Layout.MemorySpace)
	assert.Equal(t, "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}", sh.String())

	m := mustParse(t, `
ENTRY e {
  exponential.183 = bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)} parameter(0)
  broadcast.3115 = bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)} parameter(1)
  add.936 = bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}
          add(exponential.183, broadcast.3115)
}`)
	add := instr(t, m, "add.936")
	assert.Equal(t, OpAdd, add.Opcode)
	assert.True(t, add.IsRoot(), "the last instruction is the root when none is marked")
	require.Len(t, add.Operands, 2)
	assert.Equal(t, "exponential.183", add.Operands[0].Name)
	assert.Equal(t, "broadcast.3115", add.Operands[1].Name)
	assert.Equal(t, Pos{Line: 5, Col: 3}, add.Pos)
	assert.True(t, sh.Equal(add.Shape))
}

// The fusion of the shapes-and-layout seed, with memory space S(1).
func TestSeedFusionMemorySpace(t *testing.T) {
	m := mustParse(t, `HloModule m

%all-reduce-scatter.3 (p: bf16[32,32,8192]) -> bf16[32,32,4096] {
  %p = bf16[32,32,8192]{2,1,0:T(8,128)(2,1)S(1)} parameter(0)
  ROOT %s = bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)} slice(%p), slice={[0:32], [0:32], [0:4096]}
}

ENTRY %main (fusion.32: bf16[32,32,8192]) -> bf16[32,32,4096] {
  %fusion.32 = bf16[32,32,8192]{2,1,0:T(8,128)(2,1)S(1)} parameter(0)
  ROOT %fusion.3 = bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}
            fusion(bf16[32,32,8192]{2,1,0:T(8,128)(2,1)S(1)} %fusion.32),
            kind=kCustom, calls=%all-reduce-scatter.3
}
`)
	f := instr(t, m, "fusion.3")
	require.NotNil(t, f.Shape.Layout)
	assert.Equal(t, int64(1), f.Shape.Layout.MemorySpace)
	assert.Equal(t, []Tile{{8, 128}, {2, 1}}, f.Shape.Layout.Tiles)
	assert.Equal(t, []int64{2, 1, 0}, f.Shape.Layout.MinorToMajor)
	assert.Equal(t, "kCustom", f.Typed.FusionKind)
	require.Len(t, f.Called, 1)
	assert.Same(t, m.Computation("all-reduce-scatter.3"), f.Called[0])
	assert.Same(t, m.Entry, f.Parent)
	assert.Equal(t, int64(1), f.Operands[0].Shape.Layout.MemorySpace)
	assert.Equal(t, []SliceDim{{0, 32, 1}, {0, 32, 1}, {0, 4096, 1}}, instr(t, m, "s").Typed.Slice)
	assert.Contains(t, m.String(), "ROOT %fusion.3 = bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)} fusion(bf16[32,32,8192]{2,1,0:T(8,128)(2,1)S(1)} %fusion.32), kind=kCustom, calls=%all-reduce-scatter.3\n")
}

// The minor_to_major examples of the seed: a [2 x 3] array with layouts
// {0,1} (dimension 0 minor) and {1,0} (dimension 1 minor), and the default.
func TestSeedMinorToMajor(t *testing.T) {
	colMajor, err := ParseShape("f32[2,3]{0,1}")
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 1}, colMajor.MinorToMajor())
	rowMajor, err := ParseShape("f32[2,3]{1,0}")
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 0}, rowMajor.MinorToMajor())
	noLayout, err := ParseShape("f32[2,3]")
	require.NoError(t, err)
	assert.Nil(t, noLayout.Layout)
	assert.Equal(t, []int64{1, 0}, noLayout.MinorToMajor(), "default is major-to-minor")
	assert.Equal(t, "f32[2,3]{1,0}", noLayout.String())
	l, err := ParseLayout("{3,2,0,1:T(8,128)(2,1)S(1)}")
	require.NoError(t, err)
	assert.Equal(t, []int64{3, 2, 0, 1}, l.MinorToMajor)
	assert.Equal(t, int64(1), l.MemorySpace)
	assert.Equal(t, "{3,2,0,1:T(8,128)(2,1)S(1)}", l.String())
}

func TestParseShapeForms(t *testing.T) {
	for _, s := range []string{
		"f32[]", "pred[2,3]{0,1}", "(f32[2]{0}, (s32[], u8[4]{0}))", "()", "token[]",
		"f32[<=4194304]{0}", "f32[?,3]{1,0}", "s4[100,9]{1,0:E(4)}", "u32[]{:T(128)}",
		"f32[4,8]{1,0:T(2,*,4)L(8)#(s32)*(u32)S(5)M(16)}", "f32[8]{0:T(1024)(128)(2,1)}",
		"f32[2,3]{1,0:D(D,C+~)}", "f8e4m3fn[16]{0}", "f4e2m1fn[32]{0:E(4)}", "opaque[]",
		"b(f32[4]{0})", "f6e3m2fn[8]{0:E(6)}",
	} {
		sh, err := ParseShape(s)
		if assert.NoError(t, err, s) {
			back, err := ParseShape(sh.String())
			require.NoError(t, err)
			assert.Equal(t, sh.String(), back.String(), s)
			var p printer
			p.shape(&sh, true)
			assert.Equal(t, sh.String(), string(p.buf), "printer agrees with Shape.String for %s", s)
		}
	}
	sh, err := ParseShape("f32[<=4,?]")
	require.NoError(t, err)
	assert.Equal(t, []bool{true, true}, sh.Dynamic)
	assert.Equal(t, UnboundedDim, sh.Dims[1])
	sh, err = ParseShape("(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])")
	require.NoError(t, err)
	assert.Len(t, sh.Tuple, 6)
	assert.Equal(t, "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])", sh.String())
	// XLA's lexer reads the element type and the dimensions as two tokens.
	sh, err = ParseShape("(s32 [5696, 10,4]{2,1,0}, f32\t[])")
	require.NoError(t, err)
	assert.Equal(t, "(s32[5696,10,4]{2,1,0}, f32[])", sh.String())
}

func TestTypedAttributes(t *testing.T) {
	m := mustParse(t, `
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[8,16,16,4] parameter(0)
  k = f32[3,3,4,8] parameter(1)
  conv = f32[8,8,8,8] convolution(p, k), window={size=3x3 stride=2x2 pad=0_1x1_1 rhs_dilate=1x2 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f, feature_group_count=1
  x = f32[4,6] parameter(2)
  y = f32[6,5] parameter(3)
  dot = f32[4,5] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  pad = f32[7,12] pad(x, f32[] constant(0)), padding=1_2x0_3_1
  r = f32[4] reduce(x, f32[] constant(0)), dimensions={1}, to_apply=add
  ds = f32[2,2] dynamic-slice(x, s32[] constant(1), s32[] constant(2)), dynamic_slice_sizes={2,2}
  io = s32[4,6] iota(), iota_dimension=1
  cmp = pred[4,6] compare(x, x), direction=GE
  ar = f32[4,6] all-reduce(x), replica_groups=[2,4]<=[4,2]T(1,0), to_apply=add
  ar2 = f32[4,6] all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=add
  ar3 = f32[4,6] all-reduce(x), replica_groups=mesh['a'=2,'b'=4] {'a'}, to_apply=add
  idx = s32[3,1] parameter(4)
  g = f32[3,6] gather(x, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,6}, indices_are_sorted=true
  upd = f32[3,6] parameter(5)
  sc = f32[4,6] scatter(x, idx, upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, to_apply=add
  t = (f32[4,5], f32[4]) tuple(dot, r)
  ROOT gte = f32[4] get-tuple-element(t), index=1
}`)
	conv := instr(t, m, "conv")
	require.Len(t, conv.Typed.Window, 2)
	assert.Equal(t, WindowDim{Size: 3, Stride: 2, PadLow: 0, PadHigh: 1, BaseDilation: 1, WindowDilation: 1}, conv.Typed.Window[0])
	assert.Equal(t, WindowDim{Size: 3, Stride: 2, PadLow: 1, PadHigh: 1, BaseDilation: 1, WindowDilation: 2, Reversal: true}, conv.Typed.Window[1])
	require.NotNil(t, conv.Typed.Conv)
	assert.Equal(t, &ConvDims{InputBatch: 0, InputFeature: 3, InputSpatial: []int64{1, 2},
		KernelInputFeature: 2, KernelOutputFeature: 3, KernelSpatial: []int64{0, 1},
		OutputBatch: 0, OutputFeature: 3, OutputSpatial: []int64{1, 2}, Labels: "b01f_01io->b01f"}, conv.Typed.Conv)
	assert.Equal(t, int64(1), conv.Typed.FeatureGroupCount)
	assert.Equal(t, int64(1), conv.Typed.BatchGroupCount)
	assert.Equal(t, &DotDims{LhsContracting: []int64{1}, RhsContracting: []int64{0}}, instr(t, m, "dot").Typed.Dot)
	assert.Equal(t, []PadDim{{1, 2, 0}, {0, 3, 1}}, instr(t, m, "pad").Typed.Padding)
	r := instr(t, m, "r")
	assert.Equal(t, []int64{1}, r.Typed.Dimensions)
	require.Len(t, r.Called, 1)
	assert.Equal(t, "add", r.Called[0].Name)
	assert.Equal(t, []int64{2, 2}, instr(t, m, "ds").Typed.DynamicSliceSizes)
	assert.Equal(t, int64(1), instr(t, m, "io").Typed.IotaDimension)
	assert.Equal(t, "GE", instr(t, m, "cmp").Typed.Direction)
	assert.Equal(t, [][]int64{{0, 2, 4, 6}, {1, 3, 5, 7}}, instr(t, m, "ar").Typed.ReplicaGroups)
	assert.Equal(t, [][]int64{{0, 1}, {2, 3}}, instr(t, m, "ar2").Typed.ReplicaGroups)
	assert.Equal(t, [][]int64{{0, 4}, {1, 5}, {2, 6}, {3, 7}}, instr(t, m, "ar3").Typed.ReplicaGroups)
	assert.Equal(t, &GatherDims{OffsetDims: []int64{1}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{0},
		IndexVectorDim: 1, SliceSizes: []int64{1, 6}, IndicesAreSorted: true}, instr(t, m, "g").Typed.Gather)
	assert.Equal(t, &ScatterDims{UpdateWindowDims: []int64{1}, InsertedWindowDims: []int64{0},
		ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1, UniqueIndices: true}, instr(t, m, "sc").Typed.Scatter)
	gte := instr(t, m, "gte")
	assert.Equal(t, int64(1), gte.Typed.TupleIndex)
	assert.Equal(t, int64(-1), instr(t, m, "dot").Typed.TupleIndex)
	assert.Equal(t, int64(-1), instr(t, m, "dot").Typed.IotaDimension)
	// Inline operands are hoisted into instructions before their user.
	pad := instr(t, m, "pad")
	assert.Equal(t, "constant.anon", pad.Operands[1].Name)
	assert.Equal(t, "0", pad.Operands[1].Literal)
	assert.Equal(t, pad.Index-1, pad.Operands[1].Index)
}

func TestControlPredecessorsAndHeader(t *testing.T) {
	m := mustParse(t, `HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {2}) }, entry_computation_layout={(f32[2]{0}, (s32[], f32[3]{0}))->(f32[2]{0}, f32[2]{0})}

ENTRY e {
  a = f32[2] parameter(0)
  b = (s32[], f32[3]) parameter(1)
  c = f32[2] negate(a)
  d = f32[2] abs(a), control-predecessors={c}
  ROOT t = (f32[2], f32[2]) tuple(c, d)
}`)
	assert.True(t, m.IsScheduled())
	d := instr(t, m, "d")
	require.Len(t, d.ControlPredecessors, 1)
	assert.Equal(t, "c", d.ControlPredecessors[0].Name)
	assert.Contains(t, m.String(), "%d = f32[2]{0} abs(f32[2]{0} %a), control-predecessors={%c}\n")
	ps, err := m.EntryComputationLayout()
	require.NoError(t, err)
	require.Len(t, ps.Params, 2)
	assert.Equal(t, "f32[2]{0}", ps.Params[0].String())
	assert.Equal(t, "(s32[], f32[3]{0})", ps.Params[1].String())
	assert.Equal(t, "(f32[2]{0}, f32[2]{0})", ps.Result.String())
	al, err := m.InputOutputAliases()
	require.NoError(t, err)
	assert.Equal(t, []InputOutputAlias{
		{OutputIndex: []int64{0}, ParamNumber: 0, ParamIndex: []int64{}, Kind: "may-alias"},
		{OutputIndex: []int64{1}, ParamNumber: 1, ParamIndex: []int64{2}},
	}, al)
	assert.Equal(t, []*Instruction{instr(t, m, "a"), instr(t, m, "b")}, m.Entry.Params)
}

// TestEntryLayoutReused checks that EntryComputationLayout hands out the
// parse of the attribute's text while it is alive, and parses a new text
// when the attribute changes.
func TestEntryLayoutReused(t *testing.T) {
	m := mustParse(t, `HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}

ENTRY e {
  a = f32[2]{0} parameter(0)
  ROOT n = f32[2]{0} negate(a)
}`)
	first, err := m.EntryComputationLayout()
	require.NoError(t, err)
	again, err := m.EntryComputationLayout()
	require.NoError(t, err)
	assert.Same(t, first, again)
	for i := range m.Attrs {
		if m.Attrs[i].Name == "entry_computation_layout" {
			m.Attrs[i].Value = "{(f32[2]{0:T(2)})->f32[2]{0}}"
		}
	}
	changed, err := m.EntryComputationLayout()
	require.NoError(t, err)
	assert.Equal(t, "f32[2]{0:T(2)}", changed.Params[0].String())
	assert.Equal(t, "f32[2]{0}", first.Params[0].String(), "the earlier parse is left as it was")
}

func TestLiteralForms(t *testing.T) {
	src := `ENTRY e {
  a = f32[] constant(nan)
  b = f32[] constant(-inf)
  c = c64[2] constant({(1, 2), (3.5, -4)})
  d = f32[2,2]{1,0} constant({ { 1, 2 },
                                { 3, 4 } })
  e = f32[100] constant({...})
  f = (f32[], s32[2]) constant((1, {2, 3}))
  g = pred[] constant(true)
  h = bf16[] constant(-5.734e+04)
  ROOT t = (f32[], f32[]) tuple(a, b)
}`
	m := mustParse(t, src)
	assert.Equal(t, "nan", instr(t, m, "a").Literal)
	assert.Equal(t, "{(1, 2), (3.5, -4)}", instr(t, m, "c").Literal)
	assert.Equal(t, "{...}", instr(t, m, "e").Literal)
	assert.Equal(t, "(1, {2, 3})", instr(t, m, "f").Literal)
	printed := m.String()
	assert.Equal(t, printed, mustParse(t, printed).String())
	var b strings.Builder
	require.NoError(t, m.Print(&b, PrintOptions{ElideLargeConstants: true}))
	assert.Contains(t, b.String(), "%e = f32[100]{0} constant({...})")
	assert.Contains(t, b.String(), "%c = c64[2]{0} constant({(1, 2), (3.5, -4)})", "small constants stay")
}

func TestLenientForms(t *testing.T) {
	crlf := "// leading comment\r\n/* block\r\n comment */\r\nbody {\r\n  p = f32[] parameter(0) // trailing\r\n// CHECK: inside a body\r\n  ROOT n = f32[] negate(p)\r\n} // body\r\n\r\nENTRY %main {\r\n  %x = f32[] parameter(0)\r\n  ROOT %c = f32[] call(f32[] %x), to_apply=%callee\r\n}\r\n%callee (q: f32[]) -> f32[] {\r\n  q = f32[] parameter(0)\r\n  ROOT r = f32[] call(q), to_apply=body\r\n}\r\n"
	m := mustParse(t, crlf)
	assert.Equal(t, "main", m.Name, "a module without HloModule is named after its entry")
	assert.Equal(t, "main", m.Entry.Name)
	assert.Equal(t, "callee", instr(t, m, "c").Called[0].Name, "a callee may follow its caller")
	assert.NotContains(t, m.String(), "\r")
	assert.Equal(t, Pos{Line: 5, Col: 3}, instr(t, m, "p").Pos)
}

func TestLayoutAfterSpace(t *testing.T) {
	// XLA's indexing tests write "f32[51, 16] {0, 1} bitcast(p0)".
	m := mustParse(t, `HloModule m
ENTRY e {
  p0 = f32[16, 17, 3] parameter(0)
  ROOT b = f32[51, 16] {0, 1} bitcast(p0)
}`)
	b := instr(t, m, "b")
	assert.Equal(t, []int64{0, 1}, b.Shape.MinorToMajor())
	assert.Equal(t, Opcode("bitcast"), b.Opcode)
	_, err := ParseString("HloModule m\nENTRY e {\n  ROOT b = f32[2] {0 negate(p)\n}")
	assert.Error(t, err, "an unterminated layout is an error")
}

func TestShortForm(t *testing.T) {
	m := mustParse(t, `HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(f32[] %a, f32[] %b), metadata={op_name="x"}
}
ENTRY %e (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %z = f32[] constant(0)
  ROOT %r = f32[] reduce(f32[4]{0} %p, f32[] %z), dimensions={0}, to_apply=%add, metadata={op_name="y"}, backend_config={"k":1}
}`)
	var b strings.Builder
	require.NoError(t, m.Print(&b, PrintOptions{Short: true}))
	// The short form states the entry's signature as XLA's does.
	assert.Equal(t, `HloModule m, entry_computation_layout={(f32[4]{0})->f32[]}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[4]{0} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add, backend_config={"k":1}
}
`, b.String())
	m2 := mustParse(t, b.String())
	assert.Equal(t, "add", instr(t, m2, "r").Called[0].Name)
}

func TestAttributeOrder(t *testing.T) {
	m := mustParse(t, `ENTRY e {
  a = f32[4] parameter(0)
  c = f32[4] negate(a)
  ROOT b = f32[4] copy(a), metadata={op_name="m"}, control-predecessors={c}, backend_config="x", sharding={replicated}, frontend_attributes={k="v"}
}`)
	assert.Contains(t, m.String(), `ROOT %b = f32[4]{0} copy(f32[4]{0} %a), sharding={replicated}, frontend_attributes={k="v"}, control-predecessors={%c}, metadata={op_name="m"}, backend_config="x"`)
}

func TestTruncatedModule(t *testing.T) {
	const src = `HloModule t
c1 {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}
c2 (p0: f32[], p1: f32[]) -> f32[] {
  p0 = f32[] parameter(0)
  n = f32[] negate(p0)
`
	_, err := ParseFile("dump.hlo", []byte(src))
	require.Error(t, err, "a truncated text is an error by default")
	assert.Equal(t, `dump.hlo:9:1: file ends inside computation "c2"; is the dump truncated?`, err.Error())

	m, err := ParseOptions{AllowTruncated: true}.ParseFile("dump.hlo", []byte(src))
	require.NoError(t, err)
	require.NotNil(t, m.Truncated)
	require.Len(t, m.Computations, 1, "the unterminated computation is dropped")
	assert.Equal(t, "c2", m.Truncated.Computation)
	assert.True(t, m.Truncated.Entry, "no complete computation is marked ENTRY: the dropped last one was the entry")
	assert.Nil(t, m.Entry)
	assert.Equal(t, `text ends at 9:1 inside computation "c2" (the entry computation), which was dropped`, m.Truncated.String())
}

// TestTruncatedMidToken checks texts cut in the middle of a token, of a
// string, of a signature and after the computation's name: each is the
// truncation error at the end of the text, and with AllowTruncated the
// complete ENTRY computation stays the entry.
func TestTruncatedMidToken(t *testing.T) {
	const head = "HloModule t\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n"
	for _, tail := range []string{
		"c {\n  p = f32[2,3]{1,",
		"c {\n  p = f32[] parameter(0), metadata={op_name=\"ab",
		"c (p: f32[",
		"c",
		"c {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p",
	} {
		src := head + tail
		_, err := ParseFile("x.hlo", []byte(src))
		require.Error(t, err, "%q", tail)
		lines := strings.Count(src, "\n")
		col := len(src) - strings.LastIndexByte(src, '\n')
		assert.Equal(t, fmt.Sprintf(`x.hlo:%d:%d: file ends inside computation "c"; is the dump truncated?`, lines+1, col), err.Error(), "%q", tail)

		m, err := ParseOptions{AllowTruncated: true}.ParseFile("x.hlo", []byte(src))
		require.NoError(t, err, "%q", tail)
		require.NotNil(t, m.Truncated)
		assert.False(t, m.Truncated.Entry)
		require.NotNil(t, m.Entry)
		assert.Equal(t, "e", m.Entry.Name)
	}
	// A syntax error that is not at the end stays that error.
	_, err := ParseOptions{AllowTruncated: true}.ParseFile("x.hlo", []byte(head+"c {\n  p = f32[] parameter(0)\n  q = f32[] bogus(p) (\n"))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "truncated")
}

// TestImpliedEntry checks XLA's rule for a text without ENTRY: the last
// computation is the entry, and the module says it was implied.
func TestImpliedEntry(t *testing.T) {
	m := mustParse(t, "a {\n  ROOT p = f32[] parameter(0)\n}\nb {\n  ROOT q = f32[] parameter(0)\n}\n")
	assert.Equal(t, "b", m.Entry.Name)
	assert.True(t, m.ImpliedEntry)
	m = mustParse(t, "ENTRY a {\n  ROOT p = f32[] parameter(0)\n}\nb {\n  ROOT q = f32[] parameter(0)\n}\n")
	assert.Equal(t, "a", m.Entry.Name)
	assert.False(t, m.ImpliedEntry)
}

func TestOperandIndexComments(t *testing.T) {
	m := mustParse(t, `ENTRY e {
  a = f32[] parameter(0)
  ROOT t = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple(a, a, a, a, a, /*index=5*/a)
}`)
	assert.Contains(t, m.String(), "tuple(f32[] %a, f32[] %a, f32[] %a, f32[] %a, f32[] %a, /*index=5*/f32[] %a)")
}

func TestInferredShapes(t *testing.T) {
	m := mustParse(t, `ENTRY e {
  p = (f32[2]{0}, s32[]) parameter(0)
  g = get-tuple-element(p), index=0
  n = negate(g)
  ROOT c = compare(n, g), direction=LT
}`)
	assert.Equal(t, "f32[2]{0}", instr(t, m, "g").Shape.String())
	assert.Equal(t, "f32[2]{0}", instr(t, m, "n").Shape.String())
	assert.Equal(t, "pred[2]{0}", instr(t, m, "c").Shape.String())
}

// TestReadChunks checks that ReadChunks cuts what SplitInputFile cuts,
// however the reader hands the text out, and says which chunk is last.
func TestReadChunks(t *testing.T) {
	big := strings.Repeat("// a comment line of the first module\n", 20000) // more than a read
	texts := []string{
		"",
		"// -----",
		"a\n// -----",
		"a\n// -----\n",
		"\n  // -----  \r\nb\n// -----\n\n// -----\nc",
		"x // -----\n// ----- y\n// -----// -----\n//  -----\n",
		big + "// -----\n" + big + "b\n  // -----\nc\n",
	}
	readers := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"eof":      iotest.DataErrReader,
	}
	for i, text := range texts {
		want := SplitInputFile([]byte(text))
		for name, wrap := range readers {
			var got []Chunk
			lastAt := -1
			err := ReadChunks(wrap(strings.NewReader(text)), func(c Chunk, last bool) error {
				if last {
					lastAt = len(got)
				}
				got = append(got, c)
				return nil
			})
			require.NoError(t, err)
			require.Len(t, got, len(want), "text %d, %s", i, name)
			for k := range want {
				assert.Equal(t, string(want[k].Src), string(got[k].Src), "text %d, %s, chunk %d", i, name, k)
				assert.Equal(t, want[k].Line, got[k].Line, "text %d, %s, chunk %d", i, name, k)
			}
			assert.Equal(t, len(got)-1, lastAt, "text %d, %s: the last chunk is said last", i, name)
		}
	}
	failed := errors.New("stop")
	err := ReadChunks(strings.NewReader("a\n// -----\nb"), func(Chunk, bool) error { return failed })
	assert.ErrorIs(t, err, failed, "f's error ends the read")
	err = ReadChunks(iotest.TimeoutReader(strings.NewReader(big)), func(Chunk, bool) error { return nil })
	assert.ErrorIs(t, err, iotest.ErrTimeout, "the reader's error")
}

func TestSplitInputFile(t *testing.T) {
	src := "HloModule a\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n// -----\nHloModule b\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n  // -----  \nENTRY e {\n  ROOT p = f32[] bogus(0)\n}\n"
	chunks := SplitInputFile([]byte(src))
	require.Len(t, chunks, 3)
	assert.Equal(t, []int{1, 6, 11}, []int{chunks[0].Line, chunks[1].Line, chunks[2].Line})
	var outs []string
	for _, c := range chunks[:2] {
		m, err := ParseChunk("f.hlo", c)
		require.NoError(t, err)
		outs = append(outs, m.String())
	}
	_, err := ParseChunk("f.hlo", chunks[2])
	require.Error(t, err)
	assert.Equal(t, `f.hlo:12:18: expected opcode, found unknown "bogus" (not in XLA's HLO text as of jaxlib 0.12.0.1: hlo-opt --version)`, err.Error(), "positions are lines of the whole file")
	joined := JoinOutputs(outs)
	assert.Equal(t, "HloModule a\n\nENTRY %e (p: f32[]) -> f32[] {\n  ROOT %p = f32[] parameter(0)\n}\n// -----\nHloModule b\n\nENTRY %e (p: f32[]) -> f32[] {\n  ROOT %p = f32[] parameter(0)\n}\n", joined)
	assert.Len(t, SplitInputFile([]byte(src[:20])), 1)
}

func TestEdgeRoundTrips(t *testing.T) {
	for _, src := range []string{
		"HloModule %0\nENTRY %ENTRY {\n  %1 = f32[] parameter(0)\n  ROOT %ROOT = f32[] negate(%1)\n}\n",
		"ENTRY e {\n  ROOT c = f32[2] constant({1, 2} // two\n  )\n}\n",
		"ENTRY e {\n  ROOT c = f32[2] constant({1, /* one */ 2})\n}\n",
		"ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT c = f32[2] custom-call(p), custom_call_target=\"x\", literal=s32[] 1, backend_config={\n    \"a\": 1\n  }\n}\n",
	} {
		m := mustParse(t, src)
		for _, opts := range []PrintOptions{{}, {Short: true}} {
			var b strings.Builder
			require.NoError(t, m.Print(&b, opts))
			m2, err := ParseString(b.String())
			require.NoError(t, err, b.String())
			var b2 strings.Builder
			require.NoError(t, m2.Print(&b2, opts))
			assert.Equal(t, b.String(), b2.String())
		}
	}
}

// Shapes with the same text share their storage; one written differently
// (blanks) or invalid is parsed on its own and reported as before.
func TestShapeTextCache(t *testing.T) {
	m := mustParse(t, `HloModule m
ENTRY e {
  a = f32[8,128]{1,0:T(8,128)} parameter(0)
  b = f32[8,128]{1,0:T(8,128)} negate(f32[8,128]{1,0:T(8,128)} a)
  c = f32[8, 128]{1,0:T(8,128)} negate(f32[8,128]{1,0:T(8,128)} b)
  ROOT d = f32[128,8]{0,1:T(8,128)} transpose(c), dimensions={1,0}
}
`)
	a, b, c, d := instr(t, m, "a"), instr(t, m, "b"), instr(t, m, "c"), instr(t, m, "d")
	assert.Same(t, a.Shape.Layout, b.Shape.Layout, "same text, shared layout")
	assert.NotSame(t, a.Shape.Layout, c.Shape.Layout, "blanks: parsed apart")
	assert.Equal(t, a.Shape.String(), c.Shape.String())
	assert.Equal(t, "f32[128,8]{0,1:T(8,128)}", d.Shape.String())
	assert.Equal(t, []int64{1, 0}, a.Shape.Layout.MinorToMajor)

	// Tuple shapes of instructions are their own: setting an element's
	// layout in place changes one instruction only.
	m = mustParse(t, `ENTRY e {
  p = (f32[2]{0}, f32[3]{0}) parameter(0)
  q = (f32[2]{0}, f32[3]{0}) copy(p)
  ROOT r = (f32[2]{0}, f32[3]{0}) copy(q)
}
`)
	p, q := instr(t, m, "p"), instr(t, m, "q")
	q.Shape.Tuple[0] = MakeShapeWithLayout(F32, []int64{2}, []int64{0})
	q.Shape.Tuple[0].Layout.MemorySpace = 1
	assert.Equal(t, "(f32[2]{0}, f32[3]{0})", p.Shape.String())
	assert.Equal(t, "(f32[2]{0:S(1)}, f32[3]{0})", q.Shape.String())

	_, err := ParseFile("t.hlo", []byte(`ENTRY e {
  a = f32[8,128]{1,0} parameter(0)
  ROOT b = f32[8,128]{1,0,2} negate(a)
}
`))
	require.Error(t, err)
	assert.Equal(t, "t.hlo:3:22: expected 2 minor_to_major dimensions, found 3 (Dimensions size is 2, but minor to major size is 3.)", err.Error())
}

// Instructions without typed attributes share one read-only default;
// the others own theirs.
func TestTypedAttrsShared(t *testing.T) {
	m := mustParse(t, `ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[2,3] negate(a)
  c = f32[3,2] transpose(b), dimensions={1,0}
  ROOT d = f32[3,2] copy(c)
}
`)
	a, b, c, d := instr(t, m, "a"), instr(t, m, "b"), instr(t, m, "c"), instr(t, m, "d")
	assert.Same(t, a.Typed, b.Typed)
	assert.Same(t, a.Typed, d.Typed)
	assert.NotSame(t, a.Typed, c.Typed)
	assert.Equal(t, NewTypedAttrs(), a.Typed)
	assert.Equal(t, []int64{1, 0}, c.Typed.Dimensions)
	assert.Equal(t, int64(-1), c.Typed.TupleIndex)
	assert.Equal(t, int64(1), c.Typed.FeatureGroupCount)
}

type failAfter struct{ n int }

func (w *failAfter) Write(b []byte) (int, error) {
	if w.n == 0 {
		return 0, assert.AnError
	}
	w.n--
	return len(b), nil
}

// Print of a module large enough to be printed in parallel batches writes
// the same bytes as String, and stops at the first write error.
func TestPrintBatchesInOrder(t *testing.T) {
	m, err := Parse(hlogen.Module(8 << 20))
	require.NoError(t, err)
	require.Greater(t, len(printBatches(m)), 4)
	var b strings.Builder
	require.NoError(t, m.Print(&b, PrintOptions{}))
	assert.Equal(t, m.String(), b.String())
	assert.ErrorIs(t, m.Print(&failAfter{n: 3}, PrintOptions{}), assert.AnError)
}

// Equal long attribute values of nearby instructions (a dump's metadata)
// are kept once; short ones and different ones apart.
func TestParseKeepsRepeatedValuesOnce(t *testing.T) {
	md := `metadata={op_name="jit(f)/jvp(model)/while/body/closed_call/checkpoint/add" source_file="/workspace/model.py" source_line=7}`
	m, err := Parse([]byte(`HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] add(p, p), ` + md + `
  b = f32[4] multiply(a, a), metadata={op_name="other"}
  ROOT c = f32[4] add(b, b), ` + md + `
}`))
	require.NoError(t, err)
	value := func(i int) string {
		v, ok := m.Entry.Instructions[i].Attr("metadata")
		require.True(t, ok, i)
		return v
	}
	a, b, c := value(1), value(2), value(3)
	assert.Equal(t, a, c)
	assert.Same(t, unsafe.StringData(a), unsafe.StringData(c), "kept once")
	assert.NotEqual(t, a, b)
}

// A value the text repeats is found without scanning it again
// (scanRecentValue): whatever follows the repeat, the parse reads what it
// reads when the first value differs and nothing repeats.
func TestRepeatedValueReadAsScanned(t *testing.T) {
	value := `{op_name="jit(f)/add" source_file="model.py" source_line=7}`
	other := `{op_name="jit(f)/add" source_file="model.py" source_line=8}`
	ends := []string{"", " ", ",", "\n", "x", `"s"`, "{}", "(", "/", "/ ", "//c", "/*c*/", "]", "}"}
	for _, tail := range []string{value, value + "/"} {
		for _, end := range ends {
			parse := func(first string) (string, string) {
				m, err := ParseString("HloModule m\nENTRY e {\n  p = f32[4] parameter(0), metadata=" + first +
					"\n  ROOT a = f32[4] add(p, p), metadata=" + tail + end + "\n}\n")
				if err != nil {
					return "", err.Error()
				}
				v, _ := m.Entry.Root.Attr("metadata")
				return v, m.String()
			}
			wantV, want := parse(other + tail[len(value):])
			gotV, got := parse(tail)
			assert.Equal(t, wantV, gotV, "%q", tail+end)
			assert.Equal(t, want, strings.Replace(got, value, other, 1), "%q", tail+end)
		}
	}
}

// Instructions of one opcode whose typed attributes are written alike
// share one TypedAttrs (internTyped); others do not.
func TestTypedAttrsInterned(t *testing.T) {
	m := mustParse(t, `ENTRY e {
  a = f32[2,3] parameter(0)
  s = f32[] parameter(1)
  b = f32[3,2] transpose(a), control-predecessors={s}, dimensions={1,0}
  c = f32[3,2] transpose(a), dimensions={1,0}, metadata={op_name="c"}
  d = f32[2,3] transpose(a), dimensions={0,1}
  e = f32[3,2] reverse(b), dimensions={1,0}
  f = f32[2] broadcast(s), dimensions={}
  g = f32[2] broadcast(s)
  ROOT h = (f32[3,2], f32[3,2], f32[2,3], f32[3,2], f32[2], f32[2]) tuple(b, c, d, e, f, g)
}`)
	typed := func(name string) *TypedAttrs { return instr(t, m, name).Typed }
	assert.Same(t, typed("b"), typed("c"))
	assert.Equal(t, []int64{1, 0}, typed("b").Dimensions)
	assert.NotSame(t, typed("b"), typed("d"))
	assert.Equal(t, []int64{0, 1}, typed("d").Dimensions)
	assert.NotSame(t, typed("b"), typed("e"), "another opcode")
	assert.Equal(t, []int64{1, 0}, typed("e").Dimensions)
	assert.Same(t, typed("f"), typed("g"), "dimensions={} as XLA reads a broadcast of a scalar")
	assert.Equal(t, []int64{}, typed("g").Dimensions)
}

// An operand written with the shape text and the name of one of the last
// instructions is read without scanning them (recentOperand): each
// spelling reads as it does when the declaration's text differs and the
// operand is scanned.
func TestRecentOperandReadAsScanned(t *testing.T) {
	for _, operands := range []string{
		"f32[2]{0} %a, f32[2]{0} %a.1",
		"f32[2]{0} a.1 , f32[2]{0} %a )",
		"f32[2]{0} %a.1, f32[2]{0} %a.12",
		"f32[2]{0} %a#0, f32[2]{0} %a",
		"f32[2]{0} negate(f32[2]{0} %a), f32[2]{0} %a",
		"f32[2]{0} %a\n, f32[2]{0} %a",
		"f32[2]{0} %a /*x*/, f32[2]{0} %a",
		"f32[2]{0}  %a, f32[2]{0} %negate",
		"f32[2]{0} %a",
	} {
		parse := func(decl string) string {
			m, err := ParseString("ENTRY e {\n  a = " + decl + " parameter(0)\n  a.1 = " + decl +
				" parameter(1)\n  negate = " + decl + " parameter(2)\n  ROOT s = f32[2]{0} add(" + operands + ")\n}\n")
			if err != nil {
				return err.Error()
			}
			return m.String()
		}
		assert.Equal(t, parse("f32[2]"), parse("f32[2]{0}"), "%q", operands)
	}
}

// An instruction's shape written as one of the last instructions was
// declared is read without scanning it (recentShape): each spelling reads
// as it does when the declaration's text is not compact and the shape is
// scanned.
func TestRecentShapeReadAsScanned(t *testing.T) {
	for _, user := range []string{
		"f32[2]{0} negate(a)",
		"f32[2]{0}  negate(a)",
		"f32[2] {0} negate(a)",
		"f32[2]{0}{0} negate(a)",
		"f32[2]{0}\n negate(a)",
		"f32[2]{0} /*c*/ negate(a)",
		"f32[2]{0} b(a)",
		"f32[2]{0}",
	} {
		parse := func(decl string) string {
			m, err := ParseString("ENTRY e {\n  a = " + decl + " parameter(0)\n  b = f32[2] {0} parameter(1)\n  ROOT s = " + user + "\n}\n")
			if err != nil {
				return err.Error()
			}
			return m.String()
		}
		assert.Equal(t, parse("f32[2]{ 0 }"), parse("f32[2]{0}"), "%q", user)
		assert.Equal(t, parse("f32[ 2]"), parse("f32[2]"), "%q", user)
	}
}

// The printer copies the text of an array shape printed lately with the
// same storage (printedShape); shapes sharing part of it print their own.
func TestPrintSharedShapeStorage(t *testing.T) {
	m := mustParse(t, `ENTRY e {
  a = f32[2,3]{1,0} parameter(0)
  b = f32[2,3]{1,0} negate(a)
  c = f32[2,3]{1,0} negate(b)
  d = f32[2,3]{1,0} negate(c)
  ROOT r = (f32[2,3]{1,0}, f32[2,3]{1,0}, f32[2,3]{1,0}) tuple(b, c, d)
}`)
	b, c, d := instr(t, m, "b"), instr(t, m, "c"), instr(t, m, "d")
	require.Same(t, unsafe.SliceData(b.Shape.Dims), unsafe.SliceData(c.Shape.Dims))
	c.Shape.Layout = &Layout{MinorToMajor: []int64{0, 1}}
	d.Shape.Type = S32
	text := m.String()
	assert.Contains(t, text, "%b = f32[2,3]{1,0} negate(")
	assert.Contains(t, text, "%c = f32[2,3]{0,1} negate(f32[2,3]{1,0} %b)")
	assert.Contains(t, text, "%d = s32[2,3]{1,0} negate(f32[2,3]{0,1} %c)")
}

// An entry_computation_layout that is the entry's shapes as printed is
// taken without parsing it (printsEntryLayout): on every text we hold, and
// on each of them with its layout broken or changed, the parse reports
// the error parseProgramShape finds in the layout, or none, as when every
// layout was parsed.
func TestEntryLayoutCheckedAsParsed(t *testing.T) {
	printed := 0
	for name, src := range heldTexts(t) {
		m, err := Parse(src)
		if err != nil {
			continue
		}
		v, ok := m.Attr("entry_computation_layout")
		if !ok {
			continue
		}
		if printsEntryLayout(v, m.Entry) {
			printed++
		}
		text := string(src)
		i := strings.Index(text, "entry_computation_layout="+v)
		if i < 0 {
			continue // spelled otherwise (blanks, comments)
		}
		i += len("entry_computation_layout=")
		for _, w := range []string{
			v,
			v[:len(v)-1] + " }",
			v[:len(v)-1] + "x}",
			strings.Replace(v, "[", "[-", 1),
			strings.Replace(v, "]", "]{7}", 1),
			strings.Replace(v, "->", "->(", 1),
			strings.Replace(v, "(", "(f32[3]{0}, ", 1),
			strings.Replace(v, ")->", ", f32[]{})->", 1),
			strings.Replace(v, ",", ",/*c*/", 1),
		} {
			s := newScanner("", w, 0, len(w), 1, 0)
			_, want := parseProgramShape(&s)
			_, err := ParseString(text[:i] + w + text[i+len(v):])
			if want == nil {
				assert.NoError(t, err, "%s: %s", name, w)
				continue
			}
			if assert.Error(t, err, "%s: %s", name, w) {
				assert.Contains(t, err.Error(), want.Msg, "%s: %s", name, w)
			}
		}
	}
	assert.Greater(t, printed, 20, "layouts taken as printed")
}

// An entry_computation_layout written as XLA writes it, every fifth
// parameter marked with its index, is taken as printed (printsEntryLayout),
// as are those of hlogen's modules, written so; a wrong mark is not.
func TestEntryLayoutIndexMarks(t *testing.T) {
	var params, shapes []string
	for i := range 12 {
		params = append(params, fmt.Sprintf("p%d = f32[%d]{0} parameter(%d)", i, i+1, i))
		shape := fmt.Sprintf("f32[%d]{0}", i+1)
		if i > 0 && i%5 == 0 {
			shape = fmt.Sprintf("/*index=%d*/%s", i, shape)
		}
		shapes = append(shapes, shape)
	}
	src := "HloModule m, entry_computation_layout={(" + strings.Join(shapes, ", ") + ")->f32[1]{0}}\n\nENTRY e {\n  " +
		strings.Join(params, "\n  ") + "\n  ROOT r = f32[1]{0} negate(p0)\n}\n"
	m := mustParse(t, src)
	v, _ := m.Attr("entry_computation_layout")
	assert.True(t, printsEntryLayout(v, m.Entry), "XLA's index marks")
	assert.False(t, printsEntryLayout(strings.Replace(v, "/*index=5*/", "/*index=6*/", 1), m.Entry), "a wrong index")
	ps, err := m.EntryComputationLayout()
	require.NoError(t, err)
	assert.Len(t, ps.Params, 12)
	for _, sh := range hlogen.Shapes {
		m := mustParse(t, string(sh.Gen(1)))
		v, _ := m.Attr("entry_computation_layout")
		assert.True(t, printsEntryLayout(v, m.Entry), sh.Name)
	}
}

// Attributes are printed in XLA's order whatever order the text gives
// them in, whether printed as they are (inPrintOrder) or sorted.
func TestAttributesPrintedInXLAOrder(t *testing.T) {
	attrs := []string{`metadata={op_name="m"}`, `backend_config="x"`, `sharding={replicated}`, `frontend_attributes={k="v"}`, `dimensions={0}`}
	want := `ROOT %r = f32[4]{0} reverse(f32[4]{0} %a), dimensions={0}, sharding={replicated}, frontend_attributes={k="v"}, metadata={op_name="m"}, backend_config="x"`
	var permute func(done []string, rest []string)
	permute = func(done []string, rest []string) {
		if len(rest) == 0 {
			m := mustParse(t, "ENTRY e {\n  a = f32[4] parameter(0)\n  ROOT r = f32[4] reverse(a), "+strings.Join(done, ", ")+"\n}\n")
			assert.Contains(t, m.String(), want, "%v", done)
			return
		}
		for i := range rest {
			others := append(append([]string{}, rest[:i]...), rest[i+1:]...)
			permute(append(done[:len(done):len(done)], rest[i]), others)
		}
	}
	permute(nil, attrs)
}

// A root whose shape is its callee's, not yet given when the header is
// checked, prints as no layout does: the layout is parsed.
func TestEntryLayoutOfInferredRoot(t *testing.T) {
	const body = "\nf {\n  x = f32[] parameter(0)\n  ROOT n = f32[] negate(x)\n}\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = call(p), to_apply=f\n}\n"
	_, err := ParseString("HloModule m, entry_computation_layout={(f32[])->f32[]}" + body)
	assert.NoError(t, err)
	_, err = ParseString("HloModule m, entry_computation_layout={(f32[])->invalid[]}" + body)
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), `expected shape, found "invalid"`)
	}
}

// Integer literals of any number of digits (those of up to 18 are read
// while scanned, longer ones by strconv) are checked against their type's
// range at the value they spell; beyond 64 bits they are no number. (A
// value past int64's range is read as the int64 of its bits, and a negative
// u64 as its two's complement, as XLA's lexer reads them: not checked here.)
func TestIntegerLiteralValues(t *testing.T) {
	minI, maxI, maxU := big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64), new(big.Int).SetUint64(math.MaxUint64)
	ranges := map[string][2]*big.Int{
		"s8": {big.NewInt(-128), big.NewInt(127)}, "u8": {big.NewInt(0), big.NewInt(255)},
		"s64": {minI, maxI}, "u64": {big.NewInt(0), maxU},
	}
	for k := 1; k <= 21; k++ {
		for _, digits := range []string{strings.Repeat("9", k), "1" + strings.Repeat("0", k-1), "0" + strings.Repeat("7", k-1)} {
			for _, text := range []string{digits, "-" + digits} {
				v, _ := new(big.Int).SetString(text, 10)
				for typ, r := range ranges {
					_, err := ParseString("ENTRY e {\n  ROOT c = " + typ + "[] constant(" + text + ")\n}\n")
					switch {
					case v.Cmp(minI) < 0 || v.Cmp(maxU) > 0:
						if assert.Error(t, err, "%s %s", typ, text) {
							assert.Contains(t, err.Error(), "unexpected token type in a literal", "%s %s", typ, text)
						}
					case typ == "u64" && v.Sign() < 0, typ != "u64" && v.Cmp(maxI) > 0:
					case v.Cmp(r[0]) < 0 || v.Cmp(r[1]) > 0:
						if assert.Error(t, err, "%s %s", typ, text) {
							assert.Contains(t, err.Error(), "value "+text+" is out of range", "%s %s", typ, text)
						}
					default:
						assert.NoError(t, err, "%s %s", typ, text)
					}
				}
			}
		}
	}
}

// Print gives each batch of computations its share of the source's size:
// the text of the unrolled step's entry, one batch longer than 256 bytes
// an instruction, fills its buffer without outgrowing it.
func TestPrintBatchSizedFromSource(t *testing.T) {
	m := mustParse(t, string(hlogen.Unrolled(64)))
	for _, b := range printBatches(m) {
		cs := m.Computations[b[0]:b[1]]
		buf := m.sized(nil, cs)
		p := newPrinter(m, PrintOptions{}, buf)
		p.computations(cs, b[0] > 0)
		assert.Equal(t, cap(buf), cap(p.buf), "computations %d to %d outgrew their buffer", b[0], b[1])
		assert.Greater(t, len(p.buf), textSize(cs), "the guess is short")
	}
}

// A parsed module's text is appended into room about its source's size,
// not the guess of 256 bytes an instruction (the unrolled step's text is
// longer, mobilenet_v2's shorter: held as printed, by --split-input-file,
// it took a quarter more room than it needs); a text printed longer than
// its source (operands without shapes) still prints whole.
func TestAppendTextSizedFromSource(t *testing.T) {
	src := hlogen.Unrolled(64)
	m := mustParse(t, string(src))
	text := m.AppendText(nil, PrintOptions{})
	require.Equal(t, string(src), string(text))
	assert.LessOrEqual(t, cap(text), len(src)+len(src)/32+4096+8192) // and a page
	assert.Greater(t, len(text), textSize(m.Computations), "the guess is short")

	short := mustParse(t, "ENTRY e {\n  a = f32[2] parameter(0)\n  ROOT n = f32[2] negate(a)\n}\n")
	assert.Equal(t, short.String(), string(short.AppendText(nil, PrintOptions{})))
	assert.Greater(t, len(short.String()), short.textLen, "printed longer than parsed")
}
