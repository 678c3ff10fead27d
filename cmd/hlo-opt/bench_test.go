package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest/hlogen"
	"github.com/hlo-opt/hlo-opt/layoutassign"
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

// BenchmarkSplitInput is parse + print through hlo-opt --split-input-file
// (what make scale times against wc -l) on 24 copies of the module of
// BenchmarkCLI joined by '// -----' lines, with 1 and 2 jobs: the chunks
// are read, parsed and printed side by side. MB/s is of the whole text.
func BenchmarkSplitInput(b *testing.B) {
	const copies = 24
	_, path, n := hlotest.LargestMultiComputationModule(b)
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	parts := make([]string, copies)
	for i := range parts {
		parts[i] = string(src)
	}
	text := strings.Join(parts, "\n"+hlo.SplitMarker+"\n")
	file := filepath.Join(b.TempDir(), "split.hlo")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			args := []string{"--split-input-file", fmt.Sprintf("--jobs=%d", jobs), file}
			for b.Loop() {
				env := &Env{Stdout: io.Discard, Stderr: io.Discard}
				if code := Main(context.Background(), args, env); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
			hlotest.ReportInstructions(b, copies*n)
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

// cpuTime is the CPU time the process has used (user and system, every
// thread): what BenchmarkShapes charges a stage, so that other work on
// the machine does not inflate it.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// shapeStage is one measured stage of BenchmarkShapes: the parse, the
// print or one pass. run does the stage once on the module text src and
// the module parsed from it and returns the stage's own CPU time (a
// pass's prerequisites, and the parse of a fresh module for a Transform,
// are not counted).
type shapeStage struct {
	name string
	run  func(src []byte, m *hlo.Module) (time.Duration, error)
}

// shapeStages are the parse, the print, every pass hlo-opt offers (each
// run alone, with one job and hlo-opt's default settings) and "all", every
// analysis in one run as hlo-opt --passes with all of them does it (the
// layout assignment they require included).
func shapeStages() []shapeStage {
	cfg := defaultPassConfig().config()
	timed := func(f func() error) (time.Duration, error) {
		start := cpuTime()
		err := f()
		return cpuTime() - start, err
	}
	stages := []shapeStage{
		{"parse", func(src []byte, _ *hlo.Module) (time.Duration, error) {
			return timed(func() error { _, err := hlo.ParseOptions{Jobs: 1}.ParseFile("", src); return err })
		}},
		{"print", func(_ []byte, m *hlo.Module) (time.Duration, error) {
			return timed(func() error { return m.Print(io.Discard, hlo.PrintOptions{Jobs: 1}) })
		}},
	}
	// pipeline runs ps and charges the CPU time of the passes named
	// charged (all when nil), measured around each pass by AfterPass.
	pipeline := func(ps []*passes.Pass, fresh bool, charged *passes.Pass) func([]byte, *hlo.Module) (time.Duration, error) {
		var spent, since time.Duration
		pl, err := passes.NewPipeline(ps, passes.Options{Jobs: 1, Config: cfg, AfterPass: func(e passes.PassEvent) error {
			now := cpuTime()
			if charged == nil || e.Pass == charged {
				spent += now - since
			}
			since = cpuTime() // verification after a pass is not charged
			return nil
		}})
		return func(src []byte, m *hlo.Module) (time.Duration, error) {
			if err != nil {
				return 0, err
			}
			if fresh { // a Transform changes the module: run it on a new one
				if m, err = hlo.Parse(src); err != nil {
					return 0, err
				}
			}
			spent, since = 0, cpuTime()
			_, err := pl.Run(context.Background(), m)
			return spent, err
		}
	}
	var analyses []*passes.Pass
	for _, p := range allPasses() {
		stages = append(stages, shapeStage{p.Name, pipeline([]*passes.Pass{p}, p.Transform, p)})
		if !p.Transform {
			analyses = append(analyses, p)
		}
	}
	return append(stages, shapeStage{"all", pipeline(analyses, true, nil)})
}

// BenchmarkShapes runs the parse, the print and every pass on each module
// shape of hlogen (a training step unrolled into the entry, many small
// computations, nested loops, wide tuples) at each of hlogen.Scales, and
// reports each stage's CPU time (the process's, so that other work on a
// loaded machine does not count) per instruction (ns/inst) and per MB of
// text (ms/MB; ns/op is the stage's CPU time too). Its log ends with the table of
// ns/inst by scale (the median of the -count runs) and the growth from the
// smallest scale to the largest, which stays near 1 for a stage linear in
// the module. The table goes to standard output, as go test prints a
// benchmark's log only with -v.
//
// The collector runs as it does for a compiler driver that embeds
// hlo-opt: the module is live, a stage's garbage is collected when the
// heap doubles, and no stage is preceded by a forced collection. One
// was, and the runtime's work after it (returning the freed heap to the
// system, then faulting it in again, which costs much on a virtual
// machine) was charged to the next stage: the print of the unrolled step
// at 4x measured 1461 to 3392 ns per instruction in three runs, 612
// without it, and 240 at 1x, where the same instructions run (callgrind);
// freeing the heap to the system before each stage, as a fresh process
// starts, gave 3662. Each stage runs once unmeasured first, so that its
// runs at every scale find the heap grown to what they need: a stage of
// more than -benchtime runs once, and at 16x that one run paid for the
// heap's growth (page faults, a collection of the parse's garbage) that
// the hundreds of runs at 1x share (wide-tuples' every analysis: 1.71x
// from 1x to 16x measured cold, 1.04x with the run first; 5 runs in a row
// at 16x: 10190 ns per instruction against 13880 for one).
//
//	go test ./cmd/hlo-opt -run '^$' -bench 'Shapes' -benchtime 500ms -count 3
func BenchmarkShapes(b *testing.B) {
	stages := shapeStages()
	type key struct {
		shape, stage string
		scale        int
	}
	perInst := map[key][]float64{}
	for _, sh := range hlogen.Shapes {
		for _, scale := range hlogen.Scales {
			src := sh.Gen(scale)
			m, err := hlo.Parse(src)
			if err != nil {
				b.Fatal(err)
			}
			n := hlotest.CountInstructions(m)
			// The passes that read layouts find the module laid out, as
			// they do after the layout assignment in hlo-opt.
			for _, st := range stages {
				if st.name == layoutassign.AssignPass.Name {
					if _, err := st.run(src, m); err != nil {
						b.Fatal(err)
					}
				}
			}
			for _, st := range stages {
				b.Run(fmt.Sprintf("%s/%dx/%s", sh.Name, scale, st.name), func(b *testing.B) {
					// One run first, not measured (see above).
					if _, err := st.run(src, m); err != nil {
						b.Fatal(err)
					}
					var spent time.Duration
					for b.Loop() {
						d, err := st.run(src, m)
						if err != nil {
							b.Fatal(err)
						}
						spent += d
					}
					per := float64(spent) / float64(b.N)
					b.ReportMetric(per, "ns/op")
					b.ReportMetric(per/float64(n), "ns/inst")
					b.ReportMetric(per/1e6/(float64(len(src))/(1<<20)), "ms/MB")
					k := key{sh.Name, st.name, scale}
					perInst[k] = append(perInst[k], per/float64(n))
				})
			}
		}
	}
	fmt.Print(growthTable(hlogen.Shapes, stages, func(shape, stage string, scale int) []float64 {
		return perInst[key{shape, stage, scale}]
	}))
}

// growthTable is BenchmarkShapes' table: for each shape and stage measured
// at every scale, the median ns per instruction of its runs at each scale
// and the growth from the first scale to the last.
func growthTable(shapes []hlogen.Shape, stages []shapeStage, runs func(shape, stage string, scale int) []float64) string {
	var t strings.Builder
	fmt.Fprintf(&t, "ns per instruction at scales %v (median of each scale's runs), and the growth from the first to the last:\n", hlogen.Scales)
	for _, sh := range shapes {
	stage:
		for _, st := range stages {
			med := make([]float64, len(hlogen.Scales))
			for i, scale := range hlogen.Scales {
				v := slices.Clone(runs(sh.Name, st.name, scale))
				if len(v) == 0 {
					continue stage // filtered out by -bench
				}
				slices.Sort(v)
				med[i] = v[len(v)/2]
				if len(v)%2 == 0 {
					med[i] = (v[len(v)/2-1] + v[len(v)/2]) / 2
				}
			}
			fmt.Fprintf(&t, "%-14s %-14s", sh.Name, st.name)
			for _, x := range med {
				fmt.Fprintf(&t, " %10.1f", x)
			}
			fmt.Fprintf(&t, "   x%.2f\n", med[len(med)-1]/med[0])
		}
	}
	return t.String()
}
