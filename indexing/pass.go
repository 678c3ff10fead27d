package indexing

import (
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"slices"
	"strconv"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/passes"
)

// Pass is the "indexing" analysis: it attaches to every instruction of the
// module (fused computations included) its output-to-input and
// input-to-output indexing maps; a fusion's maps are composed through its
// fused computation. Work runs per non-fusion computation (in parallel,
// through the pipeline), and the fused computations a computation owns are
// indexed in parallel inside it.
var Pass = &passes.Pass{
	Name:           "indexing",
	Doc:            "attach output-to-input and input-to-output indexing maps to every instruction",
	ResultType:     reflect.TypeFor[*Result](),
	RunComputation: runComputation,
	Run:            combine,
}

// OperandMaps is one set of maps of an instruction: from result Output to
// operand Operand (output to input) or from operand Operand to result
// Output (input to output).
type OperandMaps struct {
	Output  int
	Operand int
	Maps    []*IndexingMap
}

// InstructionMaps are the maps of one instruction. Sets that are empty (an
// operand a result does not read) are left out. An op whose indexing is not
// defined has the undefined map for result 0 only, since it does not depend
// on the result.
type InstructionMaps struct {
	OutputToInput []OperandMaps
	InputToOutput []OperandMaps
}

// Result is the result of Pass: the maps of every instruction.
type Result struct {
	// byComp holds the maps of each computation's instructions, by
	// position: a map per computation rather than per instruction, which
	// for a module of thousands of instructions costs most of a
	// pipeline's serial time to fill.
	byComp map[*hlo.Computation][]*InstructionMaps
}

// Of returns the maps of an instruction, or nil.
func (r *Result) Of(in *hlo.Instruction) *InstructionMaps {
	c := in.Parent
	if c == nil {
		return nil
	}
	maps := r.byComp[c]
	i := c.InstructionIndex(in)
	if i < 0 || i >= len(maps) {
		return nil
	}
	return maps[i]
}

// definedOps are the opcodes besides the elementwise ones whose maps
// depend on the result index.
var definedOps = map[hlo.Opcode]bool{
	hlo.OpAllGather: true, hlo.OpBitcast: true, hlo.OpBroadcast: true, hlo.OpConcatenate: true, hlo.OpConstant: true, hlo.OpConvolution: true,
	hlo.OpDot: true, hlo.OpDynamicSlice: true, hlo.OpDynamicUpdateSlice: true, hlo.OpFusion: true, hlo.OpGather: true,
	hlo.OpGetTupleElement: true, hlo.OpIota: true, hlo.OpPad: true, hlo.OpParameter: true, hlo.OpReduce: true,
	hlo.OpReduceWindow: true, hlo.OpReshape: true, hlo.OpReverse: true, hlo.OpScaledDot: true, hlo.OpScatter: true, hlo.OpSlice: true,
	hlo.OpTranspose: true, hlo.OpTuple: true,
}

// ComputeInstructionMaps computes every map of one instruction: for each
// result its output-to-input sets, for each operand its input-to-output
// sets.
func ComputeInstructionMaps(in *hlo.Instruction) (*InstructionMaps, error) {
	results := numResults(in)
	if !in.IsElementwise() && !definedOps[in.Opcode] {
		results = 1
	}
	if in.IsElementwise() {
		if im, ok := elementwiseMaps(in, shapeMap); ok {
			return im, nil
		}
	}
	im := &InstructionMaps{}
	if n := len(in.Operands); n > 0 {
		// Usually one set per operand each way.
		im.OutputToInput = make([]OperandMaps, 0, n)
		im.InputToOutput = make([]OperandMaps, 0, n)
	}
	if in.Opcode == hlo.OpTuple {
		// Result k is operand k; asking for every result through
		// ComputeOutputToInput would be quadratic in the tuple's size.
		for k, op := range in.Operands {
			m := Undefined()
			if op.Shape.IsArray() {
				d, err := arrayDims(in, op.Shape, "operand")
				if err != nil && !errors.Is(err, errUnbounded) {
					return nil, err
				}
				if err == nil {
					m = IdentityMap(d)
				}
			}
			set := []*IndexingMap{m}
			im.OutputToInput = append(im.OutputToInput, OperandMaps{Output: k, Operand: k, Maps: set})
			im.InputToOutput = append(im.InputToOutput, OperandMaps{Output: k, Operand: k, Maps: set})
		}
		return im, nil
	}
	for k := range results {
		h, err := ComputeOutputToInput(in, k)
		if err != nil {
			return nil, err
		}
		for j, set := range h.Maps {
			if len(set) > 0 {
				im.OutputToInput = append(im.OutputToInput, OperandMaps{Output: k, Operand: j, Maps: set})
			}
		}
	}
	// A fusion's maps from each operand share the fused computation's
	// post-order.
	var fusedOrder []*hlo.Instruction
	var comp *hlo.Computation
	fused := false
	if in.Opcode == hlo.OpFusion {
		c, err := fusedComputation(in)
		fused = err == nil && !hasUnboundedDims(in) && len(c.Params) == len(in.Operands)
		if fused {
			comp, fusedOrder = c, postOrder(c.Root)
		}
	}
	for j := range in.Operands {
		var h *HloInstructionIndexing
		var err error
		if fused && comp.Params[j] != nil {
			h, err = fusionInputToOutput(in, comp, fusedOrder, j)
		} else {
			h, err = ComputeInputToOutput(in, j)
		}
		if err != nil {
			return nil, err
		}
		for k, set := range h.Maps {
			if k >= results {
				break
			}
			if len(set) > 0 {
				im.InputToOutput = append(im.InputToOutput, OperandMaps{Output: k, Operand: j, Maps: set})
			}
		}
	}
	return im, nil
}

// elementwiseMaps is ComputeInstructionMaps of an elementwise op with an
// array result whose operands are arrays of its shape or scalars, the most
// common instruction: one identity map (or one pair of scalar maps) serves
// every operand both ways, and the sets share one array. ok is false for
// anything else, which the general path computes (and reports). The maps
// come from shape (shapeMap, or a computation's recent ones).
func elementwiseMaps(in *hlo.Instruction, shape func(kind byte, sizes []int64) *IndexingMap) (im *InstructionMaps, ok bool) {
	out := in.Shape.Dims
	n := len(in.Operands)
	if !in.Shape.IsArray() || n == 0 || slices.ContainsFunc(out, func(d int64) bool { return d < 0 }) {
		return nil, false
	}
	for _, op := range in.Operands {
		scalar := len(op.Shape.Dims) == 0 && len(out) > 0
		if !op.Shape.IsArray() || !scalar && !slices.Equal(op.Shape.Dims, out) {
			return nil, false
		}
	}
	var id, empty, all *IndexingMap
	sets := make([]OperandMaps, 2*n)
	maps := make([]*IndexingMap, 2*n)
	for j, op := range in.Operands {
		if len(op.Shape.Dims) == 0 && len(out) > 0 {
			if empty == nil {
				empty, all = shape(shapeEmptyResult, out), shape(shapeAllElements, out)
			}
			maps[j], maps[n+j] = empty, all
		} else {
			if id == nil {
				id = shape(shapeIdentity, out)
			}
			maps[j], maps[n+j] = id, id
		}
		sets[j] = OperandMaps{Output: 0, Operand: j, Maps: maps[j : j+1 : j+1]}
		sets[n+j] = OperandMaps{Output: 0, Operand: j, Maps: maps[n+j : n+j+1 : n+j+1]}
	}
	return &InstructionMaps{OutputToInput: sets[:n:n], InputToOutput: sets[n:]}, true
}

// computationMaps computes the maps of every instruction of c, by
// position; on error, those of the instructions before the failing one.
func computationMaps(c *hlo.Computation) ([]*InstructionMaps, error) {
	into := make([]*InstructionMaps, len(c.Instructions))
	shared := recentMaps{slabSize: 4 * len(c.Instructions)}
	for i, in := range c.Instructions {
		im, err := instructionMaps(in, &shared)
		if err != nil {
			return into[:i], err
		}
		into[i] = im
	}
	return into, nil
}

// recentMaps are the last distinct maps a computation's instructions
// had. Most maps of a computation are one of a few (the identity of its
// elementwise ops' shape, each way, for every operand): sharing one
// value (maps are immutable) keeps the maps of a large module in a
// fraction of the memory.
type recentMaps struct {
	maps [8]*IndexingMap
	next int
	slab []*IndexingMap // where compact puts the sets, a block for many instructions
	// slabSize is the size of a new slab: about what the rest of the
	// computation needs (four maps an instruction).
	slabSize int
	// shapes are the last maps of shapeMap made for the elementwise ops
	// (most of a computation's instructions, of a few shapes).
	shapes    [4]shapeEntry
	nextShape int
	// dots are the maps of the computation's dots by dotKey: a model's
	// dots repeat a few shapes (the layers of a transformer), and a dot's
	// maps are its shapes' and dimension numbers'.
	dots map[string]*InstructionMaps
	key  []byte
}

// dotKey is what a dot's maps depend on: its operand count, the element
// types, dims and dynamic dims of its result and operands, and its
// dimension numbers.
func (r *recentMaps) dotKey(in *hlo.Instruction) []byte {
	b := binary.AppendUvarint(r.key[:0], uint64(len(in.Operands)))
	shape := func(s *hlo.Shape) {
		b = binary.AppendVarint(b, int64(s.Type))
		b = appendInts(b, s.Dims)
		b = binary.AppendUvarint(b, uint64(len(s.Dynamic)))
		for _, d := range s.Dynamic {
			if d {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		}
	}
	shape(&in.Shape)
	for _, op := range in.Operands {
		shape(&op.Shape)
	}
	if d := in.Typed.Dot; d != nil {
		for _, l := range [][]int64{d.LhsBatch, d.RhsBatch, d.LhsContracting, d.RhsContracting} {
			b = appendInts(b, l)
		}
	}
	r.key = b
	return b
}

// appendInts appends the count of vs and each of them, as varints.
func appendInts(b []byte, vs []int64) []byte {
	b = binary.AppendUvarint(b, uint64(len(vs)))
	for _, v := range vs {
		b = binary.AppendVarint(b, v)
	}
	return b
}

// shapeEntry is a map of shapeMap with what it was made of.
type shapeEntry struct {
	kind  byte
	sizes []int64
	m     *IndexingMap
}

// shapeMap returns the package's shapeMap(kind, sizes), the recent map of
// that kind and sizes if there is one (maps are immutable: an elementwise op's maps are made once for a
// run of ops of one shape, not made and then shared by compact).
func (r *recentMaps) shapeMap(kind byte, sizes []int64) *IndexingMap {
	for _, e := range r.shapes {
		if e.m != nil && e.kind == kind && slices.Equal(e.sizes, sizes) {
			return e.m
		}
	}
	m := shapeMap(kind, sizes)
	r.shapes[r.nextShape] = shapeEntry{kind, slices.Clone(sizes), m}
	r.nextShape = (r.nextShape + 1) % len(r.shapes)
	return m
}

// compact moves the sets of im into one array (a piece of the slab), each
// map shared with the recent ones: the sets the ops made sit in larger
// blocks, which a result kept for the whole run would hold on to.
func (r *recentMaps) compact(im *InstructionMaps) {
	n := 0
	for _, sets := range [2][]OperandMaps{im.OutputToInput, im.InputToOutput} {
		for _, s := range sets {
			n += len(s.Maps)
		}
	}
	if cap(r.slab)-len(r.slab) < n {
		r.slab = make([]*IndexingMap, 0, max(n, min(r.slabSize, 512)))
	}
	all := r.slab[len(r.slab) : len(r.slab) : len(r.slab)+n]
	r.slab = r.slab[:len(r.slab)+n]
	for _, sets := range [2][]OperandMaps{im.OutputToInput, im.InputToOutput} {
		for i := range sets {
			start := len(all)
			for _, m := range sets[i].Maps {
				all = append(all, r.share(m))
			}
			sets[i].Maps = all[start:len(all):len(all)]
		}
	}
}

// share returns the recent map that prints and means the same as m, or m,
// which then becomes recent.
func (r *recentMaps) share(m *IndexingMap) *IndexingMap {
	for _, o := range r.maps {
		if o != nil && (o == m || o.Equal(m) && slices.Equal(o.dims, m.dims) &&
			slices.Equal(o.ranges, m.ranges) && slices.Equal(o.rts, m.rts)) {
			return o
		}
	}
	r.maps[r.next] = m
	r.next = (r.next + 1) % len(r.maps)
	return m
}

// part is the per-computation result: the maps of its instructions and of
// the fused computations it owns, one compMaps each.
type part []compMaps

// compMaps are the maps of a computation's instructions, by position.
type compMaps struct {
	c    *hlo.Computation
	maps []*InstructionMaps
}

func runComputation(u *passes.Unit) (any, error) {
	c := u.Computation
	report := func(err error) {
		var ie *InstructionError
		if errors.As(err, &ie) {
			u.Errorf(ie.Instr, "%s", ie.Msg)
			return
		}
		u.Errorf(nil, "%v", err)
	}
	own, err := computationMaps(c)
	out := part{{c, own}}
	if err != nil {
		report(err)
		return out, nil
	}
	// The fused computations this computation owns (their first caller is
	// here, or in a fused computation owned here), indexed in parallel.
	var owned []*hlo.Computation
	seen := map[*hlo.Computation]bool{}
	queue := []*hlo.Computation{c}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, in := range cur.Instructions {
			if in.Opcode != hlo.OpFusion {
				continue
			}
			for _, fc := range in.Called {
				if fc == nil || seen[fc] {
					continue
				}
				if callers := u.CallGraph.Callers(fc); len(callers) == 0 || callers[0].Caller != in {
					continue
				}
				seen[fc] = true
				owned = append(owned, fc)
				queue = append(queue, fc)
			}
		}
	}
	parts := make([][]*InstructionMaps, len(owned))
	errs := make([]error, len(owned))
	one := func(i int) error {
		if err := u.Context().Err(); err != nil {
			return err
		}
		parts[i], errs[i] = computationMaps(owned[i])
		return nil
	}
	if err := u.Parallel(len(owned), one); err != nil {
		return nil, err
	}
	for i := range owned {
		if errs[i] != nil {
			report(errs[i])
		}
		out = append(out, compMaps{owned[i], parts[i]})
	}
	return out, nil
}

func combine(u *passes.Unit) (any, error) {
	r := &Result{byComp: make(map[*hlo.Computation][]*InstructionMaps, len(u.Module.Computations))}
	for _, c := range u.Module.Computations {
		p, _ := u.Part(c).(part)
		for _, cm := range p {
			r.byComp[cm.c] = cm.maps
		}
	}
	return r, nil
}

// jsonMaps is the JSON form of one set.
type jsonMaps struct {
	Output  int      `json:"output"`
	Operand int      `json:"operand"`
	Maps    []string `json:"maps"`
}

// jsonInstruction is the JSON value of "indexing" in an instruction.
type jsonInstruction struct {
	OutputToInput []jsonMaps `json:"output_to_input"`
	InputToOutput []jsonMaps `json:"input_to_output"`
}

func toJSON(sets []OperandMaps) []jsonMaps {
	out := make([]jsonMaps, 0, len(sets))
	for _, s := range sets {
		j := jsonMaps{Output: s.Output, Operand: s.Operand}
		for _, m := range s.Maps {
			j.Maps = append(j.Maps, m.String())
		}
		out = append(out, j)
	}
	return out
}

// InstructionReport is the JSON value of "indexing" for an instruction:
// {"output_to_input": [{"output": K, "operand": J, "maps": [MAP, ...]}],
// "input_to_output": [...]}, each map on one line.
func (r *Result) InstructionReport(in *hlo.Instruction) any {
	im := r.Of(in)
	if im == nil {
		return nil
	}
	return &jsonInstruction{OutputToInput: toJSON(im.OutputToInput), InputToOutput: toJSON(im.InputToOutput)}
}

// WriteText writes, per computation and instruction that has maps, one
// block per set in the notation of the indexing analysis document, like
// XLA's "operand id = N" blocks:
//
//	computation main
//	  add = f32[10,20]{1,0} add(p0, p1)
//	    output 0 -> operand id = 0 (p0):
//	      (d0, d1) -> (d0, d1),
//	      domain:
//	      d0 in [0, 9],
//	      d1 in [0, 19]
//	    operand id = 0 (p0) -> output 0:
//	      ...
//
// The text is written a computation at a time, through a buffer of
// textFlushAt bytes.
func (r *Result) WriteText(w io.Writer, m *hlo.Module) error {
	b := make([]byte, 0, 2*textFlushAt)
	b = append(append(append(b, "indexing: module "...), m.Name...), '\n')
	var texts mapTexts
	for _, c := range m.Computations {
		b = append(append(append(b, "computation "...), c.Name...), '\n')
		maps := r.byComp[c]
		for i, in := range c.Instructions {
			if i < len(maps) {
				b = texts.appendInstruction(b, in, maps[i])
			}
			if len(b) >= textFlushAt {
				if _, err := w.Write(b); err != nil {
					return err
				}
				b = b[:0]
			}
		}
	}
	_, err := w.Write(b)
	return err
}

// textFlushAt is the text WriteText holds before writing it out.
const textFlushAt = 64 << 10

// appendInstruction appends the text of in's maps im (see WriteText) to
// b; nothing when it has none.
func (t *mapTexts) appendInstruction(b []byte, in *hlo.Instruction, im *InstructionMaps) []byte {
	if im == nil || len(im.OutputToInput)+len(im.InputToOutput) == 0 {
		return b
	}
	b = append(append(append(b, "  "...), in.Name...), " = "...)
	b = append(append(in.Shape.AppendTo(b), ' '), in.Opcode...)
	b = append(b, '(')
	for i, op := range in.Operands {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, op.Name...)
	}
	b = append(b, ")\n"...)
	for _, s := range im.OutputToInput {
		b = append(b, "    output "...)
		b = strconv.AppendInt(b, int64(s.Output), 10)
		b = append(b, " -> operand id = "...)
		b = strconv.AppendInt(b, int64(s.Operand), 10)
		b = append(append(append(b, " ("...), in.Operands[s.Operand].Name...), "):\n"...)
		b = t.appendSet(b, s.Maps)
	}
	for _, s := range im.InputToOutput {
		b = append(b, "    operand id = "...)
		b = strconv.AppendInt(b, int64(s.Operand), 10)
		b = append(append(append(b, " ("...), in.Operands[s.Operand].Name...), ") -> output "...)
		b = strconv.AppendInt(b, int64(s.Output), 10)
		b = append(b, ":\n"...)
		b = t.appendSet(b, s.Maps)
	}
	return b
}

// appendSet appends the maps of a set, each in MultiLineString's layout
// with its lines indented by six spaces.
func (t *mapTexts) appendSet(b []byte, maps []*IndexingMap) []byte {
	const indent = "      "
	for _, m := range maps {
		b = append(b, indent...)
		if m.IsUndefined() {
			b = append(b, "unknown indexing"...)
		} else {
			b = t.appendMap(b, m, ",\n"+indent, "\n"+indent)
		}
		b = append(b, '\n')
	}
	return b
}

// mapTexts remembers the text of the last maps a report printed: the maps
// of a computation's instructions share the equal ones (see recentMaps),
// whose text is then copied rather than printed again.
type mapTexts struct {
	maps [4]*IndexingMap
	text [4][]byte
	next int
}

// appendMap appends m's text, as appendFormat makes it with sep and
// afterDomain (always the same for one mapTexts), to b.
func (t *mapTexts) appendMap(b []byte, m *IndexingMap, sep, afterDomain string) []byte {
	for i, o := range t.maps {
		if o == m {
			return append(b, t.text[i]...)
		}
	}
	start := len(b)
	b = m.appendFormat(b, sep, afterDomain)
	k := t.next
	t.maps[k], t.text[k] = m, append(t.text[k][:0], b[start:]...)
	t.next = (k + 1) % len(t.maps)
	return b
}

// instructionMaps is ComputeInstructionMaps with the expression
// constructors' panics (sizes past int64, zero divisors) returned as the
// instruction's error, its maps shared with the recent ones of the
// computation.
func instructionMaps(in *hlo.Instruction, shared *recentMaps) (im *InstructionMaps, err error) {
	defer func() {
		switch err.(type) {
		case OverflowError, ArithmeticError:
			im, err = nil, &InstructionError{Instr: in, Msg: err.Error()}
		}
	}()
	defer Recover(&err)
	if in.IsElementwise() {
		if im, ok := elementwiseMaps(in, shared.shapeMap); ok {
			return im, nil // its maps are the recent ones already, its sets in one array
		}
	}
	if in.Opcode == hlo.OpDot && in.Typed.Dot != nil {
		key := shared.dotKey(in)
		if same, ok := shared.dots[string(key)]; ok {
			c := *same // the sets and maps are never written
			return &c, nil
		}
		if im, err = ComputeInstructionMaps(in); err == nil {
			shared.compact(im)
			if shared.dots == nil {
				shared.dots = map[string]*InstructionMaps{}
			}
			shared.dots[string(key)] = im
		}
		return im, err
	}
	if im, err = ComputeInstructionMaps(in); err == nil {
		shared.compact(im)
	}
	return im, err
}
