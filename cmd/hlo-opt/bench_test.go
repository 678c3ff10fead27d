package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/passes"
)

// BenchmarkPipelineAllPasses runs every analysis hlo-opt offers (verify,
// stats, indexing, layout, coalescing, utilization, cost, and the layout
// assignment they require, which lays the shared module out in the first
// iteration and finds it laid out after) over the largest multi-computation
// corpus module, as passes.BenchmarkPipeline does with verify and stats:
// compare the ns/op of jobs=1 and jobs=2. The indexing caches stay warm
// across iterations.
func BenchmarkPipelineAllPasses(b *testing.B) {
	m, path, best := hlotest.LargestMultiComputationModule(b)
	b.Logf("module %s (%s): %d computations, %d instructions", m.Name, filepath.Base(path), len(m.Computations), best)
	var ps []*passes.Pass
	for _, p := range allPasses() {
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

// BenchmarkCLI runs hlo-opt end to end (read, parse, every analysis, the
// text report into memory) on the same module as
// BenchmarkPipelineAllPasses, with 1 and 2 jobs: what a user waits for;
// json/jobs=N writes the JSON report instead (what the hand-written JSON
// writer of passes/render is measured by). MB/s is of the module's text.
func BenchmarkCLI(b *testing.B) {
	_, path, best := hlotest.LargestMultiComputationModule(b)
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, format := range []string{"text", "json"} {
		for _, jobs := range []int{1, 2} {
			name := fmt.Sprintf("jobs=%d", jobs)
			if format != "text" {
				name = format + "/" + name
			}
			b.Run(name, func(b *testing.B) {
				args := []string{"--passes=verify,stats,indexing,coalescing,utilization,cost", "--emit=report",
					"--format=" + format, fmt.Sprintf("--jobs=%d", jobs), path}
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				runtime.GC()
				for b.Loop() {
					env := &Env{Stdout: io.Discard, Stderr: io.Discard}
					if code := Main(context.Background(), args, env); code != 0 {
						b.Fatalf("exit %d", code)
					}
				}
				b.ReportMetric(float64(best)*float64(b.N)/b.Elapsed().Seconds(), "instructions/s")
			})
		}
	}
}
