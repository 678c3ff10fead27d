// Package groundtruth reads the XLA compiles committed under
// testdata/groundtruth/<program>/<backend>/<size>/ (made by
// testdata/groundtruth/gen/generate.py, and by measure_gpu.py for the
// h100-measured backend), so that the tests of layoutassign and cost can
// set their numbers beside XLA's own.
//
// Cases lists the compiles; a Case reads its HLO modules (Module), XLA's
// buffer assignment (BufferAssignment, parsed by xladump.ParseBufferAssignment
// from the "-buffer-assignment.txt" dump), compiled.memory_analysis()
// (MemoryAnalysis) and compiled.cost_analysis() (CostAnalysis);
// BufferAssignment.Stats sums XLA's allocations by class, and LayoutTally
// sets the layouts of a module hlo-opt laid out beside XLA's (these types
// are package xladump's, which the xla-diff command reads them with). Golden
// writes or checks the tables the comparisons print. It is test support:
// it fails the test on unreadable data rather than returning errors.
package groundtruth
