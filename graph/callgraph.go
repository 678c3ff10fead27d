package graph

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
	gonum "gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"

	"github.com/hlo-opt/hlo-opt/hlo"
)

var (
	_ gonum.Directed = (*CallGraph)(nil)
	_ gonum.Node     = (*CompNode)(nil)
	_ gonum.Edge     = (*CallEdge)(nil)
)

// CallKind says how an instruction calls a computation.
type CallKind uint8

// The kinds of call.
const (
	CallOther             CallKind = iota // a called computation whose attribute is not recognised
	CallFusion                            // fusion calls=
	CallToApply                           // to_apply= of reduce, map, sort, scatter, all-reduce, ...
	CallWhileBody                         // while body=
	CallWhileCondition                    // while condition=
	CallConditionalBranch                 // conditional branch_computations=, true_/false_computation=
	CallCall                              // call to_apply= (or calls=)
	CallAsync                             // async-start calls=
	CallCustom                            // custom-call called_computations= or calls=
)

var callKindNames = [...]string{
	CallOther:             "other",
	CallFusion:            "fusion",
	CallToApply:           "to_apply",
	CallWhileBody:         "while_body",
	CallWhileCondition:    "while_condition",
	CallConditionalBranch: "conditional_branch",
	CallCall:              "call",
	CallAsync:             "async",
	CallCustom:            "custom_call",
}

// String returns the kind's name: "fusion", "to_apply", "while_body", ...
func (k CallKind) String() string {
	if int(k) < len(callKindNames) {
		return callKindNames[k]
	}
	return fmt.Sprintf("CallKind(%d)", uint8(k))
}

// callAttrs are the instruction attributes that name called computations,
// in the order their call sites are listed.
var callAttrs = [...]string{
	"calls", "to_apply", "condition", "body", "branch_computations",
	"true_computation", "false_computation", "called_computations",
}

// callAttrRank returns the position of name in callAttrs, or -1.
func callAttrRank(name string) int {
	switch name {
	case "calls":
		return 0
	case "to_apply":
		return 1
	case "condition":
		return 2
	case "body":
		return 3
	case "branch_computations":
		return 4
	case "true_computation":
		return 5
	case "false_computation":
		return 6
	case "called_computations":
		return 7
	}
	return -1
}

// hasCallAttr reports whether in has one of callAttrs.
func hasCallAttr(in *hlo.Instruction) bool {
	for _, a := range in.Attrs {
		if callAttrRank(a.Name) >= 0 {
			return true
		}
	}
	return false
}

func callKind(op hlo.Opcode, attr string) CallKind {
	switch attr {
	case "calls":
		switch {
		case op == hlo.OpFusion:
			return CallFusion
		case op == hlo.OpCall:
			return CallCall
		case op == hlo.OpCustomCall:
			return CallCustom
		case op == hlo.OpAsyncStart || strings.HasSuffix(string(op), "-start"):
			return CallAsync
		}
		return CallOther
	case "to_apply":
		if op == hlo.OpCall {
			return CallCall
		}
		return CallToApply
	case "condition":
		return CallWhileCondition
	case "body":
		return CallWhileBody
	case "branch_computations", "true_computation", "false_computation":
		return CallConditionalBranch
	case "called_computations":
		return CallCustom
	}
	return CallOther
}

// CalleeNames parses an attribute value naming computations: "%f",
// "{%a, %b}" or "f".
func CalleeNames(value string) []string {
	v := strings.TrimSpace(value)
	v = strings.TrimPrefix(v, "{")
	v = strings.TrimSuffix(v, "}")
	var out []string
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimPrefix(strings.TrimSpace(f), "%")
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// CallSite is one instruction calling one computation.
type CallSite struct {
	Caller *hlo.Instruction
	Callee *hlo.Computation
	Kind   CallKind
}

// Unresolved is a computation name an instruction calls that the module
// does not have.
type Unresolved struct {
	Caller *hlo.Instruction
	Attr   string
	Name   string
}

// CompNode is a computation as a gonum node; its ID is the computation's
// index in Module.Computations.
type CompNode struct {
	Comp *hlo.Computation
	id   int64
}

// ID returns the computation's index in the module.
func (n *CompNode) ID() int64 { return n.id }

// DOTID names the node in DOT output.
func (n *CompNode) DOTID() string { return n.Comp.Name }

// CallEdge runs from a caller computation to a callee and lists every call
// site between them in program order.
type CallEdge struct {
	F, T  *CompNode
	Sites []CallSite
}

// From returns the caller.
func (e *CallEdge) From() gonum.Node { return e.F }

// To returns the callee.
func (e *CallEdge) To() gonum.Node { return e.T }

// ReversedEdge returns e unaltered.
func (e *CallEdge) ReversedEdge() gonum.Edge { return e }

// Kinds returns the distinct kinds of the edge's call sites, in order of
// first appearance.
func (e *CallEdge) Kinds() []CallKind {
	var ks []CallKind
	for _, s := range e.Sites {
		if !slices.Contains(ks, s.Kind) {
			ks = append(ks, s.Kind)
		}
	}
	return ks
}

// CallGraph is the graph of a module's computations. Build it with
// NewCallGraph. It is read-only once built and safe for concurrent use.
type CallGraph struct {
	mod *hlo.Module
	// comps are the module's computations when the graph was built;
	// nodes are made for them on first use (the gonum views).
	comps []*hlo.Computation
	nodes func() []*CompNode
	// byPtr maps computations to their indices, built on first use when
	// a computation's Index hint is wrong (see lookup).
	byPtr func() map[*hlo.Computation]int
	// The calls made by computation i, in program order, are
	// siteFlat[at[0][i]:at[0][i+1]]; the calls made to it, in module
	// order, callerFlat[at[1][i]:at[1][i+1]]; its distinct callees,
	// succFlat[at[2][i]:at[2][i+1]], and callers, predFlat[at[3][i]:...].
	// Offsets rather than slices per computation: the graph is built for
	// every pipeline run, and its garbage is the collector's work.
	siteFlat, callerFlat []CallSite
	succFlat, predFlat   []int32
	// to[k] is the index of siteFlat[k].Callee. The callers and preds
	// (at[1], at[3]) are filled in on first use, by back.
	to         []int32
	back       sync.Once
	at         [4][]int32
	unresolved []Unresolved
	// fusion[i] says whether computation i is called by a fusion.
	fusion []bool

	postOnce sync.Once
	post     []int32 // PostOrder as indices
	postErr  error
}

func (g *CallGraph) sitesOf(i int) []CallSite { return row(g.siteFlat, g.at[0], i) }

func (g *CallGraph) callersOf(i int) []CallSite {
	g.back.Do(g.linkBack)
	return row(g.callerFlat, g.at[1], i)
}

func (g *CallGraph) succsOf(i int) []int32 { return row(g.succFlat, g.at[2], i) }

func (g *CallGraph) predsOf(i int) []int32 {
	g.back.Do(g.linkBack)
	return row(g.predFlat, g.at[3], i)
}

// row returns list i of lists stored one after another in flat, list i
// from at[i] to at[i+1], capped so that appending copies.
func row[T any](flat []T, at []int32, i int) []T {
	a, b := at[i], at[i+1]
	return flat[a:b:b]
}

// cgScan holds the call sites and unresolved names found in some
// computations.
type cgScan struct {
	g      *CallGraph
	byName func() map[string]*hlo.Computation
	sites  []CallSite
	to     []int32 // to[k] is the index of sites[k].Callee
	unres  []Unresolved
}

// NewCallGraph builds the call graph of m. Names that do not resolve to a
// computation of m are recorded (see Unresolved), not fatal.
func NewCallGraph(m *hlo.Module) *CallGraph { return NewCallGraphJobs(m, 1) }

// NewCallGraphJobs is NewCallGraph with the computations' instructions
// scanned by up to jobs goroutines; the graph is the same for any jobs.
func NewCallGraphJobs(m *hlo.Module, jobs int) *CallGraph {
	if jobs <= 1 {
		b := NewCallGraphBuilder(m, 1)
		b.Scan(0)
		return b.Graph()
	}
	// A few parts a goroutine, taken in turn, even out their speeds.
	b := NewCallGraphBuilder(m, 4*jobs)
	var next atomic.Int64
	var eg errgroup.Group
	eg.SetLimit(jobs)
	for range jobs {
		eg.Go(func() error {
			for {
				k := int(next.Add(1)) - 1
				if k >= b.Parts() {
					return nil
				}
				b.Scan(k)
			}
		})
	}
	_ = eg.Wait() // the workers return no errors
	return b.Graph()
}

// CallGraphBuilder builds a call graph with the scan of the module's
// instructions for call sites, most of the work, split into parts that
// goroutines of the caller's may scan at once: NewCallGraphBuilder, then
// Scan of every part (in any order, concurrently), then Graph. A pipeline
// uses it to build the graph with workers it already has running.
type CallGraphBuilder struct {
	g      *CallGraph
	byName func() map[string]*hlo.Computation
	// Part k scans the instructions flat[lo[k]:lo[k+1]] of the module's
	// instructions listed computation by computation, from computation
	// from[k] on; it records where the computations own[k] to own[k+1]-1
	// (those starting in it) start in its list of sites.
	lo, from, own []int
	// flat[i] is the position of computation i's first instruction.
	flat  []int
	parts []cgScan
}

// NewCallGraphBuilder prepares the graph of m with its instructions split
// into up to parts parts of about equal size (at least one).
func NewCallGraphBuilder(m *hlo.Module, parts int) *CallGraphBuilder {
	n := len(m.Computations)
	g := &CallGraph{
		mod: m, comps: slices.Clone(m.Computations), fusion: make([]bool, n),
	}
	g.nodes = sync.OnceValue(func() []*CompNode {
		nodes := make([]CompNode, len(g.comps))
		ptrs := make([]*CompNode, len(g.comps))
		for i, c := range g.comps {
			nodes[i] = CompNode{Comp: c, id: int64(i)}
			ptrs[i] = &nodes[i]
		}
		return ptrs
	})
	at := make([]int32, 4*(n+1)) // the four offset arrays in one block
	for k := range g.at {
		g.at[k] = at[k*(n+1) : (k+1)*(n+1) : (k+1)*(n+1)]
	}
	flat := make([]int, n+1)
	for i, c := range g.comps {
		flat[i+1] = flat[i] + len(c.Instructions)
	}
	g.byPtr = sync.OnceValue(func() map[*hlo.Computation]int {
		byPtr := make(map[*hlo.Computation]int, n)
		for i, c := range g.comps {
			if _, dup := byPtr[c]; !dup {
				byPtr[c] = i
			}
		}
		return byPtr
	})
	total := flat[n]
	parts = max(min(parts, total), 1)
	b := &CallGraphBuilder{g: g, flat: flat, lo: make([]int, parts+1), from: make([]int, parts),
		own: make([]int, parts+1), parts: make([]cgScan, parts)}
	// Names are looked up only when in.Called lacks them.
	b.byName = sync.OnceValue(func() map[string]*hlo.Computation {
		byName := make(map[string]*hlo.Computation, n)
		for _, c := range m.Computations {
			if _, dup := byName[c.Name]; !dup {
				byName[c.Name] = c
			}
		}
		return byName
	})
	holder, owner := 0, 0 // the computations holding instruction lo[k], starting at or after it
	for k := range parts {
		lo := total * k / parts
		for holder < n && flat[holder+1] <= lo && flat[holder+1] < total {
			holder++
		}
		for owner < n && flat[owner] < lo {
			owner++
		}
		b.lo[k], b.own[k], b.from[k] = lo, owner, min(holder, owner)
	}
	b.lo[parts], b.own[parts] = total, n
	// A module calls most of its computations about once: n sites in all
	// is a good first capacity, shared out among the parts in windows of
	// one array each (a part that outgrows its window reallocates).
	c := n/parts + 1
	sites, to := make([]CallSite, c*parts), make([]int32, c*parts)
	for k := range b.parts {
		lo := k * c
		b.parts[k] = cgScan{g: g, byName: b.byName, sites: sites[lo : lo : lo+c], to: to[lo : lo : lo+c]}
	}
	return b
}

// Parts returns the number of parts to Scan.
func (b *CallGraphBuilder) Parts() int { return len(b.parts) }

// Scan finds the call sites of part k's instructions. Scans of distinct
// parts may run concurrently.
func (b *CallGraphBuilder) Scan(k int) {
	sc := &b.parts[k]
	comps, start := b.g.comps, b.g.at[0]
	lo, hi := b.lo[k], b.lo[k+1]
	for i := b.from[k]; i < b.own[k+1] || i < len(comps) && b.flat[i] < hi; i++ {
		if i >= b.own[k] {
			start[i] = int32(len(sc.sites)) // shifted by the earlier parts' sites in Graph
		}
		ins := comps[i].Instructions
		for _, in := range ins[max(lo-b.flat[i], 0):max(min(hi-b.flat[i], len(ins)), 0)] {
			if in == nil || len(in.Called) == 0 && !hasCallAttr(in) {
				continue
			}
			sc.add(in)
		}
	}
}

// Graph joins the parts' findings into the call graph; call it once,
// after every part was scanned.
func (b *CallGraphBuilder) Graph() *CallGraph {
	g := b.g
	n := len(g.comps)
	start := g.at[0]
	sc := b.parts[0]
	if len(b.parts) > 1 {
		total := 0
		for k := range b.parts {
			total += len(b.parts[k].sites)
		}
		sc = cgScan{sites: make([]CallSite, 0, total), to: make([]int32, 0, total)}
		for k := range b.parts {
			p := &b.parts[k]
			for i := b.own[k]; i < b.own[k+1]; i++ {
				start[i] += int32(len(sc.sites))
			}
			sc.sites = append(sc.sites, p.sites...)
			sc.to = append(sc.to, p.to...)
			sc.unres = append(sc.unres, p.unres...)
		}
	}
	start[n] = int32(len(sc.sites))
	b.parts = nil
	return g.link(sc)
}

// link fills in g's successors from the call sites found in module order.
func (g *CallGraph) link(b cgScan) *CallGraph {
	n := len(g.comps)
	start := g.at[0]
	g.unresolved = b.unres
	g.siteFlat, g.to = b.sites, b.to
	// succs: distinct callees in call-site order.
	mark := make([]int32, n) // mark[j] == i+1: j already a successor of i
	succAt := g.at[2]
	succFlat := make([]int32, 0, len(b.sites))
	for i := range n {
		succAt[i] = int32(len(succFlat))
		for k := start[i]; k < start[i+1]; k++ {
			j := b.to[k]
			if mark[j] != int32(i+1) {
				mark[j] = int32(i + 1)
				succFlat = append(succFlat, j)
			}
			if b.sites[k].Kind == CallFusion {
				g.fusion[j] = true
			}
		}
	}
	succAt[n] = int32(len(succFlat))
	g.succFlat = succFlat
	return g
}

// linkBack fills in the callers and preds: a counting sort of the sites
// and successors by callee, which keeps module order. at[1] and at[3]
// first count at j+1, then, summed, start the windows, are advanced while
// filling them (ending each window where the next starts) and are shifted
// back. Most pipeline runs never ask for callers, hence the wait.
func (g *CallGraph) linkBack() {
	n := len(g.comps)
	start, ncallers, npreds := g.at[0], g.at[1], g.at[3]
	for _, j := range g.to {
		ncallers[j+1]++
	}
	for _, j := range g.succFlat {
		npreds[j+1]++
	}
	for j := range n {
		ncallers[j+1] += ncallers[j]
		npreds[j+1] += npreds[j]
	}
	callerFlat := make([]CallSite, len(g.siteFlat))
	predFlat := make([]int32, npreds[n])
	for i := range n {
		for _, j := range g.succsOf(i) {
			predFlat[npreds[j]] = int32(i)
			npreds[j]++
		}
		for k := start[i]; k < start[i+1]; k++ {
			j := g.to[k]
			callerFlat[ncallers[j]] = g.siteFlat[k]
			ncallers[j]++
		}
	}
	copy(ncallers[1:], ncallers[:n])
	copy(npreds[1:], npreds[:n])
	ncallers[0], npreds[0] = 0, 0
	g.callerFlat, g.predFlat = callerFlat, predFlat
}

// add records the call sites of in: first those named by its call
// attributes (in callAttrs order, each resolved to the first unused
// computation of in.Called with that name, else to the module's first
// computation of that name), then the computations of in.Called no
// attribute named, as CallOther.
func (b *cgScan) add(in *hlo.Instruction) {
	g := b.g
	var seenBuf [8]bool
	var seen []bool
	if len(in.Called) <= len(seenBuf) {
		seen = seenBuf[:len(in.Called)]
	} else {
		seen = make([]bool, len(in.Called))
	}
	// The first attribute of each name counts, as in Instruction.Attr.
	var pos [len(callAttrs)]int
	for k, a := range in.Attrs {
		if r := callAttrRank(a.Name); r >= 0 && pos[r] == 0 {
			pos[r] = k + 1
		}
	}
	for r, p := range pos {
		if p == 0 {
			continue
		}
		a := callAttrs[r]
		kind := callKind(in.Opcode, a)
		// The names as CalleeNames splits them, without allocating.
		v := strings.TrimSpace(in.Attrs[p-1].Value)
		v = strings.TrimPrefix(v, "{")
		v = strings.TrimSuffix(v, "}")
		for {
			f, rest, more := strings.Cut(v, ",")
			if name := strings.TrimPrefix(strings.TrimSpace(f), "%"); name != "" {
				var callee *hlo.Computation
				for k, cc := range in.Called {
					if cc != nil && cc.Name == name && !seen[k] {
						callee, seen[k] = cc, true
						break
					}
				}
				if callee == nil {
					callee = b.byName()[name]
				}
				if j, ok := g.lookup(callee); ok {
					b.sites = append(b.sites, CallSite{Caller: in, Callee: callee, Kind: kind})
					b.to = append(b.to, int32(j))
				} else {
					b.unres = append(b.unres, Unresolved{Caller: in, Attr: a, Name: name})
				}
			}
			if !more {
				break
			}
			v = rest
		}
	}
	for k, cc := range in.Called {
		if seen[k] || cc == nil {
			continue
		}
		j, ok := g.lookup(cc)
		if !ok {
			b.unres = append(b.unres, Unresolved{Caller: in, Name: cc.Name})
			continue
		}
		b.sites = append(b.sites, CallSite{Caller: in, Callee: cc, Kind: CallOther})
		b.to = append(b.to, int32(j))
	}
}

// lookup returns c's index in the module the graph was built from, and
// whether c is one of its computations. The computation's Index says
// where to look; a wrong hint (a computation added or moved by hand) falls
// back to a map built once.
func (g *CallGraph) lookup(c *hlo.Computation) (int, bool) {
	if c == nil {
		return -1, false
	}
	if i := c.Index; i >= 0 && i < len(g.comps) && g.comps[i] == c {
		return i, true
	}
	i, ok := g.byPtr()[c]
	if !ok {
		return -1, false
	}
	return i, true
}

// Module returns the module the graph views.
func (g *CallGraph) Module() *hlo.Module { return g.mod }

// Index returns c's index in the module, or -1.
func (g *CallGraph) Index(c *hlo.Computation) int {
	if i, ok := g.lookup(c); ok {
		return i
	}
	return -1
}

// Sites returns the calls made by instructions of c, in program order.
func (g *CallGraph) Sites(c *hlo.Computation) []CallSite {
	if i, ok := g.lookup(c); ok {
		return g.sitesOf(i)
	}
	return nil
}

// Callers returns the calls made to c.
func (g *CallGraph) Callers(c *hlo.Computation) []CallSite {
	if i, ok := g.lookup(c); ok {
		return g.callersOf(i)
	}
	return nil
}

// Callees returns the distinct computations c calls, in call-site order.
func (g *CallGraph) Callees(c *hlo.Computation) []*hlo.Computation {
	i, ok := g.lookup(c)
	if !ok {
		return nil
	}
	out := make([]*hlo.Computation, len(g.succsOf(i)))
	for k, j := range g.succsOf(i) {
		out[k] = g.comps[j]
	}
	return out
}

// Unresolved returns the called names that are not computations of the
// module, in module order.
func (g *CallGraph) Unresolved() []Unresolved { return g.unresolved }

// IsFusionComputation reports whether c is called by a fusion instruction.
func (g *CallGraph) IsFusionComputation(c *hlo.Computation) bool {
	i, ok := g.lookup(c)
	return ok && g.fusion[i]
}

// Node returns the computation node with the given ID, or nil.
func (g *CallGraph) Node(id int64) gonum.Node {
	if id < 0 || id >= int64(len(g.comps)) {
		return nil
	}
	return g.nodes()[id]
}

func (g *CallGraph) nodeSet(ids []int32) gonum.Nodes {
	if len(ids) == 0 {
		return gonum.Empty
	}
	ns := make([]gonum.Node, len(ids))
	nodes := g.nodes()
	for k, i := range ids {
		ns[k] = nodes[i]
	}
	return iterator.NewOrderedNodes(ns)
}

// Nodes returns every computation in module order.
func (g *CallGraph) Nodes() gonum.Nodes {
	ids := make([]int32, len(g.comps))
	for i := range ids {
		ids[i] = int32(i)
	}
	return g.nodeSet(ids)
}

// From returns the callees of computation id.
func (g *CallGraph) From(id int64) gonum.Nodes {
	if g.Node(id) == nil {
		return gonum.Empty
	}
	return g.nodeSet(g.succsOf(int(id)))
}

// To returns the callers of computation id.
func (g *CallGraph) To(id int64) gonum.Nodes {
	if g.Node(id) == nil {
		return gonum.Empty
	}
	return g.nodeSet(g.predsOf(int(id)))
}

// HasEdgeFromTo reports whether computation uid calls vid.
func (g *CallGraph) HasEdgeFromTo(uid, vid int64) bool {
	return g.Node(uid) != nil && g.Node(vid) != nil && slices.Contains(g.succsOf(int(uid)), int32(vid))
}

// HasEdgeBetween reports whether either computation calls the other.
func (g *CallGraph) HasEdgeBetween(xid, yid int64) bool {
	return g.HasEdgeFromTo(xid, yid) || g.HasEdgeFromTo(yid, xid)
}

// Edge returns the *CallEdge from uid to vid, or nil.
func (g *CallGraph) Edge(uid, vid int64) gonum.Edge {
	if !g.HasEdgeFromTo(uid, vid) {
		return nil
	}
	nodes := g.nodes()
	e := &CallEdge{F: nodes[uid], T: nodes[vid]}
	for _, s := range g.sitesOf(int(uid)) {
		if j, _ := g.lookup(s.Callee); j == int(vid) {
			e.Sites = append(e.Sites, s)
		}
	}
	return e
}

// PostOrder returns every computation with callees before callers. The
// walk starts from each computation in module order (so unreachable
// computations are included) and visits callees in call-site order, which
// makes the order deterministic. Recursion gives a *CycleError. The order
// is computed once; each call returns a new slice.
func (g *CallGraph) PostOrder() ([]*hlo.Computation, error) {
	g.postOnce.Do(g.postOrder)
	if g.postErr != nil {
		return nil, g.postErr
	}
	out := make([]*hlo.Computation, len(g.post))
	for k, i := range g.post {
		out[k] = g.comps[i]
	}
	return out, nil
}

func (g *CallGraph) postOrder() {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(g.comps))
	out := make([]int32, 0, len(g.comps))
	var stack []int32
	var cycle []string
	var visit func(i int32) bool
	visit = func(i int32) bool {
		color[i] = grey
		stack = append(stack, i)
		for _, j := range g.succsOf(int(i)) {
			switch color[j] {
			case grey:
				k := slices.Index(stack, j)
				for _, s := range stack[k:] {
					cycle = append(cycle, g.comps[s].Name)
				}
				return false
			case white:
				if !visit(j) {
					return false
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[i] = black
		out = append(out, i)
		return true
	}
	for i := range g.comps {
		if color[i] == white && !visit(int32(i)) {
			g.postErr = &CycleError{Where: "call graph of module " + g.mod.Name, Cycles: [][]string{cycle}}
			return
		}
	}
	g.post = out
}

// Acyclic returns nil when no computation calls itself, through any
// chain of calls, and else the *CycleError PostOrder returns.
func (g *CallGraph) Acyclic() error {
	g.postOnce.Do(g.postOrder)
	return g.postErr
}

// NonFusionPostOrder is PostOrder without the fusion computations: the
// computations a per-computation pass visits, callees before callers, as
// XLA's HloComputationPass does.
func (g *CallGraph) NonFusionPostOrder() ([]*hlo.Computation, error) {
	g.postOnce.Do(g.postOrder)
	if g.postErr != nil {
		return nil, g.postErr
	}
	out := make([]*hlo.Computation, 0, len(g.post))
	for _, i := range g.post {
		if !g.fusion[i] {
			out = append(out, g.comps[i])
		}
	}
	return out, nil
}

// Levels groups computations by height in the call graph: level 0 calls
// nothing, and a computation's level is one more than its highest callee's.
// Computations of one level can be processed in parallel once the lower
// levels are done. Each level is in module order.
func (g *CallGraph) Levels() ([][]*hlo.Computation, error) {
	order, err := g.PostOrder()
	if err != nil {
		return nil, err
	}
	level := make([]int, len(g.comps))
	for _, c := range order {
		i, _ := g.lookup(c)
		for _, j := range g.succsOf(i) {
			level[i] = max(level[i], level[j]+1)
		}
	}
	return byLevel(level, func(i int) *hlo.Computation { return g.comps[i] }), nil
}

// Reachable returns the computations reachable from c through calls,
// including c itself, in module order.
func (g *CallGraph) Reachable(c *hlo.Computation) []*hlo.Computation {
	start, ok := g.lookup(c)
	if !ok {
		return nil
	}
	seen := make([]bool, len(g.comps))
	work := []int32{int32(start)}
	seen[start] = true
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		for _, j := range g.succsOf(int(i)) {
			if !seen[j] {
				seen[j] = true
				work = append(work, j)
			}
		}
	}
	var out []*hlo.Computation
	for i, s := range seen {
		if s {
			out = append(out, g.comps[i])
		}
	}
	return out
}
