package hlotest

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestdataPath returns the path of elem under the repository's testdata
// (TestdataPath(t, "examples", "softmax.hlo")).
func TestdataPath(tb testing.TB, elem ...string) string {
	tb.Helper()
	return filepath.Join(append([]string{RepoRoot(tb), "testdata"}, elem...)...)
}

// ReadTestdata reads the file at elem under the repository's testdata
// (ReadTestdata(t, "indexing", "seed_pad.hlo")), failing the test when it
// cannot.
func ReadTestdata(tb testing.TB, elem ...string) []byte {
	tb.Helper()
	return ReadFile(tb, TestdataPath(tb, elem...))
}

// ModuleFiles lists every HLO text of the repository's testdata (the
// *.hlo modules and the ground truth's *_optimizations.txt dumps), but
// those under a directory named in skipDirs, then the corpus files when
// the corpus is there (it logs when it is not).
func ModuleFiles(tb testing.TB, skipDirs ...string) []string {
	tb.Helper()
	var paths []string
	require.NoError(tb, filepath.WalkDir(TestdataPath(tb), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && slices.Contains(skipDirs, d.Name()) {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".hlo") || strings.HasSuffix(p, "_optimizations.txt")) {
			paths = append(paths, p)
		}
		return nil
	}))
	if FindCorpus(tb) != "" {
		paths = append(paths, CorpusFiles(tb)...)
	} else {
		tb.Log("../shared/corpus absent: testdata only")
	}
	return paths
}

// XLAToday is one dump of today's XLA in testdata/xla-today.
type XLAToday struct {
	// Name is "BACKEND/FILE.hlo", the path under testdata/xla-today.
	Name, Backend, Path string
	Src                 []byte
}

// XLATodayDumps reads the dumps of today's XLA,
// testdata/xla-today/BACKEND/*.hlo (gen/ and syntax/ hold no dumps of the
// programs), in path order; it fails the test when there is none.
func XLATodayDumps(tb testing.TB) []XLAToday {
	tb.Helper()
	files, err := filepath.Glob(TestdataPath(tb, "xla-today", "*", "*.hlo"))
	require.NoError(tb, err)
	var out []XLAToday
	for _, f := range files {
		backend := filepath.Base(filepath.Dir(f))
		if backend == "gen" || backend == "syntax" {
			continue
		}
		out = append(out, XLAToday{Name: backend + "/" + filepath.Base(f), Backend: backend, Path: f, Src: ReadFile(tb, f)})
	}
	require.NotEmpty(tb, out, "testdata/xla-today has no dumps")
	return out
}

// RunXLATodayDumps runs f as a subtest named d.Name for each dump d of
// XLATodayDumps.
func RunXLATodayDumps(t *testing.T, f func(t *testing.T, d XLAToday)) {
	t.Helper()
	for _, d := range XLATodayDumps(t) {
		t.Run(d.Name, func(t *testing.T) { f(t, d) })
	}
}
