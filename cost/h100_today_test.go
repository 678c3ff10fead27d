package cost

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest/groundtruth"
	"github.com/hlo-opt/hlo-opt/passes"
)

// Today's XLA for an H100 (jax 0.12.0.1, deviceless: testdata/groundtruth/
// <program>/h100/<size>/) has no measurement beside it, so its kernels are
// set against the floor every estimate must respect: the time to move
// their operands and output once at the DRAM bandwidth, plus the launch.
// The table is testdata/groundtruth/h100-today.golden; README's "How
// close" table quotes its summary.

type todayKernel struct {
	c            groundtruth.Case
	e            *Estimate
	floor, ratio float64
}

func TestGroundtruthH100Today(t *testing.T) {
	d, err := Preset("h100")
	require.NoError(t, err)
	cfg := DefaultConfig()
	var ks []todayKernel
	kinds := map[string]int{}
	for _, c := range groundtruth.Cases(t, "h100") {
		m, err := c.Module(t, groundtruth.AfterOptimizations)
		require.NoError(t, err, c.String())
		cr, ok := passes.ResultOf[*CostResult](runCostPasses(t, m, cfg), CostPass)
		require.True(t, ok)
		for _, e := range cr.Estimate().Kernels {
			kinds[e.Kind()]++
			if !memoryBoundKernel(e.Instr) {
				continue
			}
			floor := dramFloorUS(e.Instr, &d) + d.KernelLaunchOverheadUS
			ks = append(ks, todayKernel{c: c, e: e, floor: floor, ratio: e.TimeUS / floor})
		}
	}
	require.NotEmpty(t, ks)
	ratios := make([]float64, len(ks))
	within2, bound := 0, 0
	for i, k := range ks {
		ratios[i] = k.ratio
		if k.ratio <= 2 {
			within2++
		}
		if k.e.TimeUS <= 20*(k.floor-d.KernelLaunchOverheadUS)+10 {
			bound++
		}
	}
	sorted := slices.Clone(ratios)
	sort.Float64s(sorted)
	p90 := sorted[int(math.Ceil(0.9*float64(len(sorted))))-1]
	n := float64(len(ks))
	var b strings.Builder
	b.WriteString("# Kernel times of today's XLA for an H100 against their DRAM floor\n\n")
	b.WriteString("Compiles: testdata/groundtruth/<program>/h100/<size>/after_optimizations.txt (jax 0.12.0.1, deviceless: XLA's default tiles, not autotuned).\n")
	b.WriteString("Memory-bound kernels: no dot or convolution inside. Floor: operands and output moved once at 3.35 TB/s, plus the 1 us launch.\n\n")
	fmt.Fprintf(&b, "| memory-bound kernels | within 20x DRAM time + 10 us | estimate/floor median | 90th percentile | max | within 2x of the floor |\n|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| %d | %d (%.0f%%) | %.3f | %.3f | %.3f | %.0f%% |\n\n", len(ks), bound, 100*float64(bound)/n, median(ratios), p90, sorted[len(sorted)-1], 100*float64(within2)/n)
	b.WriteString("Kernels by what runs them (all kernels):")
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range kinds {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(&b, " %s %d;", k, kinds[k])
	}
	b.WriteString("\n\n## The ten furthest above their floor\n\n| program | size | kernel | runs on | estimate us | floor us | estimate/floor | why |\n|---|---|---|---|---|---|---|---|\n")
	top := slices.Clone(ks)
	sort.SliceStable(top, func(i, j int) bool { return top[i].ratio > top[j].ratio })
	for _, k := range top[:min(10, len(top))] {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.4g | %.4g | %.3g | %s |\n", k.c.Program, k.c.Size, k.e.Instr.Name, k.e.Kind(),
			k.e.TimeUS, k.floor, k.ratio, strings.Join(k.e.Reasons(), "; "))
	}
	hlotest.Golden(t, filepath.Join(groundtruth.Dir(t), "h100-today.golden"), b.String())
	assert.Equal(t, len(ks), bound, "every memory-bound kernel within 20x its DRAM time + 10 us")
	t.Logf("today's H100 compiles: %d memory-bound kernels, %d within the bound, estimate/floor median %.3f, max %.3g",
		len(ks), bound, median(ratios), sorted[len(sorted)-1])
}
