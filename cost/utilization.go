package cost

import (
	"math"
	"slices"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// OperandCost is what one instruction reads from one operand.
type OperandCost struct {
	// Operand is the operand index.
	Operand int
	// Utilization is the fraction of the operand's elements read, counting
	// repeated reads (it exceeds 1 for a broadcast, a reduce-window, a
	// reduce's init value, or several slices of one value).
	Utilization float64
	// BytesAccessed is the bytes read from the operand.
	BytesAccessed int64
}

// InstructionCost is XLA's GPU cost analysis of one instruction
// (GpuHloCostAnalysis with count_multiple_input_accesses on).
type InstructionCost struct {
	// Flops counts floating-point (and integer) operations; an elementwise
	// op costs FlopsPerElement per element, an FMA 2.
	Flops float64
	// OutputBytes is the bytes written.
	OutputBytes int64
	// Operands are the reads, one per operand.
	Operands []OperandCost
	// ConstantBytes is what a fusion reads from its fused non-scalar
	// constants.
	ConstantBytes int64
	// BytesAccessed is OutputBytes + ConstantBytes + the operand bytes.
	BytesAccessed int64
	// FusedUtilization is, for a fusion, the utilization of each fused
	// instruction (how many times its whole result is computed).
	FusedUtilization map[*hlo.Instruction]float64
}

// FlopsPerElement is the default cost of an elementwise op per element on
// GPU (kDefaultFlopsPerElement in gpu_hlo_cost_analysis.cc); XLA refines
// it with measured per-device op profiles, which this package does not
// carry.
const FlopsPerElement = 3

const concatFlopsPerElement = 6

// Costs computes and caches GPU cost-analysis results. It is not safe for
// concurrent use; make one per goroutine.
type Costs struct {
	// CountMultipleInputAccesses is XLA's count_multiple_input_accesses:
	// when false, a parameter's or constant's bytes are capped at its size.
	CountMultipleInputAccesses bool
	compFlops                  map[*hlo.Computation]float64
	instr                      map[*hlo.Instruction]*InstructionCost
}

// NewCosts returns an empty cache with count_multiple_input_accesses on
// (what the GPU performance model uses).
func NewCosts() *Costs {
	return &Costs{
		CountMultipleInputAccesses: true,
		compFlops:                  map[*hlo.Computation]float64{},
		instr:                      map[*hlo.Instruction]*InstructionCost{},
	}
}

// Of returns the cost of one instruction (a fusion is analysed through its
// fused computation).
func (c *Costs) Of(in *hlo.Instruction) *InstructionCost {
	if r, ok := c.instr[in]; ok {
		return r
	}
	r := c.uncached(in)
	c.instr[in] = r
	return r
}

// uncached is Of without the memo of in's own cost (what in calls is
// memoized all the same), for a caller that keeps it: the cost passes
// ask once for each kernel.
func (c *Costs) uncached(in *hlo.Instruction) *InstructionCost {
	if fusedComputation(in) != nil {
		return c.fusion(in)
	}
	return c.single(in)
}

// computationFlops sums the flops of a (called) computation's instructions.
func (c *Costs) computationFlops(comp *hlo.Computation) float64 {
	if f, ok := c.compFlops[comp]; ok {
		return f
	}
	c.compFlops[comp] = 0 // guards against recursion
	f := 0.0
	for _, in := range comp.Instructions {
		f += c.Of(in).Flops
	}
	c.compFlops[comp] = f
	return f
}

func ceilTo(x float64) float64 { return math.Ceil(x - 1e-9) }

// single is HloCostAnalysis's Preprocess defaults plus the handlers that
// change them, with the GPU overrides.
func (c *Costs) single(in *hlo.Instruction) *InstructionCost {
	r := &InstructionCost{OutputBytes: ShapeBytes(&in.Shape)}
	r.Operands = make([]OperandCost, len(in.Operands))
	for i, op := range in.Operands {
		r.Operands[i] = OperandCost{Operand: i, Utilization: 1, BytesAccessed: ShapeBytes(&op.Shape)}
	}
	b := &costOf{c: c, in: in, r: r, defaultTotal: r.OutputBytes}
	for _, o := range r.Operands {
		b.defaultTotal += o.BytesAccessed
	}
	if in.IsElementwise() && in.Opcode != hlo.OpCopy && in.Opcode != hlo.OpBitcastConvert {
		r.Flops = float64(FlopsPerElement * elementsRecursive(&in.Shape))
	}
	if !b.movement() && !b.reduction() {
		b.flops()
	}
	r.total()
	if b.keepDefaultTotal {
		r.BytesAccessed = b.defaultTotal
	}
	return r
}

// costOf is the cost of one instruction being worked out by single.
type costOf struct {
	c  *Costs
	in *hlo.Instruction
	r  *InstructionCost
	// broadcast and reduce-window change their operands' bytes but, in
	// XLA, not the instruction's total, which keeps Preprocess's default.
	keepDefaultTotal bool
	defaultTotal     int64
}

func (b *costOf) setOp(i int, util float64, bytes int64) {
	if i < len(b.r.Operands) {
		b.r.Operands[i].Utilization = util
		b.r.Operands[i].BytesAccessed = bytes
	}
}

func (b *costOf) zeroAll() {
	b.r.OutputBytes = 0
	for i := range b.r.Operands {
		b.r.Operands[i].BytesAccessed = 0
	}
}

func elemRatio(num, den int64) float64 {
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}

// movement sets the bytes of the ops that move or select data; it reports
// whether in is one.
func (b *costOf) movement() bool {
	in, r := b.in, b.r
	switch in.Opcode {
	case hlo.OpParameter, hlo.OpConstant, hlo.OpGetTupleElement, hlo.OpBitcast, hlo.OpAfterAll, hlo.OpDomain, hlo.OpOptimizationBarrier:
		b.zeroAll()
	case hlo.OpTuple:
		for i := range r.Operands {
			r.Operands[i].BytesAccessed = 0
		}
	case hlo.OpTranspose:
		if isBitcastTranspose(in) {
			b.zeroAll()
		}
	case hlo.OpSlice, hlo.OpDynamicSlice, hlo.OpGather:
		b.setOp(0, elemRatio(in.Shape.ElementCount(), in.Operands[0].Shape.ElementCount()), ShapeBytes(&in.Shape))
	case hlo.OpDynamicUpdateSlice:
		upd := in.Operands[1].Shape.ElementCount()
		b.setOp(0, elemRatio(in.Shape.ElementCount()-upd, in.Shape.ElementCount()), 0)
		r.OutputBytes = ShapeBytes(&in.Operands[1].Shape)
		for i := 3; i < len(r.Operands); i++ { // only the first index is charged
			r.Operands[i].BytesAccessed = 0
		}
	case hlo.OpScatter:
		n := (len(in.Operands) - 1) / 2
		updBytes := int64(0)
		for i := n + 1; i < len(in.Operands); i++ {
			updBytes += ShapeBytes(&in.Operands[i].Shape)
		}
		for i := range n {
			b.setOp(i, r.Operands[i].Utilization, ShapeBytes(&in.Operands[n+1+i].Shape))
		}
		r.OutputBytes = updBytes
		if comp := calledComp(in); comp != nil {
			upd := in.Operands[len(in.Operands)-1].Shape.ElementCount()
			r.Flops = float64(upd) * b.c.computationFlops(comp)
		}
	case hlo.OpBroadcast:
		if b.c.CountMultipleInputAccesses {
			// XLA's quirk: the operand "bytes" are the output element count.
			b.setOp(0, elemRatio(in.Shape.ElementCount(), in.Operands[0].Shape.ElementCount()), in.Shape.ElementCount())
			b.keepDefaultTotal = true
		}
	default:
		return false
	}
	return true
}

// reduction sets the bytes and flops of reduce and reduce-window; it
// reports whether in is one.
func (b *costOf) reduction() bool {
	in, r := b.in, b.r
	switch in.Opcode {
	case hlo.OpReduceWindow:
		win := int64(1)
		for _, w := range in.Typed.Window {
			win *= w.Size
		}
		out := firstArray(&in.Shape).ElementCount()
		if b.c.CountMultipleInputAccesses {
			n := len(in.Operands) / 2
			for i := range n {
				op := &in.Operands[i].Shape
				b.setOp(i, elemRatio(out*win, op.ElementCount()), out*win*bitsOf(op)/8)
			}
			b.keepDefaultTotal = true
		}
		if comp := calledComp(in); comp != nil {
			r.Flops = float64(reduceWindowSteps(in)) * b.c.computationFlops(comp)
		}
	case hlo.OpReduce:
		n := len(in.Operands) / 2
		out := firstArray(&in.Shape).ElementCount()
		r.OutputBytes = arrayBytes(&in.Shape)
		for i := n; i < len(in.Operands); i++ {
			b.setOp(i, float64(out), out*ShapeBytes(&in.Operands[i].Shape))
		}
		if comp := calledComp(in); comp != nil && n > 0 {
			r.Flops = float64(reduceSteps(in)) * b.c.computationFlops(comp)
		}
	default:
		return false
	}
	return true
}

// flops sets the flops of the ops that compute beyond one per element.
func (b *costOf) flops() {
	in, r := b.in, b.r
	outElems := float64(in.Shape.ElementCount())
	switch in.Opcode {
	case hlo.OpConcatenate:
		r.Flops = float64(concatFlopsPerElement * in.Shape.ElementCount())
		if len(in.Typed.Dimensions) == 1 && in.Typed.Dimensions[0] != 0 {
			d := in.Typed.Dimensions[0]
			for _, op := range in.Operands {
				if int(d) < op.Shape.Rank() && op.Shape.Dims[d]%warpSize != 0 {
					r.Flops = 400 * outElems
					break
				}
			}
		}
	case hlo.OpDot:
		r.Flops = dotFlops(in)
	case hlo.OpConvolution:
		r.Flops = convFlops(in)
	case hlo.OpCustomCall:
		r.Flops = customCallFlops(in)
		if r.Flops > 0 && in.Shape.IsTuple() && strings.Contains(in.CustomCallTarget(), "cudnn$conv") {
			r.OutputBytes = ShapeBytes(&in.Shape.Tuple[0])
		}
	case hlo.OpMap:
		if comp := calledComp(in); comp != nil {
			r.Flops = outElems * b.c.computationFlops(comp)
		}
	case hlo.OpSort:
		r.Flops = sortFlops(in)
	case hlo.OpAllReduce, hlo.OpAllReduceStart, hlo.OpReduceScatter:
		r.Flops = float64(FlopsPerElement * elementsRecursive(&in.Shape))
	}
}

func (r *InstructionCost) total() {
	r.BytesAccessed = r.OutputBytes + r.ConstantBytes
	for _, o := range r.Operands {
		r.BytesAccessed += o.BytesAccessed
	}
}

func calledComp(in *hlo.Instruction) *hlo.Computation {
	if len(in.Called) == 0 {
		return nil
	}
	return in.Called[0]
}

// dotFlops is 2 * output elements * contracted elements (FMA = 2 flops).
// A dot without dimension numbers is an outer product.
func dotFlops(in *hlo.Instruction) float64 {
	if len(in.Operands) < 2 {
		return 0
	}
	k := int64(1)
	lhs := &in.Operands[0].Shape
	var contracting []int64
	if in.Typed.Dot != nil {
		contracting = in.Typed.Dot.LhsContracting
	}
	for _, d := range contracting {
		if int(d) < lhs.Rank() {
			k *= lhs.Dims[d]
		}
	}
	return 2 * float64(firstArray(&in.Shape).ElementCount()) * float64(k)
}

// customCallFlops handles cuBLAS gemms (dot formula from the backend
// config's contracting dims when readable, else from the operand shapes of
// a plain matrix multiply) and cuDNN convolutions.
func customCallFlops(in *hlo.Instruction) float64 {
	t := in.CustomCallTarget()
	out := firstArray(&in.Shape)
	switch {
	case strings.Contains(t, "cublas") && strings.Contains(t, "gemm") || t == "__cublas$lt$matmul":
		if len(in.Operands) < 2 {
			return 0
		}
		lhs := &in.Operands[0].Shape
		k := int64(1)
		if cfg, ok := in.Attr("backend_config"); ok {
			if dims := jsonIntList(cfg, "lhs_contracting_dimensions"); len(dims) > 0 {
				for _, d := range dims {
					if int(d) < lhs.Rank() {
						k *= lhs.Dims[d]
					}
				}
				return 2 * float64(out.ElementCount()) * float64(k)
			}
		}
		if lhs.Rank() > 0 {
			k = lhs.Dims[lhs.Rank()-1]
		}
		return 2 * float64(out.ElementCount()) * float64(k)
	case strings.Contains(t, "cudnn$conv"):
		return convFlops(in)
	}
	return 0
}

// jsonIntList extracts "key":["1","2"] or "key":[1,2] from a JSON-ish
// backend config without decoding the whole config.
func jsonIntList(s, key string) []int64 {
	i := strings.Index(s, key)
	if i < 0 {
		return nil
	}
	s = s[i+len(key):]
	open := strings.IndexByte(s, '[')
	end := strings.IndexByte(s, ']')
	if open < 0 || end < open {
		return nil
	}
	var out []int64
	for _, f := range strings.FieldsFunc(s[open+1:end], func(r rune) bool { return r == ',' || r == '"' || r == ' ' || r == '\\' }) {
		var v int64
		ok := f != ""
		for _, ch := range f {
			if ch < '0' || ch > '9' {
				ok = false
				break
			}
			v = v*10 + int64(ch-'0')
		}
		if ok {
			out = append(out, v)
		}
	}
	return out
}

// fusionDUSRoots returns the dynamic-update-slices whose result is (an
// element of) the fusion result: they write only their update and read
// nothing of their operand 0.
func fusionDUSRoots(comp *hlo.Computation) map[*hlo.Instruction]bool {
	m := map[*hlo.Instruction]bool{}
	for _, r := range FusionRoots(comp) {
		if r.Opcode == hlo.OpDynamicUpdateSlice {
			m[r] = true
		}
	}
	return m
}

// postOrder returns the instructions of comp reachable from its root, each
// after its operands (XLA's MakeInstructionPostOrder, restricted to what
// the root uses, followed by unreachable instructions).
func postOrder(comp *hlo.Computation) []*hlo.Instruction {
	seen := make(map[*hlo.Instruction]bool, len(comp.Instructions))
	out := make([]*hlo.Instruction, 0, len(comp.Instructions))
	visit := func(in *hlo.Instruction) {
		type frame struct {
			in *hlo.Instruction
			i  int
		}
		stack := []frame{{in, 0}}
		seen[in] = true
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.i < len(top.in.Operands) {
				op := top.in.Operands[top.i]
				top.i++
				if !seen[op] {
					seen[op] = true
					stack = append(stack, frame{op, 0})
				}
				continue
			}
			out = append(out, top.in)
			stack = stack[:len(stack)-1]
		}
	}
	if comp.Root != nil {
		visit(comp.Root)
	}
	for _, in := range comp.Instructions {
		if !seen[in] {
			visit(in)
		}
	}
	return out
}

// fusion is GpuHloCostAnalysis's fusion handling: outputs, the
// utilization walk (FusionCalculateUtilizations), constants and parameter
// reads.
func (c *Costs) fusion(f *hlo.Instruction) *InstructionCost {
	comp := fusedComputation(f)
	r := &InstructionCost{FusedUtilization: map[*hlo.Instruction]float64{}}
	dus := fusionDUSRoots(comp)
	r.OutputBytes = int64(fusionOutputBytes(f, comp, shapeSize))

	// Walking from the root to the parameters, each instruction's
	// utilization is the sum over the roots of its elementwise chains
	// (each once) of what they are read with. Instructions and their
	// roots go by their position in the post-order.
	order := postOrder(comp)
	pos := make(map[*hlo.Instruction]int32, len(order))
	for i, in := range order {
		pos[in] = int32(i)
	}
	rootUtil := make([]float64, len(order))
	roots := make([][]int32, len(order))
	addRoot := func(in, root int32) {
		if !slices.Contains(roots[in], root) {
			roots[in] = append(roots[in], root)
		}
	}
	top := pos[comp.Root]
	rootUtil[top] = 1
	addRoot(top, top)
	for i := len(order) - 1; i >= 0; i-- {
		in := order[i]
		u := 0.0
		for _, root := range roots[i] {
			u += rootUtil[root]
		}
		r.FusedUtilization[in] = u
		ic := c.Of(in)
		r.Flops += u * ic.Flops
		inherit := in.IsElementwise() || in.Opcode == hlo.OpTuple || in.Opcode == hlo.OpGetTupleElement
		for k, op := range in.Operands {
			j := pos[op]
			if inherit {
				for _, root := range roots[i] {
					addRoot(j, root)
				}
				continue
			}
			addRoot(j, j)
			opUtil := ic.Operands[k].Utilization
			if k == 0 && dus[in] {
				opUtil = 0
			}
			cur := u * opUtil
			if e := elementsRecursive(&op.Shape); e == 0 {
				cur = 0
			} else {
				cur = ceilTo(cur*float64(e)) / float64(e)
			}
			rootUtil[j] += cur
		}
	}
	// Fused constants with more than one element are read from memory.
	for _, in := range comp.Instructions {
		if in.Opcode == hlo.OpConstant && elementsRecursive(&in.Shape) > 1 {
			u := r.FusedUtilization[in]
			if !c.CountMultipleInputAccesses {
				u = math.Min(u, 1)
			}
			r.ConstantBytes += int64(math.Round(float64(ShapeBytes(&in.Shape)) * u))
		}
	}
	r.Operands = make([]OperandCost, len(f.Operands))
	for k := range f.Operands {
		r.Operands[k].Operand = k
		if k >= len(comp.Params) || comp.Params[k] == nil {
			continue
		}
		p := comp.Params[k]
		u := r.FusedUtilization[p]
		r.Operands[k].Utilization = u
		r.Operands[k].BytesAccessed = c.paramReadBytes(p, r.FusedUtilization)
	}
	r.total()
	return r
}

// paramReadBytes is GpuHloCostAnalysis's FusionParameterReadBytes:
// llround(size * utilization), utilization capped at 1 unless multiple
// accesses count; a tuple parameter leaf by leaf (fusionParamBytes).
func (c *Costs) paramReadBytes(p *hlo.Instruction, util map[*hlo.Instruction]float64) int64 {
	return int64(fusionParamBytes(p, func(g *hlo.Instruction) float64 {
		u := util[g]
		if !c.CountMultipleInputAccesses {
			u = math.Min(u, 1)
		}
		return math.Round(float64(ShapeBytes(&g.Shape)) * u)
	}))
}
