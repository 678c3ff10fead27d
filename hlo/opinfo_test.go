package hlo_test

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
)

func TestOpInfo(t *testing.T) {
	for _, op := range hlo.Opcodes {
		i := hlo.Info(op)
		assert.Equal(t, i, hlo.Info(hlo.Opcode(strings.Clone(string(op)))), "%s spelled at run time", op)
		if i.Elementwise && op != hlo.OpMap {
			assert.Contains(t, []int{1, 2, 3}, i.Arity, "%s: an elementwise op has 1 to 3 operands", op)
		}
		if i.Transcendental {
			assert.True(t, i.Elementwise, "%s: transcendentals are elementwise", op)
		}
	}
	assert.Equal(t, hlo.OpInfo{Arity: 1, Elementwise: true, KeepsLayout: true}, hlo.Info(hlo.OpClz), "count-leading-zeros")
	_, ok := hlo.LookupOpcode("clz")
	assert.False(t, ok, "clz is not XLA's spelling")
	assert.Equal(t, hlo.OpInfo{Arity: -1}, hlo.Info("clz"))
	assert.True(t, hlo.Info(hlo.OpExp2).Elementwise)
	assert.True(t, hlo.Info(hlo.OpLog2).Elementwise)
	assert.False(t, hlo.Info(hlo.OpBitcastConvert).Elementwise, "only when the width is kept: the instruction tells")
	assert.Equal(t, hlo.Info(hlo.OpAsyncStart), hlo.Info("custom-call-start"), "async sugar")
	assert.True(t, hlo.Info(hlo.OpAllReduceStart).Async)
	assert.True(t, hlo.Info(hlo.OpInfeed).SideEffect)
	assert.True(t, hlo.Info(hlo.OpTanh).Transcendental)
	assert.False(t, hlo.Info(hlo.OpAdd).Transcendental)
}

// TestOpInfoXLA checks that every opcode of XLA's HLO_OPCODE_LIST
// (testdata/xla_hlo_opcodes.txt, read from hlo_opcode.h) is known with
// XLA's arity, and that the table knows nothing else but the opcodes newer
// than that list.
func TestOpInfoXLA(t *testing.T) {
	f, err := os.Open("testdata/xla_hlo_opcodes.txt")
	require.NoError(t, err)
	defer f.Close()
	xla := map[hlo.Opcode]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			name, arity, ok := strings.Cut(line, " ")
			require.True(t, ok, line)
			n, err := strconv.Atoi(arity)
			require.NoError(t, err, line)
			op, known := hlo.LookupOpcode(name)
			if assert.True(t, known, "XLA's %q is not an opcode of the table", name) {
				assert.Equal(t, n, hlo.Info(op).Arity, "arity of %q", name)
			}
			xla[op] = true
		}
	}
	require.NoError(t, sc.Err())
	require.Len(t, xla, 136, "the whole HLO_OPCODE_LIST was read")
	var newer []hlo.Opcode
	for _, op := range hlo.Opcodes {
		if !xla[op] {
			newer = append(newer, op)
		}
	}
	assert.Equal(t, []hlo.Opcode{hlo.OpExp2, hlo.OpLog2}, newer, "opcodes beyond the XLA list read")
	for _, op := range newer {
		assert.Equal(t, hlo.OpInfo{Arity: 1, Elementwise: true, Transcendental: true, KeepsLayout: true}, hlo.Info(op), "%s", op)
	}
}

// TestKeepsLayout checks the layout column: elementwise ops keep their
// layout (count-leading-zeros too, once listed as "clz" and so free to
// change it), copy is how a layout changes, a reshape or dot may change it.
func TestKeepsLayout(t *testing.T) {
	for _, op := range []hlo.Opcode{hlo.OpClz, hlo.OpExp2, hlo.OpAcos, hlo.OpAdd, hlo.OpSelect, hlo.OpSlice, hlo.OpConcatenate} {
		assert.True(t, hlo.Info(op).KeepsLayout, "%s", op)
	}
	for _, op := range []hlo.Opcode{hlo.OpCopy, hlo.OpReshape, hlo.OpTranspose, hlo.OpDot, hlo.OpFusion, hlo.OpBroadcast} {
		assert.False(t, hlo.Info(op).KeepsLayout, "%s", op)
	}
}

func TestInstructionIsElementwise(t *testing.T) {
	m, err := hlo.Parse([]byte(`HloModule m

ENTRY e {
  p = f32[4]{0} parameter(0)
  q = s32[4]{0} bitcast-convert(p)
  r = u8[4,4]{1,0} bitcast-convert(p)
  n = f32[4]{0} negate(p)
  ROOT t = (s32[4]{0}, u8[4,4]{1,0}, f32[4]{0}) tuple(q, r, n)
}
`))
	require.NoError(t, err)
	got := map[string]bool{}
	for _, in := range m.Entry.Instructions {
		got[in.Name] = in.IsElementwise()
	}
	assert.Equal(t, map[string]bool{"p": false, "q": true, "r": false, "n": true, "t": false}, got)
}
