package hlo

import (
	"slices"
	"strings"
)

// legacyAttrs are attributes of earlier XLA versions that today's no
// longer knows (SYNTAX.md, "Spellings of older XLA still read"). They are
// read on any opcode and kept verbatim.
var legacyAttrs = []string{
	"original_value", "conv_kind", "sparsity", "lhs_scale", "rhs_scale", "custom_call_schedule",
	"async_group_id", "async_wrapped_opcode", "reduction_kind", "deduplicated", "rng_algorithm",
	"layout", "operand_side_metadata", "collective_device_list", "split_dimension",
	"is_cross_program_prefetch",
}

// attrSet is a set of attribute names by their attrBit.
type attrSet [4]uint64

func (s *attrSet) add(names ...string) {
	for _, n := range names {
		b := attrBit[n]
		s[b/64] |= 1 << (b % 64)
	}
}

func (s *attrSet) remove(names ...string) {
	for _, n := range names {
		b := attrBit[n]
		s[b/64] &^= 1 << (b % 64)
	}
}

func (s *attrSet) union(o attrSet) {
	for i := range s {
		s[i] |= o[i]
	}
}

func (s attrSet) has(name string) bool {
	b, ok := attrBit[name]
	return ok && s.hasBit(b)
}

func (s attrSet) hasBit(b uint) bool { return s[b/64]&(1<<(b%64)) != 0 }

// attrEntry is what the parser knows of an attribute name: the package's
// copy of it (a parsed attribute keeps it rather than the text's), its
// kind and its bit in an attrSet.
type attrEntry struct {
	name string
	kind attrKind
	bit  uint
}

// attrTable has the entry of every attribute name of attrKinds: one lookup
// per attribute read.
var attrTable = func() map[string]attrEntry {
	m := make(map[string]attrEntry, len(attrKinds))
	for n, k := range attrKinds {
		m[n] = attrEntry{name: n, kind: k, bit: attrBit[n]}
	}
	return m
}()

// attrBit numbers the attribute names of attrKinds.
var attrBit = func() map[string]uint {
	names := make([]string, 0, len(attrKinds))
	for n := range attrKinds {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(names) > 64*len(attrSet{}) {
		panic("hlo: attrSet too small for attrKinds")
	}
	m := make(map[string]uint, len(names))
	for i, n := range names {
		m[n] = uint(i)
	}
	return m
}()

// opAttrSets are the attributes each opcode allows: XLA's (opattrs.go),
// the common ones and the legacy ones.
var opAttrSets = func() map[Opcode]attrSet {
	var base attrSet
	base.add(commonAttrs...)
	base.add(legacyAttrs...)
	m := make(map[Opcode]attrSet, len(opcodeAttrs)+1)
	for op, own := range opcodeAttrs {
		s := base
		s.add(own...)
		m[op] = s
	}
	// atan, which today's XLA writes as atan2, took what the other
	// transcendental unary ops take.
	m[OpAtan] = m[OpTan]
	return m
}()

// allowedAttrs returns the attributes instruction in may carry, as XLA's
// parser allows them: by opcode; a conditional indexed by a pred takes
// true_computation and false_computation, one indexed by an integer
// branch_computations; the "<op>-start" spelling of an async op takes its
// op's attributes and the async ones, "-update" and "-done" the async ones.
func allowedAttrs(in *Instruction) attrSet {
	pred := in.Opcode == OpConditional && len(in.Operands) > 0 && in.Operands[0].Shape.Type == PRED
	return opAllowedAttrs(in.Opcode, pred)
}

// opAllowedAttrs returns the attributes an instruction of opcode op may
// carry (see allowedAttrs); pred tells that a conditional is indexed by a
// pred.
func opAllowedAttrs(op Opcode, pred bool) attrSet {
	if s, ok := opAttrSets[op]; ok {
		if pred {
			s.remove("branch_computations")
			s.add("true_computation", "false_computation")
		}
		return s
	}
	wrapped, async, ok := op.IsAsyncSugar()
	if !ok {
		return opAttrSets[OpAsyncStart]
	}
	s := opAttrSets[OpAsyncDone]
	s.remove("calls")
	switch async {
	case OpAsyncStart:
		s.union(opAttrSets[wrapped])
		s.add("output_to_operand_aliasing")
	case OpAsyncUpdate:
		s.add("output_to_operand_aliasing")
	}
	return s
}

// attrNamesOf lists the names of s that today's XLA knows, sorted.
func attrNamesOf(s attrSet) string {
	var names []string
	for n := range attrBit {
		if s.has(n) && !slices.Contains(legacyAttrs, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
