package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// TestCorpusJobsDeterminism runs every pass (layout for TPU, then the
// analyses, as a user chains them) over every corpus module with --jobs=1
// and --jobs=8 and requires byte-identical JSON, errors and exit codes.
func TestCorpusJobsDeterminism(t *testing.T) {
	compared := 0
	files := hlotest.RunCorpusFiles(t, func(t *testing.T, f string) {
		args := []string{"--split-input-file", "--allow-truncated", "--format=json", "--passes=" + allPassesFlag, f}
		out1, err1, code1 := hloOpt(t, "", append([]string{"--jobs=1"}, args...)...)
		out8, err8, code8 := hloOpt(t, "", append([]string{"--jobs=8"}, args...)...)
		assert.Equal(t, 0, code1, err1)
		assert.Equal(t, code1, code8)
		assert.Equal(t, err1, err8, "errors are reported in the same order")
		assert.True(t, out1 == out8, "JSON differs between --jobs=1 and --jobs=8")
		if code1 == 0 {
			compared++
			assert.NotEmpty(t, out1)
		}
	})
	t.Logf("%d of %d corpus files verified cleanly", compared, len(files))
	assert.Positive(t, compared)
}

// allPassesFlag chains every pass as a user does: layout first, so the
// analyses see laid-out modules with the copies it inserted.
const allPassesFlag = "layout,indexing,coalescing,utilization,cost,stats,verify"

// TestCorpusAllPasses runs every pass over every corpus module for the GPU
// target (TestCorpusJobsDeterminism covers TPU): each must analyse
// without error.
func TestCorpusAllPasses(t *testing.T) {
	hlotest.RunCorpusFiles(t, func(t *testing.T, f string) {
		_, errOut, code := hloOpt(t, "", "--split-input-file", "--allow-truncated", "--target=gpu",
			"--passes="+allPassesFlag, "--format=json", f)
		assert.Equal(t, 0, code, errOut)
	})
}

// TestXLATodaySpellings prints each module today's XLA printed
// (testdata/xla-today) back byte for byte, and runs every pass over it as
// it was printed, with "%t#k" operands,
// and in the long spelling (--print=classic: a get-tuple-element
// instruction for each, operands with shapes): the reports must be
// byte-identical, text and JSON, verify must pass, and --jobs=1 and
// --jobs=8 must agree.
func TestXLATodaySpellings(t *testing.T) {
	hlotest.RunXLATodayDumps(t, func(t *testing.T, d hlotest.XLAToday) {
		backend, src := d.Backend, d.Src
		same, errOut, code := hloOpt(t, string(src), "-")
		require.Equal(t, 0, code, errOut)
		assert.True(t, same == string(src), "hlo-opt does not print the dump back byte for byte")
		long, errOut, code := hloOpt(t, string(src), "--print=classic", "-")
		require.Equal(t, 0, code, errOut)
		if strings.Contains(string(src), "#") {
			assert.NotEqual(t, string(src), long)
		}
		target := "tpu"
		switch {
		case strings.HasPrefix(backend, "gpu"):
			target = "gpu"
		case backend == "cpu":
			target = "cpu"
		}
		for _, format := range []string{"text", "json"} {
			args := []string{"--target=" + target, "--passes=" + allPassesFlag, "--format=" + format, "-"}
			today, errToday, code := hloOpt(t, string(src), args...)
			require.Equal(t, 0, code, errToday)
			classic, errClassic, code := hloOpt(t, long, args...)
			require.Equal(t, 0, code, errClassic)
			assert.True(t, today == classic, "%s reports differ between the two spellings", format)
			jobs8, _, _ := hloOpt(t, string(src), append([]string{"--jobs=8"}, args...)...)
			assert.True(t, today == jobs8, "%s reports differ between --jobs=1 and --jobs=8", format)
		}
	})
}
