package hlo

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLayoutEqual holds Layout.Equal to the printed text: two layouts are
// equal exactly when XLA prints them alike, every field after the colon
// included, and a clone equals its original.
func TestLayoutEqual(t *testing.T) {
	shapes := []string{
		"f32[8,128]{1,0}",
		"f32[8,128]{0,1}",
		"f32[8,128]{1,0:T(8,128)}",
		"f32[8,128]{1,0:T(8,128)(2,1)}",
		"f32[8,128]{1,0:T(4,128)}",
		"f32[8,128]{1,0:T(8,128)S(1)}",
		"f32[8,128]{1,0:T(8,128)E(16)}",
		"f32[8,128]{1,0:L(512)}",
		"f32[8,128]{1,0:T(8,128)*(s32)}",
		"f32[8,128]{1,0:#(s64)}",
		"f32[8,128]{1,0:M(8)}",
		"f32[8,128]{1,0:D(D,C)}",
		"f32[8,128]{1,0:SC(0:2)}",
	}
	layouts := make([]*Layout, len(shapes))
	for i, text := range shapes {
		s, err := ParseShape(text)
		require.NoError(t, err, text)
		require.NotNil(t, s.Layout, text)
		layouts[i] = s.Layout
	}
	for i, a := range layouts {
		c := a.Clone()
		assert.True(t, a.Equal(&c), "%s and its clone", shapes[i])
		assert.False(t, a.Equal(nil), "%s and nil", shapes[i])
		for j, b := range layouts {
			assert.Equal(t, a.String() == b.String(), a.Equal(b), "%s against %s", shapes[i], shapes[j])
		}
	}
	var none *Layout
	assert.True(t, none.Equal(nil))
	// L(1), like L(0), is no tail padding: neither is printed.
	assert.True(t, (&Layout{MinorToMajor: []int64{0}, TailPaddingAlignment: 1}).Equal(&Layout{MinorToMajor: []int64{0}}))
	// XLA's parser refuses a physical shape (only sparse arrays had one):
	// they are compared as shapes.
	p := func(text string) *Layout {
		s, err := ParseShape(text)
		require.NoError(t, err)
		return &Layout{MinorToMajor: []int64{0}, PhysicalShape: &s}
	}
	assert.True(t, p("s32[8]{0}").Equal(p("s32[8]{0}")))
	assert.False(t, p("s32[8]{0}").Equal(p("s32[8]{0:T(8)}")))
	assert.False(t, p("s32[8]{0}").Equal(&Layout{MinorToMajor: []int64{0}}))
}

func ExampleLayout_Equal() {
	a, _ := ParseShape("bf16[256,512]{1,0:T(8,128)(2,1)}")
	b, _ := ParseShape("bf16[256,512]{1,0:T(8,128)}")
	c := a.Layout.Clone()
	fmt.Println(a.Layout.Equal(b.Layout), a.Layout.Equal(&c))
	// Output: false true
}
