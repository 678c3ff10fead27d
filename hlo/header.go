package hlo

import (
	"strconv"
	"strings"
	"weak"
)

// ProgramShape is the signature of a computation: parameter shapes and the
// result shape, with layouts.
type ProgramShape struct {
	Params []Shape
	Result Shape
}

// InputOutputAlias is one entry of the module header's input_output_alias:
// the output at OutputIndex aliases parameter ParamNumber at ParamIndex.
type InputOutputAlias struct {
	OutputIndex []int64
	ParamNumber int64
	ParamIndex  []int64
	// Kind is "may-alias" or "must-alias"; "" when the text gave none.
	Kind string
}

// EntryComputationLayout returns the parsed entry_computation_layout
// header attribute, or nil when the header has none. The result may be
// shared with other calls on the same attribute text: treat it as
// read-only.
func (m *Module) EntryComputationLayout() (*ProgramShape, error) {
	v, ok := m.Attr("entry_computation_layout")
	if !ok {
		return nil, nil
	}
	if c := m.entryLayout.Load(); c != nil && c.text == v {
		if ps := c.ps.Value(); ps != nil {
			return ps, nil
		}
	}
	ps, err := parseHeaderAttr(m, "entry_computation_layout", parseProgramShape)
	if err == nil {
		m.keepEntryLayout(v, ps)
	}
	return ps, err
}

// entryLayout is a parsed entry_computation_layout and the text it was
// parsed from. The parse is held weakly: a module of thousands of
// parameters would otherwise keep megabytes of shapes alive, for the
// garbage collector to mark in every cycle, to save the verifier and the
// layout assignment parsing it again.
type entryLayout struct {
	text string
	ps   weak.Pointer[ProgramShape]
}

// keepEntryLayout remembers ps, parsed from the entry_computation_layout
// text, for EntryComputationLayout (while something else holds it).
func (m *Module) keepEntryLayout(text string, ps *ProgramShape) {
	if ps != nil {
		m.entryLayout.Store(&entryLayout{text: text, ps: weak.Make(ps)})
	}
}

// InputOutputAliases returns the parsed input_output_alias header
// attribute, or nil when the header has none.
func (m *Module) InputOutputAliases() ([]InputOutputAlias, error) {
	return parseHeaderAttr(m, "input_output_alias", func(s *scanner) ([]InputOutputAlias, *Error) {
		a, err := parseIOAliases(s)
		if err == nil {
			if s.expectEnd("input_output_alias"); s.err != nil {
				return nil, s.err
			}
		}
		return a, err
	})
}

// parseHeaderAttr parses the header attribute name with parse; the zero T
// when the header has none or on an error (a nil *Error stays a nil error).
func parseHeaderAttr[T any](m *Module, name string, parse func(*scanner) (T, *Error)) (T, error) {
	var zero T
	v, ok := m.Attr(name)
	if !ok {
		return zero, nil
	}
	s := newScanner(m.Source, v, 0, len(v), 1, 0)
	x, err := parse(&s)
	if err != nil {
		return zero, err
	}
	return x, nil
}

// parseProgramShape parses "{(f32[2]{0}, s32[])->f32[2]{0}}".
func parseProgramShape(s *scanner) (*ProgramShape, *Error) {
	p := &shapeParser{scanner: *s, ar: &arena{limit: s.end - s.off}}
	ps := &ProgramShape{}
	if p.expect('{') && p.expect('(') {
		if !p.accept(')') {
			for {
				sh, ok := p.parseShape()
				if !ok {
					break
				}
				ps.Params = append(ps.Params, sh)
				if !p.accept(',') {
					p.expect(')')
					break
				}
			}
		}
		if p.err == nil {
			p.skipSpace()
			if p.peek() == '-' && p.peekAt(1) == '>' {
				p.off += 2
				if sh, ok := p.parseShape(); ok {
					ps.Result = sh
					if p.expect('}') {
						p.expectEnd("entry_computation_layout")
					}
				}
			} else {
				p.expected("'->'")
			}
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	return ps, nil
}

// printsEntryLayout reports whether text, an entry_computation_layout
// value, is the shapes of entry's parameters and root as the printer
// writes them, the parameters separated by "," or ", " (every fifth
// marked "/*index=5*/" or not, as XLA writes them or not): such a text parses
// (a shape the module holds prints as a text that parses back to it), so
// that parseProgramShape need not check it. An entry's layout is mostly
// written so (mobilenet_v2's 9 KB of it cost the parse 4%).
func printsEntryLayout(text string, entry *Computation) bool {
	if entry == nil || entry.Root == nil {
		return false
	}
	var p printer
	rest, ok := strings.CutPrefix(text, "{(")
	for i, prm := range entry.Params {
		if i > 0 {
			if rest, ok = strings.CutPrefix(rest, ","); !ok {
				return false
			}
			rest = strings.TrimPrefix(rest, " ")
			if i%5 == 0 {
				// XLA marks every fifth parameter with its index, as the
				// elements of a tuple.
				rest = strings.TrimPrefix(rest, "/*index="+strconv.Itoa(i)+"*/")
			}
		}
		if prm == nil {
			return false
		}
		if rest, ok = cutPrinted(&p, &prm.Shape, rest); !ok {
			return false
		}
	}
	if rest, ok = strings.CutPrefix(rest, ")->"); !ok {
		return false
	}
	rest, ok = cutPrinted(&p, &entry.Root.Shape, rest)
	return ok && rest == "}"
}

// cutPrinted returns s after sh's text as p prints it, and whether s
// starts with that text. p keeps what it printed (its lately printed
// shapes are copied from there).
func cutPrinted(p *printer, sh *Shape, s string) (string, bool) {
	if !typed(sh) {
		return s, false // a shape not inferred yet prints as no text parses
	}
	start := len(p.buf)
	p.shape(sh, true)
	text := p.buf[start:]
	if len(s) < len(text) || s[:len(text)] != string(text) {
		return s, false
	}
	return s[len(text):], true
}

// typed reports whether sh and its elements have element types.
func typed(sh *Shape) bool {
	for i := range sh.Tuple {
		if !typed(&sh.Tuple[i]) {
			return false
		}
	}
	return sh.Type > Invalid && sh.Type < numPrimitiveTypes
}

// shapeIndex parses "{}" or "{0,1}".
func (s *scanner) shapeIndex() []int64 {
	if !s.expectPhrase('{', "Expects '{' at the start of ShapeIndex") {
		return nil
	}
	v := []int64{}
	for s.err == nil && !s.accept('}') {
		s.skipSpace()
		at := s.pos()
		i, ok := s.expectsInteger()
		if !ok {
			return nil
		}
		if i < 0 {
			s.errorAt(at, "expected non-negative shape index, found "+itoa(i))
			return nil
		}
		v = append(v, i)
		if !s.accept(',') {
			if !s.expectPhrase('}', "Expects '}' at the end of ShapeIndex") {
				return nil
			}
			break
		}
	}
	return v
}

// parseIOAliases parses "{ {0}: (0, {}, may-alias), {1}: (1, {1}) }".
func parseIOAliases(s *scanner) ([]InputOutputAlias, *Error) {
	var out []InputOutputAlias
	if s.expectPhrase('{', "Expects '{' at the start of aliasing description") && !s.accept('}') {
		for s.err == nil {
			var a InputOutputAlias
			a.OutputIndex = s.shapeIndex()
			if s.err != nil || !s.expect(':') || !s.expect('(') {
				break
			}
			var ok bool
			if a.ParamNumber, ok = s.expectsInteger(); !ok || !s.expect(',') {
				break
			}
			a.ParamIndex = s.shapeIndex()
			if s.err != nil {
				break
			}
			if s.accept(',') {
				a.Kind = s.scanIdent()
				if a.Kind != "may-alias" && a.Kind != "must-alias" {
					s.expected("may-alias or must-alias")
					break
				}
			}
			if !s.expect(')') {
				break
			}
			out = append(out, a)
			if !s.accept(',') {
				s.expectPhrase('}', "Expects '}' at the end of aliasing description")
				break
			}
		}
	}
	if s.err != nil {
		return nil, s.err
	}
	return out, nil
}

// checkBufferDonors reads buffer_donor={ (0, {}), (1, {0}) }: the
// parameters (and their shape indices) whose buffers may be reused.
func checkBufferDonors(s *scanner) {
	if !s.expectPhrase('{', "Expects '{' at the start of buffer donor description") || s.accept('}') {
		return
	}
	for s.err == nil {
		if !s.expect('(') {
			return
		}
		if _, ok := s.expectsInteger(); !ok || !s.expect(',') {
			return
		}
		if s.shapeIndex(); s.err != nil || !s.expect(')') {
			return
		}
		if !s.accept(',') {
			s.expectPhrase('}', "Expects '}' at the end of buffer donor description")
			return
		}
	}
}

// expectsInteger scans an integer, or records "expects integer, found X"
// (XLA's words for what the header's indices and parameter numbers need).
func (s *scanner) expectsInteger() (int64, bool) {
	s.skipSpace()
	if c := s.peek(); !isDigit(c) && !(c == '-' && isDigit(s.peekAt(1))) {
		s.errorAt(s.pos(), "expects integer, found "+s.found())
		return 0, false
	}
	return s.scanInt("integer")
}
