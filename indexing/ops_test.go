package indexing

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/passes"
	"github.com/hlo-opt/hlo-opt/passes/render"
)

func oneLine(set []*IndexingMap) []string {
	out := make([]string, len(set))
	for i, m := range set {
		out[i] = m.String()
	}
	return out
}

// TestPhysicalMapsAgreeWithTiling checks PhysicalMap against
// hlo.LinearIndex at every element of tiled shapes, the seed's examples
// among them (element (2,3) of F32[3,5]{1,0:T(2,2)} is at 17; element (6,5)
// of an 8x8 array tiled (2,4)(2,1,1,1) is at 51, SEED-ERRATA 8).
func TestPhysicalMapsAgreeWithTiling(t *testing.T) {
	shape := func(dims, m2m []int64, tiles ...hlo.Tile) hlo.Shape {
		s := hlo.MakeShapeWithLayout(hlo.F32, dims, m2m)
		s.Layout.Tiles = tiles
		return s
	}
	seed1 := shape([]int64{3, 5}, []int64{1, 0}, hlo.Tile{2, 2})
	seed2 := shape([]int64{8, 8}, []int64{1, 0}, hlo.Tile{2, 4}, hlo.Tile{2, 1, 1, 1})
	assert.Equal(t, []int64{17}, PhysicalMap(seed1).Evaluate([]int64{2, 3}, nil, nil))
	assert.Equal(t, []int64{51}, PhysicalMap(seed2).Evaluate([]int64{6, 5}, nil, nil))
	for _, s := range []hlo.Shape{
		seed1, seed2,
		shape([]int64{7, 300}, []int64{1, 0}, hlo.Tile{8, 128}),
		shape([]int64{5, 9, 3}, []int64{0, 2, 1}, hlo.Tile{8, 128}, hlo.Tile{2, 1}),
		shape([]int64{6, 10}, []int64{0, 1}, hlo.Tile{hlo.CombinedDim, 4}),
		shape([]int64{4, 6}, []int64{1, 0}),
	} {
		pm := PhysicalMap(s)
		require.False(t, pm.IsUndefined(), "%s", s)
		total := product(s.Dims)
		for lin := range total {
			idx := make([]int64, len(s.Dims))
			rem := lin
			for i := len(s.Dims) - 1; i >= 0; i-- {
				idx[i] = rem % s.Dims[i]
				rem /= s.Dims[i]
			}
			want, err := hlo.LinearIndex(s, idx)
			require.NoError(t, err)
			assert.Equal(t, []int64{want}, pm.Evaluate(idx, nil, nil), "%s at %v: %s", s, idx, pm)
		}
	}
	assert.True(t, PhysicalMap(hlo.MakeShapeWithLayout(hlo.F32, []int64{2, 2}, []int64{0, 0})).IsUndefined())
}

func TestLinearOffsetMap(t *testing.T) {
	s := hlo.MakeShapeWithLayout(hlo.F32, []int64{4, 8}, []int64{0, 1})
	s.Layout.Tiles = []hlo.Tile{{8, 128}} // ignored
	assert.Equal(t, "(d0, d1) -> (d0 + d1 * 4), domain: d0 in [0, 3], d1 in [0, 7]", LinearOffsetMap(s).String())
	assert.Equal(t, "(d0, d1, d2) -> (d0 * 24 + d1 * 6 + d2), domain: d0 in [0, 1], d1 in [0, 3], d2 in [0, 5]",
		LinearOffsetMap(hlo.MakeShape(hlo.F32, 2, 4, 6)).String())
	assert.Equal(t, "() -> (0)", LinearOffsetMap(hlo.MakeShape(hlo.F32)).String())
	assert.True(t, LinearOffsetMap(hlo.MakeTupleShape()).IsUndefined())

	// Composed with a transpose's logical map: the physical access pattern.
	tr := parseEntry(t, `HloModule m
ENTRY e {
  p0 = f32[16,32]{1,0} parameter(0)
  ROOT t = f32[32,16]{1,0} transpose(p0), dimensions={1,0}
}`, "t")
	h, err := ComputeOutputToInput(tr, 0)
	require.NoError(t, err)
	phys, err := ComposePhysical(h.Maps[0][0], tr.Operands[0].Shape, false)
	require.NoError(t, err)
	assert.Equal(t, "(d0, d1) -> (d0 + d1 * 32), domain: d0 in [0, 31], d1 in [0, 15]", phys.String())
}

func TestAssignRTVarsToMidpoint(t *testing.T) {
	m, err := ParseIndexingMap("(d0, d1){rt0, rt1} -> (d0 + rt0, d1 * 2 + rt1), domain: d0 in [0, 3], d1 in [0, 7], rt0 in [0, 10], rt1 in [2, 5]")
	require.NoError(t, err)
	got := AssignRTVarsToMidpoint(m)
	assert.Equal(t, "(d0, d1) -> (d0 + 5, d1 * 2 + 3), domain: d0 in [0, 3], d1 in [0, 7]", got.String())
	assert.True(t, AssignRTVarsToMidpoint(Undefined()).IsUndefined())
}

// TestMultiOutputFusion checks the maps of each result of a multi-output
// fusion, the maps through get-tuple-element, the input-to-output maps and
// the composition from a hero operand.
func TestMultiOutputFusion(t *testing.T) {
	src := `HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  p0 = f32[8,16] parameter(0)
  p1 = f32[16,8] parameter(1)
  t = f32[8,16] transpose(p1), dimensions={1,0}
  m = f32[8,16] multiply(p0, t)
  zero = f32[] constant(0)
  r = f32[8] reduce(m, zero), dimensions={1}, to_apply=add
  ROOT tuple = (f32[8,16], f32[8]) tuple(m, r)
}
ENTRY e {
  a = f32[8,16] parameter(0)
  b = f32[16,8] parameter(1)
  ROOT f = (f32[8,16], f32[8]) fusion(a, b), kind=kInput, calls=fused
}`
	f := parseEntry(t, src, "f")
	h0, err := ComputeOutputToInput(f, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"(d0, d1) -> (d0, d1), domain: d0 in [0, 7], d1 in [0, 15]"}, oneLine(h0.Maps[0]))
	assert.Equal(t, []string{"(d0, d1) -> (d1, d0), domain: d0 in [0, 7], d1 in [0, 15]"}, oneLine(h0.Maps[1]))
	h1, err := ComputeOutputToInput(f, 1)
	require.NoError(t, err)
	assert.Equal(t, []string{"(d0)[s0] -> (d0, s0), domain: d0 in [0, 7], s0 in [0, 15]"}, oneLine(h1.Maps[0]))
	assert.Equal(t, []string{"(d0)[s0] -> (s0, d0), domain: d0 in [0, 7], s0 in [0, 15]"}, oneLine(h1.Maps[1]))
	_, err = ComputeOutputToInput(f, 2)
	assert.Error(t, err)

	io, err := ComputeInputToOutput(f, 1)
	require.NoError(t, err)
	require.Len(t, io.Maps, 2)
	assert.Equal(t, []string{"(d0, d1) -> (d1, d0), domain: d0 in [0, 15], d1 in [0, 7]"}, oneLine(io.Maps[0]))
	assert.Equal(t, []string{"(d0, d1) -> (d1), domain: d0 in [0, 15], d1 in [0, 7]"}, oneLine(io.Maps[1]))

	hero := parseEntry(t, src, "r")
	fromHero, err := ComputeFusedOutputToInputFrom(hero, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"(d0, d1) -> (d1, d0), domain: d0 in [0, 7], d1 in [0, 15]"}, oneLine(fromHero.Maps[1]))
	_, err = ComputeFusedOutputToInputFrom(hero, 5)
	assert.Error(t, err)
}

// TestUndefinedOps checks that ops without indexing get the undefined map,
// never a guessed one, and print as "unknown indexing".
func TestUndefinedOps(t *testing.T) {
	in := parseEntry(t, `HloModule m
ENTRY e {
  p0 = f32[16] parameter(0)
  ROOT cc = f32[16] custom-call(p0), custom_call_target="foo"
}`, "cc")
	h, err := ComputeOutputToInput(in, 0)
	require.NoError(t, err)
	require.Len(t, h.Maps, 1)
	assert.True(t, h.Maps[0][0].IsUndefined())
	assert.Equal(t, "operand id = 0\nunknown indexing\n", h.String())
	io, err := ComputeInputToOutput(in, 0)
	require.NoError(t, err)
	assert.True(t, io.Maps[0][0].IsUndefined())
}

// TestBadAttributesAreErrors feeds instructions whose attributes contradict
// their shapes: each gives a positioned error, never a panic.
func TestBadAttributesAreErrors(t *testing.T) {
	checked := 0
	for _, body := range []string{
		"ROOT b = f32[4,5] broadcast(p0), dimensions={3}",
		"ROOT t = f32[8] transpose(p0), dimensions={1}",
		"ROOT s = f32[2] slice(p0), slice={[0:2:1], [0:1:1]}",
		"ROOT r = f32[3] reshape(p0)",
		"ROOT c = f32[9] concatenate(p0, p0), dimensions={0}",
		"ROOT d = f32[8] dot(p0, p0), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
		"ROOT p = f32[12] pad(p0, z), padding=1_1",
		"ROOT r = f32[] reduce(p0, z), dimensions={4}, to_apply=add",
		"ROOT g = f32[8] gather(p0, i), offset_dims={0}, collapsed_slice_dims={}, start_index_map={0,1,2}, index_vector_dim=0, slice_sizes={8}",
	} {
		src := `HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p0 = f32[8] parameter(0)
  z = f32[] parameter(1)
  i = s32[1] parameter(2)
  ` + body + `
}`
		m, err := hlo.ParseString(src)
		if err != nil {
			continue // rejected by the parser already
		}
		root := m.Entry.Root
		checked++
		_, err = ComputeOutputToInput(root, 0)
		if assert.Error(t, err, body) {
			var ie *InstructionError
			require.ErrorAs(t, err, &ie)
			assert.Regexp(t, `^\d+:\d+: `+root.Name+`: expected`, err.Error())
		}
	}
	assert.GreaterOrEqual(t, checked, 6, "most bad instructions must reach the indexing analysis")
}

// TestRepeatedGatherScatterDimsAreErrors: gather and scatter dimension
// numbers that name a dim twice (the verifier refuses them; --verify=false
// lets them through) give a positioned error, inside a fusion too, never a
// panic.
func TestRepeatedGatherScatterDimsAreErrors(t *testing.T) {
	for _, root := range []string{
		"sc = f32[8,16] scatter(op, idx, upd), update_window_dims={1,1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add",
		"sc = f32[8,16] scatter(op, idx, upd), update_window_dims={1,2}, inserted_window_dims={0,0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add",
		"sc = f32[8,16] scatter(op, idx, upd), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,0}, index_vector_dim=1, to_apply=add",
		"g = f32[4,8,16] gather(op, idx), offset_dims={1,1}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={8,16}",
		"g = f32[4,16] gather(op, idx), offset_dims={1}, collapsed_slice_dims={0,0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,16}",
	} {
		src := `HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  op = f32[8,16] parameter(0)
  idx = s32[4,1] parameter(1)
  upd = f32[4,8,16] parameter(2)
  ROOT ` + root + `
}
ENTRY e {
  p0 = f32[8,16] parameter(0)
  p1 = s32[4,1] parameter(1)
  p2 = f32[4,8,16] parameter(2)
  ROOT f = ` + strings.Fields(root)[2] + ` fusion(p0, p1, p2), kind=kLoop, calls=fused
}`
		m, err := hlo.ParseString(src)
		require.NoError(t, err, root)
		for _, in := range []*hlo.Instruction{m.Computation("fused").Root, m.Entry.Root} {
			var err error
			require.NotPanics(t, func() { _, err = ComputeOutputToInput(in, 0) }, root)
			if assert.Error(t, err, root) {
				assert.Contains(t, err.Error(), "dimension numbers consistent with", root)
			}
		}
	}
}

// TestBitcastMatchesMemory checks bitcast maps against memory: for random
// layouts, the element the output-to-input map names must sit at the same
// linear offset in the operand as the output element in the result.
func TestBitcastMatchesMemory(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	layouts := func(rank int) []int64 {
		p := r.Perm(rank)
		out := make([]int64, rank)
		for i, v := range p {
			out[i] = int64(v)
		}
		return out
	}
	shapes := [][]int64{{4, 6}, {2, 3, 4}, {24}, {6, 4}, {3, 8}, {2, 12}, {1, 24, 1}}
	for range 60 {
		a, b := shapes[r.IntN(len(shapes))], shapes[r.IntN(len(shapes))]
		from := hlo.MakeShapeWithLayout(hlo.F32, a, layouts(len(a)))
		to := hlo.MakeShapeWithLayout(hlo.F32, b, layouts(len(b)))
		m, err := bitcastMap(to, from)
		require.NoError(t, err)
		toOff, fromOff := LinearOffsetMap(to), LinearOffsetMap(from)
		for lin := range int64(24) {
			idx := make([]int64, len(b))
			rem := lin
			for i := len(b) - 1; i >= 0; i-- {
				idx[i] = rem % b[i]
				rem /= b[i]
			}
			src := m.Evaluate(idx, nil, nil)
			assert.Equal(t, toOff.Evaluate(idx, nil, nil), fromOff.Evaluate(src, nil, nil),
				"bitcast %s -> %s at %v: %s", from, to, idx, m)
		}
	}
}

// TestConvolutionMaps checks a padded, strided, dilated convolution against
// XLA's indexing_analysis_test vector shape and the feature-group split.
func TestConvolutionMaps(t *testing.T) {
	in := parseEntry(t, `HloModule m
ENTRY e {
  p0 = f32[1,12,10,4] parameter(0)
  p1 = f32[3,5,4,8] parameter(1)
  ROOT conv = f32[1,10,6,8] convolution(p0, p1), window={size=3x5 pad=1_1x2_2}, dim_labels=b01f_01io->b01f
}`, "conv")
	h, err := ComputeOutputToInput(in, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"(d0, d1, d2, d3)[s0, s1, s2] -> (0, d1 + s0 - 1, d2 + s1 - 2, s2), domain: " +
		"d0 in [0, 0], d1 in [0, 9], d2 in [0, 5], d3 in [0, 7], s0 in [0, 2], s1 in [0, 4], s2 in [0, 3], " +
		"d1 + s0 in [1, 12], d2 + s1 in [2, 11]"}, oneLine(h.Maps[0]))
	assert.Equal(t, []string{"(d0, d1, d2, d3)[s0, s1, s2] -> (s0, s1, s2, d3), domain: " +
		"d0 in [0, 0], d1 in [0, 9], d2 in [0, 5], d3 in [0, 7], s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]"}, oneLine(h.Maps[1]))
}

// TestPassDeterministic runs the indexing pass over the corpus modules with
// fusions with one and with four jobs: the JSON must be byte-identical, and
// every instruction must have maps.
func TestPassDeterministic(t *testing.T) {
	dir := hlotest.CorpusDir(t)
	for _, name := range []string{"maxtext__reference_hlo_llama3_8b.hlo", "xla-emitters-loop__tuple_nested.hlo"} {
		for _, cm := range hlotest.ParseModules(t, filepath.Join(dir, name)) {
			m := cm.Module
			var outs [2]bytes.Buffer
			for i, jobs := range []int{1, 4} {
				pl, err := passes.NewPipeline([]*passes.Pass{Pass}, passes.Options{Jobs: jobs})
				require.NoError(t, err)
				res, err := pl.Run(context.Background(), m)
				require.NoError(t, err, name)
				require.NoError(t, render.WriteJSON(&outs[i], res, render.JSONOptions{}))
				r, ok := passes.ResultOf[*Result](res, Pass)
				require.True(t, ok)
				for _, c := range m.Computations {
					for _, in := range c.Instructions {
						assert.NotNil(t, r.Of(in), "%s/%s", c.Name, in.Name)
					}
				}
				if jobs == 1 && m.Entry != nil { // a truncated dump may have lost its entry
					// A stale Index hint still finds the instruction's maps.
					in := m.Entry.Instructions[len(m.Entry.Instructions)-1]
					want, index := r.Of(in), in.Index
					in.Index = 0
					assert.Same(t, want, r.Of(in))
					in.Index = index
					assert.Nil(t, r.Of(&hlo.Instruction{Name: "stranger", Parent: m.Entry}))
				}
			}
			assert.True(t, bytes.Equal(outs[0].Bytes(), outs[1].Bytes()), "%s: JSON differs between 1 and 4 jobs", name)
		}
	}
}

func TestCompareMapsIsTotal(t *testing.T) {
	texts := []string{
		"(d0) -> (d0), domain: d0 in [0, 3]",
		"(d0) -> (d0), domain: d0 in [0, 4]",
		"(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 1]",
		"(d0) -> (d0 floordiv 2), domain: d0 in [0, 3], d0 mod 2 in [0, 0]",
		"(d0) -> (d0 floordiv 2), domain: d0 in [0, 3]",
	}
	var ms []*IndexingMap
	for _, s := range texts {
		m, err := ParseIndexingMap(s)
		require.NoError(t, err)
		ms = append(ms, m)
	}
	ms = append(ms, Undefined())
	for _, a := range ms {
		for _, b := range ms {
			assert.Equal(t, a.Equal(b), CompareMaps(a, b) == 0, "%s vs %s", a, b)
			assert.Equal(t, CompareMaps(a, b), -CompareMaps(b, a), "%s vs %s", a, b)
		}
	}
	sorted := slices.Clone(ms)
	slices.SortFunc(sorted, CompareMaps)
	var set []*IndexingMap
	for _, m := range append(ms, ms...) {
		set = insertMap(set, m)
	}
	assert.Equal(t, len(ms), len(set))
	assert.Equal(t, fmt.Sprint(sorted), fmt.Sprint(set))
}

// The maps a computation's instructions keep share the equal ones: the
// identity of an elementwise op's shape is one value each way, for every
// operand and every instruction of that shape; maps that differ, or print
// differently, stay apart.
func TestComputationMapsShareEqualMaps(t *testing.T) {
	m, err := hlo.ParseString(`HloModule m
ENTRY e {
  p0 = f32[4,8]{1,0} parameter(0)
  p1 = f32[4,8]{1,0} parameter(1)
  a = f32[4,8]{1,0} add(p0, p1)
  n = f32[4,8]{1,0} negate(a)
  t = f32[8,4]{1,0} transpose(n), dimensions={1,0}
  ROOT b = f32[8,4]{1,0} multiply(t, t)
}`)
	require.NoError(t, err)
	maps, err := computationMaps(m.Entry)
	require.NoError(t, err)
	byName := map[string]*InstructionMaps{}
	for i, in := range m.Entry.Instructions {
		byName[in.Name] = maps[i]
	}
	id48 := byName["a"].OutputToInput[0].Maps[0]
	assert.Equal(t, "(d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 7]", id48.String())
	for _, name := range []string{"a", "n"} {
		for _, sets := range [][]OperandMaps{byName[name].OutputToInput, byName[name].InputToOutput} {
			for _, s := range sets {
				assert.Same(t, id48, s.Maps[0], "%s: operand %d", name, s.Operand)
			}
		}
	}
	tr := byName["t"]
	assert.Equal(t, "(d0, d1) -> (d1, d0), domain: d0 in [0, 7], d1 in [0, 3]", tr.OutputToInput[0].Maps[0].String())
	assert.Equal(t, "(d0, d1) -> (d1, d0), domain: d0 in [0, 3], d1 in [0, 7]", tr.InputToOutput[0].Maps[0].String())
	id84 := byName["b"].OutputToInput[0].Maps[0]
	assert.NotSame(t, id48, id84, "another shape's identity")
	assert.Same(t, id84, byName["b"].InputToOutput[1].Maps[0])
}
