// Package xladump reads what XLA writes with XLA_FLAGS=--xla_dump_to=DIR
// --xla_dump_hlo_as_text besides the HLO text of its modules: it finds the
// after-optimizations modules of a dump directory (Find) and the files
// XLA dumps beside each, and reads two of them, the buffer assignment
// (ParseBufferAssignment, "-buffer-assignment.txt") and the memory-usage
// report (ParseMemoryUsageReport, "-memory-usage-report.txt"), so that a
// tool can set its own figures beside XLA's.
package xladump
