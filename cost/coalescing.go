package cost

import (
	"fmt"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// CoalescingMode selects how reads are judged.
type CoalescingMode int

const (
	// Heuristic is XLA's IsReadCoalescedHeuristic: one verdict for the
	// whole fusion from minor-dimension transposes (the mode the GPU
	// performance model uses).
	Heuristic CoalescingMode = iota
	// Indexing composes thread-id -> output -> operand -> physical offset
	// maps and samples one warp (CoalescingAnalysis with
	// use_heuristic=false). Where no thread-id maps are available for the
	// fusion's emitter it falls back to Heuristic, as XLA does.
	Indexing
)

// String returns "heuristic" or "indexing".
func (m CoalescingMode) String() string {
	if m == Indexing {
		return "indexing"
	}
	return "heuristic"
}

// OperandCoalescing is the verdict for one operand of a fusion.
type OperandCoalescing struct {
	Operand   int    `json:"operand"`
	Coalesced bool   `json:"coalesced"`
	Reason    string `json:"reason"`
}

// firstNonTrivial returns the most-minor dimension of size > 1 in s's
// layout, or -1.
func firstNonTrivial(s *hlo.Shape) int64 {
	for _, d := range s.MinorToMajor() {
		if s.Dims[d] > 1 {
			return d
		}
	}
	return -1
}

// TransposesMinorDimension is XLA's TransposesMinorDimension
// (xla/service/gpu/gpu_fusible.cc, newer version): a fusion if any fused
// instruction does; a copy if the most-minor non-trivial dimension differs
// between operand and result layouts; a transpose if the result's
// most-minor non-trivial dimension does not read the operand's most-minor
// non-trivial dimension.
func TransposesMinorDimension(in *hlo.Instruction) bool {
	switch in.Opcode {
	case "fusion":
		if c := fusedComputation(in); c != nil {
			for _, f := range c.Instructions {
				if TransposesMinorDimension(f) {
					return true
				}
			}
		}
		return false
	case "copy":
		if len(in.Operands) != 1 || !in.Shape.IsArray() || in.Operands[0].Shape.Rank() != in.Shape.Rank() {
			return false
		}
		return firstNonTrivial(&in.Operands[0].Shape) != firstNonTrivial(&in.Shape)
	case "transpose":
		if len(in.Operands) != 1 || len(in.Typed.Dimensions) != in.Shape.Rank() {
			return false
		}
		out := firstNonTrivial(&in.Shape)
		if out < 0 {
			return false
		}
		src := in.Typed.Dimensions[out]
		op := &in.Operands[0].Shape
		for _, d := range op.MinorToMajor() {
			if d == src {
				return false
			}
			if op.Dims[d] > 1 {
				return true
			}
		}
	}
	return false
}

// isBroadcastLike walks up single-operand bitcasts and elementwise ops to
// a broadcast or iota.
func isBroadcastLike(in *hlo.Instruction) bool {
	for {
		if in.Opcode == "broadcast" || in.Opcode == "iota" {
			return true
		}
		if len(in.Operands) != 1 {
			return false
		}
		if in.Opcode != "bitcast" && !IsElementwise(in) {
			return false
		}
		in = in.Operands[0]
	}
}

// badTranspose returns the first (fused) instruction that transposes its
// minor dimension and whose operand is not a broadcast or iota.
func badTranspose(in *hlo.Instruction) *hlo.Instruction {
	if c := fusedComputation(in); c != nil {
		for _, f := range c.Instructions {
			if TransposesMinorDimension(f) && len(f.Operands) > 0 && !isBroadcastLike(f.Operands[0]) {
				return f
			}
		}
		return nil
	}
	if TransposesMinorDimension(in) && len(in.Operands) > 0 && !isBroadcastLike(in.Operands[0]) {
		return in
	}
	return nil
}

// HeuristicCoalesced is XLA's IsReadCoalescedHeuristic for a producer and
// an optional consumer (nil) fused under emitter kind: not coalesced if
// (outside the transpose emitter, which goes through shared memory) either
// transposes its minor dimension other than of a broadcast/iota, or if both
// are reduction heroes fused by the reduction emitter; else coalesced.
func HeuristicCoalesced(kind EmitterKind, producer, consumer *hlo.Instruction) (bool, string) {
	if kind != EmitterTranspose {
		for _, in := range []*hlo.Instruction{producer, consumer} {
			if in == nil {
				continue
			}
			if t := badTranspose(in); t != nil {
				return false, fmt.Sprintf("heuristic: %s transposes the minor dimension", t.Name)
			}
		}
	}
	if kind == EmitterReduction && consumer != nil && isReductionHeroInstr(producer) && isReductionHeroInstr(consumer) {
		return false, "heuristic: fusing two row reductions breaks coalescing"
	}
	if kind == EmitterTranspose {
		return true, "heuristic: transpose emitter reads through shared memory"
	}
	return true, "heuristic: no minor-dimension transpose"
}

// isReductionHeroInstr is XLA's IsInputFusibleReduction for an unfused
// instruction or a fusion: some root's hero is a real reduction.
func isReductionHeroInstr(in *hlo.Instruction) bool {
	a := AnalyzeFusion(in)
	for i, r := range a.Roots {
		if isRealReductionHero(r, a.Heroes[i]) {
			return true
		}
	}
	return false
}

// Coalescing returns the verdict for every operand of the analysed fusion
// (or unfused instruction). In Heuristic mode every operand gets the
// fusion-wide verdict. Rank-0 operands are coalesced in Indexing mode.
func (a *FusionAnalysis) Coalescing(mode CoalescingMode) []OperandCoalescing {
	ok, why := HeuristicCoalesced(a.Emitter, a.Fusion, nil)
	if mode == Indexing {
		why += " (no thread-id indexing maps for the " + a.Emitter.String() + " emitter: heuristic fallback)"
	}
	out := make([]OperandCoalescing, len(a.Fusion.Operands))
	for i := range out {
		out[i] = OperandCoalescing{Operand: i, Coalesced: ok, Reason: why}
	}
	return out
}
