package hlogen

import (
	"fmt"
	"strings"
)

// Module returns the text of a module of about size bytes, in the style
// of a TPU after-optimizations dump: many fused computations with tiled
// layouts, operand shapes and metadata, called in a chain from the entry.
// Every name is unique.
func Module(size int) []byte {
	var b strings.Builder
	b.Grow(size + 1<<16)
	b.WriteString("HloModule jit_train_step, is_scheduled=true, entry_computation_layout={(bf16[8,128,4096]{2,1,0:T(8,128)(2,1)}, f32[4096]{0:T(1024)})->bf16[8,128,4096]{2,1,0:T(8,128)(2,1)}}\n\n")
	const act = "bf16[8,128,4096]{2,1,0:T(8,128)(2,1)}"
	const actF = "f32[8,128,4096]{2,1,0:T(8,128)}"
	const w = "f32[4096]{0:T(1024)}"
	md := func(op string) string {
		return fmt.Sprintf(`metadata={op_name="jit(train_step)/jvp(transformer)/while/body/closed_call/checkpoint/%s" source_file="/workspace/maxtext/layers/models.py" source_line=412 stack_frame_id=0}`, op)
	}
	n := 0
	for b.Len() < size*4/5 {
		fmt.Fprintf(&b, "%%fused_computation.%d (param_0.%d: bf16[8,128,4096], param_1.%d: f32[4096]) -> bf16[8,128,4096] {\n", n, n, n)
		fmt.Fprintf(&b, "  %%param_0.%d = %s parameter(0)\n", n, act)
		fmt.Fprintf(&b, "  %%param_1.%d = %s parameter(1)\n", n, w)
		fmt.Fprintf(&b, "  %%convert.%d = %s convert(%s %%param_0.%d), %s\n", n, actF, act, n, md("convert_element_type"))
		fmt.Fprintf(&b, "  %%broadcast.%d = %s broadcast(%s %%param_1.%d), dimensions={2}, %s\n", n, actF, w, n, md("broadcast_in_dim"))
		fmt.Fprintf(&b, "  %%multiply.%d = %s multiply(%s %%convert.%d, %s %%broadcast.%d), %s\n", n, actF, actF, n, actF, n, md("mul"))
		fmt.Fprintf(&b, "  %%constant.%d = f32[]{:T(128)} constant(0.5)\n", n)
		fmt.Fprintf(&b, "  %%broadcast.c.%d = %s broadcast(f32[]{:T(128)} %%constant.%d), dimensions={}\n", n, actF, n)
		fmt.Fprintf(&b, "  %%add.%d = %s add(%s %%multiply.%d, %s %%broadcast.c.%d), %s\n", n, actF, actF, n, actF, n, md("add"))
		fmt.Fprintf(&b, "  %%tanh.%d = %s tanh(%s %%add.%d), %s\n", n, actF, actF, n, md("tanh"))
		fmt.Fprintf(&b, "  ROOT %%convert.out.%d = %s convert(%s %%tanh.%d), %s\n", n, act, actF, n, md("convert_element_type"))
		b.WriteString("}\n\n")
		n++
	}
	fmt.Fprintf(&b, "ENTRY %%main.%d (p0: bf16[8,128,4096], p1: f32[4096]) -> bf16[8,128,4096] {\n", n)
	fmt.Fprintf(&b, "  %%p0 = %s parameter(0)\n  %%p1 = %s parameter(1)\n", act, w)
	prev := "p0"
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  %%fusion.%d = %s fusion(%s %%%s, %s %%p1), kind=kLoop, calls=%%fused_computation.%d, %s, backend_config={\"flag_configs\":[],\"scoped_memory_configs\":[],\"used_scoped_memory_configs\":[]}\n", i, act, act, prev, w, i, md("fusion"))
		prev = fmt.Sprintf("fusion.%d", i)
	}
	fmt.Fprintf(&b, "  ROOT %%copy.%d = %s copy(%s %%%s)\n}\n", n, act, act, prev)
	return []byte(b.String())
}
