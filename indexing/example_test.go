package indexing_test

import (
	"fmt"

	"github.com/hlo-opt/hlo-opt/indexing"
)

// Reshaping f32[10,10,10] to f32[50,20] and back composes to the identity
// once the composed map is simplified.
func ExampleCompose() {
	toInput2, _ := indexing.ParseIndexingMap("(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 20, " +
		"(d0 * 100 + d1 * 10 + d2) mod 20), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]")
	toInput1, _ := indexing.ParseIndexingMap("(d0, d1) -> ((d0 * 20 + d1) floordiv 100, " +
		"((d0 * 20 + d1) mod 100) floordiv 10, d1 mod 10), domain: d0 in [0, 49], d1 in [0, 19]")
	composed, err := indexing.Compose(toInput2, toInput1)
	if err != nil {
		panic(err)
	}
	fmt.Println(composed.Simplify().MultiLineString())
	// Output:
	// (d0, d1, d2) -> (d0, d1, d2),
	// domain:
	// d0 in [0, 9],
	// d1 in [0, 9],
	// d2 in [0, 9]
}

func ExampleSimplifyLine() {
	out, err := indexing.SimplifyLine("(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]")
	if err != nil {
		panic(err)
	}
	fmt.Println(out)
	// Output: (d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 14]
}

// Per-op maps are built from expressions and bounds: here the output to
// input map of collapsing f32[4,8] to f32[32].
func ExampleNewIndexingMap() {
	d0 := indexing.Dim(0)
	m, err := indexing.NewIndexingMap(indexing.VarsFromSizes([]int64{32}), nil, nil,
		[]*indexing.Expr{indexing.FloorDiv(d0, 8), indexing.Mod(d0, 8)})
	if err != nil {
		panic(err)
	}
	fmt.Println(m)
	// Output: (d0) -> (d0 floordiv 8, d0 mod 8), domain: d0 in [0, 31]
}
