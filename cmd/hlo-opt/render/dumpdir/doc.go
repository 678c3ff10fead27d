// Package dumpdir summarises the modules of an XLA dump directory
// (hlo-opt [flags] DIR): one row per after-optimizations module with its
// peak, whether it fits the device, its estimated time and the buffer its
// layout pads most, and where hlo-opt's buffer assignment differs from the
// one XLA dumped beside the module (its buffer-assignment and
// memory-usage-report files). It writes the summary as a text table, as
// JSON, or as the HTML index page that links each module's Memory Viewer
// page.
//
// It sits above the analyses (it reads layoutassign's memory report and
// cost's estimate), under the command that runs them.
package dumpdir
