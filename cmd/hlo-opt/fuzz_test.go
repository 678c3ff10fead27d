package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/zap"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

// fuzzSlow is the time all passes may take on one fuzz input (small: the
// seeds take milliseconds) before the input is kept as a failure.
const fuzzSlow = 5 * time.Second

// fuzzSeedLimit bounds the seed modules (larger ones make each run slow
// without reaching more code).
const fuzzSeedLimit = 64 << 10

// FuzzPipeline parses any text and runs every pass on it, on a TPU and a
// GPU target, as hlo-opt does (the input verified first): it may fail,
// with a positioned error, but no pass may panic (the pipeline's recover
// is a last guard, not a way to fail). Seeded with the corpus, the
// testdata modules and XLA's own compiles of the ground-truth programs;
// found inputs are kept in testdata/fuzz/FuzzPipeline.
func FuzzPipeline(f *testing.F) {
	var seeds []string
	for _, pattern := range []string{"../../testdata/*/*.hlo", "../../testdata/xla-today/*/*.hlo", "../../testdata/groundtruth/*/h100-measured/small/after_optimizations.txt",
		"../../testdata/groundtruth/*/tpu-v5e/small/after_optimizations.txt"} {
		m, _ := filepath.Glob(pattern)
		seeds = append(seeds, m...)
	}
	if hlotest.FindCorpus(f) != "" {
		seeds = append(seeds, hlotest.CorpusFiles(f)...)
	}
	for _, path := range seeds {
		if src, err := os.ReadFile(path); err == nil && len(src) < fuzzSeedLimit {
			f.Add(src)
		}
	}
	pipelines := everyPassPipelines(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, ch := range hlo.SplitInputFile(src) {
			for target, pl := range pipelines {
				m, err := hlo.ParseOptions{AllowTruncated: true}.ParseChunk("fuzz.hlo", ch)
				if err != nil {
					continue
				}
				start := time.Now()
				_, err = pl.Run(context.Background(), m)
				var pe *passes.PanicError
				if errors.As(err, &pe) {
					t.Fatalf("%s: %v", target, err)
				}
				if d := time.Since(start); d > fuzzSlow {
					t.Fatalf("%s: every pass on a %d-byte input took %v", target, len(ch.Src), d)
				}
			}
		}
	})
}

// everyPassPipelines returns, for the TPU and the GPU target, a pipeline
// of every pass as hlo-opt runs them (the input verified first).
func everyPassPipelines(tb testing.TB) map[string]*passes.Pipeline {
	pipelines := map[string]*passes.Pipeline{}
	for _, target := range []string{"tpu", "gpu"} {
		cfg := defaultPassConfig()
		t, err := layoutassign.ParseTarget(target)
		if err != nil {
			tb.Fatal(err)
		}
		cfg.layout.Target = t
		reg, err := newRegistry()
		if err != nil {
			tb.Fatal(err)
		}
		ps, err := reg.Parse("layout,indexing,coalescing,utilization,cost,stats")
		if err != nil {
			tb.Fatal(err)
		}
		pl, err := passes.NewPipeline(ps, passes.Options{Jobs: 1, Logger: zap.NewNop(), Config: cfg.config()})
		if err != nil {
			tb.Fatal(err)
		}
		pipelines[target] = pl
	}
	return pipelines
}

// TestMutationsNeverPanic runs every pass on the hand-written invalid
// modules of testdata/verify/invalid/mutations.hlo (one per kind of bad
// attribute, shape or size), on both targets, with the input's
// verification off: each may fail with a message, but no pass panics
// (the pipeline's recover is never reached). With verification on, each
// invalid one is reported as the input's fault or as a parse error.
func TestMutationsNeverPanic(t *testing.T) {
	const file = "../../testdata/verify/invalid/mutations.hlo"
	for _, target := range []string{"tpu", "gpu"} {
		_, errOut, code := hloOpt(t, "", "--verify=false", "--split-input-file", "--target="+target,
			"--passes=layout,indexing,coalescing,utilization,cost,stats", file)
		assert.Equal(t, 1, code)
		assert.NotContains(t, errOut, "panic", target)
	}
	_, errOut, code := hloOpt(t, "", "--split-input-file", "--passes=layout,indexing,coalescing,utilization,cost", file)
	assert.Equal(t, 1, code)
	assert.NotContains(t, errOut, "panic")
	for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
		assert.Regexp(t, `^(hlo-opt: invalid input \(verify\): )?\.\./\.\./testdata/verify/invalid/mutations\.hlo:\d+`, line)
	}
	assert.Equal(t, 16, strings.Count(errOut, "mutations.hlo:"), "each of the 16 invalid modules reported, the 2 valid ones not")
}
