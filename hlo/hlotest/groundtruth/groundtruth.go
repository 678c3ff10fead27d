package groundtruth

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/xladump"
)

// The file names of one compile's directory (package xladump's).
const (
	BeforeOptimizations = xladump.BeforeOptimizations
	AfterOptimizations  = xladump.AfterOptimizations
	BufferAssignmentTxt = xladump.BufferAssignmentTxt
	MemoryAnalysisJSON  = xladump.MemoryAnalysisJSON
	CostAnalysisJSON    = xladump.CostAnalysisJSON
	CompileJSON         = xladump.CompileJSON
)

// Case is one compile: a program at one size for one backend, in Dir.
type Case struct {
	Program, Backend, Size string
	Dir                    string
}

// String is "program/backend/size".
func (c Case) String() string { return c.Program + "/" + c.Backend + "/" + c.Size }

// IsTPU tells whether the compile was for a TPU (tpu-v5e, tpu-v6e, ...).
func (c Case) IsTPU() bool { return strings.HasPrefix(c.Backend, "tpu") }

// Path is the path of a file of the compile.
func (c Case) Path(name string) string { return filepath.Join(c.Dir, name) }

// Has tells whether the compile has the file.
func (c Case) Has(name string) bool {
	_, err := os.Stat(c.Path(name))
	return err == nil
}

// Text reads one of the compile's files; ok is false when the compile
// has none.
func (c Case) Text(tb testing.TB, name string) (text string, ok bool) {
	tb.Helper()
	src, ok := readOptional(tb, c.Path(name))
	return string(src), ok
}

// readOptional reads the file at path; ok is false when there is none.
func readOptional(tb testing.TB, path string) (src []byte, ok bool) {
	tb.Helper()
	src, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, false
	}
	require.NoError(tb, err)
	return src, true
}

// Dir is testdata/groundtruth of the repository.
func Dir(tb testing.TB) string {
	tb.Helper()
	return hlotest.TestdataPath(tb, "groundtruth")
}

// Cases lists the compiles of the given backends (all when none is
// given) in program, backend, size order. A compile that failed (its
// compile.json records the error and nothing else is there) is left out.
// It fails the test when there is none.
func Cases(tb testing.TB, backends ...string) []Case {
	tb.Helper()
	root := Dir(tb)
	dirs, err := filepath.Glob(filepath.Join(root, "*", "*", "*", AfterOptimizations))
	require.NoError(tb, err)
	var cases []Case
	for _, f := range dirs {
		dir := filepath.Dir(f)
		rel, err := filepath.Rel(root, dir)
		require.NoError(tb, err)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		c := Case{Program: parts[0], Backend: parts[1], Size: parts[2], Dir: dir}
		if len(backends) == 0 || slices.Contains(backends, c.Backend) {
			cases = append(cases, c)
		}
	}
	require.NotEmpty(tb, cases, "no compiles of %v under %s", backends, root)
	slices.SortFunc(cases, func(a, b Case) int { return strings.Compare(a.sortKey(), b.sortKey()) })
	return cases
}

func (c Case) sortKey() string {
	size := "0"
	if c.Size != "small" {
		size = "1" + c.Size
	}
	return c.Program + "\x00" + c.Backend + "\x00" + size
}

// Module parses one of the compile's HLO modules (AfterOptimizations or
// BeforeOptimizations). The error is the parser's, for modules it refuses.
func (c Case) Module(tb testing.TB, name string) (*hlo.Module, error) {
	tb.Helper()
	path := c.Path(name)
	return hlo.ParseFile(path, hlotest.ReadFile(tb, path))
}

// BufferAssignment reads XLA's buffer assignment of the after-optimizations
// module; nil when the compile has none.
func (c Case) BufferAssignment(tb testing.TB) *BufferAssignment {
	tb.Helper()
	src, ok := readOptional(tb, c.Path(BufferAssignmentTxt))
	if !ok {
		return nil
	}
	ba, err := xladump.ParseBufferAssignment(string(src))
	require.NoError(tb, err, c.Path(BufferAssignmentTxt))
	return ba
}

// MemoryAnalysis reads memory_analysis.json; nil when XLA gave none.
func (c Case) MemoryAnalysis(tb testing.TB) *MemoryAnalysis {
	tb.Helper()
	return readJSON[MemoryAnalysis](tb, c.Path(MemoryAnalysisJSON))
}

// CostAnalysis reads cost_analysis.json; nil when XLA gave none (the
// deviceless GPU compile).
func (c Case) CostAnalysis(tb testing.TB) *CostAnalysis {
	tb.Helper()
	return readJSON[CostAnalysis](tb, c.Path(CostAnalysisJSON))
}

// readJSON decodes the JSON file path; nil when there is no such file.
func readJSON[T any](tb testing.TB, path string) *T {
	tb.Helper()
	v, err := xladump.ReadJSON[T](path)
	require.NoError(tb, err, path)
	return v
}

// Instructions maps every instruction name of m to its instruction.
func Instructions(m *hlo.Module) map[string]*hlo.Instruction {
	by := map[string]*hlo.Instruction{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			by[in.Name] = in
		}
	}
	return by
}

// Refusal is the first line of a parse error with the path made relative
// to the repository (testdata/groundtruth/...), for golden tables that
// must not depend on where the repository is.
func Refusal(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	if i := strings.Index(s, "testdata/groundtruth/"); i >= 0 {
		return s[i:]
	}
	return s
}
