package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

func example(t *testing.T) string {
	return hlotest.TestdataPath(t, "examples", "softmax.hlo")
}

func TestNoPassesPrintsCanonicalModule(t *testing.T) {
	out, errOut, code := hloOpt(t, "", example(t))
	require.Equal(t, 0, code, errOut)
	m, err := hlo.ParseFile("out", []byte(out))
	require.NoError(t, err)
	assert.Equal(t, out, m.String(), "the output is canonical: it prints back unchanged")

	src := hlotest.ReadFile(t, example(t))
	stdinOut, _, code := hloOpt(t, string(src), "-")
	assert.Equal(t, 0, code)
	assert.Equal(t, out, stdinOut, "- reads stdin")

	short, _, code := hloOpt(t, "", "--print=short", example(t))
	assert.Equal(t, 0, code)
	assert.NotContains(t, short, "%")
	assert.Contains(t, short, "ROOT div.fusion = f32[8,128]{1,0} fusion(exp.fusion, row_sum)")
}

func TestOutputFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "out.hlo")
	_, errOut, code := hloOpt(t, "", "-o", dst, example(t))
	require.Equal(t, 0, code, errOut)
	data := hlotest.ReadFile(t, dst)
	assert.True(t, strings.HasPrefix(string(data), "HloModule softmax"))

	bad := hlotest.WriteFile(t, dir, "bad.hlo", "HloModule m\nENTRY e {\n  x = f32[ parameter(0)\n}\n")
	dst2 := filepath.Join(dir, "never.hlo")
	_, errOut, code = hloOpt(t, "", "-o", dst2, bad)
	assert.Equal(t, 1, code)
	assert.Regexp(t, `^`+regexpQuote(bad)+`:3:\d+: expected `, errOut, "parse errors are FILE:LINE:COL")
	assertNotExist(t, dst2, "no file at all on error")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "no temporary files left behind")
}

func regexpQuote(s string) string {
	r := strings.NewReplacer(".", `\.`, "+", `\+`, "(", `\(`, ")", `\)`)
	return r.Replace(s)
}

func TestSplitInputFile(t *testing.T) {
	src := "HloModule a\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n// -----\nHloModule b\nENTRY e {\n  ROOT q = s32[] parameter(0)\n}\n"
	out, errOut, code := hloOpt(t, src, "--split-input-file", "-")
	require.Equal(t, 0, code, errOut)
	parts := strings.Split(out, "// -----\n")
	require.Len(t, parts, 2)
	assert.True(t, strings.HasPrefix(parts[0], "HloModule a"))
	assert.True(t, strings.HasPrefix(parts[1], "HloModule b"))

	jsonOut, _, code := hloOpt(t, src, "--split-input-file", "--format=json", "-")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(jsonOut, "[\n{"), "JSON chunks form an array")

	broken := strings.Replace(src, "s32[] parameter(0)", "s32[] parameter(", 1)
	_, errOut, code = hloOpt(t, broken, "--split-input-file", "-")
	assert.Equal(t, 1, code)
	assert.True(t, strings.HasPrefix(errOut, "<stdin>:9:"), "positions count lines of the whole file: %s", errOut)
}

// TestSplitInputFileJobs checks that chunks run side by side write what
// they write one after another: the same output, and the same errors in
// the order of the chunks, for any --jobs, with and without passes.
func TestSplitInputFileJobs(t *testing.T) {
	var chunks []string
	for i := range 7 {
		c := fmt.Sprintf("HloModule m%d\nENTRY e {\n  p = f32[%d] parameter(0)\n  ROOT n = f32[%d] negate(p)\n}\n", i, i+1, i+1)
		chunks = append(chunks, c)
	}
	good := strings.Join(chunks, "// -----\n")
	chunks[2] = strings.Replace(chunks[2], "negate(p)", "negate(q)", 1)
	chunks[5] = strings.Replace(chunks[5], "parameter(0)", "parameter(", 1)
	bad := strings.Join(chunks, "// -----\n")
	for _, args := range [][]string{{}, {"--passes=stats"}} {
		for _, src := range []string{good, bad} {
			want, wantErr, wantCode := hloOpt(t, src, append(args, "--split-input-file", "--jobs=1", "-")...)
			if src == bad {
				require.Equal(t, 1, wantCode)
				require.Regexp(t, `^<stdin>:16:26: .*\n<stdin>:34:3: `, wantErr, "errors in the order of the chunks")
			} else {
				require.Equal(t, 0, wantCode, wantErr)
			}
			for _, jobs := range []string{"--jobs=2", "--jobs=3"} {
				out, errOut, code := hloOpt(t, src, append(args, "--split-input-file", jobs, "-")...)
				assert.Equal(t, wantCode, code, jobs)
				assert.Equal(t, want, out, jobs)
				assert.Equal(t, wantErr, errOut, jobs)
			}
		}
	}
}

// TestSplitInputFileRead checks --split-input-file's reading as it runs:
// each chunk's --timing lines come together, in the order of the chunks,
// for any --jobs; a read that fails after some chunks ran is an error
// and writes nothing; a cancelled run says so.
func TestSplitInputFileRead(t *testing.T) {
	var chunks []string
	for i := range 5 {
		chunks = append(chunks, fmt.Sprintf("HloModule m%d\nENTRY e {\n  ROOT p = f32[%d] parameter(0)\n}\n", i, i+1))
	}
	src := strings.Join(chunks, "// -----\n")
	for _, jobs := range []string{"--jobs=1", "--jobs=3"} {
		_, errOut, code := hloOpt(t, src, "--split-input-file", "--timing", jobs, "-")
		require.Equal(t, 0, code, errOut)
		var stages []string
		for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
			stages = append(stages, strings.Fields(line)[2])
		}
		assert.Equal(t, strings.Repeat("parse output total ", 5), strings.Join(stages, " ")+" ", jobs)
	}

	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"--split-input-file", "-"},
		&Env{Stdin: iotest.TimeoutReader(strings.NewReader(src)), Stdout: &out, Stderr: &errb})
	assert.Equal(t, 1, code)
	assert.Empty(t, out.String(), "nothing written")
	assert.Equal(t, "hlo-opt: "+iotest.ErrTimeout.Error()+"\n", errb.String())

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out.Reset()
	errb.Reset()
	code = Main(ctx, []string{"--split-input-file", "-"}, &Env{Stdin: strings.NewReader(src), Stdout: &out, Stderr: &errb})
	assert.Equal(t, 1, code)
	assert.Empty(t, out.String(), "nothing written")
	assert.Equal(t, "hlo-opt: context canceled\n", errb.String())
}

func TestUsageAndUnknownPass(t *testing.T) {
	_, errOut, code := hloOpt(t, "", "--passes=stats,nope", example(t))
	assert.Equal(t, 1, code)
	assert.Equal(t, "hlo-opt: unknown pass \"nope\" (known: coalescing, cost, gpu-kernels, indexing, layout, layout-assign, stats, utilization, verify, xla-cost)\n", errOut)

	_, _, code = hloOpt(t, "", "--bogus-flag", example(t))
	assert.Equal(t, 2, code)
	var out, errb bytes.Buffer
	code = Main(context.Background(), nil, &Env{Stdout: &out, Stderr: &errb})
	assert.Equal(t, 2, code, "missing input")
	assert.Contains(t, errb.String(), "want exactly one input file")
	stats, errOut, code := hloOpt(t, "HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n", "--passes=stats")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, stats, "module m", "no file argument and stdin not a terminal: stdin is read")
	_, _, code = hloOpt(t, "", "--format=xml", example(t))
	assert.Equal(t, 2, code)
	_, _, code = hloOpt(t, "", "--emit=report", example(t))
	assert.Equal(t, 2, code, "a report needs passes")
	var help string
	help, errOut, code = hloOpt(t, "", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, help, "usage: hlo-opt [flags] [FILE|-|DIR]", "-h prints on stdout")
	assert.Empty(t, errOut)
	_, errOut, code = hloOpt(t, "", "--help")
	assert.Equal(t, 0, code)
	assert.Empty(t, errOut)
	help, errOut, code = hloOpt(t, "", "--bogus-flag")
	assert.Equal(t, 2, code)
	assert.Empty(t, help, "a usage error goes to stderr")
	assert.Contains(t, errOut, "usage: hlo-opt")
	help, _, code = hloOpt(t, "", "shape-info", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, help, "usage: hlo-opt shape-info")

	list, _, code := hloOpt(t, "", "--list-passes")
	assert.Equal(t, 0, code)
	assert.Contains(t, list, "stats         count instructions by opcode")
	assert.Contains(t, list, "verify        check operands")

	_, errOut, code = hloOpt(t, "", filepath.Join(t.TempDir(), "missing.hlo"))
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no such file")
}

func TestEmitTimingDumpAndDOT(t *testing.T) {
	both, errOut, code := hloOpt(t, "", "--passes=stats", "--emit=both", "--timing", example(t))
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(both, "HloModule softmax"))
	assert.Contains(t, both, "\nstats: module softmax:")
	assert.Contains(t, errOut, "hlo-opt: timing: pass stats ")
	assert.Contains(t, errOut, "hlo-opt: timing: parse ")
	assert.Contains(t, errOut, "hlo-opt: timing: output ")
	assert.Contains(t, errOut, "hlo-opt: timing: total ")
	// A pass that changes the module is verified after, on a line of its
	// own.
	_, errOut, code = hloOpt(t, "", "--passes=layout-assign", "--relayout", "--timing", example(t))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "hlo-opt: timing: pass layout-assign ")
	assert.Contains(t, errOut, "hlo-opt: timing: verify after layout-assign ")

	dir := t.TempDir()
	_, errOut, code = hloOpt(t, "", "--passes=verify,stats", "--dump-dir", dir, example(t))
	require.Equal(t, 0, code, errOut)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"00-input.hlo", "01-verify.hlo", "02-stats.hlo"}, names)

	dot, _, code := hloOpt(t, "", "--format=dot", example(t))
	assert.Equal(t, 0, code)
	assert.Contains(t, dot, "strict digraph softmax {")
	assert.Contains(t, dot, `main -> fused_exp [label="fusion"];`)
	assert.Contains(t, dot, `main -> max_f32 [label="to_apply"];`)

	dot, _, code = hloOpt(t, "", "--format=dot", "--computation=main", example(t))
	assert.Equal(t, 0, code)
	assert.Contains(t, dot, `label="exp.fusion\nfusion kLoop, 5 ops\nf32[8,128]"`, "a fusion is one node by default")
	assert.NotContains(t, dot, "cluster")
	dot, _, code = hloOpt(t, "", "--format=dot", "--computation=main", "--expand-fusions", example(t))
	assert.Equal(t, 0, code)
	assert.Contains(t, dot, `subgraph "cluster_exp.fusion" {`)
	assert.Contains(t, dot, `ltail="cluster_exp.fusion"`, "the cluster is linked to its fusion")
	dot, _, code = hloOpt(t, "", "--format=dot", "--computation=main", "--max-nodes=3", example(t))
	assert.Equal(t, 0, code)
	assert.Contains(t, dot, `"3 of 7 instructions drawn, the 3 nearest the root; 4 cut (--max-nodes)"`)
	_, errOut, code = hloOpt(t, "", "--format=dot", "--computation=nope", example(t))
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `no computation "nope"`)

	logs, errOut, code := hloOpt(t, "", "--passes=stats", "--log-level=debug", "--log-format=json", example(t))
	assert.Equal(t, 0, code)
	assert.NotEmpty(t, logs)
	assert.Contains(t, errOut, `"msg":"pass done"`)
}

func TestSubcommandTable(t *testing.T) {
	var got []string
	register("test-echo", subcommand{Synopsis: "test-echo ARGS", Run: func(_ context.Context, env *Env, args []string) int {
		got = args
		return 3
	}})
	defer delete(subcommands, "test-echo")
	_, _, code := hloOpt(t, "", "test-echo", "a", "b")
	assert.Equal(t, 3, code)
	assert.Equal(t, []string{"a", "b"}, got)
	assert.Panics(t, func() { register("test-echo", subcommand{}) })
	help, _, _ := hloOpt(t, "", "-h")
	assert.Contains(t, help, "hlo-opt test-echo ARGS")
}

func TestFormatHTML(t *testing.T) {
	_, errOut, code := hloOpt(t, "", "--format=html", "--passes=stats", example(t))
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--format=html draws the layout pass's memory report: add layout to --passes")

	out := filepath.Join(t.TempDir(), "page.html")
	_, errOut, code = hloOpt(t, "", "--format=html", "--passes=layout,cost", "--device=tpu-v5e", "-o", out, example(t))
	require.Equal(t, 0, code, errOut)
	s := string(hlotest.ReadFile(t, out))
	assert.True(t, strings.HasPrefix(s, "<!DOCTYPE html>"))
	assert.Contains(t, s, "<title>Memory of softmax</title>")
	assert.Contains(t, s, `id="verdict" class="verdict fits"`)
	assert.Contains(t, s, `<svg class="chart"`)
	assert.Contains(t, s, `id="fusions"`, "the cost pass ran: the fusion table")
}

func TestShapeInfoFormats(t *testing.T) {
	// Not a terminal: JSON, as scripts read it.
	out, errOut, code := hloOpt(t, "", "shape-info", "bf16[8,16]")
	require.Equal(t, 0, code, errOut)
	var info struct {
		Shape string `json:"shape"`
		Bytes int64  `json:"bytes"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	assert.Equal(t, "bf16[8,16]{1,0:T(8,128)(2,1)}", info.Shape)
	assert.Equal(t, int64(2048), info.Bytes)

	// An SMEM scalar as XLA prints it after optimization: 4 bytes, untiled,
	// as XLA's buffer assignment and the memory report size it.
	out, errOut, code = hloOpt(t, "", "shape-info", "u32[]{:S(2)}")
	require.Equal(t, 0, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	assert.Equal(t, "u32[]{:S(2)}", info.Shape)
	assert.Equal(t, int64(4), info.Bytes)

	out, errOut, code = hloOpt(t, "", "shape-info", "bf16[8,16]")
	require.Equal(t, 0, code, errOut)
	text, errOut, code := hloOpt(t, "", "shape-info", "--format=text", "--index=1,2", "bf16[8,16]")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(text, "bf16[8,16]{1,0:T(8,128)(2,1)} on tpu(pred=1B)\n"), text)
	assert.Contains(t, text, "size          2.0KiB (2048 bytes), unpadded 256B, 8.0x expansion")
	assert.Contains(t, text, "rule          tpu-16bit-8x128-2x1")
	assert.Contains(t, text, "linear index  5")
	assert.Contains(t, text, "Suggestions:\n  1. minor dim 1 (size 16) pads to 128")

	js, _, code := hloOpt(t, "", "shape-info", "--format=json", "bf16[8,16]")
	assert.Equal(t, 0, code)
	assert.Equal(t, out, js)
	_, errOut, code = hloOpt(t, "", "shape-info", "--format=xml", "bf16[8,16]")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--format=xml")

	svg := filepath.Join(t.TempDir(), "a.svg")
	_, errOut, code = hloOpt(t, "", "shape-info", "--svg", svg, "f32[1000]")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, string(hlotest.ReadFile(t, svg)), `<svg xmlns="http://www.w3.org/2000/svg" width="1136"`)
}
