package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

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
