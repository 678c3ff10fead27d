package indexing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Expressions built with the constructors print as MLIR prints them.
func TestExprPrinting(t *testing.T) {
	d0, d1, s0, rt0 := Dim(0), Dim(1), Sym(0), RT(0)
	tests := []struct {
		expr *Expr
		want string
	}{
		{Add(Mul(d0, 8), d1), "d0 * 8 + d1"},
		{Add(d1, Mul(d0, 8)), "d0 * 8 + d1"},
		{FloorDiv(Sub(d1, Const(3)), 7), "(d1 - 3) floordiv 7"},
		{Add(Neg(d1), Const(16)), "-d1 + 16"},
		{Mod(d0, 8), "d0 mod 8"},
		{Add(Mul(s0, 4), d1), "d1 + s0 * 4"},
		{FloorDiv(Add(Mul(d0, 2), Const(1)), 3), "(d0 * 2 + 1) floordiv 3"},
		{Add(s0, rt0), "s0 + rt0"},
		{Add(rt0, s0, d0), "d0 + s0 + rt0"},
		{Add(d0, Mul(Mod(d1, 2), 4)), "d0 + (d1 mod 2) * 4"},
		{Add(Mul(Mod(d0, 2), 2), FloorDiv(d1, 4)), "d1 floordiv 4 + (d0 mod 2) * 2"},
		{Sub(d0, d1), "d0 - d1"},
		{Sub(d0, Mul(d1, 3)), "d0 - d1 * 3"},
		{Sub(d0, FloorDiv(d1, 2)), "d0 - d1 floordiv 2"},
		{Sub(d0, Mul(FloorDiv(d1, 2), 3)), "d0 - (d1 floordiv 2) * 3"},
		{Neg(FloorDiv(d0, 2)), "-(d0 floordiv 2)"},
		{FloorDiv(Neg(d0), 2), "(-d0) floordiv 2"},
		{Mul(d0, -2), "d0 * -2"},
		{Add(Mul(d0, -2), Const(1)), "d0 * -2 + 1"},
		{CeilDiv(d0, 4), "d0 ceildiv 4"},
		{Sub(d0, Const(5)), "d0 - 5"},
		{Const(-7), "-7"},
		{Mod(Mod(d0, 8), 4), "d0 mod 4"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.expr.String())
	}
}

// The constructors canonicalise: like terms merge, constants fold, and
// multiples of a divisor leave a division.
func TestExprCanonicalForm(t *testing.T) {
	d0, d1 := Dim(0), Dim(1)
	assert.Equal(t, "d0 * 3", Add(d0, d0, d0).String())
	assert.Equal(t, "0", Sub(d0, d0).String())
	assert.Equal(t, "d0 * 2 + d1 * 2", Mul(Add(d0, d1), 2).String(), "multiplication distributes")
	assert.Equal(t, "d0 * 2 + d1 floordiv 4", FloorDiv(Add(Mul(d0, 8), d1), 4).String())
	assert.Equal(t, "d0 floordiv 12", FloorDiv(FloorDiv(d0, 3), 4).String())
	assert.Equal(t, "(-d0) floordiv 3", FloorDiv(d0, -3).String())
	assert.Equal(t, "(d1 + 3) mod 8", Mod(Add(Mul(d0, 16), d1, Const(11)), 8).String())
	assert.Equal(t, "0", Mod(Mul(d0, 8), 4).String())
	assert.Equal(t, "d0 * 2", FloorDiv(Mul(d0, 8), 4).String())
	assert.Equal(t, int64(-2), mustConst(t, FloorDiv(Const(-7), 4)))
	assert.Equal(t, int64(1), mustConst(t, Mod(Const(-7), 4)))
	assert.Equal(t, int64(-1), mustConst(t, CeilDiv(Const(-7), 4)))
	assert.True(t, Equal(Add(d1, d0), Add(d0, d1)))
	assert.Negative(t, Compare(d0, Sym(0)))
	assert.Negative(t, Compare(Sym(5), RT(0)))
	assert.Negative(t, Compare(RT(9), FloorDiv(d0, 2)))
	assert.Negative(t, Compare(FloorDiv(d1, 2), Mod(d0, 2)))
}

func mustConst(t *testing.T, e *Expr) int64 {
	t.Helper()
	v, ok := e.IsConst()
	require.True(t, ok, e.String())
	return v
}

func TestExprEvalReplaceRange(t *testing.T) {
	e, err := ParseExpr("(d0 * 2 + s0) floordiv 3 - rt0 mod 4")
	require.NoError(t, err)
	assert.Equal(t, int64((5*2+1)/3-6%4), e.Eval([]int64{5}, []int64{1}, []int64{6}))

	replaced := e.Replace([]*Expr{Add(Dim(0), Const(1))}, []*Expr{Const(0)}, nil)
	assert.Equal(t, "(d0 * 2 + 2) floordiv 3 - rt0 mod 4", replaced.String())

	bounds := map[ExprKind]Interval{KindDim: {0, 9}, KindSymbol: {0, 1}, KindRuntime: {0, 100}}
	r := e.Range(func(v *Expr) Interval { return bounds[v.Kind()] })
	assert.Equal(t, Interval{-3, 6}, r)

	assert.True(t, e.Uses(KindRuntime, 0))
	assert.False(t, e.Uses(KindDim, 1))
	assert.Equal(t, 13, e.Size())
}

// Products of variables and divisions by them are kept, as XLA keeps them
// (non-affine); they become affine when the right operand becomes a
// constant.
func TestNonAffineExpr(t *testing.T) {
	e, err := ParseExpr("(s0 * 6 + 3) * s1 + d0 floordiv s1 - d0 mod (s1 + 1)")
	require.NoError(t, err)
	assert.Equal(t, "(s0 * 6 + 3) * s1 + d0 floordiv s1 - d0 mod (s1 + 1)", e.String())
	assert.False(t, e.IsAffine())
	assert.Equal(t, int64((2*6+3)*4+9/4-9%5), e.Eval([]int64{9}, []int64{2, 4}, nil))

	bounds := map[ExprKind]Interval{KindDim: {0, 9}, KindSymbol: {1, 2}}
	r := e.Range(func(v *Expr) Interval { return bounds[v.Kind()] })
	assert.True(t, r.Contains(e.Eval([]int64{9}, []int64{2, 2}, nil)), r)
	assert.True(t, r.Contains(e.Eval([]int64{0}, []int64{1, 1}, nil)), r)

	affine := e.Replace(nil, []*Expr{nil, Const(2)}, nil)
	assert.True(t, affine.IsAffine())
	assert.Equal(t, "s0 * 12 + d0 floordiv 2 - d0 mod 3 + 6", affine.String())

	m, err := ParseIndexingMap("(d0)[s0] -> (d0 * s0), domain: d0 in [0, 3], s0 in [0, 5], s0 * d0 in [0, 8]")
	require.NoError(t, err)
	assert.Equal(t, "(d0)[s0] -> (d0 * s0), domain: d0 in [0, 3], s0 in [0, 5], s0 * d0 in [0, 8]", m.Simplify().String())
}

// Unary minus binds tighter than floordiv, as in MLIR (SEED-ERRATA 4).
func TestParseExprPrecedence(t *testing.T) {
	tests := map[string]string{
		"-d0 floordiv 2":            "(-d0) floordiv 2",
		"-(d0 floordiv 2)":          "-(d0 floordiv 2)",
		"d0 + d1 * 2 mod 3":         "d0 + (d1 * 2) mod 3",
		"d0 - d1 - d0":              "-d1",
		"2 * d0 + 3 * (d1 - 1)":     "d0 * 2 + d1 * 3 - 3",
		"d0 floorDiv 4":             "d0 floordiv 4",
		"(d0 mod 4) floordiv 2 * 2": "((d0 mod 4) floordiv 2) * 2",
	}
	for in, want := range tests {
		e, err := ParseExpr(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, e.String(), in)
	}
}
