package hlotest

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// BenchJobs benchmarks a pipeline on the largest multi-computation corpus
// module (LargestMultiComputationModule) with 1 and 2 jobs, in the
// sub-benchmarks "jobs=1" and "jobs=2": compare their ns/op. newRun makes
// the run for a jobs count, outside the timer. It reports allocations and
// instructions/s.
func BenchJobs(b *testing.B, newRun func(jobs int) (func(*hlo.Module) error, error)) {
	m, path, n := LargestMultiComputationModule(b)
	b.Logf("module %s (%s): %d computations, %d instructions", m.Name, filepath.Base(path), len(m.Computations), n)
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			run, err := newRun(jobs)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			// The corpus parsed to find the module is garbage: collect
			// it now rather than inside the timed loop.
			runtime.GC()
			for b.Loop() {
				if err := run(m); err != nil {
					b.Fatal(err)
				}
			}
			ReportInstructions(b, n)
		})
	}
}

// ReportInstructions reports the metric instructions/s: n instructions
// per iteration over the benchmark's elapsed time.
func ReportInstructions(b *testing.B, n int) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "instructions/s")
}

// BenchParse is the yardstick of the pass benchmarks: it parses the HLO
// file at path with CorpusParse in the loop (MB/s of its text and
// instructions/s), keeping one parsed module alive so that it runs with
// the live heap of a pass benchmark.
func BenchParse(b *testing.B, path string) {
	b.Helper()
	m, src := ReadModule(b, path)
	n := CountInstructions(m)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := CorpusParse.ParseFile(path, src); err != nil {
			b.Fatal(err)
		}
	}
	ReportInstructions(b, n)
	runtime.KeepAlive(m)
}
