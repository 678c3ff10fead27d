package passes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// chainModule parses an entry computation of n negates.
func chainModule(t *testing.T, n int) *hlo.Module {
	t.Helper()
	var b strings.Builder
	b.WriteString("HloModule chain\n\nENTRY main {\n  p = f32[4] parameter(0)\n")
	prev := "p"
	for i := range n {
		fmt.Fprintf(&b, "  n%d = f32[4] negate(%s)\n", i, prev)
		prev = fmt.Sprintf("n%d", i)
	}
	b.WriteString("}\n")
	m, err := hlo.Parse([]byte(b.String()))
	require.NoError(t, err)
	return m
}

// TestVerifyFindsDuplicateNames renames instructions of small and large
// computations (names are compared directly or through a hash set) to
// names used before, and expects exactly those to be reported.
func TestVerifyFindsDuplicateNames(t *testing.T) {
	for _, n := range []int{3, smallNames, smallNames + 1, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			m := chainModule(t, n)
			ins := m.Entry.Instructions
			dups := map[string]bool{}
			for k := 2; k < len(ins); k += 7 {
				ins[k].Name = ins[k/2].Name
				dups[ins[k].Name+"@"+fmt.Sprint(k)] = true
			}
			pl, err := NewPipeline([]*Pass{Verify}, Options{Jobs: 2})
			require.NoError(t, err)
			_, err = pl.Run(context.Background(), m)
			var l ErrorList
			require.True(t, errors.As(err, &l), "got %v", err)
			got := map[string]bool{}
			for _, e := range l {
				if strings.HasPrefix(e.Msg, "duplicate instruction name") {
					got[e.Instruction+"@"+fmt.Sprint(e.instr)] = true
				}
			}
			assert.Equal(t, dups, got)
		})
	}
}

// TestStatsCountsManyOpcodes gives a computation more distinct opcodes than
// the counting table holds before it spills into a map, and compares the
// counts with a direct count.
func TestStatsCountsManyOpcodes(t *testing.T) {
	for _, distinct := range []int{1, 47, 48, 49, 200} {
		t.Run(fmt.Sprint(distinct), func(t *testing.T) {
			m := chainModule(t, 500)
			want := map[string]int{}
			for k, in := range m.Entry.Instructions {
				if k > 0 {
					in.Opcode = hlo.Opcode(fmt.Sprintf("op%d", k%distinct))
				}
				want[string(in.Opcode)]++
			}
			pl, err := NewPipeline([]*Pass{Stats}, Options{Jobs: 1})
			require.NoError(t, err)
			res, err := pl.Run(context.Background(), m)
			require.NoError(t, err)
			st, ok := ResultOf[*StatsResult](res, Stats)
			require.True(t, ok)
			cs := st.Of(m.Entry)
			assert.Equal(t, want, cs.ByOpcode.Map())
			assert.Equal(t, want, st.Module.ByOpcode)
			assert.Equal(t, map[string]int{}, cs.Fusions.Map())
			assert.Equal(t, want["op1"], cs.ByOpcode.Get("op1"))
			assert.Zero(t, cs.ByOpcode.Get("no-such-op"))
			// In JSON the counts are the bytes of the map they hold.
			got, err := json.Marshal(cs)
			require.NoError(t, err)
			viaMap, err := json.Marshal(map[string]any{
				"instructions": cs.Instructions, "fused_instructions": cs.FusedInstructions,
				"by_opcode": cs.ByOpcode.Map(), "fusions": cs.Fusions.Map(),
				"parameter_bytes": cs.ParameterBytes, "output_bytes": cs.OutputBytes})
			require.NoError(t, err)
			assert.JSONEq(t, string(viaMap), string(got))
			byOp, err := json.Marshal(cs.ByOpcode)
			require.NoError(t, err)
			wantOp, err := json.Marshal(want)
			require.NoError(t, err)
			assert.Equal(t, string(wantOp), string(byOp))
			assert.Contains(t, string(got), `"fusions":{}`)
		})
	}
}

// TestLookupOp checks the verifier's view of hlo.Info.
func TestLookupOp(t *testing.T) {
	assert.Equal(t, opInfo{arity: 2, elementwise: true}, lookupOp("add"))
	assert.Equal(t, opInfo{arity: 1, elementwise: true}, lookupOp(hlo.Opcode(strings.Clone("count-leading-zeros"))))
	assert.Equal(t, opInfo{arity: 1, elementwise: true}, lookupOp(hlo.OpBitcastConvert))
	assert.Equal(t, opInfo{arity: 2}, lookupOp(hlo.OpDot))
	assert.Equal(t, opInfo{arity: -1}, lookupOp(hlo.OpReduce))
	assert.Equal(t, opInfo{arity: -1}, lookupOp("no-such-op"))
}

// TestVerifyFindsDuplicateComputationNames renames computations to names
// used before and expects exactly those to be reported.
func TestVerifyFindsDuplicateComputationNames(t *testing.T) {
	var b strings.Builder
	b.WriteString("HloModule comps\n\n")
	for i := range 40 {
		fmt.Fprintf(&b, "c%d {\n  p%d = f32[] parameter(0)\n}\n\n", i, i)
	}
	b.WriteString("ENTRY main {\n  p = f32[] parameter(0)\n}\n")
	m, err := hlo.Parse([]byte(b.String()))
	require.NoError(t, err)
	want := map[string]int{}
	for k := 3; k < 40; k += 5 {
		m.Computations[k].Name = m.Computations[k/3].Name
		want[m.Computations[k].Name]++
	}
	pl, err := NewPipeline([]*Pass{Verify}, Options{Jobs: 2})
	require.NoError(t, err)
	_, err = pl.Run(context.Background(), m)
	var l ErrorList
	require.True(t, errors.As(err, &l), "got %v", err)
	got := map[string]int{}
	for _, e := range l {
		if name, ok := strings.CutPrefix(e.Msg, "duplicate computation name "); ok {
			got[name]++
		}
	}
	assert.Equal(t, want, got)
}

// TestStatsShareEqualComputations runs stats over reducers that count the
// same, and one that does not: equal ones share their *ComputationStats
// (one job, so one worker saw them all), and the results are the same for
// any number of jobs.
func TestStatsShareEqualComputations(t *testing.T) {
	const text = `HloModule reducers

add0 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

add1 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT t = f32[] add(x, y)
}

max0 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

add2 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p = f32[8] parameter(0)
  z = f32[] constant(0)
  r0 = f32[] reduce(p, z), dimensions={0}, to_apply=add0
  r1 = f32[] reduce(p, z), dimensions={0}, to_apply=add1
  r2 = f32[] reduce(p, z), dimensions={0}, to_apply=max0
  r3 = f32[] reduce(p, z), dimensions={0}, to_apply=add2
  ROOT t = (f32[], f32[], f32[], f32[]) tuple(r0, r1, r2, r3)
}
`
	m, err := hlo.Parse([]byte(text))
	require.NoError(t, err)
	var first []byte
	for _, jobs := range []int{1, 2, 4} {
		pl, err := NewPipeline([]*Pass{Stats}, Options{Jobs: jobs})
		require.NoError(t, err)
		res, err := pl.Run(context.Background(), m)
		require.NoError(t, err)
		st, ok := ResultOf[*StatsResult](res, Stats)
		require.True(t, ok)
		add0, add1, max0, add2 := st.Of(m.Computations[0]), st.Of(m.Computations[1]), st.Of(m.Computations[2]), st.Of(m.Computations[3])
		assert.Equal(t, map[string]int{"parameter": 2, "add": 1}, add0.ByOpcode.Map())
		assert.Equal(t, map[string]int{"parameter": 2, "maximum": 1}, max0.ByOpcode.Map())
		assert.Equal(t, *add0, *add1)
		assert.Equal(t, *add0, *add2)
		if jobs == 1 {
			assert.Same(t, add0, add1)
			assert.Same(t, add0, add2)
		}
		assert.Equal(t, 4*3+7, st.Module.Instructions, "module totals count every computation")
		assert.Equal(t, 3, st.Module.ByOpcode["add"])
		b, err := json.Marshal(st.Computations)
		require.NoError(t, err)
		if first == nil {
			first = b
		}
		assert.Equal(t, string(first), string(b), "jobs=%d", jobs)
	}
}
