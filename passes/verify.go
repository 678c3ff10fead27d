package passes

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hlo-opt/hlo-opt/graph"
	"github.com/hlo-opt/hlo-opt/hlo"
)

// Verify checks the module's structural invariants. The pipeline also runs
// it after every pass that changed the IR (unless Options.NoVerify).
//
// Per computation (fused computations are checked with the computation
// whose fusion calls them): a root that belongs to the computation;
// instruction indices and parents consistent; unique names; operands and
// control predecessors defined in the same computation; no dependence
// cycle; parameter numbers dense; operand counts of the opcodes it knows;
// shapes (ignoring layouts) of elementwise ops, get-tuple-element, tuple,
// broadcast, transpose, reshape, slice, concatenate, fusion and while;
// called computations present with the right number of parameters; the
// attributes the analyses read, as XLA's shape inference checks them, and
// the result shapes they give (verify_attrs.go, verify_more.go: dimension
// numbers, bounds, windows, layouts, called computations' signatures).
// Only a right operand count lets the shape and attribute checks run.
// Per module: an entry, unique computation names, no recursion, values
// totalling under 2^62 bytes, entry_computation_layout's sizes.
var Verify = &Pass{
	Name:           "verify",
	Doc:            "check operands, operand counts, shapes, roots and called computations",
	ResultType:     reflect.TypeFor[*VerifyResult](),
	RunComputation: verifyComputation,
	Run:            verifyModule,
}

// VerifyResult summarises a successful verification.
type VerifyResult struct {
	Computations int `json:"computations"`
	Instructions int `json:"instructions"`
}

// WriteText writes "verify: ok (N computations, M instructions)".
func (r *VerifyResult) WriteText(w io.Writer, _ *hlo.Module) error {
	_, err := fmt.Fprintf(w, "verify: ok (%d computations, %d instructions)\n", r.Computations, r.Instructions)
	return err
}

// ModuleReport is the JSON value of "verify" at module level.
func (r *VerifyResult) ModuleReport() any { return r }

func verifyModule(u *Unit) (any, error) {
	m := u.Module
	if m.Entry == nil && (m.Truncated == nil || !m.Truncated.Entry) {
		u.Errorf(nil, "module %s has no entry computation", m.Name)
	} else if m.Entry != nil && !slices.Contains(m.Computations, m.Entry) {
		u.Errorf(nil, "entry computation %s is not in the module", m.Entry.Name)
	}
	names := nameSets.Get().(*nameSet)
	defer nameSets.Put(names)
	names.reset(len(m.Computations))
	compName := func(i int) string { return m.Computations[i].Name }
	for i, c := range m.Computations {
		if names.add(c.Name, i, compName) {
			u.Errorf(nil, "duplicate computation name %s", c.Name)
		}
	}
	if err := u.CallGraph.Acyclic(); err != nil {
		var ce *graph.CycleError
		if errors.As(err, &ce) && len(ce.Cycles) > 0 {
			if in := cycleCall(m, ce.Cycles[0]); in != nil {
				e := newError(m, in.Parent, in, "call cycle through "+strings.Join(ce.Cycles[0], ", "))
				u.diags = append(u.diags, e)
				err = nil
			}
		}
		if err != nil {
			u.Errorf(nil, "%v", err)
		}
	}
	res := &VerifyResult{}
	for _, c := range m.Computations {
		res.Computations++
		res.Instructions += len(c.Instructions)
	}
	moduleBytes(u)
	entryLayout(u)
	return res, nil
}

// cycleCall returns the first instruction, in module order, of a
// computation of cycle that calls a computation of cycle: where to point
// at the cycle.
func cycleCall(m *hlo.Module, cycle []string) *hlo.Instruction {
	for _, c := range m.Computations {
		if !slices.Contains(cycle, c.Name) {
			continue
		}
		for _, in := range c.Instructions {
			for _, cc := range in.Called {
				if cc != nil && slices.Contains(cycle, cc.Name) {
					return in
				}
			}
		}
	}
	return nil
}

func verifyComputation(u *Unit) (any, error) {
	v := &verifier{u: u, root: u.Computation}
	v.computation(u.Computation)
	return nil, nil
}

type verifier struct {
	u *Unit
	// root is the unit's computation; done holds the fused computations
	// verified with it (allocated on first use).
	root *hlo.Computation
	done map[*hlo.Computation]bool
}

func (v *verifier) errorf(in *hlo.Instruction, c *hlo.Computation, format string, args ...any) {
	e := newError(v.u.Module, c, in, fmt.Sprintf(format, args...))
	v.u.diags = append(v.u.diags, e)
}

// smallNames is the size up to which a computation's names are checked for
// duplicates by comparing with the earlier ones instead of with a map.
const smallNames = 16

// enter reports whether c is to be verified now (a fused computation once
// per unit) and checks that it has instructions and a root of its own.
func (v *verifier) enter(c *hlo.Computation) bool {
	if c != v.root {
		if v.done[c] {
			return false
		}
		if v.done == nil {
			v.done = map[*hlo.Computation]bool{}
		}
		v.done[c] = true
	}
	if len(c.Instructions) == 0 {
		v.errorf(nil, c, "computation has no instructions")
		return false
	}
	if c.Root == nil {
		v.errorf(nil, c, "computation has no root")
	} else if c.Root.Parent != c || !inComp(c, c.Root) {
		v.errorf(nil, c, "root %s is not an instruction of the computation", c.Root.Name)
	}
	return true
}

func (v *verifier) computation(c *hlo.Computation) {
	if !v.enter(c) {
		return
	}
	var names *nameSet
	if len(c.Instructions) > smallNames {
		names = nameSets.Get().(*nameSet)
		names.reset(len(c.Instructions))
		defer nameSets.Put(names)
	}
	instName := func(k int) string { return c.Instructions[k].Name }
	operandsOK := true
	// definedBeforeUse: every operand and control predecessor comes
	// before its user, so there can be no dependence cycle.
	definedBeforeUse := true
	nparams := 0
	for i, in := range c.Instructions {
		if in == nil {
			v.errorf(nil, c, "instruction %d is nil", i)
			operandsOK = false
			continue
		}
		if i%1024 == 0 && v.u.Context().Err() != nil {
			return
		}
		if in.Parent != c || in.Index != i {
			v.errorf(in, c, "instruction has parent/index %s/%d, want %s/%d", parentName(in), in.Index, c.Name, i)
			operandsOK = false
		}
		if names != nil {
			if names.add(in.Name, i, instName) {
				v.errorf(in, c, "duplicate instruction name %s", in.Name)
			}
		} else if seenName(c.Instructions[:i], in.Name) {
			v.errorf(in, c, "duplicate instruction name %s", in.Name)
		}
		defined, before := v.references(c, in, i, in.Operands, "operand")
		definedP, beforeP := v.references(c, in, i, in.ControlPredecessors, "control predecessor")
		operandsOK = operandsOK && defined && definedP
		definedBeforeUse = definedBeforeUse && before && beforeP
		if in.Opcode == hlo.OpParameter {
			nparams++
			n := in.ParameterNumber
			if n < 0 || n >= len(c.Params) || c.Params[n] != in {
				v.errorf(in, c, "parameter(%d) is not parameter %d of the computation", n, n)
			}
		}
		info := lookupOp(in.Opcode)
		if v.operandCount(in, info) && operandsOK {
			v.shape(in, info)
			v.attrs(in, info)
		}
		v.calls(in)
	}
	if nparams != len(c.Params) {
		v.errorf(nil, c, "computation has %d parameter instructions, %d parameter slots", nparams, len(c.Params))
	}
	// Operands defined before their users cannot form a cycle; only
	// otherwise is the dependence graph built and sorted.
	if operandsOK && !definedBeforeUse {
		if d, err := graph.NewDAG(c); err != nil {
			v.errorf(nil, c, "%v", err)
		} else if _, err := d.TopoOrder(); err != nil {
			v.errorf(nil, c, "%v", err)
		}
	}
}

// references checks the operands (or control predecessors) refs of in,
// the instruction at index i of c: each defined in c (defined), and each
// before in (before).
func (v *verifier) references(c *hlo.Computation, in *hlo.Instruction, i int, refs []*hlo.Instruction, what string) (defined, before bool) {
	defined, before = true, true
	for k, op := range refs {
		if op == nil || !inComp(c, op) {
			v.errorf(in, c, "%s %d (%s) is not defined in computation %s", what, k, nameOf(op), c.Name)
			defined = false
		} else if op.Index >= i {
			before = false
		}
	}
	return defined, before
}

// nameSet is a set of names for finding duplicates: an open-addressing
// table of item (instruction, computation) indices and name hashes, reused
// through nameSets. It is smaller and faster than a map[string]bool.
type nameSet struct {
	slots []nameSlot
}

type nameSlot struct {
	idx  int32 // instruction index + 1; 0: empty
	hash uint32
}

var (
	nameSets = sync.Pool{New: func() any { return new(nameSet) }}
	nameSeed = maphash.MakeSeed()
)

// reset empties the set and sizes it for n names.
func (s *nameSet) reset(n int) {
	size := 16
	for size < 2*n {
		size *= 2
	}
	if cap(s.slots) >= size {
		s.slots = s.slots[:size]
		clear(s.slots)
	} else {
		s.slots = make([]nameSlot, size)
	}
}

// add adds name, the name of item i, and reports whether an item added
// earlier had it; nameAt returns the name of an earlier item.
func (s *nameSet) add(name string, i int, nameAt func(int) string) bool {
	h := maphash.String(nameSeed, name)
	h32 := uint32(h >> 32)
	mask := uint64(len(s.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		e := &s.slots[j]
		if e.idx == 0 {
			e.idx, e.hash = int32(i+1), h32
			return false
		}
		if e.hash == h32 && nameAt(int(e.idx-1)) == name {
			return true
		}
	}
}

// seenName reports whether one of ins is called name.
func seenName(ins []*hlo.Instruction, name string) bool {
	for _, in := range ins {
		if in != nil && in.Name == name {
			return true
		}
	}
	return false
}

func inComp(c *hlo.Computation, in *hlo.Instruction) bool {
	return in.Parent == c && in.Index >= 0 && in.Index < len(c.Instructions) && c.Instructions[in.Index] == in
}

func nameOf(in *hlo.Instruction) string {
	if in == nil {
		return "<nil>"
	}
	return in.Name
}

func parentName(in *hlo.Instruction) string {
	if in.Parent == nil {
		return "<nil>"
	}
	return in.Parent.Name
}

// opInfo is what the verifier knows about an opcode: its fixed arity (-1
// when none) and whether its operands have the result's dimensions (the
// unary and binary elementwise ops and bitcast-convert; select and clamp,
// whose operands may be scalars, have their own check).
type opInfo struct {
	arity       int
	elementwise bool
}

func lookupOp(op hlo.Opcode) opInfo {
	i := hlo.Info(op)
	return opInfo{arity: i.Arity, elementwise: i.Elementwise && (i.Arity == 1 || i.Arity == 2) || op == hlo.OpBitcastConvert}
}

// operandCount checks the number of operands and reports whether it is
// right (or not fixed): the shape and attribute checks index the operands
// only then.
func (v *verifier) operandCount(in *hlo.Instruction, info opInfo) bool {
	n := len(in.Operands)
	if want := info.arity; want >= 0 {
		if n != want {
			v.errorf(in, in.Parent, "%s has %d operands, want %d", in.Opcode, n, want)
			return false
		}
		return true
	}
	var problem string
	switch in.Opcode {
	case hlo.OpReduce, hlo.OpReduceWindow:
		if n < 2 || n%2 != 0 {
			problem = "want an even number >= 2"
		}
	case hlo.OpScatter:
		if n < 3 || n%2 != 1 {
			problem = "want an odd number >= 3"
		}
	case hlo.OpSelectAndScatter:
		if n != 3 {
			problem = "want 3"
		}
	case hlo.OpDynamicSlice:
		if n < 2 {
			problem = "want >= 2"
		}
	case hlo.OpDynamicUpdateSlice:
		if n < 3 {
			problem = "want >= 3"
		}
	case hlo.OpConcatenate, hlo.OpConditional, hlo.OpSort, hlo.OpMap:
		if n < 1 {
			problem = "want >= 1"
		}
	}
	if problem != "" {
		v.errorf(in, in.Parent, "%s has %d operands, %s", in.Opcode, n, problem)
		return false
	}
	return true
}

func sameDims(a, b *hlo.Shape) bool { return slices.Equal(a.Dims, b.Dims) }

func (v *verifier) shape(in *hlo.Instruction, info opInfo) {
	out := &in.Shape
	c := in.Parent
	switch {
	case info.elementwise:
		if !out.IsArray() {
			return
		}
		for k, op := range in.Operands {
			if op.Shape.IsArray() && !sameDims(&op.Shape, out) {
				v.errorf(in, c, "operand %d has shape %s, want dimensions of %s", k, op.Shape.StringNoLayout(), out.StringNoLayout())
			}
		}
	case in.Opcode == hlo.OpSelect || in.Opcode == hlo.OpClamp:
		for k, op := range in.Operands {
			if op.Shape.IsArray() && out.IsArray() && !sameDims(&op.Shape, out) && !op.Shape.IsScalar() {
				v.errorf(in, c, "operand %d has shape %s, want dimensions of %s", k, op.Shape.StringNoLayout(), out.StringNoLayout())
			}
		}
	}
	switch in.Opcode {
	case hlo.OpGetTupleElement:
		v.gteShape(in)
	case hlo.OpTuple:
		v.tupleShape(in)
	case hlo.OpBroadcast:
		v.broadcastShape(in)
	case hlo.OpTranspose:
		v.transposeShape(in)
	case hlo.OpReshape:
		v.reshapeShape(in)
	case hlo.OpSlice:
		v.sliceShape(in)
	case hlo.OpConcatenate:
		v.concatenateShape(in)
	}
}

func (v *verifier) gteShape(in *hlo.Instruction) {
	out, c := &in.Shape, in.Parent
	op := &in.Operands[0].Shape
	idx, ok := intAttr(in, "index")
	if !ok {
		idx = in.Typed.TupleIndex
	}
	sub, ok := op.Subshape([]int64{idx})
	elem := "" // the text's "%t#k" of an implicit get-tuple-element
	if in.Implicit {
		elem = "tuple element %" + in.RefName() + ": "
	}
	switch {
	case !op.IsTuple():
		v.errorf(in, c, "%soperand %s is not a tuple", elem, op.StringNoLayout())
	case !ok:
		v.errorf(in, c, "%sindex %d out of range for a %d-tuple", elem, idx, len(op.Tuple))
	case !sub.EqualIgnoringLayout(*out):
		v.errorf(in, c, "%sshape %s, want tuple element %d: %s", elem, out.StringNoLayout(), idx, sub.StringNoLayout())
	}
}

func (v *verifier) tupleShape(in *hlo.Instruction) {
	out, c := &in.Shape, in.Parent
	ok := out.IsTuple() && len(out.Tuple) == len(in.Operands)
	for k := 0; ok && k < len(in.Operands); k++ {
		ok = out.Tuple[k].EqualIgnoringLayout(in.Operands[k].Shape)
	}
	if !ok {
		v.errorf(in, c, "shape %s does not match its operands", out.StringNoLayout())
	}
}

func (v *verifier) broadcastShape(in *hlo.Instruction) {
	out, c := &in.Shape, in.Parent
	dims, ok := dimsAttr(in)
	op := &in.Operands[0].Shape
	if !ok || !op.IsArray() {
		return
	}
	if len(dims) != op.Rank() {
		v.errorf(in, c, "broadcast dimensions %s, want %d entries for operand %s", braces(dims), op.Rank(), op.StringNoLayout())
		return
	}
	for i, d := range dims {
		// XLA also accepts a degenerate (size 1) operand dimension.
		if d < 0 || int(d) >= out.Rank() || (out.Dims[d] != op.Dims[i] && op.Dims[i] != 1) {
			v.errorf(in, c, "broadcast dimension %d maps operand dimension %d (size %d) to a different size in %s", d, i, op.Dims[i], out.StringNoLayout())
			return
		}
	}
}

func (v *verifier) transposeShape(in *hlo.Instruction) {
	out, c := &in.Shape, in.Parent
	dims, ok := dimsAttr(in)
	op := &in.Operands[0].Shape
	if !ok || !op.IsArray() {
		return
	}
	bad := len(dims) != op.Rank() || out.Rank() != op.Rank()
	for i := 0; !bad && i < len(dims); i++ {
		bad = dims[i] < 0 || int(dims[i]) >= op.Rank() || out.Dims[i] != op.Dims[dims[i]]
	}
	if bad {
		v.errorf(in, c, "transpose dimensions %s do not map %s to %s", braces(dims), op.StringNoLayout(), out.StringNoLayout())
	}
}

func (v *verifier) reshapeShape(in *hlo.Instruction) {
	out, c := &in.Shape, in.Parent
	op := &in.Operands[0].Shape
	if op.IsArray() && out.IsArray() && op.Dynamic == nil && out.Dynamic == nil && op.ElementCount() != out.ElementCount() {
		v.errorf(in, c, "reshape from %s to %s changes the element count", op.StringNoLayout(), out.StringNoLayout())
	}
}

func (v *verifier) sliceShape(in *hlo.Instruction) {
	out, c := &in.Shape, in.Parent
	op := &in.Operands[0].Shape
	sl := in.Typed.Slice
	if _, ok := in.Attr("slice"); !ok || len(sl) == 0 || !op.IsArray() {
		return
	}
	if len(sl) != op.Rank() || out.Rank() != op.Rank() {
		v.errorf(in, c, "slice has %d dimensions, operand %s", len(sl), op.StringNoLayout())
		return
	}
	for i, s := range sl {
		stride := max(s.Stride, 1)
		if want := (s.Limit - s.Start + stride - 1) / stride; out.Dims[i] != want {
			v.errorf(in, c, "slice dimension %d has size %d, want %d", i, out.Dims[i], want)
		}
	}
}

func (v *verifier) concatenateShape(in *hlo.Instruction) {
	out, c := &in.Shape, in.Parent
	dims, ok := dimsAttr(in)
	if !ok || len(dims) != 1 || !out.IsArray() {
		return
	}
	d, sum := dims[0], int64(0)
	for _, op := range in.Operands {
		if op.Shape.Rank() != out.Rank() || d < 0 || int(d) >= out.Rank() {
			v.errorf(in, c, "operand %s does not match rank of %s", op.Shape.StringNoLayout(), out.StringNoLayout())
			return
		}
		sum += op.Shape.Dims[d]
	}
	if sum != out.Dims[d] {
		v.errorf(in, c, "concatenated dimension %d has size %d, operands sum to %d", d, out.Dims[d], sum)
	}
}

func (v *verifier) calls(in *hlo.Instruction) {
	c := in.Parent
	for _, un := range v.u.CallGraph.Unresolved() {
		if un.Caller == in {
			v.errorf(in, c, "called computation %s is not in the module", un.Name)
		}
	}
	for k, cc := range in.Called {
		if cc == nil {
			v.errorf(in, c, "called computation %d is nil", k)
			return
		}
		if v.u.CallGraph.Index(cc) < 0 {
			v.errorf(in, c, "called computation %s is not in the module", cc.Name)
			return
		}
	}
	switch in.Opcode {
	case hlo.OpFusion:
		if len(in.Called) != 1 {
			v.errorf(in, c, "fusion calls %d computations, want 1", len(in.Called))
			return
		}
		if k, ok := in.Attr("kind"); !hlo.IsFusionKind(k) {
			if !ok {
				k = "none"
			}
			v.errorf(in, c, "fusion kind %s, want one of %s (Unknown fusion kind)", k, strings.Join(hlo.FusionKinds, ", "))
		}
		fc := in.Called[0]
		if len(fc.Params) != len(in.Operands) {
			v.errorf(in, c, "fusion has %d operands, fused computation %s has %d parameters", len(in.Operands), fc.Name, len(fc.Params))
		}
		if fc.Root != nil && !fc.Root.Shape.EqualIgnoringLayout(in.Shape) {
			v.errorf(in, c, "fusion shape %s, fused root %s", in.Shape.StringNoLayout(), fc.Root.Shape.StringNoLayout())
		}
		v.computation(fc)
	case hlo.OpWhile:
		for _, cc := range in.Called {
			if len(cc.Params) != 1 {
				v.errorf(in, c, "while computation %s has %d parameters, want 1", cc.Name, len(cc.Params))
			}
		}
		if body, ok := in.Attr("body"); ok {
			for _, cc := range in.Called {
				if cc.Name == strings.TrimPrefix(body, "%") && cc.Root != nil && !cc.Root.Shape.EqualIgnoringLayout(in.Shape) {
					v.errorf(in, c, "while shape %s, body root %s", in.Shape.StringNoLayout(), cc.Root.Shape.StringNoLayout())
				}
			}
		}
	case hlo.OpReduce:
		if len(in.Called) == 1 && len(in.Called[0].Params) != len(in.Operands) {
			v.errorf(in, c, "reduce has %d operands, to_apply %s has %d parameters", len(in.Operands), in.Called[0].Name, len(in.Called[0].Params))
		}
	case hlo.OpConditional:
		if len(in.Called) > 0 && len(in.Operands) != len(in.Called)+1 {
			v.errorf(in, c, "conditional has %d operands for %d branches", len(in.Operands), len(in.Called))
		}
	}
	// Fused computations reached from other callers (e.g. nested fusions)
	// are verified along with their fusion instruction.
}

// intAttr parses an integer attribute.
func intAttr(in *hlo.Instruction, name string) (int64, bool) {
	s, ok := in.Attr(name)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n, err == nil
}

// dimsAttr returns dimensions={...}, from the typed attributes or the text.
func dimsAttr(in *hlo.Instruction) ([]int64, bool) {
	s, ok := in.Attr("dimensions")
	if !ok {
		return nil, false
	}
	if in.Typed.Dimensions != nil {
		return in.Typed.Dimensions, true
	}
	s = strings.Trim(strings.TrimSpace(s), "{}")
	var out []int64
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// braces prints dimensions as XLA does: {1,0}.
func braces(dims []int64) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = strconv.FormatInt(d, 10)
	}
	return "{" + strings.Join(s, ",") + "}"
}
