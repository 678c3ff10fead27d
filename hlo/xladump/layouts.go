package xladump

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// Layouts: a module laid out by hlo-opt from XLA's before-optimizations
// module is set beside XLA's after-optimizations module of the same
// compile. XLA renames what it fuses, so an array of the after-optimizations
// module is matched to the one of the laid-out module with the same opcode,
// op_name metadata, element type and dims; arrays XLA made (fusions,
// copies, bitcasts, fusion parameters: those are never matched, even when
// XLA copied an operand's metadata onto them) have no match and are not
// compared,
// nor are those whose matches got different layouts from us (ambiguous).
// Arrays XLA printed without a layout are in computations it does not lay
// out (the scalar reducer it makes for a dynamic-slice, "(lhs, rhs)"); a
// parameter's key has no op_name, so they would match any of our scalar
// parameters, and they are not compared either.

var opNameAttr = regexp.MustCompile(`op_name="([^"]*)"`)

// layoutKey identifies an array across the two modules.
func layoutKey(in *hlo.Instruction) string {
	op := ""
	if md, ok := in.Attr("metadata"); ok {
		if m := opNameAttr.FindStringSubmatch(md); m != nil {
			op = m[1]
		}
	}
	return string(in.Opcode) + "|" + op + "|" + in.Shape.StringNoLayout()
}

// layoutText is what the layouts are compared on: minor_to_major and tiles.
func layoutText(s hlo.Shape) string {
	l := s.Layout
	if l == nil {
		return fmt.Sprint(hlo.DefaultMinorToMajor(len(s.Dims)))
	}
	return fmt.Sprint(l.MinorToMajor, l.Tiles)
}

// LayoutTally counts the arrays of XLA's after-optimizations modules
// against those of the laid-out modules that match them.
type LayoutTally struct {
	// Arrays were compared; Agree of them have XLA's minor_to_major, tiles
	// and memory space; SpaceAgree XLA's memory space. Unmatched arrays have
	// no match in the laid-out module, Ambiguous ones several with
	// different layouts.
	Arrays, Agree, SpaceAgree, Unmatched, Ambiguous int
	// Misses counts the compared arrays that differ by kind ("tiles",
	// "minor_to_major", "memory space S(x), ours S(y)"); Examples holds the
	// first of each kind, List every one ("kind: example"), in the order
	// compared.
	Misses   map[string]int
	Examples map[string]string
	List     []string
}

// NewLayoutTally returns an empty tally.
func NewLayoutTally() *LayoutTally {
	return &LayoutTally{Misses: map[string]int{}, Examples: map[string]string{}}
}

// LayoutsEqual is the number of compared arrays whose minor_to_major and
// tiles are XLA's, whatever their memory space (XLA's memory-space
// assignment, after layout assignment, places arrays in VMEM or SMEM).
func (n *LayoutTally) LayoutsEqual() int {
	eq := n.Agree
	for k, v := range n.Misses {
		if IsSpaceMiss(k) {
			eq += v
		}
	}
	return eq
}

// IsSpaceMiss reports whether a miss kind (or a List entry) is a memory
// space alone: XLA's memory-space assignment, after layout assignment,
// places arrays in VMEM or SMEM, which LayoutsEqual does not count.
func IsSpaceMiss(kind string) bool { return strings.HasPrefix(kind, "memory space") }

// Add adds o's counts to n (the first example of each kind stays).
func (n *LayoutTally) Add(o *LayoutTally) {
	n.Arrays += o.Arrays
	n.Agree += o.Agree
	n.SpaceAgree += o.SpaceAgree
	n.Unmatched += o.Unmatched
	n.Ambiguous += o.Ambiguous
	for k, v := range o.Misses {
		n.Misses[k] += v
		if _, ok := n.Examples[k]; !ok {
			n.Examples[k] = o.Examples[k]
		}
	}
	n.List = append(n.List, o.List...)
}

func (n *LayoutTally) miss(kind, example string) {
	n.Misses[kind]++
	if _, ok := n.Examples[kind]; !ok {
		n.Examples[kind] = example
	}
	n.List = append(n.List, kind+": "+strings.TrimSpace(example))
}

// Compare counts the arrays of after (XLA's compile) against those of ours
// (the before-optimizations module as laid out by hlo-opt) that match them;
// name prefixes the examples.
func (n *LayoutTally) Compare(name string, ours, after *hlo.Module) {
	byKey := map[string][]*hlo.Instruction{}
	for _, comp := range ours.Computations {
		for _, in := range comp.Instructions {
			if in.Shape.IsArray() {
				k := layoutKey(in)
				byKey[k] = append(byKey[k], in)
			}
		}
	}
	space := func(l *hlo.Layout) int64 {
		if l == nil {
			return 0
		}
		return l.MemorySpace
	}
	fusionParams := map[*hlo.Computation]bool{}
	for _, comp := range after.Computations {
		for _, in := range comp.Instructions {
			if in.Opcode == hlo.OpFusion || in.Opcode == hlo.OpAsyncStart {
				for _, f := range in.Called {
					fusionParams[f] = true
				}
			}
		}
	}
	for _, comp := range after.Computations {
		for _, in := range comp.Instructions {
			if !in.Shape.IsArray() || in.Shape.Layout == nil {
				continue
			}
			cands := byKey[layoutKey(in)]
			if in.Opcode == hlo.OpParameter && fusionParams[comp] || in.Opcode == hlo.OpCopy {
				// Made by XLA's fusion or async wrapping, whatever its
				// metadata says; or a copy, made by XLA's layout
				// assignment (a before-optimizations module has none),
				// whose key would match one the laid-out module inserted
				// by shape alone.
				cands = nil
			}
			if len(cands) == 0 {
				n.Unmatched++
				continue
			}
			want := layoutText(cands[0].Shape)
			if slices.ContainsFunc(cands[1:], func(o *hlo.Instruction) bool { return layoutText(o.Shape) != want }) {
				n.Ambiguous++
				continue
			}
			n.Arrays++
			ex := fmt.Sprintf("%s %s: XLA %s, ours %s", name, in.Name, in.Shape, cands[0].Shape)
			xla, our := in.Shape.Layout, cands[0].Shape.Layout
			sameSpace := space(xla) == space(our)
			if sameSpace {
				n.SpaceAgree++
			}
			switch {
			case layoutText(in.Shape) == want && sameSpace:
				n.Agree++
			case layoutText(in.Shape) == want:
				n.miss(fmt.Sprintf("memory space S(%d), ours S(%d)", space(xla), space(our)), ex)
			case xla != nil && our != nil && slices.Equal(xla.MinorToMajor, our.MinorToMajor):
				n.miss("tiles", ex)
			default:
				n.miss("minor_to_major", ex)
			}
		}
	}
}
