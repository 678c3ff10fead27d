package passes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// More of XLA's checks (shape_inference.cc, hlo_verifier.cc) on what the
// analyses read, beside verify_attrs.go: the attributes of broadcast,
// transpose, bitcast, concatenate, iota, sort, reduce-window and
// select-and-scatter; layouts (minor_to_major a permutation, tiles of
// positive sizes, a padded size within int64); the signatures of the
// computations while, conditional, fusion and the reducers call; arrays as
// the operands of elementwise ops. Per module: the values' total size and
// entry_computation_layout's layouts.

// moreAttrs runs the checks of this file on an instruction whose operands
// are defined and whose operand count is right; info is its opcode's.
func (v *verifier) moreAttrs(in *hlo.Instruction, info opInfo) {
	v.layouts(in, &in.Shape)
	problem := elementwiseOperands(in, info)
	if problem == "" {
		problem = calledSignature(in)
	}
	if check := moreAttrChecks[in.Opcode]; problem == "" && check != nil {
		problem = check(in)
	}
	if problem != "" {
		v.errorf(in, in.Parent, "%s", problem)
	}
}

// moreAttrChecks are the attribute checks of moreAttrs by opcode.
var moreAttrChecks = map[hlo.Opcode]func(*hlo.Instruction) string{
	hlo.OpBroadcast:        dimsPresent,
	hlo.OpTranspose:        dimsPresent,
	hlo.OpBitcast:          bitcastProblem,
	hlo.OpConcatenate:      concatProblem,
	hlo.OpIota:             iotaProblem,
	hlo.OpSort:             sortProblem,
	hlo.OpReduceWindow:     reduceWindowProblem,
	hlo.OpSelectAndScatter: selectAndScatterProblem,
}

func iotaProblem(in *hlo.Instruction) string {
	if d := in.Typed.IotaDimension; in.Shape.IsArray() && (d < 0 || d >= int64(in.Shape.Rank())) {
		return fmt.Sprintf("iota_dimension=%d out of range for %s", d, in.Shape.StringNoLayout())
	}
	return ""
}

// elementwiseOperands: elementwise ops take arrays (a copy may copy a
// tuple); a compare of a tuple reached the indexing pass.
func elementwiseOperands(in *hlo.Instruction, info opInfo) string {
	if !info.elementwise || in.Opcode == hlo.OpCopy {
		return ""
	}
	for k, op := range in.Operands {
		if op.Shape.IsTuple() {
			return fmt.Sprintf("operand %d of %s is the tuple %s, want an array", k, in.Opcode, op.Shape.StringNoLayout())
		}
	}
	return ""
}

// dimsPresent: broadcast and transpose need dimensions={...} (but for a
// broadcast of a scalar), each once; the shape checks say the rest.
func dimsPresent(in *hlo.Instruction) string {
	dims, ok := dimsAttr(in)
	if !ok {
		if in.Opcode == hlo.OpBroadcast && in.Operands[0].Shape.Rank() == 0 {
			return ""
		}
		return fmt.Sprintf("%s has no dimensions attribute", in.Opcode)
	}
	for i, d := range dims {
		if slices.Contains(dims[:i], d) {
			return fmt.Sprintf("dimensions %s: dimension %d repeated", braces(dims), d)
		}
	}
	return ""
}

// bitcastProblem: a bitcast keeps the number of bytes. XLA's verifier
// compares the target's sizes of the two shapes as laid out (on a TPU
// with tiling padding: f32[64,1000]{1,0:T(8,128)} is 64x1024 elements) and
// also accepts equal data sizes (allow_bitcast_to_have_different_size);
// without the target, the data sizes and the padded sizes of the stated
// layouts are compared, and only a bitcast that changes both is refused.
func bitcastProblem(in *hlo.Instruction) string {
	op := &in.Operands[0].Shape
	if !arrays(in, 1) || op.Dynamic != nil || in.Shape.Dynamic != nil {
		return ""
	}
	a, errA := hlo.UnpaddedBytes(*op, hlo.SizeOptions{})
	b, errB := hlo.UnpaddedBytes(in.Shape, hlo.SizeOptions{})
	if errA != nil || errB != nil || a == b {
		return ""
	}
	pa, errA := hlo.PaddedBytes(*op, hlo.SizeOptions{})
	pb, errB := hlo.PaddedBytes(in.Shape, hlo.SizeOptions{})
	if errA == nil && errB == nil && pa == pb {
		return ""
	}
	return fmt.Sprintf("bitcast from %s (%d bytes) to %s (%d bytes) changes the size", op.StringNoLayout(), a, in.Shape.StringNoLayout(), b)
}

// concatProblem: one dimension, and the operands equal in every other
// (concatenateShape checks the ranks and the concatenated size).
func concatProblem(in *hlo.Instruction) string {
	if !arrays(in, len(in.Operands)) {
		return ""
	}
	dims := in.Typed.Dimensions
	if len(dims) != 1 {
		return fmt.Sprintf("concatenate dimensions %s, want one dimension", braces(dims))
	}
	if d := dims[0]; d < 0 || d >= int64(in.Shape.Rank()) {
		return "" // concatenateShape says it
	}
	for _, op := range in.Operands {
		s := &op.Shape
		if s.Rank() != in.Shape.Rank() || s.Dynamic != nil || in.Shape.Dynamic != nil {
			return "" // the shape check says it
		}
		for i := range s.Dims {
			if int64(i) != dims[0] && s.Dims[i] != in.Shape.Dims[i] {
				return fmt.Sprintf("operand %s differs from %s in dimension %d, which is not concatenated", s.StringNoLayout(), in.Shape.StringNoLayout(), i)
			}
		}
	}
	return ""
}

func sortProblem(in *hlo.Instruction) string {
	if !arrays(&hlo.Instruction{Shape: in.Operands[0].Shape, Operands: in.Operands}, len(in.Operands)) {
		return ""
	}
	first := &in.Operands[0].Shape
	for _, op := range in.Operands[1:] {
		if !slices.Equal(op.Shape.Dims, first.Dims) {
			return fmt.Sprintf("sort operands %s and %s differ in dimensions", first.StringNoLayout(), op.Shape.StringNoLayout())
		}
	}
	dims := in.Typed.Dimensions
	if len(dims) != 1 {
		return fmt.Sprintf("sort dimensions %s, want one dimension", braces(dims))
	}
	return dimsProblem("dimensions", dims, first.Rank(), false)
}

// windowProblem checks window={...} over the base dimensions (size and
// stride >= 1, dilations >= 1) and returns the window's output
// dimensions, XLA's InferWindowOutputShape.
func windowProblem(in *hlo.Instruction, base []int64) ([]int64, string) {
	w := in.Typed.Window
	if len(w) != len(base) {
		return nil, fmt.Sprintf("window has %d dimensions, want %d", len(w), len(base))
	}
	out := make([]int64, len(w))
	for i, d := range w {
		if d.Size <= 0 || d.Stride <= 0 || d.BaseDilation < 1 || d.WindowDilation < 1 {
			return nil, fmt.Sprintf("window dimension %d: want size and stride >= 1 and dilations >= 1, found size=%d stride=%d lhs_dilate=%d rhs_dilate=%d",
				i, d.Size, d.Stride, d.BaseDilation, d.WindowDilation)
		}
		n, ok := windowOutput(base[i], d)
		if !ok {
			return nil, fmt.Sprintf("window dimension %d over size %d overflows int64", i, base[i])
		}
		out[i] = n
	}
	return out, ""
}

// windowOutput is the number of positions of a window dimension over a
// base of size n: the dilated, padded base against the dilated window, at
// the stride.
func windowOutput(n int64, d hlo.WindowDim) (int64, bool) {
	dilated := func(x, k int64) (int64, bool) {
		if x == 0 {
			return 0, true
		}
		y, ok := hlo.MulInt64(x-1, k)
		return y + 1, ok
	}
	base, ok1 := dilated(n, d.BaseDilation)
	win, ok2 := dilated(d.Size, d.WindowDilation)
	padded, ok3 := hlo.AddInt64(base, d.PadLow)
	padded, ok4 := hlo.AddInt64(padded, d.PadHigh)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return 0, false
	}
	if padded < win {
		return 0, true
	}
	return (padded-win)/d.Stride + 1, true
}

// reduceWindowProblem: the window over the inputs gives the result (a
// tuple of such for several inputs).
func reduceWindowProblem(in *hlo.Instruction) string {
	op := &in.Operands[0].Shape
	if !op.IsArray() || op.Dynamic != nil {
		return ""
	}
	want, p := windowProblem(in, op.Dims)
	if p != "" {
		return p
	}
	res := &in.Shape
	if n := len(in.Operands) / 2; n > 1 {
		if !res.IsTuple() || len(res.Tuple) != n {
			return fmt.Sprintf("reduce-window of %d inputs has shape %s, want a %d-tuple", n, res.StringNoLayout(), n)
		}
		res = &res.Tuple[0]
	}
	if !slices.Equal(res.Dims, want) {
		return fmt.Sprintf("result %s, want dimensions %s", res.StringNoLayout(), brackets(want))
	}
	return ""
}

// selectAndScatterProblem: the source has the window's output dimensions
// over the operand; the result is the operand's shape.
func selectAndScatterProblem(in *hlo.Instruction) string {
	op, src := &in.Operands[0].Shape, &in.Operands[1].Shape
	if !arrays(in, 3) || op.Dynamic != nil || src.Dynamic != nil {
		return ""
	}
	want, p := windowProblem(in, op.Dims)
	switch {
	case p != "":
		return p
	case !slices.Equal(src.Dims, want):
		return fmt.Sprintf("source %s, want dimensions %s (the window over %s)", src.StringNoLayout(), brackets(want), op.StringNoLayout())
	}
	return wantDims(in, op.Dims)
}

// calledBy returns the computation the instruction's attribute name
// calls, or nil.
func calledBy(in *hlo.Instruction, name string) *hlo.Computation {
	val, ok := in.Attr(name)
	if !ok {
		return nil
	}
	for _, c := range in.Called {
		if c != nil && c.Name == strings.TrimPrefix(val, "%") {
			return c
		}
	}
	return nil
}

// signature checks a called computation's parameters against the values
// it is called with (ignoring layouts), and its root against want when
// want is not nil.
func signature(role string, c *hlo.Computation, args []*hlo.Instruction, want *hlo.Shape) string {
	if len(c.Params) != len(args) {
		return fmt.Sprintf("%s computation %s has %d parameters, want %d", role, c.Name, len(c.Params), len(args))
	}
	for k, p := range c.Params {
		if p != nil && !p.Shape.EqualIgnoringLayout(args[k].Shape) {
			return fmt.Sprintf("%s computation %s parameter %d has shape %s, want %s", role, c.Name, k, p.Shape.StringNoLayout(), args[k].Shape.StringNoLayout())
		}
	}
	if want != nil && c.Root != nil && !c.Root.Shape.EqualIgnoringLayout(*want) {
		return fmt.Sprintf("%s computation %s returns %s, want %s", role, c.Name, c.Root.Shape.StringNoLayout(), want.StringNoLayout())
	}
	return ""
}

// arity checks the parameter count of a computation applied to elements
// (a reducer, comparator, mapped or select/scatter function).
func arity(in *hlo.Instruction, attr string, want int) string {
	if c := calledBy(in, attr); c != nil && len(c.Params) != want {
		return fmt.Sprintf("%s computation %s has %d parameters, want %d", attr, c.Name, len(c.Params), want)
	}
	return ""
}

// calledSignature checks the computations an instruction calls against
// its operands and result, as XLA's HloVerifier: a while's condition and
// body, a conditional's branches, a fusion's parameters, and the arity of
// reducers, comparators and mapped functions (a call's is callProblem's).
func calledSignature(in *hlo.Instruction) string {
	n := len(in.Operands)
	switch in.Opcode {
	case hlo.OpFusion:
		if len(in.Called) == 1 && in.Called[0] != nil && len(in.Called[0].Params) == n {
			return signature("fused", in.Called[0], in.Operands, nil)
		}
	case hlo.OpWhile:
		pred := hlo.MakeShape(hlo.PRED)
		if c := calledBy(in, "condition"); c != nil {
			if p := signature("condition", c, in.Operands, &pred); p != "" {
				return p
			}
		}
		if c := calledBy(in, "body"); c != nil {
			return signature("body", c, in.Operands, &in.Shape)
		}
	case hlo.OpConditional:
		if len(in.Called) == 0 || n != len(in.Called)+1 {
			return ""
		}
		for k, c := range in.Called {
			if c == nil {
				continue
			}
			if p := signature("branch", c, in.Operands[k+1:k+2], &in.Shape); p != "" {
				return p
			}
		}
	case hlo.OpReduce, hlo.OpReduceWindow:
		return arity(in, "to_apply", 2*(n/2))
	case hlo.OpSort:
		return arity(in, "to_apply", 2*n)
	case hlo.OpScatter:
		return arity(in, "to_apply", 2*((n-1)/2))
	case hlo.OpMap:
		return arity(in, "to_apply", n)
	case hlo.OpSelectAndScatter:
		if p := arity(in, "select", 2); p != "" {
			return p
		}
		return arity(in, "scatter", 2)
	case hlo.OpAllReduce, hlo.OpAllReduceStart, hlo.OpReduceScatter:
		return arity(in, "to_apply", 2)
	}
	return ""
}

// layouts checks every array leaf's layout: minor_to_major a permutation
// of the dimensions, tiles of sizes >= 1 or "*", and the padded size
// within int64.
func (v *verifier) layouts(in *hlo.Instruction, s *hlo.Shape) {
	if s.IsTuple() {
		for i := range s.Tuple {
			v.layouts(in, &s.Tuple[i])
		}
		return
	}
	if !s.IsArray() || s.Layout == nil {
		return
	}
	if !hlo.IsPermutation(s.Layout.MinorToMajor, s.Rank()) {
		v.errorf(in, in.Parent, "layout of %s: minor_to_major %s is not a permutation of its %d dimensions", s.StringNoLayout(), braces(s.Layout.MinorToMajor), s.Rank())
		return
	}
	for _, t := range s.Layout.Tiles {
		for _, d := range t {
			if d <= 0 && d != hlo.CombinedDim {
				v.errorf(in, in.Parent, "layout of %s: tile %s: want sizes >= 1 or *", s.StringNoLayout(), t)
				return
			}
		}
	}
	if _, small := bytesBound(s); !small && sizeKnown(s) && (len(s.Layout.Tiles) > 0 || s.Layout.TailPaddingAlignment > 1) {
		if _, err := hlo.PaddedBytes(*s, hlo.SizeOptions{}); err != nil {
			v.errorf(in, in.Parent, "%v", err)
		}
	}
}

// bytesBound is a cheap upper bound of an array's padded bytes: padding a
// dimension of size d >= 1 to a multiple of t gives at most d*t, so the
// element count times every tile's sizes and the tail alignment bounds
// the padded count. small reports a bound under maxModuleBytes, which
// makes the exact (costlier) size unnecessary for the overflow checks.
func bytesBound(s *hlo.Shape) (bound int64, small bool) {
	if !s.IsArray() {
		return 0, true // tuples' leaves are counted; tokens are nothing
	}
	n, ok := int64(1), true
	for _, d := range s.Dims {
		if d < 0 { // unbounded: no size
			return 0, true
		}
		if n, ok = hlo.MulInt64(n, d); !ok {
			break
		}
	}
	if l := s.Layout; ok && l != nil {
		for _, t := range l.Tiles {
			for _, d := range t {
				if d > 0 && ok {
					n, ok = hlo.MulInt64(n, d)
				}
			}
		}
		if ok && l.TailPaddingAlignment > 1 {
			n, ok = hlo.MulInt64(n, l.TailPaddingAlignment)
		}
	}
	bits := int64(64) // the widest element, E(n) and 4-byte PRED included
	if l := s.Layout; l != nil && l.ElementSizeBits > bits {
		bits = l.ElementSizeBits
	}
	if ok {
		n, ok = hlo.MulInt64(n, bits/8+1)
	}
	return n, ok && n < maxModuleBytes
}

// sizeKnown reports whether the padded size of an array shape can be
// computed: no unbounded dimension, and no tile ending in "*" (XLA prints
// T(2,*), whose size hlo does not model).
func sizeKnown(s *hlo.Shape) bool {
	if slices.Contains(s.Dims, hlo.UnboundedDim) {
		return false
	}
	if s.Layout != nil {
		for _, t := range s.Layout.Tiles {
			if len(t) == 0 || t[len(t)-1] == hlo.CombinedDim {
				return false
			}
		}
	}
	return true
}

// maxModuleBytes bounds the bytes of all of a module's values together:
// the analyses add sizes up (totals, live sets, peaks, traffic), and under
// half of int64 no sum of them, with alignment and index tables, can
// overflow.
const maxModuleBytes = 1 << 62

// moduleBytes reports the value at which a module's values (every
// instruction's result, at its stated layout) pass maxModuleBytes.
func moduleBytes(u *Unit) {
	// The bounds of the values' sizes first: cheap, and far under the
	// limit for any module a machine can hold.
	total, ok := int64(0), true
	for _, c := range u.Module.Computations {
		for _, in := range c.Instructions {
			if in == nil {
				continue
			}
			b, small := valueBound(&in.Shape)
			if total, ok = hlo.AddInt64(total, b); !small || !ok || total >= maxModuleBytes {
				moduleBytesExact(u)
				return
			}
		}
	}
}

// valueBound is bytesBound of a value: for a tuple, the sum over its
// leaves, each with an 8-byte pointer.
func valueBound(s *hlo.Shape) (bound int64, small bool) {
	if !s.IsTuple() {
		return bytesBound(s)
	}
	bound, small = 0, true
	for i := range s.Tuple {
		e := &s.Tuple[i]
		b, ok := valueBound(e)
		if !e.IsTuple() {
			b += 8
		}
		var fits bool
		bound, fits = hlo.AddInt64(bound, b)
		small = small && ok && fits
	}
	return bound, small
}

// moduleBytesExact adds up the values' padded sizes exactly.
func moduleBytesExact(u *Unit) {
	total := int64(0)
	for _, c := range u.Module.Computations {
		for _, in := range c.Instructions {
			if in == nil {
				continue
			}
			n, err := hlo.PaddedBytes(in.Shape, hlo.SizeOptions{PointerSize: 8})
			if err != nil {
				continue // an unbounded dimension or an unknown tiling: no size
			}
			var ok bool
			if total, ok = hlo.AddInt64(total, n); !ok || total > maxModuleBytes {
				u.Errorf(in, "the module's values up to %s total more than 2^62 bytes; their sums would overflow", in.Shape.StringNoLayout())
				return
			}
		}
	}
}

// entryLayout checks the layouts of entry_computation_layout, which the
// layout pass keeps (the header keeps no positions: the errors name the
// module).
func entryLayout(u *Unit) {
	ps, err := u.Module.EntryComputationLayout()
	if err != nil || ps == nil {
		return // the parser reported it, or there is none
	}
	check := func(what string, s hlo.Shape) bool {
		for _, l := range s.Leaves() {
			if !l.Shape.IsArray() || l.Shape.Layout == nil || !sizeKnown(l.Shape) {
				continue
			}
			if _, err := hlo.PaddedBytes(*l.Shape, hlo.SizeOptions{}); err != nil {
				u.Errorf(nil, "entry_computation_layout: %s: %v", what, err)
				return false
			}
		}
		return true
	}
	for i, p := range ps.Params {
		if !check(fmt.Sprintf("parameter %d", i), p) {
			return
		}
	}
	check("result", ps.Result)
}
