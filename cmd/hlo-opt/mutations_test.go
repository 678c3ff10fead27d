package main

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/passes"
)

// mutationSeedLimit bounds the modules mutated (each mutation runs every
// pass twice).
const mutationSeedLimit = 16 << 10

// integerText matches an integer of a module's text: a dimension, an
// attribute's number, an index.
var integerText = regexp.MustCompile(`-?[0-9]+`)

// mutations returns up to n variants of src, each with one integer
// replaced by a value that is zero, off by one, negative or huge, spread
// evenly over the text's integers.
func mutations(src []byte, n int) [][]byte {
	locs := integerText.FindAllIndex(src, -1)
	repl := []string{"0", "1", "-1", "2", "3", "7", "1000000", "9223372036854775807"}
	total := len(locs) * len(repl)
	if total == 0 {
		return nil
	}
	var out [][]byte
	for k := 0; k < total && len(out) < n; k += max(total/n, 1) {
		loc, r := locs[k/len(repl)], repl[(k+k/len(repl))%len(repl)]
		if string(src[loc[0]:loc[1]]) == r {
			continue
		}
		b := append(append(append([]byte{}, src[:loc[0]]...), r...), src[loc[1]:]...)
		out = append(out, b)
	}
	return out
}

// TestMutationsReachNoRecover changes one integer at a time in every
// testdata and corpus module under 16 KB (a dimension, a dimension
// number, a window size, a tuple index, ...) and runs every pass on both
// targets: each mutant parses and runs, or fails with an error, but never
// reaches the pipeline's recover. HLO_OPT_MUTATIONS=N sets the mutants per
// module (6 by default, 2 with -short); N=60 ran 46,736 pipelines cleanly.
func TestMutationsReachNoRecover(t *testing.T) {
	n := 6
	if testing.Short() {
		n = 2
	}
	if s := os.Getenv("HLO_OPT_MUTATIONS"); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(t, err, "HLO_OPT_MUTATIONS")
	}
	paths := hlotest.ModuleFiles(t)
	pipelines := everyPassPipelines(t)
	runs := 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		if len(src) > mutationSeedLimit {
			continue
		}
		for _, mut := range mutations(src, n) {
			for _, ch := range hlo.SplitInputFile(mut) {
				for target, pl := range pipelines {
					m, err := hlo.ParseOptions{AllowTruncated: true}.ParseChunk("mutant.hlo", ch)
					if err != nil {
						break
					}
					runs++
					_, err = pl.Run(context.Background(), m)
					var pe *passes.PanicError
					if errors.As(err, &pe) {
						t.Errorf("%s mutated, %s: %v\n%s", p, target, err, mut)
					}
				}
			}
		}
	}
	t.Logf("%d pipelines run on mutants of %d modules", runs, len(paths))
}
