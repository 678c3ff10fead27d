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
		case op == "fusion":
			return CallFusion
		case op == "call":
			return CallCall
		case op == "custom-call":
			return CallCustom
		case op == "async-start" || strings.HasSuffix(string(op), "-start"):
			return CallAsync
		}
		return CallOther
	case "to_apply":
		if op == "call" {
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
	mod   *hlo.Module
	nodes []*CompNode
	index map[*hlo.Computation]int
	// The calls made by computation i, in program order, are
	// siteFlat[at[0][i]:at[0][i+1]]; the calls made to it, in module
	// order, callerFlat[at[1][i]:at[1][i+1]]; its distinct callees,
	// succFlat[at[2][i]:at[2][i+1]], and callers, predFlat[at[3][i]:...].
	// Offsets rather than slices per computation: the graph is built for
	// every pipeline run, and its garbage is the collector's work.
	siteFlat, callerFlat []CallSite
	succFlat, predFlat   []int
	at                   [4][]int32
	unresolved           []Unresolved
	// fusion[i] says whether computation i is called by a fusion.
	fusion []bool

	postOnce sync.Once
	post     []int // PostOrder as indices
	postErr  error
}

func (g *CallGraph) sitesOf(i int) []CallSite {
	a, b := g.at[0][i], g.at[0][i+1]
	return g.siteFlat[a:b:b]
}

func (g *CallGraph) callersOf(i int) []CallSite {
	a, b := g.at[1][i], g.at[1][i+1]
	return g.callerFlat[a:b:b]
}

func (g *CallGraph) succsOf(i int) []int {
	a, b := g.at[2][i], g.at[2][i+1]
	return g.succFlat[a:b:b]
}

func (g *CallGraph) predsOf(i int) []int {
	a, b := g.at[3][i], g.at[3][i+1]
	return g.predFlat[a:b:b]
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
	n := len(m.Computations)
	g := &CallGraph{
		mod: m, nodes: make([]*CompNode, n), index: make(map[*hlo.Computation]int, n),
		fusion: make([]bool, n),
	}
	at := make([]int32, 4*(n+1)) // the four offset arrays in one block
	for k := range g.at {
		g.at[k] = at[k*(n+1) : (k+1)*(n+1) : (k+1)*(n+1)]
	}
	nodes := make([]CompNode, n)
	for i, c := range m.Computations {
		nodes[i] = CompNode{Comp: c, id: int64(i)}
		g.nodes[i] = &nodes[i]
		g.index[c] = i
	}
	// Names are looked up only when in.Called lacks them.
	byName := sync.OnceValue(func() map[string]*hlo.Computation {
		byName := make(map[string]*hlo.Computation, n)
		for _, c := range m.Computations {
			if _, dup := byName[c.Name]; !dup {
				byName[c.Name] = c
			}
		}
		return byName
	})
	scan := func(sc *cgScan, c *hlo.Computation) {
		for _, in := range c.Instructions {
			if in == nil || len(in.Called) == 0 && !hasCallAttr(in) {
				continue
			}
			sc.add(in)
		}
	}
	var b cgScan
	start := g.at[0]
	if jobs = min(jobs, n); jobs <= 1 {
		// A module calls most of its computations about once: n sites
		// is a good first capacity.
		b = cgScan{g: g, byName: byName, sites: make([]CallSite, 0, n), to: make([]int32, 0, n)}
		for i, c := range m.Computations {
			start[i] = int32(len(b.sites))
			scan(&b, c)
		}
		start[n] = int32(len(b.sites))
	} else {
		// Workers take computations in order; each computation's
		// findings get a slot, joined in module order afterwards.
		per := make([]cgScan, n)
		var next atomic.Int64
		var eg errgroup.Group
		eg.SetLimit(jobs)
		for range jobs {
			eg.Go(func() error {
				for {
					i := int(next.Add(1)) - 1
					if i >= n {
						return nil
					}
					per[i] = cgScan{g: g, byName: byName}
					scan(&per[i], m.Computations[i])
				}
			})
		}
		_ = eg.Wait() // the workers return no errors
		total := 0
		for i := range per {
			total += len(per[i].sites)
		}
		b = cgScan{sites: make([]CallSite, 0, total), to: make([]int32, 0, total)}
		for i := range per {
			start[i] = int32(len(b.sites))
			b.sites = append(b.sites, per[i].sites...)
			b.to = append(b.to, per[i].to...)
			b.unres = append(b.unres, per[i].unres...)
		}
		start[n] = int32(len(b.sites))
	}
	g.unresolved = b.unres
	g.siteFlat = b.sites

	// succs: distinct callees in call-site order; callers and preds are
	// filled by a counting sort over the callees, which keeps module
	// order: at[1] and at[3] first count at j+1, then, summed, start the
	// windows, are advanced while filling them (ending each window where
	// the next starts) and are shifted back.
	mark := make([]int, n) // mark[j] == i+1: j already a successor of i
	ncallers, npreds, succAt := g.at[1], g.at[3], g.at[2]
	succFlat := make([]int, 0, len(b.sites))
	for i := range n {
		succAt[i] = int32(len(succFlat))
		for k := start[i]; k < start[i+1]; k++ {
			j := int(b.to[k])
			ncallers[j+1]++
			if mark[j] != i+1 {
				mark[j] = i + 1
				succFlat = append(succFlat, j)
				npreds[j+1]++
			}
			if b.sites[k].Kind == CallFusion {
				g.fusion[j] = true
			}
		}
	}
	succAt[n] = int32(len(succFlat))
	g.succFlat = succFlat
	for j := range n {
		ncallers[j+1] += ncallers[j]
		npreds[j+1] += npreds[j]
	}
	callerFlat := make([]CallSite, len(b.sites))
	predFlat := make([]int, npreds[n])
	for i := range n {
		for _, j := range g.succsOf(i) {
			predFlat[npreds[j]] = i
			npreds[j]++
		}
		for k := start[i]; k < start[i+1]; k++ {
			j := b.to[k]
			callerFlat[ncallers[j]] = b.sites[k]
			ncallers[j]++
		}
	}
	copy(ncallers[1:], ncallers[:n])
	copy(npreds[1:], npreds[:n])
	ncallers[0], npreds[0] = 0, 0
	g.callerFlat, g.predFlat = callerFlat, predFlat
	return g
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
				if j, ok := g.index[callee]; callee != nil && ok {
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
		j, ok := g.index[cc]
		if !ok {
			b.unres = append(b.unres, Unresolved{Caller: in, Name: cc.Name})
			continue
		}
		b.sites = append(b.sites, CallSite{Caller: in, Callee: cc, Kind: CallOther})
		b.to = append(b.to, int32(j))
	}
}

// Module returns the module the graph views.
func (g *CallGraph) Module() *hlo.Module { return g.mod }

// Index returns c's index in the module, or -1.
func (g *CallGraph) Index(c *hlo.Computation) int {
	if i, ok := g.index[c]; ok {
		return i
	}
	return -1
}

// Sites returns the calls made by instructions of c, in program order.
func (g *CallGraph) Sites(c *hlo.Computation) []CallSite {
	if i, ok := g.index[c]; ok {
		return g.sitesOf(i)
	}
	return nil
}

// Callers returns the calls made to c.
func (g *CallGraph) Callers(c *hlo.Computation) []CallSite {
	if i, ok := g.index[c]; ok {
		return g.callersOf(i)
	}
	return nil
}

// Callees returns the distinct computations c calls, in call-site order.
func (g *CallGraph) Callees(c *hlo.Computation) []*hlo.Computation {
	i, ok := g.index[c]
	if !ok {
		return nil
	}
	out := make([]*hlo.Computation, len(g.succsOf(i)))
	for k, j := range g.succsOf(i) {
		out[k] = g.nodes[j].Comp
	}
	return out
}

// Unresolved returns the called names that are not computations of the
// module, in module order.
func (g *CallGraph) Unresolved() []Unresolved { return g.unresolved }

// IsFusionComputation reports whether c is called by a fusion instruction.
func (g *CallGraph) IsFusionComputation(c *hlo.Computation) bool {
	i, ok := g.index[c]
	return ok && g.fusion[i]
}

// Node returns the computation node with the given ID, or nil.
func (g *CallGraph) Node(id int64) gonum.Node {
	if id < 0 || id >= int64(len(g.nodes)) {
		return nil
	}
	return g.nodes[id]
}

func (g *CallGraph) nodeSet(ids []int) gonum.Nodes {
	if len(ids) == 0 {
		return gonum.Empty
	}
	ns := make([]gonum.Node, len(ids))
	for k, i := range ids {
		ns[k] = g.nodes[i]
	}
	return iterator.NewOrderedNodes(ns)
}

// Nodes returns every computation in module order.
func (g *CallGraph) Nodes() gonum.Nodes {
	ids := make([]int, len(g.nodes))
	for i := range ids {
		ids[i] = i
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
	return g.Node(uid) != nil && g.Node(vid) != nil && slices.Contains(g.succsOf(int(uid)), int(vid))
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
	e := &CallEdge{F: g.nodes[uid], T: g.nodes[vid]}
	for _, s := range g.sitesOf(int(uid)) {
		if g.index[s.Callee] == int(vid) {
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
		out[k] = g.nodes[i].Comp
	}
	return out, nil
}

func (g *CallGraph) postOrder() {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(g.nodes))
	out := make([]int, 0, len(g.nodes))
	var stack []int
	var cycle []string
	var visit func(i int) bool
	visit = func(i int) bool {
		color[i] = grey
		stack = append(stack, i)
		for _, j := range g.succsOf(i) {
			switch color[j] {
			case grey:
				k := slices.Index(stack, j)
				for _, s := range stack[k:] {
					cycle = append(cycle, g.nodes[s].Comp.Name)
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
	for i := range g.nodes {
		if color[i] == white && !visit(i) {
			g.postErr = &CycleError{Where: "call graph of module " + g.mod.Name, Cycles: [][]string{cycle}}
			return
		}
	}
	g.post = out
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
			out = append(out, g.nodes[i].Comp)
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
	level := make([]int, len(g.nodes))
	for _, c := range order {
		i := g.index[c]
		for _, j := range g.succsOf(i) {
			level[i] = max(level[i], level[j]+1)
		}
	}
	var out [][]*hlo.Computation
	for i, n := range g.nodes {
		for len(out) <= level[i] {
			out = append(out, nil)
		}
		out[level[i]] = append(out[level[i]], n.Comp)
	}
	return out, nil
}

// Reachable returns the computations reachable from c through calls,
// including c itself, in module order.
func (g *CallGraph) Reachable(c *hlo.Computation) []*hlo.Computation {
	start, ok := g.index[c]
	if !ok {
		return nil
	}
	seen := make([]bool, len(g.nodes))
	work := []int{start}
	seen[start] = true
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		for _, j := range g.succsOf(i) {
			if !seen[j] {
				seen[j] = true
				work = append(work, j)
			}
		}
	}
	var out []*hlo.Computation
	for i, s := range seen {
		if s {
			out = append(out, g.nodes[i].Comp)
		}
	}
	return out
}
