package hlo

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest/hlogen"
)

var (
	genOnce sync.Once
	genSrc  []byte
)

// benchNames are the inputs of the parse and print benchmarks: a corpus
// module and a generated module of about 100 MB.
var benchNames = []string{"mobilenet_v2", "generated_100MB"}

func benchInputs(b *testing.B) map[string][]byte {
	genOnce.Do(func() { genSrc = hlogen.Module(100 << 20) })
	in := map[string][]byte{"generated_100MB": genSrc}
	// The corpus lies next to the repository root; hlo's own tests cannot
	// use hlo/hlotest (it imports hlo) but run in <root>/hlo.
	if src, err := os.ReadFile(filepath.Join("..", "..", "shared", "corpus", "xla-data__mobilenet_v2.hlo")); err == nil {
		in["mobilenet_v2"] = src
	}
	return in
}

// reportMemory reports, as multiples of the text size, the heap a parse
// adds on top of the input bytes (which the caller holds anyway):
//
//   - peak-x: the highest heap in use while parsing, sampled every 20µs
//     from runtime/metrics /memory/classes/heap/objects:bytes (live objects
//     plus dead ones not yet swept), less the heap in use before the parse;
//   - live-x: the heap the parsed module keeps after a full GC (the copy of
//     the text included: names and values point into it).
func reportMemory(b *testing.B, src []byte) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(20 * time.Microsecond)
		defer t.Stop()
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	m, err := Parse(src)
	if v := read(); v > peak.Load() {
		peak.Store(v)
	}
	close(stop)
	<-done
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	live := read()
	b.ReportMetric(float64(peak.Load()-base)/float64(len(src)), "peak-x")
	b.ReportMetric(float64(live-base)/float64(len(src)), "live-x")
	runtime.KeepAlive(m)
}

// instCount is the number of instructions of the module in src.
func instCount(b *testing.B, src []byte) int {
	m, err := Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, c := range m.Computations {
		n += len(c.Instructions)
	}
	return n
}

// reportInsts reports instructions per second over the benchmark's loop.
func reportInsts(b *testing.B, n int) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/s, "insts/s")
	}
}

// benchEachInput runs a sub-benchmark per bench input: prepare makes the
// operation once per input, outside the timer, and the loop calls it. It
// reports MB/s, allocations and instructions per second, then runs after
// (when given) on the input.
func benchEachInput(b *testing.B, prepare func(b *testing.B, src []byte) func() error, after func(b *testing.B, src []byte)) {
	for _, name := range benchNames {
		src, ok := benchInputs(b)[name]
		if !ok {
			continue
		}
		n := instCount(b, src)
		op := prepare(b, src)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if err := op(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			reportInsts(b, n)
			if after != nil {
				after(b, src)
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	benchEachInput(b, func(b *testing.B, src []byte) func() error {
		return func() error {
			_, err := Parse(src)
			return err
		}
	}, reportMemory)
}

func BenchmarkPrint(b *testing.B) {
	benchEachInput(b, func(b *testing.B, src []byte) func() error {
		m, err := Parse(src)
		if err != nil {
			b.Fatal(err)
		}
		return func() error { return m.Print(io.Discard, PrintOptions{}) }
	}, nil)
}

// BenchmarkParsePrint is parse then print, the work of a round trip; its
// MB/s is the figure the parser is held to.
func BenchmarkParsePrint(b *testing.B) {
	benchEachInput(b, func(b *testing.B, src []byte) func() error {
		return func() error {
			m, err := Parse(src)
			if err != nil {
				return err
			}
			return m.Print(io.Discard, PrintOptions{})
		}
	}, nil)
}
