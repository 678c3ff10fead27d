package layoutassign

import "github.com/hlo-opt/hlo-opt/hlo"

// flatCallGraph returns entry when every computation it reaches through
// calls, whiles and conditionals is called from one call site only (as in
// every dump after optimizations). Otherwise it returns a copy of entry's
// control-flow call tree in which every call site calls a copy of its
// own, as XLA's FlattenCallGraph makes the module before buffer
// assignment, and the map from the copies' instructions to the module's.
// Computations called per element or by async ops stay shared.
func flatCallGraph(entry *hlo.Computation) (*hlo.Computation, map[*hlo.Instruction]*hlo.Instruction) {
	if flat(entry, map[*hlo.Computation]bool{entry: true}) {
		return entry, nil
	}
	orig := map[*hlo.Instruction]*hlo.Instruction{}
	return copyCallTree(entry, orig, 0), orig
}

// flatCalls are the opcodes whose callees XLA's FlattenCallGraph gives a
// copy per call site.
func flatCalls(in *hlo.Instruction) bool {
	switch in.Opcode {
	case hlo.OpCall, hlo.OpWhile, hlo.OpConditional:
		return true
	}
	return false
}

// flat reports whether no computation under c is reached twice; seen
// holds the computations reached so far.
func flat(c *hlo.Computation, seen map[*hlo.Computation]bool) bool {
	for _, in := range c.Instructions {
		if !flatCalls(in) {
			continue
		}
		for _, callee := range in.Called {
			if callee == nil {
				continue
			}
			if seen[callee] {
				return false
			}
			seen[callee] = true
			if !flat(callee, seen) {
				return false
			}
		}
	}
	return true
}

// maxCallDepth bounds the copying of a recursive call graph (which no
// valid module has).
const maxCallDepth = 64

// copyCallTree copies c and, for each call site in it, the computations
// it calls; orig records each copy's original.
func copyCallTree(c *hlo.Computation, orig map[*hlo.Instruction]*hlo.Instruction, depth int) *hlo.Computation {
	cp := *c
	cp.Instructions = make([]*hlo.Instruction, len(c.Instructions))
	cp.Params = make([]*hlo.Instruction, len(c.Params))
	of := make(map[*hlo.Instruction]*hlo.Instruction, len(c.Instructions))
	for i, in := range c.Instructions {
		n := *in
		n.Parent = &cp
		of[in] = &n
		orig[&n] = in
		cp.Instructions[i] = &n
	}
	remap := func(ins []*hlo.Instruction) []*hlo.Instruction {
		out := make([]*hlo.Instruction, len(ins))
		for i, in := range ins {
			if out[i] = of[in]; out[i] == nil {
				out[i] = in
			}
		}
		return out
	}
	for _, n := range cp.Instructions {
		n.Operands = remap(n.Operands)
		n.ControlPredecessors = remap(n.ControlPredecessors)
		if flatCalls(n) && depth < maxCallDepth {
			called := make([]*hlo.Computation, len(n.Called))
			for i, callee := range n.Called {
				if callee != nil {
					called[i] = copyCallTree(callee, orig, depth+1)
				}
			}
			n.Called = called
		}
	}
	for i, p := range c.Params {
		cp.Params[i] = of[p]
	}
	if c.Root != nil {
		cp.Root = of[c.Root]
	}
	return &cp
}
