package indexing

import (
	"github.com/hlo-opt/hlo-opt/hlo"
)

// resultKey names result Out of an instruction (Out is 0 unless the
// instruction has a tuple shape).
type resultKey struct {
	in  *hlo.Instruction
	out int
}

// postOrder returns the instructions reachable from root through operands,
// every operand before its users (XLA's MakeInstructionPostOrder restricted
// to root's operand tree), in a deterministic order.
func postOrder(root *hlo.Instruction) []*hlo.Instruction {
	type frame struct {
		in   *hlo.Instruction
		next int
	}
	// Instructions of root's computation are marked by their index; others
	// (hand-built graphs) in a map.
	comp := root.Parent
	var seen []bool
	if comp != nil {
		seen = make([]bool, len(comp.Instructions))
	}
	var seenMap map[*hlo.Instruction]bool
	visit := func(in *hlo.Instruction) bool {
		if comp != nil && in.Parent == comp && in.Index >= 0 && in.Index < len(seen) && comp.Instructions[in.Index] == in {
			if seen[in.Index] {
				return false
			}
			seen[in.Index] = true
			return true
		}
		if seenMap[in] {
			return false
		}
		if seenMap == nil {
			seenMap = map[*hlo.Instruction]bool{}
		}
		seenMap[in] = true
		return true
	}
	visit(root)
	order := make([]*hlo.Instruction, 0, len(seen))
	stack := make([]frame, 1, 16)
	stack[0] = frame{in: root}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(top.in.Operands) {
			op := top.in.Operands[top.next]
			top.next++
			if visit(op) {
				stack = append(stack, frame{in: op})
			}
			continue
		}
		order = append(order, top.in)
		stack = stack[:len(stack)-1]
	}
	return order
}

// fusedComputation returns the computation a fusion calls.
func fusedComputation(fusion *hlo.Instruction) (*hlo.Computation, error) {
	if fusion.Opcode != hlo.OpFusion || len(fusion.Called) == 0 || fusion.Called[0] == nil || fusion.Called[0].Root == nil {
		return nil, instrError(fusion, "expected a fusion calling a computation with a root")
	}
	return fusion.Called[0], nil
}

// GroupedOutputToInput composes the output-to-input maps from result
// outputIndex of target back through every instruction it reads, in its
// computation, as XLA's ComputeGroupedOutputToInputIndexing: it starts with
// the identity on target's result and visits the instructions in reverse
// post-order (users before the instructions they read), composing each
// instruction's maps with its own operand maps, simplifying each composed
// map and removing its unused symbols. The result holds, for every
// instruction reached (target included), the deduplicated maps from
// target's result to it, sorted by [CompareMaps].
func GroupedOutputToInput(target *hlo.Instruction, outputIndex int) (map[*hlo.Instruction][]*IndexingMap, error) {
	s, err := outputShape(target, outputIndex)
	if err != nil {
		return nil, err
	}
	start := Undefined()
	if s.IsArray() {
		d, err := arrayDims(target, s, "result")
		if err != nil {
			return nil, err
		}
		start = IdentityMap(d)
	}
	order := postOrder(target)
	slab := newSetSlab(len(order))
	grouped := make(map[resultKey][]*IndexingMap, len(order))
	grouped[resultKey{target, outputIndex}] = slab.set(start)
	for i := len(order) - 1; i >= 0; i-- {
		in := order[i]
		for out := range numResults(in) {
			consumers := grouped[resultKey{in, out}]
			if len(consumers) == 0 || len(in.Operands) == 0 {
				continue
			}
			producer, err := ComputeOutputToInput(in, out)
			if err != nil {
				return nil, err
			}
			for j, set := range producer.Maps {
				if j >= len(in.Operands) {
					break
				}
				key := resultKey{in.Operands[j], 0}
				if in.Opcode == hlo.OpGetTupleElement {
					key.out = int(in.Typed.TupleIndex)
				}
				for _, p := range set {
					for _, c := range consumers {
						m, err := composeSimplified(c, p)
						if err != nil {
							return nil, instrError(in, "%v", err)
						}
						grouped[key] = slab.insert(grouped[key], m)
					}
				}
			}
		}
	}
	result := make(map[*hlo.Instruction][]*IndexingMap, len(grouped))
	for k, set := range grouped {
		if len(result[k.in]) == 0 {
			// The sets are sorted and deduplicated already; grouped is
			// dropped, so the first set of an instruction can be taken.
			result[k.in] = set
			continue
		}
		for _, m := range set {
			result[k.in] = insertMap(result[k.in], m)
		}
	}
	return result, nil
}

// setSlab hands out single-map sets from one array, each with capacity 1
// (adding to a set copies it): most sets of grouped maps hold one map.
type setSlab struct{ free []*IndexingMap }

func newSetSlab(n int) setSlab { return setSlab{free: make([]*IndexingMap, 0, n)} }

// set returns the set {m}.
func (s *setSlab) set(m *IndexingMap) []*IndexingMap {
	if len(s.free) == cap(s.free) {
		return []*IndexingMap{m}
	}
	s.free = append(s.free, m)
	n := len(s.free)
	return s.free[n-1 : n : n]
}

// insert is insertMap, taking a new set from the slab.
func (s *setSlab) insert(set []*IndexingMap, m *IndexingMap) []*IndexingMap {
	if len(set) == 0 {
		return s.set(m)
	}
	return insertMap(set, m)
}

// composeSimplified composes consumer then producer, simplifies the result
// and removes its unused symbols.
func composeSimplified(consumer, producer *IndexingMap) (*IndexingMap, error) {
	if consumer.state == stateNormal && isIdentity(producer) && len(consumer.results) == len(producer.dims) &&
		consumer.resultsWithin(producer.dims) {
		// Composing with an identity (an elementwise producer) only adds
		// constraints that always hold: the consumer, already simplified,
		// is the result.
		return consumer, nil
	}
	m, err := Compose(consumer, producer)
	if err != nil {
		return nil, err
	}
	m, _ = m.Simplify().RemoveUnusedSymbols()
	return m, nil
}

// ComputeFusionOutputToInput returns, for result root of a fusion (the
// root's tuple element root of a multi-output fusion, 0 otherwise), the
// maps to each fusion operand composed through the fused computation: one
// deduplicated set per fusion parameter. A parameter read with several
// access patterns has several maps (p0 + transpose(p0) gives two); patterns
// that simplify to the same map are one.
func ComputeFusionOutputToInput(fusion *hlo.Instruction, root int) (*HloInstructionIndexing, error) {
	comp, err := fusedComputation(fusion)
	if err != nil {
		return nil, err
	}
	target, out := comp.Root, root
	if target.Opcode == hlo.OpTuple {
		if root < 0 || root >= len(target.Operands) {
			return nil, instrError(fusion, "expected a fusion result in [0, %d), found %d", len(target.Operands), root)
		}
		target, out = target.Operands[root], 0
	}
	return fusedToParameters(len(fusion.Operands), comp, target, out)
}

// ComputeFusedOutputToInputFrom composes from operand operand of hero, an
// instruction inside a fused computation (the hero of a reduction or
// transpose fusion), back to the parameters of that computation: one set of
// maps per parameter (by parameter number), from the indices of the hero's
// operand.
func ComputeFusedOutputToInputFrom(hero *hlo.Instruction, operand int) (*HloInstructionIndexing, error) {
	comp := hero.Parent
	if comp == nil {
		return nil, instrError(hero, "expected an instruction inside a computation")
	}
	if operand < 0 || operand >= len(hero.Operands) {
		return nil, instrError(hero, "expected an operand index in [0, %d), found %d", len(hero.Operands), operand)
	}
	return fusedToParameters(len(comp.Params), comp, hero.Operands[operand], 0)
}

func fusedToParameters(n int, comp *hlo.Computation, target *hlo.Instruction, out int) (*HloInstructionIndexing, error) {
	grouped, err := GroupedOutputToInput(target, out)
	if err != nil {
		return nil, err
	}
	h := newIndexing(n)
	for _, p := range comp.Params {
		if p == nil || p.ParameterNumber < 0 || p.ParameterNumber >= len(h.Maps) {
			continue
		}
		h.Maps[p.ParameterNumber] = grouped[p]
	}
	return h, nil
}

// ComputeFusionInputToOutput returns the maps from the indices of fusion
// operand operandIndex to the indices of each fusion result, composed
// forward through the fused computation from the parameter to the root
// (in post-order, with each instruction's input-to-output maps): one set
// per fusion result. A parameter the root does not read has empty sets.
func ComputeFusionInputToOutput(fusion *hlo.Instruction, operandIndex int) (*HloInstructionIndexing, error) {
	comp, err := fusedComputation(fusion)
	if err != nil {
		return nil, err
	}
	if operandIndex < 0 || operandIndex >= len(comp.Params) || comp.Params[operandIndex] == nil {
		return nil, instrError(fusion, "expected a parameter number in [0, %d), found %d", len(comp.Params), operandIndex)
	}
	return fusionInputToOutput(fusion, comp, postOrder(comp.Root), operandIndex)
}

// fusionInputToOutput is ComputeFusionInputToOutput with the post-order of
// the fused computation given, so that the maps of every operand share it.
func fusionInputToOutput(fusion *hlo.Instruction, comp *hlo.Computation, order []*hlo.Instruction, operandIndex int) (*HloInstructionIndexing, error) {
	param := comp.Params[operandIndex]
	h := newIndexing(numResults(fusion))
	start := Undefined()
	if param.Shape.IsArray() {
		d, err := arrayDims(param, param.Shape, "parameter")
		if err != nil {
			return nil, err
		}
		start = IdentityMap(d)
	}
	// A parameter usually reaches a few instructions.
	slab := newSetSlab(min(len(order), 8))
	grouped := map[resultKey][]*IndexingMap{}
	grouped[resultKey{param, 0}] = slab.set(start)
	for _, in := range order {
		for j, op := range in.Operands {
			key := resultKey{op, 0}
			if in.Opcode == hlo.OpGetTupleElement {
				key.out = int(in.Typed.TupleIndex)
			}
			consumers := grouped[key]
			if len(consumers) == 0 {
				continue
			}
			io, err := ComputeInputToOutput(in, j)
			if err != nil {
				return nil, err
			}
			for r, set := range io.Maps {
				for _, p := range set {
					for _, c := range consumers {
						m, err := composeSimplified(c, p)
						if err != nil {
							return nil, instrError(in, "%v", err)
						}
						k := resultKey{in, r}
						grouped[k] = slab.insert(grouped[k], m)
					}
				}
			}
		}
	}
	root := comp.Root
	for r := range h.Maps {
		h.Maps[r] = grouped[resultKey{root, r}]
	}
	return h, nil
}

// isIdentity reports whether m is (d0, ..., dn) -> (d0, ..., dn) with no
// symbols or constraints.
func isIdentity(m *IndexingMap) bool {
	if m.state != stateNormal || len(m.ranges)+len(m.rts)+len(m.constraints) != 0 || len(m.results) != len(m.dims) {
		return false
	}
	for i, r := range m.results {
		if r.kind != KindDim || r.val != int64(i) {
			return false
		}
	}
	return true
}

// resultsWithin reports whether every result of m ranges, over m's
// variable bounds, within the bounds of the corresponding variable.
func (m *IndexingMap) resultsWithin(vars []Variable) bool {
	for i, r := range m.results {
		var rng Interval
		if r.isVar() {
			rng = m.bound(r)
		} else {
			rng = r.Range(m.bound)
		}
		if !vars[i].Bounds.ContainsInterval(rng) {
			return false
		}
	}
	return true
}
