package hlo

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseErrors(t *testing.T) {
	const head = "ENTRY e {\n  p = f32[4] parameter(0)\n"
	for _, tc := range []struct{ src, want string }{
		{head + "  ROOT n = f32[4] negate(q)\n}\n", `t.hlo:3:26: expected defined instruction, found "q" (instruction does not exist: q)`},
		// An operand's shape is checked before its name, and against its
		// declaration unless written the same (parsed only then).
		{head + "  ROOT n = f32[4] negate(f32[4]{1,0} q)\n}\n", `t.hlo:3:32: expected 1 minor_to_major dimensions, found 2 (Dimensions size is 1, but minor to major size is 2.)`},
		{head + "  ROOT n = f32[4] negate(f32[5]{0} p)\n}\n", `t.hlo:3:36: The declared operand shape f32[5]{0} is not compatible with the shape of the operand instruction f32[4]{0}.`},
		{head + "  ROOT n = f32[4] negate(f32[4] p, f32[4] q)\n}\n", `t.hlo:3:43: expected defined instruction, found "q" (instruction does not exist: q)`},
		{head + "  ROOT c = f32[4] call(p), to_apply=nowhere\n}\n", `t.hlo:3:37: expected defined computation, found "nowhere"`},
		{head + "  ROOT n = f32[4] negat(p)\n}\n", `t.hlo:3:19: expected opcode, found unknown "negat" (not in XLA's HLO text as of jaxlib 0.12.0.1: hlo-opt --version)`},
		{"f {\n  ROOT x = f32[4] parameter(0)\n}\n" + head + "  ROOT r = f32[4] fusion(p), calls=f\n}\n", `t.hlo:6:8: attribute kind is expected but not seen`},
		{"f {\n  ROOT x = f32[4] parameter(0)\n}\n" + head + "  ROOT r = f32[4] fusion(p), calls=f, kind=kOutptu\n}\n",
			`t.hlo:6:8: expects fusion kind but sees: kOutptu, error: Unknown fusion kind: kOutptu (expected kLoop, kInput, kOutput or kCustom)`},
		{head + "  ROOT n = f32[4] negate(p), colour=red\n}\n", `t.hlo:3:30: expected attribute name, found unknown "colour" (not in XLA's HLO text as of jaxlib 0.12.0.1: hlo-opt --version)`},
		{head + "  p = f32[4] negate(p)\n}\n", `t.hlo:3:3: expected unique instruction name, found duplicate "p" (first at 2:3)`},
		{"c {\n  ROOT p = f32[] parameter(0)\n}\nc {\n  ROOT p = f32[] parameter(0)\n}\n", `t.hlo:4:1: expected unique computation name, found duplicate "c" (computation previously defined here: 1:1)`},
		{"HloModule a\nc {\n  ROOT p = f32[] parameter(0)\n}\n\nHloModule b\nd {\n  ROOT p = f32[] parameter(0)\n}\n",
			`t.hlo:6:1: expected a computation, found a second "HloModule" header (a file of several modules is split at its '// -----' lines: hlo.SplitInputFile, hlo-opt --split-input-file)`},
		{"ENTRY e {\n  p = f33[2] parameter(0)\n}\n", `t.hlo:2:7: expected shape, found "f33"`},
		{"ENTRY e {\n  p = f32[2,x] parameter(0)\n}\n", `t.hlo:2:13: expected dimension size, found "x"`},
		{"ENTRY e {\n  p = f32[2,3]{0,0} parameter(0)\n}\n", `t.hlo:2:15: expected a permutation of 0..1 in minor_to_major, found 0`},
		{"ENTRY e {\n  p = f32[2,3]{1} parameter(0)\n}\n", `t.hlo:2:15: expected 2 minor_to_major dimensions, found 1 (Dimensions size is 2, but minor to major size is 1.)`},
		{"ENTRY e {\n  p = f32[2,3]{1,0:Q(2)} parameter(0)\n}\n", `t.hlo:2:20: expected layout attribute (T, S, E, L, D, P, M, SC, # or *), found "Q"`},
		{"ENTRY e {\n  p = f32[2,3]{1,0:T(8,128} parameter(0)\n}\n", `t.hlo:2:27: expected ')', found '}'`},
		{head + "  ROOT n = f32[4] negate(p\n}\n", `t.hlo:4:1: expected ')', found '}'`},
		{"ENTRY e {\n  p f32[] parameter(0)\n}\n", `t.hlo:2:5: expects '=' in instruction, found "f32"`},
		{"HloModule m\n", `t.hlo:2:1: expected computation, found end of file`},
		{"ENTRY e {\n}\n", `t.hlo:2:1: expected instruction, found '}'`},
		{head + "  ROOT a = f32[4] negate(p)\n  ROOT b = f32[4] negate(p)\n}\n", `t.hlo:4:8: expected one ROOT instruction, found a second one "b" (one computation should have only one ROOT)`},
		{"ENTRY e {\n  p = f32[] parameter(1)\n}\n", `t.hlo:2:3: expected parameter numbers 0..1 without gaps, found parameter(1)`},
		{head + "  ROOT s = f32[2] slice(p), slice={[0:2}\n}\n", `t.hlo:3:40: expected ']', found '}'`},
		{head + "  ROOT s = f32[2] convolution(p, p), dim_labels=bf_io->xx\n}\n", `t.hlo:3:49: expected dim_labels like b01f_01io->b01f, found "bf_io->xx" (expects unique output dimension numbers, but sees xx)`},
		{head + "  ROOT s = f32[2] broadcast(p), dimensions={0,a}\n}\n", `t.hlo:3:47: expected integer, found "a"`},
		{head + "  ROOT s = f32[2] broadcast(p), dimensions={0}, dimensions={1}\n}\n", `t.hlo:3:49: expected unique attribute, found duplicate "dimensions"`},
		{head + "  ROOT s = f32[4] copy(p), metadata={op_name=\"x}\n}\n", `t.hlo:3:46: expected closing '"' of string, found end of file`},
		{"ENTRY a {\n  ROOT p = f32[] parameter(0)\n}\nENTRY b {\n  ROOT p = f32[] parameter(0)\n}\n", `t.hlo:4:7: expected one ENTRY computation, found a second one "b" (expects only one ENTRY)`},
		{"HloModule m, entry_computation_layout={(f32[2]{0})->}\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n", `t.hlo:1:53: expected shape, found '}'`},
		{head + "  ROOT s = f32[4] copy(p), control-predecessors={zz}\n}\n", `t.hlo:3:50: expected defined instruction, found "zz" ('zz' is not defined)`},
		{head + "  ROOT s = f32[4] reduce-window(p), window={size=2 stride=1x1}\n}\n", `t.hlo:3:52: expected 1 window dimensions, found 2 in stride`},
		{head + "  ROOT s = f32[4] all-reduce(p), replica_groups=[2,3]<=[4]\n}\n", `t.hlo:3:49: expected [groups,size]<=[dims] with as many devices on both sides, found "[2,3]<=[4]"`},
		{"ENTRY e {\n  ROOT c = f32[2] constant({1, 2}\n}\n", `t.hlo:3:1: expected ')', found '}' (unexpected '}' token)`},
		{"ENTRY e {\n  ROOT p = f32[-1] parameter(0)\n}\n", `t.hlo:2:16: expected non-negative dimension size, found -1`},
		{"ENTRY e {\n  ROOT p = f32[] parameter(0), sharding={replicated\n}\n", `t.hlo:4:1: file ends inside computation "e"; is the dump truncated?`},
	} {
		_, err := ParseFile("t.hlo", []byte(tc.src))
		if !assert.Error(t, err, tc.src) {
			continue
		}
		assert.Equal(t, tc.want, err.Error(), tc.src)
		var list ErrorList
		if assert.True(t, errors.As(err, &list)) {
			assert.Equal(t, "t.hlo", list[0].Filename)
		}
	}
}

func TestErrorList(t *testing.T) {
	var l ErrorList
	assert.NoError(t, l.Err())
	l.Add("b.hlo", Pos{Line: 2, Col: 1}, "expected x, found y")
	l.Add("a.hlo", Pos{Line: 9, Col: 4}, "expected z, found w")
	l.Add("a.hlo", Pos{Line: 3, Col: 7}, "expected u, found v")
	l.Sort()
	require.Error(t, l.Err())
	assert.Equal(t, "a.hlo:3:7: expected u, found v (and 2 more errors)", l.Error())
	assert.Equal(t, "a.hlo:9:4: expected z, found w", l[1].Error())
	assert.Equal(t, "3:1: m", (&Error{Pos: Pos{Line: 3, Col: 1}, Msg: "m"}).Error())
	assert.Equal(t, "f.hlo: m", (&Error{Filename: "f.hlo", Msg: "m"}).Error())
	assert.Equal(t, "m", (&Error{Msg: "m"}).Error())
	assert.Equal(t, "no errors", ErrorList{}.Error())
}

func TestErrorsTextOfOtherErrorTypes(t *testing.T) {
	assert.Equal(t, "no errors", ErrorsText[error](nil))
	assert.Equal(t, "one", ErrorsText([]error{errors.New("one")}))
	assert.Equal(t, "one (and 2 more errors)", ErrorsText([]error{errors.New("one"), errors.New("two"), errors.New("three")}))
}

// Errors in several computations are all reported, sorted.
func TestMultipleErrors(t *testing.T) {
	src := "a {\n  ROOT p = f32[] bad(0)\n}\nb {\n  ROOT p = f32[] parameter(0), to_apply=zz\n}\nENTRY c {\n  ROOT q = f32[] negate(r)\n}\n"
	_, err := ParseFile("m.hlo", []byte(src))
	require.Error(t, err)
	var list ErrorList
	require.True(t, errors.As(err, &list))
	require.Len(t, list, 3)
	assert.Equal(t, `m.hlo:2:18: expected opcode, found unknown "bad" (not in XLA's HLO text as of jaxlib 0.12.0.1: hlo-opt --version)`, list[0].Error())
	assert.Equal(t, `m.hlo:5:32: unexpected attribute "to_apply" for parameter: expected one of backend_config, control-predecessors, frontend_attributes, metadata, origin, parameter_replication, sharding, statistics`, list[1].Error())
	assert.Equal(t, `m.hlo:8:25: expected defined instruction, found "r" (instruction does not exist: r)`, list[2].Error())
}
