package layoutassign

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// The fidelity harness measures how closely Assign reproduces the layouts
// XLA's TPU compiler really chose, on the after-optimizations dumps of the
// corpus (maxtext__reference_hlo_*.hlo).
//
// Those dumps are truncated: no ENTRY, only fused computations (and their
// reducers, async and while-body wrappers) whose callers were cut off. The
// harness keeps the layouts the algorithm itself treats as fixed (bitcasts
// and their operands, custom-calls with operand_layout_constraints, infeed,
// outfeed, send, recv, and the boundary of the parser's entry, the last
// complete computation) and, depending on the mode, more of what the
// missing callers decided:
//
//   - "boundary": the parameters and roots of every computation nothing in
//     the dump calls (the caller's operand layouts and its result layout,
//     which the caller's users decided), like an entry signature each;
//   - "params": only those computations' parameters (the caller's operand
//     layouts); the pass decides each fusion's result layout;
//   - "roots": only their roots (the parser's entry keeps its parameters
//     too); the pass derives the parameters backwards;
//   - "entry": nothing more (exactly what Assign fixes on such a module).
//
// Every other array layout is stripped (minor_to_major, tiles, element
// size and memory space), Assign runs with KeepLayouts (which fixes exactly
// the layouts left), and each stripped array's new layout is compared with
// XLA's. Memory spaces are reported ("+space") but not part of "full"
// agreement: memory-space assignment, not layout assignment, decides them.
// Known tile disagreement: XLA leaves scalars in memory space S(2) (sync
// flags of async copies and slices) untiled; the stripped value has no
// memory space left to tell.

// fidelityFloors are the agreement rates (percent) the harness asserts per
// module: a regression below them fails.
var fidelityFloors = map[string]map[string]fidelityRates{
	"maxtext__reference_hlo_llama3_8b.hlo": {
		"boundary": {m2m: 100, tiles: 98.5, full: 98.5},
		"params":   {m2m: 100, tiles: 98.6, full: 98.6},
		"roots":    {m2m: 99.6, tiles: 98.7, full: 98.5},
		"entry":    {m2m: 94.9, tiles: 98.8, full: 95.6},
	},
	"maxtext__reference_hlo_deepseek3.hlo": {
		"boundary": {m2m: 100, tiles: 99.3, full: 99.3},
		"params":   {m2m: 100, tiles: 99.3, full: 99.3},
		"roots":    {m2m: 98.5, tiles: 99.4, full: 98.5},
		"entry":    {m2m: 96.1, tiles: 99.4, full: 97.0},
	},
}

type fidelityRates struct{ m2m, tiles, full float64 }

// xlaLeaf is XLA's layout of one array leaf.
type xlaLeaf struct {
	path   []int64
	layout *hlo.Layout // nil: XLA printed none (a few scalar constants)
	rank   int
}

// fidelityCount accumulates agreement counts.
type fidelityCount struct {
	// m2mN/m2mOK count arrays of rank >= 2 and those whose minor_to_major
	// matches; tileN/tileOK arrays (any rank) with a matching
	// minor_to_major and those whose tiles and element size match too;
	// fullN/fullOK every compared array and those with the same
	// minor_to_major, tiles and element size; spaceOK those whose memory
	// space matches as well (only the stated ones are kept by the pass).
	m2mN, m2mOK, tileN, tileOK, fullN, fullOK, spaceOK int
}

func (c *fidelityCount) add(o fidelityCount) {
	c.m2mN += o.m2mN
	c.m2mOK += o.m2mOK
	c.tileN += o.tileN
	c.tileOK += o.tileOK
	c.fullN += o.fullN
	c.fullOK += o.fullOK
	c.spaceOK += o.spaceOK
}

func pct(ok, n int) float64 {
	if n == 0 {
		return 100
	}
	return 100 * float64(ok) / float64(n)
}

func (c fidelityCount) rates() fidelityRates {
	return fidelityRates{m2m: pct(c.m2mOK, c.m2mN), tiles: pct(c.tileOK, c.tileN), full: pct(c.fullOK, c.fullN)}
}

func (c fidelityCount) String() string {
	return fmt.Sprintf("m2m %4d/%4d %5.1f%%  tiles|m2m %4d/%4d %5.1f%%  full %4d/%4d %5.1f%%  +space %5.1f%%",
		c.m2mOK, c.m2mN, pct(c.m2mOK, c.m2mN), c.tileOK, c.tileN, pct(c.tileOK, c.tileN),
		c.fullOK, c.fullN, pct(c.fullOK, c.fullN), pct(c.spaceOK, c.fullN))
}

// fidelityReport is the outcome of one module.
type fidelityReport struct {
	total    fidelityCount
	byOpcode map[hlo.Opcode]*fidelityCount
	// fixed and unstated count the arrays left out: given to the pass, or
	// without a layout in XLA's text.
	fixed, unstated int
	// mismatches groups minor_to_major disagreements by a pattern key and
	// keeps an example of each.
	mismatches map[string]*fidelityMismatch
}

type fidelityMismatch struct {
	n       int
	example string
}

// calledComputations returns the computations some instruction calls.
func calledComputations(m *hlo.Module) map[*hlo.Computation]bool {
	called := map[*hlo.Computation]bool{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			for _, cc := range in.Called {
				called[cc] = true
			}
		}
	}
	return called
}

// fidelityFixed reports whether the harness hands in's layout to the pass
// (see the comment at the top of this file): params and root say whether
// in's computation has its parameters or its root fixed.
func fidelityFixed(in *hlo.Instruction, params, root bool, bitcastOperand map[*hlo.Instruction]bool) bool {
	switch {
	case params && in.Opcode == "parameter" || root && in.IsRoot():
		return true
	case in.Opcode == "bitcast" || bitcastOperand[in]:
		return true
	case in.Opcode == "infeed" || in.Opcode == "outfeed" || in.Opcode == "send" || in.Opcode == "recv":
		return true
	case in.Opcode == "custom-call":
		_, ok := in.Attr("operand_layout_constraints")
		return ok
	}
	return false
}

// fidelityBoundary says which side of computation c's boundary the mode
// fixes: the entry's whole signature always, the uncalled computations'
// parameters and/or roots by mode.
func fidelityBoundary(m *hlo.Module, c *hlo.Computation, called bool, mode string) (params, root bool) {
	switch {
	case c == m.Entry:
		return true, true
	case called:
		return false, false
	}
	return mode == "boundary" || mode == "params", mode == "boundary" || mode == "roots"
}

// measureFidelity strips the non-fixed layouts of m, runs Assign and
// compares each stripped array's new layout with XLA's.
func measureFidelity(t testing.TB, m *hlo.Module, mode string) fidelityReport {
	called := calledComputations(m)
	bitcastOperand := map[*hlo.Instruction]bool{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == "bitcast" {
				for _, op := range in.Operands {
					bitcastOperand[op] = true
				}
			}
		}
	}
	rep := fidelityReport{byOpcode: map[hlo.Opcode]*fidelityCount{}, mismatches: map[string]*fidelityMismatch{}}
	xla := map[*hlo.Instruction][]xlaLeaf{}
	for _, c := range m.Computations {
		params, root := fidelityBoundary(m, c, called[c], mode)
		for _, in := range c.Instructions {
			if fidelityFixed(in, params, root, bitcastOperand) {
				for _, l := range in.Shape.Leaves() {
					if l.Shape.IsArray() {
						rep.fixed++
					}
				}
				continue
			}
			// The parser may share shapes between instructions: strip a
			// clone, never the shared layout.
			in.Shape = in.Shape.Clone()
			var leaves []xlaLeaf
			strip := func(path []int64, s *hlo.Shape) {
				leaves = append(leaves, xlaLeaf{path: path, layout: s.Layout, rank: s.Rank()})
				s.Layout = nil
			}
			if in.Shape.IsArray() {
				strip(nil, &in.Shape)
			} else {
				for _, l := range in.Shape.Leaves() {
					if l.Shape.IsArray() {
						s, _ := in.Shape.Subshape(l.Index)
						strip(l.Index, s)
					}
				}
			}
			xla[in] = leaves
		}
	}
	_, err := Assign(m, Options{Target: TPU()})
	require.NoError(t, err)
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			for _, x := range xla[in] {
				if x.layout == nil {
					rep.unstated++
					continue
				}
				got, ok := in.Shape.Subshape(x.path)
				require.True(t, ok)
				require.NotNil(t, got.Layout, "%s has no layout after the pass", in.Name)
				var one fidelityCount
				sameM2M := slices.Equal(got.Layout.MinorToMajor, x.layout.MinorToMajor)
				sameTiles := slices.EqualFunc(got.Layout.Tiles, x.layout.Tiles, func(a, b hlo.Tile) bool { return slices.Equal(a, b) }) &&
					got.Layout.ElementSizeBits == x.layout.ElementSizeBits
				if x.rank >= 2 {
					one.m2mN++
					if sameM2M {
						one.m2mOK++
					}
				}
				one.fullN++
				if sameM2M {
					one.tileN++
					if sameTiles {
						one.tileOK++
						one.fullOK++
						if got.Layout.MemorySpace == x.layout.MemorySpace {
							one.spaceOK++
						}
					}
				}
				rep.total.add(one)
				bc := rep.byOpcode[in.Opcode]
				if bc == nil {
					bc = &fidelityCount{}
					rep.byOpcode[in.Opcode] = bc
				}
				bc.add(one)
				if !sameM2M || !sameTiles {
					key := fmt.Sprintf("%s rank %d: xla {%s} ours {%s}", in.Opcode, x.rank, x.layout.String(), got.Layout.String())
					if sameM2M {
						key = fmt.Sprintf("%s tiles: xla %s ours %s", in.Opcode, x.layout.String(), got.Layout.String())
					}
					mm := rep.mismatches[key]
					if mm == nil {
						mm = &fidelityMismatch{example: fmt.Sprintf("%s.%s = %s", c.Name, in.Name, in.Shape.StringNoLayout())}
						rep.mismatches[key] = mm
					}
					mm.n++
				}
			}
		}
	}
	return rep
}

// fidelitySources reads the corpus's TPU after-optimizations dumps.
func fidelitySources(t testing.TB) map[string][]byte {
	dir := hlotest.CorpusDir(t)
	out := map[string][]byte{}
	for name := range fidelityFloors {
		src, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		out[name] = src
	}
	return out
}

// TestLayoutFidelity reports, per TPU dump and per choice of what is
// fixed, how many of the arrays the pass lays out get the layout XLA chose
// (by opcode, with the most frequent disagreements), and fails when a rate
// falls below its floor (modes: see the top of this file).
func TestLayoutFidelity(t *testing.T) {
	srcs := fidelitySources(t)
	for _, mode := range []string{"boundary", "params", "roots", "entry"} {
		for _, name := range slices.Sorted(maps.Keys(srcs)) {
			t.Run(mode+"/"+name, func(t *testing.T) {
				m, err := hlotest.CorpusParse.ParseFile(name, srcs[name])
				require.NoError(t, err)
				require.NotNil(t, m.Truncated, "the fidelity dumps are truncated ones")
				rep := measureFidelity(t, m, mode)
				require.Positive(t, rep.total.fullN)
				logFidelity(t, rep)
				got, floor := rep.total.rates(), fidelityFloors[name][mode]
				assert.GreaterOrEqual(t, got.m2m, floor.m2m, "minor_to_major agreement")
				assert.GreaterOrEqual(t, got.tiles, floor.tiles, "tile agreement given the same minor_to_major")
				assert.GreaterOrEqual(t, got.full, floor.full, "full layout agreement")
			})
		}
	}
}

func logFidelity(t *testing.T, rep fidelityReport) {
	t.Logf("total   %s (fixed %d, unstated %d)", rep.total, rep.fixed, rep.unstated)
	ops := make([]hlo.Opcode, 0, len(rep.byOpcode))
	for op := range rep.byOpcode {
		ops = append(ops, op)
	}
	slices.SortFunc(ops, func(a, b hlo.Opcode) int {
		return cmp.Or(cmp.Compare(rep.byOpcode[b].fullN, rep.byOpcode[a].fullN), strings.Compare(string(a), string(b)))
	})
	for _, op := range ops {
		t.Logf("  %-20s %s", op, rep.byOpcode[op])
	}
	keys := slices.Sorted(maps.Keys(rep.mismatches))
	slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(rep.mismatches[b].n, rep.mismatches[a].n) })
	for i, k := range keys {
		if i == 40 {
			break
		}
		t.Logf("  %3d x %s  e.g. %s", rep.mismatches[k].n, k, rep.mismatches[k].example)
	}
}
