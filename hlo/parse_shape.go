package hlo

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// arena hands out small slices and structs from large blocks, so that a
// parse allocates a few big blocks instead of one object per shape. Every
// slice it returns has its capacity clipped, so appending to one never
// writes into another.
type arena struct {
	// limit, when not 0, caps the size of a new block (a text of n bytes
	// holds fewer than n numbers, layouts or tiles): a standalone shape or
	// layout gets blocks its size, not a large module's.
	limit   int
	ints    []int64
	tiles   []Tile
	layouts []Layout
	insts   []Instruction
	ptrs    []*Instruction
	attrs   []Attribute
	typedAr []TypedAttrs
}

// typed returns a TypedAttrs set to NewTypedAttrs' value.
func (a *arena) typed() *TypedAttrs {
	if len(a.typedAr) == cap(a.typedAr) {
		a.typedAr = make([]TypedAttrs, 0, a.block(64, 1))
	}
	a.typedAr = append(a.typedAr, noTypedAttrs)
	return &a.typedAr[len(a.typedAr)-1]
}

const arenaBlock = 4096

// block is the capacity of a new block of size items (at most the
// arena's limit) that must hold n.
func (a *arena) block(size, n int) int {
	if a.limit > 0 {
		size = min(size, a.limit)
	}
	return max(size, n)
}

func (a *arena) int64s(src []int64) []int64 {
	n := len(src)
	if cap(a.ints)-len(a.ints) < n {
		a.ints = make([]int64, 0, a.block(arenaBlock, n))
	}
	l := len(a.ints)
	a.ints = append(a.ints, src...)
	return a.ints[l : l+n : l+n]
}

func (a *arena) layout() *Layout {
	if len(a.layouts) == cap(a.layouts) {
		a.layouts = make([]Layout, 0, a.block(256, 1))
	}
	a.layouts = a.layouts[:len(a.layouts)+1]
	l := &a.layouts[len(a.layouts)-1]
	*l = Layout{}
	return l
}

func (a *arena) tileList(src []Tile) []Tile {
	n := len(src)
	if cap(a.tiles)-len(a.tiles) < n {
		a.tiles = make([]Tile, 0, a.block(1024, n))
	}
	l := len(a.tiles)
	a.tiles = append(a.tiles, src...)
	return a.tiles[l : l+n : l+n]
}

// reset empties the arena for reuse; what it handed out before must no
// longer be used.
func (a *arena) reset() {
	a.ints = a.ints[:0]
	a.tiles = a.tiles[:0]
	a.layouts = a.layouts[:0]
}

// inst returns a zero Instruction. Blocks hold 256: a block is a large
// object, a whole number of 8 KiB pages, and 256 instructions of 288
// bytes fill 9 pages (128 took 4.6 and were given 5).
func (a *arena) inst() *Instruction {
	if len(a.insts) == cap(a.insts) {
		a.insts = make([]Instruction, 0, a.block(256, 1))
	}
	a.insts = a.insts[:len(a.insts)+1]
	return &a.insts[len(a.insts)-1]
}

func (a *arena) instPtrs(src []*Instruction) []*Instruction {
	n := len(src)
	if n == 0 {
		return nil
	}
	if cap(a.ptrs)-len(a.ptrs) < n {
		a.ptrs = make([]*Instruction, 0, a.block(arenaBlock, n))
	}
	l := len(a.ptrs)
	a.ptrs = append(a.ptrs, src...)
	return a.ptrs[l : l+n : l+n]
}

func (a *arena) attrList(src []Attribute) []Attribute {
	n := len(src)
	if n == 0 {
		return nil
	}
	if cap(a.attrs)-len(a.attrs) < n {
		a.attrs = make([]Attribute, 0, a.block(1024, n))
	}
	l := len(a.attrs)
	a.attrs = append(a.attrs, src...)
	return a.attrs[l : l+n : l+n]
}

// shapeParser parses shapes and layouts; the instruction parser embeds it.
type shapeParser struct {
	scanner
	ar      *arena
	scratch []int64
	tileBuf []Tile
	tuples  []Shape // the elements of the tuples being parsed
	depth   int
	// cache maps the text of array shapes already parsed to their shape,
	// whose Dims, Dynamic and Layout are then shared by every instruction
	// written with the same text; nil disables it. keep is the arena cached
	// shapes come from (p.ar may be a scratch arena that is reset).
	cache map[string]Shape
	keep  *arena
	// recent are shapes of the cache found lately, by their text (see
	// cachedShape).
	recent [128]struct {
		text string
		sh   Shape
	}
	// lastType is the element type read last, named lastTypeName in the
	// text (shapes in a row mostly share it).
	lastTypeName string
	lastType     PrimitiveType
	// operandShape is set while an operand's shape is parsed: it is only
	// checked, so a cached tuple may be returned. The tuple shapes kept by
	// instructions are not shared, since layout assignment sets the
	// layouts of tuple elements in place.
	operandShape bool
	// cachedText is where the text of the shape cachedShape returned last
	// starts and ends.
	cachedText [2]int
}

// primitiveType is LookupPrimitiveType, remembering the last type found.
func (p *shapeParser) primitiveType(name string) (PrimitiveType, bool) {
	if name == p.lastTypeName && name != "" {
		return p.lastType, true
	}
	t, ok := LookupPrimitiveType(name)
	if ok {
		p.lastTypeName, p.lastType = name, t
	}
	return t, ok
}

// tupleTextEnd returns the end of the tuple shape text starting at the
// '(' at off, when it is on one line without strings or line comments
// (blanks and /*index=N*/ are fine); otherwise -1.
func tupleTextEnd(src string, off, end int) int {
	depth := 0
	for i := off; i < end; i++ {
		switch src[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '\n', '\r', '"':
			return -1
		case '/':
			if i+1 < end && src[i+1] == '/' {
				return -1
			}
		}
	}
	return -1
}

// shapeTextEnd returns the end of the array shape text starting at off
// ("bf16[8,128]{1,0:T(8,128)(2,1)}") when the text is compact enough to be
// a cache key: no blanks, comments, strings or newlines inside. Otherwise
// it returns -1 and the shape is parsed without the cache.
func shapeTextEnd(src string, off, end int) int {
	src = src[:end]
	i := off
	for i < len(src) && isAlnum(src[i]) {
		i++
	}
	if i == off || i >= len(src) || src[i] != '[' {
		return -1
	}
	for i++; i < len(src) && charClass[src[i]]&classDim != 0; i++ {
	}
	if i >= len(src) || src[i] != ']' {
		return -1
	}
	i++
	if i >= len(src) || src[i] != '{' {
		return i
	}
	depth := 0
	for ; i < len(src); i++ {
		switch c := src[i]; {
		case !layoutSpecial[c]:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		default:
			return -1
		}
	}
	return -1
}

// layoutSpecial marks the bytes shapeTextEnd looks at in a layout: its
// braces, and what ends a compact text.
var layoutSpecial = [256]bool{'{': true, '}': true, ' ': true, '\t': true, '\n': true, '\r': true, '/': true, '"': true}

const maxShapeDepth = 64

// looksLikeShape reports whether a shape starts at the current offset
// (after space): a '(' or a primitive type name followed by '['.
func (p *shapeParser) looksLikeShape() bool {
	p.skipSpace()
	if p.off >= p.end {
		return false
	}
	c := p.src[p.off]
	if c == '(' || c == 'b' && p.peekAt(1) == '(' {
		return true
	}
	if !isLetter(c) {
		return false
	}
	i := p.off + 1
	for i < p.end && isAlnum(p.src[i]) {
		i++
	}
	if j := skipBlanks(p.src, i, p.end); j >= p.end || p.src[j] != '[' {
		return false
	}
	_, ok := p.primitiveType(p.src[p.off:i])
	return ok
}

// skipBlanks returns the offset of the first byte at or after i that is
// not white space: XLA's lexer separates the element type from its
// dimensions, so "s32 [5696,10,4]" is a shape.
func skipBlanks(src string, i, end int) int {
	for i < end && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

// parseShape parses "f32[2,<=3,?]{1,0:T(8,128)}", a tuple "(s32[], f32[2])"
// or a buffer "b(f32[2]{0})".
func (p *shapeParser) parseShape() (Shape, bool) {
	p.skipSpace()
	if p.peek() == 'b' && p.peekAt(1) == '(' {
		return p.parseBufferShape()
	}
	if p.peek() == '(' {
		if p.cache != nil && p.operandShape {
			if e := tupleTextEnd(p.src, p.off, p.end); e > 0 {
				return p.cachedShape(e, p.parseTupleShape)
			}
		}
		return p.parseTupleShape()
	}
	if p.cache != nil {
		if e := shapeTextEnd(p.src, p.off, p.end); e > 0 {
			return p.cachedShape(e, p.parseArrayShape)
		}
	}
	return p.parseArrayShape()
}

// cachedShape returns the shape whose text ends at e from the cache, or
// parses it with parse into the kept arena and caches it.
func (p *shapeParser) cachedShape(e int, parse func() (Shape, bool)) (Shape, bool) {
	key := p.src[p.off:e]
	n := len(key)
	slot := &p.recent[(31*n+7*int(key[n/2])+3*int(key[n/3])+int(key[max(n-3, 0)]))%len(p.recent)]
	if slot.text == key {
		p.cachedText = [2]int{p.off, e}
		p.off = e
		return slot.sh, true
	}
	if sh, ok := p.cache[key]; ok {
		slot.text, slot.sh = key, sh
		p.cachedText = [2]int{p.off, e}
		p.off = e
		return sh, true
	}
	start := p.off
	ar := p.ar
	p.ar = p.keep
	sh, ok := parse()
	p.ar = ar
	if ok && p.off == e {
		p.cache[key] = sh
		p.cachedText = [2]int{start, e}
	}
	return sh, ok
}

// parseArrayShape parses a non-tuple shape.
func (p *shapeParser) parseArrayShape() (Shape, bool) {
	start := p.off
	i := start
	for i < p.end && isAlnum(p.src[i]) {
		i++
	}
	t, ok := p.primitiveType(p.src[start:i])
	j := skipBlanks(p.src, i, p.end)
	if !ok || t == TUPLE || j >= p.end || p.src[j] != '[' {
		p.expected("shape")
		return Shape{}, false
	}
	p.off = j + 1
	sh := Shape{Type: t}
	dimsPos := p.pos()
	dims := p.scratch[:0]
	var dynamic []bool
	p.skipSpace()
	if p.peek() != ']' {
		for {
			p.skipSpace()
			switch {
			case p.peek() == '?':
				p.off++
				dynamic = markDynamic(dynamic, len(dims))
				dims = append(dims, UnboundedDim)
			case p.peek() == '<' && p.peekAt(1) == '=':
				p.off += 2
				d, ok := p.scanInt("dimension bound")
				if !ok {
					return Shape{}, false
				}
				if d < 0 {
					p.expected("non-negative dimension bound")
					return Shape{}, false
				}
				dynamic = markDynamic(dynamic, len(dims))
				dims = append(dims, d)
			default:
				dpos := p.pos()
				d, ok := p.scanInt("dimension size")
				if !ok {
					return Shape{}, false
				}
				if d < 0 {
					p.errorAt(dpos, "expected non-negative dimension size, found "+itoa(d))
					return Shape{}, false
				}
				dims = append(dims, d)
			}
			if !p.accept(',') {
				break
			}
		}
	}
	p.scratch = dims[:0]
	if !p.expect(']') {
		return Shape{}, false
	}
	if !sizeFits(dims, t) {
		p.errorAt(dimsPos, "expected an array whose size in bits fits in an int64, found "+t.String()+"["+joinDims(dims)+"]")
		return Shape{}, false
	}
	if len(dims) > 0 {
		sh.Dims = p.ar.int64s(dims)
	} else if t.IsArray() {
		sh.Dims = []int64{}
	}
	if dynamic != nil {
		for len(dynamic) < len(dims) {
			dynamic = append(dynamic, false)
		}
		sh.Dynamic = dynamic
	}
	if !t.IsArray() && len(dims) > 0 {
		p.errorAt(p.pos(), "expected no dimensions for "+t.String()+", found "+itoa(int64(len(dims))))
		return Shape{}, false
	}
	// A layout follows the ']' immediately; "f32[2] {" is a shape then a body.
	if p.off < p.end && p.src[p.off] == '{' {
		l, ok := p.parseLayout(len(dims))
		if !ok {
			return Shape{}, false
		}
		if t.IsArray() {
			sh.Layout = l
		}
	}
	return sh, true
}

func itoa(v int64) string {
	var b [24]byte
	return string(strconv.AppendInt(b[:0], v, 10))
}

func markDynamic(d []bool, i int) []bool {
	for len(d) < i {
		d = append(d, false)
	}
	return append(d, true)
}

// parseBufferShape parses "b(f32[8]{0})", the buffer shape of an array.
func (p *shapeParser) parseBufferShape() (Shape, bool) {
	p.off += 2 // "b("
	pos := p.pos()
	if p.skipSpace(); !isLetter(p.peek()) {
		p.expected("primitive type")
		return Shape{}, false
	}
	sh, ok := p.parseShape()
	if !ok {
		return Shape{}, false
	}
	if !sh.IsArray() || sh.Buffer {
		p.errorAt(pos, "expected an array shape inside b(...), found "+sh.StringNoLayout())
		return Shape{}, false
	}
	if !p.expectPhrase(')', "expects ')' at the end of buffer shape") {
		return Shape{}, false
	}
	sh.Buffer = true
	return sh, true
}

func (p *shapeParser) parseTupleShape() (Shape, bool) {
	if p.depth >= maxShapeDepth {
		p.expected("shape nested at most 64 deep")
		return Shape{}, false
	}
	p.depth++
	// The elements are gathered on top of p.tuples (a nested tuple
	// gathers above them) and copied into a slice of their number.
	base := len(p.tuples)
	defer func() {
		p.depth--
		clear(p.tuples[base:])
		p.tuples = p.tuples[:base]
	}()
	p.off++ // '('
	if !p.accept(')') {
		for {
			e, ok := p.parseShape()
			if !ok {
				return Shape{}, false
			}
			p.tuples = append(p.tuples, e)
			if !p.accept(',') {
				break
			}
		}
		if !p.expect(')') {
			return Shape{}, false
		}
	}
	elems := make([]Shape, len(p.tuples)-base) // not nil when empty
	copy(elems, p.tuples[base:])
	return Shape{Type: TUPLE, Tuple: elems}, true
}

// parseLayout parses "{3,2,0,1:T(8,128)(2,1)S(1)}" at the current '{'.
func (p *shapeParser) parseLayout(rank int) (*Layout, bool) {
	open := p.pos()
	p.off++ // '{'
	l := p.ar.layout()
	m2m := p.scratch[:0]
	p.skipSpace()
	if c := p.peek(); c != ':' && c != '}' {
		for {
			d, ok := p.scanInt("minor_to_major dimension")
			if !ok {
				return nil, false
			}
			m2m = append(m2m, d)
			if !p.accept(',') {
				break
			}
		}
	}
	p.scratch = m2m[:0]
	if len(m2m) > 0 {
		if len(m2m) != rank {
			p.errorAt(open, "expected "+itoa(int64(rank))+" minor_to_major dimensions, found "+itoa(int64(len(m2m)))+
				" (Dimensions size is "+itoa(int64(rank))+", but minor to major size is "+itoa(int64(len(m2m)))+".)")
			return nil, false
		}
		var seen uint64
		for _, d := range m2m {
			if d < 0 || d >= int64(rank) || d < 64 && seen&(1<<uint(d)) != 0 {
				p.errorAt(open, "expected a permutation of 0.."+itoa(int64(rank-1))+" in minor_to_major, found "+itoa(d))
				return nil, false
			}
			if d < 64 {
				seen |= 1 << uint(d)
			}
		}
		l.MinorToMajor = p.ar.int64s(m2m)
	} else {
		l.MinorToMajor = []int64{}
		if rank > 0 && p.peek() != ':' && p.peek() != '}' {
			p.expected("minor_to_major dimension")
			return nil, false
		}
	}
	if p.accept(':') {
		if !p.parseLayoutItems(l) {
			return nil, false
		}
	}
	if !p.expect('}') {
		return nil, false
	}
	return l, true
}

func (p *shapeParser) parseLayoutItems(l *Layout) bool {
	for {
		p.skipSpace()
		ok := true
		switch c := p.peek(); {
		case c == '}':
			return true
		case c == 'D':
			p.off++
			open := p.pos()
			var raw string
			if raw, ok = p.parenRaw(); ok {
				if bad := badDimLevelType(raw); bad != "" {
					p.errorAt(open, "expected a DimLevelType abbreviation (D, C, or S), found "+strconv.Quote(bad))
					return false
				}
				l.DimLevelTypes = p.keepStr(raw)
			}
		case c == 'T':
			ok = p.parseTiles(l)
		case c == 'S' && p.peekAt(1) == 'C':
			start := p.off
			p.off += 2
			// One group per split dimension: SC(0:10)(1:4,5).
			_, ok = p.parenRaw()
			for ok && p.peek() == '(' {
				_, ok = p.parenRaw()
			}
			if ok {
				l.SplitConfigs += p.keepStr(p.src[start:p.off])
			}
		case c == 'L' || c == 'E' || c == 'M' || c == 'S':
			ok = p.parseLayoutInt(c, l)
		case c == '#' || c == '*':
			ok = p.parseLayoutType(c, l)
		case c == 'P':
			at := p.pos()
			if ok = p.parsePhysicalShape(l); ok {
				// XLA reads it, then refuses it: only sparse arrays had
				// one, and XLA has none left.
				p.errorAt(at, "Layout has physical shape, but is not for a sparse array: P("+l.PhysicalShape.String()+")")
				return false
			}
		default:
			p.expected("layout attribute (T, S, E, L, D, P, M, SC, # or *)")
			return false
		}
		if !ok {
			return false
		}
	}
}

// badDimLevelType returns the first item of D(...) that is not a
// dimension level type (D, C, S or H, each optionally followed by '+' and
// '~'), or "".
func badDimLevelType(raw string) string {
	for _, item := range strings.Split(raw, ",") {
		t := strings.TrimSpace(item)
		rest, _ := strings.CutSuffix(t, "~")
		rest, _ = strings.CutSuffix(rest, "+")
		if rest != "D" && rest != "C" && rest != "S" && rest != "H" {
			return t
		}
	}
	return ""
}

// parseTiles parses "T(8,128)(2,1)" into l.Tiles.
func (p *shapeParser) parseTiles(l *Layout) bool {
	p.off++ // 'T'
	if p.peek() != '(' {
		p.expected("'(' of a tile")
		return false
	}
	base := len(p.tileBuf)
	defer func() { p.tileBuf = p.tileBuf[:base] }()
	for p.peek() == '(' {
		t, ok := p.parseTile()
		if !ok {
			return false
		}
		p.tileBuf = append(p.tileBuf, t)
	}
	l.Tiles = p.ar.tileList(p.tileBuf[base:])
	return true
}

// parseLayoutInt parses "L(n)", "E(n)", "M(n)" or "S(n)".
func (p *shapeParser) parseLayoutInt(c byte, l *Layout) bool {
	p.off++
	if !p.expect('(') {
		return false
	}
	what := "integer"
	if c == 'S' {
		what = "memory space"
	}
	v, ok := p.scanInt(what)
	if !ok || !p.expect(')') {
		return false
	}
	switch c {
	case 'L':
		l.TailPaddingAlignment = v
	case 'E':
		l.ElementSizeBits = v
	case 'M':
		l.DynamicShapeMetadataPrefixBytes = v
	default:
		l.MemorySpace = v
	}
	return true
}

// parseLayoutType parses the index type "#(u16)" or pointer type "*(u32)".
func (p *shapeParser) parseLayoutType(c byte, l *Layout) bool {
	p.off++
	if !p.expect('(') {
		return false
	}
	p.skipSpace()
	e := p.off
	for e < p.end && (isLetter(p.src[e]) || isDigit(p.src[e])) {
		e++
	}
	t, ok := p.primitiveType(p.src[p.off:e])
	if !ok {
		p.expected("primitive type")
		return false
	}
	p.off = e
	if !p.expect(')') {
		return false
	}
	if c == '#' {
		l.IndexType = t
	} else {
		l.PointerType = t
	}
	return true
}

// parsePhysicalShape parses "P(shape)".
func (p *shapeParser) parsePhysicalShape(l *Layout) bool {
	p.off++
	if !p.expect('(') {
		return false
	}
	if p.depth >= maxShapeDepth {
		p.expected("shape nested at most 64 deep")
		return false
	}
	p.depth++
	sh, ok := p.parseShape()
	p.depth--
	if !ok || !p.expect(')') {
		return false
	}
	l.PhysicalShape = &sh
	return true
}

// parenRaw returns the text inside a "(...)" group at the current offset.
func (p *shapeParser) parenRaw() (string, bool) {
	if p.peek() != '(' {
		p.expected("'('")
		return "", false
	}
	i := strings.IndexByte(p.src[p.off:p.end], ')')
	if i < 0 || strings.IndexByte(p.src[p.off:p.off+i], '\n') >= 0 {
		p.off++
		p.expected("')'")
		return "", false
	}
	raw := p.src[p.off+1 : p.off+i]
	p.off += i + 1
	return raw, true
}

func (p *shapeParser) parseTile() (Tile, bool) {
	p.off++ // '('
	t := p.scratch[:0]
	defer func() { p.scratch = t[:0] }()
	for {
		p.skipSpace()
		if p.peek() == '*' {
			p.off++
			t = append(t, CombinedDim)
		} else {
			v, ok := p.scanInt("tile dimension")
			if !ok {
				return nil, false
			}
			if v < 0 {
				p.expected("non-negative tile dimension")
				return nil, false
			}
			t = append(t, v)
		}
		if !p.accept(',') {
			break
		}
	}
	if !p.expect(')') {
		return nil, false
	}
	return p.ar.int64s(t), true
}

func newShapeParser(file, src string) *shapeParser {
	return &shapeParser{scanner: newScanner(file, src, 0, len(src), 1, 0), ar: &arena{limit: len(src)}}
}

// ParseShape parses a shape as XLA prints it, e.g. "f32[8,128]{1,0:T(8,128)}"
// or "(s32[], bf16[4]{0})".
func ParseShape(s string) (Shape, error) {
	p := newShapeParser("", s)
	sh, ok := p.parseShape()
	if ok {
		p.expectEnd("shape")
	}
	if p.err != nil {
		return Shape{}, p.err
	}
	return sh, nil
}

// ParseLayout parses a layout such as "{3,2,0,1:T(8,128)(2,1)S(1)}"; the
// rank is the number of minor_to_major entries.
func ParseLayout(s string) (Layout, error) {
	p := newShapeParser("", s)
	p.skipSpace()
	if p.peek() != '{' {
		p.expected("'{'")
		return Layout{}, p.err
	}
	rank := 0
	if i := strings.IndexAny(s[p.off:], ":}"); i > 0 {
		if inner := strings.TrimSpace(s[p.off+1 : p.off+i]); inner != "" {
			rank = strings.Count(inner, ",") + 1
		}
	}
	l, ok := p.parseLayout(rank)
	if ok {
		p.expectEnd("layout")
	}
	if p.err != nil {
		return Layout{}, p.err
	}
	return *l, nil
}

// sizeFits tells whether an array of type t and dims has a size in bits
// that an int64 holds, so that its element count, byte size, padded size
// and linear indices (at most a few times larger, checked where computed)
// are exact; unbounded dimensions count as none.
func sizeFits(dims []int64, t PrimitiveType) bool {
	n := uint64(max(t.BitWidth(), 8))
	for _, d := range dims {
		if d == UnboundedDim {
			continue
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return false
		}
		n = lo
	}
	return true
}

func joinDims(dims []int64) string {
	var b strings.Builder
	for i, d := range dims {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(d, 10))
	}
	return b.String()
}
