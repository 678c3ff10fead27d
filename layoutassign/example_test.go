package layoutassign_test

import (
	"fmt"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/layoutassign"
)

// The entry parameter is fixed column-major; the transpose takes the
// layout that makes it free, and the small [4,3] array is costed with its
// compact (4,128) tile.
func ExampleAssign() {
	m, err := hlo.ParseString(`HloModule ex

ENTRY main {
  p = f32[128,256]{0,1} parameter(0)
  t = f32[256,128] transpose(p), dimensions={1,0}
  small = f32[4,3] parameter(1)
  ROOT r = (f32[256,128], f32[4,3]) tuple(t, small)
}
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := layoutassign.Assign(m, layoutassign.Options{Target: layoutassign.TPU()})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, in := range m.Entry.Instructions {
		fmt.Println(in.Name, in.Shape)
	}
	fmt.Println("free transposes:", res.FreeTransposes)
	mr, err := layoutassign.AnalyzeMemory(m, layoutassign.TPU())
	if err != nil {
		fmt.Println(err)
		return
	}
	c := mr.ArraysOf(m.Entry.Instructions[2])[0]
	fmt.Printf("small: %d bytes for %d (%.1fx, %s)\n", c.Bytes, c.Unpadded, c.Expansion, c.Rule)
	// Output:
	// p f32[128,256]{0,1:T(8,128)}
	// t f32[256,128]{1,0:T(8,128)}
	// small f32[4,3]{1,0:T(4,128)}
	// r (f32[256,128]{1,0:T(8,128)}, f32[4,3]{1,0:T(4,128)})
	// free transposes: [t]
	// small: 2048 bytes for 48 (42.7x, tpu-compact-4x128)
}

// DescribeShape is "hlo-opt shape-info": element (2,3) of tiled-layout.md's
// Figure 1 array is at position 17 in memory.
func ExampleDescribeShape() {
	s, _ := hlo.ParseShape("f32[3,5]{1,0:T(2,2)}")
	idx := []int64{2, 3}
	info, err := layoutassign.DescribeShape(s, layoutassign.TPU(), layoutassign.ShapeInfoOptions{Index: idx})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(info.Shape, info.Elements, info.Bytes, *info.LinearIndex)
	// Output: f32[3,5]{1,0:T(2,2)} 15 96 17
}
