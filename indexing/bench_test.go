package indexing

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// benchModule returns the corpus file a benchmark case measures:
// "largest-with-fusion" or "largest".
func benchModule(b *testing.B, name string) string {
	if name == "largest" {
		return hlotest.LargestCorpusFile(b)
	}
	return hlotest.LargestCorpusFileWithFusions(b)
}

// BenchmarkIndexingCorpus computes the maps of every fusion (both
// directions, composed through the fused computation) of the largest corpus
// module with fusions, and of every instruction of the largest corpus
// module; compare with BenchmarkParseCorpus on the same files.
func BenchmarkIndexingCorpus(b *testing.B) {
	for _, name := range []string{"largest-with-fusion", "largest"} {
		path := benchModule(b, name)
		b.Run(name, func(b *testing.B) {
			m, _ := hlotest.ReadModule(b, path)
			var targets []*hlo.Instruction
			for _, c := range m.Computations {
				for _, in := range c.Instructions {
					if name == "largest" || in.Opcode == "fusion" {
						targets = append(targets, in)
					}
				}
			}
			require.NotEmpty(b, targets)
			b.ResetTimer()
			for b.Loop() {
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
func BenchmarkParseCorpus(b *testing.B) {
	for _, name := range []string{"largest-with-fusion", "largest"} {
		path := benchModule(b, name)
		b.Run(name, func(b *testing.B) {
			_, src := hlotest.ReadModule(b, path)
			b.SetBytes(int64(len(src)))
			b.ResetTimer()
			for b.Loop() {
				if _, err := hlo.ParseFile(path, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
