package passes_test

import (
	"context"
	"fmt"
	"os"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/passes"
	"github.com/hlo-opt/hlo-opt/passes/render"
)

const module = `
HloModule example

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(f32[] %a, f32[] %b)
}

%fused (p: f32[1024]) -> f32[1024] {
  %p = f32[1024]{0} parameter(0)
  ROOT %e = f32[1024]{0} exponential(f32[1024]{0} %p)
}

ENTRY %main (x: f32[1024]) -> f32[] {
  %x = f32[1024]{0} parameter(0)
  %f = f32[1024]{0} fusion(f32[1024]{0} %x), kind=kLoop, calls=%fused
  %zero = f32[] constant(0)
  ROOT %r = f32[] reduce(f32[1024]{0} %f, f32[] %zero), dimensions={0}, to_apply=%add
}
`

// Example embeds the pipeline in a driver: no flags, no globals. It parses
// a module, builds a pipeline from pass values, runs it and reads the typed
// results.
func Example() {
	m, err := hlo.ParseFile("example.hlo", []byte(module))
	if err != nil {
		fmt.Println(err)
		return
	}
	pl, err := passes.NewPipeline([]*passes.Pass{passes.Verify, passes.Stats}, passes.Options{Jobs: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := pl.Run(context.Background(), m)
	if err != nil {
		fmt.Println(err)
		return
	}
	st, _ := passes.ResultOf[*passes.StatsResult](res, passes.Stats)
	fmt.Println("instructions:", st.Module.Instructions, "fusions:", st.Module.Fusions)
	fmt.Println("main reads", st.Of(m.Entry).ParameterBytes, "bytes")
	_ = render.WriteText(os.Stdout, res)
	// Output:
	// instructions: 9 fusions: map[kLoop:1]
	// main reads 4096 bytes
	// verify: ok (3 computations, 9 instructions)
	//
	// stats: module example: 3 computations (1 fusion), 9 instructions, entry parameters 4.0KiB, output 4B
	//   computation  instructions  fused  fusions  parameter bytes  output bytes
	//           add             3      0        -                8             4
	//          main             4      2  kLoop 1             4096             4
	// opcodes: parameter 4, add 1, constant 1, exponential 1, fusion 1, reduce 1
	// fusions: kLoop 1
}

// ExampleRegistry resolves pass names, as hlo-opt's --passes does.
func ExampleRegistry() {
	reg, _ := passes.NewRegistry(passes.Builtin()...)
	ps, err := reg.Parse("verify,stats")
	fmt.Println(ps, err)
	_, err = reg.Parse("layuot")
	fmt.Println(err)
	// Output:
	// [verify stats] <nil>
	// unknown pass "layuot" (known: stats, verify)
}

// ExampleUnit_Local keeps a scratch buffer per worker: every computation a
// worker runs reuses it, instead of allocating its own.
func ExampleUnit_Local() {
	m, err := hlo.ParseFile("example.hlo", []byte(module))
	if err != nil {
		fmt.Println(err)
		return
	}
	names := &passes.Pass{
		Name: "opcodes",
		Doc:  "list each computation's opcodes",
		RunComputation: func(u *passes.Unit) (any, error) {
			buf := u.Local(func() any { return new([]byte) }).(*[]byte)
			*buf = (*buf)[:0] // reused: the results must not keep it
			for i, in := range u.Computation.Instructions {
				if i > 0 {
					*buf = append(*buf, ' ')
				}
				*buf = append(*buf, in.Opcode...)
			}
			return string(*buf), nil
		},
	}
	pl, err := passes.NewPipeline([]*passes.Pass{names}, passes.Options{Jobs: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := pl.Run(context.Background(), m)
	if err != nil {
		fmt.Println(err)
		return
	}
	parts, _ := passes.ResultOf[passes.ComputationResults](res, names)
	for i, c := range m.Computations {
		if parts[i] != nil {
			fmt.Printf("%s: %s\n", c.Name, parts[i])
		}
	}
	// Output:
	// add: parameter parameter add
	// main: parameter fusion constant reduce
}
