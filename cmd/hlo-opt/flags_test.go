package main

import (
	"encoding/json"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/cost"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/layoutassign"
)

func TestParseInterspersed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		out  string
		pos  []string
	}{
		{[]string{"a.hlo"}, "-", []string{"a.hlo"}},
		{[]string{"a.hlo", "-o", "x"}, "x", []string{"a.hlo"}},
		{[]string{"-o", "x", "a.hlo"}, "x", []string{"a.hlo"}},
		{[]string{"a.hlo", "-o", "x", "b"}, "x", []string{"a.hlo", "b"}},
		{[]string{"-", "-o=y"}, "y", []string{"-"}},
		{[]string{"--", "-o", "z"}, "-", []string{"-o", "z"}},
		{[]string{"a", "--", "-o"}, "-", []string{"a", "-o"}},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		out := fs.String("o", "-", "")
		pos, err := parseInterspersed(fs, tc.args)
		require.NoError(t, err, tc.args)
		assert.Equal(t, tc.pos, pos, tc.args)
		assert.Equal(t, tc.out, *out, tc.args)
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	_, err := parseInterspersed(fs, []string{"a.hlo", "--nope"})
	assert.Error(t, err)
}

// TestLayoutTargetFollowsDevice: the layout passes lay out for the
// --device's kind, --target overrides it, and without either a run of cost
// passes alone lays out for the GPU its cost passes model while any run
// with the layout pass keeps the TPU default.
func TestLayoutTargetFollowsDevice(t *testing.T) {
	reg, err := newRegistry()
	require.NoError(t, err)
	for _, tc := range []struct {
		passes, device, target string
		want                   layoutassign.Backend
	}{
		{passes: "layout", want: layoutassign.BackendTPU},
		{passes: "coalescing", want: layoutassign.BackendGPU},
		{passes: "stats,cost,utilization", want: layoutassign.BackendGPU},
		{passes: "gpu-kernels", want: layoutassign.BackendGPU},
		{passes: "layout,coalescing", want: layoutassign.BackendTPU},
		{passes: "coalescing, layout", want: layoutassign.BackendTPU},
		{passes: "layout-assign,cost", want: layoutassign.BackendTPU},
		{passes: "indexing", want: layoutassign.BackendTPU},
		{passes: "coalescing", device: "tpu-v5e", want: layoutassign.BackendTPU},
		{passes: "layout", device: "h100", want: layoutassign.BackendGPU},
		{passes: "coalescing", target: "cpu", want: layoutassign.BackendCPU},
		{passes: "xla-cost", want: layoutassign.BackendGPU},
		{passes: "xla-cost", device: "tpu-v6e", want: layoutassign.BackendTPU},
	} {
		ps, err := reg.Parse(tc.passes)
		require.NoError(t, err)
		cfg, err := newPassConfig(&options{device: tc.device, target: tc.target}, ps)
		require.NoError(t, err)
		assert.Equal(t, tc.want, cfg.layout.Target.Backend, "--passes=%s --device=%s --target=%s", tc.passes, tc.device, tc.target)
	}
}

// The xla-cost pass's backend: the --device's (a TPU chip or a GPU),
// overridden by --target; without either none, so that the pass infers
// it from the module.
func TestXLACostTargetFlags(t *testing.T) {
	reg, err := newRegistry()
	require.NoError(t, err)
	ps, err := reg.Parse("xla-cost")
	require.NoError(t, err)
	for _, tc := range []struct {
		device, target string
		want           cost.XLATarget
	}{
		{want: cost.XLATarget{}},
		{device: "tpu-v6e", want: cost.XLATarget{Backend: cost.XLATPU, Device: "tpu-v6e"}},
		{device: "h100", want: cost.XLATarget{Backend: cost.XLAGPU, Device: "h100"}},
		{target: "cpu", want: cost.XLATarget{Backend: cost.XLACPU}},
		{target: "tpu", want: cost.XLATarget{Backend: cost.XLATPU}},
		{device: "tpu-v5e", target: "tpu", want: cost.XLATarget{Backend: cost.XLATPU, Device: "tpu-v5e"}},
		{device: "tpu-v5e", target: "tpu-v6e", want: cost.XLATarget{Backend: cost.XLATPU, Device: "tpu-v6e"}},
		{device: "h100", target: "cpu", want: cost.XLATarget{Backend: cost.XLACPU}},
	} {
		cfg, err := newPassConfig(&options{device: tc.device, target: tc.target}, ps)
		require.NoError(t, err)
		assert.Equal(t, tc.want, cfg.xla, "--device=%s --target=%s", tc.device, tc.target)
	}
	in := hlotest.TestdataPath(t, "xla-cost", "cpu_while.hlo")
	out, errOut, code := hloOpt(t, "", "--passes=xla-cost", "--target=cpu", in)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "xla-cost: backend cpu, as compiled.cost_analysis() reports it\n  module: flops 1.04858e+06,")
	_, errOut, code = hloOpt(t, "", "--passes=xla-cost", "--target=nope", in)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--target=nope")
}

// --device picks a preset or reads a JSON device file; --coalescing picks
// the analysis; bad values are usage errors.
func TestCostFlags(t *testing.T) {
	in := hlotest.TestdataPath(t, "cost", "mixed.hlo")
	out, errOut, code := hloOpt(t, "", "--passes=cost", "--device=a100", in)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "cost: device a100:")

	dev := hlotest.WriteFile(t, t.TempDir(), "dev.json", `{"base": "h100", "name": "h100-pcie", "memory_bandwidth_bytes_per_s": 2.0e12}`)
	out, errOut, code = hloOpt(t, "", "--passes=cost", "--device="+dev, in)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "cost: device h100-pcie:")

	out, errOut, code = hloOpt(t, "", "--passes=coalescing", "--coalescing=heuristic", in)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "coalescing (heuristic, h100)")

	_, errOut, code = hloOpt(t, "", "--passes=cost", "--device=nope", in)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unknown device "nope"`)
	_, errOut, code = hloOpt(t, "", "--passes=cost", "--coalescing=maybe", in)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--coalescing=maybe")
}

// truncatedModule ends inside its entry computation, at a line end.
const truncatedModule = `HloModule m

c {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}

ENTRY e {
  p = f32[] parameter(0)
  x = f32[] call(p), to_apply=c
`

// A text that ends inside a computation is an error by default, at a line
// end or mid-token, and nothing is written; --allow-truncated keeps the
// complete computations, and the module and every report begin with one
// line saying what was dropped.
func TestTruncatedInput(t *testing.T) {
	dir := t.TempDir()
	in := hlotest.WriteFile(t, dir, "cut.hlo", truncatedModule)
	dst := filepath.Join(dir, "out.hlo")
	out, errOut, code := hloOpt(t, "", "-o", dst, in)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, in+`:11:1: file ends inside computation "e"; is the dump truncated?`+"\n", errOut)
	assertNotExist(t, dst, "nothing written")

	midToken := hlotest.WriteFile(t, dir, "mid.hlo", strings.TrimSuffix(truncatedModule, "=c\n"))
	_, errOut, code = hloOpt(t, "", "--passes=layout", midToken)
	assert.Equal(t, 1, code)
	assert.Equal(t, midToken+`:10:30: file ends inside computation "e"; is the dump truncated?`+"\n", errOut)

	note := `Truncated input: text ends at 11:1 inside computation "e" (the entry computation), which was dropped; 1 complete computation kept, no entry computation.`
	out, errOut, code = hloOpt(t, "", "--allow-truncated", in)
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "// "+note+"\nHloModule m\n"), out)

	for _, pass := range []string{"layout", "cost", "stats"} {
		out, errOut, code = hloOpt(t, "", "--allow-truncated", "--passes="+pass, in)
		require.Equal(t, 0, code, errOut)
		assert.True(t, strings.HasPrefix(out, note+"\n"), "%s: %s", pass, out)
	}
	out, _, _ = hloOpt(t, "", "--allow-truncated", "--passes=layout", in)
	assert.Contains(t, out, "No entry computation (the text lost it): no entry peak. The one computation no other one calls, as if it were the entry")
	assert.Contains(t, out, "No verdict: the module has no entry computation.")

	out, errOut, code = hloOpt(t, "", "--allow-truncated", "--passes=layout", "--format=json", in)
	require.Equal(t, 0, code, errOut)
	var js struct {
		Entry     *string `json:"entry"`
		Truncated struct {
			Computation  string `json:"computation"`
			Line         int    `json:"line"`
			EntryDropped bool   `json:"entry_dropped"`
		} `json:"truncated"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &js))
	assert.Nil(t, js.Entry)
	assert.Equal(t, "e", js.Truncated.Computation)
	assert.Equal(t, 11, js.Truncated.Line)
	assert.True(t, js.Truncated.EntryDropped)
}

// Without an ENTRY marker the last computation is the entry, and the
// reports say so; --entry picks another, and an unknown name fails.
func TestEntryFlag(t *testing.T) {
	src := "HloModule m\n\na {\n  p = f32[8] parameter(0)\n  ROOT n = f32[8] negate(p)\n}\n\n" +
		"b {\n  p = f32[16] parameter(0)\n  ROOT e = f32[16] exponential(p)\n}\n"
	out, errOut, code := hloOpt(t, src, "--passes=layout", "-")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "Entry computation: b (no computation is marked ENTRY; XLA takes the last one).\n"), out)
	assert.Contains(t, out, "Buffer assignment of b ")

	out, errOut, code = hloOpt(t, src, "--passes=layout", "--entry=a", "-")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Buffer assignment of a ")

	_, errOut, code = hloOpt(t, src, "--passes=layout", "--entry=nope", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `--entry: module m has no computation "nope"`)
}

// Stated layouts are kept unless --relayout; the two flags exclude each
// other.
func TestRelayoutFlag(t *testing.T) {
	src := "HloModule m\n\nENTRY e {\n  p = f32[8,256]{0,1} parameter(0)\n  ROOT n = f32[8,256]{0,1} negate(p)\n}\n"
	out, errOut, code := hloOpt(t, src, "--passes=layout", "--emit=both", "-")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Layouts: kept as stated (--relayout assigns them anew)")
	assert.Contains(t, out, "f32[8,256]{0,1:T(8,128)} negate")

	out, errOut, code = hloOpt(t, src, "--passes=layout", "--relayout", "-")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Layouts: assigned anew (--relayout)")

	_, errOut, code = hloOpt(t, src, "--passes=layout", "--relayout", "--keep-layouts", "-")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--relayout and --keep-layouts exclude each other")
}

// --device picks the device of every pass: the layout target follows its
// kind (--target overrides it) and the memory report ends with its
// verdict.
func TestDeviceFlag(t *testing.T) {
	src := "HloModule m\n\nENTRY e {\n  p = f32[1024,1024] parameter(0)\n  ROOT n = f32[1024,1024] negate(p)\n}\n"
	big := strings.ReplaceAll(src, "1024,1024", "65536,65536")
	for _, tc := range []struct {
		src  string
		args []string
		want []string
	}{
		{src, []string{"--passes=layout", "--device=tpu-v5e"},
			[]string{"on tpu(pred=1B), device tpu-v5e", "Fits: 8.00MiB of 16.00GiB HBM (0.05%) on tpu-v5e."}},
		{src, []string{"--passes=layout,cost", "--device=h100"},
			[]string{"on gpu(pred=1B), device h100", "cost: device h100"}},
		{src, []string{"--passes=layout", "--device=tpu-v4", "--target=gpu"},
			[]string{"on gpu(pred=1B), device tpu-v4"}},
		{big, []string{"--passes=layout", "--device=tpu-v5e"},
			[]string{"Exceeds HBM capacity by 16.00GiB on tpu-v5e (32.00GiB of 16.00GiB); largest: p 16.00GiB (parameter), n 16.00GiB (maybe-live-out)."}},
	} {
		out, errOut, code := hloOpt(t, tc.src, append(tc.args, "-")...)
		require.Equal(t, 0, code, errOut)
		for _, w := range tc.want {
			assert.Contains(t, out, w, "%v", tc.args)
		}
	}
}

// TestDeviceTPUV6eTupleTables: --device=tpu-v6e lays out with v6e's
// 32-byte tuple index tables (XLA's v6e buffer assignments), as
// --target=tpu-v6e does; v5e's are 512 bytes.
func TestDeviceTPUV6eTupleTables(t *testing.T) {
	src := "HloModule m\n\nENTRY e {\n  p = f32[8,128]{1,0:T(8,128)} parameter(0)\n  n = f32[8,128]{1,0:T(8,128)} negate(p)\n  ROOT t = (f32[8,128]{1,0:T(8,128)}, f32[8,128]{1,0:T(8,128)}) tuple(n, p)\n}\n"
	for device, want := range map[string]string{"tpu-v6e": `"output_bytes": 8224`, "tpu-v5e": `"output_bytes": 8704`} {
		out, errOut, code := hloOpt(t, src, "--passes=layout", "--format=json", "--device="+device, "-")
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, want, device)
	}
}
