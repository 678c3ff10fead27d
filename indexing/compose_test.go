package indexing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustParse(t *testing.T, s string) *IndexingMap {
	t.Helper()
	m, err := ParseIndexingMap(s)
	require.NoError(t, err, s)
	return m
}

// Test vectors from XLA's indexing_map_test.cc (Composition_*).
func TestCompose(t *testing.T) {
	tests := []struct {
		name, consumer, producer, want string
	}{
		{
			name:     "permutation",
			producer: "(d0, d1)[s0, s1] -> (d1, d0, s1, s0), domain: d0 in [0, 3], d1 in [0, 3], s0 in [0, 1], s1 in [0, 1]",
			consumer: "(d0)[s0] -> (d0, s0), domain: d0 in [0, 3], s0 in [0, 3]",
			want:     "(d0)[s0, s1, s2] -> (s2, d0, s1, s0), domain: d0 in [0, 3], s0 in [0, 1], s1 in [0, 1], s2 in [0, 3]",
		},
		{
			name:     "restricted interval",
			producer: "(d0, d1)[s0, s1] -> (d1, d0, s1, s0), domain: d0 in [0, 4], d1 in [0, 5], s0 in [0, 6], s1 in [0, 1]",
			consumer: "(d0)[s0] -> (d0, s0), domain: d0 in [0, 9], s0 in [0, 7]",
			want:     "(d0)[s0, s1, s2] -> (s2, d0, s1, s0), domain: d0 in [0, 4], s0 in [0, 6], s1 in [0, 1], s2 in [0, 5]",
		},
		{
			name: "producer and consumer have constraints",
			producer: "(d0, d1)[s0, s1] -> (d1, d0, s1, s0), domain: d0 in [0, 49], d1 in [0, 59], " +
				"s0 in [0, 69], s1 in [0, 19], d0 mod 8 in [0, 0], s0 mod 3 in [1, 1]",
			consumer: "(d0)[s0] -> (d0, s0), domain: d0 in [0, 9], s0 in [0, 7], d0 + s0 in [0, 20], s0 mod 4 in [0, 0]",
			want: "(d0)[s0, s1, s2] -> (s2, d0, s1, s0), domain: d0 in [0, 9], s0 in [0, 69], s1 in [0, 19], " +
				"s2 in [0, 7], d0 + s2 in [0, 20], d0 mod 8 in [0, 0], s0 mod 3 in [1, 1], s2 mod 4 in [0, 0]",
		},
		{
			name: "runtime variables",
			producer: "(d0, d1, d2){rt0, rt1, rt2} -> (d0 + rt0, d1 + rt1, d2 + rt2), domain: " +
				"d0 in [0, 0], d1 in [0, 1], d2 in [0, 226], rt0 in [0, 0], rt1 in [0, 1], rt2 in [0, 226]",
			consumer: "(d0, d1)[s] -> (0, d1, s), domain: d0 in [0, 0], d1 in [0, 1], s in [0, 31]",
			want: "(d0, d1)[s]{rt0, rt1, rt2} -> (rt0, d1 + rt1, s + rt2), domain: " +
				"d0 in [0, 0], d1 in [0, 1], s in [0, 31], rt0 in [0, 0], rt1 in [0, 1], rt2 in [0, 226]",
		},
		{
			// XLA prints the first result as d0 + cs_0 * 2 + ps_0; summands
			// here are ordered by variable kind and index.
			name: "only runtime variables",
			producer: "(d0, d1){ps_0, ps_1} -> (d0 + ps_0, d1 + ps_1 * 4), domain: " +
				"d0 in [0, 24], d1 in [0, 15], ps_0 in [0, 2], ps_1 in [0, 1]",
			consumer: "(d0, d1){cs_0, cs_1} -> (d0 + cs_0 * 2, d1 + cs_1 * 3), domain: " +
				"d0 in [0, 24], d1 in [0, 15], cs_0 in [0, 25], cs_1 in [0, 16]",
			want: "(d0, d1){ps_0, ps_1, cs_0, cs_1} -> (d0 + ps_0 + cs_0 * 2, d1 + ps_1 * 4 + cs_1 * 3), domain: " +
				"d0 in [0, 24], d1 in [0, 15], ps_0 in [0, 2], ps_1 in [0, 1], cs_0 in [0, 25], cs_1 in [0, 16], " +
				"d0 + cs_0 * 2 in [0, 24], d1 + cs_1 * 3 in [0, 15]",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Compose(mustParse(t, tc.consumer), mustParse(t, tc.producer))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.String())
		})
	}
}

// XLA's Composition_ProducerAndConsumerHaveConstraints, after Simplify.
func TestComposeThenSimplify(t *testing.T) {
	producer := mustParse(t, "(d0, d1)[s0, s1] -> (d1, d0, s1, s0), domain: d0 in [0, 49], d1 in [0, 59], "+
		"s0 in [0, 69], s1 in [0, 19], d0 mod 8 in [0, 0], s0 mod 3 in [1, 1]")
	consumer := mustParse(t, "(d0)[s0] -> (d0, s0), domain: d0 in [0, 9], s0 in [0, 7], d0 + s0 in [0, 20], s0 mod 4 in [0, 0]")
	got, err := Compose(consumer, producer)
	require.NoError(t, err)
	assert.Equal(t, "(d0)[s0, s1, s2] -> (s2, d0, s1, s0), domain: d0 in [0, 8], s0 in [1, 67], s1 in [0, 19], "+
		"s2 in [0, 4], d0 mod 8 in [0, 0], s0 mod 3 in [1, 1], s2 mod 4 in [0, 0]", got.Simplify().String())
}

func TestComposeSpecialMaps(t *testing.T) {
	m := mustParse(t, "(d0) -> (d0), domain: d0 in [0, 9]")
	got, err := Compose(Undefined(), m)
	require.NoError(t, err)
	assert.True(t, got.IsUndefined())

	got, err = Compose(KnownEmpty(1, 0, 0, 1), m)
	require.NoError(t, err)
	assert.Equal(t, "KNOWN EMPTY", got.String())

	// A consumer result outside the producer's domain empties the map.
	got, err = Compose(mustParse(t, "(d0) -> (d0 + 20), domain: d0 in [0, 3]"), m)
	require.NoError(t, err)
	assert.Equal(t, "(d0) -> (d0 + 20), domain: d0 in [0, 3], d0 + 20 in [0, 9]", got.String())
	assert.True(t, got.Simplify().IsKnownEmpty())

	_, err = Compose(mustParse(t, "(d0) -> (d0, d0), domain: d0 in [0, 3]"), m)
	assert.ErrorContains(t, err, "consumer has 2 results, producer has 1 dimensions")
}

// Test vectors from XLA's RemoveUnusedSymbols_* tests.
func TestRemoveUnusedSymbols(t *testing.T) {
	tests := []struct {
		name, in, want string
		removed        []bool
	}{
		{
			name:    "constraint uses only the unused symbol",
			in:      "(d0, d1)[s0, s1] -> (d0, d1, s1), domain: d0 in [0, 49], d1 in [0, 59], s0 in [0, 69], s1 in [0, 19], s0 mod 3 in [0, 0]",
			want:    "(d0, d1)[s0] -> (d0, d1, s0), domain: d0 in [0, 49], d1 in [0, 59], s0 in [0, 19]",
			removed: []bool{true, false},
		},
		{
			name: "constraint uses the unused symbol and a used one",
			in: "(d0, d1)[s0, s1] -> (d1, d0, s1), domain: d0 in [0, 49], d1 in [0, 59], s0 in [0, 69], s1 in [0, 19], " +
				"s0 + s1 in [1, 100], s0 mod 3 in [0, 0]",
			want: "(d0, d1)[s0, s1] -> (d1, d0, s1), domain: d0 in [0, 49], d1 in [0, 59], s0 in [0, 69], s1 in [0, 19], " +
				"s0 + s1 in [1, 100], s0 mod 3 in [0, 0]",
			removed: []bool{false, false},
		},
		{
			name:    "runtime variables",
			in:      "(d0)[s0]{rt0, rt1} -> (d0 + rt1), domain: d0 in [0, 9], s0 in [0, 3], rt0 in [0, 4], rt1 in [0, 5]",
			want:    "(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 9], rt0 in [0, 5]",
			removed: []bool{true, true, false},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, removed := mustParse(t, tc.in).RemoveUnusedSymbols()
			assert.Equal(t, tc.want, got.String())
			assert.Equal(t, tc.removed, removed)
		})
	}
}
