package layoutassign

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// TestRewriteSignatureKeepsResultTiles: with Relayout, a value a root tuple
// returns in the signature's order keeps the rule's tiles (T(8,128)(4,1)
// for s8), but the rewritten entry_computation_layout still states the
// signature's T(32,128)(4,1), as XLA's does (its result is a copy in that
// tiling); the parameters and the other results print as laid out.
func TestRewriteSignatureKeepsResultTiles(t *testing.T) {
	const ecl = "{(s8[64,256]{1,0:T(32,128)(4,1)})->(s8[64,256]{1,0:T(32,128)(4,1)}, s8[64,256]{0,1:T(8,128)(4,1)})}"
	m, err := hlo.ParseString(`HloModule m, entry_computation_layout=` + ecl + `

ENTRY e {
  p = s8[64,256] parameter(0)
  n = s8[64,256] negate(p)
  ROOT t = (s8[64,256], s8[64,256]) tuple(n, n)
}
`)
	require.NoError(t, err)
	_, err = Assign(m, Options{Target: TPU(), Relayout: true, Logger: zap.NewNop()})
	require.NoError(t, err)
	n := m.Entry.Root.Operands[0]
	require.NotNil(t, n.Shape.Layout)
	assert.Equal(t, "s8[64,256]{1,0:T(8,128)(4,1)}", n.Shape.String(), "the value keeps the rule's tiles")
	got, ok := m.Attr("entry_computation_layout")
	require.True(t, ok)
	assert.Equal(t, ecl, got)
}
