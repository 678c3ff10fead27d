package passes

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// moreComps are the computations the cases below call beside add_f and
// neg_f: comparators of s32 and f32 and a while condition on f32[4].
const moreComps = `lt_s {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}

ge_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}

cond_f {
  x = f32[4] parameter(0)
  ROOT t = pred[] constant(true)
}

`

// The mutations of verify_more.go's checks, run by TestVerifyMutations
// with the others: a valid entry body per op and, per check, one
// hand-written mutation with its message.
func init() {
	verifyCases = append(verifyCases, []struct {
		name, valid string
		mutations   []mutation
	}{
		{"broadcast and transpose", `p = f32[4,8] parameter(0)
  s = f32[4,4] parameter(1)
  b = f32[4,8,2] broadcast(p), dimensions={0,1}
  c = f32[4,4,2] broadcast(s), dimensions={0,1}
  ROOT t = f32[8,4] transpose(p), dimensions={1,0}`, []mutation{
			{"broadcast(p), dimensions={0,1}", "broadcast(p)", "broadcast has no dimensions attribute"},
			{"transpose(p), dimensions={1,0}", "transpose(p)", "transpose has no dimensions attribute"},
			{"broadcast(s), dimensions={0,1}", "broadcast(s), dimensions={0,0}", "dimensions {0,0}: dimension 0 repeated"},
		}},
		{"bitcast", `p = f32[4,8] parameter(0)
  ROOT b = s32[32] bitcast(p)`, []mutation{
			{"s32[32]", "s16[32]", "bitcast from f32[4,8] (128 bytes) to s16[32] (64 bytes) changes the size"},
		}},
		{"concatenate", `p = f32[4,8] parameter(0)
  q = f32[2,8] parameter(1)
  ROOT c = f32[6,8] concatenate(p, q), dimensions={0}`, []mutation{
			{"dimensions={0}", "dimensions={0,1}", "concatenate dimensions {0,1}, want one dimension"},
			{"q = f32[2,8]", "q = f32[2,9]", "operand f32[2,9] differs from f32[6,8] in dimension 1, which is not concatenated"},
		}},
		{"iota and sort", `i = s32[4,8] iota(), iota_dimension=1
  ROOT s = s32[4,8] sort(i), dimensions={1}, to_apply=lt_s`, []mutation{
			{"iota_dimension=1", "iota_dimension=2", "iota_dimension=2 out of range for s32[4,8]"},
			{"sort(i), dimensions={1}", "sort(i), dimensions={2}", "dimensions {2}: dimension 2 out of range for rank 2"},
			{"to_apply=lt_s", "to_apply=neg_f", "to_apply computation neg_f has 1 parameters, want 2"},
		}},
		{"reduce-window", `p = f32[4,8] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2,8] reduce-window(p, z), window={size=2x1 stride=2x1}, to_apply=add_f`, []mutation{
			{"stride=2x1", "stride=0x1", "window dimension 0: want size and stride >= 1 and dilations >= 1, found size=2 stride=0 lhs_dilate=1 rhs_dilate=1"},
			{"window={size=2x1 stride=2x1}", "window={size=2 stride=2}", "window has 1 dimensions, want 2"},
			{"ROOT r = f32[2,8]", "ROOT r = f32[3,8]", "result f32[3,8], want dimensions [2,8]"},
			{"to_apply=add_f", "to_apply=neg_f", "to_apply computation neg_f has 1 parameters, want 2"},
		}},
		{"select-and-scatter", `p = f32[4,8] parameter(0)
  s = f32[2,8] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[4,8] select-and-scatter(p, s, z), window={size=2x1 stride=2x1}, select=ge_f, scatter=add_f`, []mutation{
			{"s = f32[2,8]", "s = f32[4,8]", "source f32[4,8], want dimensions [2,8] (the window over f32[4,8])"},
			{"ROOT r = f32[4,8]", "ROOT r = f32[4,9]", "result f32[4,9], want dimensions [4,8]"},
			{"select=ge_f", "select=neg_f", "select computation neg_f has 1 parameters, want 2"},
		}},
		{"while", `p = f32[4] parameter(0)
  ROOT w = f32[4] while(p), condition=cond_f, body=neg_f`, []mutation{
			{"body=neg_f", "body=lt_s", "body computation lt_s has 2 parameters, want 1"},
			{"condition=cond_f", "condition=neg_f", "condition computation neg_f returns f32[4], want pred[]"},
		}},
		{"conditional", `b = pred[] parameter(0)
  p = f32[4] parameter(1)
  ROOT c = f32[4] conditional(b, p, p), true_computation=neg_f, false_computation=neg_f`, []mutation{
			{"p = f32[4] parameter(1)\n  ROOT c = f32[4] conditional(b, p, p)", "p = f32[4] parameter(1)\n  q = f32[8] parameter(2)\n  ROOT c = f32[4] conditional(b, p, q)", "branch computation neg_f parameter 0 has shape f32[4], want f32[8]"},
		}},
		{"fusion", `p = f32[4] parameter(0)
  ROOT f = f32[4] fusion(p), kind=kLoop, calls=neg_f`, []mutation{
			{"p = f32[4] parameter(0)\n  ROOT f = f32[4] fusion(p)", "p = f32[4] parameter(0)\n  q = s32[4] parameter(1)\n  ROOT f = f32[4] fusion(q)", "fused computation neg_f parameter 0 has shape f32[4], want s32[4]"},
		}},
		{"elementwise", `p = (f32[4], f32[4]) parameter(0)
  ROOT c = (f32[4], f32[4]) copy(p)`, []mutation{
			{"ROOT c = (f32[4], f32[4]) copy(p)", "ROOT c = f32[4] negate(p)", "operand 0 of negate is the tuple (f32[4], f32[4]), want an array"},
		}},
		{"layout", `p = f32[4,8]{1,0:T(2,128)} parameter(0)
  ROOT c = f32[4,8]{1,0} copy(p)`, []mutation{
			{"T(2,128)", "T(2,0)", "layout of f32[4,8]: tile (2,0): want sizes >= 1 or *"},
			{"T(2,128)", "T(2,9223372036854775807)", "shape f32[4,8]{1,0:T(2,9223372036854775807)}: padded element count overflows int64"},
		}},
		{"module size", `p = s8[1152921504606846975] parameter(0)
  q = s8[1152921504606846975] parameter(1)
  ROOT r = s8[1152921504606846975] copy(p)`, []mutation{
			{"q = s8[1152921504606846975] parameter(1)", "q = s8[1152921504606846975] parameter(1)\n  q2 = s8[1152921504606846975] parameter(2)\n  q3 = s8[1152921504606846975] parameter(3)", "the module's values up to s8[1152921504606846975] total more than 2^62 bytes; their sums would overflow"},
		}},
	}...)
}

// TestVerifyLayoutMadeByAPass: the parser rejects a minor_to_major that is
// not a permutation; one a pass sets is verify's to catch.
func TestVerifyLayoutMadeByAPass(t *testing.T) {
	m, err := hlo.ParseString("HloModule m\n\nENTRY e {\n  p = f32[4,8]{1,0} parameter(0)\n  ROOT r = f32[4,8]{1,0} reverse(p), dimensions={0}\n}\n")
	require.NoError(t, err)
	m.Entry.Root.Shape.Layout = &hlo.Layout{MinorToMajor: []int64{1, 1}} // layouts may be shared: a new one
	pl, err := NewPipeline([]*Pass{Verify}, Options{Jobs: 1})
	require.NoError(t, err)
	_, err = pl.Run(context.Background(), m)
	var l ErrorList
	require.True(t, errors.As(err, &l), "got %v", err)
	require.Len(t, l, 1)
	assert.Equal(t, "5:8: e/r: layout of f32[4,8]: minor_to_major {1,1} is not a permutation of its 2 dimensions", l[0].Error())
}
