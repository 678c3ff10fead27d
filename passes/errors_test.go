package passes

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// An error's text leaves out what is unknown: no source, no position, no
// computation or instruction.
func TestErrorText(t *testing.T) {
	pos := hlo.Pos{Line: 12, Col: 7}
	for _, tc := range []struct {
		e    Error
		want string
	}{
		{Error{Source: "m.hlo", Pos: pos, Computation: "main", Instruction: "add.3", Msg: "bad"}, "m.hlo:12:7: main/add.3: bad"},
		{Error{Source: "m.hlo", Computation: "main", Msg: "bad"}, "m.hlo: main: bad"},
		{Error{Pos: pos, Instruction: "add.3", Msg: "bad"}, "12:7: bad"},
		{Error{Computation: "main", Instruction: "add.3", Msg: "bad"}, "main/add.3: bad"},
		{Error{Msg: "bad"}, "bad"},
	} {
		assert.Equal(t, tc.want, tc.e.Error())
	}
}

// newError locates an error in the module; ErrorList sorts in module order,
// drops exact duplicates and reads as hlo.ErrorList does.
func TestErrorListModuleOrder(t *testing.T) {
	m, cs := hlotest.LoopsModule()
	m.Source = "loops.hlo"
	body, sum := cs["body"], cs["sum"]
	l := ErrorList{
		newError(m, nil, body.Root, "z"),
		newError(m, sum, nil, "y"),
		newError(m, nil, body.Instructions[0], "x"),
		newError(m, sum, nil, "y"),
	}
	assert.Equal(t, "loops.hlo: body/neg: z (and 3 more errors)", l.Error())
	l.RemoveMultiples()
	require.Len(t, l, 3)
	assert.Equal(t, []string{"loops.hlo: sum: y", "loops.hlo: body/x: x", "loops.hlo: body/neg: z"},
		[]string{l[0].Error(), l[1].Error(), l[2].Error()})
	var e *Error
	require.True(t, errors.As(l.Err(), &e))
	assert.Same(t, l[0], e)
	assert.NoError(t, ErrorList{}.Err())
	assert.Equal(t, "no errors", ErrorList{}.Error())
}
