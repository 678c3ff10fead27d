// Package hlo is the in-memory IR of an XLA HLO module, with a parser and a
// printer for XLA's HLO text format and the shape arithmetic of tiled layouts.
//
// A Module holds Computations; a Computation holds Instructions in program
// order and names its root. Shapes carry their Layout (minor_to_major, tiles,
// element size, memory space) exactly as XLA prints them, so that a parsed
// module prints back without loss. Attributes that analyses read are typed;
// the rest are kept verbatim.
//
// Parsing (ParseFile, Parse, ParseShape, ParseLayout) is a byte-level
// scanner that reads the caller's bytes in place (they must not change
// while the parse runs) and copies only the strings the module keeps (names,
// verbatim values, literals) into per-worker arenas, so a parsed module
// never aliases its input; shapes, layouts and instructions come from
// arenas too.
// Array shapes written with the same text share their Dims, Dynamic and
// Layout: treat the shapes of a parsed module as read-only and Clone one
// before changing it in place (assigning a new Shape or Layout is fine).
// The text after the header is first cut into computations by a fast
// prescan; large texts have their computations parsed concurrently, then
// called computations are resolved by name. Errors are an ErrorList of
// "FILE:LINE:COL: expected X, found Y". A text that ends inside its last
// computation (truncated dumps) keeps the computations complete so far and
// sets Module.Truncated. SplitInputFile and JoinOutputs implement
// --split-input-file.
//
// Printing (Module.String, Module.Print) writes XLA's HloModule::ToString
// form, or its short parsable form; printing the parse of printed text gives
// the same bytes.
//
// The package imports no other package of this project.
package hlo
