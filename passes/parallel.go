package passes

import "golang.org/x/sync/errgroup"

// parallel calls work(0) on the calling goroutine and work(1) ...
// work(helpers) on as many goroutines of an errgroup, and returns when all
// returned: the one way the pipeline fans work out. The calls share the
// work among themselves (taking items from a common counter), so the
// result does not depend on how many run; no goroutine outlives the call.
func parallel(helpers int, work func(helper int)) {
	if helpers <= 0 {
		work(0)
		return
	}
	var g errgroup.Group
	g.SetLimit(helpers)
	for h := 1; h <= helpers; h++ {
		g.Go(func() error {
			work(h)
			return nil
		})
	}
	work(0)
	_ = g.Wait()
}
