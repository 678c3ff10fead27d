package passes

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// TestVerifyTupleElementIndex checks k of an operand "%t#k" against the
// arity of t: a pass that shrinks the tuple leaves element 2 of a
// 2-tuple, which verify reports in the text's spelling.
func TestVerifyTupleElementIndex(t *testing.T) {
	m, err := hlo.ParseString(`HloModule m

ENTRY %main (p: (f32[4], f32[4], f32[4])) -> f32[4] {
  %p = (f32[4]{0}, f32[4]{0}, f32[4]{0}) parameter(0)
  ROOT %n = f32[4]{0} add(%p#0, %p#2)
}
`)
	require.NoError(t, err)
	pl, err := NewPipeline([]*Pass{Verify}, Options{Jobs: 1})
	require.NoError(t, err)
	_, err = pl.Run(context.Background(), m)
	require.NoError(t, err, "the module as parsed verifies")

	p := m.Entry.Params[0]
	p.Shape = hlo.MakeTupleShape(p.Shape.Tuple[0], p.Shape.Tuple[1])
	_, err = pl.Run(context.Background(), m)
	var l ErrorList
	require.True(t, errors.As(err, &l), "got %v", err)
	require.Len(t, l, 1)
	assert.Equal(t, "p_2", l[0].Instruction)
	assert.Equal(t, "tuple element %p#2: index 2 out of range for a 2-tuple", l[0].Msg)
	assert.Equal(t, hlo.Pos{Line: 5, Col: 33}, l[0].Pos, "the position of the operand in the text")
}
