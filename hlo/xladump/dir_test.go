package xladump_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/xladump"
)

// The dump directories of testdata/dumps are XLA's own (the ground-truth
// generator's --dump-dir: one program compiled at two batch sizes in one
// process): Find lists the two after-optimizations modules of each, with
// their buffer assignments and memory-usage reports, and nothing else.
func TestFind(t *testing.T) {
	for _, tc := range []struct {
		backend, platform string
		names             []string
	}{
		{"tpu-v5e", "", []string{"module_0000.jit_transformer_fwd.cl_1014260217", "module_0018.jit_transformer_fwd.cl_1014260217"}},
		{"cpu", "cpu", []string{"module_0000.jit_transformer_fwd.cpu", "module_0002.jit_transformer_fwd.cpu"}},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			dir := hlotest.TestdataPath(t, "dumps", tc.backend)
			ms, err := xladump.Find(dir)
			require.NoError(t, err)
			var names []string
			for _, m := range ms {
				names = append(names, m.Name)
				assert.FileExists(t, m.Path)
				assert.FileExists(t, m.BufferAssignment)
				assert.FileExists(t, m.MemoryUsageReport)
				assert.FileExists(t, m.LiveRange)
				assert.FileExists(t, m.Before)
				assert.Equal(t, tc.platform, m.Platform())
			}
			assert.Equal(t, tc.names, names)
		})
	}
	assert.Equal(t, "gpu", xladump.Module{Name: "module_0001.jit_f.sm_9.0a_gpu"}.Platform())
	_, err := xladump.Find(filepath.Join(t.TempDir(), "nope"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestParseMemoryUsageReport(t *testing.T) {
	src := hlotest.ReadTestdata(t, "dumps", "tpu-v5e", "module_0000.jit_transformer_fwd.cl_1014260217.after_optimizations-memory-usage-report.txt")
	got, err := xladump.ParseMemoryUsageReport(string(src))
	require.NoError(t, err)
	assert.Equal(t, []xladump.Space{{"default", 0, 1896448}, {"vmem", 1, 1639424}, {"smem", 2, 8}}, got)

	_, err = xladump.ParseMemoryUsageReport("Memory Space: default\n")
	assert.ErrorContains(t, err, "line 1: expected")
	_, err = xladump.ParseMemoryUsageReport("Total bytes: 5\n")
	assert.ErrorContains(t, err, "before \"Total bytes:\"")
	_, err = xladump.ParseMemoryUsageReport("nothing\n")
	assert.Error(t, err)
}
