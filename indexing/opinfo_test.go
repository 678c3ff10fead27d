package indexing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestElementwiseFromOpTable checks ops whose indexing comes from hlo's
// opcode table: count-leading-zeros (once listed as "clz", so it had
// unknown indexing), exp2 and log2 (newer than the lists), acos, all
// identity maps like any unary elementwise op.
func TestElementwiseFromOpTable(t *testing.T) {
	for _, op := range []string{"count-leading-zeros", "exp2", "log2", "acos"} {
		t.Run(op, func(t *testing.T) {
			typ := "f32"
			if op == "count-leading-zeros" {
				typ = "s32"
			}
			in := parseEntry(t, `HloModule m
ENTRY e {
  p0 = `+typ+`[10,20] parameter(0)
  ROOT r = `+typ+`[10,20] `+op+`(p0)
}`, "r")
			h, err := ComputeOutputToInput(in, 0)
			require.NoError(t, err)
			require.Len(t, h.Maps, 1)
			assert.Equal(t, `(d0, d1) -> (d0, d1),
domain:
d0 in [0, 9],
d1 in [0, 19]`, mapsText(h.Maps[0]))
		})
	}
}
