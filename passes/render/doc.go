// Package render writes the results of a pipeline run as hlo-opt prints
// them: the text reports of the passes in pipeline order (WriteText) and
// one JSON document of the module, its computations and instructions with
// each pass's values (WriteJSON); a Spool holds the text reports written
// as each pass ends (passes.Options.Finished), so that the run need not
// keep the results until the output is written. It knows no pass: a
// result takes part by implementing the reporter interfaces of package
// passes. Views that know an analysis's types (the Memory Viewer page, the
// diff of two runs) live above the analyses, under cmd/hlo-opt/render.
package render
