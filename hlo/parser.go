package hlo

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"
)

// ParseFile parses one HLO module from src. filename is used in error
// messages only. The error, if any, is an ErrorList of positioned errors
// "FILE:LINE:COL: expected X, found Y".
//
// The parser reads what XLA prints and what people write: names with or
// without '%', operands with or without shapes, comments anywhere, callees
// after callers, no HloModule line (the module is then named after its
// entry), no ENTRY (the last computation is the entry), no ROOT (the last
// instruction is the root), CRLF line ends. A text that ends inside a
// computation (a truncated dump, cut at a line end or mid-token) is the
// error "FILE:LINE:COL: file ends inside computation "X"; is the dump
// truncated?"; ParseOptions.AllowTruncated accepts it instead. Operands
// must be defined before their use.
// Inline operands such as "exp(f32[] parameter(0))" are hoisted into
// instructions of their own, named as XLA names them: "<opcode>.anon",
// "<opcode>.anon.1", ... A computation written inline as an attribute
// value ("to_apply={...}") becomes a computation of the module. A text of
// one instruction is read as XLA reads it (parseSingleInstruction).
// Beyond the grammar, the parser makes the checks XLA's parser makes
// (check_instruction.go, check_async.go, literal_check.go): what XLA
// refuses to read is refused with XLA's key phrase in the message.
//
// The parser reads src in place and copies the strings the module keeps;
// src must not change during the call, and may change afterwards.
func ParseFile(filename string, src []byte) (*Module, error) {
	return ParseOptions{}.ParseFile(filename, src)
}

// ParseOptions change what the parser accepts; the zero value is what
// ParseFile does.
type ParseOptions struct {
	// AllowTruncated accepts a text that ends inside a computation: that
	// computation is dropped, the complete ones make the module, and
	// Module.Truncated says what was dropped. When the dropped computation
	// is the entry (marked ENTRY, or the last one when none is marked),
	// Module.Entry is nil.
	AllowTruncated bool
	// Jobs bounds the goroutines that parse a large text's computations
	// at once; <= 0 means runtime.GOMAXPROCS(0), 1 parses in the calling
	// goroutine. The module is the same for any Jobs. (hlo-opt's --jobs
	// sets it with every other limit: the passes package doc, "The jobs
	// budget".)
	Jobs int
	// prescan makes the parse cut the text into computations before
	// parsing them, as it does to report errors (see parseQuick): the
	// tests check that it reads every text as the quick parse does.
	prescan bool
}

// ParseFile is ParseFile with these options.
func (o ParseOptions) ParseFile(filename string, src []byte) (*Module, error) {
	return parseText(filename, normalizeText(src), 1, o)
}

// Parse parses one HLO module from src, without a file name.
func Parse(src []byte) (*Module, error) { return ParseFile("", src) }

// ParseString parses one HLO module from a string.
func ParseString(src string) (*Module, error) { return ParseFile("", []byte(src)) }

// normalizeText returns src as a string, dropping the '\r' of CRLF line
// ends so that verbatim values never carry them. Without '\r' it is a
// view of src, not a copy: the parser copies what it keeps.
func normalizeText(src []byte) string {
	if bytes.IndexByte(src, '\r') < 0 {
		return bytesView(src)
	}
	// CRLF, and a lone CR (old Mac text), both end a line.
	return strings.ReplaceAll(strings.ReplaceAll(string(src), "\r\n", "\n"), "\r", "\n")
}

// parallelThreshold is the text size above which computations are parsed
// concurrently.
const parallelThreshold = 256 << 10

func parseText(file, text string, firstLine int, opts ParseOptions) (*Module, error) {
	s := newScanner(file, text, 0, len(text), firstLine, 0)
	s.strs = newStrArena(0) // the header's strings
	m := &Module{Source: file, textLen: len(text)}
	var errs ErrorList
	if isSingleInstruction(s) {
		return parseSingleInstruction(file, text, m, s)
	}
	headerPos := parseHeader(&s, m)
	if s.err != nil {
		errs = append(errs, s.err)
		return nil, errs
	}
	jobs := 1
	if len(text) >= parallelThreshold {
		jobs = jobsOrDefault(opts.Jobs)
	}
	var results []chunkResult
	ok := false
	if !opts.prescan {
		results, ok = parseQuick(file, text, s, jobs)
	}
	if !ok {
		spans := prescan(s)
		if len(spans) == 0 {
			s.expected("computation")
			errs = append(errs, s.err)
			return nil, errs
		}
		results = parseSpans(file, text, spans, min(jobs, len(spans)))
	}
	var calls []callRef
	var deferred []*Instruction
	var spelling spellingCounts
	for i := range results {
		r := &results[i]
		spelling.add(r.spelling)
		for _, c := range r.comps {
			c.Index = len(m.Computations)
			m.Computations = append(m.Computations, c)
		}
		calls = append(calls, r.calls...)
		deferred = append(deferred, r.deferred...)
		if r.err != nil {
			errs = append(errs, r.err)
		}
		if r.truncated != nil {
			m.Truncated = r.truncated
		}
	}
	if t := m.Truncated; t != nil && (!opts.AllowTruncated || len(m.Computations) == 0) {
		errs.Add(file, t.Pos, "file ends inside computation "+strconv.Quote(t.Computation)+"; is the dump truncated?")
	}
	if len(errs) == 0 && len(m.Computations) == 0 {
		end := newScanner(file, text, len(text), len(text), 0, 0)
		end.line, end.lineStart = lastPos(text, firstLine)
		errs.Add(file, end.pos(), "expected '}', found end of file")
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	spelling.blankEnd = strings.HasSuffix(strings.TrimRight(text, " \t"), "\n\n")
	m.Spelling = spelling.spelling()
	m.BlankEnd = spelling.blankEnd
	resolveModule(m, calls, headerPos, &errs)
	resolveDeferredShapes(m, deferred, &errs)
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return m, nil
}

// parseSpans parses the computations of each span, with up to jobs
// goroutines.
func parseSpans(file, text string, spans []span, jobs int) []chunkResult {
	results := make([]chunkResult, len(spans))
	lines := strings.Count(text, "\n")
	if jobs <= 1 {
		cp := newChunkParser(file, text, len(text), lines)
		for i := range spans {
			results[i] = cp.parseSpan(spans[i])
		}
		return results
	}
	// Contiguous batches of about equal size, a few per worker.
	nb := min(len(spans), jobs*4)
	per := (len(text) + nb - 1) / nb
	var batches [][2]int
	lo, size := 0, 0
	for i, sp := range spans {
		size += sp.end - sp.off
		if size >= per || i == len(spans)-1 {
			batches = append(batches, [2]int{lo, i + 1})
			lo, size = i+1, 0
		}
	}
	// One parser (and arena) per worker, reused across its batches, so
	// that partly filled arena blocks are few.
	parsers := make(chan *chunkParser, jobs)
	for range jobs {
		parsers <- newChunkParser(file, text, len(text)/jobs, lines/jobs)
	}
	var g errgroup.Group
	g.SetLimit(jobs)
	for _, b := range batches {
		g.Go(func() error {
			cp := <-parsers
			defer func() { parsers <- cp }()
			for i := b[0]; i < b[1]; i++ {
				results[i] = cp.parseSpan(spans[i])
			}
			return nil
		})
	}
	_ = g.Wait()
	return results
}

// parseQuick parses the computations after the header at s without
// cutting the text into computations first (prescan): in one span, or
// with jobs > 1 in up to jobs spans cut after lines "}" near equal shares
// of the text, each parsed on its own. It succeeds when every span parses
// into complete computations, none truncated and none with attributes
// after its '}' that go past that line (where prescan would cut
// elsewhere): a span that starts where the one before ends parsed, at
// the first computation, starts at a computation, so the spans are
// computations as prescan cuts them. Anything else (errors, truncation)
// is left to the prescanned parse, which reports each computation's
// errors.
func parseQuick(file, text string, s scanner, jobs int) ([]chunkResult, bool) {
	s.skipSpace()
	if s.atEOF() {
		return nil, false
	}
	spans := []span{{off: s.off, end: len(text), line: s.line, lineStart: s.lineStart}}
	for k := 1; k < jobs; k++ {
		last := &spans[len(spans)-1]
		from := max(last.off, s.off+(len(text)-s.off)*k/jobs)
		i := strings.Index(text[from:], "\n}\n")
		if i < 0 {
			break
		}
		next := newScanner(file, text, last.off, len(text), last.line, last.lineStart)
		next.advanceTo(from + i + 3)
		if next.skipSpace(); next.atEOF() {
			break // the last computation ends there
		}
		last.end = next.off
		spans = append(spans, span{off: next.off, end: len(text), line: next.line, lineStart: next.lineStart})
	}
	results := parseSpans(file, text, spans, len(spans))
	for _, r := range results {
		if r.err != nil || r.truncated != nil || r.oddEnd || len(r.comps) == 0 {
			return nil, false
		}
	}
	return results, true
}

// headerPositions remembers where header values start, for the errors of
// their typed checks.
type headerPositions map[string]scanner

// headerGrammars check the module attributes whose grammar the parser
// reads where they are written: each moves s past the value or records an
// error.
var headerGrammars = map[string]func(s *scanner){
	"input_output_alias": func(s *scanner) { parseIOAliases(s) },
	"buffer_donor":       checkBufferDonors,
}

var tableNames = map[string]bool{"FileNames": true, "FunctionNames": true, "FileLocations": true, "StackFrames": true}

// parseHeader parses the optional "HloModule name, attr=value, ..." line
// and the origin tables after it.
func parseHeader(s *scanner, m *Module) headerPositions {
	var hp headerPositions
	s.skipSpace()
	if peekWord(s) == "HloModule" {
		s.off += len("HloModule")
		m.Name = s.keepStr(s.scanName())
		if m.Name == "" {
			s.expected("module name")
			return nil
		}
		if s.peek() == ':' {
			s.off++ // XLA's lexer reads "name:" as the name
		}
		for s.accept(',') {
			s.skipSpace()
			e := s.identEnd(s.off)
			if e == s.off || !isLetter(s.src[s.off]) {
				s.expected("module attribute name")
				return nil
			}
			name := s.src[s.off:e]
			s.off = e
			if !s.expect('=') {
				return nil
			}
			s.skipSpace()
			if hp == nil {
				hp = headerPositions{}
			}
			sub := *s
			var v string
			if check := headerGrammars[name]; check != nil {
				// Read where it is written, so that a malformed value is
				// reported where it goes wrong.
				if check(s); s.err != nil {
					return nil
				}
				v = s.src[sub.off:s.off]
			} else {
				var ok bool
				if v, ok = s.scanValue("attribute value"); !ok {
					return nil
				}
			}
			sub.end = s.off
			hp[name] = sub
			if _, dup := lookupAttr(m.Attrs, name); dup {
				sub.errorAt(sub.pos(), "expected unique module attribute, found duplicate "+strconv.Quote(name))
				s.err = sub.err
				return nil
			}
			m.Attrs = append(m.Attrs, Attribute{Name: s.keepStr(name), Value: s.keepStr(v)})
		}
	}
	for {
		s.skipSpace()
		w := peekWord(s)
		if !tableNames[w] {
			break
		}
		// A computation may be named like a table; a table name is alone on its line.
		after := s.off + len(w)
		for after < s.end && (s.src[after] == ' ' || s.src[after] == '\t') {
			after++
		}
		if after < s.end && s.src[after] != '\n' && s.src[after] != '\r' {
			break
		}
		s.off += len(w)
		t := Table{Name: s.keepStr(w)}
		for {
			s.skipSpace()
			if !isDigit(s.peek()) {
				break
			}
			id, ok := s.scanInt("table entry id")
			if !ok {
				return nil
			}
			v, ok := s.scanValue("table entry")
			if !ok {
				return nil
			}
			t.Entries = append(t.Entries, TableEntry{ID: id, Value: s.keepStr(v)})
		}
		m.Tables = append(m.Tables, t)
	}
	return hp
}

// peekWord returns the identifier at the current offset without moving.
func peekWord(s *scanner) string {
	if s.off >= s.end || !isLetter(s.src[s.off]) {
		return ""
	}
	return s.src[s.off:s.identEnd(s.off)]
}

// span is the text of one computation found by prescan.
type span struct {
	off, end, line, lineStart int
}

// prescan cuts the text after the header into computations without parsing
// them (skipComputation). The parser then reads each span on its own, so
// spans can be parsed concurrently.
func prescan(s scanner) []span {
	var spans []span
	for {
		s.skipSpace()
		if s.atEOF() {
			return spans
		}
		sp := span{off: s.off, line: s.line, lineStart: s.lineStart}
		s.skipComputation()
		sp.end = s.off
		spans = append(spans, sp)
	}
}

// skipComputation moves past one computation without parsing it: from its
// name to the '}' matching its body's '{', and past ", attr=value" on the
// same line after it. The body's '{' is the first '{' outside parentheses
// and braces that does not follow ']' directly (that would open a layout
// in the signature). Strings and comments are skipped. Inside the body
// only quotes, slashes and braces matter (the bytes of bodySpecial), which
// keeps the scan of large bodies fast; lines are counted in bulk, up to
// where the scan hands over to the scanner's methods and at the end.
func (s *scanner) skipComputation() {
	special := &headSpecial
	parens, braces, depth := 0, 0, 0 // depth counts the body's open braces
	src, i, end := s.src, s.off, s.end
	for i < end {
		c := src[i]
		if !special[c] {
			i++
			continue
		}
		switch c {
		case '"':
			if e := stringEnd(src, i+1, end); e >= 0 {
				i = e
				continue
			}
			s.advanceTo(i)
			s.skipString() // records the error
			return
		case '/':
			if i+1 < end && (src[i+1] == '/' || src[i+1] == '*') {
				s.advanceTo(i)
				s.skipSpace()
				i = s.off
				continue
			}
		case '(':
			parens++
		case ')':
			parens--
		case '{':
			switch {
			case depth > 0:
				depth++
			case parens <= 0 && braces == 0 && (i == 0 || src[i-1] != ']'):
				depth, special = 1, &bodySpecial
			default:
				braces++
			}
		case '}':
			switch {
			case depth > 1:
				depth--
			case depth == 1:
				s.advanceTo(i + 1)
				s.skipComputationAttrs()
				return
			case braces > 0:
				braces--
			}
		}
		i++
	}
	s.advanceTo(end)
}

// skipComputationAttrs moves past ", execution_thread=..." after the '}'
// that closes a body, up to the end of the line.
func (s *scanner) skipComputationAttrs() {
	i := s.off
	for i < s.end && (s.src[i] == ' ' || s.src[i] == '\t') {
		i++
	}
	if i >= s.end || s.src[i] != ',' {
		return
	}
	for s.off < s.end && s.src[s.off] != '\n' {
		if s.src[s.off] == '"' {
			s.skipString()
			continue
		}
		s.off++
	}
}

// resolveModule links called computations, picks the entry and checks the
// module header.
func resolveModule(m *Module, calls []callRef, hp headerPositions, errs *ErrorList) {
	byName := make(map[string]*Computation, len(m.Computations))
	for _, c := range m.Computations {
		if prev, dup := byName[c.Name]; dup {
			errs.Add(m.Source, c.Pos, "expected unique computation name, found duplicate "+strconv.Quote(c.Name)+" (computation previously defined here: "+strconv.Itoa(prev.Pos.Line)+":"+strconv.Itoa(prev.Pos.Col)+")")
			continue
		}
		byName[c.Name] = c
	}
	for _, r := range calls {
		c := byName[r.name]
		if c == nil {
			errs.Add(m.Source, r.pos, "expected defined computation, found "+strconv.Quote(r.name))
			continue
		}
		r.inst.Called = append(r.inst.Called, c)
	}
	for _, c := range m.Computations {
		if c.IsEntry {
			if m.Entry != nil {
				errs.Add(m.Source, c.Pos, "expected one ENTRY computation, found a second one "+strconv.Quote(c.Name)+" (expects only one ENTRY)")
				continue
			}
			m.Entry = c
		}
	}
	switch t := m.Truncated; {
	case t != nil && (t.Entry || m.Entry == nil):
		// The dropped computation is the entry: marked so, or, when no
		// complete computation is marked, the last one.
		t.Entry = true
		m.Entry = nil
		if m.Name == "" {
			m.Name = t.Computation
		}
	case m.Entry == nil:
		m.Entry = m.Computations[len(m.Computations)-1]
		m.Entry.IsEntry = true
		m.ImpliedEntry = true
	}
	if m.Name == "" && m.Entry != nil {
		m.Name = m.Entry.Name
	}
	checkAsyncChains(m, errs)
	if sub, ok := hp["entry_computation_layout"]; ok && !(len(*errs) == 0 && printsEntryLayout(sub.src[sub.off:sub.end], m.Entry)) {
		if ps, err := parseProgramShape(&sub); err != nil {
			errs.Add(err.Filename, err.Pos, err.Msg)
		} else if v, ok := m.Attr("entry_computation_layout"); ok {
			m.keepEntryLayout(v, ps)
		}
	}
}

// lastPos returns the line and line start offset of the end of text.
func lastPos(text string, firstLine int) (line, lineStart int) {
	return firstLine + strings.Count(text, "\n"), strings.LastIndexByte(text, '\n') + 1
}

// headSpecial marks the bytes skipComputation looks at before the body,
// bodySpecial those it looks at inside it.
var (
	headSpecial = [256]bool{'"': true, '/': true, '{': true, '}': true, '(': true, ')': true}
	bodySpecial = [256]bool{'"': true, '/': true, '{': true, '}': true}
)

// jobsOrDefault is a Jobs option's limit: n, or GOMAXPROCS when n <= 0.
func jobsOrDefault(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// isSingleInstruction reports whether the text at s is one instruction
// rather than a module, as XLA's parser tells them apart: a module starts
// with "HloModule", "ENTRY" or a computation's name and its body (or
// signature); anything else is an instruction, "[name =] shape opcode(...)".
func isSingleInstruction(s scanner) bool {
	s.skipSpace()
	switch w := peekWord(&s); {
	case s.atEOF(), w == "HloModule", w == "ENTRY", tableNames[w]:
		return false
	}
	if (&shapeParser{scanner: s}).looksLikeShape() {
		return true
	}
	if s.scanName() == "" {
		return false
	}
	s.skipSpace()
	switch s.peek() {
	case '=':
		return true
	case '(':
		// A signature "(p: shape, ...) -> shape" or "()", or operands.
		s.off++
		s.skipSpace()
		if s.peek() == ')' {
			return false
		}
		s.accept('%')
		return s.scanName() == "" || !s.accept(':')
	}
	return false
}

// parseSingleInstruction parses a text that is one instruction, as XLA's
// parser does: the module's entry computation holds it, and each operand
// the text does not define, written with a shape (and maybe no name), is
// a parameter, numbered in order ("_0", "_1", ... when nameless). The
// instruction may omit "name =" (it is then named "_"); computations it
// calls may be written inline.
func parseSingleInstruction(file, text string, m *Module, s scanner) (*Module, error) {
	p := newChunkParser(file, text, len(text), 0)
	p.off, p.end, p.line, p.lineStart = s.off, s.end, s.line, s.lineStart
	c := &Computation{IsEntry: true, Name: "_"} // named after the instruction once read
	p.comp = c
	n := int64(0)
	p.missing = func(name string, sh Shape, pos Pos) *Instruction {
		if name == "" {
			name = "_" + strconv.FormatInt(n, 10)
		}
		in := p.ar.inst()
		in.Name, in.Pos, in.Shape, in.Opcode = p.keepStr(name), pos, sh.Clone(), OpParameter
		in.Parent, in.ParameterNumber, in.Typed = c, int(n), sharedNoTyped
		p.params[n] = in
		p.insts = append(p.insts, in)
		p.names.put(in.Name, len(p.insts)-1, p.insts)
		n++
		return in
	}
	p.skipSpace()
	c.Pos = p.pos()
	var ok bool
	if p.looksLikeShape() {
		ok = p.parseRHS("_", c.Pos, true) != nil
	} else {
		ok = p.parseStatement()
	}
	if ok {
		if p.skipSpace(); !p.atEOF() {
			p.errorAt(p.pos(), `Expected eof after parsing single instruction, found `+p.found()+` (did you mean to write an HLO module and forget the "HloModule" header?)`)
			ok = false
		}
	}
	if ok {
		p.missing = nil
		ok = p.finishComputation(c)
	}
	if !ok {
		return nil, ErrorList{p.err}
	}
	c.Name = c.Root.Name
	m.Name = c.Name
	m.Computations = append(p.nested, c)
	for i, cc := range m.Computations {
		cc.Index = i
	}
	var errs ErrorList
	resolveModule(m, p.calls, nil, &errs)
	resolveDeferredShapes(m, p.deferred, &errs)
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return m, nil
}
