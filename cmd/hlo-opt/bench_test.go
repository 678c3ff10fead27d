package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest/hlogen"
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
	var ps []*passes.Pass
	for _, p := range allPasses() {
		if !p.Transform {
			ps = append(ps, p)
		}
	}
	hlotest.BenchJobs(b, func(jobs int) (func(*hlo.Module) error, error) {
		pl, err := passes.NewPipeline(ps, passes.Options{Jobs: jobs})
		return func(m *hlo.Module) error {
			_, err := pl.Run(context.Background(), m)
			return err
		}, err
	})
}

// BenchmarkCLI runs hlo-opt end to end (read, parse, every analysis, the
// text report written out) on the same module as
// BenchmarkPipelineAllPasses, with 1 and 2 jobs: what a user waits for;
// json/jobs=N writes the JSON report instead (what the hand-written JSON
// writer of passes/render is measured by). generated_40MB/jobs=N runs the
// text report on a generated module of about 40 MB (hlogen), the scale at
// which the output is streamed rather than held. MB/s is of the module's
// text.
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
				benchCLI(b, path, len(src), format, jobs)
				hlotest.ReportInstructions(b, best)
			})
		}
	}
	dir := b.TempDir()
	var gen string // written by the first generated_40MB benchmark to run
	size := 0
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("generated_40MB/jobs=%d", jobs), func(b *testing.B) {
			if gen == "" {
				text := hlogen.Module(40 << 20)
				path := filepath.Join(dir, "generated_40MB.hlo")
				if err := os.WriteFile(path, text, 0o644); err != nil {
					b.Fatal(err)
				}
				gen, size = path, len(text)
			}
			benchCLI(b, gen, size, "text", jobs)
		})
	}
}

// benchCLI times hlo-opt with every analysis on the module at path (size
// bytes), writing the report in format to a discarding stdout.
func benchCLI(b *testing.B, path string, size int, format string, jobs int) {
	args := []string{"--passes=verify,stats,indexing,coalescing,utilization,cost", "--emit=report",
		"--format=" + format, fmt.Sprintf("--jobs=%d", jobs), path}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	runtime.GC()
	for b.Loop() {
		env := &Env{Stdout: io.Discard, Stderr: io.Discard}
		if code := Main(context.Background(), args, env); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
