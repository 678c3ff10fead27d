package layoutassign

// Copies: where an operand's layout differs from the one its user needs,
// a copy (through tuples, element by element) is inserted.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

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
	// The names a copy could take: those of the instructions with the
	// layout pass's infix (most modules have none).
	names := map[string]bool{}
	for _, c := range a.m.Computations {
		for _, in := range c.Instructions {
			if strings.Contains(in.Name, ".layout.") {
				names[in.Name] = true
			}
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
	// first user; a root copy is appended. A tuple is copied leaf by leaf
	// at one site: every leaf change recorded for the site goes into one
	// target shape.
	type group struct {
		of    *hlo.Instruction
		comp  *hlo.Computation
		shape hlo.Shape
		sites []site
	}
	type tupleSite struct {
		of, user *hlo.Instruction
		op       int
		root     bool
	}
	type arrayCopy struct {
		of    *hlo.Instruction
		shape string
		root  bool
	}
	var groups []*group
	tuples := map[tupleSite]*group{}
	arrays := map[arrayCopy]*group{}
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
		var g *group
		if of.Shape.IsTuple() {
			k := tupleSite{of, st.user, st.op, st.user == nil}
			if g = tuples[k]; g == nil {
				g = &group{of: of, comp: comp, shape: of.Shape.Clone(), sites: []site{st}}
				tuples[k] = g
				groups = append(groups, g)
			}
			a.relayoutLeaf(&g.shape, r)
			continue
		}
		sh := of.Shape.Clone()
		a.relayoutLeaf(&sh, r)
		k := arrayCopy{of, sh.String(), st.user == nil}
		if g = arrays[k]; g == nil {
			g = &group{of: of, comp: comp, shape: sh}
			arrays[k] = g
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

// relayoutLeaf gives the leaf of sh that copy r changes r's layout, in
// device memory (a copy is a new buffer).
func (a *assigner) relayoutLeaf(sh *hlo.Shape, r copyReq) {
	if leaf, ok := sh.Subshape(r.path); ok && leaf.IsArray() {
		*leaf = layoutFor(*leaf, r.m2m, a.opts.Target)
		leaf.Layout.MemorySpace = 0
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
