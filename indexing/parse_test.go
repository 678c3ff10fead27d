package indexing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSpecialMaps(t *testing.T) {
	m, err := ParseIndexingMap("UNDEFINED")
	require.NoError(t, err)
	assert.True(t, m.IsUndefined())
	assert.Equal(t, "UNDEFINED", m.String())

	m, err = ParseIndexingMap("KNOWN EMPTY")
	require.NoError(t, err)
	assert.True(t, m.IsKnownEmpty())
	assert.Equal(t, "KNOWN EMPTY", m.MultiLineString())

	m, err = ParseIndexingMap("() -> ()")
	require.NoError(t, err)
	assert.Equal(t, "() -> ()", m.String())

	m, err = ParseIndexingMap("(d0) -> (d0), domain: d0 in [5, 4]")
	require.NoError(t, err)
	assert.Equal(t, "KNOWN EMPTY", m.String(), "an empty variable range empties the map")

	m, err = ParseIndexingMap("(d0) -> (d0), domain: d0 in [0, 9], d0 in [5, 20]")
	require.NoError(t, err)
	assert.Equal(t, "(d0) -> (d0), domain: d0 in [5, 9]", m.String(), "a repeated bound narrows")
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", `1:1: expected "(", found end of input`},
		{"(d0) -> (d0)", `1:13: expected ",", found end of input`},
		{"(d0) -> (d0), domain: d0 in [0, 9", `1:34: expected "]", found end of input`},
		{"(d0, d1) -> (d0), domain: d0 in [0, 9]", "1:39: missing bound for variable d1"},
		{"(d0, d0) -> (d0), domain: d0 in [0, 9]", `1:6: duplicate variable "d0"`},
		{"(d0) -> (d1), domain: d0 in [0, 9]", `1:10: unknown variable "d1"`},
		{"(d0) -> (d0 floordiv 0), domain: d0 in [0, 9]", "1:13: floordiv needs a non-zero right operand"},
		{"(d0) -> (d0 mod -2), domain: d0 in [0, 9]", "1:13: mod needs a positive right operand, found -2"},
		{"(d0) -> (99999999999999999999), domain: d0 in [0, 9]", "1:10: integer 99999999999999999999 out of range"},
		{"(d0) -> (d0 * 9223372036854775807 * 2), domain: d0 in [0, 9]", "1:10: integer overflow in mul"},
		{"(d0) -> (d0 $ 1)", `1:13: expected ",", found "$"`},
		{"(d0)\n-> (d0),\ndomain:\nd0 in [0, 9]\nd0 mod 2 in [0, 0]", `5:1: expected ",", found "d0"`},
		{"(in) -> ()", `1:2: expected variable name, found "in"`},
		{"UNDEFINED x", `1:11: unexpected "x"`},
	}
	for _, tc := range tests {
		_, err := ParseIndexingMap(tc.in)
		var perr *ParseError
		if assert.ErrorAs(t, err, &perr, tc.in) {
			assert.Equal(t, tc.want, perr.Error(), tc.in)
		}
	}
}

func TestParseExprErrors(t *testing.T) {
	_, err := ParseExpr("d0 +")
	assert.EqualError(t, err, "1:5: expected expression, found end of input")
	_, err = ParseExpr("d0 d1")
	assert.EqualError(t, err, `1:4: unexpected "d1" after expression`)
	_, err = ParseExpr("x0")
	assert.EqualError(t, err, `1:1: unknown variable "x0"`)
}

func TestNewIndexingMapChecksVariables(t *testing.T) {
	_, err := NewIndexingMap(VarsFromSizes([]int64{4}), nil, nil, []*Expr{Add(Dim(0), Sym(0))})
	assert.EqualError(t, err, "result 0: undeclared variable s0")

	m := IdentityMap([]int64{10, 20})
	assert.Equal(t, "(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]", m.String())

	withC, err := m.AddConstraint(Add(Dim(0), Dim(1)), Interval{0, 5})
	require.NoError(t, err)
	assert.Equal(t, "(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19], d0 + d1 in [0, 5]", withC.String())
	assert.Equal(t, "(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]", m.String(), "AddConstraint copies")
	assert.True(t, withC.Contains([]int64{2, 3}, nil, nil))
	assert.False(t, withC.Contains([]int64{3, 3}, nil, nil))
	assert.Equal(t, []int64{2, 3}, withC.Evaluate([]int64{2, 3}, nil, nil))

	m2, err := FromTensorSizes([]*Expr{Sym(0), Dim(0)}, []int64{10}, []int64{256})
	require.NoError(t, err)
	assert.Equal(t, "(d0)[s0] -> (s0, d0), domain: d0 in [0, 9], s0 in [0, 255]", m2.String())
}
