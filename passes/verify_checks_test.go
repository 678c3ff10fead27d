package passes

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
)

const addComp = `add_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

`

// verifyCases are a valid module per op and, for each check, one
// hand-written mutation of it with the message verify gives. The bodies
// are the entry's; add_f is there for reducers.
var verifyCases = []struct {
	name, valid string
	mutations   []mutation
}{
	{"dot", `a = f32[2,8,4] parameter(0)
  b = f32[2,4,16] parameter(1)
  ROOT d = f32[2,8,16] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}`, []mutation{
		{"rhs_contracting_dims={1}", "rhs_contracting_dims={1,2}", "dot has 1/1 batch and 1/2 contracting dimensions (lhs/rhs)"},
		{"lhs_contracting_dims={2}", "lhs_contracting_dims={3}", "lhs batch and contracting dimensions {0,3}: dimension 3 out of range for rank 3"},
		{"rhs_contracting_dims={1}", "rhs_contracting_dims={0}", "rhs batch and contracting dimensions {0,0}: dimension 0 repeated"},
		{"lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}", "lhs_contracting_dims={1}, rhs_batch_dims={0}, rhs_contracting_dims={1}", "dot contracts lhs dimension 1 (size 8) with rhs dimension 1 (size 4)"},
		{"b = f32[2,4,16]", "b = f32[3,4,16]", "dot batch lhs dimension 0 (size 2) and rhs dimension 0 (size 3) differ"},
		{"ROOT d = f32[2,8,16]", "ROOT d = f32[2,16,8]", "result f32[2,16,8], want dimensions [2,8,16]"},
	}},
	{"gather", `op = f32[4,8] parameter(0)
  idx = s32[5,1] parameter(1)
  ROOT g = f32[5,8] gather(op, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,8}`, []mutation{
		{"index_vector_dim=1", "index_vector_dim=3", "index_vector_dim 3 out of range for indices of rank 2"},
		{"start_index_map={0}", "start_index_map={3}", "start_index_map {3}: dimension 3 out of range for rank 2"},
		{"start_index_map={0}", "start_index_map={0,1}", "start_index_map {0,1} has 2 entries, the index vector 1"},
		{"slice_sizes={1,8}", "slice_sizes={1,8,1}", "slice_sizes {1,8,1} has 3 entries for an operand of rank 2"},
		{"collapsed_slice_dims={0}", "collapsed_slice_dims={}", "do not cover the operand's 2 dimensions"},
		{"slice_sizes={1,8}", "slice_sizes={1,9}", "slice size 9 of dimension 1 outside the operand's 8"},
		{"slice_sizes={1,8}", "slice_sizes={2,8}", "collapsed or batching dimension 0 has slice size 2, want at most 1"},
		{"ROOT g = f32[5,8]", "ROOT g = f32[5,7]", "result f32[5,7], want dimensions [5,8]"},
		{"ROOT g = f32[5,8]", "ROOT g = f32[5,8,1]", "result f32[5,8,1], want rank 2 (1 batch and 1 offset dimensions)"},
	}},
	{"gather sorted", `op = f32[4,8,2] parameter(0)
  idx = s32[5,1] parameter(1)
  ROOT g = f32[5,8,2] gather(op, idx), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,8,2}`, []mutation{
		{"offset_dims={1,2}", "offset_dims={2,1}", "offset_dims {2,1}: not sorted"},
	}},
	{"scatter", `op = f32[4,8] parameter(0)
  idx = s32[5,1] parameter(1)
  upd = f32[5,8] parameter(2)
  ROOT sc = f32[4,8] scatter(op, idx, upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f`, []mutation{
		{"update_window_dims={1}", "update_window_dims={1,1}", "update_window_dims {1,1}: dimension 1 repeated"},
		{"update_window_dims={1}", "update_window_dims={2}", "update_window_dims {2}: dimension 2 out of range for rank 2"},
		{"inserted_window_dims={0}", "inserted_window_dims={}", "do not cover the operand's 2 dimensions"},
		{"scatter_dims_to_operand_dims={0}", "scatter_dims_to_operand_dims={0,1}", "scatter_dims_to_operand_dims {0,1} has 2 entries, the index vector 1"},
		{"upd = f32[5,8]", "upd = f32[5,9]", "update window dimension 1 (size 9) larger than operand dimension 1 (size 8)"},
		{"upd = f32[5,8]", "upd = f32[6,8]", "update scatter dimension 0 has size 6, the indices' 5"},
		{"ROOT sc = f32[4,8]", "ROOT sc = f32[4,7]", "result f32[4,7], want dimensions [4,8]"},
	}},
	{"scatter windows", `op = f32[4,8,16,32] parameter(0)
  idx = s32[5,1] parameter(1)
  upd = f32[5,8,16,32] parameter(2)
  ROOT sc = f32[4,8,16,32] scatter(op, idx, upd), update_window_dims={1,2,3}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f`, []mutation{
		{"update_window_dims={1,2,3}", "update_window_dims={2,2,3,1}", "update_window_dims {2,2,3,1}: dimension 2 repeated"},
		{"update_window_dims={1,2,3}", "update_window_dims={1,3,2}", "update_window_dims {1,3,2}: not sorted"},
		{"index_vector_dim=1", "index_vector_dim=2", "updates of rank 4, want 5 (2 scatter and 3 window dimensions)"},
	}},
	{"slice", `p = f32[8] parameter(0)
  ROOT s = f32[4] slice(p), slice={[2:6]}`, []mutation{
		{"slice={[2:6]}", "slice={[6:10]}", "slice [6:10:1] of dimension 0 outside [0:8] or with a non-positive stride"},
		{"ROOT s = f32[4]", "ROOT s = f32[3]", "slice dimension 0 has size 3, want 4"},
	}},
	{"dynamic-slice", `p = f32[8,4] parameter(0)
  i = s32[] parameter(1)
  ROOT d = f32[2,4] dynamic-slice(p, i, i), dynamic_slice_sizes={2,4}`, []mutation{
		{"dynamic_slice_sizes={2,4}", "dynamic_slice_sizes={2}", "dynamic_slice_sizes {2} has 1 entries for an operand of rank 2"},
		{"ROOT d = f32[2,4] dynamic-slice(p, i, i), dynamic_slice_sizes={2,4}", "ROOT d = f32[2,5] dynamic-slice(p, i, i), dynamic_slice_sizes={2,5}", "dynamic slice size 5 of dimension 1 outside the operand's 4"},
		{"ROOT d = f32[2,4]", "ROOT d = f32[4,2]", "result f32[4,2], want dimensions [2,4]"},
	}},
	{"dynamic-update-slice", `p = f32[8,4] parameter(0)
  u = f32[2,4] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[8,4] dynamic-update-slice(p, u, i, i)`, []mutation{
		{"u = f32[2,4]", "u = f32[2,5]", "update dimension 1 (size 5) larger than the operand's 4"},
		{"ROOT d = f32[8,4]", "ROOT d = f32[8,5]", "result f32[8,5], want dimensions [8,4]"},
	}},
	{"pad", `p = f32[8] parameter(0)
  z = f32[] constant(0)
  ROOT q = f32[25] pad(p, z), padding=1_2_2`, []mutation{
		{"padding=1_2_2", "padding=1_2_2x0_0", "padding has 2 dimensions for an operand of rank 1"},
		{"ROOT q = f32[25]", "ROOT q = f32[24]", "result f32[24], want dimensions [25]"},
		{"ROOT q = f32[25] pad(p, z), padding=1_2_2", "ROOT q = f32[0] pad(p, z), padding=-10_-10", "padding of dimension 0 leaves a negative size -12"},
	}},
	{"reduce", `p = f32[8,4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[8] reduce(p, z), dimensions={1}, to_apply=add_f`, []mutation{
		{"dimensions={1}", "dimensions={7}", "dimensions {7}: dimension 7 out of range for rank 2"},
		{"ROOT r = f32[8] reduce(p, z), dimensions={1}", "ROOT r = f32[8] reduce(p, z), dimensions={1,1}", "dimensions {1,1}: dimension 1 repeated"},
		{"ROOT r = f32[8]", "ROOT r = f32[4]", "reduce result f32[4], want dimensions [8]"},
	}},
	{"convolution", `a = f32[1,8,8,4] parameter(0)
  k = f32[3,3,2,6] parameter(1)
  ROOT c = f32[1,8,8,6] convolution(a, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2`, []mutation{
		{"feature_group_count=2", "feature_group_count=4", "feature_group_count 4 does not divide the input features 4 and the kernel output features 6"},
		{"feature_group_count=2", "feature_group_count=1", "input features 4, kernel input features 2 x feature_group_count 1"},
		{"ROOT c = f32[1,8,8,6]", "ROOT c = f32[1,8,8,5]", "output features 5, kernel output features 6"},
		{"window={size=3x3 pad=1_1x1_1}", "window={size=3 pad=1_1}", "window has 1 dimensions for 2 spatial ones"},
	}},
	{"reverse", `p = f32[8,4] parameter(0)
  ROOT r = f32[8,4] reverse(p), dimensions={1}`, []mutation{
		{"dimensions={1}", "dimensions={2}", "dimensions {2}: dimension 2 out of range for rank 2"},
	}},
	{"call", `p = f32[4] parameter(0)
  ROOT c = f32[4] call(p), to_apply=neg_f`, []mutation{
		{"ROOT c = f32[4] call(p)", "ROOT c = f32[4] call(p, p)", "call has 2 operands, neg_f has 1 parameters"},
		{"p = f32[4] parameter(0)\n  ROOT c = f32[4] call(p)", "p = f32[5] parameter(0)\n  ROOT c = f32[4] call(p)", "call operand 0 f32[5], parameter 0 of neg_f is f32[4]"},
		{"ROOT c = f32[4] call", "ROOT c = f32[2] call", "call shape f32[2], neg_f returns f32[4]"},
	}},
	{"shapes", `p = f32[8] parameter(0)
  b = f32[8,4] broadcast(p), dimensions={0}
  t = f32[4,8] transpose(b), dimensions={1,0}
  r = f32[32] reshape(t)
  tu = (f32[32], f32[8]) tuple(r, p)
  ROOT g = f32[8] get-tuple-element(tu), index=1`, []mutation{
		{"dimensions={0}\n", "dimensions={1}\n", "broadcast dimension 1 maps operand dimension 0 (size 8) to a different size in f32[8,4]"},
		{"dimensions={1,0}", "dimensions={0,1}", "transpose dimensions {0,1} do not map f32[8,4] to f32[4,8]"},
		{"r = f32[32]", "r = f32[31]", "reshape from f32[4,8] to f32[31] changes the element count"},
		{"index=1", "index=2", "index 2 out of range for a 2-tuple"},
		{"tuple(r, p)", "tuple(r, p, p)", "shape (f32[32], f32[8]) does not match its operands"},
	}},
	{"operands", `p = f32[8] parameter(0)
  ROOT a = f32[8] add(p, p)`, []mutation{
		// The parser refuses these first, as XLA's does.
		{"add(p, p)", "add(p)", "expected 2 operands for add, found 1"},
		{"add(p, p)", "add(p, p, p)", "expected 2 operands for add, found 3"},
	}},
}

type mutation struct{ from, to, want string }

// module wraps an entry body with the computations the cases call.
func module(body string) string {
	return "HloModule m\n\n" + addComp + moreComps + "neg_f {\n  x = f32[4] parameter(0)\n  ROOT n = f32[4] negate(x)\n}\n\nENTRY e {\n  " + body + "\n}\n"
}

func TestVerifyMutations(t *testing.T) {
	pl, err := NewPipeline([]*Pass{Verify}, Options{Jobs: 1})
	require.NoError(t, err)
	run := func(src string) error {
		m, err := hlo.ParseFile("m.hlo", []byte(src))
		if err != nil {
			return err
		}
		_, err = pl.Run(context.Background(), m)
		return err
	}
	for _, c := range verifyCases {
		t.Run(c.name, func(t *testing.T) {
			require.NoError(t, run(module(c.valid)), "the valid module verifies")
			for _, mu := range c.mutations {
				require.True(t, strings.Contains(c.valid, mu.from), "%q not in the case", mu.from)
				err := run(module(strings.Replace(c.valid, mu.from, mu.to, 1)))
				if assert.Error(t, err, mu.want) {
					assert.Contains(t, err.Error(), mu.want)
					assert.Regexp(t, `m\.hlo:\d+:\d+: `, err.Error(), "positioned")
				}
			}
		})
	}
}

// TestVerifyWrongOperandCountsDoNotPanic: a wrong operand count is
// reported, and the shape checks, which index the operands, are skipped
// (a broadcast or get-tuple-element without operands made verify panic).
// The parser refuses such text, so the modules are built by dropping
// operands of a valid one.
func TestVerifyWrongOperandCountsDoNotPanic(t *testing.T) {
	for _, tc := range []struct {
		op   string
		keep int
		want string
	}{
		{"f32[4,2] broadcast(p), dimensions={0}", 0, "broadcast has 0 operands, want 1"},
		{"f32[4] get-tuple-element(t), index=0", 0, "get-tuple-element has 0 operands, want 1"},
		{"f32[4] transpose(p), dimensions={0}", 0, "transpose has 0 operands, want 1"},
		{"f32[4] scatter(p, i, p), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=e", 2, "scatter has 2 operands, want an odd number >= 3"},
		{"f32[4] reduce-window(p, z), window={size=1}, to_apply=e", 1, "reduce-window has 1 operands, want an even number >= 2"},
		{"f32[4] concatenate(p), dimensions={0}", 0, "concatenate has 0 operands, want >= 1"},
	} {
		m, err := hlo.ParseString("HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n  i = s32[4,1] parameter(1)\n  z = f32[] parameter(2)\n  t = (f32[4]) tuple(p)\n  ROOT b = " + tc.op + "\n}\n")
		require.NoError(t, err, tc.op)
		m.Entry.Root.Operands = m.Entry.Root.Operands[:tc.keep]
		pl, err := NewPipeline([]*Pass{Verify}, Options{Jobs: 1})
		require.NoError(t, err)
		_, err = pl.Run(context.Background(), m)
		var l ErrorList
		require.True(t, errors.As(err, &l), "%s: got %v", tc.op, err)
		var msgs []string
		for _, e := range l {
			msgs = append(msgs, e.Msg)
		}
		assert.Contains(t, msgs, tc.want, tc.op)
		var pe *PanicError
		assert.False(t, errors.As(err, &pe), "%s: verify panicked: %v", tc.op, err)
	}
}

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
			{"broadcast(p), dimensions={0,1}", "broadcast(p)", "attribute dimensions is expected but not seen"},
			{"transpose(p), dimensions={1,0}", "transpose(p)", "attribute dimensions is expected but not seen"},
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

// TestVerifyFusionKind: the parser refuses kind=kOutptu as XLA's does; a
// kind a pass sets (or drops) is verify's to catch.
func TestVerifyFusionKind(t *testing.T) {
	_, err := hlo.ParseString(module("p = f32[4] parameter(0)\n  ROOT f = f32[4] fusion(p), kind=kOutptu, calls=neg_f"))
	require.ErrorContains(t, err, "Unknown fusion kind: kOutptu")
	pl, err := NewPipeline([]*Pass{Verify}, Options{Jobs: 1})
	require.NoError(t, err)
	for kind, want := range map[string]string{
		"kOutptu": "fusion kind kOutptu, want one of kLoop, kInput, kOutput, kCustom (Unknown fusion kind)",
		"":        "fusion kind none, want one of kLoop, kInput, kOutput, kCustom (Unknown fusion kind)",
	} {
		m, err := hlo.ParseString(module("p = f32[4] parameter(0)\n  ROOT f = f32[4] fusion(p), kind=kLoop, calls=neg_f"))
		require.NoError(t, err)
		f := m.Entry.Root
		attrs := f.Attrs[:0:0]
		for _, a := range f.Attrs {
			if a.Name != "kind" {
				attrs = append(attrs, a)
			} else if kind != "" {
				attrs = append(attrs, hlo.Attribute{Name: "kind", Value: kind})
			}
		}
		f.Attrs = attrs
		_, err = pl.Run(context.Background(), m)
		var l ErrorList
		require.True(t, errors.As(err, &l), "kind %q: got %v", kind, err)
		require.Len(t, l, 1)
		assert.Contains(t, l[0].Error(), "e/f: "+want)
	}
}

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

// TestVerifyTPUBitcastKeepsThePaddedSize: XLA's TPU compiles emit bitcasts
// whose data sizes differ but whose tiled sizes agree (f32[64,1000] with
// T(8,128) is 64x1024 elements, as f32[8,8,8,128] is); the verifier must
// accept what XLA emitted and still refuse a bitcast that changes both.
func TestVerifyTPUBitcastKeepsThePaddedSize(t *testing.T) {
	run := func(to string) error {
		m, err := hlo.ParseString("HloModule m\n\nENTRY e {\n  p = f32[8,8,8,128]{3,2,1,0:T(8,128)} parameter(0)\n  ROOT b = " + to + " bitcast(p)\n}\n")
		require.NoError(t, err)
		pl, err := NewPipeline([]*Pass{Verify}, Options{Jobs: 1})
		require.NoError(t, err)
		_, err = pl.Run(context.Background(), m)
		return err
	}
	assert.NoError(t, run("f32[64,1000]{1,0:T(8,128)}"), "XLA's bitcast: 262144 bytes both, tiled")
	assert.NoError(t, run("f32[64,1024]{1,0}"), "equal data sizes")
	err := run("f32[64,1100]{1,0:T(8,128)}")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bitcast from f32[8,8,8,128] (262144 bytes) to f32[64,1100] (281600 bytes) changes the size")
}
