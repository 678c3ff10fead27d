package passes

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/hlo-opt/hlo-opt/graph"
	"github.com/hlo-opt/hlo-opt/hlo"
)

// Pass is the declaration of a pass or analysis: plain data, declared as a
// package-level variable by the package that implements it.
//
// A pass has a module-level Run, a per-computation RunComputation, or both.
// RunComputation is called once for each non-fusion computation, callees
// before callers, in parallel across computations; Run is called once
// afterwards (Unit.Part gives the per-computation results) and returns the
// pass's result. Without Run the result is the ComputationResults.
type Pass struct {
	// Name is valid in a flag and a JSON key: lower case letters, digits,
	// '-' and '_', starting with a letter.
	Name string
	// Doc is one line, no trailing period: what the pass computes.
	Doc string
	// Requires are passes whose results this pass reads with
	// Unit.ResultOf; the pipeline runs each of them first (once, while the
	// IR is unchanged).
	Requires []*Pass
	// ResultType is the type of the value Run returns (of
	// ComputationResults without Run); nil means the pass returns nil.
	ResultType reflect.Type
	// Run computes the pass over the module.
	Run func(u *Unit) (any, error)
	// RunComputation computes the pass over u.Computation. It must read
	// other computations only, and change nothing outside u.Computation.
	RunComputation func(u *Unit) (any, error)
	// CalleesFirst makes RunComputation on a computation wait until it has
	// finished on every computation that one calls (Unit.Part gives their
	// results). Without it all computations run independently.
	CalleesFirst bool
	// Transform says the pass may change the IR; it must then call
	// Unit.SetChanged when it did. Analyses leave it false.
	Transform bool
}

func (p *Pass) String() string { return p.Name }

// ComputationResults are the per-computation results of a pass, indexed like
// Module.Computations; the entry of a computation the pass did not visit is
// nil.
type ComputationResults []any

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// CycleInRequiresError reports a cycle in the Requires graph.
type CycleInRequiresError struct {
	// Cycle lists the passes on the cycle, first one repeated at the end.
	Cycle []*Pass
}

func (e *CycleInRequiresError) Error() string {
	names := make([]string, len(e.Cycle))
	for i, p := range e.Cycle {
		names[i] = p.Name
	}
	return "cycle in Requires graph: " + strings.Join(names, " -> ")
}

// Validate checks a set of passes and everything they require: names valid
// and unique, docs present and one line, a run function, and an acyclic
// Requires graph (a *CycleInRequiresError otherwise). All problems are
// reported, joined.
func Validate(ps []*Pass) error {
	var errs []error
	const (
		white = iota
		grey
		black
	)
	color := map[*Pass]int{}
	byName := map[string]*Pass{}
	var stack []*Pass
	var visit func(p *Pass)
	visit = func(p *Pass) {
		if p == nil {
			errs = append(errs, errors.New("nil pass"))
			return
		}
		switch color[p] {
		case black:
			return
		case grey:
			k := slices.Index(stack, p)
			cyc := append(slices.Clone(stack[k:]), p)
			errs = append(errs, &CycleInRequiresError{Cycle: cyc})
			return
		}
		color[p] = grey
		stack = append(stack, p)
		errs = append(errs, checkPass(p)...)
		if q, dup := byName[p.Name]; dup && q != p {
			errs = append(errs, fmt.Errorf("duplicate pass name %q", p.Name))
		}
		byName[p.Name] = p
		for _, r := range p.Requires {
			visit(r)
		}
		stack = stack[:len(stack)-1]
		color[p] = black
	}
	for _, p := range ps {
		visit(p)
	}
	return errors.Join(errs...)
}

func checkPass(p *Pass) []error {
	var errs []error
	if !nameRE.MatchString(p.Name) {
		errs = append(errs, fmt.Errorf("pass %q: name must match %s", p.Name, nameRE))
	}
	switch {
	case strings.TrimSpace(p.Doc) == "":
		errs = append(errs, fmt.Errorf("pass %q: empty Doc", p.Name))
	case strings.Contains(p.Doc, "\n"):
		errs = append(errs, fmt.Errorf("pass %q: Doc must be one line", p.Name))
	case strings.HasSuffix(p.Doc, "."):
		errs = append(errs, fmt.Errorf("pass %q: Doc must not end with a period", p.Name))
	case len(p.Doc) > 80:
		errs = append(errs, fmt.Errorf("pass %q: Doc longer than 80 characters", p.Name))
	}
	if p.Run == nil && p.RunComputation == nil {
		errs = append(errs, fmt.Errorf("pass %q: no Run or RunComputation", p.Name))
	}
	if p.CalleesFirst && p.RunComputation == nil {
		errs = append(errs, fmt.Errorf("pass %q: CalleesFirst without RunComputation", p.Name))
	}
	return errs
}

// Unit is what a pass's run function sees: the module as read-only context,
// the computation it works on (nil in Run), results of the passes it
// requires, a logger and a context. A Unit is not safe for concurrent use;
// each computation gets its own.
type Unit struct {
	// Pass is the pass being run.
	Pass *Pass
	// Module is the whole module. Only a Transform pass may change it, and
	// in RunComputation only inside Computation.
	Module *hlo.Module
	// Computation is the computation of a RunComputation call, or nil.
	Computation *hlo.Computation
	// CallGraph is the module's call graph, shared read-only.
	CallGraph *graph.CallGraph
	// Logger is named after the pass and carries the computation.
	Logger *zap.Logger

	ctx      context.Context
	resultOf map[*Pass]any
	parts    ComputationResults
	diags    []*Error
	changed  *atomic.Bool
	dag      *graph.DAG
	jobs     int
	budget   budget
	local    *any
	config   map[string]any
}

// Config returns the settings the pipeline's Options.Config holds under
// key, or nil.
func (u *Unit) Config(key string) any { return u.config[key] }

// Local returns the value that the goroutine running u keeps for u's pass
// until the fan-out ends, made by newValue on the first of its units that
// asks. A pass keeps there what it reuses from one computation to the
// next: scratch buffers, or results that equal computations may share.
// A goroutine runs one unit at a time, so the value needs no lock; values
// are not shared between goroutines, and which computations one goroutine
// gets depends on the number of jobs, so nothing that reaches a result
// may depend on what the value held before. A Run unit gets a new value.
func (u *Unit) Local(newValue func() any) any {
	if u.local == nil {
		return newValue()
	}
	if *u.local == nil {
		*u.local = newValue()
	}
	return *u.local
}

// Jobs returns the pipeline's job limit (Options.Jobs, at least 1): the
// most goroutines a fan-out of the pass's own could get, for sizing its
// pieces. A pass fans out with Parallel, which draws from the run's jobs
// budget, so that Jobs bounds all of a run's parallelism and 1 means
// sequential.
func (u *Unit) Jobs() int { return max(u.jobs, 1) }

// Context returns the run's context; long loops should check its Err.
func (u *Unit) Context() context.Context { return u.ctx }

// ResultOf returns the result of a required pass. It panics if p is not in
// the pass's Requires (a programming error, as in go/analysis).
func (u *Unit) ResultOf(p *Pass) any {
	v, ok := u.resultOf[p]
	if !ok {
		panic(fmt.Sprintf("pass %q: ResultOf(%q) but it is not in Requires", u.Pass.Name, p.Name))
	}
	return v
}

// Part returns this pass's own result on computation c: in Run, for any
// visited computation; in RunComputation of a CalleesFirst pass, for the
// computations u.Computation calls (transitively). It is nil otherwise.
func (u *Unit) Part(c *hlo.Computation) any {
	i := u.CallGraph.Index(c)
	if i < 0 || i >= len(u.parts) {
		return nil
	}
	if u.Computation != nil {
		// Only finished callees may be read while other computations run.
		if !u.Pass.CalleesFirst || c == u.Computation || !slices.Contains(u.CallGraph.Reachable(u.Computation), c) {
			return nil
		}
	}
	return u.parts[i]
}

// DAG returns the instruction graph of u.Computation, built on first use.
func (u *Unit) DAG() (*graph.DAG, error) {
	if u.Computation == nil {
		return nil, errors.New("DAG called outside RunComputation")
	}
	if u.dag == nil {
		d, err := graph.NewDAG(u.Computation)
		if err != nil {
			return nil, err
		}
		u.dag = d
	}
	return u.dag, nil
}

// Errorf records an error about an instruction (or, with in nil, about
// u.Computation or the module). The pass fails after its run function
// returns; every recorded error is reported.
func (u *Unit) Errorf(in *hlo.Instruction, format string, args ...any) {
	u.diags = append(u.diags, newError(u.Module, u.Computation, in, fmt.Sprintf(format, args...)))
}

// SetChanged records that a Transform pass changed the IR, which
// invalidates cached analyses and triggers verification.
func (u *Unit) SetChanged() { u.changed.Store(true) }
