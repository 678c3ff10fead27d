package indexing

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// benchModules returns the corpus files to benchmark: the largest module,
// and the largest module that has fusions.
func benchModules(b *testing.B) map[string]string {
	dir := corpusDir(b)
	if dir == "" {
		b.Skip("corpus ../shared/corpus not found")
	}
	return map[string]string{
		"largest":             filepath.Join(dir, "xla-data__mobilenet_v2.hlo"),
		"largest-with-fusion": filepath.Join(dir, "maxtext__reference_hlo_llama3_8b.hlo"),
	}
}

func parseBench(b *testing.B, path string) ([]byte, *hlo.Module) {
	src, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		b.Skip(path + " not in the corpus")
	}
	require.NoError(b, err)
	m, err := hlo.ParseFile(path, src)
	require.NoError(b, err)
	return src, m
}

// BenchmarkIndexingCorpus computes the maps of every fusion (both
// directions, composed through the fused computation) of the largest corpus
// module with fusions, and of every instruction of the largest corpus
// module; compare with BenchmarkParseCorpus on the same files, which runs
// with the same live heap (the parsed module). MB/s is of the module's
// text, instructions/s of the instructions indexed.
func BenchmarkIndexingCorpus(b *testing.B) {
	for _, name := range []string{"largest-with-fusion", "largest"} {
		path := benchModules(b)[name]
		b.Run(name, func(b *testing.B) {
			src, m := parseBench(b, path)
			var targets []*hlo.Instruction
			for _, c := range m.Computations {
				for _, in := range c.Instructions {
					if name == "largest" || in.Opcode == "fusion" {
						targets = append(targets, in)
					}
				}
			}
			require.NotEmpty(b, targets)
			b.SetBytes(int64(len(src)))
			b.ResetTimer()
			for b.Loop() {
				// Every run starts with empty caches: the work of indexing
				// one module, as parsing it.
				ResetCaches()
				for _, in := range targets {
					if _, err := ComputeInstructionMaps(in); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(targets)*b.N)/b.Elapsed().Seconds(), "instructions/s")
		})
	}
}

// BenchmarkParseCorpus parses the modules BenchmarkIndexingCorpus indexes.
// Like it, it keeps one parsed module alive, so that both run with the same
// live heap (the garbage collector scans the module in both).
// instructions/s counts every instruction of the module.
func BenchmarkParseCorpus(b *testing.B) {
	for _, name := range []string{"largest-with-fusion", "largest"} {
		path := benchModules(b)[name]
		b.Run(name, func(b *testing.B) {
			src, m := parseBench(b, path)
			n := 0
			for _, c := range m.Computations {
				n += len(c.Instructions)
			}
			b.SetBytes(int64(len(src)))
			b.ResetTimer()
			for b.Loop() {
				if _, err := hlo.ParseFile(path, src); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "instructions/s")
			runtime.KeepAlive(m)
		})
	}
}
