package cost

import (
	"encoding/json"
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

// blockLevelConfig is what the roofline needs of a fusion's
// block_level_fusion_config.
type blockLevelConfig struct {
	tiles [][]int64 // one per root
	warps int64
}

// readBlockLevelConfig reads the output tiles and warps of a block-level
// fusion's backend_config; ok is false when it has none.
func readBlockLevelConfig(in *hlo.Instruction) (blockLevelConfig, bool) {
	raw, ok := in.Attr("backend_config")
	if !ok {
		return blockLevelConfig{}, false
	}
	var cfg struct {
		FusionBackendConfig struct {
			BlockLevel *struct {
				NumWarps    json.Number `json:"num_warps"`
				OutputTiles []struct {
					Sizes []json.Number `json:"sizes"`
				} `json:"output_tiles"`
			} `json:"block_level_fusion_config"`
		} `json:"fusion_backend_config"`
	}
	if json.Unmarshal([]byte(raw), &cfg) != nil || cfg.FusionBackendConfig.BlockLevel == nil {
		return blockLevelConfig{}, false
	}
	bl := cfg.FusionBackendConfig.BlockLevel
	out := blockLevelConfig{warps: 4}
	if w, err := strconv.ParseInt(bl.NumWarps.String(), 10, 64); err == nil && w > 0 {
		out.warps = w
	}
	for _, t := range bl.OutputTiles {
		sizes := make([]int64, len(t.Sizes))
		for i, s := range t.Sizes {
			v, err := strconv.ParseInt(s.String(), 10, 64)
			if err != nil || v <= 0 {
				return blockLevelConfig{}, false
			}
			sizes[i] = v
		}
		out.tiles = append(out.tiles, sizes)
	}
	return out, len(out.tiles) > 0
}

// tileRead is one distinct tile of a fusion parameter.
type tileRead struct {
	param *hlo.Instruction
	// elems is the elements read per block (masked ones excluded); rate the
	// DRAM bandwidth utilization of its contiguous part.
	elems int64
	rate  float64
}

// tiledFusion is the tile propagation of a block-level fusion.
type tiledFusion struct {
	blocks int64
	reads  []tileRead
	// flops is the padded-tile flops over all blocks on the FP32 lanes,
	// matrixFlops those of dots (on the matrix units); writes the bytes of
	// the roots, each with its bandwidth utilization.
	flops, matrixFlops float64
	writes             []int64
	writeRates         []float64
	maxTile            int64
}

func pow2Ceil(v int64) int64 {
	if v <= 1 {
		return 1
	}
	return 1 << bits.Len64(uint64(v-1))
}

// tileExtents returns, for each result of m, how many positions it takes
// when m's dimensions range over one output tile at the origin.
func tileExtents(m *indexing.IndexingMap, tile []int64) ([]int64, []bool, bool) {
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

// tileFusion propagates cfg's output tiles through the fused computation.
func tileFusion(c *Costs, comp *hlo.Computation, cfg blockLevelConfig, transaction int64) (*tiledFusion, bool) {
	roots := FusionRoots(comp)
	if len(roots) != len(cfg.tiles) {
		return nil, false
	}
	tf := &tiledFusion{blocks: -1}
	type key struct {
		in  *hlo.Instruction
		ext string
	}
	seen := map[key]bool{}
	for r, root := range roots {
		tile := cfg.tiles[r]
		if !root.Shape.IsArray() || root.Shape.Rank() != len(tile) {
			return nil, false
		}
		blocks := int64(1)
		for i, t := range tile {
			blocks *= ceilDiv(root.Shape.Dims[i], t)
		}
		if tf.blocks >= 0 && tf.blocks != blocks {
			return nil, false // roots tiled into different block counts
		}
		tf.blocks = blocks
		grouped, err := indexing.GroupedOutputToInput(root, 0)
		if err != nil {
			return nil, false
		}
		for in, maps := range grouped {
			for _, m := range maps {
				if m.IsUndefined() {
					return nil, false
				}
				ext, unit, ok := tileExtents(m, tile)
				if !ok {
					return nil, false
				}
				k := key{in, extKey(ext)}
				if seen[k] {
					continue
				}
				seen[k] = true
				padded := int64(1)
				for _, e := range ext {
					padded *= pow2Ceil(e)
				}
				tf.maxTile = max(tf.maxTile, padded)
				if in.Opcode == hlo.OpParameter {
					elems := int64(1)
					for i, e := range ext {
						elems *= min(e, in.Shape.Dims[i])
					}
					tf.reads = append(tf.reads, tileRead{param: in, elems: elems,
						rate: contiguousRate(&in.Shape, ext, unit, transaction)})
					continue
				}
				f := float64(blocks) * float64(padded) * tiledFlopsPerElement(c, in)
				if in.Opcode == hlo.OpDot || in.Opcode == hlo.OpScaledDot {
					tf.matrixFlops += f
				} else {
					tf.flops += f
				}
			}
		}
		rootExt := make([]int64, len(tile))
		unit := make([]bool, len(tile))
		for i, t := range tile {
			rootExt[i], unit[i] = t, true
		}
		tf.writes = append(tf.writes, arrayBytes(&root.Shape))
		tf.writeRates = append(tf.writeRates, contiguousRate(&root.Shape, rootExt, unit, transaction))
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

// tiledFlopsPerElement is XLA's flops per element of a tiled instruction:
// nothing for ops that only move or index data, the elementwise cost, a
// reduce's reducer applied (reduced elements - 1) times, else the cost
// analysis's flops over the output elements.
func tiledFlopsPerElement(c *Costs, in *hlo.Instruction) float64 {
	switch in.Opcode {
	case hlo.OpBitcast, hlo.OpBroadcast, hlo.OpConstant, hlo.OpDynamicSlice, hlo.OpDynamicUpdateSlice, hlo.OpGather, hlo.OpIota,
		hlo.OpPad, hlo.OpParameter, hlo.OpSlice, hlo.OpTranspose, hlo.OpTuple, hlo.OpReshape, hlo.OpGetTupleElement:
		return 0
	case hlo.OpReduce:
		if len(in.Operands) == 0 || len(in.Called) == 0 || in.Called[0] == nil {
			return 0
		}
		out := firstArray(&in.Shape).ElementCount()
		if out == 0 {
			return 0
		}
		factor := in.Operands[0].Shape.ElementCount() / out
		reducer := 0.0
		for _, r := range in.Called[0].Instructions {
			reducer += tiledFlopsPerElement(c, r)
		}
		return float64(factor-1) * reducer
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

// tiledEstimate is the roofline of a block-level fusion from its tiles, or
// nil when the fusion has no usable tiling (then the caller uses the
// per-element cost analysis).
func (m *Model) tiledEstimate(a *FusionAnalysis) *Estimate {
	d := &m.Device
	in := a.Fusion
	comp := fusedComputation(in)
	if comp == nil || !d.IsGPU() || hasConvolution(comp) {
		return nil
	}
	cfg, ok := readBlockLevelConfig(in)
	if !ok {
		return nil
	}
	tf, ok := tileFusion(m.Costs, comp, cfg, d.DRAMToL2TransactionBytes)
	if !ok {
		return nil
	}
	threads := cfg.warps * d.WarpSize
	e := &Estimate{Instr: in, Emitter: a.Emitter, Flops: tf.flops + tf.matrixFlops, MatrixUnit: tf.matrixFlops > 0,
		Launch: LaunchDims{Blocks: tf.blocks, ThreadsPerBlock: threads}}
	c := &InstructionCost{Flops: tf.flops + tf.matrixFlops, Operands: make([]OperandCost, len(in.Operands))}
	for k := range c.Operands {
		c.Operands[k].Operand = k
	}
	type acc struct {
		bytes int64
		rate  float64
	}
	perParam := map[int]*acc{}
	for _, r := range tf.reads {
		n := r.param.ParameterNumber
		if n < 0 || n >= len(in.Operands) {
			return nil
		}
		p := perParam[n]
		if p == nil {
			p = &acc{rate: 1}
			perParam[n] = p
		}
		p.bytes += tf.blocks * r.elems * max(bitsOf(&r.param.Shape)/8, 1)
		p.rate = math.Min(p.rate, r.rate)
	}
	read := 0.0
	for k, op := range in.Operands {
		p := perParam[k]
		rd := OperandRead{Operand: k, Coalesced: true, Rate: 1}
		if p != nil {
			size := ShapeBytes(&op.Shape)
			rd.Bytes, rd.NetBytes, rd.Rate = p.bytes, min(size, p.bytes), p.rate
			rd.Coalesced = p.rate >= 1
			rd.TimeUS = m.readTime(tf.blocks, rd.NetBytes, rd.Bytes, rd.Rate) * 1e6
			if size > 0 {
				c.Operands[k].Utilization = float64(p.bytes) / float64(size)
			}
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
	e.ComputeUS += tf.matrixFlops / d.MatrixPeak(matrixClass(in)) * 1e6
	e.MemoryUS = read + write
	e.combine(d)
	e.Coalescing = make([]OperandCoalescing, len(in.Operands))
	for k := range e.Coalescing {
		e.Coalescing[k] = OperandCoalescing{Operand: k, Coalesced: e.Reads[k].Coalesced,
			Reason: "block-level (Triton) tile: contiguous run over the DRAM->L2 transaction size"}
	}
	return e
}
