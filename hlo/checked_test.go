package hlo

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckedArithmetic(t *testing.T) {
	n, ok := MulInt64(1<<31, 1<<31)
	assert.True(t, ok)
	assert.Equal(t, int64(1<<62), n)
	_, ok = MulInt64(1<<32, 1<<31)
	assert.False(t, ok, "2^63 does not fit")
	_, ok = MulInt64(-1, 2)
	assert.False(t, ok)
	n, ok = AddInt64(math.MaxInt64-1, 1)
	assert.True(t, ok)
	assert.Equal(t, int64(math.MaxInt64), n)
	_, ok = AddInt64(math.MaxInt64, 1)
	assert.False(t, ok)
	n, ok = roundUpChecked(5, 4)
	assert.True(t, ok)
	assert.Equal(t, int64(8), n)
	_, ok = roundUpChecked(math.MaxInt64-1, 1024)
	assert.False(t, ok)
}

// Shapes whose size would overflow are positioned errors when parsed, and
// padded sizes that would overflow are errors, never wrong numbers.
func TestShapeSizeOverflow(t *testing.T) {
	for _, s := range []string{"f32[9223372036854775807,4]", "f32[4611686018427387904]", "s4[2305843009213693951]", "pred[2,4611686018427387904]"} {
		_, err := ParseShape(s)
		assert.ErrorContains(t, err, "expected an array whose size in bits fits in an int64, found", s)
	}
	_, err := ParseShape("f32[?,4611686018427387904]")
	assert.ErrorContains(t, err, "fits in an int64", "an unbounded dim counts as none")

	s, err := ParseShape("f32[9007199254740993,1]{1,0:T(8,128)}")
	require.NoError(t, err, "the data fits")
	_, err = PaddedBytes(s, SizeOptions{PredBytes: 1, PointerSize: 8})
	assert.ErrorIs(t, err, ErrOverflow, "the padding does not")
	_, err = Tiled(s)
	assert.NoError(t, err, "its element slots fit")
	s, err = ParseShape("f32[72057594037927935,1]{1,0:T(8,128)}")
	require.NoError(t, err)
	_, err = Tiled(s)
	assert.ErrorIs(t, err, ErrOverflow)
}
