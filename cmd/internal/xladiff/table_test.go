package xladiff

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTallyAndTable(t *testing.T) {
	tl := NewTally()
	tl.Add(&Result{Backend: "tpu-v5e", Outcomes: []Outcome{
		{Figure: Parse, Agree: true},
		{Figure: PeakExact, Agree: false, XLA: 100, Ours: 104},
		{Figure: Peak5, Agree: true, XLA: 100, Ours: 104},
		{Figure: Sizes, Agree: false, Count: 10, Equal: 9},
	}})
	tl.Add(&Result{Backend: "tpu-v5e", Outcomes: []Outcome{
		{Figure: Parse, Agree: true},
		{Figure: PeakExact, Agree: true},
		{Figure: Peak5, Agree: true},
		{Figure: Sizes, Agree: true, Count: 10, Equal: 10},
	}})
	tl.Add(&Result{Backend: "cpu", Outcomes: []Outcome{{Figure: Parse, Agree: false}}})

	assert.Equal(t, Cell{N: 2, Agree: 1}, tl.Cell("tpu-v5e", PeakExact))
	assert.Equal(t, 0.95, tl.Cell("tpu-v5e", Sizes).Share(), "items, not compiles")
	assert.Equal(t, Cell{N: 3, Agree: 2}, tl.Cell("all", Parse))
	assert.Equal(t, -1.0, tl.Cell("cpu", Sizes).Share(), "not compared")
	assert.Equal(t, []string{"cpu"}, tl.Met(Criterion{Parse, 1}))
	assert.Equal(t, []string{"tpu-v5e"}, tl.Met(Criterion{PeakExact, 0.95}))
	assert.Empty(t, tl.Met(Criterion{Peak5, 0.99}))

	var b strings.Builder
	require.NoError(t, tl.WriteTable(&b))
	out := b.String()
	assert.Contains(t, out, "| figure | tpu-v5e | cpu | all |\n")
	assert.Contains(t, out, "| compiles | 2 | 1 | 3 |\n")
	assert.Contains(t, out, "| peak exact | 1/2 (50.0%) | - | 1/2 (50.0%) |\n")
	assert.Contains(t, out, "| buffer sizes | 19/20 (95.0%) | - | 19/20 (95.0%) |\n")
	assert.Contains(t, out, "- parse on >= 100.0%: fails on cpu\n")
	assert.Contains(t, out, "- xla-cost flops on >= 95.0%: not compared\n")
}

func TestPercentNeverRoundsUpToAll(t *testing.T) {
	assert.Equal(t, "99.9%", percent(9999.0/10000))
	assert.Equal(t, "100.0%", percent(1))
}
