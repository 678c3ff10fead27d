package layoutassign

import "github.com/hlo-opt/hlo-opt/hlo"

// Leaves of a shape are numbered in the order hlo.Shape.Leaves lists them
// (depth first); the leaves under a tuple index are consecutive.

// leafCount is the number of leaves of s (1 for an array or token).
func leafCount(s *hlo.Shape) int {
	if !s.IsTuple() {
		return 1
	}
	n := 0
	for i := range s.Tuple {
		n += leafCount(&s.Tuple[i])
	}
	return n
}

// leafIndex memoises, per tuple shape, the number of the first leaf of
// each element and, last, the shape's leaf count, so that finding a leaf
// by path costs the path's length, not the leaves before it.
type leafIndex map[*hlo.Shape][]int

func (x leafIndex) starts(s *hlo.Shape) []int {
	st, ok := x[s]
	if !ok {
		st = make([]int, len(s.Tuple)+1)
		for i := range s.Tuple {
			st[i+1] = st[i] + leafCount(&s.Tuple[i])
		}
		x[s] = st
	}
	return st
}

// leafRange returns the number of the first leaf of s under path and how
// many leaves that subshape has.
func (x leafIndex) leafRange(s *hlo.Shape, path []int64) (first, n int, ok bool) {
	cur := s
	for _, i := range path {
		if !cur.IsTuple() || i < 0 || int(i) >= len(cur.Tuple) {
			return 0, 0, false
		}
		first += x.starts(cur)[i]
		cur = &cur.Tuple[i]
	}
	if !cur.IsTuple() {
		return first, 1, true
	}
	st := x.starts(cur)
	return first, st[len(st)-1], true
}
