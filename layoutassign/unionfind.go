package layoutassign

// unionFind is a union-find forest over 0..n-1: u[x] is x's parent, x
// itself for a root. Layout assignment joins values into layout classes
// with one, liveness values into buffers with another.
type unionFind[T int | int32] []T

func newUnionFind[T int | int32](n int) unionFind[T] {
	u := make(unionFind[T], n)
	for i := range u {
		u[i] = T(i)
	}
	return u
}

// find returns the root of x, halving the path to it.
func (u unionFind[T]) find(x T) T {
	for u[x] != x {
		u[x] = u[u[x]]
		x = u[x]
	}
	return x
}
