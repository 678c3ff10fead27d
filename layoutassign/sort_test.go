package layoutassign

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// TestLeastPaddedOrder: the sort layouts of XLA's TPU compiles in the
// differential tester's seeds 1000-1039.
func TestLeastPaddedOrder(t *testing.T) {
	for shape, want := range map[string][]int64{
		"f32[128,7]":     {0, 1},
		"pred[130,33]":   {0, 1},
		"f32[130,513,3]": {1, 0, 2},
		"f32[33,1000,3]": {1, 0, 2},
		"bf16[257,255]":  {1, 0},
		"f32[31,48]":     {1, 0},
		"s8[9,24,513]":   {2, 1, 0},
	} {
		s, err := hlo.ParseShape(shape)
		require.NoError(t, err)
		assert.Equal(t, want, leastPaddedOrder(s, TPU()), shape)
	}
}

// TestSortTakesLeastPaddedLayout: Assign lays a TPU sort's operands out
// with the order that pads them least (an argsort along dim 0 of
// f32[128,7], as XLA's TPU compile does), and leaves GPU sorts alone.
func TestSortTakesLeastPaddedLayout(t *testing.T) {
	src := `HloModule m

lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT
}

ENTRY e {
  x = f32[128,7] parameter(0)
  i = s32[128,7] iota(), iota_dimension=0
  s = (f32[128,7], s32[128,7]) sort(x, i), dimensions={0}, to_apply=lt
  ROOT k = s32[128,7] get-tuple-element(s), index=1
}
`
	for target, want := range map[Target]string{TPU(): "{0,1:T(8,128)}", GPU(): "{1,0}"} {
		m, err := hlo.ParseString(src)
		require.NoError(t, err)
		_, err = Assign(m, Options{Target: target, Relayout: true, Logger: zap.NewNop()})
		require.NoError(t, err)
		sort := m.Entry.Instructions[2]
		require.Equal(t, hlo.OpSort, sort.Opcode)
		for _, l := range sort.Shape.Leaves() {
			assert.Equal(t, want, fmt.Sprint(l.Shape.Layout), "%s sort result %v", target, l.Index)
		}
	}
}
