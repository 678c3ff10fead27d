package passes

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/hlo-opt/hlo-opt/graph"
	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

func TestPipelineRunsRequiresOnceAndInvalidates(t *testing.T) {
	var analysisRuns atomic.Int32
	analysis := &Pass{Name: "count", Doc: "count instructions", ResultType: reflect.TypeFor[int](),
		Run: func(u *Unit) (any, error) {
			analysisRuns.Add(1)
			n := 0
			for _, c := range u.Module.Computations {
				n += len(c.Instructions)
			}
			return n, nil
		}}
	var seen []int
	user := func(name string) *Pass {
		return &Pass{Name: name, Doc: "read count", Requires: []*Pass{analysis},
			Run: func(u *Unit) (any, error) { seen = append(seen, u.ResultOf(analysis).(int)); return nil, nil }}
	}
	u1, u2, u3 := user("u1"), user("u2"), user("u3")
	grow := &Pass{Name: "grow", Doc: "add an instruction", Transform: true,
		Run: func(u *Unit) (any, error) {
			c := u.Module.Entry
			in := &hlo.Instruction{Name: "extra", Opcode: "copy", Shape: c.Root.Shape, Operands: []*hlo.Instruction{c.Root},
				Parent: c, Index: len(c.Instructions), ParameterNumber: -1}
			c.Instructions = append(c.Instructions, in)
			c.Root = in
			u.SetChanged()
			return nil, nil
		}}

	var events []string
	pl, err := NewPipeline([]*Pass{u1, u2, grow, u3}, Options{Jobs: 2, Logger: zaptest.NewLogger(t),
		AfterPass: func(e PassEvent) error {
			events = append(events, e.Pass.Name)
			return nil
		}})
	require.NoError(t, err)
	m, _ := hlotest.LoopsModule()
	before := 0
	for _, c := range m.Computations {
		before += len(c.Instructions)
	}
	res, err := pl.Run(context.Background(), m)
	require.NoError(t, err)
	assert.Equal(t, []int{before, before, before + 1, before + 1, before + 1}, seen,
		"the analysis is cached, then recomputed after the change; u1 and u2 run again on the final module")
	assert.Equal(t, int32(2), analysisRuns.Load())
	assert.Equal(t, []string{"count", "u1", "u2", "grow", "count", "u3", "u1", "u2"}, events)
	n, ok := ResultOf[int](res, analysis)
	assert.True(t, ok)
	assert.Equal(t, before+1, n)
	assert.Len(t, res.Timings, 8)
}

// Two transforms that change the IR every time, each required by one
// analysis, never let the results settle: an error, not a loop.
func TestPipelineRefreshNeedsTheIRToSettle(t *testing.T) {
	grower := func(name string) *Pass {
		return &Pass{Name: name, Doc: "add an instruction every time", Transform: true,
			Run: func(u *Unit) (any, error) {
				c := u.Module.Entry
				in := &hlo.Instruction{Name: name + "." + strconv.Itoa(len(c.Instructions)), Opcode: "copy", Shape: c.Root.Shape,
					Operands: []*hlo.Instruction{c.Root}, Parent: c, Index: len(c.Instructions), ParameterNumber: -1}
				c.Instructions = append(c.Instructions, in)
				c.Root = in
				u.SetChanged()
				return nil, nil
			}}
	}
	reads := func(name string, g *Pass) *Pass {
		return &Pass{Name: name, Doc: "require a grower", Requires: []*Pass{g}, Run: func(*Unit) (any, error) { return nil, nil }}
	}
	pl, err := NewPipeline([]*Pass{reads("a", grower("g1")), reads("b", grower("g2"))}, Options{Jobs: 1})
	require.NoError(t, err)
	m, _ := hlotest.LoopsModule()
	_, err = pl.Run(context.Background(), m)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not settle")
}

func TestPipelineVerifiesAfterChangeAndNamesThePass(t *testing.T) {
	breaker := &Pass{Name: "breaker", Doc: "drop an operand", Transform: true,
		RunComputation: func(u *Unit) (any, error) {
			for _, in := range u.Computation.Instructions {
				if in.Opcode == "add" {
					in.Operands = in.Operands[:1]
					u.SetChanged()
				}
			}
			return nil, nil
		}}
	pl, err := NewPipeline([]*Pass{breaker, Stats}, Options{Jobs: 3})
	require.NoError(t, err)
	m, _ := hlotest.LoopsModule()
	m.Source = "loops.hlo"
	_, err = pl.Run(context.Background(), m)
	var pe *PassError
	require.True(t, errors.As(err, &pe), "got %v", err)
	assert.Equal(t, "verify", pe.Pass)
	assert.Equal(t, "breaker", pe.After)
	assert.Equal(t, `verify after pass "breaker": loops.hlo: sum/s: add has 1 operands, want 2`, err.Error())

	pl, err = NewPipeline([]*Pass{breaker, Stats}, Options{NoVerify: true})
	require.NoError(t, err)
	m, _ = hlotest.LoopsModule()
	_, err = pl.Run(context.Background(), m)
	assert.NoError(t, err, "--verify=false")
}

// An invalid input is the input's fault: verify runs before the first
// pass and no pass sees the module.
func TestPipelineVerifiesTheInputFirst(t *testing.T) {
	ran := false
	spy := &Pass{Name: "spy", Doc: "notes that it ran", Run: func(*Unit) (any, error) { ran = true; return nil, nil }}
	m, _ := hlotest.LoopsModule()
	m.Source = "loops.hlo"
	for _, in := range m.Computation("sum").Instructions {
		if in.Opcode == "add" {
			in.Operands = in.Operands[:1]
		}
	}
	pl, err := NewPipeline([]*Pass{spy, Stats}, Options{Jobs: 2})
	require.NoError(t, err)
	_, err = pl.Run(context.Background(), m)
	var pe *PassError
	require.True(t, errors.As(err, &pe), "got %v", err)
	assert.True(t, pe.Input)
	assert.Equal(t, `invalid input (verify): loops.hlo: sum/s: add has 1 operands, want 2`, err.Error())
	assert.False(t, ran, "no pass ran on the invalid input")

	pl, err = NewPipeline([]*Pass{spy}, Options{NoVerify: true})
	require.NoError(t, err)
	_, err = pl.Run(context.Background(), m)
	assert.NoError(t, err, "--verify=false runs the passes on it anyway")
	assert.True(t, ran)
}

// With Verify requested first and a transform that an analysis requires
// run before it (upfront), the input is still verified before the
// transform sees it; the requested Verify then takes the check made after
// the transform rather than checking the same IR a third time.
func TestPipelineVerifiesTheInputBeforeUpfrontTransforms(t *testing.T) {
	transformed := 0
	touch := &Pass{Name: "touch", Doc: "changes the IR", Transform: true, Run: func(u *Unit) (any, error) {
		transformed++
		u.SetChanged()
		return nil, nil
	}}
	reader := &Pass{Name: "reader", Doc: "requires touch", Requires: []*Pass{touch}, Run: func(*Unit) (any, error) { return nil, nil }}
	verifies := 0
	opts := Options{AfterPass: func(e PassEvent) error {
		if e.Pass == Verify {
			verifies++
		}
		return nil
	}}

	m, _ := hlotest.LoopsModule()
	m.Source = "loops.hlo"
	for _, in := range m.Computation("sum").Instructions {
		if in.Opcode == "add" {
			in.Operands = in.Operands[:1]
		}
	}
	pl, err := NewPipeline([]*Pass{Verify, reader}, opts)
	require.NoError(t, err)
	_, err = pl.Run(context.Background(), m)
	var pe *PassError
	require.True(t, errors.As(err, &pe), "got %v", err)
	assert.True(t, pe.Input, "the input's fault, not touch's")
	assert.Zero(t, transformed, "the transform did not see the invalid input")

	m, _ = hlotest.LoopsModule()
	res, err := pl.Run(context.Background(), m)
	require.NoError(t, err)
	assert.Equal(t, 1, transformed)
	assert.Equal(t, 1, verifies, "one event for the requested verify")
	v, ok := res.Of(Verify)
	require.True(t, ok, "the requested verify has its result")
	assert.NotNil(t, v)
}

func TestPipelineReportsEveryComputationsErrorsInOrder(t *testing.T) {
	m := hlotest.CallsModule(6, 3)
	// Break c1, c4 and main: operands from another computation.
	foreign := m.Computations[0].Instructions[0]
	for _, name := range []string{"c4", "c1", "main"} {
		c := m.Computation(name)
		c.Instructions[1].Operands[0] = foreign
	}
	for _, jobs := range []int{1, 4} {
		pl, err := NewPipeline([]*Pass{Verify}, Options{Jobs: jobs})
		require.NoError(t, err)
		_, err = pl.Run(context.Background(), m)
		var l ErrorList
		require.True(t, errors.As(err, &l), "got %v", err)
		var where []string
		for _, e := range l {
			where = append(where, e.Computation)
		}
		assert.Equal(t, []string{"c1", "c4", "main"}, where, "jobs=%d", jobs)
		var buf bytes.Buffer
		PrintErrors(&buf, err)
		assert.Equal(t, "pass verify: c1/v0: operand 0 (fp) is not defined in computation c1\n"+
			"pass verify: c4/v0: operand 0 (fp) is not defined in computation c4\n"+
			"pass verify: main/call0: operand 0 (fp) is not defined in computation main\n", buf.String())
	}
}

func TestPipelineCalleesFirst(t *testing.T) {
	var mu sync.Mutex
	var order []string
	p := &Pass{Name: "depth", Doc: "call depth", CalleesFirst: true, ResultType: reflect.TypeFor[ComputationResults](),
		RunComputation: func(u *Unit) (any, error) {
			d := 0
			for _, callee := range u.CallGraph.Callees(u.Computation) {
				if v, ok := u.Part(callee).(int); ok {
					d = max(d, v+1)
				} else if !u.CallGraph.IsFusionComputation(callee) {
					return nil, errors.New("callee result missing: " + callee.Name)
				}
			}
			mu.Lock()
			order = append(order, u.Computation.Name)
			mu.Unlock()
			return d, nil
		}}
	for _, jobs := range []int{1, 2, 8} {
		order = nil
		pl, err := NewPipeline([]*Pass{p}, Options{Jobs: jobs})
		require.NoError(t, err)
		m, cs := hlotest.LoopsModule()
		res, err := pl.Run(context.Background(), m)
		require.NoError(t, err)
		parts, ok := ResultOf[ComputationResults](res, p)
		require.True(t, ok)
		assert.Equal(t, 2, parts[slicesIndex(m, cs["main"])])
		assert.Equal(t, 1, parts[slicesIndex(m, cs["body"])])
		assert.Nil(t, parts[slicesIndex(m, cs["fused"])], "fusion computations are not visited")
		assert.Equal(t, "main", order[len(order)-1])
		if jobs == 1 {
			assert.Equal(t, []string{"sum", "cond", "body", "br0", "br1", "main"}, order)
		}
	}
}

func slicesIndex(m *hlo.Module, c *hlo.Computation) int {
	for i, x := range m.Computations {
		if x == c {
			return i
		}
	}
	return -1
}

func TestPipelineCancellation(t *testing.T) {
	started := make(chan struct{}, 100)
	slow := &Pass{Name: "slow", Doc: "wait for cancellation",
		RunComputation: func(u *Unit) (any, error) {
			started <- struct{}{}
			<-u.Context().Done()
			return nil, u.Context().Err()
		}}
	pl, err := NewPipeline([]*Pass{slow, Stats}, Options{Jobs: 2})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := pl.Run(ctx, hlotest.CallsModule(50, 2))
		done <- err
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("pipeline did not stop after cancellation")
	}
}

func TestPipelinePanicsAndResultTypes(t *testing.T) {
	boom := &Pass{Name: "boom", Doc: "panic", RunComputation: func(u *Unit) (any, error) {
		if u.Computation.Name == "c1" {
			panic("bad")
		}
		return nil, nil
	}}
	pl, err := NewPipeline([]*Pass{boom}, Options{})
	require.NoError(t, err)
	_, err = pl.Run(context.Background(), hlotest.CallsModule(3, 1))
	assert.EqualError(t, err, "pass boom: c1: panic during pass boom on computation c1: bad")
	var pe *PanicError
	require.True(t, errors.As(err, &pe), "the recovered panic is found through the error list (the fuzz tests look for it)")
	assert.Equal(t, "bad", pe.Value)
	whole := &Pass{Name: "whole", Doc: "panic in Run", Run: func(*Unit) (any, error) { panic("bad too") }}
	pl, err = NewPipeline([]*Pass{whole}, Options{})
	require.NoError(t, err)
	_, err = pl.Run(context.Background(), hlotest.CallsModule(3, 1))
	require.True(t, errors.As(err, &pe), "got %v", err)
	assert.Equal(t, "bad too", pe.Value)

	liar := &Pass{Name: "liar", Doc: "wrong result type", ResultType: reflect.TypeFor[string](),
		Run: func(*Unit) (any, error) { return 3, nil }}
	pl, err = NewPipeline([]*Pass{liar}, Options{})
	require.NoError(t, err)
	_, err = pl.Run(context.Background(), hlotest.CallsModule(1, 1))
	assert.ErrorContains(t, err, `internal error: pass "liar" returned a int, but declared ResultType string`)

	_, err = NewPipeline(nil, Options{})
	assert.Error(t, err)
}

func TestUnitJobsIsThePipelinesLimit(t *testing.T) {
	for _, jobs := range []int{0, 1, 3} {
		var mu sync.Mutex
		seen := map[int]bool{}
		p := &Pass{Name: "jobs", Doc: "record the job limit",
			RunComputation: func(u *Unit) (any, error) {
				mu.Lock()
				seen[u.Jobs()] = true
				mu.Unlock()
				return nil, nil
			},
			Run: func(u *Unit) (any, error) {
				mu.Lock()
				seen[u.Jobs()] = true
				mu.Unlock()
				return nil, nil
			}}
		pl, err := NewPipeline([]*Pass{p}, Options{Jobs: jobs})
		require.NoError(t, err)
		_, err = pl.Run(context.Background(), hlotest.CallsModule(4, 2))
		require.NoError(t, err)
		want := jobs
		if jobs == 0 {
			want = runtime.GOMAXPROCS(0)
		}
		assert.Equal(t, map[int]bool{want: true}, seen, "Options.Jobs=%d", jobs)
	}
}

// tracer returns an analysis with a RunComputation that logs "name:comp"
// into log, and a Run that logs "name:run".
func tracer(name string, log *[]string, mu *sync.Mutex, requires ...*Pass) *Pass {
	add := func(s string) {
		mu.Lock()
		*log = append(*log, s)
		mu.Unlock()
	}
	return &Pass{Name: name, Doc: "trace", Requires: requires, ResultType: reflect.TypeFor[int](),
		RunComputation: func(u *Unit) (any, error) {
			for _, q := range u.Pass.Requires {
				if u.ResultOf(q) == nil {
					return nil, errors.New("required result missing")
				}
			}
			add(name + ":" + u.Computation.Name)
			return len(u.Computation.Instructions), nil
		},
		Run: func(u *Unit) (any, error) {
			add(name + ":run")
			n := 0
			for _, c := range u.Module.Computations {
				v, _ := u.Part(c).(int)
				n += v
			}
			return n, nil
		}}
}

func TestPipelineChainsAnalysesInOneFanOut(t *testing.T) {
	var mu sync.Mutex
	var log []string
	a, b := tracer("a", &log, &mu), tracer("b", &log, &mu)
	m, _ := hlotest.LoopsModule()
	total := 0
	for _, c := range m.Computations {
		total += len(c.Instructions)
	}
	for _, jobs := range []int{1, 2, 8} {
		log = nil
		var events []string
		pl, err := NewPipeline([]*Pass{a, b}, Options{Jobs: jobs, AfterPass: func(e PassEvent) error {
			events = append(events, e.Pass.Name)
			assert.True(t, e.Requested)
			return nil
		}})
		require.NoError(t, err)
		res, err := pl.Run(context.Background(), m)
		require.NoError(t, err)
		assert.Equal(t, []string{"a", "b"}, events, "jobs=%d", jobs)
		require.Len(t, res.Timings, 2)
		assert.Equal(t, "a", res.Timings[0].Pass)
		assert.Equal(t, "b", res.Timings[1].Pass)
		for _, p := range []*Pass{a, b} {
			n, ok := ResultOf[int](res, p)
			assert.True(t, ok)
			assert.Equal(t, total-len(m.Computation("fused").Instructions), n, "fusion computations are not visited")
		}
		// Every computation's chain ends before either Run.
		assert.Equal(t, []string{"a:run", "b:run"}, log[len(log)-2:], "jobs=%d", jobs)
		if jobs == 1 {
			// Largest first; each computation gets a then b.
			for k := 0; k+3 < len(log); k += 2 {
				assert.Equal(t, "a:", log[k][:2])
				assert.Equal(t, "b"+log[k][1:], log[k+1])
			}
		}
	}
}

// TestPipelineChainSplitsItsTime: analyses chained through one fan-out
// share its wall time as they spent it on the computations, so a cheap
// analysis chained before a slow one is not charged with the slow one's
// work (and the shares add up to the fan-out).
func TestPipelineChainSplitsItsTime(t *testing.T) {
	cheap := &Pass{Name: "cheap", Doc: "returns at once", RunComputation: func(u *Unit) (any, error) { return nil, nil }}
	slow := &Pass{Name: "slow", Doc: "sleeps on every computation", RunComputation: func(u *Unit) (any, error) {
		time.Sleep(5 * time.Millisecond)
		return nil, nil
	}}
	m, _ := hlotest.LoopsModule()
	pl, err := NewPipeline([]*Pass{cheap, slow}, Options{Jobs: 1})
	require.NoError(t, err)
	res, err := pl.Run(context.Background(), m)
	require.NoError(t, err)
	require.Len(t, res.Timings, 2)
	assert.Equal(t, "cheap", res.Timings[0].Pass)
	assert.Greater(t, res.Timings[1].Elapsed, 10*res.Timings[0].Elapsed, "the slow analysis carries the fan-out")
	assert.GreaterOrEqual(t, res.Timings[1].Elapsed, 5*time.Millisecond)
}

func TestPipelineChainBarriers(t *testing.T) {
	var mu sync.Mutex
	var log []string
	x := tracer("x", &log, &mu)
	a := tracer("a", &log, &mu)
	needsX := tracer("needs_x", &log, &mu, x)
	needsA := tracer("needs_a", &log, &mu, a)
	needsX2 := tracer("needs_x2", &log, &mu, x)
	touch := &Pass{Name: "touch", Doc: "transform that changes nothing", Transform: true,
		RunComputation: func(u *Unit) (any, error) {
			mu.Lock()
			log = append(log, "touch:"+u.Computation.Name)
			mu.Unlock()
			return nil, nil
		}}
	cases := []struct {
		name   string
		ps     []*Pass
		chains [][]string // passes whose computations interleave
	}{
		// x is not run yet: needs_x runs alone after it.
		{"unsatisfied requirement", []*Pass{a, needsX}, nil},
		// needs_a reads a's module-level result.
		{"result of an earlier pass", []*Pass{a, needsA}, nil},
		{"transform", []*Pass{a, touch, x}, nil},
		{"after a transform", []*Pass{touch, a, x}, [][]string{{"a", "x"}}},
		// needs_x cannot join x's chain, which runs before it.
		{"requirement run in the chain", []*Pass{x, a, needsX}, [][]string{{"x", "a"}}},
		{"requirement already run", []*Pass{needsX, a, needsX2}, [][]string{{"a", "needs_x2"}}},
	}
	for _, tc := range cases {
		log = nil
		pl, err := NewPipeline(tc.ps, Options{Jobs: 1})
		require.NoError(t, err)
		_, err = pl.Run(context.Background(), hlotest.CallsModule(3, 2))
		require.NoError(t, err, tc.name)
		// Collapse the log into runs of one pass.
		var runs []string
		for _, s := range log {
			name := s[:strings.IndexByte(s, ':')]
			if len(runs) == 0 || runs[len(runs)-1] != name {
				runs = append(runs, name)
			}
		}
		interleaved := map[string]bool{}
		for _, ch := range tc.chains {
			for _, p := range ch {
				interleaved[p] = true
			}
		}
		for _, p := range tc.ps {
			count := 0
			for _, r := range runs {
				if r == p.Name {
					count++
				}
			}
			if interleaved[p.Name] {
				assert.Greater(t, count, 2, "%s: %s runs interleaved with its chain: %v", tc.name, p.Name, runs)
			} else {
				assert.LessOrEqual(t, count, 2, "%s: %s runs alone (fan-out, then Run): %v", tc.name, p.Name, runs)
			}
		}
	}
}

func TestPipelineChainStopsAtTheFirstFailingPass(t *testing.T) {
	m := hlotest.CallsModule(6, 3)
	foreign := m.Computations[0].Instructions[0]
	for _, name := range []string{"c4", "c1"} {
		m.Computation(name).Instructions[1].Operands[0] = foreign
	}
	var later atomic.Int32
	after := &Pass{Name: "after", Doc: "count calls", CalleesFirst: true,
		RunComputation: func(u *Unit) (any, error) {
			if u.Computation.Name == "c1" || u.Computation.Name == "c4" {
				t.Errorf("ran on %s after verify failed there", u.Computation.Name)
			}
			later.Add(1)
			return nil, nil
		}}
	for _, jobs := range []int{1, 2, 4} {
		pl, err := NewPipeline([]*Pass{Verify, after, Stats}, Options{Jobs: jobs})
		require.NoError(t, err)
		res, err := pl.Run(context.Background(), m)
		var buf bytes.Buffer
		PrintErrors(&buf, err)
		assert.Equal(t, "pass verify: c1/v0: operand 0 (fp) is not defined in computation c1\n"+
			"pass verify: c4/v0: operand 0 (fp) is not defined in computation c4\n", buf.String(), "jobs=%d", jobs)
		_, ok := res.Of(after)
		assert.False(t, ok)
		_, ok = res.Of(Stats)
		assert.False(t, ok)
	}
}

func TestPipelineChainGivesTheSameResults(t *testing.T) {
	for _, cm := range hlotest.CorpusModules(t)[:6] {
		var want []any
		for _, p := range []*Pass{Verify, Stats} {
			pl, err := NewPipeline([]*Pass{p}, Options{Jobs: 1})
			require.NoError(t, err)
			res, err := pl.Run(context.Background(), cm.Module)
			require.NoError(t, err)
			v, _ := res.Of(p)
			want = append(want, v)
		}
		for _, jobs := range []int{1, 2} {
			pl, err := NewPipeline([]*Pass{Verify, Stats}, Options{Jobs: jobs})
			require.NoError(t, err)
			res, err := pl.Run(context.Background(), cm.Module)
			require.NoError(t, err)
			for k, p := range []*Pass{Verify, Stats} {
				v, _ := res.Of(p)
				assert.Equal(t, want[k], v, "%s %s jobs=%d", cm.Path, p.Name, jobs)
			}
		}
	}
}

func TestUnitLocalIsKeptPerWorker(t *testing.T) {
	for _, jobs := range []int{1, 2, 8} {
		var mu sync.Mutex
		made := 0
		locals := map[*int]int{} // local -> units that used it
		var runLocal *int
		newLocal := func() any {
			mu.Lock()
			made++
			mu.Unlock()
			return new(int)
		}
		// Two passes in one chain: each has locals of its own.
		pass := func(name string) *Pass {
			return &Pass{Name: name, Doc: "use a local",
				RunComputation: func(u *Unit) (any, error) {
					l := u.Local(newLocal).(*int)
					*l++ // no lock: one goroutine at a time
					mu.Lock()
					locals[l]++
					mu.Unlock()
					return nil, nil
				},
				Run: func(u *Unit) (any, error) {
					runLocal = u.Local(newLocal).(*int)
					return nil, nil
				}}
		}
		pl, err := NewPipeline([]*Pass{pass("a"), pass("b")}, Options{Jobs: jobs})
		require.NoError(t, err)
		m := hlotest.CallsModule(6, 2)
		_, err = pl.Run(context.Background(), m)
		require.NoError(t, err)
		units := 0
		for l, n := range locals {
			assert.Equal(t, n, *l, "a local is used by the units that got it, one at a time")
			units += n
		}
		workers := min(jobs, runtime.GOMAXPROCS(0))
		comps, err := graph.NewCallGraph(m).NonFusionPostOrder()
		require.NoError(t, err)
		assert.Equal(t, 2*len(comps), units, "jobs=%d", jobs)
		assert.LessOrEqual(t, len(locals), 2*workers, "at most one local per pass and worker")
		if jobs == 1 {
			assert.Len(t, locals, 2, "one worker: one local per pass")
		}
		assert.NotContains(t, locals, runLocal, "a Run unit gets a value of its own")
		assert.Equal(t, len(locals)+2, made, "every Run unit's value is new")
	}
}

func TestUnitLoggerNamesPassAndComputation(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	p := &Pass{Name: "talk", Doc: "log once per computation",
		RunComputation: func(u *Unit) (any, error) {
			u.Logger.Info("hello")
			return nil, nil
		}}
	pl, err := NewPipeline([]*Pass{p}, Options{Jobs: 2, Logger: zap.New(core)})
	require.NoError(t, err)
	m := hlotest.CallsModule(3, 2)
	_, err = pl.Run(context.Background(), m)
	require.NoError(t, err)
	var comps []string
	for _, e := range logs.FilterMessage("hello").All() {
		assert.Equal(t, "talk", e.LoggerName)
		comps = append(comps, e.ContextMap()["computation"].(string))
	}
	slices.Sort(comps)
	want, err := graph.NewCallGraph(m).NonFusionPostOrder()
	require.NoError(t, err)
	var names []string
	for _, c := range want {
		names = append(names, c.Name)
	}
	slices.Sort(names)
	assert.Equal(t, names, comps)
}

// A run leaves no goroutine behind, whatever Jobs: the fan-outs' helpers
// return with them.
func TestPipelineLeavesNoGoroutines(t *testing.T) {
	m := hlotest.CallsModule(40, 3)
	before := settledGoroutines()
	for _, jobs := range []int{1, 2, 8} {
		pl, err := NewPipeline([]*Pass{Verify, Stats}, Options{Jobs: jobs})
		require.NoError(t, err)
		_, err = pl.Run(context.Background(), m)
		require.NoError(t, err)
		assert.Equal(t, before, settledGoroutines(), "jobs=%d", jobs)
	}
}

// settledGoroutines is runtime.NumGoroutine once goroutines that are
// ending (an errgroup's, after Wait returned) have ended: the count is
// the same for 20 polls a millisecond apart (at most a second).
func settledGoroutines() int {
	n, same := runtime.NumGoroutine(), 0
	for range 1000 {
		time.Sleep(time.Millisecond)
		if k := runtime.NumGoroutine(); k != n {
			n, same = k, 0
			continue
		}
		if same++; same == 20 {
			break
		}
	}
	return n
}
