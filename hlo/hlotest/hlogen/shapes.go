package hlogen

import (
	"fmt"
	"strings"
)

// A Shape is a kind of module that grows in one direction: the scale
// benchmarks run each at Scales to show how every pass's time per
// instruction grows with it.
type Shape struct {
	// Name names the shape in benchmark names.
	Name string
	// Gen returns the module's text at scale (1, 4, 16, ...).
	Gen func(scale int) []byte
}

// Scales are the sizes the scale benchmarks run each shape at.
var Scales = []int{1, 4, 16}

// Shapes are the module shapes of the scale benchmarks:
//
//   - unrolled: a training step with every layer in the entry (Unrolled,
//     256 layers a scale: about 38 MB and 61k entry instructions at 16);
//   - computations: many small fused computations called from the entry
//     (Module, 1 MB a scale);
//   - nested-whiles: loops nested in loops (NestedWhiles, 64 levels a
//     scale);
//   - wide-tuples: a loop over a tuple of many arrays (WideTuple, 512
//     elements a scale).
var Shapes = []Shape{
	{"unrolled", func(s int) []byte { return Unrolled(256 * s) }},
	{"computations", func(s int) []byte { return Module(s << 20) }},
	{"nested-whiles", func(s int) []byte { return NestedWhiles(64 * s) }},
	{"wide-tuples", func(s int) []byte { return WideTuple(512 * s) }},
}

// metadata is the metadata attribute of an instruction made by op of a
// JAX program, with a source line.
func metadata(op string, line int) string {
	return fmt.Sprintf(`metadata={op_name="jit(train_step)/jvp(transformer)/%s" source_file="/workspace/model/layers.py" source_line=%d}`, op, line)
}

// primitiveParams are the parameters JAX writes after a primitive's name
// in op_name.
var primitiveParams = map[string]string{
	"dot_general":      "dimension_numbers=(([1], [0]), ([], [])) precision=None preferred_element_type=float32",
	"broadcast_in_dim": "shape=(256, 512) broadcast_dimensions=(1,) sharding=None",
	"reduce_sum":       "axes=(0, 1)",
}

// list joins items with ", ", marking every fifth with its index as XLA
// prints the elements of a tuple and the operands of an instruction.
func list(items []string) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
			if i%5 == 0 {
				fmt.Fprintf(&b, "/*index=%d*/", i)
			}
		}
		b.WriteString(it)
	}
	return b.String()
}

// Unrolled returns the text of a training step of a residual MLP of the
// given number of layers with every layer in the entry computation, as
// JAX without scan writes one, laid out for a TPU as hlogen's Module is
// (about 620 bytes an instruction, as the module of issue 25): the
// forward pass keeps every layer's activations for the backward pass,
// which computes each layer's weight gradient and its SGD update. The
// entry has 15 instructions a layer (two parameters, five of the forward
// pass and eight of the backward) and returns the loss and every updated
// weight in one tuple.
func Unrolled(layers int) []byte {
	const (
		act = "f32[256,512]{1,0:T(8,128)}"
		wt  = "f32[512,512]{1,0:T(8,128)}"
		bs  = "f32[512]{0:T(1024)}"
	)
	var b strings.Builder
	b.Grow(layers * 10 << 10)
	line := func(format string, args ...any) {
		b.WriteString("  ")
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	// md is the metadata of a JAX op: its type, its name with the module
	// path and the primitive's parameters, and the Python frame that made
	// it.
	md := func(opType, path string, line int) string {
		if p := primitiveParams[opType]; p != "" {
			path += "[" + p + "]"
		}
		return fmt.Sprintf(`metadata={op_type=%q op_name="jit(train_step)/jit(main)/%s" source_file="/workspace/maxtext/MaxText/layers/linears.py" source_line=%d stack_frame_id=%d}`, opType, path, line, line%97)
	}
	params := []string{act}
	results := []string{"f32[]"}
	sig := []string{"f32[]"}
	for range layers {
		params = append(params, wt, bs)
		results = append(results, wt)
		sig = append(sig, "f32[512,512]")
	}
	fmt.Fprintf(&b, "HloModule jit_train_step_unrolled, entry_computation_layout={(%s)->(%s)}\n\n", list(params), list(results))
	b.WriteString("%add_f32 (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n  ROOT %sum = f32[] add(f32[] %x, f32[] %y)\n}\n\n")
	b.WriteString("ENTRY %main (h.0: f32[256,512]")
	for i := range layers {
		fmt.Fprintf(&b, ", w.%d: f32[512,512], b.%d: f32[512]", i, i)
	}
	fmt.Fprintf(&b, ") -> (%s) {\n", list(sig))
	line("%%h.0 = %s parameter(0), %s", act, md("parameter", "x", 10))
	for i := range layers {
		line("%%w.%d = %s parameter(%d), %s", i, wt, 1+2*i, md("parameter", fmt.Sprintf("params/layers_%d/mlp/dense/kernel", i), 11))
		line("%%b.%d = %s parameter(%d), %s", i, bs, 2+2*i, md("parameter", fmt.Sprintf("params/layers_%d/mlp/dense/bias", i), 12))
	}
	line("%%one = f32[] constant(1)")
	line("%%ones = %s broadcast(f32[] %%one), dimensions={}", act)
	line("%%lr = f32[] constant(0.01)")
	line("%%lrs = %s broadcast(f32[] %%lr), dimensions={}", wt)
	line("%%zero = f32[] constant(0)")
	for i := range layers {
		fwd := func(opType, op string, l int) string {
			return md(opType, fmt.Sprintf("jvp(Transformer)/layers_%d/mlp/dense/%s", i, op), l)
		}
		line("%%dot.%d = %s dot(%s %%h.%d, %s %%w.%d), lhs_contracting_dims={1}, rhs_contracting_dims={0}, %s", i, act, act, i, wt, i, fwd("dot_general", "dot_general", 254))
		line("%%bias.%d = %s broadcast(%s %%b.%d), dimensions={1}, %s", i, act, bs, i, fwd("broadcast_in_dim", "broadcast_in_dim", 261))
		line("%%pre.%d = %s add(%s %%dot.%d, %s %%bias.%d), %s", i, act, act, i, act, i, fwd("add", "add", 261))
		line("%%tanh.%d = %s tanh(%s %%pre.%d), %s", i, act, act, i, fwd("tanh", "tanh", 262))
		line("%%h.%d = %s add(%s %%h.%d, %s %%tanh.%d), %s", i+1, act, act, i, act, i, fwd("add", "residual/add", 263))
	}
	line("%%sq = %s multiply(%s %%h.%d, %s %%h.%d), %s", act, act, layers, act, layers, md("mul", "jvp(loss)/square", 60))
	line("%%loss = f32[] reduce(%s %%sq, f32[] %%zero), dimensions={0,1}, to_apply=%%add_f32, %s", act, md("reduce_sum", "jvp(loss)/reduce_sum", 60))
	line("%%g.%d = %s add(%s %%h.%d, %s %%h.%d), %s", layers, act, act, layers, act, layers, md("mul", "transpose(jvp(loss))/mul", 60))
	for i := layers - 1; i >= 0; i-- {
		bwd := func(opType, op string, l int) string {
			return md(opType, fmt.Sprintf("transpose(jvp(Transformer))/layers_%d/mlp/dense/%s", i, op), l)
		}
		line("%%t2.%d = %s multiply(%s %%tanh.%d, %s %%tanh.%d), %s", i, act, act, i, act, i, bwd("mul", "tanh/mul", 262))
		line("%%dt.%d = %s subtract(%s %%ones, %s %%t2.%d), %s", i, act, act, act, i, bwd("sub", "tanh/sub", 262))
		line("%%gz.%d = %s multiply(%s %%g.%d, %s %%dt.%d), %s", i, act, act, i+1, act, i, bwd("mul", "tanh/mul", 262))
		line("%%gw.%d = %s dot(%s %%h.%d, %s %%gz.%d), lhs_contracting_dims={0}, rhs_contracting_dims={0}, %s", i, wt, act, i, act, i, bwd("dot_general", "dot_general", 254))
		if i > 0 { // the gradient of the input is not needed
			line("%%gh.%d = %s dot(%s %%gz.%d, %s %%w.%d), lhs_contracting_dims={1}, rhs_contracting_dims={1}, %s", i, act, act, i, wt, i, bwd("dot_general", "dot_general", 254))
			line("%%g.%d = %s add(%s %%g.%d, %s %%gh.%d), %s", i, act, act, i+1, act, i, bwd("add_any", "add_any", 263))
		}
		line("%%upd.%d = %s multiply(%s %%lrs, %s %%gw.%d), %s", i, wt, wt, wt, i, md("mul", fmt.Sprintf("sgd/layers_%d/mlp/dense/kernel/mul", i), 80))
		line("%%nw.%d = %s subtract(%s %%w.%d, %s %%upd.%d), %s", i, wt, wt, i, wt, i, md("sub", fmt.Sprintf("sgd/layers_%d/mlp/dense/kernel/sub", i), 81))
	}
	outs := []string{"f32[] %loss"}
	for i := range layers {
		outs = append(outs, fmt.Sprintf("%s %%nw.%d", wt, i))
	}
	line("ROOT %%out = (%s) tuple(%s)", list(results), list(outs))
	b.WriteString("}\n")
	return []byte(b.String())
}

// NestedWhiles returns the text of a module of loops nested depth deep, as
// scans over scans write them: each level's body updates its state with a
// few elementwise ops and a dot, runs the next level's loop on it, and
// counts its trip; each level has its own body and condition.
func NestedWhiles(depth int) []byte {
	const (
		act      = "f32[128,256]{1,0}"
		wt       = "f32[256,256]{1,0}"
		state    = "(s32[], f32[128,256]{1,0}, f32[256,256]{1,0})"
		sigState = "(s32[], f32[128,256], f32[256,256])"
	)
	var b strings.Builder
	line := func(format string, args ...any) {
		b.WriteString("  ")
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "HloModule jit_nested_scan, entry_computation_layout={(%s, %s)->%s}\n\n", act, wt, act)
	// Innermost first, so that each body's callee is defined before it.
	for l := depth - 1; l >= 0; l-- {
		md := func(op string) string { return metadata(fmt.Sprintf("scan_%d/while/body/%s", l, op), 20+l) }
		fmt.Fprintf(&b, "%%cond.%d (c.%d: %s) -> pred[] {\n", l, l, sigState)
		line("%%c.%d = %s parameter(0)", l, state)
		line("%%ci.%d = s32[] get-tuple-element(%%c.%d), index=0", l, l)
		line("%%trips.%d = s32[] constant(%d)", l, 2+l%3)
		line("ROOT %%lt.%d = pred[] compare(%%ci.%d, %%trips.%d), direction=LT", l, l, l)
		b.WriteString("}\n\n")
		fmt.Fprintf(&b, "%%body.%d (s.%d: %s) -> %s {\n", l, l, sigState, sigState)
		line("%%s.%d = %s parameter(0)", l, state)
		line("%%i.%d = s32[] get-tuple-element(%%s.%d), index=0", l, l)
		line("%%x.%d = %s get-tuple-element(%%s.%d), index=1, %s", l, act, l, md("x"))
		line("%%w.%d = %s get-tuple-element(%%s.%d), index=2, %s", l, wt, l, md("w"))
		line("%%d.%d = %s dot(%%x.%d, %%w.%d), lhs_contracting_dims={1}, rhs_contracting_dims={0}, %s", l, act, l, l, md("dot_general"))
		line("%%t.%d = %s tanh(%%d.%d), %s", l, act, l, md("tanh"))
		line("%%a.%d = %s add(%%x.%d, %%t.%d), %s", l, act, l, l, md("add"))
		line("%%m.%d = %s multiply(%%a.%d, %%a.%d), %s", l, act, l, l, md("mul"))
		line("%%one.%d = s32[] constant(1)", l)
		line("%%next.%d = s32[] add(%%i.%d, %%one.%d)", l, l, l)
		if l == depth-1 {
			line("ROOT %%r.%d = %s tuple(%%next.%d, %%m.%d, %%w.%d)", l, state, l, l, l)
		} else {
			line("%%zero.%d = s32[] constant(0)", l)
			line("%%in.%d = %s tuple(%%zero.%d, %%m.%d, %%w.%d)", l, state, l, l, l)
			line("%%loop.%d = %s while(%%in.%d), condition=%%cond.%d, body=%%body.%d, %s", l, state, l, l+1, l+1, md("while"))
			line("%%y.%d = %s get-tuple-element(%%loop.%d), index=1", l, act, l)
			line("%%u.%d = %s subtract(%%y.%d, %%x.%d), %s", l, act, l, l, md("sub"))
			line("ROOT %%r.%d = %s tuple(%%next.%d, %%u.%d, %%w.%d)", l, state, l, l, l)
		}
		b.WriteString("}\n\n")
	}
	b.WriteString("ENTRY %main (x: f32[128,256], w: f32[256,256]) -> f32[128,256] {\n")
	line("%%x = %s parameter(0)", act)
	line("%%w = %s parameter(1)", wt)
	line("%%zero = s32[] constant(0)")
	line("%%in = %s tuple(%%zero, %%x, %%w)", state)
	line("%%loop = %s while(%%in), condition=%%cond.0, body=%%body.0", state)
	line("ROOT %%y = %s get-tuple-element(%%loop), index=1", act)
	b.WriteString("}\n\n") // today's XLA ends its text with a blank line
	return []byte(b.String())
}

// WideTuple returns the text of a module whose entry takes a tuple of
// width arrays, updates each in a loop whose state is that tuple plus a
// counter, and returns the updated tuple: an optimizer step over many
// parameters, as JAX writes a scan over a large pytree.
func WideTuple(width int) []byte {
	elems := make([]string, width)
	sigElems := make([]string, width)
	for i := range elems {
		elems[i], sigElems[i] = "f32[64,128]{1,0}", "f32[64,128]"
	}
	const arr = "f32[64,128]{1,0}"
	tup := "(" + list(elems) + ")"
	state := "(" + list(append([]string{"s32[]"}, elems...)) + ")"
	sigTup := "(" + list(sigElems) + ")"
	sigState := "(" + list(append([]string{"s32[]"}, sigElems...)) + ")"
	var b strings.Builder
	line := func(format string, args ...any) {
		b.WriteString("  ")
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	names := func(first, prefix string) string {
		var ns []string
		if first != "" {
			ns = append(ns, first)
		}
		for i := range width {
			ns = append(ns, fmt.Sprintf("%%%s.%d", prefix, i))
		}
		return list(ns)
	}
	fmt.Fprintf(&b, "HloModule jit_wide_update, entry_computation_layout={(%s)->%s}\n\n", tup, tup)
	fmt.Fprintf(&b, "%%cond (c: %s) -> pred[] {\n", sigState)
	line("%%c = %s parameter(0)", state)
	line("%%ci = s32[] get-tuple-element(%%c), index=0")
	line("%%trips = s32[] constant(8)")
	line("ROOT %%lt = pred[] compare(%%ci, %%trips), direction=LT")
	b.WriteString("}\n\n")
	fmt.Fprintf(&b, "%%body (s: %s) -> %s {\n", sigState, sigState)
	line("%%s = %s parameter(0)", state)
	line("%%i = s32[] get-tuple-element(%%s), index=0")
	line("%%half = f32[] constant(0.5)")
	line("%%halves = %s broadcast(%%half), dimensions={}", arr)
	for k := range width {
		md := metadata(fmt.Sprintf("while/body/tree_map/leaf_%d/mul", k), 30)
		line("%%p.%d = %s get-tuple-element(%%s), index=%d", k, arr, k+1)
		line("%%q.%d = %s multiply(%%p.%d, %%halves), %s", k, arr, k, md)
	}
	line("%%one = s32[] constant(1)")
	line("%%next = s32[] add(%%i, %%one)")
	line("ROOT %%r = %s tuple(%s)", state, names("%next", "q"))
	b.WriteString("}\n\n")
	fmt.Fprintf(&b, "ENTRY %%main (params: %s) -> %s {\n", sigTup, sigTup)
	line("%%params = %s parameter(0)", tup)
	for k := range width {
		line("%%e.%d = %s get-tuple-element(%%params), index=%d", k, arr, k)
	}
	line("%%zero = s32[] constant(0)")
	line("%%in = %s tuple(%s)", state, names("%zero", "e"))
	line("%%loop = %s while(%%in), condition=%%cond, body=%%body", state)
	for k := range width {
		line("%%o.%d = %s get-tuple-element(%%loop), index=%d", k, arr, k+1)
	}
	line("ROOT %%out = %s tuple(%s)", tup, names("", "o"))
	b.WriteString("}\n\n") // today's XLA ends its text with a blank line
	return []byte(b.String())
}
