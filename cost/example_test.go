package cost_test

import (
	"fmt"

	"github.com/hlo-opt/hlo-opt/cost"
	"github.com/hlo-opt/hlo-opt/hlo"
)

// Analyze one fusion: its emitter, how it reads its operands and what it
// costs on an H100.
func Example() {
	m, err := hlo.ParseString(`HloModule m
fused {
  p0 = f32[1024,1024]{1,0} parameter(0)
  p1 = f32[1024,1024]{0,1} parameter(1)
  ROOT add = f32[1024,1024]{1,0} add(p0, p1)
}
ENTRY e {
  a = f32[1024,1024]{1,0} parameter(0)
  b = f32[1024,1024]{0,1} parameter(1)
  ROOT f = f32[1024,1024]{1,0} fusion(a, b), kind=kLoop, calls=fused
}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	h100, _ := cost.Preset("h100")
	fusion := m.Entry.Root
	a := cost.AnalyzeFusion(fusion)
	fmt.Println("emitter:", a.Emitter)
	for _, c := range a.Coalescing(cost.Indexing, &h100) {
		fmt.Printf("operand %d coalesced=%v (%s)\n", c.Operand, c.Coalesced, c.Reason)
	}
	u := cost.NewCosts().Of(fusion)
	fmt.Printf("bytes accessed: %d, flops: %.0f\n", u.BytesAccessed, u.Flops)
	e := cost.NewModel(h100).Estimate(fusion)
	fmt.Printf("%.3f us, %s-bound\n", e.TimeUS, e.Bound)
	// Output:
	// emitter: loop
	// operand 0 coalesced=true (indexing: thread stride 4 elements: 1 runs, 4 transactions of 128 B where 4 suffice)
	// operand 1 coalesced=false (indexing: thread stride 4096 elements: 32 runs, 32 transactions of 128 B where 1 suffice)
	// bytes accessed: 12582912, flops: 3145728
	// 4.756 us, memory-bound
}
