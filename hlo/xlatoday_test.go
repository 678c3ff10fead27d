package hlo_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// TestXLATodayRoundTrip parses every module today's XLA printed for the
// programs of testdata/xla-today/gen and prints it back byte for byte; the
// long spelling (PrintOptions.Classic) parses to the same graph and prints
// stably.
func TestXLATodayRoundTrip(t *testing.T) {
	hlotest.RunXLATodayDumps(t, func(t *testing.T, d hlotest.XLAToday) {
		src := d.Src
		m, err := hlo.ParseFile(d.Name, src)
		require.NoError(t, err)
		assert.Equal(t, hlo.SpellingToday, m.Spelling)
		assert.Equal(t, string(src), m.String(), "today's spelling does not print back byte for byte")

		var b strings.Builder
		require.NoError(t, m.Print(&b, hlo.PrintOptions{Classic: true}))
		long := b.String()
		m2, err := hlo.ParseString(long)
		require.NoError(t, err)
		assert.Equal(t, hlo.SpellingClassic, m2.Spelling)
		assert.Equal(t, long, m2.String(), "the long spelling does not print back")
		assertSameGraph(t, m, m2)
	})
}

// assertSameGraph checks that a and b have the same computations, and in
// them the same instructions (names, opcodes, shapes, operands by name) in
// the same order.
func assertSameGraph(t *testing.T, a, b *hlo.Module) {
	t.Helper()
	require.Len(t, b.Computations, len(a.Computations))
	for i, ca := range a.Computations {
		cb := b.Computations[i]
		require.Equal(t, ca.Name, cb.Name)
		require.Len(t, cb.Instructions, len(ca.Instructions), "computation %s", ca.Name)
		for j, ia := range ca.Instructions {
			ib := cb.Instructions[j]
			assert.Equal(t, ia.Name, ib.Name)
			assert.Equal(t, ia.Opcode, ib.Opcode, ia.Name)
			assert.Equal(t, ia.Shape.String(), ib.Shape.String(), ia.Name)
			require.Len(t, ib.Operands, len(ia.Operands), ia.Name)
			for k, o := range ia.Operands {
				assert.Equal(t, o.Name, ib.Operands[k].Name, "%s operand %d", ia.Name, k)
			}
			assert.Equal(t, ia.Typed.TupleIndex, ib.Typed.TupleIndex, ia.Name)
		}
		assert.Equal(t, ca.Root.Name, cb.Root.Name)
	}
}

// TestXLATodayTupleElementsAsXLA checks the implicit get-tuple-elements
// made for "%t#k" against the ones XLA's own parser makes for the same
// dumps (testdata/xla-today/xla-get-tuple-elements.tsv, written by the
// generator with the pinned jaxlib): same computation, name, tuple and
// index, and in scheduled modules the same place (the instruction after
// it). Together with the round trip this checks that both spellings give
// XLA's graph.
func TestXLATodayTupleElementsAsXLA(t *testing.T) {
	tsv := hlotest.ReadTestdata(t, "xla-today", "xla-get-tuple-elements.tsv")
	modules := map[string]*hlo.Module{}
	want := map[string]int{} // implicit get-tuple-elements per file
	for _, line := range strings.Split(strings.TrimSpace(string(tsv)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		require.Len(t, f, 6, line)
		m := modules[f[0]]
		if m == nil {
			var err error
			m, err = hlo.ParseFile(f[0], hlotest.ReadTestdata(t, "xla-today", f[0]))
			require.NoError(t, err)
			modules[f[0]] = m
		}
		want[f[0]]++
		c := m.Computation(f[1])
		require.NotNil(t, c, line)
		i := slices.IndexFunc(c.Instructions, func(in *hlo.Instruction) bool { return in.Name == f[2] })
		require.GreaterOrEqual(t, i, 0, "no instruction %s: %s", f[2], line)
		gte := c.Instructions[i]
		assert.True(t, gte.Implicit, line)
		assert.Equal(t, hlo.OpGetTupleElement, gte.Opcode, line)
		require.Len(t, gte.Operands, 1, line)
		assert.Equal(t, f[3], gte.Operands[0].Name, line)
		assert.Equal(t, f[4], strconv.FormatInt(gte.Typed.TupleIndex, 10), line)
		if f[5] != "-" {
			require.Less(t, i+1, len(c.Instructions), line)
			assert.Equal(t, f[5], c.Instructions[i+1].Name, "instruction after %s", line)
		}
	}
	require.NotEmpty(t, want)
	for file, n := range want {
		got := 0
		for _, c := range modules[file].Computations {
			for _, in := range c.Instructions {
				if in.Implicit {
					got++
				}
			}
		}
		assert.Equal(t, n, got, "%s: implicit get-tuple-elements", file)
	}
}

// TestImplicitTupleElementUnfolds checks that an implicit get-tuple-element
// a pass changed (its layout, its users) prints as an instruction, and that
// the text then parses back to the same graph.
func TestImplicitTupleElementUnfolds(t *testing.T) {
	src := `HloModule m

ENTRY %e (p: (f32[4,8], f32[4])) -> (f32[4,8], f32[4,8]) {
  %p = (f32[4,8]{1,0}, f32[4]{0}) parameter(0)
  %n = f32[4,8]{1,0} negate(%p#0)
  %a = f32[4]{0} abs(%p#1)
  ROOT %t = (f32[4,8]{1,0}, f32[4,8]{1,0}) tuple(%n, %p#0)
}

`
	m, err := hlo.ParseString(src)
	require.NoError(t, err)
	require.Equal(t, src, m.String())
	e := m.Entry
	gte0, gte1 := e.Instructions[1], e.Instructions[3]
	require.True(t, gte0.Implicit && gte1.Implicit)
	assert.Equal(t, []string{"p", "p_0", "n", "p_1", "a", "t"}, names(e))

	gte0.Shape = hlo.MakeShapeWithLayout(hlo.F32, []int64{4, 8}, []int64{0, 1}) // a layout pass changed it
	e.Instructions[4].Operands[0] = e.Params[0]                                 // and %a no longer uses %p#1
	e.Instructions[4].Opcode, e.Instructions[4].Shape = hlo.OpCopy, e.Params[0].Shape
	out := m.String()
	assert.Contains(t, out, "  %p_0 = f32[4,8]{0,1} get-tuple-element(%p), index=0\n")
	assert.Contains(t, out, "  %p_1 = f32[4]{0} get-tuple-element(%p), index=1\n", "an implicit element without users stays")
	assert.Contains(t, out, "tuple(%n, %p_0)")
	m2, err := hlo.ParseString(out)
	require.NoError(t, err)
	assert.Equal(t, out, m2.String())
	assertSameGraph(t, m, m2)
}

func names(c *hlo.Computation) []string {
	var out []string
	for _, in := range c.Instructions {
		out = append(out, in.Name)
	}
	return out
}
