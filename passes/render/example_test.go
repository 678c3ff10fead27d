package render_test

import (
	"context"
	"fmt"
	"os"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/passes"
	"github.com/hlo-opt/hlo-opt/passes/render"
)

// ExampleSpool writes each pass's text report as soon as the pass's result
// is final, so that the run can drop the results as it goes, and prints
// the reports once the run succeeded.
func ExampleSpool() {
	m, err := hlo.ParseFile("example.hlo", []byte(`
HloModule example

ENTRY %main (x: f32[1024]) -> f32[1024] {
  %x = f32[1024]{0} parameter(0)
  ROOT %e = f32[1024]{0} exponential(f32[1024]{0} %x)
}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	spool := render.NewSpool(m, "", 1<<20)
	defer spool.Close()
	pl, err := passes.NewPipeline([]*passes.Pass{passes.Verify, passes.Stats}, passes.Options{Finished: spool.Add})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := pl.Run(context.Background(), m)
	if err != nil {
		fmt.Println(err) // nothing of the spool is written
		return
	}
	_, held := res.Of(passes.Stats)
	fmt.Println("results held after the run:", held)
	_ = spool.WriteText(os.Stdout, res)
	// Output:
	// results held after the run: false
	// verify: ok (1 computations, 2 instructions)
	//
	// stats: module example: 1 computations (0 fusion), 2 instructions, entry parameters 4.0KiB, output 4.0KiB
	//   computation  instructions  fused  fusions  parameter bytes  output bytes
	//          main             2      0        -             4096          4096
	// opcodes: exponential 1, parameter 1
	// fusions: -
}
