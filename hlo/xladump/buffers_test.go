package xladump

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseBufferAssignment(t *testing.T) {
	ba, err := ParseBufferAssignment(`BufferAssignment:
allocation 0: size 512, page 0, constant:
 value: <12 constant.3 @0> (size=512,offset=0): s32[]{:T(128)}
allocation 1: size 262144, page 0, parameter 0, shape |bf16[2,128]| at ShapeIndex {}, output shape is |bf16[2,128]|, maybe-live-out:
 value: <5 cache.1 @0> (size=262144,offset=0): bf16[2,128]{1,0:T(2,128)(2,1)}
 value: <17 dus_fusion @0> (size=262144,offset=0): bf16[2,128]{1,0:T(2,128)(2,1)}
allocation 2: size 8, color 2, page 0, preallocated-temp:
 value: <9 copy-start{2} @2> (size=4,offset=4): u32[]{:S(2)}
 value: <1260 arg_tuple.7{4,1} (phi) @2> (size=4,offset=0): u32[]{:S(2)}

Total bytes used: 262664
`)
	require.NoError(t, err)
	require.Len(t, ba.Allocations, 3)
	assert.Equal(t, "constant", ba.Allocations[0].Kind())
	assert.Equal(t, "parameter+output", ba.Allocations[1].Kind())
	assert.Equal(t, 0, ba.Allocations[1].Parameter)
	a := ba.Allocations[2]
	assert.Equal(t, "temp", a.Kind())
	assert.Equal(t, 2, a.Color)
	assert.Equal(t, Value{ID: 9, Instruction: "copy-start", Index: []int64{2}, Color: 2, Size: 4, Offset: 4, Shape: "u32[]{:S(2)}"}, a.Values[0])
	assert.Equal(t, []int64{4, 1}, a.Values[1].Index)
	assert.Nil(t, ba.Allocations[0].Values[0].Index)
	assert.Len(t, ba.Values(), 5)
	assert.Equal(t, AllocationStats{Parameter: 262144, Constant: 512, MaybeLiveOut: 262144, PreallocatedTemp: 8, Total: 262664}, ba.Stats())
	assert.Equal(t, map[int]AllocationStats{
		0: {Parameter: 262144, Constant: 512, MaybeLiveOut: 262144, Total: 262656},
		2: {PreallocatedTemp: 8, Total: 8},
	}, ba.StatsByColor())

	_, err = ParseBufferAssignment("BufferAssignment:\n value: <1 x @0> (size=4,offset=0): f32[]\n")
	assert.Error(t, err, "a value before any allocation")
}
