package passes_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/passes"
)

// BenchmarkPipeline runs verify and stats over the largest multi-computation
// corpus module with 1 and 2 jobs; compare the ns/op of the two.
func BenchmarkPipeline(b *testing.B) {
	m, path, n := hlotest.LargestMultiComputationModule(b)
	b.Logf("module %s (%s): %d computations, %d instructions", m.Name, filepath.Base(path), len(m.Computations), n)
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
