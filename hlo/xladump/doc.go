// Package xladump reads what XLA writes with XLA_FLAGS=--xla_dump_to=DIR
// --xla_dump_hlo_as_text besides the HLO text of its modules: it finds the
// after-optimizations modules of a dump directory (Find) and the files
// XLA dumps beside each, and reads two of them, the buffer assignment
// (ParseBufferAssignment, "-buffer-assignment.txt") and the memory-usage
// report (ParseMemoryUsageReport, "-memory-usage-report.txt"), so that a
// tool can set its own figures beside XLA's.
//
// It also reads the compile directories the repository's generators write
// (testdata/groundtruth/gen, testdata/xladiff/gen: the file names
// BeforeOptimizations, AfterOptimizations, ...): compiled.memory_analysis()
// and compiled.cost_analysis() (ReadJSON of MemoryAnalysis, CostAnalysis),
// and LayoutTally sets the layouts of a module hlo-opt laid out beside
// XLA's after-optimizations module.
package xladump
