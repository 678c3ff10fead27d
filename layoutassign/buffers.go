package layoutassign

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// inPlacePair says that output node outPath of an instruction is written
// into the buffer of its operand's node opPath (XLA's in-place
// input/output pairs, xla/hlo/analysis/alias_info.cc).
type inPlacePair struct {
	operand int
	opPath  []int64
	outPath []int64
}

// inPlacePairs returns in's in-place pairs: a dynamic-update-slice's
// operand 0, a scatter's updated operands, the output_to_operand_aliasing
// of custom-calls, fusions and async starts, a fusion whose root updates
// one of its parameters in place, an in-place collective-permute's output
// buffer.
func inPlacePairs(in *hlo.Instruction) []inPlacePair {
	switch in.Opcode {
	case hlo.OpDynamicUpdateSlice, hlo.OpSetDimensionSize:
		return []inPlacePair{{}}
	case hlo.OpScatter:
		n := (len(in.Operands) - 1) / 2
		if n <= 1 {
			return []inPlacePair{{}}
		}
		out := make([]inPlacePair, n)
		for i := range out {
			out[i] = inPlacePair{operand: i, outPath: []int64{int64(i)}}
		}
		return out
	case hlo.OpCollectivePermute:
		if len(in.Operands) == 4 {
			return []inPlacePair{{operand: 1}}
		}
	case hlo.OpCustomCall, hlo.OpAsyncStart:
		return aliasingAttr(in)
	case hlo.OpFusion:
		return append(fusionInPlacePairs(in), aliasingAttr(in)...)
	}
	return nil
}

var aliasingRE = regexp.MustCompile(`\{([0-9,\s]*)\}\s*:\s*\(\s*(\d+)\s*,\s*\{([0-9,\s]*)\}`)

// aliasingAttr parses output_to_operand_aliasing={{1}: (0, {}), ...}.
func aliasingAttr(in *hlo.Instruction) []inPlacePair {
	v, ok := in.Attr("output_to_operand_aliasing")
	if !ok {
		return nil
	}
	var out []inPlacePair
	for _, m := range aliasingRE.FindAllStringSubmatch(v, -1) {
		k, err := strconv.Atoi(m[2])
		if err != nil {
			continue
		}
		out = append(out, inPlacePair{operand: k, opPath: parseIndex(m[3]), outPath: parseIndex(m[1])})
	}
	return out
}

// parseIndex reads a shape index "1, 2" (no braces).
func parseIndex(s string) []int64 {
	var out []int64
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			if n, err := strconv.ParseInt(f, 10, 64); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// followIndirections walks back from (in, path) through tuples,
// get-tuple-elements and bitcasts to the instruction that produces the
// value.
func followIndirections(in *hlo.Instruction, path []int64) (*hlo.Instruction, []int64) {
	path = slices.Clone(path)
	for range 1 << 10 {
		switch {
		case in.Opcode == hlo.OpTuple && len(path) > 0 && int(path[0]) < len(in.Operands):
			in, path = in.Operands[path[0]], path[1:]
		case in.Opcode == hlo.OpGetTupleElement && len(in.Operands) == 1:
			in, path = in.Operands[0], append([]int64{tupleIndex(in)}, path...)
		case in.Opcode == hlo.OpBitcast && len(path) == 0 && len(in.Operands) == 1:
			in = in.Operands[0]
		default:
			return in, path
		}
	}
	return in, path
}

// fusionInPlacePairs finds the fusion outputs whose fused computation
// updates a fusion parameter in place (a dynamic-update-slice or scatter
// root, through tuples and bitcasts), as XLA's
// GetFusionInstructionInPlaceInputOutputPairs.
func fusionInPlacePairs(f *hlo.Instruction) []inPlacePair {
	if len(f.Called) == 0 || f.Called[0] == nil || f.Called[0].Root == nil {
		return nil
	}
	var out []inPlacePair
	for _, leaf := range f.Shape.Leaves() {
		src, path := followIndirections(f.Called[0].Root, leaf.Index)
		for _, p := range inPlacePairs(src) {
			if !slices.Equal(p.outPath, path) || p.operand >= len(src.Operands) {
				continue
			}
			in, ip := followIndirections(src.Operands[p.operand], p.opPath)
			if in.Opcode == hlo.OpParameter && in.ParameterNumber >= 0 {
				out = append(out, inPlacePair{operand: in.ParameterNumber, opPath: ip, outPath: leaf.Index})
			}
		}
	}
	return out
}

// find returns the buffer (union-find root) of value id.
func (lv *liveness) find(id int32) int32 { return lv.parent.find(id) }

func (lv *liveness) unite(ids ...int32) {
	for _, id := range ids[min(1, len(ids)):] {
		a, b := lv.find(ids[0]), lv.find(id)
		if a != b {
			lv.parent[max(a, b)] = min(a, b)
		}
	}
}

// groupBuffers puts the values that must share memory in one buffer (XLA's
// HloAliasAnalysis): the values that may meet at one position (a while's
// init, parameters, body root and result; a conditional's branch roots and
// result), an entry output and the parameter input_output_alias gives it,
// and an in-place instruction's output and the operand it updates. (XLA's
// copy insertion, run before buffer assignment, adds copies where an
// operand updated in place is read afterwards or read-only: the dumps
// after optimizations have them; a module without them is analysed as it
// is, as XLA's buffer assignment would.)
func (lv *liveness) groupBuffers() {
	lv.parent = newUnionFind[int32](len(lv.values))
	for i := range lv.seq {
		st := &lv.seq[i]
		for _, set := range st.sets {
			if len(set) > 1 {
				lv.unite(set...)
			}
		}
		for _, p := range inPlacePairs(st.in) {
			lv.inPlace(st, p)
		}
	}
	if root := lv.stepOf(lv.entry.Root); root != nil && len(lv.entry.Params) > 0 {
		for _, a := range lv.aliases {
			if int(a.ParamNumber) >= len(lv.entry.Params) {
				continue
			}
			ps := lv.stepOf(lv.entry.Params[a.ParamNumber])
			on, pn := nodeAt(root.nodes, a.OutputIndex), -1
			if ps != nil {
				pn = nodeAt(ps.nodes, a.ParamIndex)
			}
			if on < 0 || pn < 0 {
				continue
			}
			lv.unite(append(slices.Clone(root.sets[on]), ps.sets[pn]...)...)
		}
	}
}

// inPlace groups the output of st at p.outPath with its operand's values.
func (lv *liveness) inPlace(st *step, p inPlacePair) {
	if p.operand >= len(st.in.Operands) {
		return
	}
	os := lv.stepOf(st.in.Operands[p.operand])
	on, out := -1, nodeAt(st.nodes, p.outPath)
	if os != nil {
		on = nodeAt(os.nodes, p.opPath)
	}
	if on < 0 || out < 0 {
		return
	}
	lv.unite(append(slices.Clone(st.sets[out]), os.sets[on]...)...)
}

// readOnlyParam reports whether v is an entry parameter's value that no
// output may overwrite (input_output_alias does not name it).
func (lv *liveness) readOnlyParam(v *hloValue) bool {
	in := lv.def(v).in
	if in.Opcode != hlo.OpParameter || in.Parent != lv.entry {
		return false
	}
	for _, a := range lv.aliases {
		if int(a.ParamNumber) == in.ParameterNumber && slices.Equal(a.ParamIndex, lv.path(v)) {
			return false
		}
	}
	return true
}

// liveRanges sets every value's live range as XLA's HloLiveRange does
// (xla/hlo/utils/hlo_live_range.cc), in steps of the flattened schedule:
// from its definition (a parameter from its computation's start) to the
// last of its uses and positions; a computation's root lives to the
// computation's end, an entry parameter that no output aliases to the end
// of the program; a while's use of its init ends at the body's start; a
// value of an async computation lives to the async done (and from the
// caller's start with Target.AsyncFromOuterStart). rawRanges runs before
// groupBuffers (which needs to know whether an in-place operand is read
// later), normalize after.
func (lv *liveness) rawRanges() {
	for id := range lv.values {
		v := &lv.values[id]
		def := lv.def(v)
		c := def.in.Parent
		sp := lv.span[c]
		v.start, v.end = def.time, def.time
		if def.in.Opcode == hlo.OpParameter {
			v.start = sp[0]
		}
		if def.in == c.Root {
			v.end = sp[1]
		}
		lv.asyncRange(v, c)
		v.endPos = position{v.def, v.node}
		for _, p := range lv.positionsOf(v) {
			if t := lv.positionTime(p); t > v.end {
				v.end, v.endPos = t, p
			}
		}
		if def.in.Opcode == hlo.OpParameter && c == lv.entry && lv.readOnlyParam(v) {
			v.end = len(lv.seq)
			continue
		}
		for _, u := range lv.usesOf(v) {
			v.end = max(v.end, lv.useTime(u))
		}
	}
}

// asyncRange widens the range of a value of a computation run by an async
// op: to the async done, and from its caller's start with
// Target.AsyncFromOuterStart.
func (lv *liveness) asyncRange(v *hloValue, c *hlo.Computation) {
	ctx := lv.asyncOf[c]
	if ctx == nil {
		return
	}
	for _, cs := range lv.callers[ctx] {
		if cs.in.Opcode == hlo.OpAsyncDone {
			v.end = max(v.end, cs.time)
		}
		if lv.t.AsyncFromOuterStart && cs.in.Parent != nil {
			v.start = min(v.start, lv.span[cs.in.Parent][0])
		}
	}
}

// positionTime is when a value at position p is last needed there: the
// computation's end for its root, else the instruction's step.
func (lv *liveness) positionTime(p position) int {
	if in := lv.seq[p.st].in; in == in.Parent.Root {
		return lv.span[in.Parent][1]
	}
	return int(p.st)
}

// useTime is when a use reads the value: a call's use counts as its
// computation's (which runs inside it), a while's as its body's start.
func (lv *liveness) useTime(u use) int {
	switch in := lv.seq[u.st].in; in.Opcode {
	case hlo.OpCall:
		return -1
	case hlo.OpWhile:
		if body := calledBy(in, "body"); body != nil && len(body.Params) > 0 {
			if p := lv.stepOf(body.Params[0]); p != nil {
				return p.time
			}
		}
	}
	return int(u.st)
}

// normalize makes the values of one buffer live one after the other, as
// XLA's NormalizeAliasedBuffers: sorted by range, each ends where the
// next starts and the next lives as long as either.
func (lv *liveness) normalize(bufs [][]int32) {
	for _, ids := range bufs {
		if len(ids) < 2 {
			continue
		}
		vs := make([]*hloValue, len(ids))
		for i, id := range ids {
			vs[i] = &lv.values[id]
		}
		slices.SortStableFunc(vs, func(a, b *hloValue) int {
			return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end))
		})
		for i := 0; i+1 < len(vs); i++ {
			a, b := vs[i], vs[i+1]
			b.end = max(a.end, b.end)
			a.end = min(a.end, b.start)
		}
	}
}
