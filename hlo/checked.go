package hlo

import (
	"errors"
	"math"
	"math/bits"
)

// ErrOverflow reports a size, count or index that int64 cannot hold.
var ErrOverflow = errors.New("overflows int64")

// MulInt64 returns a*b for non-negative a and b, and false when the
// product does not fit in an int64.
func MulInt64(a, b int64) (int64, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

// AddInt64 returns a+b for non-negative a and b, and false when the sum
// does not fit in an int64.
func AddInt64(a, b int64) (int64, bool) {
	if a < 0 || b < 0 || a > math.MaxInt64-b {
		return 0, false
	}
	return a + b, true
}

// roundUpChecked rounds n up to a multiple of align (> 0), false on
// overflow.
func roundUpChecked(n, align int64) (int64, bool) {
	q := n / align
	if n%align != 0 {
		q++
	}
	return MulInt64(q, align)
}
