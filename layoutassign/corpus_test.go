package layoutassign

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// stated records the layouts a module states for its entry signature and
// custom-call operands, before the pass runs.
type statedConstraints struct {
	params  map[int]string // entry parameter number -> minor_to_major list per leaf
	result  string
	ccOpnds map[*hlo.Instruction][]hlo.Shape
}

func onlyM2M(s hlo.Shape) string {
	var parts []string
	for _, l := range s.Leaves() {
		if l.Shape.IsArray() && l.Shape.Rank() == 0 {
			parts = append(parts, "scalar")
		} else if l.Shape.IsArray() && l.Shape.Layout != nil {
			parts = append(parts, joinInts(l.Shape.Layout.MinorToMajor))
		} else {
			parts = append(parts, "-")
		}
	}
	return strings.Join(parts, " ")
}

func collectStated(t *testing.T, m *hlo.Module) statedConstraints {
	sc := statedConstraints{params: map[int]string{}, ccOpnds: map[*hlo.Instruction][]hlo.Shape{}}
	ecl, err := entrySignature(m)
	require.NoError(t, err)
	for n, p := range m.Entry.Params {
		switch {
		case ecl != nil && n < len(ecl.Params):
			sc.params[n] = onlyM2M(ecl.Params[n])
		case p != nil:
			sc.params[n] = onlyM2M(p.Shape)
		}
	}
	if ecl != nil {
		sc.result = onlyM2M(ecl.Result)
	} else {
		sc.result = onlyM2M(m.Entry.Root.Shape)
	}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == "custom-call" {
				shapes, err := operandLayoutConstraints(in)
				require.NoError(t, err)
				if shapes != nil {
					sc.ccOpnds[in] = shapes
				}
			}
		}
	}
	return sc
}

// TestCorpusLayouts runs the whole assignment (Relayout) on every corpus
// module for every target: every array gets a layout (tiled on TPU), the
// stated entry signature and custom-call operand constraints hold, the
// printed module re-parses and prints the same, and a second run changes
// nothing.
func TestCorpusLayouts(t *testing.T) {
	mods := hlotest.CorpusModules(t)
	for _, target := range []Target{TPU(), GPU()} {
		for _, cm := range mods {
			t.Run(target.Backend.String()+"/"+cm.Name(), func(t *testing.T) {
				m := parse(t, cm.Module.String())
				sc := collectStated(t, m)
				res, err := Assign(m, Options{Target: target, Relayout: true})
				require.NoError(t, err)
				for _, c := range m.Computations {
					for _, in := range c.Instructions {
						for _, l := range in.Shape.Leaves() {
							if !l.Shape.IsArray() {
								continue
							}
							require.NotNil(t, l.Shape.Layout, "%s has no layout", in.Name)
							assert.True(t, hlo.IsPermutation(l.Shape.Layout.MinorToMajor, l.Shape.Rank()), "%s: %s", in.Name, in.Shape)
							if target.Backend == BackendTPU {
								assert.NotEmpty(t, l.Shape.Layout.Tiles, "%s: %s untiled", in.Name, in.Shape)
							}
						}
					}
				}
				for n, want := range sc.params {
					assertStatedLeaves(t, want, m.Entry.Params[n].Shape, "entry parameter %d", n)
				}
				assertStatedLeaves(t, sc.result, m.Entry.Root.Shape, "entry result")
				for _, c := range m.Computations {
					for _, in := range c.Instructions {
						for i, s := range sc.ccOpnds[in] {
							assert.Equal(t, onlyM2M(s), onlyM2M(in.Operands[i].Shape), "%s operand %d", in.Name, i)
						}
					}
				}
				printed := m.String()
				m2 := parse(t, printed)
				assert.Equal(t, printed, m2.String())
				res2, err := Assign(m2, Options{Target: target, Relayout: true})
				require.NoError(t, err)
				assert.Equal(t, printed, m2.String(), "second run changed the module")
				assert.False(t, res2.Changed)
				assert.Empty(t, res2.Copies)
				_ = res
			})
		}
	}
}

// TestCorpusKeepsLayouts runs the default assignment, which keeps stated
// layouts, on every corpus module: every stated minor_to_major is still
// there (copies, where stated layouts conflict, are new instructions),
// every array has a layout, and the result re-parses. On the dumps after
// optimizations, whose layouts are consistent, nothing changes but the
// missing tiles, and the memory totals are those of the stated layouts.
func TestCorpusKeepsLayouts(t *testing.T) {
	for _, cm := range hlotest.CorpusModules(t) {
		t.Run(cm.Name(), func(t *testing.T) {
			m := parse(t, cm.Module.String())
			ecl, err := entrySignature(m)
			require.NoError(t, err)
			stated := map[*hlo.Instruction]string{}
			for _, c := range m.Computations {
				for _, in := range c.Instructions {
					if ecl != nil && c == m.Entry && in.Opcode == hlo.OpParameter {
						continue // the entry_computation_layout wins
					}
					stated[in] = onlyM2M(in.Shape)
				}
			}
			// A complete dump after optimizations keeps its totals: a TPU
			// one (tiled) on the TPU, another on the GPU. (The truncated
			// maxtext dumps differ by 18 KB in 5 GB: their cut-off callers
			// leave fused computations and reducers looking like control
			// flow, and the scalars XLA printed there without layout get
			// the target's tiles.)
			var written *MemoryReport
			dump, tiled := afterOptimizations(m)
			dump = dump && cm.Module.Truncated == nil
			tgt := TPU()
			if dump && !tiled {
				tgt = GPU()
			}
			if dump {
				written, err = AnalyzeMemory(m, tgt)
				require.NoError(t, err)
			}
			res, err := Assign(m, Options{Target: tgt})
			require.NoError(t, err)
			if written != nil {
				got, err := AnalyzeMemory(m, tgt)
				require.NoError(t, err)
				assert.Equal(t, written.Bytes, got.Bytes, "total")
				assert.Equal(t, written.PeakBytes, got.PeakBytes, "peak")
			}
			for in, want := range stated {
				assertStatedLeaves(t, want, in.Shape, "%s", in.Name)
			}
			_, err = hlo.ParseString(m.String())
			require.NoError(t, err)
			if cm.Module.IsScheduled() {
				assert.Empty(t, res.Copies, "a scheduled dump's layouts are consistent")
			}
		})
	}
}

// afterOptimizations reports whether m reads as a dump after XLA's
// optimizations (scheduled, or with tiled layouts), and whether it has
// tiled layouts (a TPU dump).
func afterOptimizations(m *hlo.Module) (dump, tiled bool) {
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			for _, l := range in.Shape.Leaves() {
				if l.Shape.Layout != nil && len(l.Shape.Layout.Tiles) > 0 {
					return true, true
				}
			}
		}
	}
	return m.IsScheduled(), false
}

// assertStatedLeaves checks each leaf layout of got against the stated
// ones ("-" leaves were not stated).
func assertStatedLeaves(t *testing.T, stated string, got hlo.Shape, msg string, args ...any) {
	t.Helper()
	g := strings.Split(onlyM2M(got), " ")
	w := strings.Split(stated, " ")
	what := fmt.Sprintf(msg, args...)
	require.Len(t, g, len(w), what)
	for k := range w {
		if w[k] != "-" {
			assert.Equal(t, w[k], g[k], "%s leaf %d", what, k)
		}
	}
}
