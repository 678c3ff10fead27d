package cost

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest/groundtruth"
)

// The xla-cost figures of every ground-truth compile against XLA's own
// compiled.cost_analysis() of it (testdata/groundtruth/<program>/<backend>/
// <size>/cost_analysis.json), written to testdata/groundtruth/xla-cost.golden.

// xlaTargetOfDir is the backend a directory of compiles was compiled for:
// the ground truth's (cpu, tpu-v5e, tpu-v5e-4way, tpu-v6e, h100,
// h100-measured) and testdata/xla-today's (gpu-h100, tpu-v4, ...).
func xlaTargetOfDir(dir string) (XLATarget, bool) {
	switch {
	case dir == "cpu":
		return XLATarget{Backend: XLACPU}, true
	case strings.HasPrefix(dir, "tpu-v5e"):
		return XLATarget{Backend: XLATPU, Device: "tpu-v5e"}, true
	case dir == "tpu-v6e" || dir == "tpu-v4":
		return XLATarget{Backend: XLATPU, Device: dir}, true
	case strings.Contains(dir, "h100"):
		return XLATarget{Backend: XLAGPU, Device: "h100"}, true
	}
	return XLATarget{}, false
}

// xlaCostMissReasons says why a figure of a compile misses XLA's by more
// than 1%, keyed "program/backend/size figure". A miss that has no reason
// here fails the test: every miss is explained in the table.
var xlaCostMissReasons = map[string]string{}

// gtFigure is one figure of one compile, ours and XLA's.
type gtFigure struct {
	name      string
	ours, xla float64
}

func (f gtFigure) within(tol float64) bool {
	return f.ours == f.xla || math.Abs(f.ours-f.xla) <= tol*math.Abs(f.xla)
}

type gtXLARow struct {
	c       groundtruth.Case
	none    string // why there is nothing to compare
	figures []gtFigure
}

func (r *gtXLARow) figure(name string) gtFigure {
	for _, f := range r.figures {
		if f.name == name {
			return f
		}
	}
	return gtFigure{name: name}
}

// TestGroundTruthXLACost compares XLACost with XLA's cost_analysis() on
// every ground-truth compile: flops within 1% on at least 95% of the CPU
// and of each TPU backend's compiles, bytes accessed within 1% on at least
// 95% of the CPU ones (issue 23), and every miss explained.
func TestGroundTruthXLACost(t *testing.T) {
	var rows []*gtXLARow
	for _, c := range groundtruth.Cases(t) {
		target, ok := xlaTargetOfDir(c.Backend)
		require.True(t, ok, "no backend for %s", c)
		row := &gtXLARow{c: c}
		rows = append(rows, row)
		ca := c.CostAnalysis(t)
		if ca == nil {
			row.none = "XLA gives no cost_analysis() for a deviceless GPU compile"
			continue
		}
		m, err := c.Module(t, groundtruth.AfterOptimizations)
		if err != nil {
			row.none = "refused by our parser: " + groundtruth.Refusal(err)
			continue
		}
		ours := XLACost(m, target)
		row.figures = []gtFigure{
			{"flops", ours.Module.Flops, ca.Flops},
			{"transcendentals", ours.Module.Transcendentals, ca.Transcendentals},
			{"bytes accessed", ours.Module.BytesAccessed, ca.BytesAccessed},
		}
		if ours.HasOptimalSeconds() {
			row.figures = append(row.figures, gtFigure{"optimal_seconds", ours.Module.OptimalSeconds, ca.OptimalSeconds})
		}
	}

	type tally struct{ modules, flops, trans, bytes1, bytes5, secs, secsOf, exact int }
	var order []string
	sum := map[string]*tally{}
	var misses []string
	for _, r := range rows {
		n := sum[r.c.Backend]
		if n == nil {
			n = &tally{}
			sum[r.c.Backend] = n
			order = append(order, r.c.Backend)
		}
		if r.none != "" {
			continue
		}
		n.modules++
		n.flops += b2i(r.figure("flops").within(0.01))
		n.trans += b2i(r.figure("transcendentals").within(0.01))
		n.bytes1 += b2i(r.figure("bytes accessed").within(0.01))
		n.bytes5 += b2i(r.figure("bytes accessed").within(0.05))
		exact := true
		for _, f := range r.figures {
			if f.name == "optimal_seconds" {
				n.secsOf++
				n.secs += b2i(f.within(0.01))
			} else if !f.within(1e-6) {
				exact = false
			}
			if f.within(0.01) {
				continue
			}
			key := r.c.String() + " " + f.name
			why, ok := xlaCostMissReasons[key]
			assert.True(t, ok, "%s: ours %.6g, XLA's %.6g, and no reason in xlaCostMissReasons", key, f.ours, f.xla)
			misses = append(misses, fmt.Sprintf("- %s: ours %.6g, XLA's %.6g: %s", key, f.ours, f.xla, why))
		}
		n.exact += b2i(exact)
	}

	var b strings.Builder
	b.WriteString("# xla-cost: flops, transcendentals and bytes accessed per module against XLA's cost_analysis()\n\n")
	b.WriteString("Ours: cost.XLACost (hlo-opt --passes=xla-cost) on each compile's after_optimizations.txt, for the backend it\n")
	b.WriteString("was compiled for (tpu-v5e-4way: tpu-v5e; h100-measured: gpu). XLA's: that compile's cost_analysis.json.\n")
	b.WriteString("Exact: flops, transcendentals and bytes accessed within 1e-6 (XLA sums in float32). optimal_seconds: TPU only.\n\n")
	b.WriteString("| backend | modules | flops within 1% | transcendentals within 1% | bytes accessed within 1% | within 5% | optimal_seconds within 1% | exact | not compared |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	var all tally
	for _, be := range order {
		n := sum[be]
		none := 0
		for _, r := range rows {
			if r.c.Backend == be && r.none != "" {
				none++
			}
		}
		secs := "-"
		if n.secsOf > 0 {
			secs = fmt.Sprintf("%d (%s)", n.secs, pctOf(n.secs, n.secsOf))
		}
		fmt.Fprintf(&b, "| %s | %d | %d (%s) | %d (%s) | %d (%s) | %d (%s) | %s | %d | %d |\n", be, n.modules,
			n.flops, pctOf(n.flops, n.modules), n.trans, pctOf(n.trans, n.modules), n.bytes1, pctOf(n.bytes1, n.modules),
			n.bytes5, pctOf(n.bytes5, n.modules), secs, n.exact, none)
		all.modules += n.modules
		all.flops += n.flops
		all.trans += n.trans
		all.bytes1 += n.bytes1
		all.bytes5 += n.bytes5
		all.secs += n.secs
		all.secsOf += n.secsOf
		all.exact += n.exact
	}
	fmt.Fprintf(&b, "| all | %d | %d (%s) | %d (%s) | %d (%s) | %d (%s) | %d (%s) | %d | |\n", all.modules,
		all.flops, pctOf(all.flops, all.modules), all.trans, pctOf(all.trans, all.modules), all.bytes1, pctOf(all.bytes1, all.modules),
		all.bytes5, pctOf(all.bytes5, all.modules), all.secs, pctOf(all.secs, all.secsOf), all.exact)
	b.WriteString("\n## Misses (a figure more than 1% from XLA's), and why\n\n")
	if len(misses) == 0 {
		b.WriteString("None.\n")
	}
	for _, m := range misses {
		b.WriteString(m + "\n")
	}
	b.WriteString("\n## Not compared\n\n")
	var none []string
	count := map[string]int{}
	for _, r := range rows {
		if g := r.c.Backend + ": " + r.none; r.none != "" {
			if count[g] == 0 {
				none = append(none, g)
			}
			count[g]++
		}
	}
	for _, g := range none {
		fmt.Fprintf(&b, "- %s (%d compiles)\n", g, count[g])
	}
	b.WriteString("\n## Every module\n\n")
	b.WriteString("| program | backend | size | XLA flops | ours/XLA | XLA transcendentals | ours/XLA | XLA bytes accessed | ours/XLA | XLA optimal_seconds | ours/XLA |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		if r.none != "" {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s", r.c.Program, r.c.Backend, r.c.Size)
		for _, name := range []string{"flops", "transcendentals", "bytes accessed", "optimal_seconds"} {
			i := slices.IndexFunc(r.figures, func(f gtFigure) bool { return f.name == name })
			if i < 0 {
				b.WriteString(" | - | -")
				continue
			}
			f := r.figures[i]
			fmt.Fprintf(&b, " | %.6g | %s", f.xla, ratioText(f.ours, f.xla))
		}
		b.WriteString(" |\n")
	}
	hlotest.Golden(t, filepath.Join(groundtruth.Dir(t), "xla-cost.golden"), b.String())

	for _, be := range []string{"cpu", "tpu-v5e", "tpu-v5e-4way", "tpu-v6e"} {
		n := sum[be]
		require.NotNil(t, n, be)
		require.NotZero(t, n.modules, be)
		assert.GreaterOrEqual(t, float64(n.flops), 0.95*float64(n.modules), "%s: flops within 1%% on >= 95%% of the compiles", be)
	}
	assert.GreaterOrEqual(t, float64(sum["cpu"].bytes1), 0.95*float64(sum["cpu"].modules), "cpu: bytes accessed within 1%% on >= 95%% of the compiles")
	t.Logf("xla-cost: %d modules, flops within 1%% on %d, bytes accessed on %d, exact on %d", all.modules, all.flops, all.bytes1, all.exact)
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

// ratioText is ours/XLA's with 4 decimals, "1" when equal (both zero
// included) and "-" when only XLA's is zero.
func ratioText(ours, xla float64) string {
	switch {
	case ours == xla:
		return "1"
	case xla == 0:
		return "-"
	}
	return fmt.Sprintf("%.4f", ours/xla)
}
