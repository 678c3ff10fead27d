package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readProfile returns the protocol buffer of the gzipped pprof profile at
// path.
func readProfile(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err, "%s is a gzipped profile", path)
	b, err := io.ReadAll(z)
	require.NoError(t, err)
	return b
}

// TestProfiles: --cpuprofile and --memprofile write pprof profiles of the
// run (the heap profile names its sample types), leave the output as it
// is without them, and a path that cannot be created fails the run before
// it starts.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	plain, errOut, code := hloOpt(t, "", "--passes=stats,cost", example(t))
	require.Equal(t, 0, code, errOut)
	out, errOut, code := hloOpt(t, "", "--passes=stats,cost", "--cpuprofile", cpu, "--memprofile="+mem, example(t))
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, plain, out, "profiling changes nothing in the output")
	assert.Empty(t, errOut)
	assert.NotEmpty(t, readProfile(t, cpu))
	heap := readProfile(t, mem)
	for _, sample := range []string{"alloc_space", "inuse_space"} {
		assert.True(t, bytes.Contains(heap, []byte(sample)), "the heap profile has %s samples", sample)
	}

	_, errOut, code = hloOpt(t, "", "--passes=stats", "--cpuprofile", filepath.Join(dir, "no", "cpu.pprof"), example(t))
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no such file")
	_, errOut, code = hloOpt(t, "", "--passes=stats", "--memprofile", filepath.Join(dir, "no", "mem.pprof"), example(t))
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no such file")

	help, _, _ := hloOpt(t, "", "-h")
	assert.Contains(t, help, "-cpuprofile file")
	assert.Contains(t, help, "-memprofile file")
}
