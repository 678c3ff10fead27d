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
	"go.uber.org/zap"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest/groundtruth"
)

// The sizes, layouts and memory of XLA's own compiles of the ground-truth
// programs (testdata/groundtruth/<program>/<backend>/<size>/, made by
// testdata/groundtruth/gen/generate.py) against ours. Each comparison
// writes a golden table under testdata/groundtruth/ (go test ./layoutassign
// -run GroundTruth -update rewrites them); make groundtruth prints them.

// groundTruthTarget is the target of a ground-truth backend.
func groundTruthTarget(backend string) Target {
	switch {
	case strings.HasPrefix(backend, "tpu-v6e"):
		t, _ := ParseTarget("tpu-v6e")
		return t
	case strings.HasPrefix(backend, "tpu"):
		return TPU()
	case strings.HasPrefix(backend, "h100"):
		return GPU()
	}
	return CPU()
}

// sizeCount tallies the buffer sizes of one backend.
type sizeCount struct {
	values, agree int
	refused       int
	misses        []string
}

// TestGroundTruthSizes compares every value of XLA's buffer assignment with
// our byte size of that array (or tuple index table) in the layout the
// after-optimizations module gives it, as the memory report sizes it
// (the values of a sort's comparator, which XLA's TPU compile keeps in
// vector registers, included).
func TestGroundTruthSizes(t *testing.T) {
	counts := map[string]*sizeCount{}
	var backends []string
	for _, c := range groundtruth.Cases(t) {
		n := counts[c.Backend]
		if n == nil {
			n = &sizeCount{}
			counts[c.Backend] = n
			backends = append(backends, c.Backend)
		}
		ba := c.BufferAssignment(t)
		if ba == nil {
			continue
		}
		m, err := c.Module(t, groundtruth.AfterOptimizations)
		if err != nil {
			n.refused++
			continue
		}
		byName := groundtruth.Instructions(m)
		target := groundTruthTarget(c.Backend)
		r, err := AnalyzeMemory(m, target)
		require.NoError(t, err, c.String())
		for _, v := range ba.Values() {
			n.values++
			got, what := valueBytes(r, byName[v.Instruction], v.Index, target)
			if got == v.Size {
				n.agree++
				continue
			}
			n.misses = append(n.misses, fmt.Sprintf("%s %s%s: XLA %d, ours %d (%s; XLA's shape %s)",
				c, v.Instruction, indexText(v.Index), v.Size, got, what, v.Shape))
		}
	}
	var b strings.Builder
	b.WriteString("# Buffer sizes: every value of XLA's buffer assignment against our size of that array\n\n")
	b.WriteString("| backend | values | equal | share | modules refused |\n|---|---|---|---|---|\n")
	slices.Sort(backends)
	var all sizeCount
	for _, be := range backends {
		n := counts[be]
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %d |\n", be, n.values, n.agree, share(n.agree, n.values), n.refused)
		all.values += n.values
		all.agree += n.agree
		all.refused += n.refused
		all.misses = append(all.misses, n.misses...)
	}
	fmt.Fprintf(&b, "| all | %d | %d | %s | %d |\n", all.values, all.agree, share(all.agree, all.values), all.refused)
	if len(all.misses) > 0 {
		b.WriteString("\n## Different\n\n")
		for _, m := range all.misses {
			fmt.Fprintf(&b, "- %s\n", m)
		}
	}
	hlotest.Golden(t, filepath.Join(groundtruth.Dir(t), "sizes.golden"), b.String())
	require.NotZero(t, all.values)
	assert.Empty(t, all.misses, "every buffer's size should be XLA's")
	t.Logf("sizes: %d of %d values equal (%s), %d modules refused", all.agree, all.values, share(all.agree, all.values), all.refused)
}

// valueBytes is the report r's size of the value of in at index: the
// padded bytes of an array leaf, or the index table of a tuple; what says
// which rule gave it.
func valueBytes(r *MemoryReport, in *hlo.Instruction, index []int64, t Target) (int64, string) {
	if in == nil {
		return -1, "no such instruction"
	}
	sub, ok := in.Shape.Subshape(index)
	if !ok {
		return -1, "no such shape index"
	}
	if sub.IsTuple() {
		return t.TupleTableBytes(len(sub.Tuple)), "tuple index table"
	}
	for _, c := range r.ArraysOf(in) {
		if slices.Equal(c.Index, index) || in.Shape.IsArray() {
			return c.Bytes, "array " + sub.String() + ", " + c.Rule.Name
		}
	}
	return -1, "no cost"
}

func indexText(idx []int64) string {
	if idx == nil {
		return ""
	}
	s := make([]string, len(idx))
	for i, x := range idx {
		s[i] = fmt.Sprint(x)
	}
	return "{" + strings.Join(s, ",") + "}"
}

func share(ok, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(ok)/float64(n))
}

// TestGroundTruthLayouts compares our TPU layouts with XLA's.
func TestGroundTruthLayouts(t *testing.T) {
	counts := map[string]*groundtruth.LayoutTally{}
	var backends []string
	var refused []string
	for _, c := range groundtruth.Cases(t) {
		if !c.IsTPU() {
			continue
		}
		n := counts[c.Backend]
		if n == nil {
			n = groundtruth.NewLayoutTally()
			counts[c.Backend] = n
			backends = append(backends, c.Backend)
		}
		before, err := c.Module(t, groundtruth.BeforeOptimizations)
		if err != nil {
			refused = append(refused, fmt.Sprintf("%s before: %s", c, groundtruth.Refusal(err)))
			continue
		}
		after, err := c.Module(t, groundtruth.AfterOptimizations)
		if err != nil {
			refused = append(refused, fmt.Sprintf("%s after: %s", c, groundtruth.Refusal(err)))
			continue
		}
		_, err = Assign(before, Options{Target: TPU(), Relayout: true, Logger: zap.NewNop()})
		require.NoError(t, err, c.String())
		n.Compare(c.String(), before, after)
	}
	var b strings.Builder
	b.WriteString("# TPU layouts: ours (Assign on the before-optimizations module) against XLA's TPU compile\n\n")
	b.WriteString("Compared: minor_to_major, tiles and memory space of every array of the after-optimizations module\n")
	b.WriteString("that has one match in the before-optimizations module (same opcode, op_name, type and dims).\n\n")
	b.WriteString("| backend | arrays compared | equal | share | minor_to_major and tiles equal | not in the program before optimization | ambiguous |\n|---|---|---|---|---|---|---|\n")
	slices.Sort(backends)
	all := groundtruth.NewLayoutTally()
	for _, be := range backends {
		n := counts[be]
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %d | %d |\n", be, n.Arrays, n.Agree, share(n.Agree, n.Arrays),
			share(n.LayoutsEqual(), n.Arrays), n.Unmatched, n.Ambiguous)
		all.Add(n)
	}
	fmt.Fprintf(&b, "| all | %d | %d | %s | %s | | |\n", all.Arrays, all.Agree, share(all.Agree, all.Arrays), share(all.LayoutsEqual(), all.Arrays))
	b.WriteString("\nMemory spaces S(1) (VMEM), S(4), S(6) are chosen by XLA's memory-space assignment, a pass after layout\n")
	b.WriteString("assignment that hlo-opt does not model: our layouts leave every array in device memory.\n")
	if len(all.Misses) > 0 {
		b.WriteString("\n## Misses by kind\n\n| kind | arrays | first example |\n|---|---|---|\n")
		kinds := make([]string, 0, len(all.Misses))
		for k := range all.Misses {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		for _, k := range kinds {
			fmt.Fprintf(&b, "| %s | %d | %s |\n", k, all.Misses[k], all.Examples[k])
		}
	}
	if len(refused) > 0 {
		b.WriteString("\n## Modules the parser refuses\n\n")
		for _, r := range refused {
			fmt.Fprintf(&b, "- %s\n", r)
		}
	}
	hlotest.Golden(t, filepath.Join(groundtruth.Dir(t), "layouts.golden"), b.String())
	require.NotZero(t, all.Arrays)
	assert.GreaterOrEqual(t, float64(all.LayoutsEqual()), 0.95*float64(all.Arrays), "minor_to_major and tiles on >= 95%% of arrays")
	t.Logf("TPU layouts: minor_to_major and tiles equal on %d of %d arrays (%s); with memory space %s",
		all.LayoutsEqual(), all.Arrays, share(all.LayoutsEqual(), all.Arrays), share(all.Agree, all.Arrays))
}

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
	hlotest.Golden(t, filepath.Join(groundtruth.Dir(t), "memory.golden"), b.String())
	// Arguments, outputs and aliased bytes follow exact rules (padded sizes,
	// the root tuple's index table, input_output_alias): they must agree.
	for _, r := range rows {
		if r.ours == nil {
			continue
		}
		assert.Equal(t, r.xla.Arguments, r.ours.ArgumentBytes, "%s arguments", r.c)
		assert.Equal(t, r.xla.Outputs, r.ours.OutputBytes, "%s outputs", r.c)
		assert.Equal(t, r.xla.Aliased, r.ours.AliasedBytes, "%s aliased", r.c)
		// XLA's CPU peak has no temporaries (arguments + outputs -
		// aliased + constants): exact on every CPU compile.
		if r.c.Backend == "cpu" {
			assert.Equal(t, r.xla.Peak, r.ours.XLAPeakBytes, "%s peak", r.c)
		}
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

// TestMemoryAgainstXLA sets the report's figures beside what XLA's
// memory_analysis() gave for the same compiles: every after-optimizations
// module of testdata/groundtruth that parses is analysed with the stated
// layouts and compared field by field (argument, output and alias sizes;
// the temp size, the preallocated temp allocation, except on the TPU,
// whose memory_analysis() reports 0 there (jax-ml/jax#18954) while its
// buffer assignment has one; the peak, XLA's peak_memory_in_bytes), and
// the BufferAssignment stats classes against the allocations of XLA's
// buffer-assignment.txt beside it (parameter, constant, maybe_live_out,
// preallocated temp, thread-local, total). The GPU compiles must all
// agree (the XLA of jax 0.11.2 that the liveness follows); the compiles
// of jax 0.12.0.1 (tpu-*, h100, cpu) at least 85% of the figures (on
// merging: v5e 90.7%, v5e-4way 91.7%, v6e 89.8%, cpu 94.3%, h100 99.2%,
// the misses mostly the TPU's preallocated temp allocation).
func TestMemoryAgainstXLA(t *testing.T) {
	type tally struct{ fields, agree, compiles, refused int }
	byBackend := map[string]*tally{}
	for _, c := range groundtruth.Cases(t) {
		want := c.MemoryAnalysis(t)
		if want == nil {
			continue
		}
		target := groundTruthTarget(c.Backend)
		tl := byBackend[c.Backend]
		if tl == nil {
			tl = &tally{}
			byBackend[c.Backend] = tl
		}
		m, err := c.Module(t, groundtruth.AfterOptimizations)
		if err != nil {
			tl.refused++ // XLA syntax the parser does not read yet (issue 17)
			continue
		}
		_, err = Assign(m, Options{Target: target})
		require.NoError(t, err)
		r, err := AnalyzeMemory(m, target)
		require.NoError(t, err)
		tl.compiles++
		check := func(field string, got, want int64) {
			tl.fields++
			if got == want {
				tl.agree++
				return
			}
			msg := fmt.Sprintf("%s: %s %d, XLA %d", c, field, got, want)
			if c.Backend == "h100-measured" {
				t.Error(msg)
			} else {
				t.Log(msg)
			}
		}
		check("argument", r.ArgumentBytes, want.Arguments)
		check("output", r.OutputBytes, want.Outputs)
		check("alias", r.AliasedBytes, want.Aliased)
		if target.Backend != BackendTPU {
			check("temp", r.TemporaryBytes, want.Temporaries)
		}
		check("peak", r.XLAPeakBytes, want.Peak)
		if ba := c.BufferAssignment(t); ba != nil {
			got, want := r.Stats, ba.Stats()
			check("parameter allocation", got.ParameterBytes, want.Parameter)
			check("constant allocation", got.ConstantBytes, want.Constant)
			check("maybe_live_out allocation", got.MaybeLiveOutBytes, want.MaybeLiveOut)
			check("preallocated temp allocation", got.PreallocatedTempBytes, want.PreallocatedTemp)
			check("thread-local allocation", got.ThreadLocalBytes, want.ThreadLocal)
			check("total allocation", got.TotalBytes, want.Total)
		}
	}
	for backend, tl := range byBackend {
		t.Logf("%s: %d compiles (%d not parsed yet), %d of %d figures equal XLA's", backend, tl.compiles, tl.refused, tl.agree, tl.fields)
		if tl.fields > 0 {
			assert.GreaterOrEqual(t, float64(tl.agree), 0.85*float64(tl.fields), "%s: at least 85%% of the figures equal XLA's", backend)
		}
	}
}
