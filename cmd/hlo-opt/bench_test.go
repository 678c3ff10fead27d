package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hlo-opt/hlo-opt/graph"
	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/passes"
)

// BenchmarkPipelineAllPasses runs every analysis hlo-opt offers (verify,
// stats, indexing, coalescing, utilization, cost; not the layout
// assignment, which changes the module) over the largest multi-computation
// corpus module, as passes.BenchmarkPipeline does with verify and stats:
// compare the ns/op of jobs=1 and jobs=2. The indexing caches stay warm
// across iterations.
func BenchmarkPipelineAllPasses(b *testing.B) {
	var m *hlo.Module
	name, best := "", 0
	for _, cm := range hlotest.CorpusModules(b) {
		comps, err := graph.NewCallGraph(cm.Module).NonFusionPostOrder()
		if err != nil || len(comps) < 2 {
			continue
		}
		if n := hlotest.CountInstructions(cm.Module); n > best {
			m, name, best = cm.Module, filepath.Base(cm.Path), n
		}
	}
	if m == nil {
		b.Skip("no multi-computation module parsed")
	}
	b.Logf("module %s (%s): %d computations, %d instructions", m.Name, name, len(m.Computations), best)
	var ps []*passes.Pass
	for _, p := range allPasses(defaultPassConfig()) {
		if !p.Transform {
			ps = append(ps, p)
		}
	}
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			pl, err := passes.NewPipeline(ps, passes.Options{Jobs: jobs})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			runtime.GC()
			for b.Loop() {
				if _, err := pl.Run(context.Background(), m); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(best)*float64(b.N)/b.Elapsed().Seconds(), "instructions/s")
		})
	}
}
