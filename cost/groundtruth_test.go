package cost

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest/groundtruth"
)

// Bytes accessed and flops of each ground-truth module against XLA's
// compiled.cost_analysis() (testdata/groundtruth/<program>/<backend>/
// <size>/cost_analysis.json): the CPU compiles made here and the GPU
// compiles of the H100 run (h100-measured). The TPU's cost analysis is
// TPU-specific and the deviceless GPU compile gives none.

// moduleCost is the cost analysis of a whole module as HloCostAnalysis
// computes it on the entry computation: the sum over its instructions,
// a while counting its body and condition once, a call its callee, a
// conditional its costliest branch.
type moduleCost struct{ flops, bytes float64 }

func costOfComputation(c *Costs, comp *hlo.Computation, depth int) moduleCost {
	var total moduleCost
	if depth > 16 {
		return total
	}
	for _, in := range comp.Instructions {
		switch in.Opcode {
		case "while", "call":
			for _, callee := range in.Called {
				s := costOfComputation(c, callee, depth+1)
				total.flops += s.flops
				total.bytes += s.bytes
			}
			continue
		case "conditional":
			var most moduleCost
			for _, callee := range in.Called {
				if s := costOfComputation(c, callee, depth+1); s.flops+s.bytes > most.flops+most.bytes {
					most = s
				}
			}
			total.flops += most.flops
			total.bytes += most.bytes
			continue
		}
		ic := c.Of(in)
		total.flops += ic.Flops
		total.bytes += float64(ic.BytesAccessed)
	}
	return total
}

type costRow struct {
	c          groundtruth.Case
	xla, ours  moduleCost
	refused    string
	flopsClose bool
	bytesClose bool
}

func within(ours, xla, tol float64) bool {
	if ours == xla {
		return true
	}
	return math.Abs(ours-xla) <= tol*xla
}

// TestGroundTruthCost compares our module bytes accessed and flops with
// XLA's cost_analysis().
func TestGroundTruthCost(t *testing.T) {
	var rows []costRow
	for _, c := range groundtruth.Cases(t, "cpu", "h100-measured") {
		ca := c.CostAnalysis(t)
		if ca == nil {
			continue
		}
		row := costRow{c: c, xla: moduleCost{ca.Flops, ca.BytesAccessed}}
		m, err := c.Module(t, groundtruth.AfterOptimizations)
		if err != nil {
			row.refused = groundtruth.Refusal(err)
			rows = append(rows, row)
			continue
		}
		costs := NewBaseCosts()
		row.ours = costOfComputation(costs, m.Entry, 0)
		row.flopsClose = within(row.ours.flops, row.xla.flops, 0.05)
		row.bytesClose = within(row.ours.bytes, row.xla.bytes, 0.05)
		rows = append(rows, row)
	}
	// Summary per backend: modules compared, and how many are within 5 %.
	type tally struct{ modules, flops, bytes, refused int }
	var order []string
	sum := map[string]*tally{}
	for _, r := range rows {
		n := sum[r.c.Backend]
		if n == nil {
			n = &tally{}
			sum[r.c.Backend] = n
			order = append(order, r.c.Backend)
		}
		switch {
		case r.refused != "":
			n.refused++
		default:
			n.modules++
			n.flops += b2i(r.flopsClose)
			n.bytes += b2i(r.bytesClose)
		}
	}
	var b strings.Builder
	b.WriteString("# Cost: our bytes accessed and flops per module against XLA's cost_analysis()\n\n")
	b.WriteString("Ours: cost.NewBaseCosts (HloCostAnalysis, what compiled.cost_analysis() runs) over the entry computation.\n")
	b.WriteString("A custom-call (a cuBLAS GEMM) is -1 flops and -1 bytes, XLA's \"unknown\", summed like any figure.\n\n")
	b.WriteString("| backend | modules | flops within 5% | bytes accessed within 5% | refused by our parser |\n|---|---|---|---|---|\n")
	var all tally
	for _, be := range order {
		n := sum[be]
		fmt.Fprintf(&b, "| %s | %d | %d (%s) | %d (%s) | %d |\n", be, n.modules, n.flops, pctOf(n.flops, n.modules),
			n.bytes, pctOf(n.bytes, n.modules), n.refused)
		all.modules += n.modules
		all.flops += n.flops
		all.bytes += n.bytes
		all.refused += n.refused
	}
	fmt.Fprintf(&b, "| all | %d | %d (%s) | %d (%s) | %d |\n", all.modules, all.flops, pctOf(all.flops, all.modules),
		all.bytes, pctOf(all.bytes, all.modules), all.refused)
	b.WriteString("\n## Every module\n\n")
	b.WriteString("| program | backend | size | XLA flops | ours | ratio | XLA bytes accessed | ours | ratio |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		if r.refused != "" {
			fmt.Fprintf(&b, "| %s | %s | %s | refused: %s |\n", r.c.Program, r.c.Backend, r.c.Size, r.refused)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.6g | %.6g | %s | %.6g | %.6g | %s |\n", r.c.Program, r.c.Backend, r.c.Size,
			r.xla.flops, r.ours.flops, ratioText(r.ours.flops, r.xla.flops), r.xla.bytes, r.ours.bytes, ratioText(r.ours.bytes, r.xla.bytes))
	}
	hlotest.Golden(t, filepath.Join(groundtruth.Dir(t), "cost.golden"), b.String())
	require.NotZero(t, all.modules)
	assert.GreaterOrEqual(t, float64(all.flops), 0.9*float64(all.modules), "flops within 5%% on >= 90%% of modules")
	assert.GreaterOrEqual(t, float64(all.bytes), 0.9*float64(all.modules), "bytes accessed within 5%% on >= 90%% of modules")
	t.Logf("cost: %d modules, flops within 5%% on %d, bytes on %d; %d refused", all.modules, all.flops, all.bytes, all.refused)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func pctOf(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(of))
}

func ratioText(ours, xla float64) string {
	if ours == xla {
		return "1.000"
	}
	return fmt.Sprintf("%.3f", ratio(ours, xla))
}

func ratio(a, b float64) float64 {
	if b == 0 {
		if a == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return a / b
}
