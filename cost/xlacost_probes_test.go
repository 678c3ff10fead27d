package cost

import (
	"encoding/json"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// TestXLACostProbes costs every probe of testdata/xla-cost/probes (one
// op family each, compiled by the pinned XLA for the CPU and TPU v5e, v6e,
// v4: testdata/xla-cost/gen/probes.py) and compares every figure
// compiled.cost_analysis() gave for it: flops, transcendentals, bytes
// accessed, optimal_seconds, and the per-position sums "bytes
// accessed{i}{}", "utilization{i}{}", "bytes accessedout{}" that pin down
// which operand each rule charges. XLA sums in float32, so figures agree
// to 1e-7 (optimal_seconds to 1e-4: on v6e the loops' come out 1.5e-5
// short, a rounding or a rate this package does not know).
func TestXLACostProbes(t *testing.T) {
	files, err := filepath.Glob(hlotest.TestdataPath(t, "xla-cost", "probes", "*", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	backends := map[string]int{}
	for _, f := range files {
		backend := filepath.Base(filepath.Dir(f))
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(backend+"/"+name, func(t *testing.T) {
			var want map[string]float64
			require.NoError(t, json.Unmarshal(hlotest.ReadFile(t, f), &want))
			require.NotNil(t, want, "XLA gave no cost_analysis()")
			path := strings.TrimSuffix(f, ".json") + ".hlo"
			m, err := hlo.ParseFile(path, hlotest.ReadFile(t, path))
			require.NoError(t, err)
			target, err := ParseXLATarget(backend)
			require.NoError(t, err)
			c := XLACost(m, target)
			got := c.Module.Keys()
			for _, k := range probeKeys(want, got) {
				if k == "optimal_seconds" && !c.HasOptimalSeconds() {
					continue
				}
				w, g := want[k], got[k]
				tol := 1e-7*math.Abs(w) + 0.6
				if k == "optimal_seconds" {
					tol = 1e-4 * math.Abs(w)
				}
				assert.InDelta(t, w, g, tol, "%s: %q", name, k)
			}
		})
		backends[backend]++
	}
	for _, b := range []string{"cpu", "tpu-v5e", "tpu-v6e", "tpu-v4"} {
		assert.Positive(t, backends[b], "no probes of %s", b)
	}
}

// probeKeys are the keys of either map that XLACostValues.Keys can give
// (the per-position keys of the whole value, "{}"; XLA also gives some per
// tuple element, "{0}", which are not modelled), sorted.
func probeKeys(want, got map[string]float64) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range []map[string]float64{want, got} {
		for k := range m {
			if strings.HasSuffix(k, "}") && !strings.HasSuffix(k, "{}") || seen[k] {
				continue
			}
			seen[k] = true
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
