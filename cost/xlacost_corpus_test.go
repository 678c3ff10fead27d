package cost

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// xlaCostModules are every module the repository holds or reads: the
// corpus, today's XLA dumps, the ground truth's compiles and the passes'
// golden inputs.
func xlaCostModules(t *testing.T) map[string]*hlo.Module {
	mods := map[string]*hlo.Module{}
	for _, cm := range hlotest.CorpusModules(t) {
		mods["corpus/"+cm.Name()] = cm.Module
	}
	for _, d := range hlotest.XLATodayDumps(t) {
		m, err := hlo.ParseFile(d.Path, d.Src)
		require.NoError(t, err, d.Name)
		mods["xla-today/"+d.Name] = m
	}
	for _, pattern := range []string{"groundtruth/*/*/*/after_optimizations.txt", "*/*.hlo"} {
		files, err := filepath.Glob(hlotest.TestdataPath(t, filepath.FromSlash(pattern)))
		require.NoError(t, err)
		for _, f := range files {
			if m, err := hlo.ParseFile(f, hlotest.ReadFile(t, f)); err == nil {
				mods[f] = m
			}
		}
	}
	return mods
}

// Properties of XLACost on every module, for every backend: figures are
// finite; the module's totals are its entry instructions' sums; nothing
// is negative but XLA's -1 for what a custom call leaves unknown; and the
// backends count the same flops, which depend on no shape size (the
// TPU's only differ by the custom calls it knows).
func TestXLACostProperties(t *testing.T) {
	mods := xlaCostModules(t)
	require.NotEmpty(t, mods)
	for name, m := range mods {
		if m.Entry == nil {
			continue
		}
		unknown := 0.0
		tpuKnown := false
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				if in.Opcode == hlo.OpCustomCall {
					unknown++
					switch in.CustomCallTarget() {
					case "TopK", "TopKBatchMajorSmallK", "AssumeGatherIndicesInBound", "AllocateBuffer":
						tpuKnown = true
					}
				}
			}
		}
		flops := map[XLABackend]float64{}
		for _, target := range []XLATarget{{Backend: XLACPU}, {Backend: XLAGPU}, {Backend: XLATPU, Device: "tpu-v5e"}} {
			c := XLACost(m, target)
			var sum XLACostValues
			for _, in := range m.Entry.Instructions {
				v := c.Of(in)
				require.NotNil(t, v, "%s: %s not costed", name, in.Name)
				sum.add(v)
			}
			for _, f := range []struct {
				what      string
				got, want float64
			}{
				{"flops", c.Module.Flops, sum.Flops},
				{"transcendentals", c.Module.Transcendentals, sum.Transcendentals},
				{"bytes accessed", c.Module.BytesAccessed, sum.BytesAccessed},
				{"optimal_seconds", c.Module.OptimalSeconds, sum.OptimalSeconds},
			} {
				assert.False(t, math.IsNaN(f.got) || math.IsInf(f.got, 0), "%s %v: %s %v", name, target, f.what, f.got)
				assert.Equal(t, f.want, f.got, "%s %v: %s is the entry's sum", name, target, f.what)
			}
			for _, comp := range m.Computations {
				for _, in := range comp.Instructions {
					v := c.Of(in)
					if v == nil {
						continue // not visited
					}
					assert.GreaterOrEqual(t, v.Flops, -unknown, "%s %v: %s flops", name, target, in.Name)
					assert.GreaterOrEqual(t, v.BytesAccessed, -unknown, "%s %v: %s bytes accessed", name, target, in.Name)
					assert.GreaterOrEqual(t, v.Transcendentals, 0.0, "%s %v: %s transcendentals", name, target, in.Name)
				}
			}
			flops[target.Backend] = c.Module.Flops
		}
		assert.Equal(t, flops[XLACPU], flops[XLAGPU], "%s: flops on the CPU and a GPU", name)
		if !tpuKnown {
			assert.Equal(t, flops[XLACPU], flops[XLATPU], "%s: flops on the CPU and a TPU", name)
		}
	}
	t.Logf("%d modules", len(mods))
}
