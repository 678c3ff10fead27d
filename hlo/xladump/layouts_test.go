package xladump

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
)

func TestLayoutTally(t *testing.T) {
	ours, err := hlo.ParseString(`HloModule m
ENTRY e {
  p = f32[8,256]{1,0:T(8,128)} parameter(0), metadata={op_name="x"}
  t = f32[256,8]{1,0:T(8,128)} transpose(p), dimensions={1,0}, metadata={op_name="t"}
  ROOT n = f32[256,8]{0,1:T(8,128)} negate(t), metadata={op_name="n"}
}`)
	require.NoError(t, err)
	after, err := hlo.ParseString(`HloModule m
ENTRY e {
  p = f32[8,256]{1,0:T(8,128)S(1)} parameter(0), metadata={op_name="x"}
  t = f32[256,8]{1,0:T(8,128)} transpose(p), dimensions={1,0}, metadata={op_name="t"}
  n = f32[256,8]{1,0:T(8,128)} negate(t), metadata={op_name="n"}
  ROOT c = f32[256,8]{1,0:T(8,128)} copy(n)
}`)
	require.NoError(t, err)
	n := NewLayoutTally()
	n.Compare("case", ours, after)
	assert.Equal(t, 3, n.Arrays)
	assert.Equal(t, 1, n.Agree, "t")
	assert.Equal(t, 2, n.LayoutsEqual(), "t, and p in another memory space")
	assert.Equal(t, 1, n.Unmatched, "the copy XLA made")
	assert.Equal(t, map[string]int{"memory space S(1), ours S(0)": 1, "minor_to_major": 1}, n.Misses)
	require.Len(t, n.List, 2)
	for _, kind := range []string{"memory space S(1), ours S(0): case ", "minor_to_major: case "} {
		assert.True(t, slices.ContainsFunc(n.List, func(s string) bool { return strings.HasPrefix(s, kind) }), kind)
	}
	all := NewLayoutTally()
	all.Add(n)
	all.Add(n)
	assert.Equal(t, 6, all.Arrays)
	assert.Equal(t, 4, all.LayoutsEqual())
	assert.Len(t, all.List, 4)
}

// An array XLA printed without a layout sits in a computation XLA does not
// lay out: its scalar reducer's parameters are not set against our scalar
// parameters, which their keys (no op_name) would match.
func TestLayoutTallySkipsUnlaidArrays(t *testing.T) {
	ours, err := hlo.ParseString(`HloModule m
ENTRY e {
  p = f32[]{:T(128)} parameter(0)
  ROOT n = f32[]{:T(128)} negate(p), metadata={op_name="n"}
}`)
	require.NoError(t, err)
	after, err := hlo.ParseString(`HloModule m
%reduce_sub_computation (lhs: f32[], rhs: f32[]) -> f32[] {
  %lhs = f32[] parameter(0)
  %rhs = f32[] parameter(1)
  ROOT %add = f32[] add(%lhs, %rhs)
}
ENTRY e {
  p = f32[]{:T(128)} parameter(0)
  ROOT n = f32[]{:T(128)} negate(p), metadata={op_name="n"}
}`)
	require.NoError(t, err)
	n := NewLayoutTally()
	n.Compare("case", ours, after)
	assert.Equal(t, 2, n.Arrays, "p and n, not lhs, rhs or the add")
	assert.Equal(t, 2, n.Agree)
	assert.Empty(t, n.List)
}

// TestLayoutTallySkipsCopies: a copy of XLA's after-optimizations module
// was made by its layout assignment; the laid-out module's copies are ours,
// and the two would match by shape alone.
func TestLayoutTallySkipsCopies(t *testing.T) {
	ours, err := hlo.ParseString(`HloModule m
ENTRY e {
  p = f32[8,16]{1,0} parameter(0)
  n = f32[8,16]{1,0} negate(p), metadata={op_name="n"}
  ROOT copy.layout.1 = f32[8,16]{0,1} copy(n)
}`)
	require.NoError(t, err)
	after, err := hlo.ParseString(`HloModule m
ENTRY e {
  p = f32[8,16]{1,0} parameter(0)
  n = f32[8,16]{1,0} negate(p), metadata={op_name="n"}
  ROOT copy.3 = f32[8,16]{1,0} copy(n)
}`)
	require.NoError(t, err)
	n := NewLayoutTally()
	n.Compare("case", ours, after)
	assert.Equal(t, 2, n.Arrays, "p and n, not the copies")
	assert.Equal(t, 1, n.Unmatched)
	assert.Empty(t, n.List)
}
