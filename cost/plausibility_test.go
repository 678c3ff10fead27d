package cost

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/passes"
)

// Plausibility bounds every estimate must keep, on every module we hold
// (testdata with testdata/xla-today and testdata/groundtruth, and the
// corpus), on a GPU and a TPU device. They are bounds, not expectations:
// a kernel that breaks one is a bug in the model.

// dramFloorUS is the time to move a kernel's operands and output once at
// the device's DRAM bandwidth, each array as its layout stores it (a TPU
// tile pads an f32[4096,1] 128 times).
func dramFloorUS(in *hlo.Instruction, d *Device) float64 {
	n := laidOutBytes(&in.Shape)
	for _, op := range in.Operands {
		n += laidOutBytes(&op.Shape)
	}
	return n / d.MemoryBandwidth * 1e6
}

// laidOutBytes is the bytes of the array leaves of s with their tiles'
// padding.
func laidOutBytes(s *hlo.Shape) float64 {
	if s.IsTuple() {
		n := 0.0
		for i := range s.Tuple {
			n += laidOutBytes(&s.Tuple[i])
		}
		return n
	}
	return float64(arrayBytes(s)) * paddingRatio(s)
}

// memoryBoundKernel reports whether a kernel has no dot or convolution
// (a library call with matrix flops counts as one).
func memoryBoundKernel(in *hlo.Instruction) bool {
	return !usesMatrixUnit(in)
}

// plausibilityViolations checks one module's estimates on one device.
func plausibilityViolations(me *ModuleEstimate, d *Device) []string {
	var out []string
	for _, e := range me.Kernels {
		in := e.Instr
		if memoryBoundKernel(in) {
			floor := dramFloorUS(in, d)
			if e.TimeUS > 20*floor+10 {
				out = append(out, fmt.Sprintf("%s (%s): %.4g us > 20 x DRAM floor %.4g us + 10 us", in.Name, e.Emitter, e.TimeUS, floor))
			}
		}
		outElems := float64(computedElements(in))
		for _, rd := range e.Reads {
			if rd.Utilization > outElems*(1+1e-9) {
				out = append(out, fmt.Sprintf("%s: operand %d utilization %.4g > %g computed elements", in.Name, rd.Operand, rd.Utilization, outElems))
			}
		}
	}
	return out
}

// flopsAgainstXLA sums, over the kernels whose flops XLA's cost_analysis()
// knows (xla-cost's figure is not its -1 for a custom call), the model's
// flops and xla-cost's for the device's backend; each kernel once.
func flopsAgainstXLA(me *ModuleEstimate, m *hlo.Module, d *Device) (ours, xla float64) {
	be := XLAGPU
	if !d.IsGPU() {
		be = XLATPU
	}
	xc := XLACost(m, XLATarget{Backend: be, Device: d.Name})
	for _, e := range me.Kernels {
		v := xc.Of(e.Instr)
		if v == nil || v.Flops < 0 {
			continue
		}
		ours += e.Flops
		xla += v.Flops
	}
	return ours, xla
}

func TestPlausibility(t *testing.T) {
	files := hlotest.ModuleFiles(t, "verify") // testdata/verify holds modules made to fail
	var bad []string
	modules := 0
	for _, dev := range []string{"h100", "tpu-v5e"} {
		d, err := Preset(dev)
		require.NoError(t, err)
		for _, f := range files {
			for _, cm := range hlotest.ParseModules(t, f) {
				cfg := DefaultConfig()
				cfg.Device = d
				res := runCostPasses(t, cm.Module, cfg)
				cr, ok := passes.ResultOf[*CostResult](res, CostPass)
				require.True(t, ok)
				rel, _ := filepath.Rel(hlotest.RepoRoot(t), cm.Path)
				for _, v := range plausibilityViolations(cr.Estimate(), &d) {
					bad = append(bad, fmt.Sprintf("%s %s#%d: %s", dev, rel, cm.Chunk, v))
				}
				ours, xla := flopsAgainstXLA(cr.Estimate(), cm.Module, &d)
				if ours > 2*xla+1e3 || xla > 2*ours+1e3 {
					bad = append(bad, fmt.Sprintf("%s %s#%d: flops %.4g, xla-cost's %.4g", dev, rel, cm.Chunk, ours, xla))
				}
				modules++
			}
		}
	}
	sort.Strings(bad)
	t.Logf("%d modules, %d violations", modules, len(bad))
	assert.Empty(t, bad, strings.Join(bad, "\n"))
}
