package passes

import (
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// parallel calls work(0) on the calling goroutine and work(1) ...
// work(helpers) on as many goroutines of an errgroup, helpers tokens the
// caller took from b, and returns when all returned: the one way the
// pipeline fans work out. The calls share the work among themselves
// (taking items from a common counter), so the result does not depend on
// how many run; a helper gives its token back as soon as its work
// returns (for a fan-out nested in the caller's last items), and no
// goroutine outlives the call.
func parallel(b budget, helpers int, work func(helper int)) {
	if helpers <= 0 {
		work(0)
		return
	}
	var g errgroup.Group
	g.SetLimit(helpers)
	for h := 1; h <= helpers; h++ {
		g.Go(func() error {
			defer b.give(1)
			work(h)
			return nil
		})
	}
	work(0)
	_ = g.Wait()
}

// budget is a run's jobs budget: the goroutines that may work beside the
// caller of Run, Jobs-1 tokens (no more than GOMAXPROCS-1). Every fan-out,
// the pipeline's over computations as a pass's own inside a unit
// (Unit.Parallel), takes what tokens are free without waiting and gives
// them back when it ends, so that at most Jobs goroutines work at once
// however fan-outs nest. A nil budget has no tokens.
type budget chan struct{}

func newBudget(helpers int) budget {
	b := make(budget, max(helpers, 0))
	for range helpers {
		b <- struct{}{}
	}
	return b
}

// take takes up to n free tokens and returns how many it took.
func (b budget) take(n int) int {
	took := 0
	for took < n {
		select {
		case <-b:
			took++
		default:
			return took
		}
	}
	return took
}

// give returns n tokens.
func (b budget) give(n int) {
	for range n {
		b <- struct{}{}
	}
}

// Parallel calls do(0), ..., do(n-1), on the calling goroutine and on as
// many helpers as the run's jobs budget has free (none with Jobs 1, or
// while the pipeline's own workers hold them all), and returns the error of
// the lowest i that failed. Each call must write only its own results (a
// slot per i), so that they do not depend on how many goroutines ran: this
// is how a pass fans out work of its own inside a unit.
func (u *Unit) Parallel(n int, do func(i int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	parallel(u.budget, u.budget.take(n-1), func(int) {
		for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
			errs[i] = do(i)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
