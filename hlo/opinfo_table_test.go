package hlo

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestInfoTable checks Info's table against opInfos, the map it is built
// from: every opcode (and a copy of its name), the async sugar spellings,
// and names that are no opcode (near ones among them) give what a lookup
// of the map gives.
func TestInfoTable(t *testing.T) {
	fromMap := func(op Opcode) OpInfo {
		if i, ok := opInfos[op]; ok {
			return i
		}
		if _, async, ok := op.IsAsyncSugar(); ok {
			return opInfos[async]
		}
		return OpInfo{Arity: -1}
	}
	names := []Opcode{"", "a", "ad", "add2", "Add", "custom-call-start", "custom-call-done", "fusion-start",
		"all-reduce-start", "clz", "multiply ", "tanhh"}
	for op := range opInfos {
		names = append(names, op, Opcode(string(op)+"-start"), op[:len(op)-1])
	}
	for _, op := range names {
		assert.Equal(t, fromMap(op), Info(op), "%q", op)
	}
}
