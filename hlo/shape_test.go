package hlo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShapeLeaves: the leaves in order with their paths, each pointing
// into the shape (its Subshape), an array its own leaf.
func TestShapeLeaves(t *testing.T) {
	s, err := ParseShape("(f32[2]{0}, (s32[], pred[3]{0}), token[], ())")
	require.NoError(t, err)
	leaves := s.Leaves()
	var paths [][]int64
	for _, l := range leaves {
		paths = append(paths, l.Index)
		sub, ok := s.Subshape(l.Index)
		require.True(t, ok, "%v", l.Index)
		assert.Same(t, sub, l.Shape, "%v", l.Index)
	}
	assert.Equal(t, [][]int64{{0}, {1, 0}, {1, 1}, {2}}, paths)

	a, err := ParseShape("f32[8,128]{1,0}")
	require.NoError(t, err)
	leaves = a.Leaves()
	require.Len(t, leaves, 1)
	assert.Empty(t, leaves[0].Index)
	assert.Same(t, &a, leaves[0].Shape, "an array is its own leaf")
	leaves[0].Shape.Layout = &Layout{MinorToMajor: []int64{0, 1}}
	assert.Equal(t, "f32[8,128]{0,1}", a.String(), "a change through the leaf is the shape's")

	e, err := ParseShape("()")
	require.NoError(t, err)
	assert.Empty(t, e.Leaves())
}
