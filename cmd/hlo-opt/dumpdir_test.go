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
	"github.com/hlo-opt/hlo-opt/cmd/hlo-opt/render/dumpdir"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/xladump"
	"github.com/hlo-opt/hlo-opt/layoutassign"
)

// dirSummary is the JSON summary of a dump directory.
type dirSummary struct {
	Dir     string            `json:"dir"`
	Modules []dumpdir.Summary `json:"modules"`
}

// The dump directories of testdata/dumps are XLA's own, written by the
// ground-truth generator (one program at batch sizes 2 and 8, both runs in
// one directory): the summary lists both modules with the figures hlo-opt
// gives each file alone, and sets them beside XLA's buffer assignment and
// memory-usage report; the output is the same for any --jobs.
func TestDumpDirSummary(t *testing.T) {
	for _, tc := range []struct{ backend, device string }{{"tpu-v5e", "tpu-v5e"}, {"cpu", ""}} {
		t.Run(tc.backend, func(t *testing.T) {
			dir := hlotest.TestdataPath(t, "dumps", tc.backend)
			args := []string{"--format=json", dir}
			if tc.device != "" {
				args = append([]string{"--device=" + tc.device}, args...)
			}
			out, errOut, code := hloOpt(t, "", args...)
			require.Equal(t, 0, code, errOut)
			var s dirSummary
			require.NoError(t, json.Unmarshal([]byte(out), &s))
			mods, err := xladump.Find(dir)
			require.NoError(t, err)
			require.Len(t, s.Modules, len(mods))
			require.Len(t, s.Modules, 2, "both batch sizes' runs")
			for i, m := range mods {
				got := s.Modules[i]
				assert.Equal(t, m.Name, got.Module)
				assert.Empty(t, got.Error)
				// The figures of the module's file alone (with the target
				// its platform gives).
				one := []string{"--passes=layout", "--format=json", m.Path}
				if tc.device != "" {
					one = append([]string{"--device=" + tc.device}, one...)
				} else if m.Platform() == "cpu" {
					one = append([]string{"--target=cpu"}, one...)
				}
				js, errOut, code := hloOpt(t, "", one...)
				require.Equal(t, 0, code, errOut)
				var rep struct {
					Layout layoutassign.ModuleJSON `json:"layout"`
				}
				require.NoError(t, json.Unmarshal([]byte(js), &rep))
				assert.Equal(t, rep.Layout.XLAPeakBytes, got.PeakBytes)
				assert.Equal(t, rep.Layout.Peak.Bytes, got.HBMPeakBytes)
				require.NotNil(t, got.TimeUS, "the cost pass ran by default")
				assert.Equal(t, tc.device != "", got.Fits != nil, "a verdict with a device")
				// XLA's side: its memory-usage report's totals, its buffer
				// assignment's parameters.
				require.NotNil(t, got.XLA)
				text := hlotest.ReadFile(t, m.MemoryUsageReport)
				usage, err := xladump.ParseMemoryUsageReport(string(text))
				require.NoError(t, err)
				for _, u := range usage {
					sc := findSpace(got.XLA.Spaces, u.Color)
					require.NotNil(t, sc, "space %d", u.Color)
					assert.Equal(t, u.Bytes, sc.XLA.TotalBytes)
				}
				ba, err := xladump.ParseBufferAssignment(string(hlotest.ReadFile(t, m.BufferAssignment)))
				require.NoError(t, err)
				var params int64
				for _, a := range ba.Allocations {
					if a.Parameter >= 0 && a.Color == 0 {
						params += a.Size
					}
				}
				hbm := findSpace(got.XLA.Spaces, 0)
				assert.Equal(t, params, hbm.XLA.ParameterBytes)
				assert.Equal(t, rep.Layout.MemorySpaces[0].BufferAssignment, hbm.Ours, "hlo-opt's side is the layout report's")
				for _, d := range got.XLA.Differences {
					assert.Regexp(t, `^\S+ .* allocation: XLA \S+, hlo-opt \S+ \(`, d)
				}
			}
			// The same bytes for any --jobs.
			var outs []string
			for _, jobs := range []string{"1", "2", "4"} {
				o, errOut, code := hloOpt(t, "", append([]string{"--jobs=" + jobs}, args...)...)
				require.Equal(t, 0, code, errOut)
				outs = append(outs, o)
			}
			assert.Equal(t, outs[0], outs[1])
			assert.Equal(t, outs[0], outs[2])
		})
	}
}

// On the CPU dump at batch 2, hlo-opt's buffer assignment is XLA's: the
// summary says so, and the text table shows both modules.
func TestDumpDirText(t *testing.T) {
	dir := hlotest.TestdataPath(t, "dumps", "cpu")
	out, errOut, code := hloOpt(t, "", dir)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(out, "\n")
	assert.Contains(t, lines[0], "module")
	assert.Contains(t, lines[0], "vs XLA")
	assert.Contains(t, lines[1], "module_0000.jit_transformer_fwd.cpu")
	assert.Contains(t, lines[1], "agrees")
	assert.Contains(t, lines[2], "module_0002.jit_transformer_fwd.cpu")
	assert.Contains(t, out, "2 modules in "+dir)
}

// A TPU dump directory read without --device is timed on the default GPU:
// each such time is starred, the table's foot says why and how to get the
// module's own, and the JSON carries the cost pass's note; with --device
// for the TPU there is no note.
func TestDumpDirForeignTime(t *testing.T) {
	dir := hlotest.TestdataPath(t, "dumps", "tpu-v5e")
	out, errOut, code := hloOpt(t, "", dir)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(out, "\n")
	assert.Contains(t, lines[1], "on h100 *")
	assert.Contains(t, lines[2], "on h100 *")
	assert.Contains(t, out, "* compiled for another backend than the time's device (give --device for their own time): 2 modules; module_0000.")
	js, errOut, code := hloOpt(t, "", "--format=json", dir)
	require.Equal(t, 0, code, errOut)
	var s dirSummary
	require.NoError(t, json.Unmarshal([]byte(js), &s))
	for _, m := range s.Modules {
		assert.Contains(t, m.TimeNote, "compiled for TPU")
	}
	own, errOut, code := hloOpt(t, "", "--device=tpu-v5e", dir)
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, own, " *")
	assert.Contains(t, own, "on tpu-v5e")
}

// One bad module is reported (file:line:col on stderr, a failed row) and
// the others go on; the exit status is 1.
func TestDumpDirBadModule(t *testing.T) {
	dir := copyDir(t, hlotest.TestdataPath(t, "dumps", "tpu-v5e"))
	bad := filepath.Join(dir, "module_0042.jit_bad.cl_1.after_optimizations.txt")
	require.NoError(t, os.WriteFile(bad, []byte("HloModule bad\n\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] add(p, q)\n}\n"), 0o644))
	out, errOut, code := hloOpt(t, "", "--format=json", dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, bad+":5:")
	var s dirSummary
	require.NoError(t, json.Unmarshal([]byte(out), &s))
	require.Len(t, s.Modules, 3)
	assert.Empty(t, s.Modules[0].Error)
	assert.Empty(t, s.Modules[1].Error)
	assert.Contains(t, s.Modules[2].Error, "expected")
	assert.Positive(t, s.Modules[0].PeakBytes, "the others go on")
}

// --format=html -o OUTDIR writes an index linking one Memory Viewer page
// per module, each with the peak the summary gives.
func TestDumpDirHTML(t *testing.T) {
	dir := hlotest.TestdataPath(t, "dumps", "tpu-v5e")
	outDir := filepath.Join(t.TempDir(), "pages")
	_, errOut, code := hloOpt(t, "", "--device=tpu-v5e", "--format=html", "-o", outDir, dir)
	require.Equal(t, 0, code, errOut)
	js, _, code := hloOpt(t, "", "--device=tpu-v5e", "--format=json", dir)
	require.Equal(t, 0, code)
	var s dirSummary
	require.NoError(t, json.Unmarshal([]byte(js), &s))
	doc := htmltest.Parse(t, hlotest.ReadFile(t, filepath.Join(outDir, "index.html")))
	links := htmltest.FindAll(doc, func(n *html.Node) bool { return n.Data == "a" })
	require.Len(t, links, len(s.Modules))
	for i, a := range links {
		m := s.Modules[i]
		assert.Equal(t, m.Module+".html", htmltest.Attr(a, "href"))
		page := htmltest.Parse(t, hlotest.ReadFile(t, filepath.Join(outDir, htmltest.Attr(a, "href"))))
		peak := htmltest.FindAll(page, func(n *html.Node) bool { return htmltest.Attr(n, "id") == "xla-peak" })
		require.Len(t, peak, 1)
		assert.Equal(t, strconv.FormatInt(m.PeakBytes, 10), htmltest.Attr(peak[0], "data-bytes"))
	}
	_, errOut, code = hloOpt(t, "", "--format=html", dir)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "give -o OUTDIR")
	_, errOut, code = hloOpt(t, "", "--format=dot", dir)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "draws one module")
	_, errOut, code = hloOpt(t, "", "--passes=stats", dir)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "add layout to --passes")
	_, errOut, code = hloOpt(t, "", t.TempDir())
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no after-optimizations module")
}

func findSpace(ss []dumpdir.SpaceCheck, space int64) *dumpdir.SpaceCheck {
	for i := range ss {
		if ss[i].Space == space {
			return &ss[i]
		}
	}
	return nil
}

// copyDir copies the files of dir into a new temporary directory.
func copyDir(t *testing.T, dir string) string {
	t.Helper()
	to := t.TempDir()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.NoError(t, os.WriteFile(filepath.Join(to, e.Name()), hlotest.ReadFile(t, filepath.Join(dir, e.Name())), 0o644))
	}
	return to
}
