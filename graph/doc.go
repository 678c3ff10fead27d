// Package graph gives gonum views of an HLO module without copying it.
//
// DAG is the instruction graph of one computation as a gonum
// graph.Directed: a node is an instruction (its ID is the instruction's index
// in program order) and an edge runs from an operand to its user. Because a
// simple graph has one edge per ordered pair, the operand slots of an edge are
// kept beside the graph (Edge.Slots: add(x, x) is one edge with slots 0 and 1),
// and control-predecessor edges are marked with EdgeControl.
//
// CallGraph is the graph of computations: an edge runs from a caller to a
// callee and lists every call site with its CallKind (fusion, to_apply, while
// body or condition, conditional branch, call, async, custom call).
//
// Orders are deterministic: TopoOrder uses gonum's topo.SortStabilized with
// program order as the tie-break, PostOrder visits callees first in call-site
// order, and Levels groups nodes that can run in parallel. A cycle is an
// error (*CycleError) that names the instructions or computations on it.
//
// DOT renders either graph through gonum's encoding/dot; a computation's
// fusion instructions can be drawn with their fused computations as clusters.
//
// Views are snapshots: build a new one after changing the IR. They never
// change the IR and are safe for concurrent readers.
package graph
