package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/cmd/internal/xladiff"
)

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"-hlo-opt", "x"}, {"dir"}, {"-hlo-opt", "x", "-jobs", "0", "dir"}, {"-nope"}} {
		var out, errOut bytes.Buffer
		assert.Equal(t, 2, run(context.Background(), args, &out, &errOut), "%v", args)
		assert.Empty(t, out.String())
	}
}

// TestUnknownBackendOrCompile: a directory that is no backend's, or has no
// compile in it, is an error (exit 1) naming it, and writes no results.
func TestUnknownBackendOrCompile(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "r.json")
	for _, d := range []string{filepath.Join(dir, "tpu-v9"), filepath.Join(dir, "cpu")} {
		var out, errOut bytes.Buffer
		assert.Equal(t, 1, run(context.Background(), []string{"-hlo-opt", "/nonexistent/hlo-opt", "-results", results, d}, &out, &errOut))
		assert.Contains(t, errOut.String(), d)
		_, err := os.Stat(results)
		assert.True(t, os.IsNotExist(err))
	}
}

// runOnReproducers runs the command with args (a missing hlo-opt among
// them) on every compile of testdata/xladiff, which it returns with the
// results it wrote.
func runOnReproducers(t *testing.T, args ...string) (dirs []string, rs []*xladiff.Result, stdout string) {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "xladiff", "*", "*", "after_optimizations.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for i := range dirs {
		dirs[i] = filepath.Dir(dirs[i])
	}
	results := filepath.Join(t.TempDir(), "r.json")
	var out, errOut bytes.Buffer
	args = append(append([]string{"-hlo-opt", "/nonexistent/hlo-opt", "-results", results}, args...), dirs...)
	require.Equal(t, 0, run(context.Background(), args, &out, &errOut), errOut.String())
	src, err := os.ReadFile(results)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(src, &rs))
	require.Len(t, rs, len(dirs))
	return dirs, rs, out.String()
}

// TestCompareAllKeepsOrder: the results follow the directories' order
// whatever the jobs, and a missing command is every figure's disagreement.
func TestCompareAllKeepsOrder(t *testing.T) {
	dirs, rs, out := runOnReproducers(t, "-jobs", "3")
	assert.Contains(t, out, "| parse |")
	for i, r := range rs {
		assert.Equal(t, dirs[i], r.Dir)
		assert.Equal(t, filepath.Base(dirs[i]), r.Backend)
		p, ok := r.Outcome(xladiff.Parse)
		assert.True(t, ok)
		assert.False(t, p.Agree)
	}
}

// TestLayoutsOnly: -layouts compares the TPU layouts alone (a missing
// command disagrees on them), and nothing on the other backends.
func TestLayoutsOnly(t *testing.T) {
	_, rs, _ := runOnReproducers(t, "-layouts")
	for _, r := range rs {
		if !strings.HasPrefix(r.Backend, "tpu") {
			assert.Empty(t, r.Outcomes, r.Dir)
			continue
		}
		require.Len(t, r.Outcomes, 1, r.Dir)
		assert.Equal(t, xladiff.Layouts, r.Outcomes[0].Figure)
		assert.False(t, r.Outcomes[0].Agree)
	}
}
