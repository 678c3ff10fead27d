package graph_test

import (
	"fmt"
	"strings"

	"github.com/hlo-opt/hlo-opt/graph"
	"github.com/hlo-opt/hlo-opt/hlo"
)

const loop = `
HloModule loop

%cond (s: (s32[], f32[4])) -> pred[] {
  %s = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element((s32[], f32[4]{0}) %s), index=0
  %n = s32[] constant(8)
  ROOT %lt = pred[] compare(s32[] %i, s32[] %n), direction=LT
}

%fused (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %e = f32[4]{0} exponential(f32[4]{0} %p)
}

%body (t: (s32[], f32[4])) -> (s32[], f32[4]) {
  %t = (s32[], f32[4]{0}) parameter(0)
  %j = s32[] get-tuple-element((s32[], f32[4]{0}) %t), index=0
  %x = f32[4]{0} get-tuple-element((s32[], f32[4]{0}) %t), index=1
  %one = s32[] constant(1)
  %k = s32[] add(s32[] %j, s32[] %one)
  %y = f32[4]{0} fusion(f32[4]{0} %x), kind=kLoop, calls=%fused
  ROOT %r = (s32[], f32[4]{0}) tuple(s32[] %k, f32[4]{0} %y)
}

ENTRY %main (a: f32[4]) -> (s32[], f32[4]) {
  %a = f32[4]{0} parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[4]{0}) tuple(s32[] %zero, f32[4]{0} %a)
  ROOT %w = (s32[], f32[4]{0}) while((s32[], f32[4]{0}) %init), condition=%cond, body=%body
}
`

// Example walks a module's call graph callees first, then orders one
// computation's instructions and groups them into parallel levels.
func Example() {
	m, err := hlo.ParseFile("loop.hlo", []byte(loop))
	if err != nil {
		fmt.Println(err)
		return
	}
	cg := graph.NewCallGraph(m)
	order, _ := cg.NonFusionPostOrder()
	for i, c := range order {
		if i > 0 {
			fmt.Print(" ")
		}
		fmt.Print(c.Name)
	}
	fmt.Println()
	for _, s := range cg.Sites(m.Computation("body")) {
		fmt.Printf("%s calls %s (%s)\n", s.Caller.Name, s.Callee.Name, s.Kind)
	}
	for _, s := range cg.Sites(m.Entry) {
		fmt.Printf("%s calls %s (%s)\n", s.Caller.Name, s.Callee.Name, s.Kind)
	}
	d, _ := graph.NewDAG(m.Computation("body"))
	levels, _ := d.Levels()
	for i, l := range levels {
		fmt.Print("level ", i, ":")
		for _, in := range l {
			fmt.Print(" ", in.Name)
		}
		fmt.Println()
	}
	// Output:
	// cond body main
	// y calls fused (fusion)
	// w calls cond (while_condition)
	// w calls body (while_body)
	// level 0: t one
	// level 1: j x
	// level 2: k y
	// level 3: r
}

// ExampleCallGraphBuilder builds a call graph with the scan of the
// module's instructions split into parts, as a driver with goroutines of
// its own would (here the parts are scanned in turn).
func ExampleCallGraphBuilder() {
	m, err := hlo.ParseFile("loop.hlo", []byte(loop))
	if err != nil {
		fmt.Println(err)
		return
	}
	b := graph.NewCallGraphBuilder(m, 3)
	for k := range b.Parts() { // any order, or concurrently
		b.Scan(k)
	}
	cg := b.Graph()
	for _, s := range cg.Callers(m.Computation("fused")) {
		fmt.Println(s.Caller.Name, s.Kind)
	}
	fmt.Println(cg.Acyclic())
	// Output:
	// y fusion
	// <nil>
}

// ExampleDOT draws a computation with an analysis's figures on its boxes:
// here the elements of each result, the fusion filled.
func ExampleDOT() {
	m, err := hlo.ParseFile("loop.hlo", []byte(loop))
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := graph.DOT(m.Computation("body"), graph.DOTOptions{Annotate: func(in *hlo.Instruction) graph.Annotation {
		a := graph.Annotation{Line: fmt.Sprintf("%d elements", in.Shape.ElementCount())}
		if in.Opcode == hlo.OpFusion {
			a.Fill = "#fcbba1"
		}
		return a
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "label=") && strings.Contains(line, "fusion") || strings.Contains(line, "fillcolor") {
			fmt.Println(strings.TrimSpace(line))
		}
	}
	// Output:
	// label="y\nfusion kLoop, 2 ops\nf32[4]\n4 elements"
	// fillcolor="#fcbba1"
}
