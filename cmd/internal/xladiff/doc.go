// Package xladiff sets what the hlo-opt command reports beside what XLA
// itself computed for the same compile: the differential tester behind
// `make xla-diff` (testdata/xladiff/gen drives XLA; cmd/xla-diff runs the
// comparison) and the reproducers under testdata/xladiff that
// cmd/hlo-opt's tests replay.
//
// A compile is a directory as testdata/groundtruth/gen/generate.py writes
// it (before_optimizations.txt, after_optimizations.txt,
// buffer-assignment.txt, memory_analysis.json, cost_analysis.json) for one
// Backend. Compare runs hlo-opt on it as a user would, through a Runner
// (the built command, or cmd/hlo-opt's Main in its tests), with the
// backend's --device (--target=cpu for the CPU) and default flags, and
// returns one Outcome per Figure: the modules parse, verify and print back
// byte for byte; the memory report's arguments, outputs, aliased and
// temporary bytes and xla_peak_memory_bytes against compiled.memory_analysis();
// every value of XLA's buffer assignment against the report's size of that
// array or tuple table, and XLA's allocation classes against the report's
// buffer_assignment stats; on the TPU the layouts `--relayout` assigns to
// the before-optimizations module against XLA's after optimizations (its
// memory-space assignment aside); and, where the command offers the
// xla-cost pass, its flops against compiled.cost_analysis(). Tally and
// WriteTable sum the outcomes per backend and figure.
//
// XLA's files are read with hlo/xladump, as the ground-truth tests of
// layoutassign read them (through hlo/hlotest/groundtruth).
package xladiff
