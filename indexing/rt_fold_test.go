package indexing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFoldRTVars checks that offsets computed from constants and iotas
// become expressions of the output index, and that other offsets, or
// values past the clamp range, stay runtime variables.
func TestFoldRTVars(t *testing.T) {
	tests := []struct {
		name, hlo, want string
		operand         int
	}{
		{
			name: "constant through broadcast, negate and add",
			hlo: `HloModule m
ENTRY e {
  p0 = s32[100] parameter(0)
  c = s32[] constant(7)
  v = s32[2] constant({3, 4})
  one = s32[1] slice(v), slice={[1:2]}
  r = s32[] reshape(one)
  n = s32[] negate(c)
  off = s32[] add(r, n)
  m = s32[] multiply(off, r)
  ROOT ds = s32[10] dynamic-slice(p0, m), dynamic_slice_sizes={10}
}`,
			// (4 + -7) * 4 = -12 is below the clamp range: kept.
			want: "(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 9], rt0 in [0, 90]",
		},
		{
			name: "constant in range",
			hlo: `HloModule m
ENTRY e {
  p0 = s32[100] parameter(0)
  c = s32[] constant(5)
  b = s32[] bitcast(c)
  o = s32[] add(b, c)
  ROOT ds = s32[10] dynamic-slice(p0, o), dynamic_slice_sizes={10}
}`,
			want: "(d0) -> (d0 + 10), domain: d0 in [0, 9]",
		},
		{
			name: "parameter offset stays",
			hlo: `HloModule m
ENTRY e {
  p0 = s32[100] parameter(0)
  p1 = s32[] parameter(1)
  c = s32[] constant(5)
  o = s32[] add(p1, c)
  ROOT ds = s32[10] dynamic-slice(p0, o), dynamic_slice_sizes={10}
}`,
			want: "(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 9], rt0 in [0, 90]",
		},
		{
			name: "dynamic-update-slice reads the update in its window",
			hlo: `HloModule m
ENTRY e {
  p0 = s32[20] parameter(0)
  u = s32[5] parameter(1)
  c = s32[] constant(3)
  ROOT dus = s32[20] dynamic-update-slice(p0, u, c)
}`,
			operand: 1,
			want:    "(d0) -> (d0 - 3), domain: d0 in [0, 19], d0 - 3 in [0, 4]",
		},
		{
			name: "gather from an iota along the index vector",
			hlo: `HloModule m
ENTRY e {
  p0 = f32[33,76] parameter(0)
  iota = s64[42,2] iota(), iota_dimension=1
  ROOT g = f32[42,1,1] gather(p0, iota), offset_dims={1,2}, collapsed_slice_dims={},
    start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,1}
}`,
			want: "(d0, d1, d2) -> (d1, d2 + 1), domain: d0 in [0, 41], d1 in [0, 0], d2 in [0, 0]",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := rootOf(t, tc.hlo)
			h, err := ComputeOutputToInput(root, 0)
			require.NoError(t, err)
			require.Len(t, h.Maps[tc.operand], 1)
			want, err := ParseIndexingMap(tc.want)
			require.NoError(t, err)
			got := h.Maps[tc.operand][0]
			ok, why := equivalent(want, got)
			assert.True(t, ok, "%s: got %s (%s)", tc.want, got, why)
		})
	}
}

func TestIntegerLiteralAt(t *testing.T) {
	root := rootOf(t, `HloModule m
ENTRY e {
  ROOT c = s32[2,3] constant({ {1, 2, 3}, {4, -5, 6} })
}`)
	v, ok := integerLiteralAt(root, []int64{1, 1})
	assert.True(t, ok)
	assert.Equal(t, int64(-5), v)
	_, ok = integerLiteralAt(root, []int64{2, 0})
	assert.False(t, ok, "out of bounds")
	f := rootOf(t, "HloModule m\nENTRY e {\n  ROOT c = f32[] constant(1.5)\n}")
	_, ok = integerLiteralAt(f, nil)
	assert.False(t, ok, "a float constant is no index")
}
