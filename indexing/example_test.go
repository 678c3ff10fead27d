package indexing_test

import (
	"fmt"

	"github.com/hlo-opt/hlo-opt/hlo"
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

func ExampleComputeOutputToInput() {
	m, err := hlo.ParseString(`HloModule m
ENTRY e {
  p0 = f32[10, 20, 50] parameter(0)
  ROOT slice = f32[5, 3, 25] slice(p0), slice={[5:10:1], [3:20:7], [0:50:2]}
}`)
	if err != nil {
		panic(err)
	}
	h, err := indexing.ComputeOutputToInput(m.Entry.Root, 0)
	if err != nil {
		panic(err)
	}
	fmt.Print(h)
	// Output:
	// operand id = 0
	// (d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2),
	// domain:
	// d0 in [0, 4],
	// d1 in [0, 2],
	// d2 in [0, 24]
}

func ExamplePhysicalMap() {
	s, err := hlo.ParseShape("f32[3,5]{1,0:T(2,2)}")
	if err != nil {
		panic(err)
	}
	pm := indexing.PhysicalMap(s)
	fmt.Println(pm.Evaluate([]int64{2, 3}, nil, nil))
	fmt.Println(indexing.LinearOffsetMap(s))
	// Output:
	// [17]
	// (d0, d1) -> (d0 * 5 + d1), domain: d0 in [0, 2], d1 in [0, 4]
}

// A symbol constrained to multiples of 6 is rescaled to count them; the
// constraint on the product of two symbols (non-affine) follows.
func ExampleIndexingMap_RescaleSymbols() {
	m, err := indexing.ParseIndexingMap("(d0)[s0, s1] -> (d0, s0), domain: d0 in [0, 3], s0 in [0, 9], s1 in [0, 5], " +
		"s0 * s1 in [0, 28], s0 mod 6 in [3, 3]")
	if err != nil {
		panic(err)
	}
	rescaled, changed := m.RescaleSymbols()
	fmt.Println(changed, rescaled)
	// Output: true (d0)[s0, s1] -> (d0, s0 * 6 + 3), domain: d0 in [0, 3], s0 in [0, 1], s1 in [0, 5], (s0 * 6 + 3) * s1 in [0, 28]
}

// Variables no result uses go, with the constraints only they appear in.
func ExampleIndexingMap_RemoveUnusedVars() {
	m, err := indexing.ParseIndexingMap("(d0, d1)[s0, s1] -> (d1 + s1), domain: d0 in [0, 3], d1 in [0, 7], " +
		"s0 in [0, 1], s1 in [0, 2], d0 + s0 in [1, 3]")
	if err != nil {
		panic(err)
	}
	out, removed := m.RemoveUnusedVars()
	fmt.Println(out)
	fmt.Println(removed)
	// Output:
	// (d0)[s0] -> (d0 + s0), domain: d0 in [0, 7], s0 in [0, 2]
	// [true false true false]
}
