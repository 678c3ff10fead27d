package memdiff_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/cmd/hlo-opt/render/memdiff"
	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/layoutassign"
)

// step is a small scheduled program at batch b: an input, a temporary and
// the output; at batch 8 a second output, u, computed from the first.
func step(b int) string {
	root := "ROOT o = f32[%[1]d,1024]{1,0} negate(t)"
	if b == 8 {
		root = "o = f32[%[1]d,1024]{1,0} negate(t)\n  u = f32[%[1]d,1024]{1,0} dot(o, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  ROOT r = (f32[%[1]d,1024]{1,0}, f32[%[1]d,1024]{1,0}) tuple(o, u)"
	}
	return fmt.Sprintf(`HloModule step, is_scheduled=true

ENTRY main {
  x = f32[%[1]d,1024]{1,0} parameter(0)
  w = f32[1024,1024]{1,0} parameter(1)
  t = f32[%[1]d,1024]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  `+root+`
}
`, b)
}

func report(t testing.TB, src string) *layoutassign.MemoryReport {
	t.Helper()
	m, err := hlo.ParseString(src)
	require.NoError(t, err)
	mr, err := layoutassign.AnalyzeMemory(m, layoutassign.GPU())
	require.NoError(t, err)
	return mr
}

func TestCompare(t *testing.T) {
	a, b := report(t, step(2)), report(t, step(8))
	d := memdiff.Compare(memdiff.Side{Name: "b2", Memory: a}, memdiff.Side{Name: "b8", Memory: b})
	assert.Equal(t, memdiff.Change{A: a.XLAPeakBytes, B: b.XLAPeakBytes, Delta: b.XLAPeakBytes - a.XLAPeakBytes,
		Percent: float64(int64(1000*float64(b.XLAPeakBytes-a.XLAPeakBytes)/float64(a.XLAPeakBytes)+0.5)) / 10}, d.Peak)
	// Every buffer of batch 8 but w grows; u appears.
	names := map[string]memdiff.BufferChange{}
	for _, g := range d.Grew {
		names[g.Instruction] = g
	}
	assert.Contains(t, names, "x")
	assert.Contains(t, names, "o")
	require.Contains(t, names, "u")
	assert.Zero(t, names["u"].A, "u appears")
	assert.Empty(t, names["u"].ShapeA)
	assert.NotContains(t, names, "w", "the weights keep their size")
	assert.Equal(t, 0, d.Shrank)
	for _, c := range d.Classes {
		if c.Class == "parameter" {
			assert.Equal(t, int64(8*1024*4-2*1024*4), c.Delta, "x grew from 2 to 8 rows")
		}
	}
	assert.Nil(t, d.Time, "no estimate, no time")
	assert.True(t, d.Over(1), "the peak grew by 1.9%")
	assert.False(t, d.Over(2))
	back := memdiff.Compare(memdiff.Side{Name: "b8", Memory: b}, memdiff.Side{Name: "b2", Memory: a})
	assert.False(t, back.Over(0), "nothing grows the other way")
	assert.Equal(t, len(d.Grew), back.Shrank)
}

func TestWriters(t *testing.T) {
	a, b := report(t, step(2)), report(t, step(8))
	r := &memdiff.Report{A: "a.hlo", B: "b.hlo", Pairs: []memdiff.Diff{memdiff.Compare(memdiff.Side{Name: "a", Memory: a}, memdiff.Side{Name: "b", Memory: b})}}
	var text, js, page bytes.Buffer
	require.NoError(t, r.WriteText(&text))
	require.NoError(t, r.WriteJSON(&js))
	require.NoError(t, r.WriteHTML(&page))
	assert.Contains(t, text.String(), "== a -> b")
	assert.Contains(t, js.String(), `"only_a": []`)
	assert.True(t, strings.HasPrefix(page.String(), "<!DOCTYPE html>"))
	assert.Contains(t, page.String(), `id="grew-0"`)
}

// Example compares a step at batch 2 with the same step at batch 8, which
// has a second output (u, and the tuple r that holds both).
func Example() {
	parse := func(src string) *layoutassign.MemoryReport {
		m, err := hlo.ParseString(src)
		if err != nil {
			panic(err)
		}
		mr, err := layoutassign.AnalyzeMemory(m, layoutassign.GPU())
		if err != nil {
			panic(err)
		}
		return mr
	}
	d := memdiff.Compare(memdiff.Side{Name: "b2", Memory: parse(step(2))}, memdiff.Side{Name: "b8", Memory: parse(step(8))})
	fmt.Println("peak:", d.Peak)
	for _, g := range d.Grew {
		fmt.Println(g.Instruction, g.Change)
	}
	// Output:
	// peak: 4.02MiB -> 4.09MiB  +80.0KiB (+1.9%)
	// u 0B -> 32.0KiB  +32.0KiB (new)
	// o 8.0KiB -> 32.0KiB  +24.0KiB (+300.0%)
	// x 8.0KiB -> 32.0KiB  +24.0KiB (+300.0%)
	// r 0B -> 16B  +16B (new)
}
