package layoutassign

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// Options configure Assign.
type Options struct {
	// Target decides tiles and element sizes (TPU() when zero).
	Target Target
	// Relayout assigns every layout anew (hlo-opt --relayout): only the
	// entry signature, custom-call constraints and bitcasts stay fixed.
	// By default every layout stated in the module is kept and only the
	// missing ones are assigned, as a module after optimizations (tiled
	// layouts, a schedule) already has the layouts it runs with.
	Relayout bool
	// KeepLayouts is the default, kept for callers that set it.
	//
	// Deprecated: stated layouts are kept unless Relayout.
	KeepLayouts bool
	// Logger receives debug logs; nil means zap.NewNop().
	Logger *zap.Logger
}

// Copy is a copy instruction the assignment inserted where two fixed
// layouts met.
type Copy struct {
	// Name is the new instruction's name, Computation the computation it
	// was added to.
	Name        string `json:"name"`
	Computation string `json:"computation"`
	// Of is the copied instruction; User the instruction that now reads
	// the copy ("" when the copy became the computation's root).
	Of   string `json:"of"`
	User string `json:"user,omitempty"`
	// Operand is the operand number of User that was replaced.
	Operand int `json:"operand"`
	// From and To are the copied value's shape before and after.
	From string `json:"from"`
	To   string `json:"to"`
}

// Assignment is what Assign did to a module.
type Assignment struct {
	Target Target
	// Arrays counts the array values (instruction result leaves) that got
	// a layout; Fixed how many of them had theirs fixed.
	Arrays, Fixed int
	// Copies lists the inserted copies, in module order.
	Copies []Copy
	// FreeTransposes and FreeReshapes name the transposes and reshapes
	// whose layouts make them bitcasts; CostlyTransposes and
	// CostlyReshapes the others.
	FreeTransposes, CostlyTransposes []string
	FreeReshapes, CostlyReshapes     []string
	// Changed reports whether any shape changed or a copy was inserted.
	Changed bool
}

// value is one array (or token) leaf of an instruction's result.
type value struct {
	in   *hlo.Instruction
	path []int64
}

// site is where a conflict is resolved by a copy: operand op of user, or
// (user nil) the root of comp.
type site struct {
	user *hlo.Instruction
	op   int
	comp *hlo.Computation
}

type copyReq struct {
	site site
	path []int64
	m2m  []int64
}

type assigner struct {
	m      *hlo.Module
	opts   Options
	log    *zap.Logger
	values []value
	// first gives, per computation (by position in the module) and
	// instruction (by Index), the id of its first leaf value; users lists
	// an instruction's users by that id.
	compIdx map[*hlo.Computation]int
	// lastComp and lastCI cache base's last computation lookup.
	lastComp *hlo.Computation
	lastCI   int
	first    [][]int
	users    csr[*hlo.Instruction]

	parent []int
	fixed  [][]int64 // per class root: the fixed minor_to_major
	// isFixed marks the classes fixed before propagation (whose layouts
	// then fill m2m, which shares fixed's array).
	isFixed []bool
	// exact marks values whose whole stated layout is kept (tiles too).
	exact []bool
	m2m   [][]int64 // per class root after propagation
	ecl   *hlo.ProgramShape
	// tilings memoises ChooseTiling; the arenas hold the new layouts.
	tilings     map[tilingKey]tilingVal
	lastTiling  tilingMemo
	layoutArena []hlo.Layout
	intArena    []int64
	// layouts interns the layouts relayout builds (see layoutKey).
	layouts map[layoutKey]*hlo.Layout
	queue   []int
	copies  []copyReq
	// sharing switches unifyInstruction from building classes to copying
	// tiles along alias edges (shareAliases); shared counts the copies.
	sharing bool
	shared  int
	// ownTiles records that some fixed value keeps tiles other than the
	// rule's, which shareAliases must carry to its aliases.
	ownTiles bool
	// orig are the values' layouts before the pass (never mutated: the
	// pass replaces layouts, it does not edit them).
	orig []*hlo.Layout
	// tiledModule reports that some stated layout has tiles: the module is
	// laid out already (a dump after optimizations), so a stated layout
	// without tiles is meant untiled (XLA's TPU scalars in S(2)).
	tiledModule bool
	// firstByInst replaces first once insertCopies shifted instructions.
	firstByInst map[*hlo.Instruction]int
}

// Assign chooses a layout for every array in the module and writes it
// into the shapes (see the package doc for the algorithm). It inserts a
// copy where two fixed layouts conflict. The module is changed in place.
func Assign(m *hlo.Module, opts Options) (*Assignment, error) {
	if m == nil || len(m.Computations) == 0 {
		return nil, fmt.Errorf("layout: module has no computation")
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	a := &assigner{m: m, opts: opts, log: opts.Logger, compIdx: make(map[*hlo.Computation]int, len(m.Computations))}
	a.collect()
	if err := a.fixStated(); err != nil {
		return nil, err
	}
	a.unifyAll()
	a.propagate()
	res := &Assignment{Target: opts.Target}
	a.write(res)
	a.insertCopies(res)
	a.shareAliases(res)
	res.Changed = len(res.Copies) > 0 || a.layoutsChanged()
	if a.ecl != nil {
		rewriteSignature(a.m)
	}
	a.classify(res)
	a.log.Debug("layout assigned", zap.Int("arrays", res.Arrays), zap.Int("fixed", res.Fixed),
		zap.Int("copies", len(res.Copies)), zap.Int("free_transposes", len(res.FreeTransposes)))
	return res, nil
}

// collect numbers every leaf of every instruction result and records users.
func (a *assigner) collect() {
	a.first = make([][]int, len(a.m.Computations))
	total := 0
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			total += leafCount(&in.Shape)
		}
	}
	a.values = make([]value, 0, total)
	for ci, c := range a.m.Computations {
		a.compIdx[c] = ci
		a.first[ci] = make([]int, len(c.Instructions))
		for i, in := range c.Instructions {
			in.Index = i
			a.first[ci][i] = len(a.values)
			if !in.Shape.IsTuple() {
				a.values = append(a.values, value{in: in})
			} else {
				for _, l := range in.Shape.Leaves() {
					a.values = append(a.values, value{in: in, path: l.Index})
				}
			}
		}
	}
	n := len(a.values)
	a.orig = make([]*hlo.Layout, n)
	for id := range a.values {
		if sh := a.shapeOf(id); sh != nil {
			a.orig[id] = sh.Layout
			a.tiledModule = a.tiledModule || sh.Layout != nil && len(sh.Layout.Tiles) > 0
		}
	}
	// users: counted, then filled into one array.
	eachUse := func(f func(k int, in *hlo.Instruction)) {
		last := make([]*hlo.Instruction, n) // one entry per user
		for _, c := range a.m.Computations {
			for _, in := range c.Instructions {
				for _, op := range in.Operands {
					if k, ok := a.base(op); ok && last[k] != in {
						last[k] = in
						f(k, in)
					}
				}
			}
		}
	}
	a.users.off = make([]int32, n+1)
	eachUse(func(k int, _ *hlo.Instruction) { a.users.off[k+1]++ })
	cursor := a.users.prefixSums()
	eachUse(func(k int, in *hlo.Instruction) { a.users.flat[cursor[k]] = in; cursor[k]++ })
	a.parent = make([]int, n)
	for i := range a.parent {
		a.parent[i] = i
	}
	a.fixed = make([][]int64, n)
	a.exact = make([]bool, n)
	a.m2m = a.fixed // the fixed layouts are the classes' first layouts
}

// base returns the id of the first leaf value of in.
func (a *assigner) base(in *hlo.Instruction) (int, bool) {
	if a.firstByInst != nil { // copies moved the instructions
		b, ok := a.firstByInst[in]
		return b, ok
	}
	ci, ok := a.lastCI, in.Parent == a.lastComp && in.Parent != nil
	if !ok {
		ci, ok = a.compIdx[in.Parent]
		a.lastComp, a.lastCI = in.Parent, ci
	}
	if !ok || in.Index < 0 || in.Index >= len(a.first[ci]) || a.m.Computations[ci].Instructions[in.Index] != in {
		return 0, false
	}
	return a.first[ci][in.Index], true
}

// leafID returns the value id of instruction in at a tuple path (the first
// leaf under it when path names a tuple), or -1.
func (a *assigner) leafID(in *hlo.Instruction, path []int64) int {
	base, ok := a.base(in)
	if !ok {
		return -1
	}
	if len(path) == 0 {
		return base
	}
	off, _, ok := leafRange(&in.Shape, path)
	if !ok {
		return -1
	}
	return base + off
}

func (a *assigner) shapeOf(id int) *hlo.Shape {
	v := a.values[id]
	s, _ := v.in.Shape.Subshape(v.path)
	return s
}

func (a *assigner) find(x int) int {
	for a.parent[x] != x {
		a.parent[x] = a.parent[a.parent[x]]
		x = a.parent[x]
	}
	return x
}

// rankOK reports whether m2m is a layout for value id.
func (a *assigner) rankOK(id int, m2m []int64) bool {
	s := a.shapeOf(id)
	return s != nil && s.IsArray() && hlo.IsPermutation(m2m, s.Rank())
}

// require fixes the class of id to m2m, or records a copy at st when the
// class is already fixed to another layout.
func (a *assigner) require(id int, m2m []int64, st site, path []int64) {
	if id < 0 || !a.rankOK(id, m2m) {
		return
	}
	r := a.find(id)
	switch {
	case a.fixed[r] == nil:
		a.fixed[r] = slices.Clone(m2m)
	case !slices.Equal(a.fixed[r], m2m):
		a.copies = append(a.copies, copyReq{site: st, path: path, m2m: slices.Clone(m2m)})
	}
}

// unify puts producer value p and consumer value c in one class; when both
// classes are fixed to different layouts the producer is copied at st.
func (a *assigner) unify(p, c int, st site, path []int64) {
	if p < 0 || c < 0 || a.sharing {
		return
	}
	sp, sc := a.shapeOf(p), a.shapeOf(c)
	if sp == nil || sc == nil || !sp.IsArray() || !sc.IsArray() || sp.Rank() != sc.Rank() {
		return
	}
	rp, rc := a.find(p), a.find(c)
	if rp == rc {
		return
	}
	fp, fc := a.fixed[rp], a.fixed[rc]
	if fp != nil && fc != nil && !slices.Equal(fp, fc) {
		a.copies = append(a.copies, copyReq{site: st, path: path, m2m: slices.Clone(fc)})
		return
	}
	a.parent[rp] = rc
	if fc == nil {
		a.fixed[rc] = fp
	}
}

// stated returns the minor_to_major the text gave for value id, or nil.
func (a *assigner) stated(id int) []int64 {
	s := a.shapeOf(id)
	if s == nil || !s.IsArray() || s.Layout == nil || !hlo.IsPermutation(s.Layout.MinorToMajor, s.Rank()) {
		return nil
	}
	return s.Layout.MinorToMajor
}

// fixExact fixes value id to its stated layout, tiles included.
func (a *assigner) fixExact(id int) {
	if m := a.stated(id); m != nil {
		a.exact[id] = true
		a.require(id, m, site{}, nil)
	}
}

func (a *assigner) fixAllLeaves(in *hlo.Instruction) {
	base, ok := a.base(in)
	if !ok {
		return
	}
	for k := base; k < base+leafCount(&in.Shape); k++ {
		a.fixExact(k)
	}
}

// fixStated applies the fixed layouts: the entry signature (the module's
// entry_computation_layout, else the layouts stated on entry parameters and
// root), custom-calls with operand_layout_constraints, bitcasts, infeed and
// outfeed, and (unless Relayout) every stated layout.
func (a *assigner) fixStated() error {
	entry := a.m.Entry
	ecl, err := entrySignature(a.m)
	if err != nil {
		return err
	}
	a.ecl = ecl
	// A module without entry (a truncated text that lost it) has no fixed
	// signature.
	var params []*hlo.Instruction
	var root *hlo.Instruction
	if entry != nil {
		params, root = entry.Params, entry.Root
	}
	for n, p := range params {
		if p == nil {
			continue
		}
		if ecl != nil && n < len(ecl.Params) {
			a.applySignature(p, ecl.Params[n])
			continue
		}
		a.fixAllLeaves(p)
	}
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			switch {
			case !a.opts.Relayout:
				a.fixAllLeaves(in)
			case in.Opcode == hlo.OpBitcast || in.Opcode == hlo.OpInfeed || in.Opcode == hlo.OpOutfeed ||
				in.Opcode == hlo.OpRecv || in.Opcode == hlo.OpSend:
				a.fixAllLeaves(in)
				for _, op := range in.Operands {
					if in.Opcode == hlo.OpBitcast {
						a.fixAllLeaves(op)
					}
				}
			case in.Opcode == hlo.OpCustomCall:
				if _, ok := in.Attr("operand_layout_constraints"); ok {
					a.fixAllLeaves(in)
				}
			}
		}
	}
	// Requirements that resolve conflicts by copies come after the
	// value-level fixes.
	if root != nil {
		if ecl != nil {
			for _, l := range ecl.Result.Leaves() {
				if l.Shape.IsArray() && l.Shape.Layout != nil {
					a.requireThroughTuples(root, l.Index, l.Shape.Layout.MinorToMajor, site{comp: entry}, l.Index)
				}
			}
		} else {
			for _, l := range root.Shape.Leaves() {
				if m := a.stated(a.leafID(root, l.Index)); m != nil {
					a.requireThroughTuples(root, l.Index, m, site{comp: entry}, l.Index)
				}
			}
		}
	}
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode != hlo.OpCustomCall {
				continue
			}
			shapes, err := operandLayoutConstraints(in)
			if err != nil {
				return err
			}
			for i, s := range shapes {
				if i >= len(in.Operands) {
					break
				}
				for _, l := range s.Leaves() {
					if l.Shape.IsArray() && l.Shape.Layout != nil {
						a.requireThroughTuples(in.Operands[i], l.Index, l.Shape.Layout.MinorToMajor, site{user: in, op: i}, l.Index)
					}
				}
			}
		}
	}
	return nil
}

// applySignature fixes an entry parameter to a layout of the entry
// computation layout: the signature's layout wins over the parameter's.
func (a *assigner) applySignature(p *hlo.Instruction, sig hlo.Shape) {
	for _, l := range sig.Leaves() {
		id := a.leafID(p, l.Index)
		if id < 0 || !l.Shape.IsArray() || l.Shape.Layout == nil {
			continue
		}
		sh := a.shapeOf(id)
		if !sh.EqualIgnoringLayout(*l.Shape) {
			continue
		}
		lay := l.Shape.Layout.Clone()
		sh.Layout = &lay
		a.exact[id] = true
		a.require(id, lay.MinorToMajor, site{}, nil)
	}
}

// requireThroughTuples applies a requirement on leaf path of in, walking
// into tuple instructions so that a conflict copies the innermost operand.
func (a *assigner) requireThroughTuples(in *hlo.Instruction, path, m2m []int64, st site, stPath []int64) {
	for in.Opcode == hlo.OpTuple && len(path) > 0 && int(path[0]) < len(in.Operands) {
		st = site{user: in, op: int(path[0])}
		in, path = in.Operands[path[0]], path[1:]
		stPath = path
	}
	a.require(a.leafID(in, path), m2m, st, stPath)
}

// keepsLayout lists the ops that cannot change layout: their result and
// every operand of the same rank share one layout (XLA's
// InstructionCanChangeLayout is false for them).
var keepsLayout = func() map[hlo.Opcode]bool {
	m := map[hlo.Opcode]bool{}
	for _, op := range strings.Fields(`abs add and atan2 bitcast-convert cbrt ceil clamp clz compare complex
		convert cos divide erf exp exponential exponential-minus-one expm1 floor imag is-finite log log-plus-one log1p logistic
		maximum minimum multiply negate not or popcnt power real reduce-precision remainder
		round-nearest-afz round-nearest-even rsqrt select shift-left shift-right-arithmetic
		shift-right-logical sign sine sin sqrt subtract tan tanh xor stochastic-convert cosine
		concatenate dynamic-slice dynamic-update-slice pad reverse slice sort map reduce-window
		select-and-scatter scatter all-gather all-to-all collective-permute all-reduce reduce-scatter
		all-gather-start all-reduce-start collective-permute-start cholesky triangular-solve fft
		rng copy-start`) {
		m[hlo.Opcode(op)] = true
	}
	return m
}()

// unifyAll adds the equality constraints: ops that keep layouts, tuple
// and get-tuple-element aliasing, and the boundaries of called
// computations (fusion, call, while, conditional, async).
func (a *assigner) unifyAll() {
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			a.unifyInstruction(in)
		}
	}
}

// unifyLeaves unifies the leaves of p under pPath with those of c under
// cPath, which hold the same buffers (an alias edge: c's leaves later take
// p's whole layout, tiles included).
func (a *assigner) unifyLeaves(p *hlo.Instruction, pPath []int64, c *hlo.Instruction, cPath []int64, st site) {
	ps, ok1 := p.Shape.Subshape(pPath)
	cs, ok2 := c.Shape.Subshape(cPath)
	if !ok1 || !ok2 || !ps.EqualIgnoringLayout(*cs) {
		return
	}
	if a.sharing {
		a.shareLeaves(ps, c, cPath, cs)
		return
	}
	bp, bc := a.leafID(p, pPath), a.leafID(c, cPath)
	if bp < 0 || bc < 0 {
		return
	}
	for k := range leafCount(ps) {
		a.unify(bp+k, bc+k, st, a.values[bp+k].path)
	}
}

func (a *assigner) unifyInstruction(in *hlo.Instruction) {
	switch {
	case keepsLayout[in.Opcode]:
		if !in.Shape.IsArray() {
			if in.Opcode == hlo.OpSort || in.Opcode == hlo.OpAllReduce || in.Opcode == hlo.OpCopyStart {
				a.unifyTupleResult(in)
			}
			return
		}
		for i, op := range in.Operands {
			if op.Shape.IsArray() && op.Shape.Rank() == in.Shape.Rank() && in.Shape.Rank() > 0 {
				a.unify(a.leafID(op, nil), a.leafID(in, nil), site{user: in, op: i}, nil)
			}
		}
	case in.Opcode == hlo.OpTuple:
		for i, op := range in.Operands {
			a.unifyLeaves(op, nil, in, []int64{int64(i)}, site{user: in, op: i})
		}
	case in.Opcode == hlo.OpGetTupleElement:
		if len(in.Operands) == 1 {
			a.unifyLeaves(in.Operands[0], []int64{tupleIndex(in)}, in, nil, site{user: in, op: 0})
		}
	case in.Opcode == hlo.OpOptimizationBarrier || in.Opcode == "optimization-barrier" || in.Opcode == hlo.OpDomain ||
		in.Opcode == hlo.OpAddDependency:
		if len(in.Operands) > 0 {
			a.unifyLeaves(in.Operands[0], nil, in, nil, site{user: in, op: 0})
		}
	case in.Opcode == hlo.OpFusion || in.Opcode == hlo.OpCall || in.Opcode == hlo.OpAsyncStart:
		if len(in.Called) == 0 {
			return
		}
		callee := in.Called[0]
		for i, op := range in.Operands {
			if i < len(callee.Params) && callee.Params[i] != nil {
				a.unifyLeaves(op, nil, callee.Params[i], nil, site{user: in, op: i})
			}
		}
		if callee.Root != nil {
			var out []int64
			if in.Opcode == hlo.OpAsyncStart {
				out = []int64{1}
			}
			a.unifyLeaves(callee.Root, nil, in, out, site{comp: callee})
		}
	case in.Opcode == hlo.OpWhile:
		body, cond := a.called(in, "body"), a.called(in, "condition")
		if len(in.Operands) != 1 || body == nil {
			return
		}
		init := in.Operands[0]
		if len(body.Params) > 0 && body.Params[0] != nil {
			bp := body.Params[0]
			a.unifyLeaves(init, nil, bp, nil, site{user: in, op: 0})
			if cond != nil && len(cond.Params) > 0 && cond.Params[0] != nil {
				a.unifyLeaves(init, nil, cond.Params[0], nil, site{user: in, op: 0})
			}
			if body.Root != nil {
				a.unifyLeaves(body.Root, nil, bp, nil, site{comp: body})
				a.unifyLeaves(body.Root, nil, in, nil, site{comp: body})
			}
		}
	case in.Opcode == hlo.OpConditional:
		for k, br := range a.branches(in) {
			if br == nil {
				continue
			}
			if k+1 < len(in.Operands) && len(br.Params) > 0 && br.Params[0] != nil {
				a.unifyLeaves(in.Operands[k+1], nil, br.Params[0], nil, site{user: in, op: k + 1})
			}
			if br.Root != nil {
				a.unifyLeaves(br.Root, nil, in, nil, site{comp: br})
			}
		}
	case strings.HasSuffix(string(in.Opcode), "-done") && len(in.Operands) == 1:
		op := in.Operands[0]
		if !op.Shape.IsTuple() {
			a.unifyLeaves(op, nil, in, nil, site{user: in, op: 0})
			return
		}
		order := []int64{1, 0}
		if in.Opcode == hlo.OpCopyDone {
			order = []int64{0}
		}
		for _, k := range order {
			if sub, ok := op.Shape.Subshape([]int64{k}); ok && sub.EqualIgnoringLayout(in.Shape) {
				a.unifyLeaves(op, []int64{k}, in, nil, site{user: in, op: 0})
				return
			}
		}
	}
}

// unifyTupleResult handles variadic forms (sort, all-reduce of several
// arrays, copy-start): result leaf k keeps the layout of operand k.
func (a *assigner) unifyTupleResult(in *hlo.Instruction) {
	for i, op := range in.Operands {
		if i < len(in.Shape.Tuple) {
			a.unifyLeaves(op, nil, in, []int64{int64(i)}, site{user: in, op: i})
		}
	}
}

func tupleIndex(in *hlo.Instruction) int64 {
	if v, ok := in.Attr("index"); ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	}
	return in.Typed.TupleIndex
}

func (a *assigner) called(in *hlo.Instruction, attr string) *hlo.Computation {
	v, ok := in.Attr(attr)
	if !ok {
		return nil
	}
	v = strings.TrimPrefix(strings.TrimSpace(v), "%")
	for _, c := range in.Called {
		if c.Name == v {
			return c
		}
	}
	return a.m.Computation(v)
}

func (a *assigner) branches(in *hlo.Instruction) []*hlo.Computation {
	if _, ok := in.Attr("true_computation"); ok {
		return []*hlo.Computation{a.called(in, "true_computation"), a.called(in, "false_computation")}
	}
	return in.Called
}

// members lists the values of every class root.
func (a *assigner) members() csr[int32] {
	n := len(a.values)
	out := csr[int32]{off: make([]int32, n+1)}
	for id := range a.values {
		out.off[a.find(id)+1]++
	}
	cursor := out.prefixSums()
	for id := range a.values {
		r := a.find(id)
		out.flat[cursor[r]] = int32(id)
		cursor[r]++
	}
	return out
}

// csr is a list of lists in two arrays: list i is flat[off[i]:off[i+1]].
type csr[T any] struct {
	off  []int32
	flat []T
}

func (c *csr[T]) at(i int) []T { return c.flat[c.off[i]:c.off[i+1]] }

// prefixSums turns off[i+1] holding the length of list i into offsets,
// allocates flat, and returns each list's fill cursor (its start).
func (c *csr[T]) prefixSums() []int32 {
	n := len(c.off) - 1
	for i := range n {
		c.off[i+1] += c.off[i]
	}
	c.flat = make([]T, c.off[n])
	return slices.Clone(c.off[:n])
}

// propagate gives every class a layout: fixed classes first, spreading
// through transposes, reshapes, reduces and broadcasts; then the dot and
// convolution operand preferences; then, class by class in program order,
// the default layout (a constant's own), each followed by propagation.
func (a *assigner) propagate() {
	mem := a.members()
	roots := make([]int, 0, len(a.values))
	for id := range a.values {
		if a.find(id) == id {
			roots = append(roots, id)
		}
	}
	a.isFixed = make([]bool, len(a.values))
	for _, r := range roots {
		if a.fixed[r] != nil {
			a.isFixed[r] = true
			a.queue = append(a.queue, r)
		}
	}
	a.drain(mem)
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			a.prefer(in)
			a.drain(mem)
		}
	}
	for _, r := range roots {
		if a.m2m[r] != nil || !a.shapeOf(r).IsArray() {
			continue
		}
		a.m2m[r] = a.defaultLayout(mem.at(r))
		a.queue = append(a.queue, r)
		a.drain(mem)
	}
}

// defaultLayout is the layout of a class no constraint reached: a
// constant's stated layout (XLA keeps a literal's layout), else
// major-to-minor, on the TPU with size-1 dims moved out of the tiled
// minor dims (tiledDefaultLayout).
func (a *assigner) defaultLayout(members []int32) []int64 {
	for _, id := range members {
		if a.values[id].in.Opcode == hlo.OpConstant {
			if m := a.stated(int(id)); m != nil {
				return slices.Clone(m)
			}
		}
	}
	s := a.shapeOf(int(members[0]))
	if a.opts.Target.Backend == BackendTPU {
		return tiledDefaultLayout(s.Dims)
	}
	return hlo.DefaultMinorToMajor(s.Rank())
}

// tiledDefaultLayout is the default layout of an array with the given
// dims on a tiled target: major-to-minor, except that when a size-1 dim
// would be one of the two most minor physical dims (the ones the tiles
// cover, wasting a whole tile row or column on it) every size-1 dim moves
// to the major end, in logical order, the other dims following in logical
// order: f32[1,128,1,64] gets {3,1,2,0} and bf16[512,1] {0,1}, as XLA's
// TPU compiler lays them out, while bf16[4,1,128,4096] keeps {3,2,1,0}.
// Size-1 dims elsewhere do not change the bytes, so the default stays.
func tiledDefaultLayout(dims []int64) []int64 {
	n := len(dims)
	m := hlo.DefaultMinorToMajor(n)
	if n < 2 || dims[n-1] != 1 && dims[n-2] != 1 {
		return m
	}
	phys := make([]int64, 0, n)
	for d := range int64(n) {
		if dims[d] == 1 {
			phys = append(phys, d)
		}
	}
	for d := range int64(n) {
		if dims[d] != 1 {
			phys = append(phys, d)
		}
	}
	return physOrder(phys)
}

// offer gives value id the layout m2m if its class has none yet.
func (a *assigner) offer(id int, m2m []int64) {
	if id < 0 || !a.rankOK(id, m2m) {
		return
	}
	r := a.find(id)
	if a.m2m[r] != nil {
		return
	}
	a.m2m[r] = slices.Clone(m2m)
	a.queue = append(a.queue, r)
}

func (a *assigner) layoutOf(id int) []int64 { return a.m2m[a.find(id)] }

// prefer offers the dot and convolution operand layouts.
func (a *assigner) prefer(in *hlo.Instruction) {
	switch in.Opcode {
	case hlo.OpDot:
		if len(in.Operands) < 2 {
			return
		}
		l, r := in.Operands[0], in.Operands[1]
		if lm, rm, ok := dotOperandLayouts(l.Shape.Rank(), r.Shape.Rank(), in.Typed.Dot); ok {
			a.offer(a.leafID(l, nil), lm)
			a.offer(a.leafID(r, nil), rm)
		}
	case hlo.OpConvolution:
		if len(in.Operands) < 2 {
			return
		}
		l, r := in.Operands[0], in.Operands[1]
		if im, km, om, ok := convLayouts(l.Shape.Rank(), r.Shape.Rank(), in.Shape.Rank(), in.Typed.Conv); ok {
			a.offer(a.leafID(l, nil), im)
			a.offer(a.leafID(r, nil), km)
			a.offer(a.leafID(in, nil), om)
		}
	}
}

// drain propagates queued class layouts across the layout-changing ops in
// both directions until nothing new is learnt.
func (a *assigner) drain(mem csr[int32]) {
	for head := 0; head < len(a.queue); head++ {
		r := a.queue[head]
		m := a.m2m[r]
		for _, id := range mem.at(r) {
			v := a.values[id]
			if len(v.path) != 0 {
				continue
			}
			a.backward(v.in, m)
			for _, u := range a.users.at(int(id)) {
				for i, op := range u.Operands {
					if op == v.in {
						a.forward(u, i, m)
					}
				}
			}
		}
	}
	a.queue = a.queue[:0]
}

// forward derives the layout of u's result from operand i's layout m.
func (a *assigner) forward(u *hlo.Instruction, i int, m []int64) {
	op := u.Operands[i]
	switch u.Opcode {
	case hlo.OpTranspose:
		if out, ok := transposeOutputLayout(u.Typed.Dimensions, m); ok {
			a.offer(a.leafID(u, nil), out)
		}
	case hlo.OpReshape:
		if out, ok := reshapeLayout(op.Shape.Dims, m, u.Shape.Dims); ok {
			a.offer(a.leafID(u, nil), out)
		}
	case hlo.OpReduce:
		n := len(u.Operands) / 2
		if i >= n {
			return
		}
		out := reduceOutputLayout(m, u.Typed.Dimensions)
		if u.Shape.IsTuple() {
			for k := range u.Shape.Tuple {
				a.offer(a.leafID(u, []int64{int64(k)}), out)
			}
		} else {
			a.offer(a.leafID(u, nil), out)
		}
	}
}

// backward derives an operand layout from in's result layout m.
func (a *assigner) backward(in *hlo.Instruction, m []int64) {
	if len(in.Operands) == 0 {
		return
	}
	op := in.Operands[0]
	switch in.Opcode {
	case hlo.OpTranspose:
		if o, ok := transposeOperandLayout(in.Typed.Dimensions, m); ok {
			a.offer(a.leafID(op, nil), o)
		}
	case hlo.OpReshape:
		if o, ok := reshapeLayout(in.Shape.Dims, m, op.Shape.Dims); ok {
			a.offer(a.leafID(op, nil), o)
		}
	case hlo.OpBroadcast:
		if op.Shape.Rank() > 0 {
			if o, ok := broadcastOperandLayout(in.Typed.Dimensions, m); ok {
				a.offer(a.leafID(op, nil), o)
			}
		}
	}
}

// sameLayout reports whether two layouts of an array of the given rank
// print the same (nil is the default layout).
func sameLayout(a, b *hlo.Layout, rank int) bool {
	if a == nil {
		a = hlo.DefaultLayout(rank)
	}
	if b == nil {
		b = hlo.DefaultLayout(rank)
	}
	switch {
	case !slices.Equal(a.MinorToMajor, b.MinorToMajor) || a.ElementSizeBits != b.ElementSizeBits ||
		a.MemorySpace != b.MemorySpace || len(a.Tiles) != len(b.Tiles):
		return false
	}
	for i := range a.Tiles {
		if !slices.Equal(a.Tiles[i], b.Tiles[i]) {
			return false
		}
	}
	return a.String() == b.String()
}

// write stores the chosen layouts into the shapes: fixed values keep their
// stated layout (tiles chosen by the rules when none were stated), the
// others get the class's minor_to_major and the target's tiles; memory
// spaces stated in the text are kept.
func (a *assigner) write(res *Assignment) {
	for id, v := range a.values {
		s, _ := v.in.Shape.Subshape(v.path)
		if s == nil || !s.IsArray() {
			continue
		}
		res.Arrays++
		m := a.layoutOf(id)
		old := s.Layout
		if a.exact[id] {
			res.Fixed++
			if s.Rank() > 0 && len(s.Layout.Tiles) > 0 {
				if tiles, ebits := a.tiling(s, s.Layout.MinorToMajor); ebits != s.Layout.ElementSizeBits ||
					!slices.EqualFunc(tiles, s.Layout.Tiles, func(x, y hlo.Tile) bool { return slices.Equal(x, y) }) {
					a.ownTiles = true
				}
			}
			if len(s.Layout.Tiles) == 0 && !a.tiledModule {
				*s = withRuleTiles(*s, a.opts.Target)
				res.Changed = res.Changed || !sameLayout(old, s.Layout, s.Rank())
			}
			continue
		}
		if a.isFixed[a.find(id)] {
			res.Fixed++
		}
		if m == nil {
			m = hlo.DefaultMinorToMajor(s.Rank())
		}
		if a.relayout(s, m) {
			res.Changed = true
		}
	}
}

// layoutsChanged reports whether any value's layout now prints
// differently than before the pass.
func (a *assigner) layoutsChanged() bool {
	for id := range a.values {
		s := a.shapeOf(id)
		if s != nil && s.IsArray() && s.Layout != a.orig[id] && !sameLayout(a.orig[id], s.Layout, s.Rank()) {
			return true
		}
	}
	return false
}

// relayout gives s minor_to_major m with the rule's tiles, keeping its
// memory space, and reports whether that changed its layout. A layout
// that already is exactly that is left alone (no allocation).
func (a *assigner) relayout(s *hlo.Shape, m []int64) bool {
	tiles, ebits := a.tiling(s, m)
	if l := s.Layout; l != nil && slices.Equal(l.MinorToMajor, m) && l.ElementSizeBits == ebits &&
		slices.EqualFunc(tiles, l.Tiles, func(x, y hlo.Tile) bool { return slices.Equal(x, y) }) &&
		l.DimLevelTypes == "" && l.TailPaddingAlignment <= 1 && l.IndexType == hlo.Invalid &&
		l.PointerType == hlo.Invalid && l.SplitConfigs == "" && l.PhysicalShape == nil &&
		l.DynamicShapeMetadataPrefixBytes == 0 {
		return false
	}
	old := s.Layout
	var space int64
	if old != nil {
		space = old.MemorySpace
	}
	key, internable := layoutKeyOf(m, tiles, ebits, space)
	if internable {
		if l, ok := a.layouts[key]; ok {
			s.Layout = l
			return !sameLayout(old, l, s.Rank())
		}
	}
	if len(a.layoutArena) == 0 {
		a.layoutArena = make([]hlo.Layout, 256)
	}
	l := &a.layoutArena[0]
	a.layoutArena = a.layoutArena[1:]
	if len(a.intArena) < len(m) {
		a.intArena = make([]int64, max(1024, len(m)))
	}
	mm := a.intArena[:len(m):len(m)]
	a.intArena = a.intArena[len(m):]
	copy(mm, m)
	*l = hlo.Layout{MinorToMajor: mm, Tiles: tiles, ElementSizeBits: ebits, MemorySpace: space}
	if internable {
		if a.layouts == nil {
			a.layouts = map[layoutKey]*hlo.Layout{}
		}
		a.layouts[key] = l
	}
	s.Layout = l
	return !sameLayout(old, s.Layout, s.Rank())
}

// layoutKey identifies a layout relayout builds: its minor_to_major (rank
// at most 8), its memoised tiles slice (equal tiles share one, see
// tiling), element size and memory space. Values with equal keys share
// one *hlo.Layout, which nothing may modify in place.
type layoutKey struct {
	m2m          [8]uint8
	rank         uint8
	tiles        *hlo.Tile
	ntiles       int
	ebits, space int64
}

func layoutKeyOf(m []int64, tiles []hlo.Tile, ebits, space int64) (layoutKey, bool) {
	k := layoutKey{rank: uint8(len(m)), ntiles: len(tiles), ebits: ebits, space: space}
	if len(m) > len(k.m2m) {
		return k, false
	}
	for i, d := range m {
		k.m2m[i] = uint8(d)
	}
	if len(tiles) > 0 {
		k.tiles = &tiles[0]
	}
	return k, true
}

// shareAliases gives every value that aliases another's buffer (a tuple
// element, get-tuple-element, a called computation's parameter or a
// caller's result) the producer's tiles and element size, so that stated
// tiles of fixed values carry over to their aliases. It walks the module
// as it is after copies were inserted. Values with their own fixed layout,
// and memory spaces, are left alone.
func (a *assigner) shareAliases(res *Assignment) {
	if !a.ownTiles {
		return // every layout has the rule's tiles already
	}
	a.sharing = true
	defer func() { a.sharing = false }()
	for round := 0; round < 8; round++ {
		a.shared = 0
		for _, c := range a.m.Computations {
			for _, in := range c.Instructions {
				a.unifyInstruction(in)
			}
		}
		if a.shared == 0 {
			return
		}
		res.Changed = true
	}
}

// shareLeaves copies the tiles and element sizes of the leaves of ps onto
// the matching leaves of c under cPath.
func (a *assigner) shareLeaves(ps *hlo.Shape, c *hlo.Instruction, cPath []int64, cs *hlo.Shape) {
	bc, fixedOK := a.base(c)
	first, _, _ := leafRange(&c.Shape, cPath)
	pl, cl := []*hlo.Shape{ps}, []*hlo.Shape{cs}
	if ps.IsTuple() {
		pl, cl = pl[:0], cl[:0]
		for _, l := range ps.Leaves() {
			pl = append(pl, l.Shape)
		}
		for _, l := range cs.Leaves() {
			cl = append(cl, l.Shape)
		}
	}
	for k := range pl {
		p, q := pl[k], cl[k]
		if !p.IsArray() || p.Layout == nil || q.Layout == nil || (fixedOK && a.exact[bc+first+k]) ||
			!slices.Equal(p.Layout.MinorToMajor, q.Layout.MinorToMajor) ||
			q.Layout.ElementSizeBits == p.Layout.ElementSizeBits &&
				slices.EqualFunc(p.Layout.Tiles, q.Layout.Tiles, func(x, y hlo.Tile) bool { return slices.Equal(x, y) }) {
			continue
		}
		l := q.Layout.Clone()
		l.Tiles = slices.Clone(p.Layout.Tiles)
		l.ElementSizeBits = p.Layout.ElementSizeBits
		q.Layout = &l
		a.shared++
	}
}

// tilingKey is what ChooseTiling's answer depends on for a valid layout.
type tilingKey struct {
	t    hlo.PrimitiveType
	rank int   // 0, 1, or 2 for any higher rank
	n    int64 // the second-minor dim (rank >= 2) or the only dim (rank 1)
}

type tilingVal struct {
	tiles []hlo.Tile
	ebits int64
}

// tilingMemo is the last answer of tiling (runs of values share one).
type tilingMemo struct {
	key tilingKey
	val tilingVal
	ok  bool
}

// tiling is ChooseTiling for s laid out as m, memoised: equal answers share
// one tiles slice (capacity-limited, so an append copies), which callers
// must treat as read-only.
func (a *assigner) tiling(s *hlo.Shape, m []int64) ([]hlo.Tile, int64) {
	k := tilingKey{t: s.Type, rank: min(s.Rank(), 2)}
	switch {
	case s.Rank() == 1:
		k.n = s.Dims[0]
	case s.Rank() >= 2:
		k.n = s.Dims[m[1]]
	}
	if a.lastTiling.ok && a.lastTiling.key == k {
		return a.lastTiling.val.tiles, a.lastTiling.val.ebits
	}
	if v, ok := a.tilings[k]; ok {
		a.lastTiling = tilingMemo{k, v, true}
		return v.tiles, v.ebits
	}
	probe := hlo.Shape{Type: s.Type, Dims: s.Dims, Dynamic: s.Dynamic, Layout: &hlo.Layout{MinorToMajor: m}}
	tiles, ebits, _ := ChooseTiling(probe, a.opts.Target)
	tiles = tiles[:len(tiles):len(tiles)]
	if a.tilings == nil {
		a.tilings = map[tilingKey]tilingVal{}
	}
	a.tilings[k] = tilingVal{tiles, ebits}
	a.lastTiling = tilingMemo{k, tilingVal{tiles, ebits}, true}
	return tiles, ebits
}

// layoutFor returns s with minor_to_major m, the target's tiles and
// element size, and s's memory space. The result shares s's dims.
func layoutFor(s hlo.Shape, m []int64, t Target) hlo.Shape {
	var space int64
	if s.Layout != nil {
		space = s.Layout.MemorySpace
	}
	out := s
	out.Layout = &hlo.Layout{MinorToMajor: slices.Clone(m), MemorySpace: space}
	out.Layout.Tiles, out.Layout.ElementSizeBits, _ = ChooseTiling(out, t)
	return out
}

// withRuleTiles returns s with the target's tiles (and element size, when
// the rule sets one) added to its layout.
func withRuleTiles(s hlo.Shape, t Target) hlo.Shape {
	out := s
	l := s.Layout.Clone()
	out.Layout = &l
	tiles, ebits, _ := ChooseTiling(out, t)
	out.Layout.Tiles = tiles
	if ebits != 0 || out.Layout.ElementSizeBits == 0 {
		out.Layout.ElementSizeBits = ebits
	}
	return out
}

// insertCopies materialises the recorded copies. Copies of the same
// operand to the same layout at the same user site are merged.
func (a *assigner) insertCopies(res *Assignment) {
	if len(a.copies) == 0 {
		return
	}
	byInst := make(map[*hlo.Instruction]int, len(a.values))
	for ci, c := range a.m.Computations {
		for i, in := range c.Instructions {
			byInst[in] = a.first[ci][i]
		}
	}
	a.firstByInst = byInst
	names := map[string]bool{}
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			names[in.Name] = true
		}
	}
	next := 0
	newName := func(opcode string) string {
		for {
			next++
			n := opcode + ".layout." + strconv.Itoa(next)
			if !names[n] {
				names[n] = true
				return n
			}
		}
	}
	// One copy per copied instruction and target shape, placed before its
	// first user; a root copy is appended.
	type group struct {
		of    *hlo.Instruction
		comp  *hlo.Computation
		shape hlo.Shape
		sites []site
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, r := range a.copies {
		st := r.site
		var of *hlo.Instruction
		var comp *hlo.Computation
		if st.user != nil {
			of, comp = st.user.Operands[st.op], st.user.Parent
		} else {
			of, comp = st.comp.Root, st.comp
		}
		if of == nil || comp == nil {
			continue
		}
		sh := of.Shape.Clone()
		if leaf, ok := sh.Subshape(r.path); ok && leaf.IsArray() {
			*leaf = layoutFor(*leaf, r.m2m, a.opts.Target)
			leaf.Layout.MemorySpace = 0 // a copy is a new buffer in device memory
		}
		root := ""
		if st.user == nil {
			root = "root"
		}
		if of.Shape.IsTuple() {
			// A tuple is copied leaf by leaf at one site: every leaf
			// change recorded for the site goes into one target shape.
			k := fmt.Sprintf("%p tuple %p %d %s", of, st.user, st.op, root)
			if g := byKey[k]; g != nil {
				if leaf, ok := g.shape.Subshape(r.path); ok && leaf.IsArray() {
					*leaf = layoutFor(*leaf, r.m2m, a.opts.Target)
					leaf.Layout.MemorySpace = 0
				}
				continue
			}
			g := &group{of: of, comp: comp, shape: sh, sites: []site{st}}
			byKey[k] = g
			groups = append(groups, g)
			continue
		}
		k := fmt.Sprintf("%p %s %s", of, sh.String(), root)
		g := byKey[k]
		if g == nil {
			g = &group{of: of, comp: comp, shape: sh}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.sites = append(g.sites, st)
	}
	for _, g := range groups {
		comp := g.comp
		var made []*hlo.Instruction
		cp := copyTo(g.of, g.shape, comp, newName, &made)
		at := len(comp.Instructions)
		for _, st := range g.sites {
			if st.user != nil {
				at = min(at, slices.Index(comp.Instructions, st.user))
			}
		}
		comp.Instructions = slices.Insert(comp.Instructions, at, made...)
		for _, st := range g.sites {
			c := Copy{Name: cp.Name, Computation: comp.Name, Of: g.of.Name, Operand: st.op, From: g.of.Shape.String(), To: g.shape.String()}
			if st.user != nil {
				st.user.Operands[st.op] = cp
				c.User = st.user.Name
			} else {
				comp.Root = cp
			}
			res.Copies = append(res.Copies, c)
		}
		for i, in := range comp.Instructions {
			in.Index = i
		}
	}
}

// copyTo returns an instruction holding the value of of laid out as to,
// appending the instructions it makes to made in program order. An array
// is copied; a tuple is copied deeply, as XLA's layout assignment does
// (CreateCopyWithNewLayout): a get-tuple-element per element, a copy of
// each array leaf whose layout changes, and a tuple of the results, so that
// the leaves' buffers, not only the tuple's index table, get the new
// layouts.
func copyTo(of *hlo.Instruction, to hlo.Shape, comp *hlo.Computation, newName func(opcode string) string, made *[]*hlo.Instruction) *hlo.Instruction {
	add := func(in *hlo.Instruction) *hlo.Instruction {
		in.Parent, in.ParameterNumber = comp, -1
		if in.Typed == nil {
			in.Typed = hlo.NewTypedAttrs()
		}
		*made = append(*made, in)
		return in
	}
	if !to.IsTuple() {
		return add(&hlo.Instruction{Name: newName("copy"), Opcode: hlo.OpCopy, Shape: to, Operands: []*hlo.Instruction{of}})
	}
	elems := make([]*hlo.Instruction, len(to.Tuple))
	for i := range to.Tuple {
		typed := hlo.NewTypedAttrs()
		typed.TupleIndex = int64(i)
		gte := add(&hlo.Instruction{Name: newName("get-tuple-element"), Opcode: hlo.OpGetTupleElement, Shape: of.Shape.Tuple[i],
			Operands: []*hlo.Instruction{of}, Attrs: []hlo.Attribute{{Name: "index", Value: strconv.Itoa(i)}}, Typed: typed})
		elems[i] = gte
		if !gte.Shape.Equal(to.Tuple[i]) {
			elems[i] = copyTo(gte, to.Tuple[i], comp, newName, made)
		}
	}
	return add(&hlo.Instruction{Name: newName("tuple"), Opcode: hlo.OpTuple, Shape: to, Operands: elems})
}

// classify sorts transposes and reshapes into free and costly ones.
func (a *assigner) classify(res *Assignment) {
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			if len(in.Operands) != 1 {
				continue
			}
			op := in.Operands[0].Shape
			switch in.Opcode {
			case hlo.OpTranspose:
				if IsBitcastTranspose(op, in.Shape, in.Typed.Dimensions) {
					res.FreeTransposes = append(res.FreeTransposes, in.Name)
				} else {
					res.CostlyTransposes = append(res.CostlyTransposes, in.Name)
				}
			case hlo.OpReshape:
				if IsBitcastReshape(op, in.Shape) {
					res.FreeReshapes = append(res.FreeReshapes, in.Name)
				} else {
					res.CostlyReshapes = append(res.CostlyReshapes, in.Name)
				}
			}
		}
	}
}
