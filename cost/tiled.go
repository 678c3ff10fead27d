package cost

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/indexing"
)

// Block-level (Triton) fusions are not loops over output elements: each
// program instance computes one output tile, holding the tiles of what it
// reads in registers, so a normalization fusion reads its row once however
// often the fused computation uses it. XLA models them with
// GpuPerformanceModelWithIndexingAnalysis (gpu_indexing_performance_model.cc)
// instead of the per-element utilization walk of GpuHloCostAnalysis: the
// output tile is propagated to every fused instruction; a fusion operand's
// tile is read once per block (masked elements past the end of a dimension
// are not read); every fused instruction's padded tile (each size rounded up
// to a power of two) costs its flops per element once per block; roots are
// written once. Here the tiles come from the composed output-to-input
// indexing maps of package indexing: a tile's size in one dimension is the
// extent of that result expression over the output tile.

// tiling is the output tiles of a block-level kernel, one per root, and
// its warps.
type tiling struct {
	tiles  [][]int64
	warps  int64
	stages int64
}

// String prints the tiles as "[1,4096], 8 warps".
func (t tiling) String() string {
	b := make([]byte, 0, 32)
	for i, tile := range t.tiles {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, '[')
		for j, s := range tile {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, s, 10)
		}
		b = append(b, ']')
	}
	return fmt.Sprintf("%s, %d warps", b, t.warps)
}

// readBlockLevelConfig reads the output tiles, warps and pipeline stages
// of a block-level fusion's backend_config: its block_level_fusion_config,
// or the triton_gemm_config of older dumps (block_m x block_n tiles of the
// root's two minor dimensions, 1 in the others, which a split-K gemm's
// leading split dimension is among); ok is false when it has neither.
func readBlockLevelConfig(in *hlo.Instruction) (tiling, bool) {
	raw, ok := in.Attr("backend_config")
	if !ok {
		return tiling{}, false
	}
	var cfg struct {
		FusionBackendConfig struct {
			BlockLevel *struct {
				NumWarps    json.Number `json:"num_warps"`
				NumStages   json.Number `json:"num_stages"`
				OutputTiles []struct {
					Sizes []json.Number `json:"sizes"`
				} `json:"output_tiles"`
			} `json:"block_level_fusion_config"`
			Gemm *struct {
				BlockM    json.Number `json:"block_m"`
				BlockN    json.Number `json:"block_n"`
				NumWarps  json.Number `json:"num_warps"`
				NumStages json.Number `json:"num_stages"`
			} `json:"triton_gemm_config"`
		} `json:"fusion_backend_config"`
	}
	if json.Unmarshal([]byte(raw), &cfg) != nil {
		return tiling{}, false
	}
	out := tiling{warps: 4}
	num := func(n json.Number) int64 {
		v, err := strconv.ParseInt(n.String(), 10, 64)
		if err != nil || v <= 0 {
			return 0
		}
		return v
	}
	switch bl, g := cfg.FusionBackendConfig.BlockLevel, cfg.FusionBackendConfig.Gemm; {
	case bl != nil:
		out.warps = cmp.Or(num(bl.NumWarps), out.warps)
		out.stages = num(bl.NumStages)
		for _, t := range bl.OutputTiles {
			sizes := make([]int64, len(t.Sizes))
			for i, s := range t.Sizes {
				if sizes[i] = num(s); sizes[i] == 0 {
					return tiling{}, false
				}
			}
			out.tiles = append(out.tiles, sizes)
		}
	case g != nil:
		out.warps = cmp.Or(num(g.NumWarps), out.warps)
		out.stages = num(g.NumStages)
		bm, bn := num(g.BlockM), num(g.BlockN)
		if bm == 0 || bn == 0 {
			return tiling{}, false
		}
		comp := fusedComputation(in)
		if comp == nil {
			return tiling{}, false
		}
		for _, r := range FusionRoots(comp) {
			rank := r.Shape.Rank()
			if !r.Shape.IsArray() || rank < 2 {
				return tiling{}, false
			}
			tile := make([]int64, rank)
			for i := range tile {
				tile[i] = 1
			}
			tile[rank-2], tile[rank-1] = bm, bn
			out.tiles = append(out.tiles, tile)
		}
	}
	return out, len(out.tiles) > 0
}

// tileRead is one distinct tile of a kernel input.
type tileRead struct {
	operand int
	in      *hlo.Instruction
	// elems is the elements read per block (masked ones excluded); rate the
	// DRAM bandwidth utilization of its contiguous part.
	elems int64
	rate  float64
}

// tiledFusion is the tile propagation of a block-level kernel.
type tiledFusion struct {
	blocks int64
	reads  []tileRead
	// flops is the padded-tile flops over all blocks on the FP32 lanes,
	// matrixFlops those of dots (on the matrix units); writes the bytes of
	// the roots, each with its bandwidth utilization.
	flops, matrixFlops float64
	writes             []int64
	writeRates         []float64
	// maxTile is the largest padded tile of any instruction (what XLA
	// picks the warps by); fits reports that every root and input tile
	// fits the registers XLA allows a tile.
	maxTile int64
	fits    bool
	dots    []tiledDot
}

// tiledDot is a dot of a block-level kernel with its output tile.
type tiledDot struct {
	in     *hlo.Instruction
	tile   []int64
	blocks int64
}

func pow2Ceil(v int64) int64 {
	if v <= 1 {
		return 1
	}
	return 1 << bits.Len64(uint64(v-1))
}

// tileExtents returns, for each result of m, how many positions it takes
// when m's dimensions range over one output tile at the origin, at most the
// size of the indexed dimension of target.
func tileExtents(m *indexing.IndexingMap, tile []int64, target *hlo.Shape) ([]int64, []bool, bool) {
	dims, syms, rts := m.Dims(), m.RangeVars(), m.RTVars()
	if len(dims) != len(tile) {
		return nil, nil, false
	}
	varRange := func(v *indexing.Expr) indexing.Interval {
		switch v.Kind() {
		case indexing.KindDim:
			return indexing.Interval{Lower: 0, Upper: tile[int(v.Value())] - 1}.Intersect(dims[int(v.Value())].Bounds)
		case indexing.KindSymbol:
			return syms[int(v.Value())].Bounds
		default:
			return rts[int(v.Value())].Bounds
		}
	}
	res := m.Results()
	ext := make([]int64, len(res))
	unit := make([]bool, len(res))
	for i, e := range res {
		r := e.Range(varRange)
		ext[i] = max(r.Upper-r.Lower+1, 1)
		if target.IsArray() && i < target.Rank() {
			ext[i] = min(ext[i], max(target.Dims[i], 1))
		}
		unit[i] = unitStride(e)
	}
	return ext, unit, true
}

// unitStride reports whether consecutive tile positions of e are adjacent:
// e is a constant, or one variable with coefficient 1 plus a constant.
func unitStride(e *indexing.Expr) bool {
	switch e.Kind() {
	case indexing.KindConst, indexing.KindDim, indexing.KindSymbol, indexing.KindRuntime:
		return true
	case indexing.KindAdd:
		terms := e.Terms()
		return len(terms) == 1 && terms[0].Coef == 1 && unitStride(terms[0].Expr)
	}
	return false
}

// contiguousRate is BandwidthUtilizationRateHeuristicForTiledMemoryAccess:
// the tile's contiguous run (minor dimensions fully covered, in layout
// order) over the DRAM->L2 transactions it needs.
func contiguousRate(s *hlo.Shape, ext []int64, unit []bool, transaction int64) float64 {
	if transaction <= 0 || len(ext) != s.Rank() {
		return 1
	}
	run := int64(1)
	for _, d := range s.MinorToMajor() {
		if !unit[d] {
			break
		}
		n := min(ext[d], s.Dims[d])
		run *= n
		if n < s.Dims[d] {
			break
		}
	}
	bytes := run * max(bitsOf(s)/8, 1)
	return float64(bytes) / float64(transaction*ceilDiv(bytes, transaction))
}

// blockLevel is a kernel set up for tiling: its roots and, per root, the
// composed output-to-input maps to every instruction it reads, computed
// once for any number of tilings.
type blockLevel struct {
	kernel *hlo.Instruction
	roots  []*hlo.Instruction
	maps   []map[*hlo.Instruction][]*indexing.IndexingMap
	// operand is the kernel operand an instruction of maps reads from
	// memory (a fusion parameter; an unfused instruction's operand).
	operand map[*hlo.Instruction]int
}

// newBlockLevel sets a kernel up for tiling; ok is false when a root is no
// array, an input is a tuple, or a map is undefined.
func newBlockLevel(a *FusionAnalysis) (bl *blockLevel, ok bool) {
	var err error
	defer indexing.Recover(&err)
	defer func() {
		if err != nil {
			bl, ok = nil, false
		}
	}()
	in := a.Fusion
	bl = &blockLevel{kernel: in, roots: a.Roots, operand: map[*hlo.Instruction]int{}}
	for _, r := range a.Roots {
		if !r.Shape.IsArray() {
			return nil, false
		}
	}
	if a.Fused == nil {
		h, err := indexing.ComputeOutputToInput(in, 0)
		if err != nil || !in.Shape.IsArray() {
			return nil, false
		}
		maps := map[*hlo.Instruction][]*indexing.IndexingMap{in: {indexing.IdentityMap(in.Shape.Dims)}}
		for k, op := range in.Operands {
			if k < len(h.Maps) {
				maps[op] = append(maps[op], h.Maps[k]...)
			}
			if _, seen := bl.operand[op]; !seen {
				bl.operand[op] = k
			}
		}
		bl.maps = append(bl.maps, maps)
	} else {
		for _, p := range a.Fused.Params {
			if p != nil {
				bl.operand[p] = p.ParameterNumber
			}
		}
		for _, r := range a.Roots {
			maps, err := indexing.GroupedOutputToInput(r, 0)
			if err != nil {
				return nil, false
			}
			bl.maps = append(bl.maps, maps)
		}
	}
	for _, maps := range bl.maps {
		for i, ms := range maps {
			if _, input := bl.operand[i]; input && !i.Shape.IsArray() {
				return nil, false
			}
			for _, m := range ms {
				if m.IsUndefined() {
					return nil, false
				}
			}
		}
	}
	return bl, true
}

// tileRegisterShare is the share of a block's registers XLA lets one tile
// take (kFractionOfRegistersAvailableToStoreTile): a tile that does not fit
// would spill, which XLA's model treats as an infinite run time.
const tileRegisterShare = 0.4

// propagate tiles the kernel with t; ok is false when the roots' tiles
// give different block counts or do not match their shapes.
func (bl *blockLevel) propagate(m *Model, t tiling) (tf *tiledFusion, ok bool) {
	c, d := m.costs(), &m.Device
	var err error
	defer indexing.Recover(&err)
	defer func() {
		if err != nil {
			tf, ok = nil, false
		}
	}()
	if len(bl.roots) != len(t.tiles) {
		return nil, false
	}
	regs := tileRegisterShare * float64(d.RegistersPerBlock)
	tf = &tiledFusion{blocks: -1, fits: true}
	type key struct {
		in  *hlo.Instruction
		ext string
	}
	seen := map[key]bool{}
	for r, root := range bl.roots {
		tile := t.tiles[r]
		if root.Shape.Rank() != len(tile) {
			return nil, false
		}
		blocks, padded := int64(1), int64(1)
		for i, s := range tile {
			blocks *= ceilDiv(root.Shape.Dims[i], s)
			padded *= pow2Ceil(s)
		}
		if tf.blocks >= 0 && tf.blocks != blocks {
			return nil, false // roots tiled into different block counts
		}
		tf.blocks = blocks
		tf.fits = tf.fits && float64(padded) <= regs
		for in, maps := range bl.maps[r] {
			k, input := bl.operand[in]
			for _, m := range maps {
				ext, unit, ok := tileExtents(m, tile, &in.Shape)
				if !ok {
					return nil, false
				}
				key := key{in, extKey(ext)}
				if seen[key] {
					continue
				}
				seen[key] = true
				padded := int64(1)
				for _, e := range ext {
					padded = satMul(padded, pow2Ceil(e))
				}
				tf.maxTile = max(tf.maxTile, padded)
				if input {
					elems := int64(1)
					for _, e := range ext {
						elems = satMul(elems, e)
					}
					tf.fits = tf.fits && float64(padded) <= regs
					tf.reads = append(tf.reads, tileRead{operand: k, in: in, elems: elems,
						rate: contiguousRate(&in.Shape, ext, unit, d.DRAMToL2TransactionBytes)})
					continue
				}
				if in.Opcode == hlo.OpIota {
					tf.fits = tf.fits && float64(padded) <= regs
				}
				f := float64(blocks) * float64(padded) * tiledFlopsPerElement(c, in)
				if in.Opcode == hlo.OpDot || in.Opcode == hlo.OpScaledDot || in.Opcode == hlo.OpConvolution {
					tf.matrixFlops += f
					tf.dots = append(tf.dots, tiledDot{in: in, tile: ext, blocks: blocks})
				} else {
					tf.flops += f
				}
			}
		}
		rootExt := make([]int64, len(tile))
		unit := make([]bool, len(tile))
		for i, s := range tile {
			rootExt[i], unit[i] = s, true
		}
		tf.writes = append(tf.writes, arrayBytes(&root.Shape))
		tf.writeRates = append(tf.writeRates, contiguousRate(&root.Shape, rootExt, unit, d.DRAMToL2TransactionBytes))
	}
	return tf, true
}

func extKey(ext []int64) string {
	b := make([]byte, 0, 8*len(ext))
	for _, e := range ext {
		b = strconv.AppendInt(b, e, 10)
		b = append(b, ',')
	}
	return string(b)
}

// tiledFlopsPerElement is XLA's flops per element of a tiled instruction
// (GpuPerformanceModelWithIndexingAnalysis::FlopsPerElement): nothing for
// ops that only move or index data, 6 per element of a concatenate (400
// when it joins along a dimension whose first operand's size is no
// multiple of 32), the elementwise cost, a reduce's reducer applied once
// less than its reduced dimensions padded to powers of two, else the cost
// analysis's flops over the output elements. A reduce-window costs its
// reducer once per window element, a window dimension that spans its
// whole input dimension (a cumulative or full-width reduction) counted
// once, as the kernel reduces that dimension as a reduce does.
func tiledFlopsPerElement(c *Costs, in *hlo.Instruction) float64 {
	switch in.Opcode {
	case hlo.OpBitcast, hlo.OpBroadcast, hlo.OpConstant, hlo.OpDynamicSlice, hlo.OpDynamicUpdateSlice, hlo.OpGather, hlo.OpIota,
		hlo.OpPad, hlo.OpParameter, hlo.OpSlice, hlo.OpTranspose, hlo.OpTuple, hlo.OpReshape, hlo.OpGetTupleElement:
		return 0
	case hlo.OpConcatenate:
		if len(in.Typed.Dimensions) == 1 && len(in.Operands) > 0 {
			if d := in.Typed.Dimensions[0]; d > 0 && int(d) < in.Operands[0].Shape.Rank() && in.Operands[0].Shape.Dims[d]%warpSize != 0 {
				return 400
			}
		}
		return concatFlopsPerElement
	case hlo.OpReduce:
		if len(in.Operands) == 0 {
			return 0
		}
		factor := int64(1)
		op := &in.Operands[0].Shape
		for _, d := range in.Typed.Dimensions {
			if int(d) < op.Rank() {
				factor *= pow2Ceil(op.Dims[d])
			}
		}
		return float64(factor-1) * reducerFlops(c, in)
	case hlo.OpReduceWindow:
		return float64(max(effectiveWindow(in)-1, 1)) * reducerFlops(c, in)
	}
	if in.IsElementwise() {
		if in.Opcode == hlo.OpCopy || in.Opcode == hlo.OpBitcastConvert {
			return 0
		}
		return FlopsPerElement
	}
	n := elementsRecursive(&in.Shape)
	if n == 0 {
		return 0
	}
	return c.Of(in).Flops / float64(n)
}

// reducerFlops is the tiled flops of one application of a reduce's or
// reduce-window's reducer.
func reducerFlops(c *Costs, in *hlo.Instruction) float64 {
	comp := calledComp(in)
	if comp == nil {
		return 0
	}
	f := 0.0
	for _, r := range comp.Instructions {
		f += tiledFlopsPerElement(c, r)
	}
	return f
}

// spansDimension reports whether a reduce-window's window dimension covers
// the whole input dimension of size n for every output position: a
// cumulative reduction (window n, padded by n-1 or n on one side) or a
// full-width one (window at least 2n-1, padded by n-1 on both sides), each
// of stride 1 without dilation.
func spansDimension(w hlo.WindowDim, n int64) bool {
	if n <= 1 || w.Stride > 1 || w.BaseDilation > 1 || w.WindowDilation > 1 {
		return false
	}
	scan := w.Size == n && (w.PadLow >= n-1 && w.PadHigh == 0 || w.PadHigh >= n-1 && w.PadLow == 0)
	full := w.Size >= 2*n-1 && w.PadLow >= n-1 && w.PadHigh >= n-1
	return scan || full
}

// effectiveWindow is the window elements a reduce-window's kernel reduces
// per output element: the window's size, a dimension it spans counted as
// one (that dimension is reduced once for all its outputs, as a reduce
// followed by a broadcast, or a scan, would).
func effectiveWindow(in *hlo.Instruction) int64 {
	if len(in.Operands) == 0 {
		return 1
	}
	op := &in.Operands[0].Shape
	win := int64(1)
	for i, w := range in.Typed.Window {
		if i < op.Rank() && spansDimension(w, op.Dims[i]) {
			continue
		}
		win = satMul(win, max(w.Size, 1))
	}
	return win
}

// hasConvolution reports whether a computation (or one it calls) holds a
// convolution, which block-level tiling does not cover here.
func hasConvolution(comp *hlo.Computation) bool {
	for _, in := range comp.Instructions {
		if in.Opcode == hlo.OpConvolution {
			return true
		}
		for _, cc := range in.Called {
			if cc != nil && cc != comp && hasConvolution(cc) {
				return true
			}
		}
	}
	return false
}

// tiledEstimate is the roofline of a block-level fusion from the tiles of
// its backend_config, or, when they cannot be propagated, from the tiling
// XLA's model would find fastest (searchTiling); nil when neither works
// (then the caller uses the per-element cost analysis).
func (m *Model) tiledEstimate(a *FusionAnalysis) *Estimate {
	comp := fusedComputation(a.Fusion)
	if comp == nil || !m.Device.IsGPU() || hasConvolution(comp) {
		return nil
	}
	bl, ok := newBlockLevel(a)
	if !ok {
		return nil
	}
	if t, ok := readBlockLevelConfig(a.Fusion); ok {
		if tf, ok := bl.propagate(m, t); ok {
			return m.tiledRoofline(a, tf, t)
		}
	}
	e := m.searchTiling(a, bl)
	if e != nil {
		e.Note = "its tiles do not propagate: estimated with the tiling XLA's model finds fastest, " + e.Note
	}
	return e
}

// costs is the model's cost-analysis memo, made on first use.
func (m *Model) costs() *Costs {
	if m.Costs == nil {
		m.Costs = NewCosts()
	}
	return m.Costs
}

// warpsFor is XLA's GetNumWarps: the warps of a block-level kernel whose
// largest live tile has n (padded) elements.
func warpsFor(n int64) int64 {
	switch {
	case n <= 256:
		return 1
	case n <= 1024:
		return 2
	case n <= 4096:
		return 4
	}
	return 8
}

// maxSearchedTilings bounds the tilings searchTiling evaluates.
const maxSearchedTilings = 4096

// searchTiling estimates a kernel with the tiling XLA's indexing model
// finds fastest (TryFindBestTilingForFusion): every root gets the same
// tile of powers of two (masked past the end of a dimension), whose padded
// elements fit in the registers XLA allows a tile; the warps follow the
// largest tile (EstimateNumWarps). The roots must have one shape. Sizes are
// tried from the minor dimension out; at most maxSearchedTilings are
// tried. It returns nil when no tiling fits.
func (m *Model) searchTiling(a *FusionAnalysis, bl *blockLevel) *Estimate {
	d := &m.Device
	shape := &bl.roots[0].Shape
	for _, r := range bl.roots[1:] {
		if !slicesEqual(r.Shape.Dims, shape.Dims) {
			return nil
		}
	}
	limit := int64(tileRegisterShare * float64(d.RegistersPerBlock))
	rank := shape.Rank()
	tile := make([]int64, rank)
	for i := range tile {
		tile[i] = 1
	}
	var best *Estimate
	var bestTiling tiling
	tried := 0
	var walk func(dim int, elems int64)
	walk = func(dim int, elems int64) {
		if tried >= maxSearchedTilings {
			return
		}
		if dim < 0 {
			tried++
			t := tiling{tiles: make([][]int64, len(bl.roots))}
			for i := range t.tiles {
				t.tiles[i] = tile
			}
			tf, ok := bl.propagate(m, t)
			if !ok || !tf.fits {
				return
			}
			t.warps = warpsFor(tf.maxTile)
			if e := m.tiledRoofline(a, tf, t); best == nil || e.TimeUS < best.TimeUS {
				best, bestTiling = e, t
				bestTiling.tiles = [][]int64{append([]int64(nil), tile...)}
			}
			return
		}
		full := pow2Ceil(max(shape.Dims[dim], 1))
		for s := int64(1); s <= full && elems*s <= max(limit, 1); s *= 2 {
			tile[dim] = s
			walk(dim-1, elems*s)
		}
		tile[dim] = 1
	}
	walk(rank-1, 1)
	if best != nil {
		best.Note = "tiles " + bestTiling.String()
	}
	return best
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// tiledRoofline is XLA's EstimateRunTimeForTiledHloComputation on a
// propagated tiling: reads per input of all its tiles (DRAM for the
// distinct bytes, caches for the rest), writes of the roots, compute on
// the FP32 lanes of warps*32 threads per block and on the matrix units.
func (m *Model) tiledRoofline(a *FusionAnalysis, tf *tiledFusion, t tiling) *Estimate {
	d := &m.Device
	in := a.Fusion
	threads := t.warps * d.WarpSize
	e := &Estimate{Instr: in, Emitter: a.Emitter, Flops: tf.flops + tf.matrixFlops, MatrixUnit: tf.matrixFlops > 0,
		Launch: LaunchDims{Blocks: tf.blocks, ThreadsPerBlock: threads, Unroll: 1, Vector: 1, Note: "block-level"}}
	c := &InstructionCost{Flops: tf.flops + tf.matrixFlops, Operands: make([]OperandCost, len(in.Operands))}
	for k := range c.Operands {
		c.Operands[k].Operand = k
	}
	type acc struct {
		bytes int64
		rate  float64
	}
	perOperand := make([]*acc, len(in.Operands))
	for _, r := range tf.reads {
		if r.operand < 0 || r.operand >= len(in.Operands) {
			continue
		}
		p := perOperand[r.operand]
		if p == nil {
			p = &acc{rate: 1}
			perOperand[r.operand] = p
		}
		p.bytes = satAdd(p.bytes, satMul(satMul(tf.blocks, r.elems), max(bitsOf(&r.in.Shape)/8, 1)))
		p.rate = math.Min(p.rate, r.rate)
	}
	read := 0.0
	for k, op := range in.Operands {
		p := perOperand[k]
		rd := OperandRead{Operand: k, Coalesced: true, Rate: 1}
		if p != nil {
			size := arrayBytes(&op.Shape)
			rd.Bytes, rd.NetBytes, rd.Rate = p.bytes, min(size, p.bytes), p.rate
			rd.Coalesced = p.rate >= 1
			if size > 0 {
				rd.Utilization = float64(p.bytes) / float64(size)
			}
			rd.TimeUS = m.readTime(tf.blocks, rd.NetBytes, rd.Bytes, rd.Rate) * 1e6
			c.Operands[k].Utilization = rd.Utilization
			c.Operands[k].BytesAccessed = p.bytes
		}
		read += rd.TimeUS
		e.BytesRead += rd.Bytes
		e.Reads = append(e.Reads, rd)
	}
	write := 0.0
	for i, w := range tf.writes {
		c.OutputBytes += w
		write += float64(w) / (tf.writeRates[i] * d.MemoryBandwidth) * 1e6
	}
	c.total()
	e.Cost = c
	e.BytesOutput = c.OutputBytes
	fpus := min(threads, d.FPUsPerCore)
	cores := min(tf.blocks, d.Cores)
	if rate := d.ClockGHz * 1e9 * 2 * float64(fpus*cores); rate > 0 {
		e.ComputeUS = tf.flops / rate * 1e6
	}
	// The dots' matrix work in whole tiles and whole waves (XLA's dot
	// fusion cost model).
	mat := 0.0
	for _, dt := range tf.dots {
		mat += waveFlops(dt, d)
	}
	e.ComputeUS += mat / d.MatrixPeak(matrixClass(in)) * 1e6
	e.MemoryUS = read + write
	e.combine(d)
	if len(tf.dots) > 0 && t.stages == 1 {
		// One stage: the loop over the contracted dimension loads each
		// tile and then multiplies it, without overlap (XLA's dot fusion
		// cost model runs the main loop serially for num_stages <= 1).
		e.ExecUS = e.ComputeUS + e.MemoryUS
		e.TimeUS = e.ExecUS + d.KernelLaunchOverheadUS
		e.Note = "one pipeline stage: loads and multiplies do not overlap"
	}
	e.Coalescing = make([]OperandCoalescing, len(in.Operands))
	for k := range e.Coalescing {
		e.Coalescing[k] = OperandCoalescing{Operand: k, Coalesced: e.Reads[k].Coalesced,
			Reason: "block-level (Triton) tile: contiguous run over the DRAM->L2 transaction size"}
	}
	return e
}

// satAdd is a+b for non-negative a and b, saturated at the largest int64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// waveFlops is a tiled dot's flops as its blocks run: whole tiles (masked
// elements multiplied too), in whole waves of one block per SM
// (CalculateComputeTimeWithTileAndWaveQuantization).
func waveFlops(dt tiledDot, d *Device) float64 {
	k := int64(1)
	lhs := &dt.in.Operands[0].Shape
	if dt.in.Typed.Dot != nil {
		for _, c := range dt.in.Typed.Dot.LhsContracting {
			if int(c) < lhs.Rank() {
				k *= lhs.Dims[c]
			}
		}
	}
	tile := int64(1)
	for _, s := range dt.tile {
		tile *= s
	}
	waves := ceilDiv(dt.blocks, d.Cores)
	return 2 * float64(tile) * float64(k) * float64(waves*d.Cores)
}
