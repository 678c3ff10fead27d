package hlogen_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest/hlogen"
	"github.com/hlo-opt/hlo-opt/passes"
)

// Every shape parses, verifies and prints back byte for byte, and its
// instruction count grows with the scale, by 3.5 to 4.5 from scale 1 to 4.
func TestShapesParseVerifyAndGrow(t *testing.T) {
	pl, err := passes.NewPipeline([]*passes.Pass{passes.Verify}, passes.Options{Jobs: 1})
	require.NoError(t, err)
	for _, sh := range hlogen.Shapes {
		t.Run(sh.Name, func(t *testing.T) {
			var counts []int
			for _, scale := range []int{1, 4} {
				src := sh.Gen(scale)
				m, err := hlo.Parse(src)
				require.NoError(t, err, "scale %d", scale)
				_, err = pl.Run(context.Background(), m)
				require.NoError(t, err, "scale %d", scale)
				var out bytes.Buffer
				require.NoError(t, m.Print(&out, hlo.PrintOptions{}))
				assert.True(t, bytes.Equal(src, out.Bytes()), "scale %d prints back: differs from byte %d", scale, firstDiff(src, out.Bytes()))
				counts = append(counts, hlotest.CountInstructions(m))
			}
			growth := float64(counts[1]) / float64(counts[0])
			assert.True(t, growth > 3.5 && growth < 4.5, "instructions %v", counts)
		})
	}
}

// firstDiff is the offset of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// An unrolled training step of two layers: 15 instructions a layer in the
// entry (less the two of the first layer's input gradient), the input,
// five shared constants, the loss's three and the root.
func ExampleUnrolled() {
	m, err := hlo.Parse(hlogen.Unrolled(2))
	if err != nil {
		panic(err)
	}
	fmt.Println(len(m.Entry.Instructions), m.Entry.Root.Name)
	// Output:
	// 38 out
}
