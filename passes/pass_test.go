package passes

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func noop(*Unit) (any, error) { return nil, nil }

func TestValidate(t *testing.T) {
	require.NoError(t, Validate(Builtin()))

	bad := []*Pass{
		{Name: "Bad Name", Doc: "x", Run: noop},
		{Name: "nodoc", Run: noop},
		{Name: "twolines", Doc: "a\nb", Run: noop},
		{Name: "period", Doc: "ends with a period.", Run: noop},
		{Name: "norun", Doc: "x"},
		{Name: "callees", Doc: "x", Run: noop, CalleesFirst: true},
	}
	err := Validate(bad)
	require.Error(t, err)
	for _, want := range []string{
		`pass "Bad Name": name must match`, `pass "nodoc": empty Doc`, `pass "twolines": Doc must be one line`,
		`pass "period": Doc must not end with a period`, `pass "norun": no Run or RunComputation`,
		`pass "callees": CalleesFirst without RunComputation`,
	} {
		assert.Contains(t, err.Error(), want)
	}

	a := &Pass{Name: "a", Doc: "a", Run: noop}
	b := &Pass{Name: "b", Doc: "b", Run: noop, Requires: []*Pass{a}}
	a.Requires = []*Pass{b}
	err = Validate([]*Pass{a})
	var ce *CycleInRequiresError
	require.True(t, errors.As(err, &ce), "got %v", err)
	assert.Equal(t, "cycle in Requires graph: a -> b -> a", ce.Error())

	dup := &Pass{Name: "stats", Doc: "another", Run: noop}
	assert.ErrorContains(t, Validate([]*Pass{Stats, dup}), `duplicate pass name "stats"`)
}

func TestRegistry(t *testing.T) {
	r, err := NewRegistry(Verify, Stats)
	require.NoError(t, err)
	assert.Equal(t, []string{"stats", "verify"}, r.Names())
	ps, err := r.Parse("verify, stats,,verify")
	require.NoError(t, err)
	assert.Equal(t, []*Pass{Verify, Stats, Verify}, ps)
	_, err = r.Parse("stats,x")
	assert.EqualError(t, err, `unknown pass "x" (known: stats, verify)`)
	var ue *UnknownPassError
	assert.True(t, errors.As(err, &ue))

	_, err = NewRegistry(Stats, &Pass{Name: "stats", Doc: "again", Run: noop})
	assert.Error(t, err)
}
