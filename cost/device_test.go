package cost

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPresetsValidate(t *testing.T) {
	require.Equal(t, []string{"a100", "h100", "h200", "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e"}, PresetNames())
	for _, n := range PresetNames() {
		d, err := Preset(n)
		require.NoError(t, err, n)
		assert.NoError(t, d.Validate(), n)
		assert.NotEmpty(t, d.Sources, n)
	}
	h, _ := Preset("h100")
	assert.InDelta(t, 3.35e12, h.MemoryBandwidth, 1)
	assert.InDelta(t, 989.4e12, h.PeakFlops, 1)
	assert.Equal(t, int64(132), h.Cores)
	_, err := Preset("v100")
	assert.ErrorContains(t, err, `unknown device "v100"`)
}

func TestReadDeviceWithBase(t *testing.T) {
	d, err := ReadDevice(strings.NewReader(`{"base": "h100", "name": "h100-pcie", "memory_bandwidth_bytes_per_s": 2.0e12, "cores": 114}`))
	require.NoError(t, err)
	assert.Equal(t, "h100-pcie", d.Name)
	assert.InDelta(t, 2.0e12, d.MemoryBandwidth, 1)
	assert.Equal(t, int64(114), d.Cores)
	assert.Equal(t, int64(32), d.WarpSize, "taken from the base preset")

	_, err = ReadDevice(strings.NewReader(`{"name": "x", "kind": "gpu"}`))
	assert.ErrorContains(t, err, "expected positive")
	_, err = ReadDevice(strings.NewReader(`{"base": "h100", "bogus": 1}`))
	assert.ErrorContains(t, err, "bogus")
}

func TestLookupDeviceFile(t *testing.T) {
	path := hlotest.WriteFile(t, t.TempDir(), "dev.json", `{"name": "small", "kind": "tpu", "memory_bandwidth_bytes_per_s": 1e11, "peak_flops_per_s": 1e13}`)
	open := func(p string) (io.ReadCloser, error) { return os.Open(p) }
	d, err := LookupDevice(path, open)
	require.NoError(t, err)
	assert.Equal(t, "small", d.Name)
	d, err = LookupDevice("a100", open)
	require.NoError(t, err)
	assert.Equal(t, int64(108), d.Cores)
	_, err = LookupDevice(filepath.Join(t.TempDir(), "missing.json"), open)
	assert.Error(t, err)
}
