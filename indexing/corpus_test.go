package indexing

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// corpusDir finds ../shared/corpus next to the repository root (the
// directory holding go.mod), or returns "".
func corpusDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	require.NoError(tb, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			c := filepath.Join(dir, "..", "shared", "corpus")
			if st, err := os.Stat(c); err == nil && st.IsDir() {
				return c
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// corpusModules parses every module of every corpus file (split at
// "// -----"), skipping the test when the corpus is absent.
func corpusModules(tb testing.TB) map[string][]*hlo.Module {
	dir := corpusDir(tb)
	if dir == "" {
		tb.Skip("corpus ../shared/corpus not found")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.hlo"))
	require.NoError(tb, err)
	require.NotEmpty(tb, files)
	out := map[string][]*hlo.Module{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(tb, err)
		for _, ch := range hlo.SplitInputFile(src) {
			m, err := hlo.ParseChunk(f, ch)
			if err != nil && !strings.Contains(string(ch.Src), "HloModule") && !strings.Contains(string(ch.Src), "ENTRY") {
				continue // a chunk of comments or a non-HLO fragment
			}
			require.NoError(tb, err, "%s chunk at line %d", f, ch.Line)
			out[filepath.Base(f)] = append(out[filepath.Base(f)], m)
		}
	}
	return out
}

// TestCorpusMaps computes every map of every instruction of every corpus
// module (fused computations included): none may fail, every defined map
// must have as many results as the operand (output to input) or result
// (input to output) has dims, and as many dims as the source.
func TestCorpusMaps(t *testing.T) {
	mods := corpusModules(t)
	undefined := map[string]int{}
	instrs, sets := 0, 0
	for _, name := range slices.Sorted(maps.Keys(mods)) {
		t.Run(name, func(t *testing.T) {
			for _, m := range mods[name] {
				for _, c := range m.Computations {
					for _, in := range c.Instructions {
						im, err := ComputeInstructionMaps(in)
						require.NoError(t, err, "%s/%s", c.Name, in.Name)
						instrs++
						for _, s := range im.OutputToInput {
							sets++
							checkRanks(t, in, s.Maps, resultDims(in, s.Output), in.Operands[s.Operand].Shape, &undefined)
						}
						for _, s := range im.InputToOutput {
							sets++
							src := in.Operands[s.Operand].Shape
							dst, _ := outputShape(in, s.Output)
							checkRanks(t, in, s.Maps, src, dst, &undefined)
						}
					}
				}
			}
		})
	}
	t.Logf("%d instructions, %d map sets; undefined sets by opcode: %v", instrs, sets, undefined)
}

func resultDims(in *hlo.Instruction, k int) hlo.Shape {
	s, _ := outputShape(in, k)
	return s
}

func checkRanks(t *testing.T, in *hlo.Instruction, set []*IndexingMap, from, to hlo.Shape, undefined *map[string]int) {
	t.Helper()
	for _, m := range set {
		if m.IsUndefined() {
			(*undefined)[string(in.Opcode)]++
			continue
		}
		if from.IsArray() && !m.IsKnownEmpty() {
			assert.Equal(t, from.Rank(), m.NumDims()+countRangeOnlyDims(m, from), "%s: %s dims of %s", in.Name, in.Opcode, m)
		}
		if to.IsArray() && !(to.Rank() > 0 && m.NumResults() == 0) {
			assert.Equal(t, to.Rank(), m.NumResults(), "%s: %s results of %s", in.Name, in.Opcode, m)
			checkInBounds(t, in, m, to)
		}
	}
}

// countRangeOnlyDims is the rank of a scalar-source map written with range
// variables only (()[s0, ...] -> (...)), which has no dims.
func countRangeOnlyDims(m *IndexingMap, from hlo.Shape) int {
	if m.NumDims() == 0 {
		return from.Rank()
	}
	return 0
}

// checkInBounds evaluates a map without runtime variables at the corners
// where all variables are at their lower or all at their upper bounds, and
// at the middle; where the point is in the domain, every result must index
// into the target shape.
func checkInBounds(t *testing.T, in *hlo.Instruction, m *IndexingMap, to hlo.Shape) {
	t.Helper()
	if m.NumRTVars() > 0 || m.IsKnownEmpty() || m.NumResults() != to.Rank() {
		return
	}
	pick := func(vars []Variable, f func(Interval) int64) []int64 {
		out := make([]int64, len(vars))
		for i, v := range vars {
			out[i] = f(v.Bounds)
		}
		return out
	}
	for _, f := range []func(Interval) int64{
		func(b Interval) int64 { return b.Lower },
		func(b Interval) int64 { return b.Upper },
		func(b Interval) int64 { return (b.Lower + b.Upper) / 2 },
	} {
		d, s := pick(m.Dims(), f), pick(m.RangeVars(), f)
		if !m.Contains(d, s, nil) {
			continue
		}
		for i, v := range m.Evaluate(d, s, nil) {
			assert.True(t, v >= 0 && v < to.Dims[i], "%s: %s map %s at %v%v gives %d outside [0, %d)",
				in.Name, in.Opcode, m, d, s, v, to.Dims[i])
		}
	}
}
