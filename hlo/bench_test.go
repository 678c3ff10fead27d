package hlo

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// genModule writes a module of about size bytes in the style of a TPU
// after-optimizations dump: many fused computations with tiled layouts,
// operand shapes and metadata, called in a chain from the entry. Every
// name is unique.
func genModule(size int) []byte {
	var b strings.Builder
	b.Grow(size + 1<<16)
	b.WriteString("HloModule jit_train_step, is_scheduled=true, entry_computation_layout={(bf16[8,128,4096]{2,1,0:T(8,128)(2,1)}, f32[4096]{0:T(1024)})->bf16[8,128,4096]{2,1,0:T(8,128)(2,1)}}\n\n")
	const act = "bf16[8,128,4096]{2,1,0:T(8,128)(2,1)}"
	const actF = "f32[8,128,4096]{2,1,0:T(8,128)}"
	const w = "f32[4096]{0:T(1024)}"
	md := func(op string) string {
		return fmt.Sprintf(`metadata={op_name="jit(train_step)/jvp(transformer)/while/body/closed_call/checkpoint/%s" source_file="/workspace/maxtext/layers/models.py" source_line=412 stack_frame_id=0}`, op)
	}
	n := 0
	for b.Len() < size*4/5 {
		fmt.Fprintf(&b, "%%fused_computation.%d (param_0.%d: bf16[8,128,4096], param_1.%d: f32[4096]) -> bf16[8,128,4096] {\n", n, n, n)
		fmt.Fprintf(&b, "  %%param_0.%d = %s parameter(0)\n", n, act)
		fmt.Fprintf(&b, "  %%param_1.%d = %s parameter(1)\n", n, w)
		fmt.Fprintf(&b, "  %%convert.%d = %s convert(%s %%param_0.%d), %s\n", n, actF, act, n, md("convert_element_type"))
		fmt.Fprintf(&b, "  %%broadcast.%d = %s broadcast(%s %%param_1.%d), dimensions={2}, %s\n", n, actF, w, n, md("broadcast_in_dim"))
		fmt.Fprintf(&b, "  %%multiply.%d = %s multiply(%s %%convert.%d, %s %%broadcast.%d), %s\n", n, actF, actF, n, actF, n, md("mul"))
		fmt.Fprintf(&b, "  %%constant.%d = f32[]{:T(128)} constant(0.5)\n", n)
		fmt.Fprintf(&b, "  %%broadcast.c.%d = %s broadcast(f32[]{:T(128)} %%constant.%d), dimensions={}\n", n, actF, n)
		fmt.Fprintf(&b, "  %%add.%d = %s add(%s %%multiply.%d, %s %%broadcast.c.%d), %s\n", n, actF, actF, n, actF, n, md("add"))
		fmt.Fprintf(&b, "  %%tanh.%d = %s tanh(%s %%add.%d), %s\n", n, actF, actF, n, md("tanh"))
		fmt.Fprintf(&b, "  ROOT %%convert.out.%d = %s convert(%s %%tanh.%d), %s\n", n, act, actF, n, md("convert_element_type"))
		b.WriteString("}\n\n")
		n++
	}
	fmt.Fprintf(&b, "ENTRY %%main.%d (p0: bf16[8,128,4096], p1: f32[4096]) -> bf16[8,128,4096] {\n", n)
	fmt.Fprintf(&b, "  %%p0 = %s parameter(0)\n  %%p1 = %s parameter(1)\n", act, w)
	prev := "p0"
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  %%fusion.%d = %s fusion(%s %%%s, %s %%p1), kind=kLoop, calls=%%fused_computation.%d, %s, backend_config={\"flag_configs\":[],\"scoped_memory_configs\":[],\"used_scoped_memory_configs\":[]}\n", i, act, act, prev, w, i, md("fusion"))
		prev = fmt.Sprintf("fusion.%d", i)
	}
	fmt.Fprintf(&b, "  ROOT %%copy.%d = %s copy(%s %%%s)\n}\n", n, act, act, prev)
	return []byte(b.String())
}

var (
	genOnce sync.Once
	genSrc  []byte
)

// benchNames are the inputs of the parse and print benchmarks: a corpus
// module and a generated module of about 100 MB.
var benchNames = []string{"mobilenet_v2", "generated_100MB"}

func benchInputs(b *testing.B) map[string][]byte {
	genOnce.Do(func() { genSrc = genModule(100 << 20) })
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
