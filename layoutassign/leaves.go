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

// leafRange returns the number of the first leaf under path and how many
// leaves that subshape has.
func leafRange(s *hlo.Shape, path []int64) (first, n int, ok bool) {
	cur := s
	for _, i := range path {
		if !cur.IsTuple() || i < 0 || int(i) >= len(cur.Tuple) {
			return 0, 0, false
		}
		for k := range int(i) {
			first += leafCount(&cur.Tuple[k])
		}
		cur = &cur.Tuple[i]
	}
	return first, leafCount(cur), true
}
