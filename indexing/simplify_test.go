package indexing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The four examples of the seed's "Indexing Map Simplifier" section. The
// seed writes products as "16d0"; MLIR's notation is "d0 * 16".
func TestSimplifySeedExamples(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "example 1: d1 floordiv 16 vanishes, d1 mod 16 is d1",
			in:   "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]",
			want: "(d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 14]",
		},
		{
			name: "example 2: delinearising a linear index",
			in: "(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 100, " +
				"((d0 * 100 + d1 * 10 + d2) mod 100) floordiv 10, d2 mod 10), " +
				"domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
			want: "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
		},
		{
			name: "example 3: multiples of the divisor leave the division",
			in: "(d0, d1, d2) -> ((d0 * 16 + d1 * 4 + d2) floordiv 8, (d0 * 16 + d1 * 4 + d2) mod 8), " +
				"domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
			want: "(d0, d1, d2) -> (d0 * 2 + (d1 * 4 + d2) floordiv 8, (d1 * 4 + d2) mod 8), " +
				"domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
		},
		{
			// Erratum 4: the seed's "-(-11d0 - d1 + 109) floordiv 11 + 9"
			// equals d0 only when the minus applies to the quotient.
			name: "example 4 (SEED-ERRATA 4): negated quotient",
			in:   "(d0, d1) -> (-((d0 * -11 - d1 + 109) floordiv 11) + 9), domain: d0 in [0, 9], d1 in [0, 10]",
			want: "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 10]",
		},
		{
			// Erratum 4: with MLIR's precedence the unary minus binds to
			// the dividend, a different function that does not reduce to d0.
			name: "example 4 as printed (SEED-ERRATA 4): unary minus binds first",
			in:   "(d0, d1) -> (-(d0 * -11 - d1 + 109) floordiv 11 + 9), domain: d0 in [0, 9], d1 in [0, 10]",
			want: "(d0, d1) -> (d0 + (d1 - 109) floordiv 11 + 9), domain: d0 in [0, 9], d1 in [0, 10]",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SimplifyLine(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// The seed's chained reshapes f32[10,10,10] -> f32[50,20] -> f32[10,10,10]
// compose and simplify to the identity.
func TestSimplifyChainedReshapesCancel(t *testing.T) {
	// reshape2: output (10,10,10) -> its operand (50,20).
	reshape2, err := ParseIndexingMap("(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 20, " +
		"(d0 * 100 + d1 * 10 + d2) mod 20), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]")
	require.NoError(t, err)
	// reshape1: output (50,20) -> its operand (10,10,10).
	reshape1, err := ParseIndexingMap("(d0, d1) -> ((d0 * 20 + d1) floordiv 100, " +
		"((d0 * 20 + d1) mod 100) floordiv 10, d1 mod 10), domain: d0 in [0, 49], d1 in [0, 19]")
	require.NoError(t, err)
	composed, err := Compose(reshape2, reshape1)
	require.NoError(t, err)
	assert.Equal(t, "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
		composed.Simplify().String())
}

// The seed's constraint rules: rewriting ranges, removing constraints that
// always hold (d0 + s0 in [0, 20] for d0 in [0, 5], s0 in [1, 3]).
func TestSimplifyConstraints(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "always satisfied constraint is removed",
			in:   "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 5], s0 in [1, 3], d0 + s0 in [0, 20]",
			want: "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 5], s0 in [1, 3]",
		},
		{
			name: "constant moves to the bounds and the variable bound narrows",
			in:   "(d0, d1) -> (d0, d1), domain: d0 in [0, 99], d1 in [0, 9], d0 + 5 in [10, 20]",
			want: "(d0, d1) -> (d0, d1), domain: d0 in [5, 15], d1 in [0, 9]",
		},
		{
			name: "floordiv constraint becomes a range of its dividend",
			in:   "(d0, d1) -> (d0), domain: d0 in [0, 99], d1 in [0, 99], (d0 + d1) floordiv 4 in [2, 3]",
			want: "(d0, d1) -> (d0), domain: d0 in [0, 15], d1 in [0, 15], d0 + d1 in [8, 15]",
		},
		{
			name: "multiplied constraint",
			in:   "(d0, d1) -> (d0), domain: d0 in [0, 99], d1 in [0, 99], d0 * 4 + d1 * 8 in [3, 17]",
			want: "(d0, d1) -> (d0), domain: d0 in [0, 4], d1 in [0, 2], d0 + d1 * 2 in [1, 4]",
		},
		{
			name: "negated variable",
			in:   "(d0) -> (d0), domain: d0 in [0, 99], -d0 + 5 in [0, 3]",
			want: "(d0) -> (d0), domain: d0 in [2, 5]",
		},
		{
			name: "constraint that cannot hold",
			in:   "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 in [30, 40]",
			want: "KNOWN EMPTY",
		},
		{
			name: "mod constraint narrows the variable and keeps the residue",
			in:   "(d0) -> (d0 floordiv 4), domain: d0 in [1, 30], d0 mod 4 in [0, 0]",
			want: "(d0) -> (d0 floordiv 4), domain: d0 in [4, 28], d0 mod 4 in [0, 0]",
		},
		{
			name: "mod constraint with no value in range",
			in:   "(d0) -> (d0), domain: d0 in [1, 3], d0 mod 8 in [0, 0]",
			want: "KNOWN EMPTY",
		},
		{
			name: "constraint bounds are used to simplify results",
			in:   "(d0, d1) -> ((d0 + d1) mod 16), domain: d0 in [0, 99], d1 in [0, 99], d0 + d1 in [0, 15]",
			want: "(d0, d1) -> (d0 + d1), domain: d0 in [0, 15], d1 in [0, 15], d0 + d1 in [0, 15]",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SimplifyLine(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
