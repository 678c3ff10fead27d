package indexing

import (
	"math"
)

// Interval is an inclusive range of integers [Lower, Upper]. An interval whose
// Lower exceeds its Upper is empty (infeasible).
type Interval struct {
	Lower, Upper int64
}

// Point returns the interval [v, v].
func Point(v int64) Interval { return Interval{v, v} }

// String prints the interval as XLA does, e.g. "[0, 9]".
func (i Interval) String() string {
	var b textBuf
	writeInterval(&b, i)
	return string(b)
}

// IsPoint reports whether the interval holds exactly one value.
func (i Interval) IsPoint() bool { return i.Lower == i.Upper }

// IsFeasible reports whether the interval holds at least one value.
func (i Interval) IsFeasible() bool { return i.Lower <= i.Upper }

// Contains reports whether v lies in the interval.
func (i Interval) Contains(v int64) bool { return i.Lower <= v && v <= i.Upper }

// ContainsInterval reports whether every value of o lies in i. An empty o is
// contained in every interval.
func (i Interval) ContainsInterval(o Interval) bool {
	return !o.IsFeasible() || (i.Lower <= o.Lower && o.Upper <= i.Upper)
}

// Size returns the number of values in the interval, 0 when it is empty.
func (i Interval) Size() int64 {
	if !i.IsFeasible() {
		return 0
	}
	return satAdd(satSub(i.Upper, i.Lower), 1)
}

// Intersect returns the values common to both intervals; it may be empty.
func (i Interval) Intersect(o Interval) Interval {
	return Interval{max(i.Lower, o.Lower), min(i.Upper, o.Upper)}
}

// Union returns the smallest interval that holds both intervals.
func (i Interval) Union(o Interval) Interval {
	if !i.IsFeasible() {
		return o
	}
	if !o.IsFeasible() {
		return i
	}
	return Interval{min(i.Lower, o.Lower), max(i.Upper, o.Upper)}
}

// Add returns the bounds of x + y for x in i and y in o.
func (i Interval) Add(o Interval) Interval {
	return Interval{satAdd(i.Lower, o.Lower), satAdd(i.Upper, o.Upper)}
}

// Mul returns the bounds of x * y for x in i and y in o.
func (i Interval) Mul(o Interval) Interval {
	a, b := satMul(i.Lower, o.Lower), satMul(i.Lower, o.Upper)
	c, d := satMul(i.Upper, o.Lower), satMul(i.Upper, o.Upper)
	return Interval{min(a, b, c, d), max(a, b, c, d)}
}

// Scale returns the bounds of x * c for x in i.
func (i Interval) Scale(c int64) Interval { return i.Mul(Point(c)) }

// FloorDiv returns the bounds of x floordiv d for x in i. d must not be 0.
func (i Interval) FloorDiv(d int64) Interval {
	a, b := floorDiv(i.Lower, d), floorDiv(i.Upper, d)
	return Interval{min(a, b), max(a, b)}
}

// CeilDiv returns the bounds of x ceildiv d for x in i. d must not be 0.
func (i Interval) CeilDiv(d int64) Interval {
	a, b := ceilDiv(i.Lower, d), ceilDiv(i.Upper, d)
	return Interval{min(a, b), max(a, b)}
}

// Mod returns the bounds of x mod m for x in i. m must be positive.
func (i Interval) Mod(m int64) Interval {
	if q := floorDiv(i.Lower, m); q == floorDiv(i.Upper, m) {
		return Interval{i.Lower - q*m, i.Upper - q*m}
	}
	return Interval{0, m - 1}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) == (b < 0)) {
		q++
	}
	return q
}

// floorMod returns a mod m in [0, m) for positive m.
func floorMod(a, m int64) int64 {
	r := a % m
	if r < 0 {
		r += m
	}
	return r
}

func gcd(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func satAdd(a, b int64) int64 {
	s := a + b
	if (s > a) == (b > 0) {
		return s
	}
	if b > 0 {
		return math.MaxInt64
	}
	return math.MinInt64
}

func satSub(a, b int64) int64 {
	if b == math.MinInt64 {
		if a >= 0 {
			return math.MaxInt64
		}
		return a - b
	}
	return satAdd(a, -b)
}

func satMul(a, b int64) int64 {
	p, ok := mulOK(a, b)
	if ok {
		return p
	}
	if (a < 0) != (b < 0) {
		return math.MinInt64
	}
	return math.MaxInt64
}

// mulOK returns a*b and whether it did not overflow.
func mulOK(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return p, true
}

// addOK returns a+b and whether it did not overflow.
func addOK(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0)
}
