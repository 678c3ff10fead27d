package passes

import (
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// linger is how long a helper goroutine stays after its last piece of
// work, polling for the next. On a virtual machine a goroutine started on
// (or woken onto) an idle CPU begins 50-600 us late: longer than a whole
// fan-out over a large module takes, and longer than the serial steps
// between two fan-outs. A helper that lingers is running when the next
// fan-out of the run (or the next run) starts, as OpenMP's worker threads
// spin for a while (KMP_BLOCKTIME) before they sleep. A helper that finds
// no work within linger returns, so an idle pipeline holds no goroutines.
const linger = 500 * time.Microsecond

// crew is the helper goroutines of a pipeline: they work on its fan-outs
// beside the goroutine that runs the pipeline. The errgroup's limit (jobs-1)
// caps how many are alive; runs of the pipeline share them.
type crew struct {
	g     errgroup.Group
	job   atomic.Pointer[crewJob]
	alive atomic.Int32 // helpers started and not returned
}

func newCrew(helpers int) *crew {
	c := new(crew)
	c.g.SetLimit(max(helpers, 1))
	return c
}

// crewJob is one piece of work offered to the crew: each helper that joins
// calls work with its number, from 1 (0 is the caller's).
type crewJob struct {
	work func(helper int)
	max  int32
	// state counts the helpers that joined; closedJob once the caller
	// closed the job to joiners.
	state atomic.Int32
	done  chan struct{} // one send per joined helper whose work returned
}

const closedJob = 1 << 30

// join adds a helper to j, returning its number, unless j is closed or
// full.
func (j *crewJob) join() (int, bool) {
	for {
		s := j.state.Load()
		if s&closedJob != 0 || s >= j.max {
			return 0, false
		}
		if j.state.CompareAndSwap(s, s+1) {
			return int(s + 1), true
		}
	}
}

// close stops further joins and returns how many helpers joined.
func (j *crewJob) close() int {
	for {
		s := j.state.Load()
		if j.state.CompareAndSwap(s, s|closedJob) {
			return int(s)
		}
	}
}

// start makes sure n helpers are alive (fewer if the errgroup's limit is
// lower); those started now join the current job, or the next, once their
// CPU runs them.
func (c *crew) start(n int) {
	for {
		a := c.alive.Load()
		if a >= int32(n) {
			return
		}
		if !c.alive.CompareAndSwap(a, a+1) {
			continue
		}
		if !c.g.TryGo(c.helper) {
			c.alive.Add(-1)
			return
		}
	}
}

// run calls work(0) on the calling goroutine and offers work to up to
// helpers helpers (work(1), work(2), ...); it returns when every call
// returned. work must share out what it does with the calls running beside
// it (taking items from a common counter, say), since any number of
// helpers, none included, may join, and must return promptly once nothing
// is left to take.
func (c *crew) run(helpers int, work func(helper int)) {
	if helpers <= 0 {
		work(0)
		return
	}
	c.start(helpers)
	j := &crewJob{work: work, max: int32(helpers), done: make(chan struct{}, helpers)}
	c.job.Store(j)
	work(0)
	n := j.close()
	c.job.CompareAndSwap(j, nil)
	// Wait polling: a goroutine that blocks gives up its CPU, and the
	// helper whose send wakes it would hand it its own CPU and then
	// have to wait on the global queue for the idle one to wake (the
	// same 50-600 us). What is left to wait for is the helpers' last
	// items; the poll ends at linger, for a helper that is not running.
	spin(time.Now().Add(linger), func() bool {
		for n > 0 {
			select {
			case <-j.done:
				n--
				continue
			default:
			}
			return false
		}
		return true
	})
	for ; n > 0; n-- {
		<-j.done
	}
}

// yieldEvery is how often a polling goroutine lets others have its CPU.
// Rarely: when the caller and a helper both yield at once, one CPU's
// scheduler may take them both and leave the other CPU to sleep, and it
// wakes late.
const yieldEvery = 50 * time.Microsecond

// spin calls done until it returns true, then returns true, or until the
// deadline passed, then returns false.
func spin(deadline time.Time, done func() bool) bool {
	yielded := time.Now()
	for i := 1; ; i++ {
		if done() {
			return true
		}
		if i%64 == 0 {
			now := time.Now()
			if now.After(deadline) {
				return false
			}
			if now.Sub(yielded) >= yieldEvery {
				runtime.Gosched()
				yielded = now
			}
		}
	}
}

// helper joins the jobs offered to the crew until none came for linger.
func (c *crew) helper() error {
	defer c.alive.Add(-1)
	var last *crewJob
	for {
		var j *crewJob
		if !spin(time.Now().Add(linger), func() bool {
			j = c.job.Load()
			return j != nil && j != last
		}) {
			return nil
		}
		last = j
		if w, ok := j.join(); ok {
			j.work(w)
			j.done <- struct{}{}
		}
	}
}
