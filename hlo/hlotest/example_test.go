package hlotest_test

import (
	"fmt"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// Example builds a module with an operand cycle ("a" uses "c", which uses
// "a"), which HLO text cannot express.
func Example() {
	b := hlotest.NewBuilder("m")
	b.Entry("main")
	f32 := hlo.MakeShape(hlo.F32)
	p := b.Param("p", 0, f32)
	a := b.Add("a", "add", f32, p)
	c := b.Add("c", "negate", f32, a)
	a.Operands = append(a.Operands, c)
	m := b.Module()
	for _, in := range m.Entry.Instructions {
		fmt.Println(in.Index, in.Name, in.Opcode, len(in.Operands))
	}
	fmt.Println("root:", m.Entry.Root.Name)
	// Output:
	// 0 p parameter 0
	// 1 a add 2
	// 2 c negate 1
	// root: c
}

// ExampleLoopsModule prints the computations of the ready-made module
// and what the entry's instructions call.
func ExampleLoopsModule() {
	m, _ := hlotest.LoopsModule()
	names := make([]string, len(m.Computations))
	for i, c := range m.Computations {
		names[i] = c.Name
	}
	fmt.Println(strings.Join(names, " "))
	for _, in := range m.Entry.Instructions {
		for _, c := range in.Called {
			fmt.Println(in.Name, "->", c.Name)
		}
	}
	// Output:
	// main sum cond body fused br0 br1
	// red -> sum
	// loop -> cond
	// loop -> body
	// fus -> fused
	// cnd -> br0
	// cnd -> br1
}
