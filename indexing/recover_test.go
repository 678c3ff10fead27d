package indexing

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRecoverReturnsConstructorPanics(t *testing.T) {
	build := func(f func()) (err error) {
		defer Recover(&err)
		f()
		return nil
	}
	err := build(func() { FloorDiv(Dim(0), 0) })
	require.Error(t, err)
	assert.Equal(t, "indexing: floordiv by zero", err.Error())
	assert.True(t, errors.As(err, new(ArithmeticError)))
	assert.EqualError(t, build(func() { Mod(Dim(0), -2) }), "indexing: mod by non-positive -2")
	assert.EqualError(t, build(func() { CeilDiv(Dim(0), 0) }), "indexing: ceildiv by zero")
	err = build(func() { Mul(Const(math.MaxInt64), 2) })
	assert.True(t, errors.As(err, new(OverflowError)), "got %v", err)
	assert.NoError(t, build(func() { FloorDiv(Dim(0), 2) }))
	assert.Panics(t, func() { _ = build(func() { panic("other") }) }, "other panics go on")
}
