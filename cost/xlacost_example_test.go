package cost_test

import (
	"fmt"

	"github.com/hlo-opt/hlo-opt/cost"
	"github.com/hlo-opt/hlo-opt/hlo"
)

// XLACost gives what compiled.cost_analysis() returns for a module: here
// one add (1024 flops) and one exp (1024 transcendentals), each reading
// and writing f32[8,128] arrays.
func ExampleXLACost() {
	m, err := hlo.ParseString(`HloModule m
ENTRY e {
  x = f32[8,128]{1,0} parameter(0)
  y = f32[8,128]{1,0} parameter(1)
  a = f32[8,128]{1,0} add(x, y)
  ROOT e = f32[8,128]{1,0} exponential(a)
}`)
	if err != nil {
		panic(err)
	}
	c := cost.XLACost(m, cost.XLATarget{Backend: cost.XLACPU})
	fmt.Println("module:", c.Module.Flops, c.Module.Transcendentals, c.Module.BytesAccessed)
	a := c.Of(m.Entry.Instructions[2])
	fmt.Println("add:", a.Flops, a.OperandBytes, a.OutputBytes)
	// Output:
	// module: 1024 1024 20480
	// add: 1024 [4096 4096] 4096
}

// On a TPU, arrays are counted with their tiles' padding and the time at
// the chip's rates is reported as optimal_seconds; InferXLABackend reads
// the backend off the layouts when the caller does not know it.
func ExampleInferXLABackend() {
	m, err := hlo.ParseString(`HloModule m
ENTRY e {
  x = f32[8,100]{1,0:T(8,128)} parameter(0)
  ROOT n = f32[8,100]{1,0:T(8,128)} negate(x)
}`)
	if err != nil {
		panic(err)
	}
	t, why := cost.InferXLABackend(m)
	fmt.Println(why)
	t.Device = "tpu-v5e"
	c := cost.XLACost(m, t)
	fmt.Printf("%v: flops %v, bytes accessed %v, optimal_seconds %.3g\n", t, c.Module.Flops, c.Module.BytesAccessed, c.Module.OptimalSeconds)
	// Output:
	// assumed tpu: x's layout has TPU tiles (f32[8,100]{1,0:T(8,128)})
	// tpu (tpu-v5e): flops 800, bytes accessed 8192, optimal_seconds 1.11e-08
}
