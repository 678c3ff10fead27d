package layoutassign

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// TestSortOrder: sorts libtpu 0.0.52 pins in its second pass on the
// differential tester's seeds (its layout log): the sorted dim
// second-minor (minor from 128 on), the rest as pads least.
func TestSortOrder(t *testing.T) {
	for _, tc := range []struct {
		shape string
		dim   int64
		want  []int64
	}{
		{"f32[64,2]", 0, []int64{1, 0}},
		{"f32[7,4]", 0, []int64{1, 0}},
		{"s32[128,7]", 1, []int64{0, 1}},
		{"f32[130,513,3]", 0, []int64{0, 1, 2}},
		{"f32[3,32,1000]", 1, []int64{2, 1, 0}},
		{"f32[31,17,12]", 2, []int64{0, 2, 1}},
		{"f32[129,8,20]", 2, []int64{0, 2, 1}},
		{"f32[257,2,24,2]", 2, []int64{0, 2, 3, 1}},
		{"f32[24,2,130,4]", 1, []int64{2, 1, 3, 0}},
		{"bf16[12,17,127,8]", 3, []int64{2, 3, 1, 0}},
		{"bf16[64,100,7,3]", 1, []int64{0, 1, 3, 2}},
	} {
		s, err := hlo.ParseShape(tc.shape)
		require.NoError(t, err)
		assert.Equal(t, tc.want, sortOrder(s, tc.dim, TPU()), "%s along %d", tc.shape, tc.dim)
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

// TestSplitsArray: the sharding attributes of a partitioned module's
// parameters that split the array over devices (shardedOutputs).
func TestSplitsArray(t *testing.T) {
	for _, tc := range []struct {
		sharding string
		want     bool
	}{
		{"{mesh['x'=4], [{}, {}, {'x'}]}", true},
		{"{mesh['x'=4], [{'x'}]}", true},
		{"{mesh['x'=4], [{}, {}]}", false},
		{"{mesh['x'=4], replicated}", false},
		{"{mesh[], [{}, {}]}", false},
		{"{devices=[1,4]<=[4]}", true},
		{"{devices=[4,1]0,1,2,3}", true},
		{"{devices=[1,1,4]<=[4] last_tile_dim_replicate}", false},
		{"{devices=[2,1,2]<=[4] last_tile_dim_replicate}", true},
		{"{replicated}", false},
		{"{maximal device=0}", false},
	} {
		assert.Equal(t, tc.want, splitsArray(tc.sharding), tc.sharding)
	}
}
