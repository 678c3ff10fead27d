package hlotest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// corpusMissing is the message tests skip with when the corpus is absent.
const corpusMissing = "corpus ../shared/corpus not found"

// RepoRoot returns the repository root: the nearest directory at or above
// the working directory that holds go.mod. It fails the test when there is
// none.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	root, err := repoRoot()
	require.NoError(tb, err)
	return root
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// FindCorpus returns the corpus directory, ../shared/corpus next to the
// repository root, or "" when it is absent (or there is no go.mod above the
// working directory). It never skips: use it where the corpus only adds
// cases.
func FindCorpus(tb testing.TB) string {
	tb.Helper()
	root, err := repoRoot()
	if err != nil {
		return ""
	}
	dir := filepath.Join(root, "..", "shared", "corpus")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return ""
	}
	return dir
}

// CorpusDir is FindCorpus, but skips the test with the message
// "corpus ../shared/corpus not found" when the corpus is absent.
func CorpusDir(tb testing.TB) string {
	tb.Helper()
	dir := FindCorpus(tb)
	if dir == "" {
		tb.Skip(corpusMissing)
	}
	return dir
}

// CorpusFiles returns the paths of the corpus's *.hlo files in name order,
// skipping the test when the corpus is absent.
func CorpusFiles(tb testing.TB) []string {
	tb.Helper()
	return CorpusGlob(tb, "*.hlo")
}

// CorpusGlob returns the paths of the corpus files that match pattern (as
// filepath.Glob, e.g. "maxtext__*.hlo") in name order, skipping the test
// when the corpus is absent and failing it when nothing matches.
func CorpusGlob(tb testing.TB, pattern string) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(CorpusDir(tb), pattern))
	require.NoError(tb, err)
	require.NotEmpty(tb, files, "no corpus file matches %s", pattern)
	return files
}

// RunCorpusFiles runs f as a subtest, named by the file's base name, for
// each path of CorpusFiles, and returns those paths; it skips the test
// when the corpus is absent.
func RunCorpusFiles(t *testing.T, f func(t *testing.T, path string)) []string {
	t.Helper()
	files := CorpusFiles(t)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) { f(t, path) })
	}
	return files
}

// LargestCorpusFile returns the path of the biggest corpus file (in bytes),
// skipping the test when the corpus is absent.
func LargestCorpusFile(tb testing.TB) string {
	tb.Helper()
	return largest(tb, nil)
}

// LargestCorpusFileWithFusions returns the path of the biggest corpus file
// with at least one fusion instruction (text " fusion("), skipping the test
// when the corpus is absent or has none.
func LargestCorpusFileWithFusions(tb testing.TB) string {
	tb.Helper()
	return largest(tb, []byte(" fusion("))
}

// largest returns the biggest corpus file whose text contains substr (any
// file when substr is nil).
func largest(tb testing.TB, substr []byte) string {
	tb.Helper()
	best, size := "", int64(-1)
	for _, f := range CorpusFiles(tb) {
		st, err := os.Stat(f)
		require.NoError(tb, err)
		if st.Size() <= size {
			continue
		}
		if substr != nil && !bytes.Contains(ReadFile(tb, f), substr) {
			continue
		}
		best, size = f, st.Size()
	}
	if best == "" {
		tb.Skipf("no corpus file contains %q", substr)
	}
	return best
}

// ReadModule reads the HLO file at path and parses it whole with
// hlo.ParseFile (truncated texts allowed, as the corpus has truncated
// dumps), failing the test on error. It returns the module and the
// text, for b.SetBytes and for parsing again in a benchmark loop.
func ReadModule(tb testing.TB, path string) (*hlo.Module, []byte) {
	tb.Helper()
	src := ReadFile(tb, path)
	m, err := CorpusParse.ParseFile(path, src)
	require.NoError(tb, err, "parsing %s", path)
	return m, src
}

// CorpusParse are the parse options for corpus files: the maxtext
// reference dumps are truncated upstream, so truncated texts are allowed
// (Module.Truncated says what was dropped).
var CorpusParse = hlo.ParseOptions{AllowTruncated: true}

// CorpusModule is one module of an HLO file split at "// -----" lines.
type CorpusModule struct {
	// Path is the file's path.
	Path string
	// Chunk is the index of the module's chunk among all the file's chunks,
	// those holding only comments included.
	Chunk int
	// Line is the 1-based line of the file on which the chunk starts.
	Line int
	// Module is the parsed module.
	Module *hlo.Module
}

// Name is the file's base name and the chunk index, e.g.
// "xla-data__mobilenet_v2.hlo#00": a stable subtest name.
func (c CorpusModule) Name() string {
	return fmt.Sprintf("%s#%02d", filepath.Base(c.Path), c.Chunk)
}

// ParseModules reads the HLO file at path, splits it at "// -----" lines
// (hlo.SplitInputFile) and parses every chunk with CorpusParse. Chunks
// that hold nothing but comments (RUN and CHECK lines of lit tests) are
// left out; any other chunk that does not parse fails the test.
func ParseModules(tb testing.TB, path string) []CorpusModule {
	tb.Helper()
	var out []CorpusModule
	for k, ch := range hlo.SplitInputFile(ReadFile(tb, path)) {
		if OnlyComments(ch.Src) {
			continue
		}
		m, err := CorpusParse.ParseChunk(path, ch)
		require.NoError(tb, err, "%s chunk at line %d", path, ch.Line)
		out = append(out, CorpusModule{Path: path, Chunk: k, Line: ch.Line, Module: m})
	}
	return out
}

// CorpusModules is ParseModules over every corpus file, in file order,
// skipping the test when the corpus is absent.
func CorpusModules(tb testing.TB) []CorpusModule {
	tb.Helper()
	var out []CorpusModule
	for _, f := range CorpusFiles(tb) {
		out = append(out, ParseModules(tb, f)...)
	}
	return out
}

// OnlyComments reports whether src holds nothing but blank lines and //
// line comments.
func OnlyComments(src []byte) bool {
	for line := range strings.SplitSeq(string(src), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "//") {
			return false
		}
	}
	return true
}

// CountInstructions is the number of instructions of every computation of
// m, fused computations included: the work unit of instructions/s metrics.
func CountInstructions(m *hlo.Module) int {
	n := 0
	for _, c := range m.Computations {
		n += len(c.Instructions)
	}
	return n
}

// LargestMultiComputationModule returns the corpus module with the most
// instructions among those with at least two computations that no fusion
// calls (the work a pipeline fans out), with its path and instruction
// count; it skips the test when the corpus is absent or has none. The
// pipeline benchmarks measure their speed-up on it.
func LargestMultiComputationModule(tb testing.TB) (*hlo.Module, string, int) {
	tb.Helper()
	var best CorpusModule
	n := 0
	for _, cm := range CorpusModules(tb) {
		fused := map[*hlo.Computation]bool{}
		for _, c := range cm.Module.Computations {
			for _, in := range c.Instructions {
				if in.Opcode == "fusion" {
					for _, fc := range in.Called {
						fused[fc] = true
					}
				}
			}
		}
		if len(cm.Module.Computations)-len(fused) < 2 {
			continue
		}
		if k := CountInstructions(cm.Module); k > n {
			best, n = cm, k
		}
	}
	if best.Module == nil {
		tb.Skip("no corpus module with several non-fusion computations")
	}
	return best.Module, best.Path, n
}
