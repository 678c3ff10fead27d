package layoutassign

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// entrySignature returns the module's entry_computation_layout, or nil
// when there is none or it does not match the entry computation's
// parameters and result (as in truncated dumps whose last computation is
// not the real entry).
func entrySignature(m *hlo.Module) (*hlo.ProgramShape, error) {
	ps, err := m.EntryComputationLayout()
	if err != nil {
		return nil, fmt.Errorf("layout: entry_computation_layout: %w", err)
	}
	if ps == nil || m.Entry == nil || m.Entry.Root == nil || len(ps.Params) != len(m.Entry.Params) ||
		!ps.Result.EqualIgnoringLayout(m.Entry.Root.Shape) {
		return nil, nil
	}
	for i, p := range m.Entry.Params {
		if p == nil || !ps.Params[i].EqualIgnoringLayout(p.Shape) {
			return nil, nil
		}
	}
	return ps, nil
}

// operandLayoutConstraints parses a custom-call's
// operand_layout_constraints={f32[2,3]{1,0}, f32[3]{0}}; nil when absent.
func operandLayoutConstraints(in *hlo.Instruction) ([]hlo.Shape, error) {
	v, ok := in.Attr("operand_layout_constraints")
	if !ok {
		return nil, nil
	}
	v = strings.TrimSpace(v)
	v = strings.TrimSuffix(strings.TrimPrefix(v, "{"), "}")
	var out []hlo.Shape
	for _, part := range splitTopLevel(v) {
		if strings.TrimSpace(part) == "" {
			continue
		}
		s, err := hlo.ParseShape(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("%s: operand_layout_constraints: %w", in.Name, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// splitTopLevel splits s at commas outside (), [] and {}.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// rewriteSignature writes the entry computation's final parameter and
// result shapes back into the entry_computation_layout header attribute
// (called only when the module has one, ecl, that matches its entry), so
// the printed module is consistent. A result leaf kept in the signature's
// order keeps the signature's whole layout: a root tuple's value keeps the
// rule's tiles (see noteResult), where the signature may state others (an
// 8-bit T(32,128)(4,1)), which XLA's result is then copied to.
func rewriteSignature(m *hlo.Module, ecl *hlo.ProgramShape) {
	result := &m.Entry.Root.Shape
	if ecl != nil && result.IsTuple() {
		var kept *hlo.Shape
		for _, l := range result.Leaves() {
			r, ok := ecl.Result.Subshape(l.Index)
			if !ok || !r.IsArray() || r.Layout == nil || len(r.Layout.Tiles) == 0 || l.Shape.Layout == nil ||
				!slices.Equal(r.Layout.MinorToMajor, l.Shape.Layout.MinorToMajor) || sameLayout(r.Layout, l.Shape.Layout, r.Rank()) ||
				!slices.Equal(r.Dims, l.Shape.Dims) {
				continue
			}
			if kept == nil {
				c := result.Clone()
				kept = &c
			}
			if leaf, ok := kept.Subshape(l.Index); ok {
				lay := r.Layout.Clone()
				leaf.Layout = &lay
			}
		}
		if kept != nil {
			result = kept
		}
	}
	for i, at := range m.Attrs {
		if at.Name != "entry_computation_layout" {
			continue
		}
		// Appended to one buffer the size of the old text (a string for
		// each shape, and an Fprintf for each fifth, cost a module of
		// thousands of parameters more).
		b := make([]byte, 0, len(at.Value)+len(at.Value)/8+64)
		b = append(b, "{("...)
		for k, p := range m.Entry.Params {
			if k > 0 {
				b = append(b, ", "...)
			}
			if k > 0 && k%5 == 0 {
				// As XLA prints a program shape's parameters.
				b = append(b, "/*index="...)
				b = strconv.AppendInt(b, int64(k), 10)
				b = append(b, "*/"...)
			}
			if p != nil {
				b = p.Shape.AppendTo(b)
			}
		}
		b = append(b, ")->"...)
		b = result.AppendTo(b)
		b = append(b, '}')
		m.Attrs[i].Value = string(b)
	}
}
