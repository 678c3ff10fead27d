package layoutassign

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
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
	// unlaid are the scalars of a sort's comparator, which XLA's TPU
	// compile sizes as 1024-element vectors (the comparator runs on vector
	// lanes) although their layouts state no tiles: listed, not compared.
	unlaid []string
	misses []string
}

// TestGroundTruthSizes compares every value of XLA's buffer assignment with
// our byte size of that array (or tuple index table) in the layout the
// after-optimizations module gives it.
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
		comparators := map[*hlo.Computation]bool{}
		for _, comp := range m.Computations {
			for _, in := range comp.Instructions {
				if in.Opcode == "sort" {
					for _, callee := range in.Called {
						comparators[callee] = true
					}
				}
			}
		}
		target := groundTruthTarget(c.Backend)
		for _, v := range ba.Values() {
			n.values++
			in := byName[v.Instruction]
			got, what := valueBytes(in, v.Index, target)
			if got == v.Size {
				n.agree++
				continue
			}
			miss := fmt.Sprintf("%s %s%s: XLA %d, ours %d (%s; XLA's shape %s)",
				c, v.Instruction, indexText(v.Index), v.Size, got, what, v.Shape)
			if in != nil && comparators[in.Parent] {
				n.values--
				n.unlaid = append(n.unlaid, miss)
				continue
			}
			n.misses = append(n.misses, miss)
		}
	}
	var b strings.Builder
	b.WriteString("# Buffer sizes: every value of XLA's buffer assignment against our size of that array\n\n")
	b.WriteString("| backend | values | equal | share | sort comparator scalars | modules refused |\n|---|---|---|---|---|---|\n")
	slices.Sort(backends)
	var all sizeCount
	for _, be := range backends {
		n := counts[be]
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %d | %d |\n", be, n.values, n.agree, share(n.agree, n.values), len(n.unlaid), n.refused)
		all.values += n.values
		all.agree += n.agree
		all.refused += n.refused
		all.misses = append(all.misses, n.misses...)
		all.unlaid = append(all.unlaid, n.unlaid...)
	}
	fmt.Fprintf(&b, "| all | %d | %d | %s | %d | %d |\n", all.values, all.agree, share(all.agree, all.values), len(all.unlaid), all.refused)
	if len(all.unlaid) > 0 {
		b.WriteString("\n## Scalars of sort comparators (XLA's TPU compile sizes them as 1024-element vectors; not compared)\n\n")
		for _, m := range all.unlaid {
			fmt.Fprintf(&b, "- %s\n", m)
		}
	}
	if len(all.misses) > 0 {
		b.WriteString("\n## Different\n\n")
		for _, m := range all.misses {
			fmt.Fprintf(&b, "- %s\n", m)
		}
	}
	groundtruth.Golden(t, filepath.Join(groundtruth.Dir(t), "sizes.golden"), b.String())
	require.NotZero(t, all.values)
	assert.Empty(t, all.misses, "every buffer's size should be XLA's")
	t.Logf("sizes: %d of %d values equal (%s), %d modules refused", all.agree, all.values, share(all.agree, all.values), all.refused)
}

// valueBytes is our size of the value of in at index: the padded bytes of
// an array, or the index table of a tuple; what says which rule gave it.
func valueBytes(in *hlo.Instruction, index []int64, t Target) (int64, string) {
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
	c, err := costOf(*sub, t)
	if err != nil {
		return -1, err.Error()
	}
	return c.Bytes, "array " + sub.String()
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
