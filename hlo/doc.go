// Package hlo is the in-memory IR of an XLA HLO module, with a parser and a
// printer for XLA's HLO text format and the shape arithmetic of tiled layouts.
//
// A Module holds Computations; a Computation holds Instructions in program
// order and names its root. Shapes carry their Layout (minor_to_major, tiles,
// element size, memory space) exactly as XLA prints them, so that a parsed
// module prints back without loss. Attributes that analyses read are typed;
// the rest are kept verbatim.
//
// The package imports no other package of this project.
package hlo
