package passes

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// TestParallelDrawsFromOneBudget runs a pass whose every unit fans out
// work of its own (Unit.Parallel) inside the pipeline's fan-out over
// computations: at no moment do more than Jobs goroutines work, every
// item runs once, and the run's tokens are all back at the end.
func TestParallelDrawsFromOneBudget(t *testing.T) {
	for _, jobs := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("jobs=%d", jobs), func(t *testing.T) {
			var active, most, items atomic.Int64
			p := &Pass{Name: "nested", Doc: "fan out inside units",
				RunComputation: func(u *Unit) (any, error) {
					return nil, u.Parallel(4, func(int) error {
						n := active.Add(1)
						for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
						}
						time.Sleep(200 * time.Microsecond)
						items.Add(1)
						active.Add(-1)
						return nil
					})
				}}
			pl, err := NewPipeline([]*Pass{p}, Options{Jobs: jobs, NoVerify: true})
			require.NoError(t, err)
			m := hlotest.CallsModule(8, 2)
			_, err = pl.Run(context.Background(), m)
			require.NoError(t, err)
			assert.Equal(t, int64(4*9), items.Load(), "every item of the 9 non-fusion computations, once")
			assert.LessOrEqual(t, most.Load(), int64(jobs), "goroutines at work at once")
		})
	}
}

func TestParallelBudget(t *testing.T) {
	b := newBudget(2)
	assert.Equal(t, 2, b.take(5), "takes what is free")
	assert.Equal(t, 0, b.take(1), "none left, no waiting")
	b.give(2)
	assert.Equal(t, 1, b.take(1))
	b.give(1)
	assert.Len(t, b, 2, "all back")

	var none budget
	assert.Equal(t, 0, none.take(3), "a unit outside a run works alone")

	u := &Unit{budget: newBudget(3)}
	errA, errB := errors.New("a"), errors.New("b")
	err := u.Parallel(10, func(i int) error {
		switch i {
		case 7:
			return errB
		case 4:
			return errA
		}
		return nil
	})
	assert.Equal(t, errA, err, "the error of the lowest index")
	assert.Len(t, u.budget, 3, "helpers gave their tokens back")
}
