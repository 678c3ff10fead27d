package layoutassign

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest/groundtruth"
)

// Layouts: Assign runs on XLA's before-optimizations module of each TPU
// compile and its layouts are set beside those XLA's TPU compile chose, as
// the after-optimizations module shows them. XLA renames what it fuses, so
// an array of the after-optimizations module is matched to the one of the
// before-optimizations module with the same opcode, op_name metadata,
// element type and dims; arrays XLA made (fusions, copies, bitcasts,
// fusion parameters) have no match and are not compared, nor are those
// whose matches got different layouts from us (ambiguous).

var opNameAttr = regexp.MustCompile(`op_name="([^"]*)"`)

// layoutKey identifies an array across the two modules.
func gtLayoutKey(in *hlo.Instruction) string {
	op := ""
	if md, ok := in.Attr("metadata"); ok {
		if m := opNameAttr.FindStringSubmatch(md); m != nil {
			op = m[1]
		}
	}
	return string(in.Opcode) + "|" + op + "|" + in.Shape.StringNoLayout()
}

// layoutText is what the layouts are compared on: minor_to_major and tiles.
func layoutText(s hlo.Shape) string {
	l := s.Layout
	if l == nil {
		return fmt.Sprint(hlo.DefaultMinorToMajor(len(s.Dims)))
	}
	return fmt.Sprint(l.MinorToMajor, l.Tiles)
}

type layoutCount struct {
	arrays, agree, spaceAgree, unmatched, ambiguous int
	misses                                          map[string]int
	examples                                        map[string]string
}

func (n *layoutCount) miss(kind, example string) {
	n.misses[kind]++
	if _, ok := n.examples[kind]; !ok {
		n.examples[kind] = example
	}
}

// compare counts the arrays of after (XLA's compile) against those of
// before (laid out by Assign) that match them, for the case named name.
func (n *layoutCount) compare(name string, before, after *hlo.Module) {
	ours := map[string][]*hlo.Instruction{}
	for _, comp := range before.Computations {
		for _, in := range comp.Instructions {
			if in.Shape.IsArray() {
				k := gtLayoutKey(in)
				ours[k] = append(ours[k], in)
			}
		}
	}
	for _, comp := range after.Computations {
		for _, in := range comp.Instructions {
			if !in.Shape.IsArray() {
				continue
			}
			cands := ours[gtLayoutKey(in)]
			if len(cands) == 0 {
				n.unmatched++
				continue
			}
			want := layoutText(cands[0].Shape)
			if slices.ContainsFunc(cands[1:], func(o *hlo.Instruction) bool { return layoutText(o.Shape) != want }) {
				n.ambiguous++
				continue
			}
			n.arrays++
			ex := fmt.Sprintf("%s %s: XLA %s, ours %s", name, in.Name, in.Shape, cands[0].Shape)
			xla, our := in.Shape.Layout, cands[0].Shape.Layout
			space := func(l *hlo.Layout) int64 {
				if l == nil {
					return 0
				}
				return l.MemorySpace
			}
			sameSpace := space(xla) == space(our)
			if sameSpace {
				n.spaceAgree++
			}
			switch {
			case layoutText(in.Shape) == want && sameSpace:
				n.agree++
			case layoutText(in.Shape) == want:
				n.miss(fmt.Sprintf("memory space S(%d), ours S(%d)", space(xla), space(our)), ex)
			case xla != nil && our != nil && slices.Equal(xla.MinorToMajor, our.MinorToMajor):
				n.miss("tiles", ex)
			default:
				n.miss("minor_to_major", ex)
			}
		}
	}
}

// TestGroundTruthLayouts compares our TPU layouts with XLA's.
func TestGroundTruthLayouts(t *testing.T) {
	counts := map[string]*layoutCount{}
	var backends []string
	var refused []string
	for _, c := range groundtruth.Cases(t) {
		if !c.IsTPU() {
			continue
		}
		n := counts[c.Backend]
		if n == nil {
			n = &layoutCount{misses: map[string]int{}, examples: map[string]string{}}
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
		n.compare(c.String(), before, after)
	}
	var b strings.Builder
	b.WriteString("# TPU layouts: ours (Assign on the before-optimizations module) against XLA's TPU compile\n\n")
	b.WriteString("Compared: minor_to_major, tiles and memory space of every array of the after-optimizations module\n")
	b.WriteString("that has one match in the before-optimizations module (same opcode, op_name, type and dims).\n\n")
	b.WriteString("| backend | arrays compared | equal | share | minor_to_major and tiles equal | not in the program before optimization | ambiguous |\n|---|---|---|---|---|---|---|\n")
	slices.Sort(backends)
	var all layoutCount
	all.misses, all.examples = map[string]int{}, map[string]string{}
	allLayoutsEqual := 0
	for _, be := range backends {
		n := counts[be]
		layoutsEqual := n.agree
		for k, v := range n.misses {
			if strings.HasPrefix(k, "memory space") {
				layoutsEqual += v
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %d | %d |\n", be, n.arrays, n.agree, share(n.agree, n.arrays),
			share(layoutsEqual, n.arrays), n.unmatched, n.ambiguous)
		all.arrays += n.arrays
		all.agree += n.agree
		allLayoutsEqual += layoutsEqual
		for k, v := range n.misses {
			all.misses[k] += v
			if _, ok := all.examples[k]; !ok {
				all.examples[k] = n.examples[k]
			}
		}
	}
	fmt.Fprintf(&b, "| all | %d | %d | %s | %s | | |\n", all.arrays, all.agree, share(all.agree, all.arrays), share(allLayoutsEqual, all.arrays))
	b.WriteString("\nMemory spaces S(1) (VMEM), S(4), S(6) are chosen by XLA's memory-space assignment, a pass after layout\n")
	b.WriteString("assignment that hlo-opt does not model: our layouts leave every array in device memory.\n")
	if len(all.misses) > 0 {
		b.WriteString("\n## Misses by kind\n\n| kind | arrays | first example |\n|---|---|---|\n")
		kinds := make([]string, 0, len(all.misses))
		for k := range all.misses {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		for _, k := range kinds {
			fmt.Fprintf(&b, "| %s | %d | %s |\n", k, all.misses[k], all.examples[k])
		}
	}
	if len(refused) > 0 {
		b.WriteString("\n## Modules the parser refuses\n\n")
		for _, r := range refused {
			fmt.Fprintf(&b, "- %s\n", r)
		}
	}
	groundtruth.Golden(t, filepath.Join(groundtruth.Dir(t), "layouts.golden"), b.String())
	require.NotZero(t, all.arrays)
	assert.GreaterOrEqual(t, float64(allLayoutsEqual), 0.95*float64(all.arrays), "minor_to_major and tiles on >= 95%% of arrays")
	t.Logf("TPU layouts: minor_to_major and tiles equal on %d of %d arrays (%s); with memory space %s",
		allLayoutsEqual, all.arrays, share(allLayoutsEqual, all.arrays), share(all.agree, all.arrays))
}
