package cost

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"sync"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/indexing"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

// Config is what the cost passes read: the device model, the coalescing
// mode and how many kernels the cost report lists.
type Config struct {
	Device Device
	// Mode is the coalescing pass's mode (default Indexing).
	Mode CoalescingMode
	// CostMode is the coalescing mode behind the cost estimate (default
	// Heuristic, as XLA's GPU performance model).
	CostMode CoalescingMode
	// Top is the number of most expensive kernels the cost report lists.
	Top int
	// Summary makes the cost pass keep what its text report prints: the
	// totals and the estimates of the Top kernels, not every kernel's
	// (which on a module of many thousand kernels are several times its
	// text). Its result's Of, JSON report and ModuleEstimate then know
	// those kernels only. hlo-opt sets it when the text reports are its
	// only output.
	Summary bool
}

// DefaultConfig is an H100, indexing-based coalescing for the coalescing
// pass, heuristic coalescing for the estimate (as XLA's GPU performance
// model) and a top-10 report.
func DefaultConfig() Config {
	d, _ := Preset("h100")
	return Config{Device: d, Mode: Indexing, CostMode: Heuristic, Top: 10}
}

// ConfigKey is the key of the cost passes' Config in
// passes.Options.Config (hlo-opt's --device and --coalescing).
const ConfigKey = "cost"

// PipelineConfig is c as passes.Options.Config: c under ConfigKey and,
// under layoutassign.ConfigKey, the layout assignment that the cost passes
// require (KernelsPass requires layoutassign.AssignPass) set to lay out for
// c's device: GPU layouts for a GPU, TPU tilings for a TPU.
func (c Config) PipelineConfig() map[string]any {
	return map[string]any{ConfigKey: c, layoutassign.ConfigKey: layoutassign.Options{Target: c.Device.LayoutTarget()}}
}

// configOf returns the Config the pipeline holds under ConfigKey, or
// DefaultConfig.
func configOf(u *passes.Unit) Config {
	cfg, ok := u.Config(ConfigKey).(Config)
	if !ok {
		return DefaultConfig()
	}
	if cfg.Top <= 0 {
		cfg.Top = 10
	}
	return cfg
}

// The cost passes report every kernel of the computations that launch
// kernels (the entry and the bodies of while, conditional, call and async
// ops): each fusion and each unfused instruction that moves data. They
// share one analysis of the kernels (emitter, cost analysis), KernelsPass,
// which they require. Their settings are the Config under ConfigKey.
var (
	KernelsPass = &passes.Pass{
		Name:           "gpu-kernels",
		Doc:            "find the kernels of a module, their emitters and GPU cost analysis",
		Requires:       []*passes.Pass{layoutassign.AssignPass},
		ResultType:     reflect.TypeFor[*kernelSet](),
		RunComputation: func(u *passes.Unit) (any, error) { return kernelsOf(u) },
		Run:            func(u *passes.Unit) (any, error) { return merge(u), nil },
	}
	CoalescingPass = kernelAnalysis("coalescing",
		"decide per fusion operand whether its GPU reads are coalesced, and why",
		reflect.TypeFor[*CoalescingResult](), coalescingOf, coalescingResult)
	UtilizationPass = kernelAnalysis("utilization",
		"operand utilization, bytes accessed and flops per kernel (GPU cost analysis)",
		reflect.TypeFor[*UtilizationResult](), gpuAnalysesOf,
		func(u *passes.Unit) (any, error) { return &UtilizationResult{kernelsIn(u)}, nil })
	CostPass = kernelAnalysis("cost",
		"roofline time estimate per kernel and for the module on a device model",
		reflect.TypeFor[*CostResult](), estimatesOf, costResult)
)

// All returns the three cost passes in the order coalescing, utilization,
// cost.
func All() []*passes.Pass { return []*passes.Pass{CoalescingPass, UtilizationPass, CostPass} }

// kernelAnalysis is a cost pass over the kernels of KernelsPass: result
// is its ResultType, perComputation (optional) and run its RunComputation
// and Run.
func kernelAnalysis(name, doc string, result reflect.Type, perComputation, run func(*passes.Unit) (any, error)) *passes.Pass {
	return &passes.Pass{
		Name:           name,
		Doc:            doc,
		Requires:       []*passes.Pass{KernelsPass},
		ResultType:     result,
		RunComputation: perComputation,
		Run:            run,
	}
}

func kernelsIn(u *passes.Unit) *kernelSet { return u.ResultOf(KernelsPass).(*kernelSet) }

// coalescingOf judges the reads of u's kernels, in chunks (eachKernel).
func coalescingOf(u *passes.Unit) (any, error) {
	cfg := configOf(u)
	return eachKernel(u, func() func(*kernel, *VerdictCache) []OperandCoalescing {
		memo := new(kernelMemo)
		return func(k *kernel, cache *VerdictCache) []OperandCoalescing {
			a, _ := memo.gpu(k)
			return a.coalescingShared(cfg.Mode, &cfg.Device, cache)
		}
	})
}

// gpuAnalysesOf makes the GPU analyses of u's kernels, in chunks
// (eachKernel), for the utilization pass's reports.
func gpuAnalysesOf(u *passes.Unit) (any, error) {
	return eachKernel(u, func() func(*kernel, *VerdictCache) *InstructionCost {
		memo := new(kernelMemo)
		return func(k *kernel, _ *VerdictCache) *InstructionCost { return memo.gpuCost(k) }
	})
}

// eachKernel returns f of each kernel of u's computation, f made by newF
// once per chunk of kernels (for what may not be shared between
// goroutines). Large
// computations are split into contiguous chunks computed in parallel; all
// share the run's verdict cache (kernelSet.verdicts: the loop bodies of a
// model repeat each other's kernels). The results depend on neither. It
// stops when u's context is done.
func eachKernel[T any](u *passes.Unit, newF func() func(k *kernel, cache *VerdictCache) T) (any, error) {
	ks := kernelsIn(u)
	kernels := ks.byComp[u.Computation]
	if len(kernels) == 0 {
		return []T(nil), nil
	}
	out := make([]T, len(kernels))
	err := inChunks(u, len(kernels), func(lo, hi int) (err error) {
		defer indexing.Recover(&err)
		f := newF()
		for i := lo; i < hi; i++ {
			if err := u.Context().Err(); err != nil {
				return err
			}
			out[i] = f(kernels[i], ks.verdicts)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func coalescingResult(u *passes.Unit) (any, error) {
	ks := kernelsIn(u)
	r := &CoalescingResult{ks: ks, cfg: configOf(u), verdicts: make([][]OperandCoalescing, 0, len(ks.list))}
	for _, c := range u.Module.Computations {
		part, _ := u.Part(c).([][]OperandCoalescing)
		for i := range ks.byComp[c] {
			var v []OperandCoalescing
			if i < len(part) {
				v = part[i]
			}
			r.verdicts = append(r.verdicts, v)
		}
	}
	return r, nil
}

// estimatesOf estimates u's kernels, in chunks (eachKernel): their
// estimates, or in a summary (Config.Summary) the figures the totals take
// from them.
func estimatesOf(u *passes.Unit) (any, error) {
	cfg := configOf(u)
	devices := ModuleDevices(u.Module)
	if cfg.Summary {
		return eachKernel(u, func() func(*kernel, *VerdictCache) kernelFigures {
			estimate := estimator(cfg, devices, true)
			return func(k *kernel, cache *VerdictCache) kernelFigures {
				e := estimate(k, cache)
				return kernelFigures{e.TimeUS, e.Flops, e.Bytes()}
			}
		})
	}
	return eachKernel(u, func() func(*kernel, *VerdictCache) *Estimate { return estimator(cfg, devices, false) })
}

// estimator returns the estimate of a kernel on cfg's device in a module
// on devices devices, for a chunk of kernels: one model and kernelMemo
// per chunk, whose memos are not shared. With scratch, the estimates of a
// GPU's fusions and unfused ops are one, filled again for each kernel
// (Model.scratch).
func estimator(cfg Config, devices int64, scratch bool) func(*kernel, *VerdictCache) *Estimate {
	m := &Model{Device: cfg.Device, Mode: cfg.CostMode, Devices: devices}
	if scratch {
		m.scratch = new(Estimate)
	}
	memo := new(kernelMemo)
	return func(k *kernel, cache *VerdictCache) *Estimate {
		return m.estimateKernel(k.in, func() (*FusionAnalysis, *InstructionCost) { return memo.gpu(k) },
			func(a *FusionAnalysis) []OperandCoalescing {
				return a.coalescingShared(cfg.CostMode, &cfg.Device, cache)
			})
	}
}

func costResult(u *passes.Unit) (any, error) {
	cfg := configOf(u)
	_, runs := executions(u.Module)
	var r *CostResult
	if cfg.Summary {
		r = costSummary(u, cfg, runs)
	} else {
		var ests []*Estimate
		for _, c := range u.Module.Computations {
			part, _ := u.Part(c).([]*Estimate)
			for _, e := range part {
				e.Executions = runs[c]
			}
			ests = append(ests, part...)
		}
		r = newCostResult(ests, cfg)
	}
	r.compiled = compiledFor(u.Module)
	r.me.Note = foreignNote(r.compiled, &r.cfg.Device)
	return r, nil
}

// costSummary is the result of a summary (Config.Summary): the totals of
// the kernels' figures, summed in module order as newCostResult sums
// them, and the Top kernels, estimated again (an estimate depends on its
// kernel alone).
func costSummary(u *passes.Unit, cfg Config, runs map[*hlo.Computation]int64) *CostResult {
	ks := kernelsIn(u)
	r := &CostResult{cfg: cfg, me: &ModuleEstimate{Device: cfg.Device.Name}, by: map[*hlo.Instruction]*Estimate{}}
	kernels := make([]*kernel, 0, len(ks.list))
	total := make([]float64, 0, len(ks.list))
	for _, c := range u.Module.Computations {
		part, _ := u.Part(c).([]kernelFigures)
		n := max(runs[c], 1)
		for i, f := range part {
			r.me.addFigures(f, n)
			kernels = append(kernels, ks.byComp[c][i])
			total = append(total, f.time*float64(n))
		}
	}
	top := topIndices(total, cfg.Top)
	estimate := estimator(cfg, ModuleDevices(u.Module), false)
	r.me.top = make([]*Estimate, len(top))
	for i, k := range top {
		e := estimate(kernels[k], ks.verdicts)
		e.Executions = runs[kernels[k].in.Parent]
		r.me.top[i], r.by[e.Instr] = e, e
	}
	return r
}

// minChunk is the fewest kernels worth a goroutine of their own.
const minChunk = 512

// inChunks calls fn on contiguous chunks [lo, hi) of [0, n), one per job
// when n holds several chunks of minChunk, in parallel as the run's jobs
// budget allows (Unit.Parallel).
func inChunks(u *passes.Unit, n int, fn func(lo, hi int) error) error {
	chunks := min(u.Jobs(), n/minChunk)
	if chunks <= 1 {
		return fn(0, n)
	}
	size := (n + chunks - 1) / chunks
	return u.Parallel((n+size-1)/size, func(i int) error { return fn(i*size, min((i+1)*size, n)) })
}

// kernel is one kernel instruction with its emitter and GPU cost
// analysis, which the first pass that needs them makes (kernelMemo.gpu):
// the TPU model needs neither.
type kernel struct {
	in *hlo.Instruction
	// at is the kernel's place in kernelSet.list.
	at      int
	once    sync.Once
	emitter EmitterKind
	cost    *InstructionCost
}

// kernelMemo is what a goroutine keeps while it goes through a chunk of
// kernels (one per chunk: it is not shared): the memo of the GPU cost
// analyses, made on first use (the TPU model asks for few), and the
// emitter analysis of the last unfused kernel.
type kernelMemo struct {
	costs  *Costs
	single singleAnalysis
}

// gpu returns k's emitter analysis, made anew at each call (the memo's
// until the next call, for an unfused kernel: see analyzeReusing), and its
// GPU cost analysis, made the first time a memo is asked for it. The
// emitter analysis is cheap to make again, and held for every kernel of a
// large module at once it would be most of the cost passes' memory; the
// reports keep its emitter.
func (m *kernelMemo) gpu(k *kernel) (*FusionAnalysis, *InstructionCost) {
	a := analyzeReusing(k.in, &m.single)
	k.once.Do(func() { k.emitter, k.cost = a.Emitter, m.costOf(k.in) })
	return a, k.cost
}

// gpuCost is gpu's GPU cost analysis alone, which once made costs nothing.
func (m *kernelMemo) gpuCost(k *kernel) *InstructionCost {
	k.once.Do(func() { k.emitter, k.cost = analyzeReusing(k.in, &m.single).Emitter, m.costOf(k.in) })
	return k.cost
}

// costOf makes the GPU cost analysis of kernel in, which the kernel keeps.
func (m *kernelMemo) costOf(in *hlo.Instruction) *InstructionCost {
	if m.costs == nil {
		m.costs = NewCosts()
	}
	return m.costs.uncached(in)
}

// kernelSet is the kernels in module order, by instruction and by
// computation.
type kernelSet struct {
	list   []*kernel
	by     map[*hlo.Instruction]*kernel
	byComp map[*hlo.Computation][]*kernel
	// verdicts is the run's coalescing memo, shared by the passes that
	// judge the kernels' reads.
	verdicts *VerdictCache
}

// isKernelComputation reports whether c's instructions launch kernels:
// the entry, or a computation called by while, conditional, call or
// async-start from one that does.
func isKernelComputation(u *passes.Unit, c *hlo.Computation, depth int) bool {
	if c.IsEntry || (u.Module.Entry == c) {
		return true
	}
	if depth > 64 || u.CallGraph == nil {
		return false
	}
	for _, s := range u.CallGraph.Callers(c) {
		switch s.Caller.Opcode {
		case hlo.OpWhile, hlo.OpConditional, hlo.OpCall, hlo.OpAsyncStart:
			if s.Caller.Parent != nil && isKernelComputation(u, s.Caller.Parent, depth+1) {
				return true
			}
		}
	}
	return false
}

func kernelsOf(u *passes.Unit) ([]*kernel, error) {
	c := u.Computation
	if c == nil || !isKernelComputation(u, c, 0) {
		return nil, nil
	}
	n := 0
	for _, in := range c.Instructions {
		if isKernel(in) {
			n++
		}
	}
	ks, out := make([]kernel, n), make([]*kernel, 0, n)
	for _, in := range c.Instructions {
		if isKernel(in) {
			k := &ks[len(out)]
			k.in = in
			out = append(out, k)
		}
	}
	return out, nil
}

func merge(u *passes.Unit) *kernelSet {
	n := 0
	for _, c := range u.Module.Computations {
		part, _ := u.Part(c).([]*kernel)
		n += len(part)
	}
	ks := &kernelSet{
		list:     make([]*kernel, 0, n),
		by:       make(map[*hlo.Instruction]*kernel, n),
		byComp:   make(map[*hlo.Computation][]*kernel, len(u.Module.Computations)),
		verdicts: NewVerdictCache(),
	}
	for _, c := range u.Module.Computations {
		part, _ := u.Part(c).([]*kernel)
		ks.byComp[c] = part
		for _, k := range part {
			k.at = len(ks.list)
			ks.list = append(ks.list, k)
			ks.by[k.in] = k
		}
	}
	return ks
}

// CoalescingResult is the result of the coalescing pass.
type CoalescingResult struct {
	ks  *kernelSet
	cfg Config
	// verdicts are those of each kernel of ks.list, by its place there
	// (kernel.at); kernels with the same verdicts share them.
	verdicts [][]OperandCoalescing
}

// Of returns the verdicts for the operands of kernel in, or nil.
func (r *CoalescingResult) Of(in *hlo.Instruction) []OperandCoalescing {
	if k := r.ks.by[in]; k != nil {
		return r.verdicts[k.at]
	}
	return nil
}

// InstructionReport is the per-instruction JSON value:
// [{"operand": J, "coalesced": BOOL, "reason": "..."}].
func (r *CoalescingResult) InstructionReport(in *hlo.Instruction) any {
	if v := r.Of(in); v != nil {
		return v
	}
	return nil
}

// ModuleReport is the module-level JSON value.
func (r *CoalescingResult) ModuleReport() any {
	n := 0
	for _, v := range r.verdicts {
		for _, o := range v {
			if !o.Coalesced {
				n++
			}
		}
	}
	return map[string]any{"device": r.cfg.Device.Name, "mode": r.cfg.Mode.String(), "kernels": len(r.ks.list), "uncoalesced_operands": n}
}

// WriteText lists every kernel's emitter and its operands' verdicts.
func (r *CoalescingResult) WriteText(w io.Writer, _ *hlo.Module) error {
	b := fmt.Appendf(make([]byte, 0, flushAt+4<<10), "coalescing (%s, %s): %d kernels\n", r.cfg.Mode, r.cfg.Device.Name, len(r.ks.list))
	for _, k := range r.ks.list {
		b = appendKernel(b, k)
		b = append(b, '\n')
		for _, o := range r.verdicts[k.at] {
			verdict := ": coalesced: "
			if !o.Coalesced {
				verdict = ": UNCOALESCED: "
			}
			b = appendOperand(b, o.Operand, k.in)
			b = append(append(append(b, verdict...), o.Reason...), '\n')
		}
		var err error
		if b, err = flush(w, b); err != nil {
			return err
		}
	}
	_, err := w.Write(b)
	return err
}

// flushAt is the text a report writer keeps before it writes it out.
const flushAt = 32 << 10

// flush writes b to w once it holds flushAt bytes and returns it emptied,
// for reuse; otherwise it returns b.
func flush(w io.Writer, b []byte) ([]byte, error) {
	if len(b) < flushAt {
		return b, nil
	}
	_, err := w.Write(b)
	return b[:0], err
}

// appendKernel appends "computation/instruction (emitter)", the head of a
// kernel's lines in the text reports. They append rather than print: the
// reports of a large module run to hundreds of kilobytes.
func appendKernel(b []byte, k *kernel) []byte {
	b = append(append(append(b, k.in.Parent.Name...), '/'), k.in.Name...)
	return append(append(append(b, " ("...), k.emitter.String()...), ')')
}

// appendOperand appends "  operand J name".
func appendOperand(b []byte, j int, in *hlo.Instruction) []byte {
	b = strconv.AppendInt(append(b, "  operand "...), int64(j), 10)
	return append(append(b, ' '), in.Operands[j].Name...)
}

// appendG appends f as %.6g prints it. Most figures of the reports are
// whole numbers, whose digits it appends as they are when they are at
// most six (what %.6g prints of them, at a fifth of its cost).
func appendG(b []byte, f float64) []byte {
	if f == math.Trunc(f) && math.Abs(f) < 1e6 && (f != 0 || !math.Signbit(f)) { // not -0
		return strconv.AppendInt(b, int64(f), 10)
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Appendf(b, "%.6g", f)
	}
	return strconv.AppendFloat(b, f, 'g', 6, 64)
}

// UtilizationResult is the result of the utilization pass.
type UtilizationResult struct{ ks *kernelSet }

// Of returns the cost analysis of kernel in, or nil.
func (r *UtilizationResult) Of(in *hlo.Instruction) *InstructionCost {
	if k := r.ks.by[in]; k != nil {
		return k.cost
	}
	return nil
}

// utilizationJSON is one operand's entry in the JSON report.
type utilizationJSON struct {
	Operand       int     `json:"operand"`
	Utilization   float64 `json:"utilization"`
	BytesAccessed int64   `json:"bytes_accessed"`
}

// InstructionReport is the per-instruction JSON value:
// [{"operand": J, "utilization": F, "bytes_accessed": N}].
func (r *UtilizationResult) InstructionReport(in *hlo.Instruction) any {
	k := r.ks.by[in]
	if k == nil {
		return nil
	}
	out := make([]utilizationJSON, len(k.cost.Operands))
	for i, o := range k.cost.Operands {
		out[i] = utilizationJSON{Operand: o.Operand, Utilization: roundSig(o.Utilization), BytesAccessed: o.BytesAccessed}
	}
	return out
}

// roundSig keeps 9 significant digits so that JSON output is stable.
func roundSig(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 9, 64), 64)
	return f
}

// ModuleReport is the module-level JSON value: total bytes and flops.
func (r *UtilizationResult) ModuleReport() any {
	var bytes int64
	var flops float64
	for _, k := range r.ks.list {
		bytes += k.cost.BytesAccessed
		flops += k.cost.Flops
	}
	return map[string]any{"kernels": len(r.ks.list), "bytes_accessed": bytes, "flops": roundSig(flops)}
}

// WriteText lists every kernel's flops, output bytes and per-operand
// utilization and bytes.
func (r *UtilizationResult) WriteText(w io.Writer, _ *hlo.Module) error {
	b := fmt.Appendf(make([]byte, 0, flushAt+4<<10), "utilization: %d kernels\n", len(r.ks.list))
	for _, k := range r.ks.list {
		c := k.cost
		b = append(appendKernel(b, k), ": flops "...)
		b = append(appendG(b, c.Flops), ", bytes "...)
		b = append(strconv.AppendInt(b, c.BytesAccessed, 10), " (output "...)
		b = strconv.AppendInt(b, c.OutputBytes, 10)
		if c.ConstantBytes > 0 {
			b = strconv.AppendInt(append(b, ", constants "...), c.ConstantBytes, 10)
		}
		b = append(b, ")\n"...)
		for _, o := range c.Operands {
			b = append(appendOperand(b, o.Operand, k.in), ": utilization "...)
			b = append(appendG(b, o.Utilization), ", "...)
			b = append(strconv.AppendInt(b, o.BytesAccessed, 10), " bytes\n"...)
		}
		var err error
		if b, err = flush(w, b); err != nil {
			return err
		}
	}
	_, err := w.Write(b)
	return err
}

// CostResult is the result of the cost pass.
type CostResult struct {
	cfg      Config
	me       *ModuleEstimate
	by       map[*hlo.Instruction]*Estimate
	compiled CompiledFor
}

// CompiledFor is the backend the module was compiled for, as its text
// shows it ("" when it does not).
func (r *CostResult) CompiledFor() CompiledFor { return r.compiled }

func newCostResult(ests []*Estimate, cfg Config) *CostResult {
	me := &ModuleEstimate{Device: cfg.Device.Name}
	if len(ests) > 0 {
		me.Kernels = make([]*Estimate, 0, len(ests))
	}
	r := &CostResult{cfg: cfg, me: me, by: make(map[*hlo.Instruction]*Estimate, len(ests))}
	for _, e := range ests {
		me.add(e)
		r.by[e.Instr] = e
	}
	return r
}

// Of returns the estimate of kernel in, or nil.
func (r *CostResult) Of(in *hlo.Instruction) *Estimate { return r.by[in] }

// Estimate returns the module estimate.
func (r *CostResult) Estimate() *ModuleEstimate { return r.me }

// Device is the device the estimates are for.
func (r *CostResult) Device() Device { return r.cfg.Device }

// costJSON is one instruction's entry in the JSON report.
type costJSON struct {
	Flops      float64 `json:"flops"`
	Bytes      int64   `json:"bytes"`
	TimeUS     float64 `json:"time_us"`
	Executions int64   `json:"executions,omitempty"`
	Bound      string  `json:"bound"`
	Emitter    string  `json:"emitter,omitempty"`
	Unit       string  `json:"unit,omitempty"`
}

// InstructionReport is the per-instruction JSON value:
// {"flops": N, "bytes": N, "time_us": F, "executions": N (when it runs
// more than once per run of the module), "bound": "memory|compute",
// "emitter": the GPU emitter (GPU devices), "unit": what runs it when not
// a GPU emitter (MXU, vector, DMA, collective)}.
func (r *CostResult) InstructionReport(in *hlo.Instruction) any {
	e := r.by[in]
	if e == nil {
		return nil
	}
	j := &costJSON{Flops: roundSig(e.Flops), Bytes: e.Bytes(), TimeUS: roundSig(e.TimeUS), Bound: e.Bound, Unit: e.Unit}
	if e.runs() > 1 {
		j.Executions = e.runs()
	}
	if r.cfg.Device.IsGPU() {
		j.Emitter = e.Emitter.String()
	}
	return j
}

// topJSON is one of the most expensive kernels in the module report.
type topJSON struct {
	Name    string   `json:"name"`
	TimeUS  float64  `json:"time_us"`
	Reasons []string `json:"reasons"`
}

// ModuleReport is the module-level JSON value: totals, the most expensive
// kernels with their reasons, the backend the module was compiled for
// ("compiled_for": {"backend", "evidence"}, when its text shows it) and,
// when that is not the device's kind, the report's note saying so.
func (r *CostResult) ModuleReport() any {
	var top []topJSON
	for _, e := range r.me.Top(r.cfg.Top) {
		top = append(top, topJSON{Name: e.Instr.Name, TimeUS: roundSig(e.TimeUS), Reasons: e.Reasons()})
	}
	out := map[string]any{"device": r.cfg.Device.Name, "kernels": r.me.NumKernels(), "time_us": roundSig(r.me.TimeUS),
		"flops": roundSig(r.me.Flops), "bytes": r.me.Bytes, "top": top}
	if r.compiled.Backend != "" {
		out["compiled_for"] = r.compiled
	}
	if r.me.Note != "" {
		out["note"] = r.me.Note
	}
	return out
}

// WriteText prints the module estimate and its most expensive kernels.
func (r *CostResult) WriteText(w io.Writer, _ *hlo.Module) error {
	_, err := io.WriteString(w, "cost: "+r.me.Report(r.cfg.Top))
	return err
}
