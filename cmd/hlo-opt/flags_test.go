package main

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	} {
		ps, err := reg.Parse(tc.passes)
		require.NoError(t, err)
		cfg, err := newPassConfig(&options{device: tc.device, target: tc.target}, ps)
		require.NoError(t, err)
		assert.Equal(t, tc.want, cfg.layout.Target.Backend, "--passes=%s --device=%s --target=%s", tc.passes, tc.device, tc.target)
	}
}
