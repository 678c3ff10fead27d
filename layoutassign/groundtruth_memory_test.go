package layoutassign

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest/groundtruth"
)

// memoryRow is one compile's memory figures, XLA's and ours.
type memoryRow struct {
	c                  groundtruth.Case
	xla                groundtruth.MemoryAnalysis
	ours               *MemoryReport
	baTemp, baConstant int64 // XLA's buffer assignment, default memory space
	refused            string
}

// why says, for a peak more than 5 % off, which way and what explains it
// as far as the two reports show (issue 10 reworks the liveness model).
func (r memoryRow) why() string {
	ratio := r.peakRatio()
	switch {
	case r.xla.Peak == 0 || math.Abs(ratio-1) <= 0.05:
		return ""
	case ratio > 1 && r.ours.TemporaryBytes > r.baTemp:
		return "ours higher: our walk keeps temporaries apart that XLA's heap simulator packs into shared allocations"
	case ratio > 1:
		return "ours higher: a callee's peak added on top of buffers XLA's schedule frees first"
	case r.ours.TemporaryBytes < r.baTemp:
		return "ours lower: XLA allocates temporaries our walk does not see (library workspace, fusion scratch, async staging)"
	}
	return "ours lower: XLA keeps buffers live longer than its schedule's last use (copy-start/done, in-place reuse refused)"
}

func (r memoryRow) peakRatio() float64 {
	if r.xla.Peak == 0 {
		return 0
	}
	return float64(r.ours.XLAPeakBytes) / float64(r.xla.Peak)
}

// TestGroundTruthMemory compares our memory report of each
// after-optimizations module with XLA's memory_analysis() of that compile:
// argument, output, aliased and temporary bytes and the peak.
func TestGroundTruthMemory(t *testing.T) {
	var rows []memoryRow
	for _, c := range groundtruth.Cases(t) {
		ma := c.MemoryAnalysis(t)
		if ma == nil {
			continue
		}
		row := memoryRow{c: c, xla: *ma}
		if ba := c.BufferAssignment(t); ba != nil {
			for _, a := range ba.Allocations {
				switch {
				case a.Color != 0:
				case a.Constant:
					row.baConstant += a.Size
				case a.Kind() == "temp":
					row.baTemp += a.Size
				}
			}
		}
		m, err := c.Module(t, groundtruth.AfterOptimizations)
		if err != nil {
			row.refused = groundtruth.Refusal(err)
			rows = append(rows, row)
			continue
		}
		r, err := AnalyzeMemory(m, groundTruthTarget(c.Backend))
		require.NoError(t, err, c.String())
		row.ours = r
		rows = append(rows, row)
	}
	type tally struct{ n, args, outs, alias, temp, peak int }
	sum := map[string]*tally{}
	var order []string
	for _, r := range rows {
		if r.ours == nil {
			continue
		}
		n := sum[r.c.Backend]
		if n == nil {
			n = &tally{}
			sum[r.c.Backend] = n
			order = append(order, r.c.Backend)
		}
		n.n++
		n.args += b2i(r.xla.Arguments == r.ours.ArgumentBytes)
		n.outs += b2i(r.xla.Outputs == r.ours.OutputBytes)
		n.alias += b2i(r.xla.Aliased == r.ours.AliasedBytes)
		n.temp += b2i(r.xla.Temporaries == r.ours.TemporaryBytes)
		n.peak += b2i(r.xla.Peak > 0 && math.Abs(r.peakRatio()-1) <= 0.05)
	}
	slices.Sort(order)
	var b strings.Builder
	b.WriteString("# Memory: our report on the after-optimizations module against XLA's memory_analysis()\n\n")
	b.WriteString("Modules whose figure equals XLA's (peak: within 5 %), per backend.\n\n")
	b.WriteString("| backend | modules | arguments | outputs | aliased | temporaries | peak within 5% |\n|---|---|---|---|---|---|---|\n")
	for _, be := range order {
		n := sum[be]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d (%s) |\n", be, n.n, n.args, n.outs, n.alias, n.temp, n.peak, share(n.peak, n.n))
	}
	b.WriteString("\n## Every module\n\n")
	b.WriteString("Bytes per device. x/y: XLA's figure / ours; one figure where both agree.\n\n")
	b.WriteString("| program | backend | size | arguments | outputs | aliased | temporaries | XLA temp allocations | peak | peak ours/XLA | why the peak differs |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		if r.ours == nil {
			fmt.Fprintf(&b, "| %s | %s | %s | refused: %s |\n", r.c.Program, r.c.Backend, r.c.Size, r.refused)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %d | %s | %.3f | %s |\n", r.c.Program, r.c.Backend, r.c.Size,
			pair(r.xla.Arguments, r.ours.ArgumentBytes), pair(r.xla.Outputs, r.ours.OutputBytes),
			pair(r.xla.Aliased, r.ours.AliasedBytes), pair(r.xla.Temporaries, r.ours.TemporaryBytes),
			r.baTemp, pair(r.xla.Peak, r.ours.XLAPeakBytes), r.peakRatio(), r.why())
	}
	groundtruth.Golden(t, filepath.Join(groundtruth.Dir(t), "memory.golden"), b.String())
	// Arguments, outputs and aliased bytes follow exact rules (padded sizes,
	// the root tuple's index table, input_output_alias): they must agree.
	for _, r := range rows {
		if r.ours == nil {
			continue
		}
		assert.Equal(t, r.xla.Arguments, r.ours.ArgumentBytes, "%s arguments", r.c)
		assert.Equal(t, r.xla.Outputs, r.ours.OutputBytes, "%s outputs", r.c)
		assert.Equal(t, r.xla.Aliased, r.ours.AliasedBytes, "%s aliased", r.c)
	}
}

func pair(xla, ours int64) string {
	if xla == ours {
		return fmt.Sprint(xla)
	}
	return fmt.Sprintf("%d/%d", xla, ours)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
