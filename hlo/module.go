package hlo

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
)

// Opcode is an HLO opcode as XLA spells it in text: "add", "fusion",
// "get-tuple-element", "all-reduce-start".
type Opcode string

// Attribute is one "name=value" attribute of an instruction, computation or
// module, with its value kept verbatim as it appeared in the text (after
// normalisation of names). Typed views of the attributes analyses read are
// provided by accessor methods.
type Attribute struct {
	Name  string
	Value string
}

// Module is a parsed HLO module.
type Module struct {
	Name string
	// Attrs are the header attributes after the module name, in order
	// (is_scheduled, input_output_alias, entry_computation_layout, ...),
	// kept verbatim.
	Attrs []Attribute
	// Computations in text order; callees may come after their callers.
	Computations []*Computation
	// Entry is the ENTRY computation (the last one when none is marked).
	Entry *Computation
	// Source is the file name the module was parsed from, for messages.
	Source string
	// Tables are the stack-frame tables XLA prints after the header
	// (FileNames, FunctionNames, FileLocations, StackFrames), verbatim.
	Tables []Table
	// Truncated, when not nil, says that the text ended inside a
	// computation (a truncated dump, parsed with
	// ParseOptions.AllowTruncated): that computation was dropped and the
	// complete ones make the module.
	Truncated *Truncation
	// ImpliedEntry reports that no computation was marked ENTRY: Entry is
	// the last computation, as XLA reads such a text.
	ImpliedEntry bool
	// Spelling is how the text spelled operands; the printer writes them
	// the same way.
	Spelling Spelling
	// BlankEnd reports that the text ended with a blank line, as
	// XLA's HloModule::ToString does; the printer ends the same way.
	BlankEnd bool
	// textLen is the length of the text the module was parsed from (0
	// for one built otherwise), about the length of its printed text.
	textLen int
	// entryLayout is the entry_computation_layout last parsed.
	entryLayout atomic.Pointer[entryLayout]
}

// Truncation is what a truncated text lost: the computation it ends in.
type Truncation struct {
	// Computation is the dropped computation's name ("" when the text ends
	// before it).
	Computation string
	// Pos is where the text ends.
	Pos Pos
	// Entry reports that the dropped computation is the entry: it was
	// marked ENTRY, or none of the complete ones is, and by XLA's rule the
	// last computation, the dropped one, is the entry. Module.Entry is nil
	// then.
	Entry bool
}

// String describes the truncation in one line:
// `text ends at 2001:1 inside computation "X" (the entry computation), which was dropped`.
func (t *Truncation) String() string {
	s := fmt.Sprintf("text ends at %d:%d inside computation %q", t.Pos.Line, t.Pos.Col, t.Computation)
	if t.Entry {
		s += " (the entry computation)"
	}
	return s + ", which was dropped"
}

// Spelling is how a module's text wrote what XLA has printed two ways over
// time; the printer writes a module back the way it was read (see SYNTAX.md).
type Spelling uint8

const (
	// SpellingClassic writes operands with their shapes,
	// "add(f32[2]{0} %x, f32[2]{0} %y)", as XLA printed until 2025; it is
	// also how hlo-opt prints hand-written text (names without '%') and
	// modules built in memory.
	SpellingClassic Spelling = iota
	// SpellingToday writes operands by name only, "add(%x, %y)", as XLA
	// has printed since 2025.
	SpellingToday
)

// Table is one of the origin tables XLA prints after the module header,
// such as "FileNames" followed by lines `1 "file.py"`.
type Table struct {
	Name    string
	Entries []TableEntry
}

// TableEntry is one `ID VALUE` line of a Table; Value is verbatim (a quoted
// string or a {...} block).
type TableEntry struct {
	ID    int64
	Value string
}

// Attr returns the value of the module header attribute name.
func (m *Module) Attr(name string) (string, bool) { return lookupAttr(m.Attrs, name) }

// IsScheduled reports whether the module header says is_scheduled=true, in
// which case each computation's instruction order is its schedule.
func (m *Module) IsScheduled() bool {
	v, ok := m.Attr("is_scheduled")
	return ok && v == "true"
}

// Computation returns the computation called name, or nil.
func (m *Module) Computation(name string) *Computation {
	for _, c := range m.Computations {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// SetEntry makes the computation called name the entry, as hlo-opt
// --entry does: it is marked ENTRY and the previous entry no longer is. It
// fails when the module has no such computation.
func (m *Module) SetEntry(name string) error {
	c := m.Computation(name)
	if c == nil {
		return fmt.Errorf("module %s has no computation %q", m.Name, name)
	}
	if m.Entry != nil {
		m.Entry.IsEntry = false
	}
	m.Entry, c.IsEntry, m.ImpliedEntry = c, true, false
	return nil
}

// ComputationIndex returns c's position in m.Computations, or -1: c.Index
// when the hint is right (as the parser and hlotest.Builder set it), else
// a search.
func (m *Module) ComputationIndex(c *Computation) int {
	if c == nil {
		return -1
	}
	return indexWithHint(m.Computations, c, c.Index)
}

// InstructionIndex returns in's position in c.Instructions, or -1:
// in.Index when the hint is right, else a search.
func (c *Computation) InstructionIndex(in *Instruction) int {
	if in == nil {
		return -1
	}
	return indexWithHint(c.Instructions, in, in.Index)
}

// indexWithHint returns the position of x in s, or -1: hint when s[hint]
// is x, else a search.
func indexWithHint[T comparable](s []T, x T, hint int) int {
	if hint >= 0 && hint < len(s) && s[hint] == x {
		return hint
	}
	return slices.Index(s, x)
}

// Computation is a named list of instructions with one root.
type Computation struct {
	Name string
	// Instructions in program (text) order.
	Instructions []*Instruction
	// Params are the parameter instructions indexed by parameter number.
	Params []*Instruction
	Root   *Instruction
	// IsEntry marks the module's entry computation.
	IsEntry bool
	// Attrs are attributes written after the computation's closing brace or
	// header (execution_thread=...), verbatim.
	Attrs []Attribute
	// Pos is where the computation's name appears in the source.
	Pos Pos
	// Index is the computation's position in its module's Computations,
	// as the parser (and hlotest.Builder) set it: a hint for fast
	// lookups, which check it (graph.CallGraph.Index) and fall back to a
	// search when a computation was added or moved by hand.
	Index int
}

// Instruction is one HLO instruction.
type Instruction struct {
	Name   string
	Opcode Opcode
	Shape  Shape
	// Operands in order; an operand may repeat (add(x, x)).
	Operands []*Instruction
	// Called are the computations the instruction calls, in the order of the
	// attributes naming them (calls=, to_apply=, condition=, body=,
	// branch_computations=, ...).
	Called []*Computation
	// Attrs are the attributes after the operand list, in text order,
	// verbatim (computation names without '%').
	Attrs []Attribute
	// ControlPredecessors are the instructions named in
	// control-predecessors={...}.
	ControlPredecessors []*Instruction
	// ParameterNumber is N of parameter(N); -1 for other opcodes.
	ParameterNumber int
	// Implicit marks a get-tuple-element the text did not write as an
	// instruction: today's XLA writes element k of a tuple-shaped t as the
	// operand "%t#k" ("%t#1#0" for nested tuples). The parser makes one
	// such get-tuple-element per tuple and index in a computation, just
	// before its first user, named "t_k" as XLA's parser names it ("t_k.1",
	// ... when taken), with the tuple element's shape and no other
	// attribute than index=k; so every analysis sees the graph the long
	// spelling gives. The printer writes its uses as "%t#k" again and
	// leaves the instruction out, unless PrintOptions.Classic asks for the
	// long spelling or the instruction can no longer be spelled that way
	// (it has no user, is the root, or its shape or attributes changed).
	Implicit bool
	// Literal is the text inside constant(...), verbatim.
	Literal string
	// Parent is the computation holding the instruction.
	Parent *Computation
	// Index is the instruction's position in Parent.Instructions.
	Index int
	// Typed is the parsed form of the attributes analyses read; never nil.
	// The parser points every instruction without such attributes at one
	// shared value, so Typed is read-only: to change an attribute, assign a
	// new value (in.Typed = NewTypedAttrs(), then set its fields). An
	// instruction built by hand must set Typed (NewTypedAttrs).
	Typed *TypedAttrs
	// Pos is where the instruction's name appears in the source.
	Pos Pos
}

// Attr returns the verbatim value of attribute name.
func (in *Instruction) Attr(name string) (string, bool) { return lookupAttr(in.Attrs, name) }

// CustomCallTarget returns a custom call's custom_call_target without its
// quotes ("" when it has none).
func (in *Instruction) CustomCallTarget() string {
	t, _ := in.Attr("custom_call_target")
	return strings.Trim(t, `"`)
}

// IsRoot reports whether in is its computation's root.
func (in *Instruction) IsRoot() bool { return in.Parent != nil && in.Parent.Root == in }

func lookupAttr(attrs []Attribute, name string) (string, bool) {
	for _, a := range attrs {
		if a.Name == name {
			return a.Value, true
		}
	}
	return "", false
}

// Pos is a 1-based line and column in a source file; the zero Pos is
// unknown.
type Pos struct {
	Line, Col int
}

// IsValid reports whether p is a known position.
func (p Pos) IsValid() bool { return p.Line > 0 }
