package graph

import "fmt"

// Example walks a module's call graph callees first and orders one
// computation's instructions.
func Example() {
	m, cs := whileModule()
	cg := NewCallGraph(m)
	order, err := cg.NonFusionPostOrder()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("computations:", names(order))
	for _, s := range cg.Sites(cs["main"]) {
		fmt.Printf("%s calls %s (%s)\n", s.Caller.Name, s.Callee.Name, s.Kind)
	}
	d, err := NewDAG(cs["body"])
	if err != nil {
		fmt.Println(err)
		return
	}
	instrs, _ := d.TopoOrder()
	fmt.Println("body:", names(instrs))
	// Output:
	// computations: [sum cond body br0 br1 main]
	// red calls sum (to_apply)
	// loop calls cond (while_condition)
	// loop calls body (while_body)
	// fus calls fused (fusion)
	// cnd calls br0 (conditional_branch)
	// cnd calls br1 (conditional_branch)
	// body: [x rr neg]
}
