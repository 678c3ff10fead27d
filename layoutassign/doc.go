// Package layoutassign decides every array's layout for a target (TPU tiled
// layouts, or GPU/CPU major-to-minor ones) and reports, before anything
// runs, what each array and the whole program really cost in memory.
//
// It provides two passes, configured by the Options the pipeline's
// Options.Config holds under ConfigKey: "layout-assign" (AssignPass, a
// transform) in which Assign writes a layout into every array shape of the
// module, and "layout" (Pass), which requires it and in which
// AnalyzeMemory computes the memory report, printed like the TPU
// out-of-memory report (Result's WriteText) or as JSON (ModuleReport,
// InstructionReport). DescribeShape and WriteSVG answer "hlo-opt
// shape-info" for a single shape.
//
// # Layout assignment (Assign)
//
// Like XLA's layout assignment (xla/service/layout_assignment.cc), but in
// one module-wide pass over array values, each value being one array leaf
// of an instruction's result:
//
//  1. Fixed layouts. The results of custom-calls with
//     operand_layout_constraints (and those operands), bitcasts and their
//     operands (a bitcast's meaning depends on both layouts), infeed,
//     outfeed, send and recv are fixed; and, unless
//     Options.Relayout (hlo-opt --relayout), every layout the text states,
//     so that a dump after optimizations keeps the layouts it runs with and
//     only missing ones are assigned. Fixed values keep their
//     minor_to_major, and their tiles when stated (in a module with tiles
//     anywhere, a stated layout without tiles stays untiled, as XLA's TPU
//     scalars in S(2) are). The entry computation's signature (the module's
//     entry_computation_layout when it matches the entry, else the layouts
//     stated on the entry parameters and the root) comes after step 2, as
//     XLA's constraints rank it: the result first (XLA propagates the
//     entry result's constraint back to the values it returns before the
//     parameters' constraints, which then fail to displace it: libtpu's
//     layout_assignment log, "Negotiating fail"), a root tuple's last
//     element first (the constraint sets each element's buffer, and its
//     worklist takes the last one set first), then the entry
//     parameters: a parameter keeps its whole layout (tiles, memory
//     space), and the class it reaches takes it unless something else
//     fixed the class (then the parameter is copied for those users), the
//     last parameter first (XLA's worklist takes the last constraint added
//     first), the update of a dynamic-update-slice or scatter last.
//  2. Equality classes (union-find). Values that must share a layout are
//     merged: an op that cannot change layout (elementwise ops, compare,
//     select, convert, concatenate, slice, pad, dynamic-slice and
//     -update-slice, reverse, sort, collectives, ...) with its operands of
//     the same rank (on the TPU also a gather of one slice shaped like its
//     result, which XLA turns into a dynamic-slice before laying out); tuple and get-tuple-element with the leaves they alias;
//     a fusion's, call's or async computation's parameters with the
//     operands and its root with the result; a while's init (on the TPU
//     not: see below), body and condition parameters, body root and
//     result; a conditional's branch
//     parameters with their operands and every branch root with the result;
//     the *-done half of an async pair with the start's output. When both
//     sides of a merge are already fixed to different layouts the merge is
//     refused and a copy is recorded on that operand (or on the callee's
//     root); inside a fused computation no copy is recorded: XLA lays out
//     no fused computation, and its emitters read each operand of a fused
//     instruction through that operand's own layout.
//  3. Propagation, both directions. Fixed classes are queued first; a
//     layout crosses a transpose (the one that makes it a bitcast), a
//     reshape (the layout under which the reshape is a bitcast: every group
//     of merged or split dims contiguous and in order, size-1 dims most
//     major), a reduce (operand to result, reduced dims dropped) and a
//     broadcast (result to operand), each reaching only classes that have
//     no layout yet. Then, instruction by instruction, the operand
//     preferences of dot (batch dims major, lhs contracting dim minor, rhs
//     [K,N] with N minor) and, off the TPU, convolution (batch major,
//     feature minor; the kernel's output feature minor) are offered and
//     propagated. (On the TPU a convolution's layouts are required, as
//     its layout assignment's log shows: the result fixed with step 1, the
//     operands with the entry signature, a conflicting operand copied;
//     spatial dims most major, then batch and feature, the larger one
//     minor, the kernel's input and output feature likewise; a dot's
//     result is required likewise: batch dims major, the largest lhs and
//     rhs free dims minor, the one that pads less most minor; and a
//     gather's operand, with the entry signature, the dims its indices
//     address most major, no concatenate pin displacing it.) Finally
//     every class still without a layout gets the default major-to-minor
//     (a constant its literal's stated layout), in program order, each
//     followed by propagation. On the TPU a while loop's state is a class
//     of its own: XLA carries a layout forward only to the users of an
//     array, never through the tuple that gathers a loop's init, so the
//     state takes its layout from the loop's users (an entry output read
//     through get-tuple-element), then from its init when nothing else
//     laid it out; the state's layout reaches back to an init without
//     one, and an init in another layout is copied into the loop. On the TPU, when that default would put a
//     size-1 dim among the two most minor (tiled) dims, every size-1 dim
//     moves most major instead, in logical order, the other dims following
//     in logical order: f32[1,128,1,64] {3,1,2,0}, bf16[512,1] {0,1}.
//     Evidence: of the results in the TPU dumps of the corpus (maxtext)
//     whose default would tile a size-1 dim, 156 have exactly this layout,
//     none the plain default (56 have transposed layouts their producers
//     set); where the size-1 dims are not tiled (bf16[4,1,128,4096]) 25
//     keep the default and 6 differ only in where the size-1 dims sit,
//     which does not change the bytes.
//  4. Writing. Every array gets its class's minor_to_major and the target's
//     tiles (ChooseTiling, rules below), keeping any memory space S(n)
//     stated in the text; fixed entry parameters keep their stated tiles,
//     and values aliasing their buffers (tuple elements, get-tuple-elements,
//     callee parameters, call results) take the same tiles. Recorded copies
//     become "copy.layout.N" instructions in device memory, one per copied
//     value and layout, placed before the first user (or appended as the
//     new root). The entry_computation_layout header is rewritten to match.
//     Transposes and reshapes are classified as free (bitcasts under the
//     chosen layouts, tiles included: the tiles must agree and merged rows
//     must be whole tile rows) or costly.
//
// On the TPU a second pass follows where the first leaves a concatenate at
// risk, as XLA's TPU layout assignment runs again with such concatenates
// pinned (its log, TPU_VMODULE=tpu_layout_assignment=3, lists them): a
// concatenate whose layout pads it more than twice as much, counted in
// (8,128) tiles, as the layout that pads it least (ties: the larger
// second-minor dim, then the larger minor_to_major) is pinned to that
// layout (in a class an entry parameter reached, both measured in the
// parameter's tile, which XLA propagates with its layout; a class a sort
// reads keeps the sort's layout, which XLA restores in further passes),
// the smallest such per class (the first step of an associative
// scan's interleaving, whose pin XLA's result shows spread over the scan's
// slices, pads and adds: f32[33,9,24,4] scanned along dim 0 from a
// parameter in {0,3,2,1} gets {2,3,1,0}); the results of while loops and
// conditionals keep their first-pass layouts (XLA lays a callee out before
// its caller), and what meets the pinned class in another layout is
// copied. The second pass also pins the reshapes the first pass left in
// layouts that do not make them a bitcast of the data (XLA's TPU lists
// them as incompatible): the operand keeps its layout and the result takes
// the one aligned with it, or, with none aligned, the operand is copied to
// major-to-minor and the result is major-to-minor, its size-1 dims most
// major; reshapes that only insert or delete size-1 dims, and results in
// the default layout, stay. It pins likewise every scatter not in the
// layout the TPU scatters in: the operand dims its indices address most
// major, the others in the default order unless another pads them less
// (f32[16,7] scattered by rows {1,0}, f32[3,9,4,4] {1,3,2,0}); what meets
// the scatter in another layout (its operand, its users) is copied.
// And it pins each reduce whose result is not in its operand's layout with
// the reduced dims dropped (XLA's "reduces with incompatible layouts") to
// that layout, after an array root's layout but ahead of a root tuple's
// elements and the parameters.
//
// The result re-parses and is a fixed point: running Assign again changes
// nothing (tested on every corpus module).
//
// # Fidelity to XLA
//
// TestLayoutFidelity strips the layouts of the corpus's TPU
// after-optimizations dumps (maxtext llama3-8b, deepseek3) down to what the
// algorithm treats as fixed, reruns Assign and compares with XLA's choice.
// With only the parser's entry and bitcasts fixed, minor_to_major agrees
// on 95.0% (llama3) and 96.2% (deepseek3) of the rank >= 2 arrays, and on
// 100% when the callers' operand layouts (fusion parameters) are given;
// tiles agree wherever minor_to_major does, except XLA's untiled scalars
// in memory space S(2).
//
// # Tiling rules (ChooseTiling; each Rule names its source)
//
// With p = 32/bits elements packed in a 32-bit word (p = 1 for 32-bit
// types):
//
//   - rank 0: T(128*p) (f32[] T(128), bf16[] T(256), pred[] T(512));
//   - rank 1: T(rows*128), followed by (128)(p,1) for packed types, rows
//     the smallest power of two from p that reaches ceil(n/128), capped at
//     max(8,p) (f32[4096] T(1024), bf16[128] T(256)(128)(2,1));
//   - rank >= 2: (rows,128) over the two most minor physical dims, followed
//     by (p,1) for packed types, rows growing from p by doubling until it
//     covers the second-minor dim, capped at max(8,p): 32-bit 1,2,4,8;
//     16-bit 2,4,8; 8-bit 4,8; sub-byte p (with E(bits)). These are the
//     "compact 2nd minor" (1x128, 2x128, 4x128), 8x128, (8,128)(2,1) and
//     (8,128)(4,1) formats of tiled-layout.md, with XLA TPU's (1,128) for a
//     32-bit second-minor dim of 1 as the corpus shows;
//   - PRED is tiled as an integer of the target's PRED size (1 byte by
//     default, as in the corpus: (8,128)(4,1)); 4-byte PRED as 32-bit; the
//     proposed packed form is (32,128)(32,1) with E(1);
//   - GPU and CPU: no tiles; sub-byte types get E(bits).
//
// # Memory report (AnalyzeMemory)
//
// Every array value's padded and unpadded bytes, expansion and the rule
// behind its tiles (RuleFromLayout when the stated tiles differ from the
// rule's), then the entry computation's buffer assignment as XLA's
// BufferAssigner computes it (see AnalyzeMemory for the rules it follows:
// HloDataflowAnalysis and HloAliasAnalysis for values and buffers,
// HloLiveRange for the flattened schedule and live ranges, MaybeAssignBuffer
// for reusing allocations, HeapSimulator and the two best-fit heaps for
// temporaries, CombineTempAllocations for the temp allocation).
//
// The report gives XLA's BufferAssignment stats classes (parameter,
// constant, maybe_live_out, preallocated temp and its fragmentation,
// thread-local, total), so that its figures can be set beside XLA's
// out-of-memory message line by line; then, per memory space (S(0) HBM,
// S(1) VMEM, S(5) host, other S(n)), the terms of XLA's memory_analysis()
// (arguments, outputs, aliased, temporaries), the peak and what lives at
// it, largest first; then the HBM headline, the suggestions and, with a
// device (Target.Device, hlo-opt --device), the verdict against its HBM
// capacity: "Fits: 12.30GiB of 16.00GiB HBM (77%)" or "Exceeds HBM
// capacity by 4.10GiB", naming the largest allocations live at the peak.
// Bytes are printed as XLA prints them (passes.FormatBytes), tuple shapes
// abbreviated ("(s32[], bf16[2,8192,8192], ... 47 more)"). The JSON fields
// and what each means in XLA's terms are listed in report_json.go; they
// are stable.
//
// How it is known: testdata/groundtruth holds XLA's own buffer
// assignment and memory_analysis() of real compiles; TestMemoryAgainstXLA
// sets the report's figures beside them (the 46 H100 compiles: every
// figure equal), and the cases of XLA's buffer-assignment, heap-simulator
// and live-range tests are ported with their expected numbers
// (xla_cases_data_test.go: 37 of 39 agree, the other two explained).
// Known differences on the TPU (v5e dumps): XLA's memory_analysis()
// reports a temp size of 0 there; its HBM heap placed the small
// temporaries of transformer_fwd without reuse, and its VMEM heap came
// out 9% larger than the best-fit heaps here.
//
// A truncated text that lost its entry computation (hlo.ParseOptions
// AllowTruncated) has no entry peak: each computation no other one calls
// is analysed as if it were the entry, and the report says so.
//
// Suggest proposes a minor_to_major or a reshape that cuts the padding of
// an array; the report's suggestions are measured against each array's
// size as the module lays it out, and only name a layout other than its
// own.
package layoutassign
