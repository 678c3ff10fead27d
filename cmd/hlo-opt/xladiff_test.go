package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/cmd/internal/xladiff"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/xladump"
)

// inProcess runs the command as xladiff.Runner, in this process.
func inProcess(ctx context.Context, args []string) ([]byte, []byte, int) {
	var out, errb bytes.Buffer
	code := Main(ctx, args, &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
	return out.Bytes(), errb.Bytes(), code
}

// knownDifferences reads a reproducer's known.json: the figures where
// hlo-opt differs from XLA by a rule of XLA's that cannot be known offline,
// each with the reason (the README's table says the same).
func knownDifferences(t *testing.T, dir string) map[string]string {
	t.Helper()
	known, err := xladump.ReadJSON[map[string]string](filepath.Join(dir, "known.json"))
	require.NoError(t, err)
	if known == nil {
		return nil
	}
	return *known
}

// TestXLADiffReproducers replays the disagreements `make xla-diff` found
// and reduced (testdata/xladiff/<figure>-<backend>-<key>/: the program and
// XLA's compile of it): hlo-opt, run as a user would, must now agree with
// XLA on every figure the differential tester has a target for
// (xladiff.Criteria), except those a reproducer's known.json explains; the
// others (temporaries, allocation classes) are logged.
func TestXLADiffReproducers(t *testing.T) {
	compiles, err := filepath.Glob(hlotest.TestdataPath(t, "xladiff", "*", "*", xladump.AfterOptimizations))
	require.NoError(t, err)
	require.NotEmpty(t, compiles, "no reproducers under testdata/xladiff")
	for _, f := range compiles {
		dir := filepath.Dir(f)
		name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			b, err := xladiff.LookupBackend(filepath.Base(dir))
			require.NoError(t, err)
			known := knownDifferences(t, filepath.Dir(dir))
			r, err := xladiff.Compare(context.Background(), dir, b, inProcess)
			require.NoError(t, err)
			require.NotEmpty(t, r.Outcomes)
			for _, o := range r.Outcomes {
				why, isKnown := known[o.Figure]
				switch {
				case !slices.ContainsFunc(xladiff.Criteria, func(c xladiff.Criterion) bool { return c.Figure == o.Figure }):
					if !o.Agree {
						t.Logf("%s (no target): XLA %v, ours %v %s", o.Figure, o.XLA, o.Ours, o.Detail)
					}
				case !o.Agree && isKnown:
					t.Logf("%s differs, as known.json says (%s): XLA %v, ours %v", o.Figure, why, o.XLA, o.Ours)
				case !o.Agree:
					t.Errorf("%s: XLA %v, ours %v %s", o.Figure, o.XLA, o.Ours, o.Detail)
				case isKnown:
					t.Errorf("%s now agrees with XLA: drop it from known.json (and the README's table)", o.Figure)
				}
			}
		})
	}
}

// TestXLADiffKnownFiguresExist: every known.json names figures the
// differ compares.
func TestXLADiffKnownFiguresExist(t *testing.T) {
	files, err := filepath.Glob(hlotest.TestdataPath(t, "xladiff", "*", "known.json"))
	require.NoError(t, err)
	for _, f := range files {
		for fig, why := range knownDifferences(t, filepath.Dir(f)) {
			assert.Contains(t, xladiff.Figures, fig, f)
			assert.NotEmpty(t, strings.TrimSpace(why), "%s: %s needs its reason", f, fig)
		}
		_, err := os.Stat(filepath.Join(filepath.Dir(f), "program.py"))
		assert.NoError(t, err, "%s: a reproducer has its program", f)
	}
}
