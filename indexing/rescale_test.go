package indexing

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRescaleSymbols(t *testing.T) {
	m := mustParse(t, "(d0)[s0, s1] -> (d0 + s0, s1), domain: d0 in [0, 9], s0 in [0, 20], s1 in [0, 7], "+
		"s0 mod 6 in [3, 3], d0 + s0 in [0, 12]")
	got, changed := m.RescaleSymbols()
	assert.True(t, changed)
	assert.Equal(t, "(d0)[s0, s1] -> (d0 + s0 * 6 + 3, s1), domain: d0 in [0, 9], s0 in [0, 2], s1 in [0, 7], "+
		"d0 + s0 * 6 + 3 in [0, 12]", got.String())

	_, changed = mustParse(t, "(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 9], rt0 in [0, 9], rt0 mod 2 in [0, 0]").RescaleSymbols()
	assert.False(t, changed, "runtime variables are not rescaled")

	empty, _ := mustParse(t, "(d0)[s0] -> (s0), domain: d0 in [0, 9], s0 in [4, 6], s0 mod 8 in [1, 1]").RescaleSymbols()
	assert.True(t, empty.IsKnownEmpty())
}

// relation returns the sorted set of (dims, results) pairs of a map with one
// range variable over the box of dims.
func relation(m *IndexingMap, dims []Variable) [][]int64 {
	var out [][]int64
	sym := Interval{-40, 40}
	forEachPoint(dims, sym, func(d, s []int64) {
		if m.Contains(d, s, nil) {
			out = append(out, append(slices.Clone(d), m.Evaluate(d, s, nil)...))
		}
	})
	slices.SortFunc(out, slices.Compare)
	return slices.CompactFunc(out, slices.Equal)
}

// On random maps with a residue constraint on s0, rescaling keeps the
// relation from domain points to results.
func TestRescaleSymbolsKeepsRelation(t *testing.T) {
	g := &mapGen{r: rand.New(rand.NewPCG(7, 8))}
	rescaled := 0
	for range 1000 {
		m := g.indexingMap()
		mod := g.r.Int64N(4) + 2
		m, err := m.AddConstraint(Mod(Sym(0), mod), Point(g.r.Int64N(mod)))
		require.NoError(t, err)
		got, changed := m.RescaleSymbols()
		if changed {
			rescaled++
		}
		require.Equal(t, relation(m, m.dims), relation(got, m.dims), "%s\n%s", m, got)
	}
	assert.Positive(t, rescaled)
}
