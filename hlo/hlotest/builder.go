package hlotest

import (
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// Builder makes modules in Go, one computation at a time, for tests that
// need IR the HLO text cannot express. It sets what the parser sets
// (parents, indices, parameter numbers, roots, typed attributes) and checks
// nothing. The zero value is not usable; call NewBuilder.
type Builder struct {
	m   *hlo.Module
	cur *hlo.Computation
}

// NewBuilder starts an empty module called name.
func NewBuilder(name string) *Builder { return &Builder{m: &hlo.Module{Name: name}} }

// Module returns the module built so far.
func (b *Builder) Module() *hlo.Module { return b.m }

// Current returns the computation instructions are added to.
func (b *Builder) Current() *hlo.Computation { return b.cur }

// Computation appends a computation called name to the module and makes it
// current.
func (b *Builder) Computation(name string) *hlo.Computation {
	c := &hlo.Computation{Name: name, Index: len(b.m.Computations)}
	b.m.Computations = append(b.m.Computations, c)
	b.cur = c
	return c
}

// Entry is Computation for the module's entry computation.
func (b *Builder) Entry(name string) *hlo.Computation {
	c := b.Computation(name)
	c.IsEntry = true
	b.m.Entry = c
	return c
}

// Add appends an instruction to the current computation and makes it the
// root.
func (b *Builder) Add(name string, op hlo.Opcode, sh hlo.Shape, operands ...*hlo.Instruction) *hlo.Instruction {
	in := &hlo.Instruction{Name: name, Opcode: op, Shape: sh, Operands: operands, Parent: b.cur,
		Index: len(b.cur.Instructions), ParameterNumber: -1, Typed: hlo.NewTypedAttrs()}
	b.cur.Instructions = append(b.cur.Instructions, in)
	b.cur.Root = in
	return in
}

// Param adds parameter number n of the current computation.
func (b *Builder) Param(name string, n int, sh hlo.Shape) *hlo.Instruction {
	in := b.Add(name, "parameter", sh)
	in.ParameterNumber = n
	for len(b.cur.Params) <= n {
		b.cur.Params = append(b.cur.Params, nil)
	}
	b.cur.Params[n] = in
	return in
}

// Calls records that in calls comps through the attribute attr
// ("to_apply", "calls", "condition", "body", "branch_computations", ...)
// and returns in. A nil computation among comps records only an empty
// attribute, for SetCallees to fill in once the callees exist.
func Calls(in *hlo.Instruction, attr string, comps ...*hlo.Computation) *hlo.Instruction {
	names := make([]string, 0, len(comps))
	for _, c := range comps {
		if c == nil {
			in.Attrs = append(in.Attrs, hlo.Attribute{Name: attr})
			return in
		}
		names = append(names, c.Name)
	}
	v := strings.Join(names, ", ")
	if len(comps) > 1 || attr == "branch_computations" {
		v = "{" + v + "}"
	}
	in.Attrs = append(in.Attrs, hlo.Attribute{Name: attr, Value: v})
	in.Called = append(in.Called, comps...)
	return in
}

// SetCallees sets the computations in calls, in order, and the attributes
// Calls left empty: to_apply and calls name comps[0]; a while loop's
// condition and body name comps[0] and comps[1]; branch_computations names
// all of comps.
func SetCallees(in *hlo.Instruction, comps ...*hlo.Computation) {
	in.Called = comps
	for i := range in.Attrs {
		a := &in.Attrs[i]
		switch a.Name {
		case "to_apply", "calls", "condition":
			a.Value = comps[0].Name
		case "body":
			a.Value = comps[1].Name
		case "branch_computations":
			names := make([]string, len(comps))
			for k, c := range comps {
				names[k] = "%" + c.Name
			}
			a.Value = "{" + strings.Join(names, ", ") + "}"
		}
	}
}
