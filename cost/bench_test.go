package cost

import (
	"context"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/passes"
	"github.com/stretchr/testify/require"
)

// BenchmarkParseLargest is the yardstick: parsing the largest corpus
// module. Like the cost benchmarks it keeps one parsed module alive, so
// that both run with the same live heap.
func BenchmarkParseLargest(b *testing.B) { hlotest.BenchParse(b, hlotest.LargestCorpusFile(b)) }

// BenchmarkCostPassesLargest runs coalescing (indexing-based),
// utilization and cost together on the largest corpus module.
func BenchmarkCostPassesLargest(b *testing.B) { benchCostPasses(b, DefaultConfig()) }

// BenchmarkCostPassesLargestHeuristic is the same with heuristic
// coalescing (--coalescing=heuristic).
func BenchmarkCostPassesLargestHeuristic(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Mode = Heuristic
	benchCostPasses(b, cfg)
}

func benchCostPasses(b *testing.B, cfg Config) {
	name := hlotest.LargestCorpusFile(b)
	m, src := hlotest.ReadModule(b, name)
	n := hlotest.CountInstructions(m)
	p, err := passes.NewPipeline(All(), passes.Options{Config: cfg.PipelineConfig()})
	require.NoError(b, err)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := p.Run(context.Background(), m); err != nil {
			b.Fatal(err)
		}
	}
	hlotest.ReportInstructions(b, n)
}
