package indexing

import (
	"strconv"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// rtSource is where a runtime variable's value comes from: element access
// (an expression per dim, over the op's output dims) of the HLO value src.
type rtSource struct {
	src    *hlo.Instruction
	access []*Expr
}

// foldRTVars replaces the runtime variables whose value is known from the
// HLO that computes it, as XLA's OptimizeRTVar does when it builds the map
// of a dynamic-slice, dynamic-update-slice or gather: a constant, an iota,
// or those seen through bitcast, broadcast, reshape, reverse, slice,
// transpose, negate, add, subtract and multiply. A value is folded only
// when all the values it can take lie within the variable's bounds (the
// start the op clamps to); XLA folds an iota even past them (see the
// conformance tests). Folded variables are removed and the others
// renumbered; dims and results are over the op's output dims.
func foldRTVars(dims, rts []Variable, res []*Expr, srcs []rtSource) *IndexingMap {
	repl := make([]*Expr, len(rts))
	var kept []Variable
	varRange := func(v *Expr) Interval { return dims[v.val].Bounds }
	for i, v := range rts {
		if i < len(srcs) {
			if e, ok := rtValue(srcs[i].src, srcs[i].access, 0); ok {
				if r := e.Range(varRange); r.Lower >= v.Bounds.Lower && r.Upper <= v.Bounds.Upper {
					repl[i] = e
					continue
				}
			}
		}
		repl[i] = RT(len(kept))
		kept = append(kept, v)
	}
	out := make([]*Expr, len(res))
	for i, r := range res {
		out[i] = r.Replace(nil, nil, repl)
	}
	return mustNewMap(dims, nil, kept, out)
}

// maxFoldDepth bounds the walk through the HLO graph.
const maxFoldDepth = 16

// rtValue returns the value of element access of in as an expression of
// the op's output dims, when the HLO determines it.
func rtValue(in *hlo.Instruction, access []*Expr, depth int) (*Expr, bool) {
	if in == nil || depth > maxFoldDepth || !in.Shape.IsArray() || len(access) != len(in.Shape.Dims) {
		return nil, false
	}
	switch in.Opcode {
	case hlo.OpConstant:
		idx := make([]int64, len(access))
		for i, a := range access {
			c, ok := a.IsConst()
			if !ok {
				return nil, false
			}
			idx[i] = c
		}
		v, ok := integerLiteralAt(in, idx)
		if !ok {
			return nil, false
		}
		return Const(v), true
	case hlo.OpIota:
		d := in.Typed.IotaDimension
		if d < 0 || int(d) >= len(access) {
			return nil, false
		}
		return access[d], true
	case hlo.OpBitcast, hlo.OpBroadcast, hlo.OpReshape, hlo.OpReverse, hlo.OpSlice, hlo.OpTranspose:
		h, err := outputToInput(in, 0)
		if err != nil || len(h.Maps) == 0 || len(h.Maps[0]) != 1 {
			return nil, false
		}
		m := h.Maps[0][0]
		if m.state != stateNormal || len(m.ranges)+len(m.rts)+len(m.constraints) != 0 {
			return nil, false
		}
		next := make([]*Expr, len(m.results))
		for i, r := range m.results {
			next[i] = r.Replace(access, nil, nil)
		}
		return rtValue(in.Operands[0], next, depth+1)
	case hlo.OpNegate:
		v, ok := rtValue(in.Operands[0], access, depth+1)
		if !ok {
			return nil, false
		}
		return Neg(v), true
	case hlo.OpAdd, hlo.OpSubtract, hlo.OpMultiply:
		if len(in.Operands) != 2 {
			return nil, false
		}
		a, ok := rtValue(in.Operands[0], access, depth+1)
		if !ok {
			return nil, false
		}
		b, ok := rtValue(in.Operands[1], access, depth+1)
		if !ok {
			return nil, false
		}
		switch in.Opcode {
		case hlo.OpAdd:
			return Add(a, b), true
		case hlo.OpSubtract:
			return Sub(a, b), true
		}
		if c, ok := b.IsConst(); ok {
			return Mul(a, c), true
		}
		if c, ok := a.IsConst(); ok {
			return Mul(b, c), true
		}
	}
	return nil, false
}

// integerLiteralAt returns element idx (row-major over the logical dims) of
// an integer constant's literal.
func integerLiteralAt(in *hlo.Instruction, idx []int64) (int64, bool) {
	if !in.Shape.Type.IsInteger() {
		return 0, false
	}
	flat := int64(0)
	for i, d := range in.Shape.Dims {
		if idx[i] < 0 || idx[i] >= d {
			return 0, false
		}
		flat = flat*d + idx[i]
	}
	fields := strings.FieldsFunc(in.Literal, func(r rune) bool {
		return r == '{' || r == '}' || r == ',' || r == ' ' || r == '\n' || r == '\t'
	})
	if flat >= int64(len(fields)) {
		return 0, false
	}
	v, err := strconv.ParseInt(fields[flat], 10, 64)
	return v, err == nil
}
