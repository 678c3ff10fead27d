package layoutassign

import (
	"slices"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// elementwise reports whether in is elementwise on its operands, a copy
// aside: it changes the layout.
func elementwise(in *hlo.Instruction) bool {
	return in.IsElementwise() && in.Opcode != hlo.OpCopy
}

// usesElementwise reports whether every instruction that transitively
// uses param in its computation is elementwise on it (or a tuple), as
// XLA's AreTransitiveUsesElementwiseOrTuple.
func usesElementwise(param *hlo.Instruction) bool {
	c := param.Parent
	if c == nil {
		return false
	}
	reached := map[*hlo.Instruction]bool{param: true}
	work := []*hlo.Instruction{param}
	for len(work) > 0 {
		cur := work[len(work)-1]
		work = work[:len(work)-1]
		for _, u := range c.Instructions {
			if reached[u] || !slices.Contains(u.Operands, cur) {
				continue
			}
			if !elementwise(u) && u.Opcode != hlo.OpTuple {
				return false
			}
			reached[u] = true
			work = append(work, u)
		}
	}
	return true
}

// fusedParam returns the parameter of fusion f's computation that operand
// number k binds, or nil.
func fusedParam(f *hlo.Instruction, k int) *hlo.Instruction {
	if len(f.Called) == 0 || f.Called[0] == nil || k < 0 || k >= len(f.Called[0].Params) {
		return nil
	}
	return f.Called[0].Params[k]
}

// canShareOperand reports whether user may write its result at userPath
// into the buffer of operand's value at opPath when that value dies at
// user, as XLA's HloDataflowAnalysis::CanShareOperandBufferWithUser: never
// over a constant, only between equal shapes and layouts, always for an
// in-place pair, for a loop or input fusion whose parameter is only used
// elementwise, for an output fusion adding to a dot, for while and
// conditional, for the updated operand of a dynamic-update-slice or
// scatter, and for elementwise ops.
func canShareOperand(operand *hlo.Instruction, opPath []int64, user *hlo.Instruction, userPath []int64) bool {
	if user.Opcode == hlo.OpCustomCall && len(userPath) == 1 && userPath[0] == 1 {
		if t, _ := user.Attr("custom_call_target"); strings.Contains(t, "cublas$lt$matmul") {
			return false // the cuBLASLt workspace
		}
	}
	if operand.Opcode == hlo.OpConstant {
		return false
	}
	os, ok1 := operand.Shape.Subshape(opPath)
	us, ok2 := user.Shape.Subshape(userPath)
	if !ok1 || !ok2 || !sameShape(os, us) {
		return false
	}
	k := slices.Index(user.Operands, operand)
	for _, p := range inPlacePairs(user) {
		if p.operand < len(user.Operands) && user.Operands[p.operand] == operand && slices.Equal(p.opPath, opPath) && slices.Equal(p.outPath, userPath) {
			return true
		}
	}
	switch user.Opcode {
	case hlo.OpFusion:
		return fusionCanShare(user, k, userPath)
	case hlo.OpWhile, hlo.OpConditional:
		return true
	case hlo.OpDynamicUpdateSlice, hlo.OpScatter, hlo.OpSetDimensionSize:
		return countOperand(user, operand) == 1 && k == 0
	case hlo.OpTriangularSolve:
		return countOperand(user, operand) == 1 && k == 1
	case hlo.OpSort:
		return len(user.Operands) == 1 || countOperand(user, operand) == 1 && len(userPath) > 0 && int(userPath[0]) == k
	}
	return elementwise(user)
}

// fusionCanShare is canShareOperand for a fusion user, its operand k and
// its output at userPath.
func fusionCanShare(f *hlo.Instruction, k int, userPath []int64) bool {
	p := fusedParam(f, k)
	if p == nil {
		return false
	}
	// A fusion that sorts (XLA's GPU sort fusion, kCustom) writes sort
	// output i over operand i, when the sort reads that parameter once and
	// nothing else does (XLA's GPU FusionCanShareBufferHint).
	if root := f.Called[0].Root; root != nil && root.Opcode == hlo.OpSort {
		i := slices.Index(root.Operands, p)
		return i >= 0 && onlyUser(p, root) && (len(root.Operands) == 1 && len(userPath) == 0 ||
			len(userPath) == 1 && int(userPath[0]) == i)
	}
	kind := f.Typed.FusionKind
	if kind == "" {
		kind, _ = f.Attr("kind")
	}
	switch kind {
	case "kLoop", "kInput":
		return usesElementwise(p)
	case "kOutput":
		root := f.Called[0].Root
		if root == nil || root.Opcode != hlo.OpAdd || len(root.Operands) != 2 {
			return false
		}
		for i, op := range root.Operands {
			if op.Opcode == hlo.OpDot || op.Opcode == hlo.OpConvolution {
				other := root.Operands[1-i]
				return other == p && onlyUser(p, root)
			}
		}
		return false
	}
	return usesElementwise(p)
}

// onlyUser reports whether u is the only user of in in its computation,
// reading it once.
func onlyUser(in, u *hlo.Instruction) bool {
	n := 0
	for _, x := range in.Parent.Instructions {
		n += countOperand(x, in)
	}
	return n == 1 && countOperand(u, in) == 1
}

func countOperand(user, op *hlo.Instruction) int {
	n := 0
	for _, o := range user.Operands {
		if o == op {
			n++
		}
	}
	return n
}

// sameShape reports whether two shapes are equal, layouts included (as
// ShapeUtil::Equal), without printing arrays.
func sameShape(a, b *hlo.Shape) bool {
	switch {
	case !a.EqualIgnoringLayout(*b):
		return false
	case a.IsArray():
		return sameLayout(a.Layout, b.Layout, a.Rank())
	}
	return a.Equal(*b)
}
