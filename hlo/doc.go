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
// sets Module.Truncated. SplitInputFile (ReadChunks as the text is read)
// and JoinOutputs implement --split-input-file.
//
// Printing (Module.String, Module.Print) writes XLA's HloModule::ToString
// form, or its short parsable form; printing the parse of printed text gives
// the same bytes.
//
// Today's XLA spells two things differently from the XLA of before 2025,
// and a module prints back the way it was read (Module.Spelling): operands
// by name only ("add(%x, %y)") instead of with their shapes, and element k
// of a tuple-shaped instruction t as the operand "%t#k" instead of a
// get-tuple-element instruction. The IR holds "%t#k" as an ordinary
// get-tuple-element marked Implicit: one per tuple and index in a
// computation, just before its first user, named "t_k" as XLA's own parser
// names it, so every analysis sees the graph the long spelling gives and
// needs to know nothing about the short one. The printer writes it back as
// "%t#k"; PrintOptions.Classic prints the long spelling. SYNTAX.md lists
// every construct of XLA's text and what the parser does with it;
// XLAVersion names the XLA followed, and an opcode or attribute newer than
// that is refused with an error that says so.
//
// The package imports no other package of this project.
package hlo
