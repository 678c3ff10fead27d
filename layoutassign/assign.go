package layoutassign

import (
	"fmt"

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
	// Summary makes the layout pass's memory report keep what its text
	// report prints: each memory space's figures and the allocations live
	// at its peak, not its Buffers (with their aliases) nor its Timeline
	// (on a module of many thousand buffers, several times the data the
	// report prints). The JSON, HTML and DOT reports need them. hlo-opt
	// sets it when the text reports are its only output.
	Summary bool
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
	// first gives, per computation (by Index, its position in the module)
	// and instruction (by Index), the id of its first leaf value; users
	// lists an instruction's users by that id.
	first  [][]int
	users  csr[*hlo.Instruction]
	leaves leafIndex

	parent unionFind[int]
	fixed  [][]int64 // per class root: the fixed minor_to_major
	// isFixed marks the classes fixed before propagation (whose layouts
	// then fill m2m, which shares fixed's array).
	isFixed []bool
	// exact marks values whose whole stated layout is kept (tiles too).
	exact []bool
	m2m   [][]int64 // per class root after propagation
	ecl   *hlo.ProgramShape
	// result holds, per value the entry's root returns, the layout the
	// entry signature gives that leaf of the result (nil elsewhere).
	result map[int]*hlo.Layout
	// tilings memoises ChooseTiling; the arenas hold the new layouts.
	tilings     map[tilingKey]tilingVal
	lastTiling  tilingMemo
	layoutArena []hlo.Layout
	intArena    []int64
	// layouts interns the layouts relayout builds (see layoutKey).
	layouts map[layoutKey]*hlo.Layout
	// dots memoises tpuDotLayout (see dotLayout).
	dots   map[dotKey]dotVal
	queue  []int
	copies []copyReq
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
	// keepUnlaid leaves the arrays that state no layout without one: in a
	// TPU module laid out by XLA, they are the values it keeps in vector
	// registers (RuleTPUVectorRegisters).
	keepUnlaid bool
	// firstByInst replaces first once insertCopies shifted instructions.
	firstByInst map[*hlo.Instruction]int
	// fused marks, by position in the module, the computations fusions
	// call (see isFused).
	fused []bool
	// deferredValue marks the values whose edges unifyAll defers
	// (deferred) until fixEntry has fixed them: the leaves of the entry
	// parameters, of a root tuple and of the settled values.
	deferredValue []bool
	deferred      []edge
	// settled holds, in a second pass, the first-pass layouts of the
	// values (by instruction, leaf) whose users' edges wait until they are
	// fixed (the results of while loops and conditionals).
	settled map[*hlo.Instruction][]int64
	// withSignature holds, in a second pass, values pinned when the entry
	// signature is fixed rather than before everything (incompatible
	// reduces): an array root's layout comes first, then these, with the
	// settled values, ahead of a root tuple's elements and the parameters.
	withSignature map[*hlo.Instruction][]int64
	// uses are operands a second pass requires at their users (after the
	// entry signature, like a convolution's operands).
	uses []operandUse
	// whiles are the TPU's while loops, whose init is not in the class of
	// the loop state (whileInits); loopsOf lists them by their init.
	whiles  []*hlo.Instruction
	loopsOf map[*hlo.Instruction][]*hlo.Instruction
}

// edge is a unification of producer value p with consumer value c.
type edge struct {
	p, c int
	st   site
	path []int64
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
	a, err := newAssigner(m, opts, nil)
	if err != nil {
		return nil, err
	}
	if pins := a.secondPassPins(); pins != nil {
		// XLA's TPU layout assignment runs again with the concatenates it
		// finds at risk pinned (see concatPins).
		b, err := newAssigner(m, opts, pins)
		if err != nil {
			return nil, err
		}
		if dropHeldPins(a, b, pins) {
			// Again without the pins a sort or scatter holds off; none
			// left, the first pass stands.
			b = a
			if !pins.empty() {
				if b, err = newAssigner(m, opts, pins); err != nil {
					return nil, err
				}
			}
		}
		a = b
	}
	res := &Assignment{Target: opts.Target}
	a.write(res)
	a.insertCopies(res)
	a.shareAliases(res)
	res.Changed = len(res.Copies) > 0 || a.layoutsChanged()
	if a.ecl != nil {
		rewriteSignature(a.m, a.ecl)
	}
	a.classify(res)
	a.log.Debug("layout assigned", zap.Int("arrays", res.Arrays), zap.Int("fixed", res.Fixed),
		zap.Int("copies", len(res.Copies)), zap.Int("free_transposes", len(res.FreeTransposes)))
	return res, nil
}

// newAssigner numbers the values of m and decides every class's layout
// (fixed layouts, unification, propagation); nothing is written yet. With
// pins (a second pass), the pinned values are fixed first and the results
// of while loops and conditionals keep their first-pass layouts (settled):
// XLA lays a callee out before its caller.
func newAssigner(m *hlo.Module, opts Options, pins *secondPass) (*assigner, error) {
	a := &assigner{m: m, opts: opts, log: opts.Logger,
		fused: fusedComputations(m), leaves: leafIndex{}}
	a.collect()
	a.findVregComputations()
	if pins != nil {
		// In the module's order: the first pin of a class stands, and a
		// map's order would change from run to run.
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				if m2m, ok := pins.concats[in]; ok {
					a.require(a.leafID(in, nil), m2m, site{}, nil)
				}
			}
		}
		a.settled, a.withSignature = pins.settled, pins.withSignature
		a.uses = pins.uses
	}
	if err := a.fixStated(); err != nil {
		return nil, err
	}
	a.unifyAll()
	a.fixEntry()
	a.propagate()
	a.whileInits()
	return a, nil
}

// fusedComputations marks, by position in m, the computations fusions
// call, whose values are never materialised (a slice: at tens of
// thousands of computations cheaper to build and to read than a map by
// pointer).
func fusedComputations(m *hlo.Module) []bool {
	fused := make([]bool, len(m.Computations))
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == hlo.OpFusion {
				for _, f := range in.Called {
					if i := m.ComputationIndex(f); i >= 0 {
						fused[i] = true
					}
				}
			}
		}
	}
	return fused
}

// isFused reports whether a fusion calls c.
func (a *assigner) isFused(c *hlo.Computation) bool {
	i := a.m.ComputationIndex(c)
	return i >= 0 && a.fused[i]
}

// findVregComputations sets keepUnlaid (keeping layouts, on the TPU) for a
// module laid out by XLA: some layout has tiles, and every array that
// states no layout, fused computations aside, is a scalar or in a
// computation called per element (not by a fusion or control flow) that
// states none at all (a reducer, a comparator). A module with other
// layouts missing has them all assigned.
func (a *assigner) findVregComputations() {
	if !a.tiledModule || a.opts.Relayout || a.opts.Target.Backend != BackendTPU {
		return
	}
	perElement := make([]bool, len(a.m.Computations)) // by position
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode != hlo.OpFusion && !controlFlow(in) {
				for _, callee := range in.Called {
					if i := a.m.ComputationIndex(callee); i >= 0 {
						perElement[i] = true
					}
				}
			}
		}
	}
	for i, c := range a.m.Computations {
		if a.fused[i] || perElement[i] && statedLayouts(c) == 0 {
			continue
		}
		for _, in := range c.Instructions {
			if hasUnlaidArray(&in.Shape) {
				return // an array XLA would have laid out
			}
		}
	}
	a.keepUnlaid = true
}

// hasUnlaidArray reports whether s has an array leaf of rank > 0 without
// a layout.
func hasUnlaidArray(s *hlo.Shape) bool {
	if s.IsTuple() {
		for i := range s.Tuple {
			if hasUnlaidArray(&s.Tuple[i]) {
				return true
			}
		}
		return false
	}
	return s.IsArray() && s.Layout == nil && s.Rank() > 0
}

// statedLayouts is 1 when every array of c states a layout, 0 when none
// does, -1 when some do.
func statedLayouts(c *hlo.Computation) int {
	with, without := false, false
	for _, in := range c.Instructions {
		for _, l := range in.Shape.Leaves() {
			if l.Shape.IsArray() {
				with = with || l.Shape.Layout != nil
				without = without || l.Shape.Layout == nil
			}
		}
	}
	switch {
	case !without:
		return 1
	case !with:
		return 0
	}
	return -1
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
		c.Index = ci
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
	a.parent = newUnionFind[int](n)
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
	c := in.Parent
	if c == nil || c.Index < 0 || c.Index >= len(a.first) || a.m.Computations[c.Index] != c {
		return 0, false
	}
	ci := c.Index
	if in.Index < 0 || in.Index >= len(a.first[ci]) || c.Instructions[in.Index] != in {
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
	off, _, ok := a.leaves.leafRange(&in.Shape, path)
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

func (a *assigner) find(x int) int { return a.parent.find(x) }

// rankOK reports whether m2m is a layout for value id.
func (a *assigner) rankOK(id int, m2m []int64) bool {
	s := a.shapeOf(id)
	return s != nil && s.IsArray() && hlo.IsPermutation(m2m, s.Rank())
}

// cloneInts is slices.Clone(m) cut from the assigner's arena: the layouts
// fixed for the values of a large module are one allocation, not one
// each.
func (a *assigner) cloneInts(m []int64) []int64 {
	if m == nil {
		return nil
	}
	if len(a.intArena) < len(m) {
		a.intArena = make([]int64, max(1024, len(m)))
	}
	c := a.intArena[:len(m):len(m)]
	a.intArena = a.intArena[len(m):]
	copy(c, m)
	return c
}
