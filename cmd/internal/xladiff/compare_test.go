package xladiff

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/xladump"
	"github.com/hlo-opt/hlo-opt/layoutassign"
)

func TestValueBytes(t *testing.T) {
	array := &layoutassign.ArrayJSON{Bytes: 4096}
	tuple := &layoutassign.ArrayJSON{
		Leaves: []layoutassign.ArrayJSON{{Index: []int64{0}, Bytes: 512}, {Index: []int64{1, 0}, Bytes: 2048}},
		Tables: []layoutassign.TupleTableJSON{{Index: []int64{}, Bytes: 512}, {Index: []int64{1}, Bytes: 32}},
	}
	for _, tc := range []struct {
		j     *layoutassign.ArrayJSON
		index []int64
		want  int64
		ok    bool
	}{
		{array, nil, 4096, true},
		{array, []int64{0}, 4096, false},
		{tuple, []int64{}, 512, true},
		{tuple, []int64{1}, 32, true},
		{tuple, []int64{1, 0}, 2048, true},
		{tuple, []int64{2}, 0, false},
		{nil, nil, 0, false},
	} {
		got, ok := valueBytes(tc.j, tc.index)
		assert.Equal(t, tc.ok, ok, "%v", tc.index)
		if tc.ok {
			assert.Equal(t, tc.want, got, "%v", tc.index)
		}
	}
}

func TestWithinAndClasses(t *testing.T) {
	assert.True(t, within(105, 100, 0.05))
	assert.False(t, within(106, 100, 0.05))
	assert.True(t, within(0, 0, 0.01))
	assert.False(t, within(1, 0, 0.01))

	o := classes(xladump.AllocationStats{Parameter: 10, Constant: 4, Total: 14},
		layoutassign.BufferStats{ParameterBytes: 10, ConstantBytes: 8, TotalBytes: 18})
	assert.False(t, o.Agree)
	assert.Equal(t, 6, o.Count)
	assert.Equal(t, 4, o.Equal)
	assert.Equal(t, "constant: XLA 4, ours 8; total: XLA 14, ours 18", o.Detail)
}

func TestLookupBackend(t *testing.T) {
	b, err := LookupBackend("cpu")
	require.NoError(t, err)
	assert.Equal(t, []string{"--target=cpu"}, b.Flags)
	_, err = LookupBackend("tpu-v9")
	assert.ErrorContains(t, err, `unknown backend "tpu-v9" (known: tpu-v5e, tpu-v6e, tpu-v4, h100, cpu)`)
}

// reproducer is one of testdata/xladiff's compiles.
func reproducer(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	dirs, err := filepath.Glob(filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "xladiff", "*", "tpu-v5e"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	return dirs[0]
}

// TestCompareWhenHloOptFails: a command that refuses everything is a
// disagreement on every figure, with its message; an unreadable compile is
// an error.
func TestCompareWhenHloOptFails(t *testing.T) {
	refuse := func(_ context.Context, args []string) ([]byte, []byte, int) {
		return nil, []byte("x.hlo:1:1: expected HloModule, found nothing\nmore"), 1
	}
	b, err := LookupBackend("tpu-v5e")
	require.NoError(t, err)
	r, err := Compare(context.Background(), reproducer(t), b, refuse)
	require.NoError(t, err)
	var figures []string
	for _, o := range r.Outcomes {
		assert.False(t, o.Agree, o.Figure)
		figures = append(figures, o.Figure)
	}
	assert.Equal(t, []string{Parse, Verify, RoundTrip, Arguments, Outputs, Aliased, PeakExact, Peak5, Sizes, Classes, Layouts}, figures)
	parse, _ := r.Outcome(Parse)
	assert.Equal(t, "after_optimizations.txt: exit 1: x.hlo:1:1: expected HloModule, found nothing", parse.Detail)
	assert.Len(t, r.Disagreements(), len(figures))
	_, ok := r.Outcome(Flops)
	assert.False(t, ok, "no xla-cost pass listed: flops not compared")

	_, err = Compare(context.Background(), t.TempDir(), b, refuse)
	assert.Error(t, err)
}

// TestCompareRoundTrip: a command that prints something else than the
// module read is a round-trip disagreement at the first differing line.
func TestCompareRoundTrip(t *testing.T) {
	printer := func(_ context.Context, args []string) ([]byte, []byte, int) {
		if len(args) == 1 {
			return []byte("HloModule other\n"), nil, 0
		}
		return nil, []byte("no"), 1
	}
	b, _ := LookupBackend("tpu-v5e")
	r, err := Compare(context.Background(), reproducer(t), b, printer)
	require.NoError(t, err)
	parse, _ := r.Outcome(Parse)
	trip, _ := r.Outcome(RoundTrip)
	assert.True(t, parse.Agree)
	assert.False(t, trip.Agree)
	assert.True(t, strings.HasPrefix(trip.Detail, "after_optimizations.txt: printed text differs at line 1"), trip.Detail)
}

// TestLayoutsListEveryMiss: a command that leaves the before-optimizations
// module as it is differs from XLA's layouts, and the outcome lists each
// array that differs, its kind first; CompareLayouts gives that figure
// alone.
func TestLayoutsListEveryMiss(t *testing.T) {
	echo := func(_ context.Context, args []string) ([]byte, []byte, int) {
		if !slices.Contains(args, "--relayout") {
			return nil, []byte("no"), 1
		}
		src, err := os.ReadFile(args[len(args)-1])
		if err != nil {
			return nil, []byte(err.Error()), 1
		}
		return src, nil, 0
	}
	b, err := LookupBackend("tpu-v5e")
	require.NoError(t, err)
	r, err := CompareLayouts(context.Background(), reproducer(t), b, echo)
	require.NoError(t, err)
	require.Len(t, r.Outcomes, 1)
	o := r.Outcomes[0]
	require.Equal(t, Layouts, o.Figure)
	require.False(t, o.Agree)
	assert.Len(t, o.List, o.Count-o.Equal)
	for _, m := range o.List {
		assert.True(t, strings.HasPrefix(m, "minor_to_major: ") || strings.HasPrefix(m, "tiles: "), m)
		assert.Contains(t, m, ": XLA ")
	}
}
