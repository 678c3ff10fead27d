package cost

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

// XLACostConfigKey is the key of the xla-cost pass's XLATarget in
// passes.Options.Config (hlo-opt's --device and --target). Without one,
// or with a zero XLATarget, the pass infers the backend from the module
// (InferXLABackend) and says so.
const XLACostConfigKey = "xla-cost"

// XLACostPass ("xla-cost") is XLACost over the module: per instruction and
// for the module, the flops, transcendentals and bytes accessed that
// compiled.cost_analysis() reports for the backend, and optimal_seconds
// where the backend reports it (TPU). Like the other cost passes it
// requires layoutassign.AssignPass: a module that states no layouts is
// costed as laid out for the layout target.
var XLACostPass = &passes.Pass{
	Name:       "xla-cost",
	Doc:        "flops, transcendentals and bytes accessed as XLA's compiled.cost_analysis()",
	Requires:   []*passes.Pass{layoutassign.AssignPass},
	ResultType: reflect.TypeFor[*XLACostResult](),
	Run:        runXLACost,
}

func runXLACost(u *passes.Unit) (any, error) {
	t, _ := u.Config(XLACostConfigKey).(XLATarget)
	assumed := ""
	if t.Backend == "" {
		t, assumed = InferXLABackend(u.Module)
	}
	c := XLACost(u.Module, t)
	c.Assumed = assumed
	return &XLACostResult{Cost: c, module: u.Module}, nil
}

// InferXLABackend guesses the backend a module was compiled for from what
// each backend's compiler leaves in it (CompiledBackend). reason says what
// decided, for the report. A module with none of these marks is costed
// with the CPU rules, which give the GPU's figures as well.
func InferXLABackend(m *hlo.Module) (t XLATarget, reason string) {
	if b, why := CompiledBackend(m); b != "" {
		return XLATarget{Backend: b}, "assumed " + string(b) + ": " + why
	}
	return XLATarget{Backend: XLACPU}, "assumed cpu: no backend's marks in the module (the CPU and GPU rules give the same figures)"
}

// CompiledBackend is the backend whose compiler left its marks in a
// module, with what tells: first the backend configs and custom calls of
// one compiler (the TPU's window, scoped-memory and flag configs and its
// own calls; the GPU's operation queues, Triton and cuBLAS fusions and
// calls; the CPU's outer dimension partitions, YNNPACK fusions and small
// calls), else TPU tiles ("T(8,128)") or memory spaces ("S(1)") in
// layouts, which a module laid out for a TPU by the layout assignment has
// whatever it was compiled for. It is "" for a module with none (one
// before XLA's optimizations).
func CompiledBackend(m *hlo.Module) (b XLABackend, why string) {
	var gpu, cpu, layout string
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if layout == "" {
				layout = tpuLayoutMark(in)
			}
			_, cfg := in.Attr("backend_config")
			_, fa := in.Attr("frontend_attributes")
			if !cfg && !fa && in.Opcode != hlo.OpCustomCall {
				continue // no config, attribute or call: no compiler's mark
			}
			if why := tpuConfigMark(in); why != "" {
				return XLATPU, why
			}
			if gpu == "" {
				gpu = gpuMark(in)
			}
			if gpu == "" && cpu == "" { // a GPU mark outranks the CPU's
				cpu = cpuMark(in)
			}
		}
	}
	switch {
	case gpu != "":
		return XLAGPU, gpu
	case cpu != "":
		return XLACPU, cpu
	case layout != "":
		return XLATPU, layout
	}
	return "", ""
}

// tpuLayoutMark says why in's layout looks laid out for a TPU, or "".
func tpuLayoutMark(in *hlo.Instruction) string {
	return tpuShapeMark(in.Name, &in.Shape)
}

// tpuShapeMark is tpuLayoutMark of one (leaf of a) shape, walked without
// listing the leaves: every instruction of a module is looked at.
func tpuShapeMark(name string, s *hlo.Shape) string {
	if s.IsTuple() {
		for i := range s.Tuple {
			if why := tpuShapeMark(name, &s.Tuple[i]); why != "" {
				return why
			}
		}
		return ""
	}
	if lay := s.Layout; lay != nil {
		if len(lay.Tiles) > 0 {
			return fmt.Sprintf("%s's layout has TPU tiles (%s)", name, s.String())
		}
		if lay.MemorySpace != 0 {
			return fmt.Sprintf("%s's layout names memory space S(%d)", name, lay.MemorySpace)
		}
	}
	return ""
}

// The keys of each compiler's backend configs that tell it (each starts
// with a double quote: containsQuoted finds them).
var (
	tpuConfigKeys = []string{`"window_config"`, `"scoped_memory_configs"`, `"flag_configs"`}
	gpuConfigKeys = []string{`"operation_queue_id"`, `"fusion_backend_config"`, `"__triton`}
	cpuConfigKeys = []string{`"outer_dimension_partitions"`, `"__ynn_fusion"`}
)

// tpuConfigMark says why in's backend config or custom call looks the TPU
// compiler's, or "".
func tpuConfigMark(in *hlo.Instruction) string {
	cfg, _ := in.Attr("backend_config")
	for _, k := range tpuConfigKeys {
		if containsQuoted(cfg, k) {
			return fmt.Sprintf("%s has a TPU backend_config (%s)", in.Name, strings.Trim(k, `"`))
		}
	}
	switch t := in.CustomCallTarget(); t {
	case "AllocateBuffer", "AssumeGatherIndicesInBound", "ConcatBitcast", "tpu_custom_call":
		return fmt.Sprintf("%s calls %s", in.Name, t)
	}
	return ""
}

// gpuMark says why in looks compiled for a GPU, or "".
func gpuMark(in *hlo.Instruction) string {
	if t := in.CustomCallTarget(); strings.HasPrefix(t, "__cublas") || strings.HasPrefix(t, "__cudnn") || strings.HasPrefix(t, "__triton") || strings.HasPrefix(t, "__gpu$") {
		return fmt.Sprintf("%s calls %s", in.Name, t)
	}
	cfg, _ := in.Attr("backend_config")
	for _, k := range gpuConfigKeys {
		if containsQuoted(cfg, k) {
			return fmt.Sprintf("%s has a GPU backend_config (%s)", in.Name, strings.Trim(k, `"`))
		}
	}
	return ""
}

// cpuMark says why in looks compiled for the CPU, or "".
func cpuMark(in *hlo.Instruction) string {
	cfg, _ := in.Attr("backend_config")
	for _, k := range cpuConfigKeys {
		if containsQuoted(cfg, k) {
			return fmt.Sprintf("%s has a CPU backend_config (%s)", in.Name, strings.Trim(k, `"`))
		}
	}
	if fa, _ := in.Attr("frontend_attributes"); strings.Contains(fa, "xla_cpu_") {
		return fmt.Sprintf("%s has a CPU frontend attribute", in.Name)
	}
	if t := in.CustomCallTarget(); strings.HasPrefix(t, "__onednn") || strings.HasPrefix(t, "xla.cpu") {
		return fmt.Sprintf("%s calls %s", in.Name, t)
	}
	return ""
}

// containsQuoted is strings.Contains(s, key) for a key that starts with a
// double quote, searched from its second byte: JSON has a quote every few
// bytes, each a false start for the search.
func containsQuoted(s, key string) bool {
	for k := key[1:]; ; {
		i := strings.Index(s, k)
		switch {
		case i < 0:
			return false
		case i > 0 && s[i-1] == '"':
			return true
		}
		s = s[i+1:]
	}
}

// XLACostResult is the result of the xla-cost pass.
type XLACostResult struct {
	Cost   *XLAModuleCost
	module *hlo.Module
}

// xlaCostJSON is one instruction's entry in the JSON report.
type xlaCostJSON struct {
	Flops              float64   `json:"flops"`
	Transcendentals    float64   `json:"transcendentals"`
	BytesAccessed      float64   `json:"bytes_accessed"`
	OptimalSeconds     *float64  `json:"optimal_seconds,omitempty"`
	OutputBytes        float64   `json:"output_bytes"`
	OperandBytes       []float64 `json:"operand_bytes"`
	OperandUtilization []float64 `json:"operand_utilization"`
}

// InstructionReport is the per-instruction JSON value: {"flops",
// "transcendentals", "bytes_accessed", "optimal_seconds" (TPU),
// "output_bytes", "operand_bytes": [...], "operand_utilization": [...]}.
func (r *XLACostResult) InstructionReport(in *hlo.Instruction) any {
	v := r.Cost.Of(in)
	if v == nil {
		return nil
	}
	j := &xlaCostJSON{Flops: roundSig(v.Flops), Transcendentals: roundSig(v.Transcendentals),
		BytesAccessed: roundSig(v.BytesAccessed), OutputBytes: roundSig(v.OutputBytes),
		OperandBytes: roundAll(v.OperandBytes), OperandUtilization: roundAll(v.OperandUtilization)}
	if r.Cost.HasOptimalSeconds() {
		s := roundSig(v.OptimalSeconds)
		j.OptimalSeconds = &s
	}
	return j
}

func roundAll(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = roundSig(x)
	}
	return out
}

// ModuleReport is the module-level JSON value: the backend, the totals
// ("flops", "transcendentals", "bytes_accessed", "optimal_seconds" on a
// TPU) and "cost_analysis", the dictionary compiled.cost_analysis()
// returns, under XLA's own key names.
func (r *XLACostResult) ModuleReport() any {
	c := r.Cost
	m := map[string]any{
		"backend":         string(c.Target.Backend),
		"flops":           roundSig(c.Module.Flops),
		"transcendentals": roundSig(c.Module.Transcendentals),
		"bytes_accessed":  roundSig(c.Module.BytesAccessed),
	}
	if c.Target.Device != "" {
		m["device"] = c.Target.Device
	}
	if c.Assumed != "" {
		m["assumed"] = c.Assumed
	}
	if c.HasOptimalSeconds() {
		m["optimal_seconds"] = roundSig(c.Module.OptimalSeconds)
	}
	keys := c.Module.Keys()
	for k, v := range keys {
		keys[k] = roundSig(v)
	}
	m["cost_analysis"] = keys
	return m
}

// WriteText prints the module totals and, for each computation whose
// figures add up to them (the entry, loop bodies and conditions, branches,
// called computations), its instructions that cost anything, with the
// figures that are not zero.
func (r *XLACostResult) WriteText(w io.Writer, m *hlo.Module) error {
	c := r.Cost
	seconds := c.HasOptimalSeconds()
	b := fmt.Appendf(make([]byte, 0, flushAt+4<<10), "xla-cost: backend %s, as compiled.cost_analysis() reports it\n", c.Target)
	if c.Assumed != "" {
		b = fmt.Appendf(b, "  %s; --device or --target chooses\n", c.Assumed)
	}
	if c.Target.Backend == XLATPU && !seconds {
		b = append(b, "  no optimal_seconds: the TPU compiler's rates are known for --device=tpu-v5e, tpu-v6e and tpu-v4\n"...)
	}
	b = appendXLAFigures(append(b, "  module: "...), &c.Module, seconds, true)
	if unknownFigures(c) {
		b = append(b, "  -1 is XLA's \"unknown\" (custom calls), summed like any figure, as XLA does\n"...)
	}
	comps := summedComputations(m)
	if len(comps) > 1 {
		b = append(b, "  a while, call or conditional holds the figures of the computations it runs (a loop's body and condition once,\n"+
			"  as XLA counts them; a conditional's largest branch per figure), which are listed on their own\n"...)
	}
	for _, comp := range comps {
		head := false
		for _, in := range comp.Instructions {
			v := c.Of(in)
			if v == nil || (v.Flops == 0 && v.Transcendentals == 0 && v.BytesAccessed == 0 && v.OptimalSeconds == 0) {
				continue
			}
			if !head {
				head = true
				b = append(append(append(b, "computation "...), comp.Name...), '\n')
			}
			b = append(append(append(append(b, "  "...), in.Name...), " ("...), in.Opcode...)
			b = appendXLAFigures(append(b, "): "...), v, seconds, false)
			var err error
			if b, err = flush(w, b); err != nil {
				return err
			}
		}
	}
	_, err := w.Write(b)
	return err
}

// appendXLAFigures appends "flops F, transcendentals T, bytes accessed B"
// (", optimal_seconds S" with seconds) and a newline; unless all is set,
// only the figures that are not zero.
func appendXLAFigures(b []byte, v *XLACostValues, seconds, all bool) []byte {
	first := true
	put := func(name string, x float64) {
		if x == 0 && !all {
			return
		}
		if !first {
			b = append(b, ", "...)
		}
		first = false
		b = appendG(append(append(b, name...), ' '), x)
	}
	put("flops", v.Flops)
	put("transcendentals", v.Transcendentals)
	put("bytes accessed", v.BytesAccessed)
	if seconds {
		put("optimal_seconds", v.OptimalSeconds)
	}
	return append(b, '\n')
}

// unknownFigures reports whether a custom call left XLA's -1 in the
// totals.
func unknownFigures(c *XLAModuleCost) bool {
	unknown := func(comp *hlo.Computation, vals []XLACostValues) bool {
		for i := range vals {
			if comp.Instructions[i].Opcode == hlo.OpCustomCall && vals[i].BytesAccessed < 0 {
				return true
			}
		}
		return false
	}
	for ci, vals := range c.byComputation {
		if unknown(c.module.Computations[ci], vals) {
			return true
		}
	}
	for comp, vals := range c.foreign {
		if unknown(comp, vals) {
			return true
		}
	}
	return false
}

// summedComputations lists, in module order, the computations whose
// instructions' figures are summed into the module's: the entry and,
// transitively, what its while, call, conditional and async-start
// instructions call.
func summedComputations(m *hlo.Module) []*hlo.Computation {
	in := map[*hlo.Computation]bool{}
	var visit func(c *hlo.Computation)
	visit = func(c *hlo.Computation) {
		if c == nil || in[c] {
			return
		}
		in[c] = true
		for _, i := range c.Instructions {
			switch i.Opcode {
			case hlo.OpWhile, hlo.OpCall, hlo.OpConditional, hlo.OpAsyncStart:
				for _, callee := range i.Called {
					visit(callee)
				}
			}
		}
	}
	visit(m.Entry)
	var out []*hlo.Computation
	for _, c := range m.Computations {
		if in[c] {
			out = append(out, c)
		}
	}
	return out
}
