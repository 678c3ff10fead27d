// Command hlo-opt parses XLA HLO text, runs analysis passes over it and
// prints the module and the passes' reports.
//
// Usage:
//
//	hlo-opt [flags] FILE|-
//	hlo-opt --passes=stats,verify mod.hlo
//	hlo-opt --list-passes
//	hlo-opt --format=dot [--computation NAME] mod.hlo | dot -Tsvg > g.svg
//
// Without --passes it prints the module in XLA's canonical text form
// (--print=short for the short form, --elide-large-constants to shorten
// literals). "-" reads stdin; -o FILE writes atomically (a temporary file
// renamed into place; nothing is written on error). --split-input-file
// treats each "// -----" separated chunk as its own module and joins the
// outputs with the same separator (with --format=json: a JSON array).
//
// Output: --format=text (XLA notation, for people), json (the schema
// documented in package passes: {"module", "computations": [{"name",
// "instructions": [{"name", "opcode", "shape", "<pass>": ...}]}]}, one field
// per pass named after it) or dot (the call graph, or with --computation one
// computation's instruction graph with fusions as clusters). --emit selects
// module, report or both; the default is the module without --passes and
// the report with them.
//
// Diagnostics: --timing prints each pass's wall time on stderr; --dump-dir D
// writes the module before the passes (D/00-input.hlo) and after each pass
// (D/NN-pass.hlo); --log-level and --log-format configure zap logging on
// stderr; a progress line is drawn on stderr for long runs when it is a
// terminal. --jobs bounds the goroutines at work at once in parsing, the
// passes, printing and rendering (the passes package doc, "The jobs
// budget"; the output does not depend on it); --verify=false skips
// verifying the module after passes that changed it.
//
// The GPU cost passes (coalescing, utilization, cost) read --device (a
// preset: h100, h200, a100, tpu-v5e, tpu-v5p, or a JSON device file, see
// cost.ReadDevice) and --coalescing (indexing, the default for the
// coalescing pass, or heuristic, which the cost estimate always uses as
// XLA's performance model does).
//
// The xla-cost pass reports what compiled.cost_analysis() returns (flops,
// transcendentals, bytes accessed; optimal_seconds on a TPU) for the
// backend --device or --target names (cpu, gpu, tpu, tpu-v5e, tpu-v6e,
// tpu-v4, h100, ...); without either it infers the backend from the
// module and says which it assumed.
//
// Exit status: 0 ok, 1 failure (parse error, unknown pass, pass or verifier
// error; messages on stderr as FILE:LINE:COL: ...), 2 usage.
//
// Passes are listed in registry.go, one line each. Subcommands ("hlo-opt
// VERB ...") are one file each that calls register from its init function.
package main
