package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// TestCorpusJobsDeterminism runs verify and stats over every corpus module
// with --jobs=1 and --jobs=8 and requires byte-identical JSON, errors and
// exit codes.
func TestCorpusJobsDeterminism(t *testing.T) {
	files := hlotest.CorpusFiles(t)
	compared := 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			args := []string{"--split-input-file", "--format=json", "--passes=stats,verify", f}
			out1, err1, code1 := hloOpt(t, "", append([]string{"--jobs=1"}, args...)...)
			out8, err8, code8 := hloOpt(t, "", append([]string{"--jobs=8"}, args...)...)
			assert.Equal(t, code1, code8)
			assert.Equal(t, err1, err8, "errors are reported in the same order")
			assert.True(t, out1 == out8, "JSON differs between --jobs=1 and --jobs=8")
			if code1 == 0 {
				compared++
				assert.NotEmpty(t, out1)
			}
		})
	}
	t.Logf("%d of %d corpus files verified cleanly", compared, len(files))
	assert.Positive(t, compared)
}
