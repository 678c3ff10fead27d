package passes

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/hlo-opt/hlo-opt/graph"
	"github.com/hlo-opt/hlo-opt/hlo"
)

// Options configure a Pipeline. The zero value is usable: GOMAXPROCS jobs,
// no logging, verification on.
type Options struct {
	// Jobs bounds how many computations are processed at once; <= 0 means
	// runtime.GOMAXPROCS(0) and 1 means sequential. The output is the
	// same for any Jobs.
	Jobs int
	// Logger receives debug logs; nil means zap.NewNop().
	Logger *zap.Logger
	// Config holds the passes' settings by the key each pass package
	// documents (cost.ConfigKey for the cost passes, layoutassign.ConfigKey
	// for the layout pass); a pass finds its own with Unit.Config and uses
	// its defaults without one. Settings travel with the run, so that a
	// pass is one package-level value, not a closure built per setting.
	Config map[string]any
	// NoVerify turns off running Verify on the input before the first
	// pass and after each pass that changed the IR.
	NoVerify bool
	// AfterPass, if set, is called after each pass ran (required ones
	// included), for timing, dumps and progress. An error stops the run.
	AfterPass func(PassEvent) error
	// Progress, if set, is called as computations finish within a pass.
	// It may be called from several goroutines at once.
	Progress func(pass string, done, total int)
	// Finished, if set, is given the result of each requested pass as
	// soon as that result is final: no pass still to run may change the
	// IR (no Transform is left to run). It is called from Run's
	// goroutine, in pipeline order among the results that become final
	// together; an error stops the run. The run then holds no result
	// longer than it needs it: a requested pass's result once Finished
	// had it, a required pass's once no pass still to run requires it;
	// Results.Of finds neither. A driver writes each report as it comes
	// (render.Spool), so that the results of a long pipeline are not all
	// live at once. Should a pass that is not a Transform change the IR
	// all the same, the results it made stale run again and come again:
	// a later call for a pass supersedes the earlier one.
	Finished func(p *Pass, result any) error
}

// PassEvent describes one finished pass run.
type PassEvent struct {
	// Seq numbers pass runs from 1 in the order they ran.
	Seq int
	// Pass is the pass that ran.
	Pass *Pass
	// Requested says whether the pass was named in the pipeline, rather
	// than run as a requirement.
	Requested bool
	// Changed says whether the pass changed the IR.
	Changed bool
	// Elapsed is the pass's wall time (verification excluded); analyses
	// chained through one fan-out (see Pipeline.Run) share its wall time
	// in proportion to the time each spent on the computations, and add
	// their Run.
	Elapsed time.Duration
	// Verified is the wall time of the verification that ran after the
	// pass because it changed the IR (zero when none ran).
	Verified time.Duration
	// Module is the module after the pass, read-only.
	Module *hlo.Module
}

// Pipeline runs a list of passes in order. Build it with NewPipeline; it
// may be run on many modules, one at a time or concurrently.
type Pipeline struct {
	passes []*Pass
	opts   Options
}

// NewPipeline validates the passes (see Validate) and returns a pipeline
// that runs them in the order given.
func NewPipeline(ps []*Pass, opts Options) (*Pipeline, error) {
	if len(ps) == 0 {
		return nil, errors.New("passes: empty pipeline")
	}
	if err := Validate(append(append([]*Pass(nil), ps...), Verify)); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.GOMAXPROCS(0)
	}
	return &Pipeline{passes: append([]*Pass(nil), ps...), opts: opts}, nil
}

// Passes returns the pipeline's passes in order.
func (pl *Pipeline) Passes() []*Pass { return append([]*Pass(nil), pl.passes...) }

// Results hold what a pipeline run computed.
type Results struct {
	// Module is the module the pipeline ran on (changed in place by
	// Transform passes).
	Module *hlo.Module
	// Passes are the requested passes, in order.
	Passes []*Pass
	// Timings list every pass run, in order.
	Timings []Timing
	values  map[*Pass]any
}

// Timing is the wall time of one pass run, charged as PassEvent.Elapsed.
type Timing struct {
	Pass    string
	Elapsed time.Duration
}

// Of returns the result of pass p (requested or required), and whether p
// ran. A requested analysis's result describes the final module (see
// Pipeline.Run); a required one's, or a Transform's, the module as of when
// it ran.
func (r *Results) Of(p *Pass) (any, bool) {
	v, ok := r.values[p]
	return v, ok
}

// ResultOf returns the result of p as a T; false if p did not run or its
// result is not a T.
func ResultOf[T any](r *Results, p *Pass) (T, bool) {
	v, ok := r.values[p]
	t, ok2 := v.(T)
	return t, ok && ok2
}

type run struct {
	pl     *Pipeline
	mod    *hlo.Module
	budget budget // the helpers every fan-out draws from
	cg     *graph.CallGraph
	valid  map[*Pass]any // cache of results for the current IR
	// verified is Verify's result on the IR as it is, from the check of
	// the input or after the last change; nil when there is none. A
	// requested Verify takes it rather than checking the same IR again.
	verified any
	res      *Results
	seq      int
	// order caches the fan-out orders of cg: [0] callees first, [1]
	// largest first.
	order   [2][]*hlo.Computation
	current *Pass         // the pass reqs belongs to
	reqs    map[*Pass]any // results of current's Requires
	// loggers are the logger named after each pass (see named).
	loggersMu sync.Mutex
	loggers   map[*Pass]*zap.Logger
	// given holds the requested passes whose latest result went to
	// Options.Finished (see release).
	given map[*Pass]bool
}

// Run runs the pipeline on m. Each requested pass runs after the passes it
// requires; a required pass runs once and its result is cached until a
// Transform pass changes the IR. With verification on, Verify runs after
// every pass that changed the IR, and its failure names that pass. The
// first failing pass stops the run: its error is a *PassError wrapping an
// ErrorList with every computation's errors, in module order. Cancelling
// ctx stops the run promptly with ctx's error.
//
// Consecutive requested analyses with a RunComputation whose requirements
// have already run go through the computations together, in one fan-out,
// as MLIR's pass manager runs a nested pipeline on one function before the
// next: each computation gets the whole chain of their RunComputation
// calls, then their Run functions follow in order. Results, errors, events
// and the rest of the run are those of running them one after another;
// only a later pass of the chain may be called on computations before an
// earlier one's Run (never on one where an earlier pass reported errors).
// Transform passes are barriers: they finish, and are verified, alone.
// The transforms that requested analyses require run before them all, up
// to the first requested Transform (see upfront); at the end, a requested
// analysis that ran before a later pass changed the IR runs again (see
// refresh), so that Results describe the final module.
func (pl *Pipeline) Run(ctx context.Context, m *hlo.Module) (*Results, error) {
	r := &run{pl: pl, mod: m, valid: map[*Pass]any{}, budget: newBudget(min(pl.opts.Jobs, runtime.GOMAXPROCS(0)) - 1),
		res: &Results{Module: m, Passes: pl.Passes(), values: map[*Pass]any{}}}
	if err := r.verifyInput(ctx); err != nil {
		return r.res, err
	}
	for _, t := range pl.upfront() {
		if err := r.ensure(ctx, t, false); err != nil {
			return r.res, err
		}
	}
	for i := 0; i < len(pl.passes); {
		n := 1
		if ch := r.chain(pl.passes[i:]); len(ch) > 1 {
			if err := r.runChain(ctx, ch); err != nil {
				return r.res, err
			}
			n = len(ch)
		} else if err := r.ensure(ctx, pl.passes[i], true); err != nil {
			return r.res, err
		}
		i += n
		if err := r.release(pl.passes[i:]); err != nil {
			return r.res, err
		}
	}
	return r.res, r.refresh(ctx)
}

// release, with Options.Finished set, gives it the requested passes'
// results that are final and drops the results that no pass still to run
// requires. rest are the requested passes yet to run; the requested
// analyses whose result is stale run again in refresh. The results are
// final when no Transform among these passes and what they require,
// directly or not, is left to run: an analysis's result then stays valid,
// and a Transform's stays what it did.
func (r *run) release(rest []*Pass) error {
	if r.pl.opts.Finished == nil {
		return nil
	}
	needed := map[*Pass]bool{} // required by a pass still to run
	settled := true            // no Transform is left to run
	var visit func(p *Pass)
	visit = func(p *Pass) {
		if _, ok := r.valid[p]; p.Transform && !ok {
			settled = false
		}
		for _, q := range p.Requires {
			if !needed[q] {
				needed[q] = true
				visit(q)
			}
		}
	}
	for _, p := range rest {
		visit(p)
	}
	requested := map[*Pass]bool{}
	for _, p := range r.pl.passes {
		requested[p] = true
		if _, ok := r.valid[p]; !ok && !p.Transform {
			visit(p)
		}
	}
	for _, p := range r.pl.passes {
		v, ran := r.res.values[p]
		_, ok := r.valid[p]
		if !ran || !settled || r.given[p] || !ok && !p.Transform {
			continue
		}
		if r.given == nil {
			r.given = map[*Pass]bool{}
		}
		r.given[p] = true
		if err := r.pl.opts.Finished(p, v); err != nil {
			return err
		}
	}
	for p := range r.res.values {
		if !needed[p] && (r.given[p] || !requested[p]) {
			delete(r.res.values, p)
			if _, ok := r.valid[p]; ok {
				r.valid[p] = nil // p ran on this IR; its result is gone
			}
			r.current, r.reqs = nil, nil
		}
	}
	return nil
}

// upfront returns the Transform passes that the requested passes before
// the first requested Transform require, directly or not, in the order
// they are met: they run first, so that the analyses named before the pass
// that requires them see the IR they leave and need not run again (see
// refresh). hlo-opt --passes=indexing,coalescing lays out before indexing.
func (pl *Pipeline) upfront() []*Pass {
	var out []*Pass
	seen := map[*Pass]bool{}
	var visit func(p *Pass)
	visit = func(p *Pass) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, q := range p.Requires {
			visit(q)
		}
		if p.Transform {
			out = append(out, p)
		}
	}
	for _, p := range pl.passes {
		if p.Transform {
			break
		}
		for _, q := range p.Requires {
			visit(q)
		}
	}
	return out
}

// refresh runs again each requested analysis that ran before a later pass
// changed the IR (a Transform named after it, or one a later pass
// requires), so that every result describes the final module, the one
// reports are written against: an indexing result of the instructions
// before the layout assignment inserted copies would not fit the module
// printed. A Transform's result stays what it did. Transforms that keep
// changing the IR as analyses require them again are an error.
func (r *run) refresh(ctx context.Context) error {
	for range len(r.pl.passes) + 1 {
		var stale []*Pass
		for _, p := range r.pl.passes {
			if _, ok := r.valid[p]; !ok && !p.Transform && !slices.Contains(stale, p) {
				stale = append(stale, p)
			}
		}
		if len(stale) == 0 {
			return nil
		}
		for _, p := range stale {
			if err := r.ensure(ctx, p, true); err != nil {
				return err
			}
			if err := r.release(nil); err != nil {
				return err
			}
		}
	}
	return errors.New("passes: the IR does not settle: the transforms the requested passes require keep changing it")
}

// verifyInput runs Verify on the module before the first pass, as XLA's
// HloVerifier runs on a parsed module, so that an invalid input is reported
// as the input's fault (PassError.Input) rather than as the fault of the
// first pass after which verify runs, and no analysis or transform meets a
// state it was not written for. It is skipped with NoVerify, and when
// Verify is the first pass anyway with no transform before it (see
// upfront).
func (r *run) verifyInput(ctx context.Context) error {
	if r.pl.opts.NoVerify || len(r.pl.passes) == 0 || r.pl.passes[0] == Verify && len(r.pl.upfront()) == 0 {
		return nil
	}
	v, _, err := r.runPass(ctx, Verify, nil)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &PassError{Pass: Verify.Name, Input: true, Err: err}
	}
	r.verified = v
	return nil
}

// chain returns the longest prefix of ps that can run in one fan-out:
// analyses with a RunComputation, not yet run, each once, whose Requires
// have all run (and so are not among the chain's earlier passes).
func (r *run) chain(ps []*Pass) []*Pass {
	for k, p := range ps {
		if p.RunComputation == nil || p.Transform || slices.Contains(ps[:k], p) || p == Verify && r.verified != nil {
			return ps[:k]
		}
		if _, ok := r.valid[p]; ok {
			return ps[:k]
		}
		for _, q := range p.Requires {
			if _, ok := r.valid[q]; !ok {
				return ps[:k]
			}
		}
	}
	return ps
}

// runChain runs the passes of a chain (see chain) with one fan-out, then
// records each in order as ensure would. The fan-out's wall time is split
// between the passes in proportion to the time each spent on the
// computations (fanned.busy), measured around its calls, so that a cheap
// pass chained before a costly one is not charged with it; all of it goes
// to the first pass when none was measured.
func (r *run) runChain(ctx context.Context, ps []*Pass) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	start := time.Now()
	fs, err := r.fanOut(ctx, ps)
	wall := time.Since(start)
	if err != nil {
		r.res.Timings = append(r.res.Timings, Timing{Pass: ps[0].Name, Elapsed: wall})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &PassError{Pass: ps[0].Name, Err: err}
	}
	var busy time.Duration
	for k := range fs {
		busy += fs[k].busy
	}
	for k, p := range ps {
		var fanTime time.Duration
		switch {
		case busy > 0:
			fanTime = time.Duration(float64(wall) * float64(fs[k].busy) / float64(busy))
		case k == 0:
			fanTime = wall
		}
		changed, err := r.record(ctx, p, true, &fs[k], fanTime)
		if err != nil {
			return err
		}
		if changed {
			// Not a Transform pass, but it changed the IR: the rest
			// of the chain saw the old IR and runs again.
			for _, q := range ps[k+1:] {
				if err := r.ensure(ctx, q, true); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return nil
}

func (r *run) ensure(ctx context.Context, p *Pass, requested bool) error {
	if _, ok := r.valid[p]; ok {
		return nil
	}
	for _, q := range p.Requires {
		if err := r.ensure(ctx, q, false); err != nil {
			return err
		}
	}
	_, err := r.record(ctx, p, requested, nil, 0)
	return err
}

// record runs p (its Run only, on the fan-out results pre, when pre is not
// nil), records its result, timing and event, and verifies the IR if p
// changed it. fanTime is the part of the fan-out's wall time charged to p.
func (r *run) record(ctx context.Context, p *Pass, requested bool, pre *fanned, fanTime time.Duration) (changed bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	start := time.Now()
	var v any
	if p == Verify && pre == nil && r.verified != nil {
		v = r.verified // this IR passed the check already
	} else {
		v, changed, err = r.runPass(ctx, p, pre)
	}
	elapsed := time.Since(start) + fanTime
	r.res.Timings = append(r.res.Timings, Timing{Pass: p.Name, Elapsed: elapsed})
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, &PassError{Pass: p.Name, Err: err}
	}
	if changed {
		clear(r.valid)
		r.verified = nil
		r.cg = nil
		r.order = [2][]*hlo.Computation{}
	}
	r.valid[p] = v
	r.res.values[p] = v
	delete(r.given, p)
	r.seq++
	r.pl.opts.Logger.Debug("pass done", zap.String("pass", p.Name), zap.Bool("changed", changed), zap.Duration("elapsed", elapsed))
	var verified time.Duration
	if changed && !r.pl.opts.NoVerify && p != Verify {
		vstart := time.Now()
		vv, _, err := r.runPass(ctx, Verify, nil)
		verified = time.Since(vstart)
		if err != nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			return false, &PassError{Pass: Verify.Name, After: p.Name, Err: err}
		}
		r.verified = vv
	}
	if r.pl.opts.AfterPass != nil {
		ev := PassEvent{Seq: r.seq, Pass: p, Requested: requested, Changed: changed, Elapsed: elapsed, Verified: verified, Module: r.mod}
		if err := r.pl.opts.AfterPass(ev); err != nil {
			return false, err
		}
	}
	return changed, nil
}

// helpers takes from the budget the helpers a fan-out over the module's
// computations may use beside the caller: what is free, but no more than
// there are other computations (parallel gives them back).
func (r *run) helpers() int {
	return r.budget.take(len(r.mod.Computations) - 1)
}

// parallelScan is the instruction count from which the call graph's scan
// of the module is shared with helpers. Below it the scan is too short
// to split: it is limited by memory traffic, and on the 2-core development
// machine two workers scanning halves of the llama 70B module (4052
// instructions) took as long, with the hand-offs, as one.
const parallelScan = 1 << 16

// callGraph returns the module's call graph, built on first use (its scan
// of large modules shared with helpers).
func (r *run) callGraph() *graph.CallGraph {
	if r.cg != nil {
		return r.cg
	}
	n := 0
	for _, c := range r.mod.Computations {
		n += len(c.Instructions)
	}
	helpers := 0
	if n >= parallelScan {
		helpers = r.helpers()
	}
	// Many parts a worker, taken in turn, even out their speeds (the
	// instructions that call computations take longest).
	b := graph.NewCallGraphBuilder(r.mod, 16*helpers+1)
	var next atomic.Int64
	parallel(r.budget, helpers, func(int) {
		for k := int(next.Add(1)) - 1; k < b.Parts(); k = int(next.Add(1)) - 1 {
			b.Scan(k)
		}
	})
	r.cg = b.Graph()
	return r.cg
}

// named returns the pipeline's logger named after p, made once per run
// (units of p share it).
func (r *run) named(p *Pass) *zap.Logger {
	r.loggersMu.Lock()
	defer r.loggersMu.Unlock()
	if l, ok := r.loggers[p]; ok {
		return l
	}
	if r.loggers == nil {
		r.loggers = map[*Pass]*zap.Logger{}
	}
	l := r.pl.opts.Logger.Named(p.Name)
	r.loggers[p] = l
	return l
}

// initUnit sets up u, a zero Unit, for running p on c (nil for Run) with
// the results of p's Requires in reqs.
func (r *run) initUnit(u *Unit, ctx context.Context, p *Pass, c *hlo.Computation, reqs map[*Pass]any, parts ComputationResults, changed *atomic.Bool, local *any) {
	log := r.pl.opts.Logger
	// Child loggers cost allocations; skip them when nothing is logged,
	// and encode the computation's name only if something is (WithLazy):
	// most units log nothing.
	if log.Core().Enabled(zapcore.ErrorLevel) {
		log = r.named(p)
		if c != nil {
			log = log.WithLazy(zap.String("computation", c.Name))
		}
	}
	*u = Unit{Pass: p, Module: r.mod, Computation: c, CallGraph: r.callGraph(), Logger: log,
		ctx: ctx, resultOf: reqs, parts: parts, changed: changed, jobs: r.pl.opts.Jobs, budget: r.budget, local: local, config: r.pl.opts.Config}
}

// requiredResults returns the results of p's Requires, shared read-only by
// all of p's units.
func (r *run) requiredResults(p *Pass) map[*Pass]any {
	if r.current != p || r.reqs == nil {
		r.reqs = make(map[*Pass]any, len(p.Requires))
		for _, q := range p.Requires {
			r.reqs[q] = r.valid[q]
		}
		r.current = p
	}
	return r.reqs
}

// smallUnit is the instruction count below which a fan-out hands out
// computations smallBatch at a time.
const (
	smallUnit  = 16
	smallBatch = 8
)

// fanned is what a pass's RunComputation calls produced in a fan-out.
type fanned struct {
	parts ComputationResults
	errs  ErrorList
	flag  atomic.Bool // set by Unit.SetChanged
	// busy is the time the workers spent in the pass's RunComputation.
	busy time.Duration
}

// runPass runs one pass: the per-computation fan-out (or its results pre,
// when not nil), then Run.
func (r *run) runPass(ctx context.Context, p *Pass, pre *fanned) (result any, changed bool, err error) {
	if pre == nil && p.RunComputation != nil {
		fs, err := r.fanOut(ctx, []*Pass{p})
		if err != nil {
			return nil, false, err
		}
		pre = &fs[0]
	} else if pre == nil {
		pre = new(fanned)
	}
	parts, errs, flag := pre.parts, pre.errs, &pre.flag
	if p.Run != nil && len(errs) == 0 {
		u := new(Unit)
		r.initUnit(u, ctx, p, nil, r.requiredResults(p), parts, flag, nil)
		v, err := r.call(p, u)
		result = v
		errs = append(errs, u.diags...)
		if err != nil {
			errs = append(errs, asErrors(r.mod, nil, err)...)
		}
	} else if p.Run == nil {
		result = parts
	}
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	for _, e := range errs {
		e.Pass = p.Name
	}
	errs.RemoveMultiples()
	if len(errs) > 0 {
		return nil, flag.Load(), errs
	}
	if err := checkResultType(p, result); err != nil {
		return nil, false, err
	}
	return result, flag.Load(), nil
}

func checkResultType(p *Pass, v any) error {
	if p.ResultType == nil {
		if v != nil && p.Run != nil {
			return fmt.Errorf("internal error: pass %q returned a %T but declares no ResultType", p.Name, v)
		}
		return nil
	}
	if v == nil {
		return nil
	}
	if t := reflect.TypeOf(v); t != p.ResultType {
		return fmt.Errorf("internal error: pass %q returned a %v, but declared ResultType %v", p.Name, t, p.ResultType)
	}
	return nil
}

// call runs a run function, turning a panic into an error.
func (r *run) call(p *Pass, u *Unit) (v any, err error) {
	defer func() {
		if x := recover(); x != nil {
			where := "module " + r.mod.Name
			if u.Computation != nil {
				where = "computation " + u.Computation.Name
			}
			u.Logger.Error("panic", zap.Any("value", x), zap.ByteString("stack", debug.Stack()))
			v, err = nil, &PanicError{Pass: p.Name, Where: where, Value: x}
		}
	}()
	if u.Computation != nil {
		return p.RunComputation(u)
	}
	return p.Run(u)
}

// fanOut runs the RunComputation of every pass of ps on every non-fusion
// computation: each computation gets the chain ps[0], ps[1], ... in turn.
// Results and errors go into per-(pass, computation) slots, so the outcome
// does not depend on the number of jobs; errors come back in module order.
// With several passes, a pass is not run where an earlier one reported
// errors (on that computation, or on any computation once seen): the
// earlier pass fails the run, and the later one's results are dropped.
func (r *run) fanOut(ctx context.Context, ps []*Pass) ([]fanned, error) {
	gctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	comps, err := r.fanOutOrder(slices.ContainsFunc(ps, func(p *Pass) bool { return p.CalleesFirst }))
	if err != nil {
		return nil, err
	}
	f := newFan(r, gctx, ps, comps)
	helpers := r.helpers()                  // after newFan built the call graph, whose scan may use them
	workers := make([]fanWorker, helpers+1) // [0] is the caller
	var firstErr atomic.Pointer[error]
	parallel(r.budget, helpers, func(h int) {
		if err := f.work(&workers[h]); err != nil && firstErr.CompareAndSwap(nil, &err) {
			cancel(err)
		}
	})
	if err := firstErr.Load(); err != nil {
		return nil, *err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Errors in slot order: by pass, then module order.
	var diags []slotDiags
	for w := range workers {
		diags = append(diags, workers[w].diags...)
		for k, b := range workers[w].busy {
			f.fs[k].busy += b
		}
	}
	slices.SortFunc(diags, func(a, b slotDiags) int { return a.slot - b.slot })
	for _, d := range diags {
		k := d.slot / f.n
		f.fs[k].errs = append(f.fs[k].errs, d.errs...)
	}
	return f.fs, nil
}

// fan is one fan-out of a chain of passes over the computations.
type fan struct {
	r     *run
	ctx   context.Context
	ps    []*Pass
	comps []*hlo.Computation // in the order they are taken
	cg    *graph.CallGraph
	n     int // computations in the module
	fs    []fanned
	reqs  []map[*Pass]any
	// callees first: done[i] closes when computation i's chain ended;
	// failed[k*n+i] is set when pass k reported errors on computation i.
	calleesFirst bool
	done         []chan struct{}
	failed       []atomic.Bool
	// stop is the first pass that reported errors (len(ps) while none
	// did); the passes after it are skipped.
	stop     atomic.Int64
	finished []atomic.Int64 // units done per pass, for Progress
	next     atomic.Int64   // the next computation to take
}

func newFan(r *run, ctx context.Context, ps []*Pass, comps []*hlo.Computation) *fan {
	n, np := len(r.mod.Computations), len(ps)
	f := &fan{r: r, ctx: ctx, ps: ps, comps: comps, cg: r.callGraph(), n: n, fs: make([]fanned, np), reqs: make([]map[*Pass]any, np),
		calleesFirst: slices.ContainsFunc(ps, func(p *Pass) bool { return p.CalleesFirst })}
	for k, p := range ps {
		f.fs[k].parts = make(ComputationResults, n)
		f.reqs[k] = r.requiredResults(p)
	}
	if f.calleesFirst {
		f.done = make([]chan struct{}, n)
		for i := range f.done {
			f.done[i] = make(chan struct{})
		}
		f.failed = make([]atomic.Bool, np*n)
	}
	f.stop.Store(int64(np))
	if r.pl.opts.Progress != nil {
		f.finished = make([]atomic.Int64, np)
	}
	return f
}

// work takes computations in order until none is left: small ones a batch
// at a time (taking one is an atomic add on a counter the workers share,
// which costs about what a unit on a three-instruction reducer does),
// except in callees-first order, where a batch would hold back callers'
// callees. A fixed set of workers does this (a goroutine per computation
// would pay for a goroutine and its stack growth each time); in
// callees-first order a worker waits only for computations already taken
// by running workers, so the wait always ends.
func (f *fan) work(w *fanWorker) error {
	for {
		lo := int(f.next.Load())
		if lo >= len(f.comps) {
			return nil
		}
		hi := lo + 1
		if !f.calleesFirst && len(f.comps[lo].Instructions) < smallUnit {
			hi = min(lo+smallBatch, len(f.comps))
		}
		if !f.next.CompareAndSwap(int64(lo), int64(hi)) {
			continue
		}
		for _, c := range f.comps[lo:hi] {
			if err := f.ctx.Err(); err != nil {
				return err
			}
			if err := f.one(c, w); err != nil {
				return err
			}
		}
	}
}

// one runs the chain on c in w's unit, set up anew for each call (nothing
// keeps a unit after its call, and its diagnostics are moved out).
func (f *fan) one(c *hlo.Computation, w *fanWorker) error {
	i := f.cg.Index(c)
	if f.done != nil {
		// The chain on c starts after the chains on its callees ended,
		// which were taken earlier (post-order) by running workers, so
		// waiting here cannot starve them.
		defer close(f.done[i])
		if err := f.waitCallees(c, i); err != nil {
			return err
		}
	}
	if err := f.ctx.Err(); err != nil {
		return err
	}
	if w.locals == nil {
		w.locals = make([]any, len(f.ps))
		w.busy = make([]time.Duration, len(f.ps))
	}
	for k, p := range f.ps {
		if int64(k) > f.stop.Load() || p.CalleesFirst && f.calleeFailed(c, i, k) {
			return nil
		}
		if !f.run(k, p, c, i, w) {
			return nil
		}
	}
	return nil
}

// waitCallees waits until the chains on c's callees ended.
func (f *fan) waitCallees(c *hlo.Computation, i int) error {
	for _, callee := range f.cg.Reachable(c) {
		j := f.cg.Index(callee)
		if j == i || f.cg.IsFusionComputation(callee) {
			continue
		}
		select {
		case <-f.done[j]:
		case <-f.ctx.Done():
			return f.ctx.Err()
		}
	}
	return nil
}

// calleeFailed reports whether pass k reported errors on a callee of c
// (which marks c failed too: the callee's errors are reported).
func (f *fan) calleeFailed(c *hlo.Computation, i, k int) bool {
	for _, callee := range f.cg.Reachable(c) {
		if j := f.cg.Index(callee); j != i && f.failed[k*f.n+j].Load() {
			f.failed[k*f.n+i].Store(true)
			return true
		}
	}
	return false
}

// run runs pass k of the chain on computation c (number i) and reports
// whether it went without errors.
func (f *fan) run(k int, p *Pass, c *hlo.Computation, i int, w *fanWorker) bool {
	u := &w.unit
	f.r.initUnit(u, f.ctx, p, c, f.reqs[k], f.fs[k].parts, &f.fs[k].flag, &w.locals[k])
	start := time.Now()
	v, err := f.r.call(p, u)
	w.busy[k] += time.Since(start)
	f.fs[k].parts[i] = v
	d := append(u.diags, asErrors(f.r.mod, c, err)...)
	if f.finished != nil {
		f.r.pl.opts.Progress(p.Name, int(f.finished[k].Add(1)), len(f.comps))
	}
	if len(d) == 0 {
		return true
	}
	w.diags = append(w.diags, slotDiags{k*f.n + i, d})
	if f.failed != nil {
		f.failed[k*f.n+i].Store(true)
	}
	for { // stop at the first failing pass
		s := f.stop.Load()
		if int64(k) >= s || f.stop.CompareAndSwap(s, int64(k)) {
			return false
		}
	}
}

// fanWorker is what one worker of a fan-out keeps: its unit, the
// diagnostics of its calls that reported any, and the passes' locals.
type fanWorker struct {
	unit   Unit
	diags  []slotDiags
	locals []any           // Unit.Local of each pass of the chain
	busy   []time.Duration // time in each pass's RunComputation
}

// slotDiags are the diagnostics of pass k on computation i: slot k*n+i.
type slotDiags struct {
	slot int
	errs []*Error
}

// fanOutOrder returns the non-fusion computations in the order their units
// start, computed once per call graph. Callees-first passes take them in
// post-order (a cycle is an error). Independent computations start in
// module order, the largest first (longest
// processing time first), so that a big entry computation does not start
// last and leave the other workers idle. Slots keep the output in module
// order whatever the start order.
func (r *run) fanOutOrder(calleesFirst bool) ([]*hlo.Computation, error) {
	k := 1
	if calleesFirst {
		k = 0
	}
	if r.order[k] != nil {
		return r.order[k], nil
	}
	cg := r.callGraph()
	if !calleesFirst {
		// Module order will do (no walk of the graph): a cycle is
		// verify's to report.
		comps := make([]*hlo.Computation, 0, len(r.mod.Computations))
		for _, c := range r.mod.Computations {
			if !cg.IsFusionComputation(c) {
				comps = append(comps, c)
			}
		}
		r.order[k] = largestFirst(cg, comps)
		return r.order[k], nil
	}
	comps, err := cg.NonFusionPostOrder()
	if err != nil {
		return nil, err
	}
	r.order[k] = comps
	return comps, nil
}

// asErrors converts an error returned by a run function into Errors.
func asErrors(m *hlo.Module, c *hlo.Computation, err error) []*Error {
	if err == nil {
		return nil
	}
	var l ErrorList
	if errors.As(err, &l) {
		return l
	}
	var e *Error
	if errors.As(err, &e) {
		return []*Error{e}
	}
	made := newError(m, c, nil, err.Error())
	made.cause = err
	return []*Error{made}
}

// largestFirst orders comps, in place, to start the large ones first,
// counting the instructions of the fused computations they call. Only
// computations larger than twice the average matter for the balance
// (longest processing time first); they come first, by decreasing size,
// and the rest follow in their order. Sorting them all would cost more
// than most fan-outs gain from it: a module has hundreds of computations
// of a few instructions.
func largestFirst(cg *graph.CallGraph, comps []*hlo.Computation) []*hlo.Computation {
	type sized struct {
		c *hlo.Computation
		n int
	}
	size := func(c *hlo.Computation) int {
		n := len(c.Instructions)
		for _, s := range cg.Sites(c) {
			if s.Kind == graph.CallFusion {
				n += len(s.Callee.Instructions)
			}
		}
		return n
	}
	total := 0
	sizes := make([]int, len(comps))
	for k, c := range comps {
		sizes[k] = size(c)
		total += sizes[k]
	}
	var big []sized
	rest := 0
	for k, c := range comps {
		if n := sizes[k]; n*len(comps) > 2*total {
			big = append(big, sized{c, n})
			continue
		}
		comps[rest] = c
		rest++
	}
	if len(big) == 0 {
		return comps
	}
	slices.SortStableFunc(big, func(a, b sized) int { return b.n - a.n })
	copy(comps[len(big):], comps[:rest])
	for k, s := range big {
		comps[k] = s.c
	}
	return comps
}
