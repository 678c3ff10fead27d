// Command xla-diff is the Go half of `make xla-diff`: it sets what the
// hlo-opt command reports beside XLA's own compiles (see package
// cmd/internal/xladiff for the figures).
//
// Usage:
//
//	xla-diff -hlo-opt bin/hlo-opt [-results FILE] [-jobs N] [-q] DIR...
//
// Each DIR is one compile as testdata/xladiff/gen/xladiff.py writes it,
// named after its backend (tpu-v5e, tpu-v6e, tpu-v4, h100, cpu). The
// command runs hlo-opt on each, as a user would, prints the agreement table
// per backend and figure (unless -q) and writes every compile's outcomes
// as JSON to -results. The exit status is 0 when every compile was
// compared, whatever the agreement, and 1 when one could not be read.
package main
