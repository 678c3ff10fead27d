package indexing

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/passes"
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
// module; compare with BenchmarkParseCorpus on the same files, which runs
// with the same live heap (the parsed module). MB/s is of the module's
// text, instructions/s of the instructions indexed.
func BenchmarkIndexingCorpus(b *testing.B) {
	for _, name := range []string{"largest-with-fusion", "largest"} {
		path := benchModule(b, name)
		b.Run(name, func(b *testing.B) {
			m, src := hlotest.ReadModule(b, path)
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
				for _, in := range targets {
					if _, err := ComputeInstructionMaps(in); err != nil {
						b.Fatal(err)
					}
				}
			}
			hlotest.ReportInstructions(b, len(targets))
		})
	}
}

// BenchmarkParseCorpus parses the modules BenchmarkIndexingCorpus indexes.
// Like it, it keeps one parsed module alive, so that both run with the same
// live heap (the garbage collector scans the module in both).
// instructions/s counts every instruction of the module.
func BenchmarkParseCorpus(b *testing.B) {
	for _, name := range []string{"largest-with-fusion", "largest"} {
		path := benchModule(b, name)
		b.Run(name, func(b *testing.B) { hlotest.BenchParse(b, path) })
	}
}

// BenchmarkWriteText writes the text report of the indexing pass over the
// largest corpus module: the report's text is most of what hlo-opt
// --passes=indexing spends on large modules. MB/s is of report text.
func BenchmarkWriteText(b *testing.B) {
	m, _ := hlotest.ReadModule(b, benchModule(b, "largest"))
	pl, err := passes.NewPipeline([]*passes.Pass{Pass}, passes.Options{})
	require.NoError(b, err)
	res, err := pl.Run(context.Background(), m)
	require.NoError(b, err)
	r, ok := passes.ResultOf[*Result](res, Pass)
	require.True(b, ok)
	var out bytes.Buffer
	require.NoError(b, r.WriteText(&out, m))
	b.SetBytes(int64(out.Len()))
	b.ResetTimer()
	for b.Loop() {
		if err := r.WriteText(io.Discard, m); err != nil {
			b.Fatal(err)
		}
	}
}
