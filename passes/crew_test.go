package passes

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

func TestCrewRunsEveryItemOnceAndWaits(t *testing.T) {
	c := newCrew(3)
	for round := range 200 {
		const items = 64
		var done [items]atomic.Int32
		var next, finished atomic.Int64
		var maxHelper atomic.Int64
		c.run(3, func(h int) {
			for {
				for m := maxHelper.Load(); int64(h) > m && !maxHelper.CompareAndSwap(m, int64(h)); m = maxHelper.Load() {
				}
				k := int(next.Add(1)) - 1
				if k >= items {
					return
				}
				if k%16 == 0 {
					time.Sleep(10 * time.Microsecond) // uneven items
				}
				done[k].Add(1)
				finished.Add(1)
			}
		})
		// run returned: every call returned, so every item is done.
		require.Equal(t, int64(items), finished.Load(), "round %d", round)
		for k := range done {
			require.Equal(t, int32(1), done[k].Load(), "item %d of round %d", k, round)
		}
		assert.LessOrEqual(t, maxHelper.Load(), int64(3))
	}
}

func TestCrewWithoutHelpersRunsOnTheCaller(t *testing.T) {
	c := newCrew(0)
	calls := 0
	c.run(0, func(h int) {
		assert.Zero(t, h)
		calls++
	})
	assert.Equal(t, 1, calls)
}

func TestCrewHelpersLeaveWhenIdle(t *testing.T) {
	c := newCrew(2)
	c.run(2, func(int) {})
	left := make(chan struct{})
	go func() {
		_ = c.g.Wait() // every helper returned
		close(left)
	}()
	select {
	case <-left:
	case <-time.After(time.Second):
		t.Fatalf("helpers still running a second after their last job (linger %v)", linger)
	}
}

// TestPipelineRunsConcurrently runs one pipeline from several goroutines
// at once, on modules of different shapes: its helpers are shared, and
// every run must still get its own, complete results.
func TestPipelineRunsConcurrently(t *testing.T) {
	pl, err := NewPipeline([]*Pass{Verify, Stats}, Options{Jobs: 4})
	require.NoError(t, err)
	want := map[int]string{}
	for n := 1; n <= 8; n++ {
		res, err := pl.Run(context.Background(), hlotest.CallsModule(n, 3))
		require.NoError(t, err)
		st, _ := ResultOf[*StatsResult](res, Stats)
		b, err := json.Marshal(st.Module)
		require.NoError(t, err)
		want[n] = string(b)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				n := (g+i)%8 + 1
				res, err := pl.Run(context.Background(), hlotest.CallsModule(n, 3))
				if !assert.NoError(t, err) {
					return
				}
				st, _ := ResultOf[*StatsResult](res, Stats)
				b, _ := json.Marshal(st.Module)
				assert.Equal(t, want[n], string(b), "module %d", n)
			}
		}()
	}
	wg.Wait()
}

func TestCrewStartsNoMoreHelpersThanAsked(t *testing.T) {
	c := newCrew(7) // the limit of Jobs: 8
	for range 10 {
		c.start(1) // one helper, as on a 2-CPU machine
		assert.LessOrEqual(t, c.alive.Load(), int32(1))
	}
	c.run(1, func(int) {})
	assert.LessOrEqual(t, c.alive.Load(), int32(1))
	_ = c.g.Wait()
	assert.Zero(t, c.alive.Load(), "helpers that returned are counted out")
}
