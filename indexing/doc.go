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
// e.g. a dynamic-slice offset) to affine result expressions ([Expr]), on a
// domain given by inclusive variable bounds ([Interval]) and constraints.
//
// Maps parse from and print to both of XLA's textual forms
// ([ParseIndexingMap], [IndexingMap.String], [IndexingMap.MultiLineString]),
// compose along a chain of operations ([Compose]) and simplify using the
// bounds of their variables ([IndexingMap.Simplify], [SimplifyLine]).
// This package is pure arithmetic: it does not depend on the HLO IR.
package indexing
