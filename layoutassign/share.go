package layoutassign

import (
	"encoding/json"
	"slices"
	"strconv"
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
//
// On the GPU a fusion user follows XLA's GPU buffer-sharing hint instead
// (gpuFusionCanShare), which decides after the in-place pairs; on the TPU
// the aliasing the compiler recorded in the user's backend_config does
// (tpuAliasingOperands), where it did.
func canShareOperand(operand *hlo.Instruction, opPath []int64, user *hlo.Instruction, userPath []int64, b Backend) bool {
	if user.Opcode == hlo.OpCustomCall && len(userPath) == 1 && userPath[0] == 1 {
		if strings.Contains(user.CustomCallTarget(), "cublas$lt$matmul") {
			return false // the cuBLASLt workspace
		}
	}
	if operand.Opcode == hlo.OpConstant {
		return false
	}
	os, ok1 := operand.Shape.Subshape(opPath)
	us, ok2 := user.Shape.Subshape(userPath)
	if !ok1 || !ok2 {
		return false
	}
	equal := sameShape(os, us)
	k := slices.Index(user.Operands, operand)
	if equal {
		for _, p := range inPlacePairs(user) {
			if p.operand < len(user.Operands) && user.Operands[p.operand] == operand && slices.Equal(p.opPath, opPath) && slices.Equal(p.outPath, userPath) {
				return true
			}
		}
	}
	if b == BackendTPU && len(userPath) == 0 {
		if share, ok := tpuAliasingOperands(user, operand); ok {
			return share
		}
	}
	if b == BackendGPU && user.Opcode == hlo.OpFusion {
		return gpuFusionCanShare(os, us, user, k, userPath)
	}
	if !equal {
		return false
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

// gpuFusionCanShare is XLA's GPU FusionCanShareBufferHint
// (xla/service/gpu/alias_info.cc): fusion f may write its output at
// userPath over its operand k (of shape os; the output's is us) when both
// hold as many elements of as many bits, and every path from the operand's
// parameter to that output goes through elementwise ops, bitcasts and
// tuples only, or reaches a scatter or sort root through the operand it
// updates, or a dynamic-update-slice root through its update (a
// dynamic-slice of the same slice aside); the path stops at the fusion's
// hero reduction, which the reduction emitter computes before any other
// output; another output reached must be elementwise with no transpose
// hero.
func gpuFusionCanShare(os, us *hlo.Shape, f *hlo.Instruction, k int, userPath []int64) bool {
	if !sameShape(os, us) {
		if !os.IsArray() || !us.IsArray() || os.ElementCount() != us.ElementCount() || os.Type.BitWidth() != us.Type.BitWidth() {
			return false
		}
	}
	p := fusedParam(f, k)
	if p == nil {
		return false
	}
	comp := f.Called[0]
	output := comp.Root
	for _, i := range userPath {
		if output == nil || output.Opcode != hlo.OpTuple || int(i) >= len(output.Operands) {
			break
		}
		output = output.Operands[i]
	}
	if output == nil {
		return false
	}
	root := output // the output, a bitcast looked through
	if root.Opcode == hlo.OpBitcast && len(root.Operands) == 1 {
		root = root.Operands[0]
	}
	roots := []*hlo.Instruction{comp.Root}
	if comp.Root != nil && comp.Root.Opcode == hlo.OpTuple {
		roots = comp.Root.Operands
	}
	var hero *hlo.Instruction // the reduction emitter's hero
	for _, r := range roots {
		if h := fusionHero(r); h != nil && h.Opcode == hlo.OpReduce {
			hero = h
			break
		}
	}
	users := map[*hlo.Instruction][]*hlo.Instruction{}
	for _, in := range comp.Instructions {
		for _, op := range in.Operands {
			if !slices.Contains(users[op], in) {
				users[op] = append(users[op], in)
			}
		}
	}
	visited := map[*hlo.Instruction]bool{p: true}
	queue := []*hlo.Instruction{p}
	found := false
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == output {
			found = true
		}
		if cur == hero {
			continue
		}
		for _, u := range users[cur] {
			if !visited[u] {
				visited[u] = true
				queue = append(queue, u)
			}
			idx := slices.Index(u.Operands, cur)
			switch {
			case u == root && u.Opcode == hlo.OpScatter && idx < max(len(u.Shape.Tuple), 1) && countOperand(u, cur) == 1:
			case u == root && u.Opcode == hlo.OpSort && countOperand(u, cur) == 1:
				if len(userPath) != 1 || int(userPath[0]) != idx {
					return false
				}
			case root.Opcode == hlo.OpDynamicUpdateSlice && u.Opcode == hlo.OpDynamicSlice && len(root.Operands) > 1 &&
				len(u.Operands) > 0 && root.Operands[0] == u.Operands[0] && u.Shape.Equal(root.Operands[1].Shape):
				if !effectiveScalar(&u.Shape) || !effectiveScalar(&root.Operands[1].Shape) {
					for i := 1; i < len(u.Operands); i++ {
						if i+1 >= len(root.Operands) || u.Operands[i] != root.Operands[i+1] {
							return false
						}
					}
				}
			case !(u.IsElementwise() || u.Opcode == hlo.OpDynamicUpdateSlice && idx == 0) || u.Opcode == hlo.OpCopy:
				if u.Opcode != hlo.OpBitcast && u.Opcode != hlo.OpTuple && u != hero &&
					(u != root || u.Opcode != hlo.OpDynamicUpdateSlice || idx != 1) {
					return false
				}
			}
		}
	}
	if len(roots) > 1 {
		other, transposeHero := false, false
		for _, r := range roots {
			if !visited[r] {
				continue
			}
			if r != output {
				other = true
			}
			if h := fusionHero(r); h != nil && (h.Opcode == hlo.OpTranspose || h.Opcode == hlo.OpCopy) {
				transposeHero = true
			}
		}
		if other && (!root.IsElementwise() || transposeHero) {
			return false
		}
	}
	return found
}

// fusionHero is the instruction a fusion root's emitter is chosen by: the
// root, looked through the elementwise ops of one operand and bitcasts
// above it (XLA's FindNonTrivialHero, simplified).
func fusionHero(r *hlo.Instruction) *hlo.Instruction {
	for r != nil && len(r.Operands) == 1 && (r.IsElementwise() || r.Opcode == hlo.OpBitcast) {
		r = r.Operands[0]
	}
	return r
}

// effectiveScalar reports whether s has one element.
func effectiveScalar(s *hlo.Shape) bool {
	return s.IsArray() && s.ElementCount() == 1
}

// tpuAliasingOperands reads the aliasing the TPU compiler records in
// user's backend_config after its buffer assignment,
// "aliasing_operands":{"lists":[{"indices":["0","2"]}]}: each list names
// the positions that share one buffer, operand i as "i" and the result as
// the operand count. It reports whether operand shares the result's
// buffer, and false for ok when user records nothing (a module from
// elsewhere). In the TPU dumps of the xla-diff seeds the heap traces share
// a result with an operand where the list says so (a select over the add
// it selects, 2a34ff75; an all-reduce over its operand, 1088 and 5139) and
// allocate it apart where the lists are empty (a select, 5184, whose
// operands die there and are as large).
func tpuAliasingOperands(user, operand *hlo.Instruction) (share, ok bool) {
	v, found := user.Attr("backend_config")
	if !found || !strings.Contains(v, `"aliasing_operands"`) {
		return false, false
	}
	var cfg struct {
		AliasingOperands *struct {
			Lists []struct {
				Indices []string `json:"indices"`
			} `json:"lists"`
		} `json:"aliasing_operands"`
	}
	if err := json.Unmarshal([]byte(v), &cfg); err != nil || cfg.AliasingOperands == nil {
		return false, false
	}
	out := strconv.Itoa(len(user.Operands))
	for _, l := range cfg.AliasingOperands.Lists {
		if !slices.Contains(l.Indices, out) {
			continue
		}
		for k, op := range user.Operands {
			if op == operand && slices.Contains(l.Indices, strconv.Itoa(k)) {
				return true, true
			}
		}
	}
	return false, true
}
