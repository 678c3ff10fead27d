package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// allAnalyses is every analysis of make scale, the reports spooled as
// each pass ends.
const allAnalyses = "--passes=verify,stats,indexing,coalescing,utilization,cost,xla-cost,layout"

// spoolInFiles makes every spool of the test move its reports to a file.
func spoolInFiles(t *testing.T) {
	old := spoolMemory
	spoolMemory = 0
	t.Cleanup(func() { spoolMemory = old })
}

// The reports spooled to a file read as those kept in memory, on every
// module of testdata with its flags, with the module printed first
// (--emit=both), in any order of passes, with any jobs.
func TestSpoolInFileMatchesMemory(t *testing.T) {
	inputs, err := filepath.Glob(hlotest.TestdataPath(t, "*", "*.hlo"))
	require.NoError(t, err)
	require.NotEmpty(t, inputs)
	run := func(args ...string) string {
		out, errOut, code := hloOpt(t, "", args...)
		if code != 0 {
			return errOut
		}
		return out
	}
	for _, in := range inputs {
		args := append(inputFlags(t, in), "--emit=both", allAnalyses, in)
		inMemory := run(args...)
		spoolInFiles(t)
		assert.Equal(t, inMemory, run(args...), "%s", in)
		spoolMemory = 1 << 20
	}
	in := hlotest.TestdataPath(t, "layout", "gpu_train_step.hlo")
	want := run("--passes=layout,xla-cost,indexing,stats", in)
	spoolInFiles(t)
	assert.Equal(t, want, run("--jobs=3", "--passes=layout,xla-cost,indexing,stats", in))
}

// A run that fails after reports went to the spool writes nothing, keeps
// no file open and leaves nothing in the temporary directory: here it is
// interrupted once stats ended (its report spooled), before xla-cost.
func TestFailedRunLeavesNoSpool(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	spoolInFiles(t)
	openFiles := func() int {
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd")
		}
		return len(fds)
	}
	in := hlotest.TestdataPath(t, "layout", "gpu_train_step.hlo")
	dst := filepath.Join(t.TempDir(), "out.txt")
	before := openFiles()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelWriter{on: "timing: pass stats", cancel: cancel}
	code := Main(ctx, []string{"--timing", "--passes=stats,xla-cost", "-o", dst, in}, &Env{Stdout: os.Stdout, Stderr: stderr})
	assert.Equal(t, 1, code, stderr.String())
	assert.Contains(t, stderr.String(), "context canceled")
	assertNotExist(t, dst, "no output")
	assert.Empty(t, dirEntries(t, tmp), "nothing left in TMPDIR")
	assert.Equal(t, before, openFiles(), "the spool's file is closed")

	_, errOut, code := hloOpt(t, "", "--passes=stats,xla-cost", "-o", dst, in)
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, dirEntries(t, tmp), "nothing left in TMPDIR after a run that succeeds")
	assert.Equal(t, before, openFiles())
	out, err := os.ReadFile(dst)
	require.NoError(t, err)
	assert.Contains(t, string(out), "stats: module ")
}

// cancelWriter holds what is written and calls cancel once a write holds
// on.
type cancelWriter struct {
	bytes.Buffer
	on     string
	cancel func()
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.on) {
		w.cancel()
	}
	return w.Buffer.Write(p)
}

// dirEntries lists what dir holds.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
