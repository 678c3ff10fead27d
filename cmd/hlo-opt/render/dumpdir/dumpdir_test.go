package dumpdir_test

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/cmd/hlo-opt/render/dumpdir"
	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/xladump"
	"github.com/hlo-opt/hlo-opt/layoutassign"
)

// summarize analyses a module of testdata/dumps/cpu for the CPU and sets
// it beside XLA's files.
func summarize(t testing.TB, m xladump.Module) dumpdir.Summary {
	t.Helper()
	mod, err := hlo.ParseFile(m.Path, hlotest.ReadFile(t, m.Path))
	require.NoError(t, err)
	mr, err := layoutassign.AnalyzeMemory(mod, layoutassign.CPU())
	require.NoError(t, err)
	ba, err := xladump.ParseBufferAssignment(string(hlotest.ReadFile(t, m.BufferAssignment)))
	require.NoError(t, err)
	usage, err := xladump.ParseMemoryUsageReport(string(hlotest.ReadFile(t, m.MemoryUsageReport)))
	require.NoError(t, err)
	return dumpdir.Summarize(dumpdir.Input{Module: m.Name, File: m.Path, Memory: mr, Buffers: ba, Usage: usage})
}

// XLA's CPU compile of transformer_fwd at batch 2: hlo-opt's buffer
// assignment gives XLA's allocations, class by class; at batch 8 the
// temporaries differ, and the summary says by how much.
func TestSummarizeAgainstXLA(t *testing.T) {
	mods, err := xladump.Find(hlotest.TestdataPath(t, "dumps", "cpu"))
	require.NoError(t, err)
	require.Len(t, mods, 2)
	s := summarize(t, mods[0])
	require.NotNil(t, s.XLA)
	assert.Empty(t, s.XLA.Differences)
	require.Len(t, s.XLA.Spaces, 1)
	hbm := s.XLA.Spaces[0]
	assert.Equal(t, hbm.XLA.Classes(), hbm.Ours.Classes(), "every class of XLA's stats")
	assert.Positive(t, hbm.XLA.ParameterBytes)
	assert.Nil(t, s.Fits, "no device, no verdict")

	s = summarize(t, mods[1])
	require.NotEmpty(t, s.XLA.Differences)
	hbm = s.XLA.Spaces[0]
	assert.NotEqual(t, hbm.XLA.PreallocatedTempBytes, hbm.Ours.PreallocatedTempBytes)
	assert.Contains(t, s.XLA.Differences[0], "HBM preallocated_temp allocation: XLA ")

	var text bytes.Buffer
	require.NoError(t, dumpdir.WriteText(&text, "dumps/cpu", []dumpdir.Summary{s, {Module: "bad", Error: "bad.txt:1:1: expected HloModule"}}))
	assert.Contains(t, text.String(), "bad: bad.txt:1:1: expected HloModule")
	assert.Contains(t, text.String(), "differs from XLA's buffer assignment")
}

func TestSummarizeError(t *testing.T) {
	s := dumpdir.Summarize(dumpdir.Input{Module: "m", File: "m.txt", Err: os.ErrNotExist})
	assert.Equal(t, os.ErrNotExist.Error(), s.Error)
	assert.Zero(t, s.PeakBytes)
}

// Example writes the summary of a directory of two modules.
func Example() {
	fits := true
	t := 12.5
	ss := []dumpdir.Summary{
		{Module: "module_0000.jit_step.cpu", PeakBytes: 2 << 20, HBMPeakBytes: 2 << 20, Fits: &fits, Percent: 0.1, TimeUS: &t, TimeDevice: "h100",
			TopPadding: "fusion.3", TopPaddingBytes: 4096, XLA: &dumpdir.Check{}},
		{Module: "module_0001.jit_bad.cpu", Error: "module_0001.jit_bad.cpu_after_optimizations.txt:3:7: expected ..."},
	}
	var b bytes.Buffer
	if err := dumpdir.WriteText(&b, "DIR", ss); err != nil {
		panic(err)
	}
	fmt.Print(b.String())
	// Output:
	// module                       peak  HBM peak  fits                  time  top padding       vs XLA
	// module_0000.jit_step.cpu  2.00MiB   2.00MiB  fits 0.1%  12.5 µs on h100  fusion.3 +4.0KiB  agrees
	// module_0001.jit_bad.cpu         -         -  -                        -  -                 failed
	//
	// 2 modules in DIR; peak is XLA's peak_memory_in_bytes as hlo-opt computes it, fits the HBM verdict (--device).
	// module_0001.jit_bad.cpu: module_0001.jit_bad.cpu_after_optimizations.txt:3:7: expected ...
}
