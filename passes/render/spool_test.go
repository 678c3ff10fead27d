package render

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/passes"
)

// lines is a text report of n numbered lines.
type lines struct{ n int }

func (l *lines) WriteText(w io.Writer, m *hlo.Module) error {
	for i := range l.n {
		if _, err := fmt.Fprintf(w, "%s line %d\n", m.Name, i); err != nil {
			return err
		}
	}
	return nil
}

func linesPass(name string, n int) *passes.Pass {
	return &passes.Pass{Name: name, Doc: "write lines", ResultType: reflect.TypeFor[*lines](),
		Run: func(*passes.Unit) (any, error) { return &lines{n}, nil }}
}

// Spool.WriteText writes what WriteText writes on the results of a run
// without the spool: reports of every size, one empty, a pass with no
// text report, a repeated pass, the module's notes, whether the reports
// stay in memory or go to a file. The file is gone from its directory as
// soon as it is made.
func TestSpoolWritesWhatWriteTextWrites(t *testing.T) {
	silent := &passes.Pass{Name: "silent", Doc: "no report", Run: func(*passes.Unit) (any, error) { return nil, nil }}
	ps := []*passes.Pass{passes.Verify, linesPass("big", 5000), silent, linesPass("empty", 0), passes.Stats, linesPass("small", 3), passes.Stats}
	m, _ := hlotest.LoopsModule()
	m.ImpliedEntry = true // a note first
	pl, err := passes.NewPipeline(ps, passes.Options{Jobs: 1})
	require.NoError(t, err)
	res, err := pl.Run(context.Background(), m)
	require.NoError(t, err)
	var want strings.Builder
	require.NoError(t, WriteText(&want, res))
	require.Contains(t, want.String(), "Entry computation: ")

	for _, inMemory := range []int{0, 100, 1 << 20} {
		dir := t.TempDir()
		s := NewSpool(m, dir, inMemory)
		pl, err := passes.NewPipeline(ps, passes.Options{Jobs: 1, Finished: s.Add})
		require.NoError(t, err)
		res, err := pl.Run(context.Background(), m)
		require.NoError(t, err)
		left, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Empty(t, left, "in memory %d: no file in the directory", inMemory)
		assert.Equal(t, inMemory < 1<<20, s.f != nil, "in memory %d: a file once the reports outgrow the memory", inMemory)
		var got strings.Builder
		require.NoError(t, s.WriteText(&got, res))
		assert.Equal(t, want.String(), got.String(), "in memory %d", inMemory)
		require.NoError(t, s.Close())
	}
}

// A later report of a pass replaces the earlier one; a result that has no
// text report drops it. A spool that cannot make its file says so.
func TestSpoolAddReplacesAndFails(t *testing.T) {
	m, _ := hlotest.LoopsModule()
	p, q := linesPass("p", 0), linesPass("q", 0)
	res := &passes.Results{Module: m, Passes: []*passes.Pass{p, q}}
	s := NewSpool(m, t.TempDir(), 0)
	defer s.Close()
	require.NoError(t, s.Add(p, &lines{2}))
	require.NoError(t, s.Add(q, &lines{1}))
	require.NoError(t, s.Add(p, &lines{1}))
	var got strings.Builder
	require.NoError(t, s.WriteText(&got, res))
	name := m.Name
	assert.Equal(t, name+" line 0\n\n"+name+" line 0\n", got.String())
	require.NoError(t, s.Add(q, nil))
	got.Reset()
	require.NoError(t, s.WriteText(&got, res))
	assert.Equal(t, name+" line 0\n", got.String())

	bad := NewSpool(m, filepath.Join(t.TempDir(), "missing"), 0)
	err := bad.Add(p, &lines{1})
	require.Error(t, err)
	assert.ErrorIs(t, bad.WriteText(io.Discard, res), err, "the error stays")
	require.NoError(t, bad.Close())
}
