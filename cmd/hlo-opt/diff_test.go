package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/hlo-opt/hlo-opt/cmd/hlo-opt/internal/htmltest"
	"github.com/hlo-opt/hlo-opt/cmd/hlo-opt/render/memdiff"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/xladump"
	"github.com/hlo-opt/hlo-opt/layoutassign"
)

// batches are the two compiles of transformer_fwd in a dump directory of
// testdata/dumps: batch 2, then batch 8.
func batches(t *testing.T, backend string) (string, string) {
	t.Helper()
	mods, err := xladump.Find(hlotest.TestdataPath(t, "dumps", backend))
	require.NoError(t, err)
	require.Len(t, mods, 2)
	return mods[0].Path, mods[1].Path
}

// layoutJSON is hlo-opt's layout report of one file.
func layoutJSON(t *testing.T, args ...string) layoutassign.ModuleJSON {
	t.Helper()
	out, errOut, code := hloOpt(t, "", append([]string{"--passes=layout", "--format=json"}, args...)...)
	require.Equal(t, 0, code, errOut)
	var rep struct {
		Layout layoutassign.ModuleJSON `json:"layout"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	return rep.Layout
}

// hlo-opt diff on two compiles of one program at two batch sizes: the
// peaks and classes are those of each file's own report; the larger batch
// grows; --fail-over fails the larger one and passes the smaller.
func TestDiffBatchSizes(t *testing.T) {
	for _, tc := range []struct{ backend, flag string }{{"tpu-v5e", "--device=tpu-v5e"}, {"cpu", "--target=cpu"}} {
		t.Run(tc.backend, func(t *testing.T) {
			a, b := batches(t, tc.backend)
			out, errOut, code := hloOpt(t, "", "diff", tc.flag, "--format=json", a, b)
			require.Equal(t, 0, code, errOut)
			var rep memdiff.Report
			require.NoError(t, json.Unmarshal([]byte(out), &rep))
			require.Len(t, rep.Pairs, 1)
			d := rep.Pairs[0]
			la, lb := layoutJSON(t, tc.flag, a), layoutJSON(t, tc.flag, b)
			assert.Equal(t, memdiffChange(la.XLAPeakBytes, lb.XLAPeakBytes), [3]int64{d.Peak.A, d.Peak.B, d.Peak.Delta})
			assert.Equal(t, memdiffChange(la.Peak.Bytes, lb.Peak.Bytes), [3]int64{d.HBMPeak.A, d.HBMPeak.B, d.HBMPeak.Delta})
			assert.Positive(t, d.Peak.Delta, "batch 8 needs more than batch 2")
			for _, c := range d.Classes {
				if c.Space == "HBM" && c.Class == "parameter" {
					assert.Equal(t, la.MemorySpaces[0].BufferAssignment.ParameterBytes, c.A)
					assert.Equal(t, lb.MemorySpaces[0].BufferAssignment.ParameterBytes, c.B)
					assert.Positive(t, c.Delta, "the batch's input is a parameter")
				}
			}
			require.NotEmpty(t, d.Grew)
			for i, g := range d.Grew {
				assert.Equal(t, g.B-g.A, g.Delta)
				assert.Positive(t, g.Delta)
				if i > 0 {
					assert.LessOrEqual(t, g.Delta, d.Grew[i-1].Delta, "most bytes first")
				}
			}
			require.NotNil(t, d.Time)
			assert.Greater(t, d.Time.B, d.Time.A, "more data, more time")

			_, _, code = hloOpt(t, "", "diff", tc.flag, "--fail-over=10", a, b)
			assert.Equal(t, 1, code, "the peak grew by more than 10%")
			_, _, code = hloOpt(t, "", "diff", tc.flag, "--fail-over=10", b, a)
			assert.Equal(t, 0, code, "the other way it shrinks")
			_, _, code = hloOpt(t, "", "diff", tc.flag, "--fail-over=100000", a, b)
			assert.Equal(t, 0, code)

			text, errOut, code := hloOpt(t, "", "diff", tc.flag, a, b)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, text, "peak (XLA's peak_memory_in_bytes)")
			assert.Contains(t, text, "grew or appeared")
		})
	}
}

func memdiffChange(a, b int64) [3]int64 { return [3]int64{a, b, b - a} }

// Two dump directories: their modules pair by program; the HTML page
// shows the JSON's figures.
func TestDiffDumpDirectories(t *testing.T) {
	a, b := batches(t, "tpu-v5e")
	dirA, dirB := t.TempDir(), t.TempDir()
	split := func(from, to string) {
		prefix := strings.SplitN(filepath.Base(from), ".", 2)[0] + "."
		entries, err := os.ReadDir(filepath.Dir(from))
		require.NoError(t, err)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), prefix) {
				require.NoError(t, os.WriteFile(filepath.Join(to, e.Name()), hlotest.ReadFile(t, filepath.Join(filepath.Dir(from), e.Name())), 0o644))
			}
		}
	}
	split(a, dirA)
	split(b, dirB)
	require.NoError(t, os.WriteFile(filepath.Join(dirB, "module_0099.jit_other.cl_1.after_optimizations.txt"),
		[]byte("HloModule jit_other, is_scheduled=true\n\nENTRY e {\n  ROOT p = f32[8] parameter(0)\n}\n"), 0o644))
	out, errOut, code := hloOpt(t, "", "diff", "--device=tpu-v5e", "--format=json", dirA, dirB)
	require.Equal(t, 0, code, errOut)
	var rep memdiff.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Pairs, 1, "transformer_fwd with transformer_fwd")
	assert.True(t, strings.HasPrefix(rep.Pairs[0].A, "module_0000.jit_transformer_fwd"))
	assert.True(t, strings.HasPrefix(rep.Pairs[0].B, "module_0018.jit_transformer_fwd"))
	assert.Empty(t, rep.OnlyA)
	assert.Equal(t, []string{"module_0099.jit_other.cl_1"}, rep.OnlyB)

	page, errOut, code := hloOpt(t, "", "diff", "--device=tpu-v5e", "--format=html", dirA, dirB)
	require.Equal(t, 0, code, errOut)
	doc := htmltest.Parse(t, []byte(page))
	d := rep.Pairs[0]
	rows := htmltest.FindAll(doc, func(n *html.Node) bool { return n.Data == "tr" && htmltest.Attr(n, "data-figure") == "peak" })
	require.Len(t, rows, 1)
	cells := htmltest.FindAll(rows[0], func(n *html.Node) bool { return n.Data == "td" })
	assert.Equal(t, strconv.FormatInt(d.Peak.A, 10), htmltest.Attr(cells[1], "data-v"))
	assert.Equal(t, strconv.FormatInt(d.Peak.B, 10), htmltest.Attr(cells[2], "data-v"))
	assert.Equal(t, strconv.FormatInt(d.Peak.Delta, 10), htmltest.Attr(cells[3], "data-v"))
	grew := htmltest.FindAll(doc, func(n *html.Node) bool { return htmltest.Attr(n, "id") == "grew-0" })
	require.Len(t, grew, 1)
	trs := htmltest.FindAll(grew[0], func(n *html.Node) bool { return n.Data == "tr" && n.Parent.Data == "tbody" })
	assert.Len(t, trs, len(d.Grew))
	assert.Contains(t, page, "only in B: module_0099.jit_other.cl_1")
}

func TestDiffUsage(t *testing.T) {
	a, _ := batches(t, "cpu")
	_, errOut, code := hloOpt(t, "", "diff", a)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "want two inputs")
	_, errOut, code = hloOpt(t, "", "diff", a, hlotest.TestdataPath(t, "dumps", "cpu"))
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "two module files or two dump directories")
	_, _, code = hloOpt(t, "", "diff", "--format=dot", a, a)
	assert.Equal(t, 2, code)
	bad := filepath.Join(t.TempDir(), "bad.hlo")
	require.NoError(t, os.WriteFile(bad, []byte("HloModule m\n\nENTRY e {\n  ROOT r = f32[2] negate(q)\n}\n"), 0o644))
	_, errOut, code = hloOpt(t, "", "diff", a, bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, bad+":4:")
	help, _, code := hloOpt(t, "", "diff", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, help, "usage: hlo-opt diff")
}
