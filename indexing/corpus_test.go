package indexing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// TestCorpusMaps computes every map of every instruction of every corpus
// module (fused computations included): none may fail, every defined map
// must have as many results as the operand (output to input) or result
// (input to output) has dims, and as many dims as the source.
func TestCorpusMaps(t *testing.T) {
	undefined := map[string]int{}
	instrs, sets := 0, 0
	hlotest.RunCorpusFiles(t, func(t *testing.T, f string) {
		for _, cm := range hlotest.ParseModules(t, f) {
			m := cm.Module
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
