// Package indexing implements XLA's indexing maps: symbolic functions from
// the indices of one tensor to the indices of another, used to reason about
// coalescing, operand utilization and tiling.
//
// An [IndexingMap] such as
//
//	(d0, d1)[s0] -> (d0, d1 + s0), domain: d0 in [0, 9], d1 in [0, 19], s0 in [0, 3]
//
// maps dimension variables d_i (the indices of the source tensor), range
// variables s_i (indices that range over several values, e.g. a reduced
// dimension) and runtime variables rt_i (values known only at run time,
// e.g. a dynamic-slice offset) to result expressions ([Expr]), on a
// domain given by inclusive variable bounds ([Interval]) and constraints.
// Expressions are affine, as the analyses build them, or, as XLA allows in
// a map's text, non-affine: a product of variables or a division by one
// ([MulExpr], [FloorDivExpr]), which the simplifier keeps.
//
// Maps parse from and print to both of XLA's textual forms
// ([ParseIndexingMap], [IndexingMap.String], [IndexingMap.MultiLineString]),
// compose along a chain of operations ([Compose]) and simplify using the
// bounds of their variables ([IndexingMap.Simplify], [SimplifyLine]).
//
// On top of that arithmetic, the package gives HLO semantics (XLA's
// indexing_analysis): [ComputeOutputToInput] and [ComputeInputToOutput]
// return, for one instruction, a deduplicated set of maps per operand or
// result ([HloInstructionIndexing]) for every op with a defined indexing
// (elementwise, broadcast, bitcast, concatenate, convolution, dot,
// dynamic-slice, dynamic-update-slice, gather, scatter, pad, reduce,
// reduce-window, reshape, reverse, slice, transpose, tuple,
// get-tuple-element) and the undefined map for the others. Fusions compose
// the maps of their fused computation in reverse post-order from the root
// ([ComputeFusionOutputToInput], [ComputeFusedOutputToInputFrom],
// [ComputeFusionInputToOutput]). [PhysicalMap] and [LinearOffsetMap] map a
// logical index to its position in memory under a layout (with and
// without tiles), to compose with logical maps for coalescing.
//
// [Pass] is the "indexing" pass of hlo-opt: it attaches the maps of every
// instruction to the module and reports them as text (the document's
// notation, in "operand id = N" blocks) and JSON.
package indexing
