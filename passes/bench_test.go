package passes_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hlo-opt/hlo-opt/graph"
	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/passes"
)

// largestMultiComputationModule parses the corpus and returns the module
// with the most instructions among those with several non-fusion
// computations, or skips when the corpus is absent.
func largestMultiComputationModule(b *testing.B) (*hlo.Module, string) {
	dir, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			b.Skip("no go.mod found")
		}
		dir = parent
	}
	files, _ := filepath.Glob(filepath.Join(dir, "..", "shared", "corpus", "*.hlo"))
	if len(files) == 0 {
		b.Skip("corpus not found at ../shared/corpus")
	}
	var best *hlo.Module
	bestName, bestN := "", 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, ch := range hlo.SplitInputFile(src) {
			m, err := hlo.ParseFile(f, ch.Src)
			if err != nil {
				continue
			}
			comps, err := graph.NewCallGraph(m).NonFusionPostOrder()
			if err != nil || len(comps) < 2 {
				continue
			}
			n := 0
			for _, c := range m.Computations {
				n += len(c.Instructions)
			}
			if n > bestN {
				best, bestName, bestN = m, filepath.Base(f), n
			}
		}
	}
	if best == nil {
		b.Skip("no multi-computation module parsed")
	}
	return best, bestName
}

// BenchmarkPipeline runs verify and stats over the largest multi-computation
// corpus module with 1 and 2 jobs; compare the ns/op of the two.
func BenchmarkPipeline(b *testing.B) {
	m, name := largestMultiComputationModule(b)
	n := 0
	for _, c := range m.Computations {
		n += len(c.Instructions)
	}
	b.Logf("module %s (%s): %d computations, %d instructions", m.Name, name, len(m.Computations), n)
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			pl, err := passes.NewPipeline([]*passes.Pass{passes.Verify, passes.Stats}, passes.Options{Jobs: jobs})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			// The corpus parsed to find the module is garbage: collect
			// it now rather than inside the timed loop.
			runtime.GC()
			for b.Loop() {
				if _, err := pl.Run(context.Background(), m); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "instructions/s")
		})
	}
}
