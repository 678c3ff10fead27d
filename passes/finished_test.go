package passes

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"testing"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// box is a result whose collection a weak pointer can observe.
type box struct {
	n    int
	data [1 << 10]int64
}

// boxPass returns a pass whose result is a *box of the module's
// instruction count, reading its Requires first.
func boxPass(name string, requires ...*Pass) *Pass {
	return &Pass{Name: name, Doc: "count instructions", Requires: requires, ResultType: reflect.TypeFor[*box](),
		Run: func(u *Unit) (any, error) {
			for _, q := range requires {
				_ = u.ResultOf(q).(*box).n
			}
			n := 0
			for _, c := range u.Module.Computations {
				n += len(c.Instructions)
			}
			return &box{n: n}, nil
		}}
}

// growPass is a Transform that adds an instruction to the entry each
// time it runs.
func growPass(name string) *Pass {
	return &Pass{Name: name, Doc: "add an instruction", Transform: true,
		Run: func(u *Unit) (any, error) {
			c := u.Module.Entry
			in := &hlo.Instruction{Name: name + ".extra", Opcode: "copy", Shape: c.Root.Shape, Operands: []*hlo.Instruction{c.Root},
				Parent: c, Index: len(c.Instructions), ParameterNumber: -1}
			c.Instructions = append(c.Instructions, in)
			c.Root = in
			u.SetChanged()
			return nil, nil
		}}
}

// With Finished set, each requested result is given once it is final
// (after the last Transform, the stale ones once refresh ran them again),
// the events are those of a run without it, and the results are gone
// from Results.
func TestPipelineFinishedGivesFinalResults(t *testing.T) {
	count := boxPass("count")
	u1, u2, u3 := boxPass("u1", count), boxPass("u2", count), boxPass("u3", count)
	grow := growPass("grow")
	run := func(finished func(*Pass, any) error) ([]string, *Results, int) {
		var events []string
		pl, err := NewPipeline([]*Pass{u1, u2, grow, u3}, Options{Jobs: 2, Finished: finished,
			AfterPass: func(e PassEvent) error { events = append(events, e.Pass.Name); return nil }})
		require.NoError(t, err)
		m, _ := hlotest.LoopsModule()
		res, err := pl.Run(context.Background(), m)
		require.NoError(t, err)
		n := 0
		for _, c := range m.Computations {
			n += len(c.Instructions)
		}
		return events, res, n
	}
	plain, res, _ := run(nil)
	_, ok := res.Of(u1)
	assert.True(t, ok, "without Finished, Results hold every result")

	var given []string
	sizes := map[string]int{}
	events, res, final := run(func(p *Pass, v any) error {
		given = append(given, p.Name)
		if b, ok := v.(*box); ok {
			sizes[p.Name] = b.n
		}
		return nil
	})
	assert.Equal(t, plain, events, "the same passes ran")
	assert.Equal(t, []string{"grow", "u3", "u1", "u2"}, given,
		"nothing before the Transform ran; then the settled results in pipeline order, the stale ones as refresh ran them")
	assert.Equal(t, map[string]int{"u1": final, "u2": final, "u3": final}, sizes, "each result describes the final module")
	for _, p := range []*Pass{u1, u2, u3, grow, count} {
		_, ok := res.Of(p)
		assert.False(t, ok, "%s: the run holds no result once given or no longer required", p.Name)
	}
}

// The results a run dropped are collected while it goes on: a requested
// one once Finished had it, a required one once no pass still to run
// requires it (weak pointers, taken without holding the result, are nil
// after a collection). A result a later pass still requires is kept.
func TestPipelineFinishedReleasesResults(t *testing.T) {
	req := boxPass("req")
	user := boxPass("user", req)
	kept := boxPass("kept")
	first := boxPass("first", kept)
	var weaks map[string]weak.Pointer[box]
	last := &Pass{Name: "last", Doc: "check what is live", Requires: []*Pass{kept},
		Run: func(u *Unit) (any, error) {
			runtime.GC()
			for _, name := range []string{"req", "user", "first"} {
				assert.True(t, weaks[name].Value() == nil, "%s's result is collected before the last pass", name)
			}
			assert.NotNil(t, u.ResultOf(kept).(*box), "a result the running pass requires is kept")
			return nil, nil
		}}
	weaks = map[string]weak.Pointer[box]{}
	finished := func(p *Pass, v any) error {
		if b, ok := v.(*box); ok {
			weaks[p.Name] = weak.Make(b)
		}
		return nil
	}
	// req's result, required only, is seen through user's.
	user.Run = func(u *Unit) (any, error) {
		weaks["req"] = weak.Make(u.ResultOf(req).(*box))
		return &box{}, nil
	}
	pl, err := NewPipeline([]*Pass{user, first, last}, Options{Jobs: 1, Finished: finished})
	require.NoError(t, err)
	m, _ := hlotest.LoopsModule()
	res, err := pl.Run(context.Background(), m)
	require.NoError(t, err)
	assert.Len(t, weaks, 3)
	runtime.KeepAlive(res)
}

// An analysis that changes the IR although it is no Transform makes the
// results given before it stale: they run again and are given again.
// Finished's error stops the run.
func TestPipelineFinishedAgainAndErrors(t *testing.T) {
	a, b := boxPass("a"), boxPass("b")
	changes := 1
	sneaky := &Pass{Name: "sneaky", Doc: "change the IR once", Run: func(u *Unit) (any, error) {
		if changes > 0 {
			changes--
			_, err := growPass("g").Run(u)
			return nil, err
		}
		return nil, nil
	}}
	var given []string
	pl, err := NewPipeline([]*Pass{a, sneaky, b}, Options{Jobs: 1, Finished: func(p *Pass, _ any) error {
		given = append(given, p.Name)
		return nil
	}})
	require.NoError(t, err)
	m, _ := hlotest.LoopsModule()
	_, err = pl.Run(context.Background(), m)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "sneaky", "b", "a"}, given)

	stop := errors.New("disk full")
	pl, err = NewPipeline([]*Pass{a, b}, Options{Jobs: 1, Finished: func(p *Pass, _ any) error { return stop }})
	require.NoError(t, err)
	var ran []string
	pl.opts.AfterPass = func(e PassEvent) error { ran = append(ran, e.Pass.Name); return nil }
	_, err = pl.Run(context.Background(), m)
	require.ErrorIs(t, err, stop)
	assert.Equal(t, []string{"a"}, ran, "the run stopped at the first error")
}
