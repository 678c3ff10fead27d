package graph

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

func TestDOT(t *testing.T) {
	m, cs := hlotest.LoopsModule()
	plain, err := DOT(cs["main"], DOTOptions{})
	require.NoError(t, err)
	s := string(plain)
	assert.Contains(t, s, "strict digraph main {")
	assert.NotContains(t, s, "cluster", "fusions are collapsed by default")
	assert.Contains(t, s, `label="fus\nfusion, 4 ops\nf32[8]"`, "a fusion names its size")
	assert.Contains(t, s, "p -> fus;")
	assert.Contains(t, s, `label="loop\nwhile\nf32[]"`)
	assert.Contains(t, s, `label="root\ntuple\n(2 elements)"`, "a tuple is its element count")
	assert.Contains(t, s, `size="100,10000"`, "the width is bounded")

	open, err := DOT(cs["main"], DOTOptions{ExpandFusions: true})
	require.NoError(t, err)
	s = string(open)
	assert.Contains(t, s, "subgraph cluster_fus {")
	assert.Contains(t, s, `"fus/fm"`, "cluster nodes are qualified by the fusion")
	assert.Contains(t, s, "compound=true")
	assert.Regexp(t, `"fus/fm" -> fus \[\s*style=dashed\s*ltail="cluster_fus"\s*\]`, s, "the cluster is linked to its fusion node")

	cg, err := NewCallGraph(m).DOT()
	require.NoError(t, err)
	assert.Contains(t, string(cg), "strict digraph loops {")
	assert.Contains(t, string(cg), `main -> body [label="while_body"];`)
	assert.Contains(t, string(cg), `main -> br0 [label="conditional_branch"];`)

	again, err := NewCallGraph(m).DOT()
	require.NoError(t, err)
	assert.Equal(t, string(cg), string(again), "DOT output is deterministic")
}

func TestDOTLabelsAreCut(t *testing.T) {
	b := hlotest.NewBuilder("m")
	c := b.Entry("main")
	long := strings.Repeat("n", 80)
	b.Add(long, "negate", hlo.MakeShape(hlo.F32, 8), b.Param("p", 0, hlo.MakeShape(hlo.F32, 8)))
	out, err := DOT(c, DOTOptions{})
	require.NoError(t, err)
	assert.Contains(t, string(out), `label="`+strings.Repeat("n", maxLabelRunes-1)+`…\nnegate\nf32[8]"`)
	assert.Contains(t, string(out), `tooltip="`+long+`"`, "the whole name stays in the tooltip")
}

// chainModule builds a computation of n instructions: a parameter and
// layers of elementwise ops, each reading two of the layer before, width
// wide, and a final tuple of the last layer.
func chainModule(n, width int) *hlo.Computation {
	b := hlotest.NewBuilder("big")
	c := b.Entry("main")
	s := hlo.MakeShape(hlo.BF16, 8, 128)
	prev := []*hlo.Instruction{b.Param("p", 0, s)}
	count := 1
	for count < n-1 {
		var layer []*hlo.Instruction
		for k := 0; k < width && count < n-1; k++ {
			x, y := prev[k%len(prev)], prev[(k+1)%len(prev)]
			layer = append(layer, b.Add(fmt.Sprintf("op.%d", count), "add", s, x, y))
			count++
		}
		prev = layer
	}
	shapes := make([]hlo.Shape, len(prev))
	for i, in := range prev {
		shapes[i] = in.Shape
	}
	b.Add("out", "tuple", hlo.MakeTupleShape(shapes...), prev...)
	return c
}

func TestDOTMaxNodes(t *testing.T) {
	c := chainModule(50, 4)
	out, err := DOT(c, DOTOptions{MaxNodes: 10})
	require.NoError(t, err)
	s := string(out)
	assert.Len(t, boxLabel.FindAllString(s, -1), 10, "10 boxes")
	assert.Contains(t, s, `"10 of 50 instructions drawn, the 10 nearest the root; 40 cut (--max-nodes)"`)
	assert.Contains(t, s, "out [", "the root is kept")
	assert.NotContains(t, s, `"p"`, "the parameter, farthest from the root, is cut")

	all, err := DOT(c, DOTOptions{MaxNodes: -1})
	require.NoError(t, err)
	assert.Len(t, boxLabel.FindAllString(string(all), -1), 50)
	assert.NotContains(t, string(all), "note")
}

// boxLabel matches an instruction box's label (name, opcode and shape on
// three lines).
var boxLabel = regexp.MustCompile(`label="[^"\\]*\\n[^"\\]*\\n`)

var svgWidth = regexp.MustCompile(`<svg width="([0-9.]+)pt"`)

// TestDOTRendersReadably lays out a 1,000-instruction computation with
// Graphviz (when dot is installed) and checks the drawing is at most
// 10,000 px wide (7,500 pt at 96 px per inch), and, with ../shared beside
// the repository, the 1,063-instruction entry of llama 3.1 70B.
func TestDOTRendersReadably(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("Graphviz's dot is not installed (apt install graphviz)")
	}
	if testing.Short() {
		t.Skip("-short: no Graphviz layout")
	}
	cases := map[string]*hlo.Computation{"generated 1000": chainModule(1000, 40)}
	const llama = "../../shared/corpus/xla-bench__hlo_llama31_70b_fp8_16x8.hlo"
	if src, err := os.ReadFile(llama); err == nil {
		m, err := hlo.ParseFile(llama, src)
		require.NoError(t, err)
		cases["llama 70B entry"] = m.Entry
	} else {
		t.Logf("%s: %v (only the generated computation is drawn)", llama, err)
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			src, err := DOT(c, DOTOptions{})
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "dot", "-Tsvg")
			cmd.Stdin = bytes.NewReader(src)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			svg, err := cmd.Output()
			require.NoError(t, err, stderr.String())
			mw := svgWidth.FindSubmatch(svg)
			require.NotNil(t, mw, "svg width")
			w, err := strconv.ParseFloat(string(mw[1]), 64)
			require.NoError(t, err)
			assert.LessOrEqual(t, w*96/72, 10000.0, "%s: %.0f pt wide", name, w)
			assert.Greater(t, w, 100.0)
		})
	}
}

// An analysis annotates the boxes: a line under the label and a fill that
// replaces a fusion's grey; the call graph's computations too, its edges
// as before.
func TestDOTAnnotated(t *testing.T) {
	m, cs := hlotest.LoopsModule()
	ann := func(in *hlo.Instruction) Annotation {
		if in.Name == "fus" {
			return Annotation{Line: "4.0KiB, 1.5 µs", Fill: "#fb6a4a"}
		}
		return Annotation{Line: "32B"}
	}
	b, err := DOT(cs["main"], DOTOptions{Annotate: ann, ExpandFusions: true})
	require.NoError(t, err)
	s := string(b)
	assert.Contains(t, s, `label="fus\nfusion, 4 ops\nf32[8]\n4.0KiB, 1.5 µs"`)
	assert.Regexp(t, `(?s)fus \[.*style=filled.*fillcolor="#fb6a4a"`, s)
	assert.NotRegexp(t, `fus \[[^\]]*lightgrey`, s, "the annotation's fill replaces the fusion's grey")
	assert.Contains(t, s, `label="p\nparameter\nf32[8]\n32B"`)
	assert.NotContains(t, s, `fm\n32B`, "a fused computation's boxes are left as they are")

	cg, err := NewCallGraph(m).DOTAnnotated(func(c *hlo.Computation) Annotation {
		return Annotation{Line: c.Name + " figures", Fill: "#fee0d2"}
	})
	require.NoError(t, err)
	s = string(cg)
	assert.Contains(t, s, `main\n`)
	assert.Contains(t, s, `main figures"`)
	assert.Contains(t, s, `fillcolor="#fee0d2"`)
	assert.Contains(t, s, `main -> body [label="while_body"];`, "the edges as the plain call graph's")
	plain, err := NewCallGraph(m).DOT()
	require.NoError(t, err)
	assert.Equal(t, strings.Count(string(plain), "->"), strings.Count(s, "->"))
}
