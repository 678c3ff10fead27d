package indexing

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestInterval(t *testing.T) {
	a, b := Interval{0, 9}, Interval{-3, 4}
	assert.Equal(t, "[0, 9]", a.String())
	assert.Equal(t, Interval{-3, 13}, a.Add(b))
	assert.Equal(t, Interval{-27, 36}, a.Mul(b))
	assert.Equal(t, Interval{-18, 0}, a.Scale(-2))
	assert.Equal(t, Interval{-1, 1}, b.FloorDiv(3))
	assert.Equal(t, Interval{-2, 1}, b.FloorDiv(-3), "a negative divisor swaps the ends")
	assert.Equal(t, Interval{-1, 2}, b.CeilDiv(3))
	assert.Equal(t, Interval{0, 4}, b.Mod(5), "wraps around")
	assert.Equal(t, Interval{2, 4}, Interval{12, 14}.Mod(5), "no wrap-around")
	assert.Equal(t, Interval{0, 4}, a.Intersect(b))
	assert.Equal(t, Interval{-3, 9}, a.Union(b))
	assert.Equal(t, a, a.Union(Interval{1, 0}), "empty intervals do not widen a union")
	assert.True(t, Point(3).IsPoint())
	assert.False(t, Interval{1, 0}.IsFeasible())
	assert.True(t, a.ContainsInterval(Interval{2, 3}))
	assert.False(t, a.ContainsInterval(b))
	assert.Equal(t, int64(10), a.Size())
	assert.Equal(t, int64(0), Interval{1, 0}.Size())
	assert.Equal(t, Interval{math.MaxInt64, math.MaxInt64}, Point(math.MaxInt64).Add(Point(1)), "saturates")
	assert.Equal(t, int64(math.MinInt64), Interval{-2, 2}.Scale(math.MaxInt64).Lower, "saturates")
}
