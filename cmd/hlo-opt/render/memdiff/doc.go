// Package memdiff says what changed in memory and in cost from one compile
// of a program to another (hlo-opt diff A B): XLA's peak and the HBM peak,
// each allocation class of each memory space, the buffers that grew or
// appeared, the estimated time and the kernels added, removed or slower.
// Compare diffs two modules; Report holds the diffs of two inputs (two
// modules, or the modules of two dump directories paired by name) and
// writes them as text, JSON or a self-contained HTML page.
//
// It sits above the analyses (it reads layoutassign's memory report and
// cost's estimate), under the command that runs them.
package memdiff
