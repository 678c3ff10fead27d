// Package cost estimates how XLA's GPU backend would run the kernels of an
// HLO module: which emitter each fusion gets, whether its reads are
// coalesced, how much of each operand it reads (operand utilization,
// bytes accessed), its flops, and a roofline time on a device model (on a
// TPU device, with the TPU's own rules); and it reproduces what XLA's
// compiled.cost_analysis() reports for a module compiled for the CPU, a GPU
// or a TPU (XLACost).
//
// # Pieces
//
//   - Devices: Preset ("h100", "h200", "a100", "tpu-v4", "tpu-v5e",
//     "tpu-v5p", "tpu-v6e", with the vendors' published figures cited in
//     Device.Sources) and ReadDevice for a JSON device file (optionally
//     "base": a preset).
//   - Emitters: AnalyzeFusion finds the roots and heroes of a fusion
//     (FindHero: XLA's FindNonTrivialHero) and picks the emitter from the
//     fused computation as HloFusionAnalysis::GetEmitterFusionKind does,
//     never from kind=. ReductionKind and TiledTranspose classify heroes.
//   - Launch and thread-id indexing: FusionAnalysis.Launch gives each
//     emitter's launch dimensions, unroll and vector size;
//     FusionAnalysis.ThreadMap and LoopThreadToOutput give its thread-id ->
//     tensor position map as an indexing.IndexingMap (loop, row, multi-row,
//     column and small-column reduction, tiled transpose).
//   - Coalescing: FusionAnalysis.Coalescing in Heuristic mode
//     (IsReadCoalescedHeuristic: minor-dimension transposes, fused
//     reductions) or Indexing mode: the thread map is composed with the
//     output-to-input maps of package indexing down to each operand and
//     with the operand's linear offset map, one warp is sampled and
//     IsIndexingCoalesced counts 128-byte transactions. Each verdict says
//     why (the stride found, or the rule that fired).
//   - Utilization: Costs.Of is GpuHloCostAnalysis with
//     count_multiple_input_accesses: per-operand utilization and bytes,
//     output and constant bytes, flops (3 per element for elementwise ops,
//     2 per FMA for dots and convolutions). Where XLA's GPU analysis
//     inherits HloCostAnalysis's rules (a fusion's output bytes, a tuple
//     parameter's reads, dot, convolution, sort, reduce and reduce-window
//     counts, shape sizes) it shares XLACost's code; XLACost is the one
//     HloCostAnalysis.
//   - Time, GPU: Model.Estimate is GpuPerformanceModel's roofline for the
//     loop, reduction, transpose and other native emitters: compute from
//     flops (FPU formula, or the matrix-unit peak for dots/convolutions),
//     DRAM reads derated by element bytes / 64 when uncoalesced, re-reads
//     from L2/L1, writes, launch overhead. Block-level (Triton) fusions,
//     kind=kCustom with "__triton", "__triton_nested_gemm_fusion" or the
//     older "__triton_gemm", follow GpuPerformanceModelWithIndexingAnalysis
//     (tiled.go): the output tiles of block_level_fusion_config (or
//     triton_gemm_config's block_m x block_n) are propagated through the
//     composed indexing maps of package indexing; each input tile is read
//     once per block (masked elements not read), every fused instruction
//     costs its flops per element over its padded tile, reductions over
//     their padded reduced dimensions; compute on num_warps*32 threads per
//     block. Their dots run in whole tiles and whole waves of one block
//     per SM, and with num_stages 1 the main loop's loads and multiplies
//     do not overlap (XLA's dot fusion cost model). Library calls (cuBLAS,
//     cuDNN) run at the matrix peak and write their whole result.
//     Collectives run as rings over the interconnect, copy-start as a DMA
//     (collective.go). EstimateModule sums the kernels, each loop body
//     times its known_trip_count, and ModuleEstimate.Report names the most
//     expensive and why.
//   - Time, TPU (tpu.go): a TPU kernel is one program on the TensorCore:
//     flops, transcendentals and bytes as the TPU's cost analysis counts
//     them (XLACost), the flops split between the MXU (matrix peak per
//     operand class) and the vector unit, memory as its operands (each
//     read once) and output at their tiled sizes over the HBM bandwidth,
//     the longer of the two; no emitters, threads, coalescing
//     or launch overhead (Estimate.Unit names MXU, vector, DMA or
//     collective).
//   - Flops: an Estimate reports its kernel's flops as XLA's
//     cost_analysis() counts them on the device's backend (XLACost's
//     rules; a library call XLA cannot cost keeps the model's count); the
//     compute time keeps the model's own weights.
//   - Backend: CompiledBackend tells the backend a module was compiled for
//     from its backend_configs, custom calls and tiles; a cost report for
//     a device of another kind says so (ModuleEstimate.Note, JSON
//     "compiled_for" and "note").
//   - Passes: CoalescingPass, UtilizationPass and CostPass ("coalescing",
//     "utilization", "cost"; text and JSON reports) require KernelsPass
//     ("gpu-kernels", the kernels and their cost analysis) and read their
//     Config from the pipeline's Options.Config under ConfigKey; hlo-opt
//     sets it from --device and --coalescing. KernelsPass requires
//     layoutassign.AssignPass ("layout-assign"), as XLA's GPU cost analysis
//     runs after layout assignment: every array the module states no layout
//     for gets one, and copies go where two stated layouts meet, before any
//     read is judged. It lays out for the layoutassign.Options under
//     layoutassign.ConfigKey (the TPU target without them);
//     Config.PipelineConfig sets both keys for the Config's device. hlo-opt
//     sets them from --device and --target; without either, a run of cost
//     passes alone lays out for a GPU. A dump after XLA's
//     optimizations states every layout and is not changed.
//   - compiled.cost_analysis(): XLACost (the "xla-cost" pass, XLACostPass)
//     is what XLA's cost analysis reports for a module compiled for the CPU,
//     a GPU or a TPU: per instruction and for the module, flops,
//     transcendentals, bytes accessed, the per-operand sums ("bytes
//     accessed{i}{}", "utilization{i}{}", "bytes accessedout{}") and, on a
//     TPU, optimal_seconds. It follows HloCostAnalysis
//     (xla/service/hlo_cost_analysis.cc) and, for the TPU, whose analysis
//     is libtpu's and closed, the rules measured from the TPU compiler's
//     own cost_analysis() of one-op-family probe programs
//     (testdata/xla-cost/gen/probes.py): every figure of all 73 probes on
//     v5e, v6e, v4 and the CPU agrees, and flops, transcendentals and bytes
//     accessed agree within 1% on every ground-truth compile
//     (testdata/groundtruth/xla-cost.golden). The GPU time model's flops
//     can be checked against it without the pipeline:
//     XLACost(m, XLATarget{Backend: XLAGPU}).Module.Flops.
//
// # Where xla-cost differs from XLA's cost_analysis(), and why
//
//   - XLA sums in float32; XLACost in float64, so totals past 2^24 differ
//     in the seventh digit.
//   - Only the whole-value keys are modelled ("bytes accessed0{}", not the
//     per-tuple-element "bytes accessedout{1}").
//   - A while loop counts its body and condition once, also with a known
//     trip count, as the compiled cost_analysis() of the CPU, the GPU and
//     the TPU does (probes fori_loop, scan; the ground truth's scans).
//   - A tuple-shaped result writes its arrays; a tuple's index table is
//     counted where XLA counts it (tuple instructions, tuple operands): 4
//     bytes per element on the CPU, 8 on a GPU, 4 in 512-byte units on a
//     TPU (32 on v6e), as today's compiled programs report them. XLA's own
//     unit test of a variadic reduce-window, run with XLA's default sizes,
//     expects the table for its result instead.
//   - TPU sizes are the tiled, padded sizes of the layouts; an untiled
//     scalar (a DMA semaphore u32[]{:S(2)}) counts 4096 bytes, as measured.
//   - TPU custom calls: TopK (and TopKBatchMajorSmallK, a small k along
//     the minor dim) costs its input's elements times k flops,
//     AssumeGatherIndicesInBound its default bytes and no flops,
//     AllocateBuffer nothing; every other custom call is -1, XLA's unknown,
//     on every backend, summed like any figure as XLA sums it.
//   - TPU gather and scatter (plain, or a custom fusion around one) read and
//     write whole tiles: each window (a gathered row) costs the tiles of
//     the operand's layout it touches, 8 rows of a (8,128)-tiled table for
//     one row; the scatter's combiner utilizations are multiplied by its
//     update count, as the TPU's analysis does.
//   - optimal_seconds is the slowest of bytes accessed, flops and
//     transcendentals at the chip's rates, summed over instructions (loops
//     and calls sum their computations', custom calls add -1). The rates
//     are measured for tpu-v5e, tpu-v6e and tpu-v4 only (other TPUs get
//     none); on v6e a loop's comes out 1.5e-5 short of XLA's.
//   - A ragged dot is costed as a dot over its whole output; a module
//     that states no layouts is costed after layout assignment (XLA costs
//     only laid-out modules).
//
// # Where this differs from XLA, and why
//
//   - Elementwise flops use XLA's default of 3 per element; XLA refines
//     them with measured per-GPU op profiles (hlo_op_profiles), which are
//     data this package does not carry.
//   - Coalescing: the scatter, in-place dynamic-update-slice and
//     input-slices emitters have no thread-id map for some operand in XLA
//     either, so their fusions fall back to the heuristic there too. The
//     concatenate emitter does have one in XLA (the loop map over the
//     largest operand, for every operand); it is not modelled here, and
//     those fusions fall back as well. The reason says so in each case. Multi-output loop
//     fusions whose roots differ in shape also fall back for the operands
//     those roots read.
//   - The transpose emitter is modelled with 32x32 tiles of 8 rows
//     (vectorised when XLA's occupancy rule allows), without the "packed"
//     variant for small types.
//   - Emitter selection follows the copies of hlo_fusion_analysis.cc and
//     ir_emission_utils.cc described in SEMANTICS (a.7): tiled transposes
//     are 021 or 210 after normalisation with XLA's size thresholds
//     (16, or 8 with a product of 8192); a transpose keeping the minor
//     dimension uses the loop emitter. Custom, Triton and cuDNN fusions are
//     recognised from backend_config and get XLA's fallback launch.
//   - A broadcast's operand bytes are its output element count and a
//     reduce-window's instruction total keeps the default, as XLA's
//     HloCostAnalysis does (quirks kept so that numbers match XLA).
//   - The fused concatenate's operand utilization (round up to 32 per
//     operand in one copy of gpu_hlo_cost_analysis.cc) is not applied; the
//     400-flops-per-element penalty for a non-minor unaligned concat is.
//   - Convolution flops count the taps that hit real input elements, as
//     XLA's GetConvolutionFlops does.
//   - The time model covers one kernel at a time; fusion decisions
//     (producer/consumer estimates) are not modelled.
//   - A kernel reads an operand element at most once per element it
//     computes: GpuHloCostAnalysis counts every access of every fused
//     instruction (a scalar broadcast into a reduction is read once per
//     reduced element, XLA's own FractionalUseRoundingUp test expects 10 reads of a
//     scalar for 2 outputs); the time model caps the reads there (a value
//     read twice for one output is in a register), the utilization pass
//     keeps XLA's counts.
//   - Block-level fusions: XLA deduplicates tiled instructions by their
//     tile offsets map; here by instruction and tile extents. Tiles are
//     propagated through our indexing maps, not XLA's SymbolicTileAnalysis
//     (whose constraints can reject a tiling these maps accept). The
//     newest XLA's dot cost model also charges a 1.8 us latency per
//     iteration of the K loop, an L2 time and a measured H100 bandwidth
//     table; they are not modelled (wave quantization and num_stages are).
//     XLA's tiny-tile derate (tile M < 64 on Hopper) is not applied.
//   - A fusion whose emitter would compute a reduction over and over (a
//     non-hero reduce whose result the fusion reads more than once, a
//     reduce-window whose window spans a dimension) is estimated as the
//     block-level fusion today's XLA makes of it, with the tiling XLA's
//     indexing model finds fastest among power-of-two tiles that fit the
//     registers (at most 4096 tried); a loop fusion like that would run
//     (XLA no longer emits one) re-reads a row per output element. A
//     reduction that is not race free is estimated as the two kernels
//     XLA's tree reduction rewriter splits it into; XLA's compiled modules
//     have none.
//   - Collectives: a ring over the device's interconnect (NVLink, ICI),
//     one direction, without XLA's per-GPU collective tables or latency
//     model; one device is a copy in memory.
//   - TPU: the TPU compiler's cost model is not public. Its optimal_seconds
//     on the ground-truth compiles is bytes accessed / 687 GiB/s on a v5e
//     (1638 GB/s on a v6e), which the presets take as HBM bandwidth, and it
//     counts arrays in VMEM (S(1)) like HBM ones, as this model does. It
//     differs where XLA counts a copy-done as another copy, a gather as
//     reading its whole operand, an f32 HIGHEST convolution at the bf16
//     rate (here six bf16 passes) and int8 at the bf16 rate (here the
//     published int8 peak). The vector unit's rate (2048 ALUs per
//     TensorCore) and the MXU clock are derived from published figures.
package cost
