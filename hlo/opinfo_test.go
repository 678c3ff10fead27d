package hlo_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

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
	assert.Equal(t, hlo.OpInfo{Arity: 1, Elementwise: true}, hlo.Info(hlo.OpClz), "count-leading-zeros")
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
