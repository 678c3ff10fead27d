package layoutassign

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest/hlogen"
)

// BenchmarkLayout runs Assign and AnalyzeMemory on the largest corpus
// module (a fresh parse per iteration, outside the timer, followed by a GC
// so that the parse's garbage is not charged to the pass);
// BenchmarkLayoutParse parses the same module, for comparison. Since the
// memory report follows XLA's buffer assignment (values, buffers, live
// ranges, allocations and two best-fit heaps) the pass takes about three
// times the parse (mobilenet_v2: ~26 ms against ~8.6 ms); the simple
// liveness walk it replaced took about as long as the parse.
func BenchmarkLayout(b *testing.B) {
	path := hlotest.LargestCorpusFile(b)
	m0, src := hlotest.ReadModule(b, path)
	n := hlotest.CountInstructions(m0)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		m, err := hlotest.CorpusParse.ParseFile(path, src)
		require.NoError(b, err)
		runtime.GC() // the parse's garbage is not the pass's cost
		b.StartTimer()
		_, err = Assign(m, Options{Target: TPU()})
		require.NoError(b, err)
		_, err = AnalyzeMemory(m, TPU())
		require.NoError(b, err)
	}
	hlotest.ReportInstructions(b, n)
}

func BenchmarkLayoutParse(b *testing.B) {
	path := hlotest.LargestCorpusFile(b)
	_, src := hlotest.ReadModule(b, path)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		_, err := hlotest.CorpusParse.ParseFile(path, src)
		require.NoError(b, err)
	}
}

// BenchmarkAssignGPU runs Assign for a GPU on the module the CLI
// benchmark uses (the largest with several non-fusion computations, llama
// 70B), where the cost passes require it: a fresh parse per iteration,
// outside the timer.
func BenchmarkAssignGPU(b *testing.B) {
	_, path, n := hlotest.LargestMultiComputationModule(b)
	_, src := hlotest.ReadModule(b, path)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		m, err := hlotest.CorpusParse.ParseFile(path, src)
		require.NoError(b, err)
		runtime.GC()
		b.StartTimer()
		_, err = Assign(m, Options{Target: GPU()})
		require.NoError(b, err)
	}
	hlotest.ReportInstructions(b, n)
}

// BenchmarkPlace places the HBM heap of the unrolled training step of
// hlogen (4096 layers, the 16x of cmd/hlo-opt's BenchmarkShapes), the
// largest part of the memory report there: by each of the two best-fit
// orders, and as the report does (the size order alone there, as it
// reaches the peak).
func BenchmarkPlace(b *testing.B) {
	m, err := hlo.Parse(hlogen.Unrolled(4096))
	require.NoError(b, err)
	tgt := TPU()
	_, err = Assign(m, Options{Target: tgt})
	require.NoError(b, err)
	r, err := AnalyzeMemory(m, tgt)
	require.NoError(b, err)
	lv, err := newLiveness(m, m.Entry, tgt, r.ArraysOf)
	require.NoError(b, err)
	infos := lv.classify()
	all := make([]int32, len(lv.buffers))
	sizes := make([]int64, len(lv.buffers))
	lens := make([]int, len(lv.buffers))
	for i := range all {
		all[i], sizes[i], lens[i] = int32(i), infos[i].size, len(lv.buffers[i])
	}
	_, temps := lv.assign(all, infos)
	run := lv.simulate(0, temps[0], lv.bufOf, sizes, lens)
	ivs, horizon := run.intervals()
	idx := &heapIndex{}
	for _, o := range []struct {
		name  string
		order heapOrder
	}{{"spatial", spatial}, {"temporal", temporal}} {
		b.Run(o.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				run.fit(ivs, horizon, o.order, tgt.heapAlignment(0), idx)
			}
		})
	}
	b.Run("place", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			run.place(tgt.heapAlignment(0))
		}
	})
}
