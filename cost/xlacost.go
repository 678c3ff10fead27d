package cost

import (
	"fmt"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// XLABackend names the compiler whose compiled.cost_analysis() XLACost
// reproduces. The backends share XLA's HloCostAnalysis rules; they differ
// in how a shape's bytes are counted and in the TPU compiler's own rules
// (see XLACost).
type XLABackend string

// The backends of XLACost.
const (
	XLACPU XLABackend = "cpu"
	XLAGPU XLABackend = "gpu"
	XLATPU XLABackend = "tpu"
)

// XLATarget is the backend and, for a TPU, the chip whose rates give
// optimal_seconds.
type XLATarget struct {
	Backend XLABackend
	// Device is the chip ("tpu-v5e", "tpu-v6e", "tpu-v4", "h100", ...), or
	// "" when not known; only the TPU's optimal_seconds depends on it.
	Device string
}

func (t XLATarget) String() string {
	if t.Device != "" && t.Device != string(t.Backend) {
		return string(t.Backend) + " (" + t.Device + ")"
	}
	return string(t.Backend)
}

// XLACostValues are the figures of one instruction, or the module's
// totals, under the names compiled.cost_analysis() gives them.
type XLACostValues struct {
	// Flops counts arithmetic operations other than transcendental ones
	// ("flops"): 1 per element of an elementwise op, 2 per multiply-add of
	// a dot or convolution, the reducer's flops per reduction step.
	Flops float64
	// Transcendentals counts exp, log, tanh, rsqrt, power, ... elements
	// ("transcendentals").
	Transcendentals float64
	// BytesAccessed is what the instruction reads and writes ("bytes
	// accessed"): its operands' and output's sizes unless its rule says
	// otherwise. A custom call's is -1, XLA's "unknown", summed like any
	// figure.
	BytesAccessed float64
	// OptimalSeconds is the time at the device's rates ("optimal_seconds");
	// only the TPU compiler reports it.
	OptimalSeconds float64
	// OperandBytes[i] is what is read from operand i ("bytes accessed{i}{}");
	// in the module totals, the sum over instructions of their operand i.
	OperandBytes []float64
	// OperandUtilization[i] is the fraction of operand i read
	// ("utilization{i}{}"), summed likewise in the totals.
	OperandUtilization []float64
	// OutputBytes is what is written ("bytes accessedout{}").
	OutputBytes float64
}

// XLAModuleCost is the cost analysis of a module: its totals, what
// compiled.cost_analysis() returns, and each instruction's figures (Of),
// kept by the instructions' positions in the module analysed.
type XLAModuleCost struct {
	Target XLATarget
	// Assumed says how the backend was chosen when the caller did not name
	// it (InferXLABackend); empty otherwise.
	Assumed string
	// Module holds the totals over the entry computation: a while counts
	// its body and condition once, a call its callee, a conditional the
	// largest of its branches per figure, a fusion its fused instructions'
	// flops and its own bytes.
	Module XLACostValues
	// module is the module analysed; byComputation[i] holds the figures
	// of module.Computations[i]'s instructions by position, nil for a
	// computation the analysis does not visit (of a computation visited
	// from several places, the last visit's), and foreign those of a
	// visited computation missing from module.Computations (a module
	// built by hand). Slices by position, not a map by instruction: at
	// tens of thousands of instructions the map's lookups miss the caches.
	module        *hlo.Module
	byComputation [][]XLACostValues
	foreign       map[*hlo.Computation][]XLACostValues
}

// HasOptimalSeconds reports whether the figures include optimal_seconds:
// only the TPU compiler reports them, and XLACost knows the rates of the
// TPUs it was measured on (tpu-v5e, tpu-v6e, tpu-v4).
func (c *XLAModuleCost) HasOptimalSeconds() bool {
	_, ok := tpuRatesByDevice[c.Target.Device]
	return c.Target.Backend == XLATPU && ok
}

// Of returns the figures of an instruction XLA's analysis visits: one of
// the entry computation or, nested, of the computations it calls (fused,
// loop, branch and reducer computations). A fused instruction's bytes are
// what it would move unfused; only the fusion's own are counted. Of
// returns nil for an instruction the analysis does not visit (of a
// computation the entry does not reach). in.Parent must be in's
// computation, as the parser and hlotest.Builder set it.
//
// Of replaces the map XLAModuleCost.Instructions of earlier versions:
// loop over a module's computations and their instructions and call Of.
func (c *XLAModuleCost) Of(in *hlo.Instruction) *XLACostValues {
	p := in.Parent
	if c.module == nil || p == nil {
		return nil
	}
	var vals []XLACostValues
	if ci := c.module.ComputationIndex(p); ci >= 0 {
		vals = c.byComputation[ci]
	} else {
		vals = c.foreign[p]
	}
	if i := p.InstructionIndex(in); i >= 0 && i < len(vals) {
		return &vals[i]
	}
	return nil
}

// Keys returns the module totals as the dictionary cost_analysis() returns
// them: "flops", "transcendentals", "bytes accessed", "optimal_seconds",
// "bytes accessed{i}{}", "utilization{i}{}" and "bytes accessedout{}", each
// left out when zero, as XLA leaves them out.
func (v *XLACostValues) Keys() map[string]float64 {
	m := map[string]float64{}
	put := func(k string, x float64) {
		if x != 0 {
			m[k] = x
		}
	}
	put("flops", v.Flops)
	put("transcendentals", v.Transcendentals)
	put("bytes accessed", v.BytesAccessed)
	put("optimal_seconds", v.OptimalSeconds)
	put("bytes accessedout{}", v.OutputBytes)
	for i, b := range v.OperandBytes {
		put(fmt.Sprintf("bytes accessed%d{}", i), b)
	}
	for i, u := range v.OperandUtilization {
		put(fmt.Sprintf("utilization%d{}", i), u)
	}
	return m
}

// add adds o's figures to v's (operand positions by position).
func (v *XLACostValues) add(o *XLACostValues) {
	v.Flops += o.Flops
	v.Transcendentals += o.Transcendentals
	v.BytesAccessed += o.BytesAccessed
	v.OptimalSeconds += o.OptimalSeconds
	v.OutputBytes += o.OutputBytes
	v.OperandBytes = addAt(v.OperandBytes, o.OperandBytes)
	v.OperandUtilization = addAt(v.OperandUtilization, o.OperandUtilization)
}

// maxOf keeps, per figure, the larger of v's and o's (a conditional's
// branches).
func (v *XLACostValues) maxOf(o *XLACostValues) {
	v.Flops = max(v.Flops, o.Flops)
	v.Transcendentals = max(v.Transcendentals, o.Transcendentals)
	v.BytesAccessed = max(v.BytesAccessed, o.BytesAccessed)
	v.OptimalSeconds = max(v.OptimalSeconds, o.OptimalSeconds)
	v.OutputBytes = max(v.OutputBytes, o.OutputBytes)
	for i := range max(len(v.OperandBytes), len(o.OperandBytes)) {
		v.OperandBytes = setAt(v.OperandBytes, i, max(at(v.OperandBytes, i), at(o.OperandBytes, i)))
	}
	for i := range max(len(v.OperandUtilization), len(o.OperandUtilization)) {
		v.OperandUtilization = setAt(v.OperandUtilization, i, max(at(v.OperandUtilization, i), at(o.OperandUtilization, i)))
	}
}

// scaleComputed multiplies the figures a reducer or mapped computation
// passes on (flops, transcendentals) by n: XLA copies every figure but
// the bytes and utilizations from the sub-computation.
func (v *XLACostValues) scaleComputed(sub *XLACostValues, n float64) {
	v.Flops = sub.Flops * n
	v.Transcendentals = sub.Transcendentals * n
}

func addAt(dst, src []float64) []float64 {
	for i, x := range src {
		dst = setAt(dst, i, at(dst, i)+x)
	}
	return dst
}

func at(s []float64, i int) float64 {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func setAt(s []float64, i int, x float64) []float64 {
	for len(s) <= i {
		s = append(s, 0)
	}
	s[i] = x
	return s
}

// ParseXLATarget reads a backend or device name: "cpu", "gpu", "tpu", a
// TPU chip ("tpu-v5e", "tpu-v6e", "tpu-v4", "tpu-v5p", ...) or a GPU
// ("h100", "h200", "a100").
func ParseXLATarget(name string) (XLATarget, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch {
	case n == "cpu":
		return XLATarget{Backend: XLACPU}, nil
	case n == "gpu":
		return XLATarget{Backend: XLAGPU}, nil
	case n == "tpu" || n == "tpu-pred4":
		return XLATarget{Backend: XLATPU}, nil
	case strings.HasPrefix(n, "tpu-"):
		return XLATarget{Backend: XLATPU, Device: n}, nil
	}
	if d, err := Preset(n); err == nil {
		if d.IsGPU() {
			return XLATarget{Backend: XLAGPU, Device: d.Name}, nil
		}
		return XLATarget{Backend: XLATPU, Device: d.Name}, nil
	}
	return XLATarget{}, fmt.Errorf("unknown backend %q (want cpu, gpu, tpu, tpu-v5e, tpu-v6e, tpu-v4, h100, ...)", name)
}
