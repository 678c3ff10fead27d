package hlo

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

type callRef struct {
	inst *Instruction
	name string
	pos  Pos
}

type ctrlRef struct {
	inst *Instruction
	name string
	pos  Pos
}

type chunkResult struct {
	comps     []*Computation
	calls     []callRef
	deferred  []*Instruction
	err       *Error
	truncated *Truncation
	spelling  spellingCounts
	// oddEnd says that a computation's attributes after its '}' went past
	// that line, where prescan's span of it ends.
	oddEnd bool
}

// chunkParser parses computations; each worker owns one, with its arena.
type chunkParser struct {
	shapeParser
	compScope
	operands []*Instruction
	attrs    []Attribute
	calls    []callRef
	opndAr   arena // operand shapes are checked, then dropped
	ctrlFor  *Instruction
	spelling spellingCounts
	values   recentValues
	// nested are the computations written inline in attribute values
	// (to_apply={...}) since the last computation was parsed.
	nested []*Computation
	// deferred are the instructions whose shape is their callee's result
	// (inferredFromCallee), given once calls are resolved.
	deferred []*Instruction
	// oddEnd: see chunkResult.
	oddEnd bool
	// ops are opcodes found lately, by their spelling in the text (see
	// opcode).
	ops [64]opSlot
	// attrNames are attribute names found lately (see attrEntry).
	attrNames [32]attrEntry
	// decoded says that the attribute parseAttr read last is decoded
	// into the instruction's Typed; typedAttrs has a bit for each such
	// attribute of the instruction typedOf (by position).
	decoded    bool
	typedOf    *Instruction
	typedAttrs uint64
	// typedSlots are instructions with typed attributes parsed lately
	// (see internTyped).
	typedSlots [256]struct {
		rep  *Instruction
		mask uint64
	}
}

// opSlot is an opcode found lately: its spelling, what Info says of it,
// the attributes its instructions may carry and those they must.
type opSlot struct {
	text     string
	op       Opcode
	info     OpInfo
	allowed  attrSet
	required []string
}

// opcode is LookupOpcode, remembering the opcodes found lately: a module
// has few opcodes, each in many instructions. It returns the opcode's slot
// too, or nil where the opcode is not remembered (async sugar).
func (p *chunkParser) opcode(text string) (Opcode, *opSlot, bool) {
	if text == "" {
		op, ok := LookupOpcode(text)
		return op, nil, ok
	}
	slot := &p.ops[(31*len(text)+7*int(text[0])+int(text[len(text)-1]))%len(p.ops)]
	if slot.text == text {
		return slot.op, slot, true
	}
	op, ok := LookupOpcode(text)
	if !ok || unsafe.StringData(string(op)) == unsafe.StringData(text) { // async sugar is the text itself
		return op, nil, ok
	}
	*slot = opSlot{text: text, op: op, info: Info(op), allowed: opAllowedAttrs(op, false), required: opcodeRequiredAttrs[op]}
	return op, slot, true
}

// infoOf is Info(op), remembered in s when s is op's slot.
func (s *opSlot) infoOf(op Opcode) OpInfo {
	if s != nil {
		return s.info
	}
	return Info(op)
}

// requiredOf is opcodeRequiredAttrs[op], remembered in s when s is op's
// slot.
func (s *opSlot) requiredOf(op Opcode) []string {
	if s != nil {
		return s.required
	}
	return opcodeRequiredAttrs[op]
}

// allowedOf is allowedAttrs(in), remembered in s when s is the slot of
// in's opcode and the opcode's attributes do not depend on its operands.
func (s *opSlot) allowedOf(in *Instruction) attrSet {
	if s != nil && in.Opcode != OpConditional {
		return s.allowed
	}
	return allowedAttrs(in)
}

// attrEntry returns attrTable's entry of the attribute name at the
// current offset and where the name ends. It remembers the names found
// lately in slots indexed by their first and fourth bytes, and takes a
// slot's name where the text spells it (and no name byte follows) before
// scanning the name and asking the map.
func (p *chunkParser) attrEntry() (attrEntry, int, bool) {
	rest := p.src[p.off:p.end]
	var slot *attrEntry
	if len(rest) >= 4 {
		slot = &p.attrNames[(int(rest[0])*7+int(rest[3]))%len(p.attrNames)]
		if n := len(slot.name); n > 0 && strings.HasPrefix(rest, slot.name) && (n == len(rest) || !isIdentChar(rest[n])) {
			return *slot, p.off + n, true
		}
	}
	e := p.identEnd(p.off)
	entry, ok := attrTable[p.src[p.off:e]]
	if ok && slot != nil {
		*slot = entry
	}
	return entry, e, ok
}

// compScope is the state of the computation being parsed; a computation
// written inline in an attribute value is parsed in a scope of its own.
type compScope struct {
	names nameTable
	insts []*Instruction
	// shapeTexts are the compact texts of the shapes insts were declared
	// with, by position ("" where not compact, or not declared): an
	// operand written with the same text has that shape (see
	// parseOperands).
	shapeTexts []string
	ctrl       []ctrlRef
	comp       *Computation
	rootSeen   *Instruction
	// elems are the get-tuple-elements made for "%t#k" operands of the
	// computation being parsed, by tuple and index; implicit lists them
	// in the order they were made.
	elems    map[elemKey]*Instruction
	implicit []*Instruction
	// sigShape is the result shape the computation's signature states
	// (nil without a signature), at sigPos.
	sigShape *Shape
	sigPos   Pos
	// params are the parameters of the computation being parsed, by number.
	params map[int64]*Instruction
	// missing, when set, makes the operand of a single instruction that
	// the text does not define (and gives a shape) a parameter.
	missing func(name string, sh Shape, pos Pos) *Instruction
}

// newCompScope returns an empty scope.
func newCompScope() compScope {
	return compScope{elems: map[elemKey]*Instruction{}, params: map[int64]*Instruction{}}
}

// recentValues are the last long attribute values a parser kept: a dump
// repeats its metadata and backend configs from one instruction to the
// next, and an equal value is kept once.
type recentValues struct {
	vals [8]string
	next int
}

// longValue is the length from which a value is kept once (keepValue)
// and looked for in the text (scanRecentValue): shorter values cost less
// to scan than the search.
const longValue = 32

// keepValue returns v as keepStr does, or an equal long value kept
// recently (of one line: others are kept each time).
func (p *chunkParser) keepValue(v string) string {
	if len(v) < longValue {
		return p.keepStr(v)
	}
	r := &p.values
	for _, o := range r.vals {
		if len(o) == len(v) && o == v {
			return o
		}
	}
	k := p.keepStr(v)
	if strings.IndexByte(k, '\n') >= 0 {
		return k
	}
	r.vals[r.next] = k
	r.next = (r.next + 1) % len(r.vals)
	return k
}

// scanRecentValue is scanValue for a value the text repeats: when the
// text at the current offset is a long value kept recently and the value
// ends there (the next byte is one scanValue stops at outside brackets),
// it moves past it and returns the kept value, which scanValue would
// have returned, without looking at each byte. Else it returns false and
// does not move.
//
// scanValue decides from the bytes alone, so on the same bytes it takes
// the same path: the kept value ended with its brackets closed, and only
// its last byte's decision could look past it (a '/' that starts a
// comment), so a value ending in '/' is not taken.
func (p *chunkParser) scanRecentValue() (string, bool) {
	rest := p.src[p.off:p.end]
	if len(rest) < longValue {
		return "", false
	}
	for _, o := range p.values.vals {
		// The last bytes of values differ most (source_line=N}): they
		// are compared first, then the end, then the whole.
		n := len(o)
		if n == 0 || n > len(rest) || rest[n-2] != o[n-2] || !endsValue(rest[n:]) || o[n-1] == '/' || rest[:n] != o {
			continue
		}
		p.off += n // kept values have no line end (keepValue)
		return o, true
	}
	return "", false
}

// endsValue reports whether scanValue, outside brackets, ends a value
// where rest starts.
func endsValue(rest string) bool {
	if rest == "" {
		return true
	}
	switch rest[0] {
	case ',', ' ', '\t', '\r', '\n', '}', ')', ']':
		return true
	case '/':
		return len(rest) > 1 && (rest[1] == '/' || rest[1] == '*')
	}
	return false
}

// newChunkParser returns a parser for the computations of text; share is
// about how much of the text it will parse, which sizes its string arena,
// and lines about how many of its lines, which sizes the lists a
// computation's parse fills and empties (its instructions, their shape
// texts, the table of their names): a bound on the instructions of any
// computation of a dump in that share. Grown by append instead, they cost
// four times their size in allocations and copies.
func newChunkParser(file, text string, share, lines int) *chunkParser {
	cp := &chunkParser{compScope: newCompScope()}
	ar := &arena{}
	cp.shapeParser = shapeParser{scanner: newScanner(file, text, 0, 0, 1, 0), ar: ar, keep: ar, cache: make(map[string]Shape, 64)}
	cp.strs = newStrArena(share)
	cp.insts = make([]*Instruction, 0, lines)
	cp.shapeTexts = make([]string, 0, lines)
	cp.names.sizeFor(lines)
	return cp
}

func (p *chunkParser) parseSpan(sp span) chunkResult {
	p.off, p.end, p.line, p.lineStart, p.err = sp.off, sp.end, sp.line, sp.lineStart, nil
	p.calls = nil
	p.spelling = spellingCounts{}
	var r chunkResult
	for {
		p.skipSpace()
		if p.atEOF() {
			break
		}
		c, truncated := p.parseComputation()
		if truncated != nil {
			r.truncated = truncated
		}
		r.comps = append(r.comps, p.nested...)
		p.nested = p.nested[:0]
		if c == nil {
			break
		}
		r.comps = append(r.comps, c)
	}
	r.calls = p.calls
	r.deferred = p.deferred
	p.deferred = nil
	r.err = p.err
	r.spelling = p.spelling
	r.oddEnd, p.oddEnd = p.oddEnd, false
	return r
}

// parseComputation parses
//
//	[ENTRY] name [(p: shape, ...) -> shape] { instruction... } [, attr=value...]
//
// When the whole text ends inside the computation (a truncated dump), it
// returns no computation and what was truncated, and records no error.
func (p *chunkParser) parseComputation() (*Computation, *Truncation) {
	c := &Computation{}
	p.skipSpace()
	if peekWord(&p.scanner) == "HloModule" {
		p.errorAt(p.pos(), `expected a computation, found a second "HloModule" header (a file of several modules is split at its '// -----' lines: hlo.SplitInputFile, hlo-opt --split-input-file)`)
		return nil, nil
	}
	if w := peekWord(&p.scanner); w == "ENTRY" {
		p.off += len(w)
		c.IsEntry = true
		p.skipSpace()
	}
	c.Pos = p.pos()
	c.Name = p.keepStr(p.scanName())
	if c.Name == "" {
		p.expected("computation name")
		return p.failed(c)
	}
	p.skipSpace()
	p.sigShape = nil
	if p.peek() == '(' {
		if !p.parseSignature() {
			return p.failed(c)
		}
	}
	if !p.expect('{') {
		return p.failed(c)
	}
	p.names.reset()
	clear(p.elems)
	clear(p.params)
	p.implicit = p.implicit[:0]
	p.insts = p.insts[:0]
	p.shapeTexts = p.shapeTexts[:0]
	p.ctrl = p.ctrl[:0]
	p.comp = c
	p.rootSeen = nil
	for {
		p.skipSpace()
		if p.atEOF() {
			// The text ends inside this computation: it is dropped and
			// the computations complete so far make the module.
			p.expected("'}'")
			return p.failed(c)
		}
		if p.peek() == '}' {
			if len(p.insts) == 0 {
				p.expected("instruction")
				return nil, nil
			}
			p.off++
			break
		}
		if !p.parseStatement() {
			return p.failed(c)
		}
	}
	closed, attrsEnd := p.off, p.off
	for p.accept(',') {
		p.skipSpace()
		e := p.identEnd(p.off)
		if e == p.off || !isLetter(p.src[p.off]) {
			p.expected("computation attribute name")
			return p.failed(c)
		}
		name := p.src[p.off:e]
		p.off = e
		if !p.expect('=') {
			return p.failed(c)
		}
		v, ok := p.scanValue("attribute value")
		if !ok {
			return p.failed(c)
		}
		c.Attrs = append(c.Attrs, Attribute{Name: p.keepStr(name), Value: p.keepStr(v)})
		attrsEnd = p.off
	}
	p.oddEnd = p.oddEnd || strings.IndexByte(p.src[closed:attrsEnd], '\n') >= 0
	if !p.finishComputation(c) {
		return nil, nil
	}
	return c, nil
}

// failed ends computation c after an error. An error at the end of the
// whole text ("found end of file") means the text was cut inside c: that
// is a truncation, returned instead of the error.
func (p *chunkParser) failed(c *Computation) (*Computation, *Truncation) {
	if p.err == nil || p.end != len(p.src) || !strings.HasSuffix(p.err.Msg, "found end of file") {
		return nil, nil
	}
	errAt := p.err.Pos
	p.advanceTo(p.end)
	p.off = p.end
	end := p.pos()
	if strings.HasPrefix(p.err.Msg, "expected closing '\"'") {
		// A string cut by the end of the text is a truncation; one that
		// runs on over line ends is a missing quote.
		last := end.Line
		if strings.HasSuffix(p.src, "\n") {
			last--
		}
		if errAt.Line != last {
			return nil, nil
		}
	}
	p.err = nil
	return nil, &Truncation{Computation: c.Name, Pos: end, Entry: c.IsEntry}
}

// parseSignature checks "(p: shape, ...) -> shape"; the printer rebuilds
// it from the parameters and the root.
func (p *chunkParser) parseSignature() bool {
	p.off++ // '('
	if !p.accept(')') {
		for {
			p.skipSpace()
			if p.peek() == '%' {
				p.off++
			}
			if e := p.identEnd(p.off); e > p.off {
				p.off = e
			} else {
				p.expected("parameter name")
				return false
			}
			if !p.expect(':') {
				return false
			}
			if _, ok := p.parseShape(); !ok {
				return false
			}
			if !p.accept(',') {
				break
			}
		}
		if !p.expect(')') {
			return false
		}
	}
	p.skipSpace()
	if p.peek() != '-' || p.peekAt(1) != '>' {
		p.expected("'->'")
		return false
	}
	p.off += 2
	p.skipSpace()
	p.sigPos = p.pos()
	sh, ok := p.parseShape()
	p.sigShape = &sh
	return ok
}

// parseStatement parses "[ROOT] name = shape opcode(operands), attrs".
func (p *chunkParser) parseStatement() bool {
	isRoot := false
	if w := peekWord(&p.scanner); w == "ROOT" {
		save := p.scanner
		p.off += len(w)
		p.skipSpace()
		if p.peek() == '=' {
			p.scanner = save // an instruction named ROOT
		} else {
			isRoot = true
		}
	}
	p.skipSpace()
	pos := p.pos()
	if p.looksLikeShape() {
		p.expected("instruction name (expects name)")
		return false
	}
	if p.peek() == '%' {
		p.spelling.percentNames++
	}
	name := p.scanName()
	if name == "" {
		p.expected("instruction name")
		return false
	}
	if !p.accept('=') {
		p.skipSpace()
		p.errorAt(p.pos(), "expects '=' in instruction, found "+p.found())
		return false
	}
	in := p.parseRHS(name, pos, true)
	if in == nil {
		return false
	}
	if isRoot {
		if p.rootSeen != nil {
			p.errorAt(pos, "expected one ROOT instruction, found a second one "+strconv.Quote(name)+" (one computation should have only one ROOT)")
			return false
		}
		p.rootSeen = in
	}
	return true
}

// parseRHS parses "[shape] opcode(operands)[, attrs]" (attributes when
// top) of the instruction name at pos, infers its shape when the text
// gives none, and checks it.
func (p *chunkParser) parseRHS(name string, pos Pos, top bool) *Instruction {
	sh, shapeText := p.recentShape()
	infer := shapeText == "" && !p.looksLikeShape()
	if shapeText == "" && !infer {
		start := p.off
		var ok bool
		if sh, ok = p.parseShape(); !ok {
			return nil
		}
		if p.cachedText == [2]int{start, p.off} {
			shapeText = p.src[start:p.off]
		}
	}
	p.skipSpace()
	// XLA also reads a layout separated from its dims by spaces here
	// ("f32[3,6] {0,1} bitcast(p)"): an opcode, never a body, follows.
	if !infer && sh.IsArray() && sh.Layout == nil && p.peek() == '{' {
		l, ok := p.parseLayout(len(sh.Dims))
		if !ok {
			return nil
		}
		sh.Layout = l
		shapeText = ""
		p.skipSpace()
	}
	opPos := p.pos()
	opName := p.scanIdent()
	if infer && (opName == "" || p.peek() == '[') {
		p.off = p.lineStart + opPos.Col - 1
		p.expected("shape")
		return nil
	}
	in, slot := p.parseRest(name, pos, sh, opName, opPos, top)
	if in == nil {
		return nil
	}
	if at := len(p.insts) - 1; shapeText != "" && at >= 0 && p.insts[at] == in { // parseRest listed it last
		for len(p.shapeTexts) < at {
			p.shapeTexts = append(p.shapeTexts, "")
		}
		p.shapeTexts = append(p.shapeTexts[:at], shapeText)
	}
	if infer {
		for _, o := range in.Operands {
			if o.Shape.Type == Invalid {
				p.errorAt(opPos, "expected shape, found "+strconv.Quote(opName)+" (its operand "+strconv.Quote(o.Name)+" has a shape inferred from a computation)")
				return nil
			}
		}
		switch {
		case inferredFromCallee(in.Opcode):
			p.deferred = append(p.deferred, in)
		case !inferShape(in):
			p.errorAt(opPos, "expected shape, found "+strconv.Quote(opName)+" (its shape cannot be inferred)")
			return nil
		}
	}
	if in.Opcode == OpBroadcast && len(in.Operands) == 1 && in.Operands[0].Shape.IsScalar() {
		if _, ok := in.Attr("dimensions"); !ok {
			// XLA reads a broadcast of a scalar without dimensions as
			// dimensions={}, and prints it so.
			in.Attrs = append(slices.Clip(in.Attrs), Attribute{Name: attrNames["dimensions"], Value: "{}"})
			p.ownTyped(in).Dimensions = []int64{}
			if p.typedOf != in {
				p.typedOf, p.typedAttrs = in, 0
			}
			p.typedAttrs |= 1 << min(len(in.Attrs)-1, 63)
		}
	}
	if !p.checkInstruction(in, slot) {
		return nil
	}
	p.internTyped(in)
	return in
}

// internTyped makes in share the TypedAttrs of an instruction parsed
// lately with the same opcode and the same values of the attributes
// decoded into it, at the same positions (Typed is read-only), and gives
// its own back to the arena: an instruction's typed attributes are
// mostly those of many others (dimensions={0}, index=1), and the module
// keeps them once. The instructions are found in slots indexed by a hash
// of those values; a slot keeps the last one.
func (p *chunkParser) internTyped(in *Instruction) {
	mask := p.typedAttrs
	if in.Typed == sharedNoTyped || p.typedOf != in || len(in.Attrs) > 63 {
		return
	}
	h := uint64(len(in.Opcode)) ^ mask
	for m := mask; m != 0; m &= m - 1 {
		h = (h ^ uint64(nameHash(in.Attrs[bits.TrailingZeros64(m)].Value))) * 0x9e3779b97f4a7c15
	}
	slot := &p.typedSlots[(h>>32)%uint64(len(p.typedSlots))]
	if rep := slot.rep; rep != nil && slot.mask == mask && rep.Opcode == in.Opcode && sameTyped(rep, in, mask) {
		if ar := p.ar.typedAr; len(ar) > 0 && &ar[len(ar)-1] == in.Typed {
			p.ar.typedAr = ar[:len(ar)-1]
		}
		in.Typed = rep.Typed
		return
	}
	slot.rep, slot.mask = in, mask
}

// sameTyped reports whether a and b have the same attributes at the
// positions in mask (both have them).
func sameTyped(a, b *Instruction, mask uint64) bool {
	for m := mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		if a.Attrs[i] != b.Attrs[i] {
			return false
		}
	}
	return true
}

// anonName names an instruction written inline as an operand as XLA's
// parser does: "<opcode>.anon", then "<opcode>.anon.1", ... when taken.
func (p *chunkParser) anonName(op string) string {
	base := op + ".anon"
	name := base
	for n := 1; p.names.get(name, p.insts) != nil; n++ {
		name = base + "." + strconv.Itoa(n)
	}
	return name
}

func (p *chunkParser) parseRest(name string, pos Pos, sh Shape, opName string, opPos Pos, top bool) (*Instruction, *opSlot) {
	op, slot, ok := p.opcode(opName)
	if !ok {
		switch w := asyncSugarOf(opName); {
		case opName == "":
			p.expected("opcode")
		case w != "":
			p.errorAt(opPos, "expects opcode but sees: "+opName+", error: Unknown opcode: "+opName+" ("+string(w)+" is not wrapped in async-start, -update and -done)")
		default:
			p.errorAt(opPos, "expected opcode, found unknown "+strconv.Quote(opName)+newerXLA)
		}
		return nil, nil
	}
	if !p.expect('(') {
		return nil, nil
	}
	if len(op) == len(opName) && len(op) > 0 && unsafe.StringData(string(op)) == unsafe.StringData(opName) {
		op = Opcode(p.keepStr(opName)) // async sugar, spelled as written
	}
	in := p.ar.inst()
	in.Name = p.keepStr(name)
	in.Pos = pos
	in.Shape = sh
	in.Opcode = op
	in.Parent = p.comp
	in.ParameterNumber = -1
	in.Typed = sharedNoTyped
	switch op {
	case OpParameter:
		n, ok := p.scanInt("parameter number")
		if !ok {
			return nil, nil
		}
		if n < 0 {
			p.errorAt(opPos, "parameter number must be >= 0, found "+strconv.FormatInt(n, 10))
			return nil, nil
		}
		if n > 1<<30 {
			p.expected("parameter number in [0, 2^30]")
			return nil, nil
		}
		if prev := p.params[n]; prev != nil {
			p.errorAt(pos, "expected unique parameter number, found duplicate parameter("+strconv.FormatInt(n, 10)+") (Duplicate parameter number "+strconv.FormatInt(n, 10)+"; first "+strconv.Quote(prev.Name)+")")
			return nil, nil
		}
		p.params[n] = in
		in.ParameterNumber = int(n)
		if !p.expect(')') {
			return nil, nil
		}
	case OpConstant:
		p.skipSpace()
		sub := p.scanner
		lit, ok := p.scanLiteral()
		if !ok {
			return nil, nil
		}
		sub.end = p.off - 1 // before ')'
		if err := checkLiteral(sub, sh); err != nil {
			p.err = err
			return nil, nil
		}
		in.Literal = p.keepStr(lit)
	default:
		opsPos := p.pos()
		if !p.parseOperands(in) {
			return nil, nil
		}
		if n := slot.infoOf(op).Arity; n >= 0 && len(in.Operands) != n {
			p.errorAt(opsPos, "expected "+strconv.Itoa(n)+" operands for "+string(op)+", found "+strconv.Itoa(len(in.Operands)))
			return nil, nil
		}
	}
	if top {
		base := len(p.attrs)
		var allowed attrSet // what in may carry, once it has an attribute
		var typed uint64    // which attributes in.Typed holds (see internTyped)
		for first := true; p.accept(','); first = false {
			if first {
				allowed = slot.allowedOf(in)
			}
			if !p.parseAttr(in, base, &allowed) {
				return nil, nil
			}
			if p.decoded { // the attribute just appended
				typed |= 1 << min(len(p.attrs)-1-base, 63) // the 64th on are not told apart
			}
		}
		p.typedOf, p.typedAttrs = in, typed
		in.Attrs = p.ar.attrList(p.attrs[base:])
		p.attrs = p.attrs[:base]
	}
	p.insts = append(p.insts, in)
	if at := int(p.names.add(name, len(p.insts)-1, p.insts).at); at != len(p.insts)-1 {
		prev := p.insts[at]
		p.insts = p.insts[:len(p.insts)-1]
		p.errorAt(pos, "expected unique instruction name, found duplicate "+strconv.Quote(name)+" (first at "+strconv.Itoa(prev.Pos.Line)+":"+strconv.Itoa(prev.Pos.Col)+")")
		return nil, nil
	}
	return in, slot
}

// scanLiteral returns the text inside constant(...), verbatim, and moves
// past the closing ')'.
func (p *chunkParser) scanLiteral() (string, bool) {
	p.skipSpace()
	start := p.off
	depth := 0
	for p.off < p.end {
		c := p.src[p.off]
		switch c {
		case '"':
			if !p.skipString() {
				return "", false
			}
			continue
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			if depth == 0 {
				if c != ')' {
					p.errorAt(p.pos(), "expected ')', found "+quoteByte(c)+" (unexpected "+quoteByte(c)+" token)")
					return "", false
				}
				lit := p.src[start:p.off]
				if strings.Contains(lit, "/") {
					lit = stripLiteralComments(lit)
				}
				lit = strings.TrimRight(lit, " \t\n")
				if lit == "" {
					p.expected("literal")
					return "", false
				}
				p.off++
				return lit, true
			}
			depth--
		case '\n':
			p.line++
			p.lineStart = p.off + 1
		case '/':
			if n := p.peekAt(1); n == '/' || n == '*' {
				p.skipSpace()
				continue
			}
		}
		p.off++
	}
	p.expected("')'")
	return "", false
}

// parseOperands parses "[shape] name, ..." up to ')'. An operand written as
// "[shape] opcode(...)" is an inline instruction and is hoisted, named as
// XLA names it (anonName).
func (p *chunkParser) parseOperands(in *Instruction) bool {
	base := len(p.operands)
	defer func() { p.operands = p.operands[:base] }()
	if !p.accept(')') {
		for {
			if opnd := p.recentOperand(); opnd != nil {
				p.spelling.count(true)
				p.operands = append(p.operands, opnd)
				if !p.accept(',') {
					break
				}
				continue
			}
			start := p.scanner
			hasShape := p.looksLikeShape()
			var sh Shape
			shapeAt, shapeEnd := p.scanner, -1
			if hasShape {
				if e := p.compactShapeEnd(); e > 0 {
					p.off, shapeEnd = e, e // parsed below unless declared so
				} else if !p.parseOperandShape(&sh) {
					return false
				}
			}
			p.skipSpace()
			pos := p.pos()
			name := p.scanName()
			// declared is the operand when it was declared with the
			// operand's shape text, which then need not be parsed; else
			// the shape is parsed before anything else may fail.
			var declared *Instruction
			if shapeEnd > 0 {
				declared = p.declaredWith(name, p.src[shapeAt.off:shapeEnd])
				if declared == nil {
					after := p.scanner
					p.scanner = shapeAt
					if !p.parseOperandShape(&sh) {
						return false
					}
					p.scanner = after
				}
			}
			var opnd *Instruction
			switch {
			case name != "" && p.peek() == '(':
				if p.depth >= maxShapeDepth {
					p.expected("operands nested at most 64 deep")
					return false
				}
				p.opndAr.reset()
				p.scanner = start // the inline instruction's shape and opcode
				p.depth++
				opnd = p.parseRHS(p.anonName(name), pos, false)
				p.depth--
				if opnd == nil {
					return false
				}
			case name == "" && hasShape && p.missing != nil:
				opnd = p.missing("", sh, pos)
			case name == "":
				p.expected("operand name (expects name)")
				return false
			case declared != nil:
				p.spelling.count(hasShape)
				opnd = declared
			default:
				p.spelling.count(hasShape)
				opnd = p.names.get(name, p.insts)
				if opnd == nil && p.missing != nil {
					if !hasShape {
						p.errorAt(pos, "Operand had no shape in HLO text; cannot create parameter for operand "+strconv.Quote(name))
						return false
					}
					opnd = p.missing(name, sh, pos)
				}
				if opnd == nil {
					p.errorAt(pos, "expected defined instruction, found "+strconv.Quote(name)+" (instruction does not exist: "+name+")")
					return false
				}
				if opnd = p.tupleElements(opnd, pos); opnd == nil {
					return false
				}
				if hasShape && opnd.Shape.Type != Invalid && !Compatible(sh, opnd.Shape) {
					p.errorAt(pos, "The declared operand shape "+sh.String()+" is not compatible with the shape of the operand instruction "+opnd.Shape.String()+".")
					return false
				}
				p.opndAr.reset()
			}
			p.operands = append(p.operands, opnd)
			if !p.accept(',') {
				break
			}
		}
		if !p.expect(')') {
			return false
		}
	}
	in.Operands = p.ar.instPtrs(p.operands[base:])
	return true
}

// parseOperandShape parses an operand's shape into sh.
func (p *chunkParser) parseOperandShape(sh *Shape) bool {
	keep := p.ar
	p.ar = &p.opndAr
	p.operandShape = true
	var ok bool
	*sh, ok = p.parseShape()
	p.operandShape = false
	p.ar = keep
	return ok
}

// compactShapeEnd returns the end of the array shape text at the current
// offset when the shape cache would take it (see shapeTextEnd), else -1.
func (p *chunkParser) compactShapeEnd() int {
	if p.cache == nil {
		return -1
	}
	return shapeTextEnd(p.src, p.off, p.end)
}

// recentShape reads an instruction's shape written as one of the last
// few instructions was declared, then a blank: that instruction's shape,
// the one the cache of shapes gives the text, without scanning it or
// asking the cache. It returns the shape and its text, or "" without
// moving.
func (p *chunkParser) recentShape() (Shape, string) {
	p.skipSpace()
	rest := p.src[p.off:p.end]
	for at := min(len(p.insts), len(p.shapeTexts)) - 1; at >= max(len(p.insts)-4, 0); at-- {
		if text := p.declaredAt(at, rest); text != "" {
			p.off += len(text)
			return p.insts[at].Shape, text
		}
	}
	return Shape{}, ""
}

// recentOperand reads an operand written as "shape name" where the shape
// is written as one of the last few instructions was declared and the
// name is that instruction's, followed by ',' or ')': the operand is that
// instruction, as the steps of parseOperands find (declaredWith), without
// scanning the shape and the name or looking the name up. Most operands
// are one of the last few instructions (half of mobilenet_v2's the one
// just before). Otherwise it returns nil and does not move.
func (p *chunkParser) recentOperand() *Instruction {
	p.skipSpace()
	rest := p.src[p.off:p.end]
	for at := min(len(p.insts), len(p.shapeTexts)) - 1; at >= max(len(p.insts)-4, 0); at-- {
		text := p.declaredAt(at, rest)
		if text == "" {
			continue
		}
		i := len(text) + 1
		if i < len(rest) && rest[i] == '%' {
			i++
		}
		name := p.insts[at].Name
		if !strings.HasPrefix(rest[i:], name) {
			continue
		}
		i += len(name)
		j := i
		for j < len(rest) && rest[j] == ' ' {
			j++
		}
		if j == len(rest) || rest[j] != ',' && rest[j] != ')' {
			continue // a longer name, a tuple index, operands or a line end
		}
		p.off += i
		return p.insts[at]
	}
	return nil
}

// declaredAt returns the compact shape text p.insts[at] was declared with
// when rest starts with it and a blank; else "".
func (p *chunkParser) declaredAt(at int, rest string) string {
	text := p.shapeTexts[at]
	if text == "" || len(rest) <= len(text) || rest[len(text)] != ' ' || rest[:len(text)] != text {
		return ""
	}
	return text
}

// declaredWith returns the instruction of the computation named name, the
// operand just read, when it was declared with the shape text text and is
// not followed by a tuple index or its own operands; else nil.
func (p *chunkParser) declaredWith(name, text string) *Instruction {
	if name == "" || p.peek() == '(' {
		return nil
	}
	save := p.scanner
	p.skipSpace()
	next := p.peek()
	p.scanner = save
	if next == '#' {
		return nil
	}
	at := p.names.find(name, p.insts)
	if at < 0 || at >= len(p.shapeTexts) || p.shapeTexts[at] != text {
		return nil
	}
	return p.insts[at]
}

// parseAttr parses one "name=value" after an instruction's operands, one
// of the attributes allowed.
func (p *chunkParser) parseAttr(in *Instruction, base int, allowed *attrSet) bool {
	p.skipSpace()
	pos := p.pos()
	e, ok := p.attrName(base)
	if !ok {
		return false
	}
	name, kind := e.name, e.kind
	p.decoded = false
	if !allowed.hasBit(e.bit) {
		p.errorAt(pos, "unexpected attribute "+strconv.Quote(name)+" for "+string(in.Opcode)+": expected one of "+attrNamesOf(*allowed))
		return false
	}
	if !p.expect('=') {
		return false
	}
	switch kind {
	case attrCompRef:
		v, ok := p.parseCompRefs(in, name)
		if !ok {
			return false
		}
		p.attrs = append(p.attrs, Attribute{Name: name, Value: p.keepStr(v)})
		return true
	case attrCtrl:
		if p.ctrlFor == in {
			p.errorAt(pos, "expected unique attribute, found duplicate "+strconv.Quote(name))
			return false
		}
		p.ctrlFor = in
		return p.parseCtrl(in)
	}
	return p.parseAttrValue(in, name, kind)
}

// attrName reads a known attribute name not among the attributes from
// base on, and returns its entry.
func (p *chunkParser) attrName(base int) (attrEntry, bool) {
	pos := p.pos()
	if p.off == p.end || !isLetter(p.src[p.off]) {
		p.expected("attribute name")
		return attrEntry{}, false
	}
	entry, e, known := p.attrEntry()
	if !known {
		p.errorAt(pos, "expected attribute name, found unknown "+strconv.Quote(p.src[p.off:e])+newerXLA)
		return attrEntry{}, false
	}
	p.off = e
	for _, a := range p.attrs[base:] {
		if a.Name == entry.name {
			p.errorAt(pos, "expected unique attribute, found duplicate "+strconv.Quote(entry.name))
			return attrEntry{}, false
		}
	}
	return entry, true
}

// parseAttrValue reads the value of attribute name, keeps it, and decodes
// it when analyses read it.
func (p *chunkParser) parseAttrValue(in *Instruction, name string, kind attrKind) bool {
	p.skipSpace()
	sub := p.scanner
	// Values kept verbatim only (metadata, backend configs) repeat from
	// one instruction to the next; decoded ones are short and vary.
	var v string
	recent := false
	if kind == attrRaw {
		v, recent = p.scanRecentValue()
	}
	ok := recent
	if !recent {
		v, ok = p.scanValue("attribute value")
	}
	if !ok {
		return false
	}
	mesh := name == "replica_groups" && (strings.HasPrefix(v, "mesh[") || strings.HasPrefix(v, "maximal_mesh["))
	switch {
	case mesh: // mesh['x'=2,'y'=4] {'y'}: the group axes follow a blank
		v, ok = p.valueAfterBlank(sub.off, v, "mesh axes", func(c byte) bool { return c == '{' })
		v = p.keepStr(v) // not a value scanValue returns: not one to look for
	case name == "literal": // s32[] 1: a shape, a blank, then the literal
		v, ok = p.valueAfterBlank(sub.off, v, "literal", func(c byte) bool { return c != ',' && c != '\n' && c != '/' && c != '}' })
		v = p.keepStr(v)
	case !recent:
		v = p.keepValue(v)
	}
	if !ok {
		return false
	}
	p.attrs = append(p.attrs, Attribute{Name: name, Value: v})
	switch {
	case mesh:
		groups := meshReplicaGroups(v)
		if n := devicesPerGroup(v, groups); n >= 0 && n <= 1 {
			p.errorAt(sub.pos(), "MeshAxesReplicaGroupList must have more than one device per group, but got "+strconv.Itoa(n))
			return false
		}
		p.ownTyped(in).ReplicaGroups = groups
		p.decoded = true
	case kind == attrTyped:
		p.decoded = true
		sub.end = p.off
		p.ownTyped(in)
		decodeTyped(&sub, in, name)
		if sub.err != nil {
			p.err = sub.err
			return false
		}
		if name == "padding" && in.Opcode == OpPad {
			// XLA prints the canonical form of what it reads.
			if c := paddingText(in.Typed.Padding); c != v {
				p.attrs[len(p.attrs)-1].Value = p.keepStr(c)
			}
		}
	}
	return true
}

// valueAfterBlank extends value v, which started at start, by a second
// part that follows blanks when its first byte satisfies next.
func (p *chunkParser) valueAfterBlank(start int, v, what string, next func(byte) bool) (string, bool) {
	i := p.off
	for i < p.end && (p.src[i] == ' ' || p.src[i] == '\t') {
		i++
	}
	if i >= p.end || !next(p.src[i]) {
		return v, true
	}
	p.off = i
	if _, ok := p.scanValue(what); !ok {
		return "", false
	}
	return p.src[start:p.off], true
}

// ownTyped gives in its own TypedAttrs (from the arena) in place of the
// shared one, and returns it.
func (p *chunkParser) ownTyped(in *Instruction) *TypedAttrs {
	if in.Typed == sharedNoTyped {
		in.Typed = p.ar.typed()
	}
	return in.Typed
}

// parseNameList parses "name" or "{name, name, ...}" and calls f for each.
func (p *chunkParser) parseNameList(what string, f func(name string, pos Pos)) (braced bool, ok bool) {
	name := func() bool {
		p.skipSpace()
		pos := p.pos()
		n := p.scanName()
		if n == "" {
			p.expected(what)
			return false
		}
		f(n, pos)
		return true
	}
	p.skipSpace()
	if p.peek() != '{' {
		return false, name()
	}
	p.off++
	if p.accept('}') {
		return true, true
	}
	for {
		if !name() {
			return true, false
		}
		if !p.accept(',') {
			break
		}
	}
	return true, p.expect('}')
}

// parseCompRefs parses the computation names of calls=, to_apply=, ...;
// the value kept is the names without '%': "f" or "{f, g}".
func (p *chunkParser) parseCompRefs(in *Instruction, attr string) (string, bool) {
	if p.inlineComputation() {
		return p.parseInlineComputations(in, attr)
	}
	var names []string
	braced, ok := p.parseNameList("computation name", func(n string, pos Pos) {
		names = append(names, n)
		p.calls = append(p.calls, callRef{inst: in, name: n, pos: pos})
	})
	if !ok {
		return "", false
	}
	if !braced {
		return names[0], true
	}
	return "{" + strings.Join(names, ", ") + "}", true
}

// inlineComputation reports whether the text at the current offset is a
// computation written inline, "{ name = ..." (or a list of them,
// "{ {...}, {...} }"), where computation names belong.
func (p *chunkParser) inlineComputation() bool {
	save := p.scanner
	defer func() { p.scanner = save }()
	if !p.accept('{') {
		return false
	}
	p.skipSpace()
	if p.peek() == '{' || peekWord(&p.scanner) == "ROOT" || p.looksLikeShape() {
		return true
	}
	p.accept('%')
	return p.scanName() != "" && p.accept('=')
}

// parseInlineComputations parses computations written inline as the
// value of attribute attr of in, "{ body }" or "{ {body}, {body} }", as
// XLA reads them (its canonical printing writes them so): each becomes a
// computation of the module named "<computation>.<instruction>.<attr>"
// (".<k>" added in a list), and the attribute names it.
func (p *chunkParser) parseInlineComputations(in *Instruction, attr string) (string, bool) {
	save := p.scanner
	p.accept('{')
	p.skipSpace()
	list := p.peek() == '{'
	if !list {
		p.scanner = save
	}
	var names []string
	for {
		p.skipSpace()
		pos := p.pos()
		name := p.comp.Name + "." + in.Name + "." + attr
		if list {
			name += "." + strconv.Itoa(len(names))
		}
		if !p.parseInlineComputation(name) {
			return "", false
		}
		names = append(names, name)
		p.calls = append(p.calls, callRef{inst: in, name: name, pos: pos})
		if !list || !p.accept(',') {
			break
		}
	}
	if !list {
		return names[0], true
	}
	if !p.expect('}') {
		return "", false
	}
	return "{" + strings.Join(names, ", ") + "}", true
}

// parseInlineComputation parses "{ instruction... }" as computation name,
// in a scope of its own, and adds it to p.nested.
func (p *chunkParser) parseInlineComputation(name string) bool {
	outer := p.compScope
	defer func() { p.compScope = outer }()
	p.compScope = newCompScope()
	c := &Computation{Name: p.keepStr(name), Pos: p.pos()}
	p.comp = c
	if !p.expect('{') {
		return false
	}
	for !p.accept('}') {
		if p.atEOF() {
			p.expected("'}'")
			return false
		}
		if !p.parseStatement() {
			return false
		}
	}
	if len(p.insts) == 0 {
		p.expected("instruction")
		return false
	}
	if !p.finishComputation(c) {
		return false
	}
	p.nested = append(p.nested, c)
	return true
}

func (p *chunkParser) parseCtrl(in *Instruction) bool {
	_, ok := p.parseNameList("instruction name", func(n string, pos Pos) {
		p.ctrl = append(p.ctrl, ctrlRef{inst: in, name: n, pos: pos})
	})
	return ok
}

// finishComputation sets the root, the parameters and the control
// predecessors once all instructions are read.
func (p *chunkParser) finishComputation(c *Computation) bool {
	c.Instructions = p.ar.instPtrs(p.insts)
	maxParam := -1
	for i, in := range c.Instructions {
		in.Index = i
		if in.ParameterNumber > maxParam {
			maxParam = in.ParameterNumber
		}
	}
	c.Root = p.rootSeen
	if c.Root == nil {
		c.Root = c.Instructions[len(c.Instructions)-1]
	}
	if sig := p.sigShape; sig != nil && c.Root.Shape.Type != Invalid && !Compatible(*sig, c.Root.Shape) {
		p.errorAt(p.sigPos, "Shape of computation "+c.Name+", "+sig.StringNoLayout()+", is not compatible with that of its root instruction "+c.Root.Name+", "+c.Root.Shape.StringNoLayout())
		return false
	}
	if maxParam >= 0 {
		if maxParam >= len(c.Instructions) {
			for _, in := range c.Instructions {
				if in.ParameterNumber == maxParam {
					p.errorAt(in.Pos, "expected parameter numbers 0.."+strconv.Itoa(maxParam)+" without gaps, found parameter("+strconv.Itoa(maxParam)+")")
				}
			}
			return false
		}
		c.Params = make([]*Instruction, maxParam+1)
		for _, in := range c.Instructions {
			if n := in.ParameterNumber; n >= 0 {
				c.Params[n] = in // unique: parseRest checks
			}
		}
		for n, in := range c.Params {
			if in == nil {
				p.errorAt(c.Pos, "expected parameter numbers 0.."+strconv.Itoa(maxParam)+" without gaps, found no parameter("+strconv.Itoa(n)+")")
				return false
			}
		}
	}
	for _, r := range p.ctrl {
		pred := p.names.get(r.name, p.insts)
		if pred == nil {
			p.errorAt(r.pos, "expected defined instruction, found "+strconv.Quote(r.name)+" ('"+r.name+"' is not defined)")
			return false
		}
		r.inst.ControlPredecessors = append(r.inst.ControlPredecessors, pred)
	}
	p.nameImplicit()
	return true
}

// stripLiteralComments removes // and /* */ comments from a literal's text
// (literals hold no strings), so that the literal prints on its own. The
// index comments XLA writes in literals of rank 3 and more ("/*i0=1*/")
// are kept: they print back as XLA prints them.
func stripLiteralComments(lit string) string {
	var b strings.Builder
	for i := 0; i < len(lit); i++ {
		if lit[i] == '/' && i+1 < len(lit) {
			switch lit[i+1] {
			case '/':
				j := strings.IndexByte(lit[i:], '\n')
				if j < 0 {
					return b.String()
				}
				i += j - 1
				continue
			case '*':
				j := strings.Index(lit[i+2:], "*/")
				if j < 0 {
					return b.String()
				}
				if isIndexComment(lit[i+2 : i+2+j]) {
					b.WriteString(lit[i : i+j+4])
				} else {
					b.WriteByte(' ')
				}
				i += j + 3
				continue
			}
		}
		b.WriteByte(lit[i])
	}
	return b.String()
}

// isIndexComment reports whether c, the text inside a comment, is one of
// the index comments of XLA's literals: "i<dim>=<index>".
func isIndexComment(c string) bool {
	d, idx, ok := strings.Cut(c, "=")
	if !ok || len(d) < 2 || d[0] != 'i' || idx == "" {
		return false
	}
	for _, s := range []string{d[1:], idx} {
		for i := 0; i < len(s); i++ {
			if !isDigit(s[i]) {
				return false
			}
		}
	}
	return true
}
