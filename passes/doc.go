// Package passes is the pass framework of hlo-opt: passes declared as data,
// a registry, and a Pipeline that runs them over an *hlo.Module in parallel
// across computations with deterministic results. It also defines the first
// two passes, Verify and Stats. It knows nothing about what other passes do.
//
// # Declaring a pass
//
// A pass is a *Pass value, declared as a package-level variable by the
// package that implements it (as golang.org/x/tools/go/analysis declares
// an Analyzer):
//
//	var Pass = &passes.Pass{
//		Name:           "layout",
//		Doc:            "assign TPU tiled layouts to array shapes",
//		Requires:       []*passes.Pass{passes.Stats},
//		ResultType:     reflect.TypeFor[*Result](),
//		RunComputation: runComputation, // once per non-fusion computation
//		Run:            combine,        // once per module, after them
//		Transform:      true,           // may change the IR
//	}
//
// The name is valid in a flag and as a JSON key; the doc is one line with no
// trailing period. Validate (run by NewRegistry, NewPipeline and a test)
// rejects bad names and docs, duplicates and cycles in Requires
// (*CycleInRequiresError).
//
// A run function gets a *Unit: the module as read-only context, the
// computation to work on, the call graph, ResultOf for required passes,
// Part for per-computation results, a named zap logger and a context. It
// reports findings with Unit.Errorf (all are collected and the pass then
// fails) or by returning an error. Passes never do I/O: the driver prints.
//
// A consumer reads a prerequisite's typed result with
//
//	st := u.ResultOf(passes.Stats).(*passes.StatsResult)
//
// and a driver reads a result after the run with
//
//	st, ok := passes.ResultOf[*passes.StatsResult](results, passes.Stats)
//
// # Running passes
//
// NewPipeline(passes, Options{Jobs, Logger, NoVerify, AfterPass, Progress,
// Finished}) returns a Pipeline; Run(ctx, module) runs the passes in the
// order given.
// Before a pass runs, its Requires run (once: results are cached until a
// pass calls Unit.SetChanged, which invalidates them). A Transform that the
// requested analyses require runs before them all, up to the first
// requested Transform (the cost passes require the layout assignment, so
// "indexing,coalescing" lays out before indexing), and a requested analysis
// that a later change of the IR made stale runs again at the end: every
// result describes the final module. RunComputation is
// called for every non-fusion computation, fanned out over at most Jobs
// workers (largest computation first; callee before caller, from
// graph.CallGraph.NonFusionPostOrder, when a CalleesFirst pass waits for a
// computation's callees before running it). Consecutive requested analyses
// with a RunComputation whose Requires already ran share one fan-out, each
// computation getting the whole chain, as MLIR's pass manager runs a nested
// pipeline on one function before the next; Transform passes are barriers.
// Unit.Parallel fans out work of a pass's own inside a unit (see The jobs
// budget). Results and errors land in per-(pass, computation) slots, so
// output is byte-identical for any Jobs, and the errors of every
// computation are reported, in module order, as an ErrorList inside a
// *PassError. After a pass changed the IR, Verify runs and a failure reads
// `verify after pass "x": mod.hlo:3:5: main/add: ...`; unless NoVerify,
// Verify also runs on the input before the first pass, and an invalid
// input reads `invalid input (verify): ...`. A cancelled context
// stops the run between computations and passes.
//
// Results hold every result until the caller drops them, unless
// Options.Finished is set: the run then hands it each requested result as
// soon as no Transform is left to run, and drops each result at its last
// use (a requested one once handed over, a required one once no pass
// still to run requires it), so that the results of a long pipeline are
// not all live at once. hlo-opt writes the text reports that way
// (render.Spool): with every analysis on a large module, the layout pass
// then runs beside the module and its own data only.
//
// # Parallel work
//
// Every fan-out goes through one function: the caller of Run works, and
// up to Jobs-1 goroutines of an errgroup work beside it, taking
// computations from a shared counter and writing their results into
// per-computation slots; they return when the fan-out ends, so no
// goroutine outlives a call. Unit.Local gives each worker a value per pass
// for the fan-out, for what a pass reuses from one computation to the
// next. How the speed-up was measured is in the README's performance
// section.
//
// # The jobs budget
//
// One number bounds the goroutines of a run at every stage, hlo-opt's
// --jobs; each stage works in the calling goroutine plus helpers up to
// it, and its output is the same for any value:
//
//   - parsing: hlo.ParseOptions.Jobs (texts of 256 KiB and more);
//   - the passes: Options.Jobs. A run holds Jobs-1 helper tokens (no more
//     than GOMAXPROCS-1); the pipeline's fan-out over computations and a
//     pass's own fan-out inside a unit (Unit.Parallel: indexing's fused
//     computations, the cost passes' kernel chunks) take what is free
//     without waiting and give each token back when its helper runs out
//     of work, so at most Jobs goroutines work at once however fan-outs
//     nest;
//   - printing: hlo.PrintOptions.Jobs.
//
// The reports (text and JSON) are written by the calling goroutine, a
// computation at a time. Zero means runtime.GOMAXPROCS(0) everywhere, and
// 1 means sequential. A stage parallelizes with errgroup.SetLimit, never
// with goroutines that outlive it.
//
// # Reports: how a pass appears in hlo-opt's output
//
// hlo-opt prints results without knowing the passes. A result takes part by
// implementing any of these interfaces, each optional:
//
//   - TextReporter: WriteText(w, module) writes the text report (--format=text),
//     in XLA's own notation.
//   - ModuleReporter: ModuleReport() any is the module-level JSON value.
//   - ComputationReporter: ComputationReport(c) any is the JSON value inside
//     each computation's object (nil omits it).
//   - InstructionReporter: InstructionReport(in) any is the JSON value inside
//     each instruction's object (nil omits it).
//
// In JSON the field is always named after the pass ("layout", "indexing",
// "coalescing", "utilization", "cost", "stats", "verify"). render.WriteText and
// render.WriteJSON (package passes/render) write the requested passes in
// pipeline order; passes knows nothing of output formats. The JSON schema
// (--format=json) is:
//
//	{
//	  "module": "NAME",
//	  "entry": "COMPUTATION",            // only without ENTRY marker or when truncated (null: dropped)
//	  "truncated": {"computation": "X", "line": 2001, "col": 1, "entry_dropped": true}, // only when truncated
//	  "hlo": "HloModule ...",            // only with --emit=module or both
//	  "<pass>": <ModuleReport()>,         // per pass that has one
//	  "computations": [
//	    {
//	      "name": "COMPUTATION",
//	      "<pass>": <ComputationReport(c)>,
//	      "instructions": [
//	        {"name": "I", "opcode": "add", "shape": "f32[8]{0}", "<pass>": <InstructionReport(in)>}
//	      ]
//	    }
//	  ]
//	}
//
// Computations appear in module order (fusion computations included) and
// instructions in program order. Values must marshal deterministically
// (structs, slices, maps with string keys).
//
// # Registration
//
// Registration is explicit and has no global state: a driver builds a
// Registry from the pass values it offers, NewRegistry(passes.Verify,
// passes.Stats, layoutassign.Pass, ...). hlo-opt keeps that list in one
// sorted table in cmd/hlo-opt/registry.go; a new pass package adds one line
// there. Nothing registers itself in init, so importing a pass package has
// no side effects and an embedding driver chooses exactly what it offers.
package passes
