package hlo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIndexHints(t *testing.T) {
	m, err := Parse([]byte("a {\n  ROOT p = f32[] parameter(0)\n}\n\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT n = f32[] negate(x)\n}\n"))
	require.NoError(t, err)
	a, e := m.Computations[0], m.Computations[1]
	assert.Equal(t, 0, m.ComputationIndex(a))
	assert.Equal(t, 1, m.ComputationIndex(e))
	x, n := e.Instructions[0], e.Instructions[1]
	assert.Equal(t, 1, e.InstructionIndex(n))

	// Stale hints (moved by hand) fall back to a search.
	m.Computations[0], m.Computations[1] = e, a
	assert.Equal(t, 0, m.ComputationIndex(e))
	assert.Equal(t, 1, m.ComputationIndex(a))
	e.Instructions[0], e.Instructions[1] = n, x
	assert.Equal(t, 0, e.InstructionIndex(n))
	assert.Equal(t, 1, e.InstructionIndex(x))

	// Absent or nil.
	assert.Equal(t, -1, m.ComputationIndex(&Computation{Name: "stranger"}))
	assert.Equal(t, -1, m.ComputationIndex(nil))
	assert.Equal(t, -1, a.InstructionIndex(x))
	assert.Equal(t, -1, a.InstructionIndex(nil))
}
