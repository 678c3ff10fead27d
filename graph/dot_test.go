package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

func TestDOT(t *testing.T) {
	m, cs := hlotest.LoopsModule()
	out, err := DOT(cs["main"], DOTOptions{FusionClusters: true})
	require.NoError(t, err)
	s := string(out)
	assert.Contains(t, s, "strict digraph main {")
	assert.Contains(t, s, "subgraph cluster_fus {")
	assert.Contains(t, s, `"fus/fm"`, "cluster nodes are qualified by the fusion")
	assert.Contains(t, s, "p -> fus;")
	assert.Contains(t, s, `label="loop\nwhile f32[]"`)

	plain, err := DOT(cs["main"], DOTOptions{})
	require.NoError(t, err)
	assert.NotContains(t, string(plain), "cluster")

	cg, err := NewCallGraph(m).DOT()
	require.NoError(t, err)
	assert.Contains(t, string(cg), "strict digraph loops {")
	assert.Contains(t, string(cg), `main -> body [label="while_body"];`)
	assert.Contains(t, string(cg), `main -> br0 [label="conditional_branch"];`)

	again, err := NewCallGraph(m).DOT()
	require.NoError(t, err)
	assert.Equal(t, string(cg), string(again), "DOT output is deterministic")
}
