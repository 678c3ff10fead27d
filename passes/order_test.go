package passes

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hlo-opt/hlo-opt/graph"
	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

func TestLargestFirst(t *testing.T) {
	b := hlotest.NewBuilder("m")
	f32 := hlo.Shape{Type: hlo.F32}
	// Sizes 1, 30, 2, 3, 40 (a fusion's 35 fused instructions count) and
	// 1: the average is 13, so 30 and 40 are large.
	sizes := map[string]int{"a": 1, "big30": 30, "b": 2, "c": 3, "d": 1}
	for _, name := range []string{"a", "big30", "b", "c", "d"} {
		b.Computation(name)
		for i := range sizes[name] {
			b.Add(name+string(rune('a'+i%26))+string(rune('a'+i/26)), "constant", f32)
		}
	}
	b.Computation("fused")
	for i := range 35 {
		b.Add("f"+string(rune('a'+i%26))+string(rune('a'+i/26)), "constant", f32)
	}
	b.Entry("big40")
	for i := range 4 {
		b.Add("e"+string(rune('a'+i)), "constant", f32)
	}
	fusion := b.Add("fusion", "fusion", f32)
	fusion.Called = []*hlo.Computation{b.Module().Computations[5]}
	fusion.Attrs = []hlo.Attribute{{Name: "calls", Value: "%fused"}}
	m := b.Module()
	cg := graph.NewCallGraph(m)
	comps, err := cg.NonFusionPostOrder()
	assert.NoError(t, err)
	var got []string
	for _, c := range largestFirst(cg, comps) {
		got = append(got, c.Name)
	}
	assert.Equal(t, []string{"big40", "big30", "a", "b", "c", "d"}, got)
}
