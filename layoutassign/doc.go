// Package layoutassign decides every array's layout for a target (TPU tiled
// layouts, or GPU/CPU major-to-minor ones) and reports, before anything
// runs, what each array and the whole program really cost in memory.
//
// It provides the "layout" pass (Pass, NewPass): Assign writes a layout
// into every array shape of the module, then AnalyzeMemory computes the
// memory report, printed like the TPU out-of-memory report (Result's
// WriteText) or as JSON (ModuleReport, InstructionReport). DescribeShape
// and WriteSVG answer "hlo-opt shape-info" for a single shape.
//
// # Layout assignment (Assign)
//
// Like XLA's layout assignment (xla/service/layout_assignment.cc), but in
// one module-wide pass over array values, each value being one array leaf
// of an instruction's result:
//
//  1. Fixed layouts. The entry computation's signature is fixed: the
//     module's entry_computation_layout when it matches the entry, else the
//     layouts stated on the entry parameters and the root. So are the
//     results of custom-calls with operand_layout_constraints (and those
//     operands), bitcasts and their operands (a bitcast's meaning depends on
//     both layouts), infeed, outfeed, send and recv; with KeepLayouts
//     (--keep-layouts) every stated layout. A fixed entry parameter keeps its
//     whole layout (tiles, memory space); other fixed values keep their
//     minor_to_major.
//  2. Equality classes (union-find). Values that must share a layout are
//     merged: an op that cannot change layout (elementwise ops, compare,
//     select, convert, concatenate, slice, pad, dynamic-slice and
//     -update-slice, reverse, sort, collectives, ...) with its operands of
//     the same rank; tuple and get-tuple-element with the leaves they alias;
//     a fusion's, call's or async computation's parameters with the
//     operands and its root with the result; a while's init, body and
//     condition parameters, body root and result; a conditional's branch
//     parameters with their operands and every branch root with the result;
//     the *-done half of an async pair with the start's output. When both
//     sides of a merge are already fixed to different layouts the merge is
//     refused and a copy is recorded on that operand (or on the callee's
//     root).
//  3. Propagation, both directions. Fixed classes are queued first; a
//     layout crosses a transpose (the one that makes it a bitcast), a
//     reshape (the layout under which the reshape is a bitcast: every group
//     of merged or split dims contiguous and in order, size-1 dims most
//     major), a reduce (operand to result, reduced dims dropped) and a
//     broadcast (result to operand), each reaching only classes that have
//     no layout yet. Then, instruction by instruction, the operand
//     preferences of dot (batch dims major, lhs contracting dim minor, rhs
//     [K,N] with N minor) and convolution (batch major, feature minor; the
//     kernel's output feature minor) are offered and propagated. Finally
//     every class still without a layout gets the default major-to-minor
//     (a constant its literal's stated layout), in program order, each
//     followed by propagation. On the TPU, when that default would put a
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
// rule's). The entry computation's peak comes from a liveness walk over its
// schedule (the text order when the module is_scheduled, else a
// deterministic topological order): parameters and outputs live throughout,
// aliases (get-tuple-element, tuple, bitcast, while, async done) share
// buffers, in-place ops (dynamic-update-slice, scatter, such fusions,
// custom-call output_to_operand_aliasing) reuse a dying operand's buffer,
// outputs in input_output_alias live in their parameter's buffer, and a
// while, call or conditional adds its callee's own peak. Suggest proposes a
// minor_to_major or a reshape that cuts the padding of the worst arrays.
package layoutassign
