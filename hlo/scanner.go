package hlo

import (
	"strconv"
	"strings"
)

// scanner is the byte-level lexer shared by every parsing routine. It walks
// src[off:end], keeps the 1-based line and the offset where the current line
// starts (so positions cost nothing until an error needs one), and records
// the first error. Tokens are substrings of src: no per-token allocation.
type scanner struct {
	src       string
	off       int
	end       int
	line      int
	lineStart int
	file      string
	err       *Error
	// strs, when set, receives the strings kept from src (see strArena):
	// src is then a view of the caller's bytes.
	strs *strArena
}

func newScanner(file, src string, off, end, line, lineStart int) scanner {
	return scanner{src: src, off: off, end: end, line: line, lineStart: lineStart, file: file}
}

func (s *scanner) pos() Pos { return Pos{Line: s.line, Col: s.off - s.lineStart + 1} }

// errorf records an error at p unless one is already recorded.
func (s *scanner) errorAt(p Pos, msg string) {
	if s.err == nil {
		s.err = &Error{Filename: s.file, Pos: p, Msg: msg}
	}
}

// expected records "expected what, found <token here>" at the current
// position (after skipping space).
func (s *scanner) expected(what string) {
	s.skipSpace()
	s.errorAt(s.pos(), "expected "+what+", found "+s.found())
}

// advanceTo moves to offset stop, counting the newlines passed.
func (s *scanner) advanceTo(stop int) {
	seg := s.src[s.off:stop]
	if n := strings.Count(seg, "\n"); n > 0 {
		s.line += n
		s.lineStart = s.off + strings.LastIndexByte(seg, '\n') + 1
	}
	s.off = stop
}

// skipSpace skips blanks, newlines, "// ..." line comments (FileCheck lines
// included) and "/* ... */" comments such as /*index=5*/. It returns at
// once, inlined, when no blank or comment is next (the common case).
func (s *scanner) skipSpace() {
	if s.off < s.end && !spaceStart[s.src[s.off]] {
		return
	}
	s.skipSpaces()
}

// spaceStart marks the bytes a blank or a comment starts with.
var spaceStart = [256]bool{' ': true, '\t': true, '\r': true, '\f': true, '\v': true, '\n': true, '/': true}

func (s *scanner) skipSpaces() {
	if i := s.off; i+1 < s.end && s.src[i] == ' ' && !spaceStart[s.src[i+1]] {
		s.off++ // one blank, as between tokens
		return
	}
	for s.off < s.end {
		switch s.src[s.off] {
		case ' ', '\t', '\r', '\f', '\v':
			s.off++
		case '\n':
			s.off++
			s.line++
			s.lineStart = s.off
		case '/':
			if s.off+1 >= s.end {
				return
			}
			switch s.src[s.off+1] {
			case '/':
				i := strings.IndexByte(s.src[s.off:s.end], '\n')
				if i < 0 {
					s.off = s.end
					return
				}
				s.off += i
			case '*':
				i := strings.Index(s.src[s.off+2:s.end], "*/")
				if i < 0 {
					s.errorAt(s.pos(), "expected '*/' to close the comment that starts here, found none (unterminated comment)")
					s.advanceTo(s.end)
					return
				}
				s.advanceTo(s.off + 2 + i + 2)
			default:
				return
			}
		default:
			return
		}
	}
}

func (s *scanner) atEOF() bool { return s.off >= s.end }

// expectEnd reports "expected end of what" unless only blanks are left.
func (s *scanner) expectEnd(what string) {
	s.skipSpace()
	if !s.atEOF() {
		s.expected("end of " + what)
	}
}

// peek returns the byte at the current offset, or 0 at the end.
func (s *scanner) peek() byte {
	if s.off < s.end {
		return s.src[s.off]
	}
	return 0
}

func (s *scanner) peekAt(i int) byte {
	if s.off+i < s.end {
		return s.src[s.off+i]
	}
	return 0
}

// accept skips space and consumes c if it is next. It is inlined, and
// calls acceptAfterSpace only where a blank or a comment is next.
func (s *scanner) accept(c byte) bool {
	if s.off < s.end && !spaceStart[s.src[s.off]] {
		if s.src[s.off] == c {
			s.off++
			return true
		}
		return false
	}
	return s.acceptAfterSpace(c)
}

// acceptAfterSpace is accept where a blank or a comment may be next.
func (s *scanner) acceptAfterSpace(c byte) bool {
	s.skipSpaces()
	if s.off < s.end && s.src[s.off] == c {
		s.off++
		return true
	}
	return false
}

// expect skips space and consumes c, or records an error.
func (s *scanner) expect(c byte) bool {
	if s.accept(c) {
		return true
	}
	s.expected(quoteByte(c))
	return false
}

// expectPhrase skips space and consumes c, or records "phrase, found X"
// (phrase says what was expected, in XLA's words).
func (s *scanner) expectPhrase(c byte, phrase string) bool {
	if s.accept(c) {
		return true
	}
	s.errorAt(s.pos(), phrase+", found "+s.found())
	return false
}

func quoteByte(c byte) string { return strconv.QuoteRune(rune(c)) }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// isIdentChar reports the bytes of names: letters, digits, '_', '.', '-'.
func isIdentChar(c byte) bool { return charClass[c]&classIdent != 0 }

// isAlnum reports letters (with '_') and digits, the bytes of an element
// type's name.
func isAlnum(c byte) bool { return charClass[c]&classAlnum != 0 }

// charClass classifies the bytes names, type names and dimension lists
// are made of, so that a scan over them tests one table entry per byte.
var charClass = func() (t [256]uint8) {
	for c := range 256 {
		b := byte(c)
		if isLetter(b) || isDigit(b) {
			t[c] |= classAlnum | classIdent
		}
		if b == '.' || b == '-' {
			t[c] |= classIdent
		}
		if isDigit(b) || strings.IndexByte(",<=?-", b) >= 0 {
			t[c] |= classDim
		}
	}
	return t
}()

const (
	classIdent = 1 << iota
	classAlnum
	classDim // the bytes of an array shape's dimension list: digits and ,<=?-
)

// identEnd returns the end of the identifier run starting at i.
func (s *scanner) identEnd(i int) int {
	src := s.src[:s.end] // one bound, in a register
	for i < len(src) && isIdentChar(src[i]) {
		i++
	}
	return i
}

// found describes the token at the current offset for error messages.
func (s *scanner) found() string {
	if s.off >= s.end {
		return "end of file"
	}
	c := s.src[s.off]
	start := s.off
	if c == '%' {
		start++
	}
	if e := s.identEnd(start); e > start {
		w := s.src[s.off:e]
		if len(w) > 40 {
			w = w[:40] + "..."
		}
		return strconv.Quote(w)
	}
	if c == '"' {
		return "string"
	}
	if c == '\n' {
		return "newline"
	}
	return quoteByte(c)
}

// scanIdent scans an identifier (letters, digits, '_', '.', '-') starting
// with a letter or '_' and returns it, or "" without moving.
func (s *scanner) scanIdent() string {
	s.skipSpace()
	if s.off >= s.end || !isLetter(s.src[s.off]) {
		return ""
	}
	e := s.identEnd(s.off + 1)
	id := s.src[s.off:e]
	s.off = e
	return id
}

// scanName scans an instruction or computation name with an optional '%'
// prefix and returns it without the '%', or "" without moving.
func (s *scanner) scanName() string {
	s.skipSpace()
	i := s.off
	if i < s.end && s.src[i] == '%' {
		i++
		if i < s.end && !isIdentChar(s.src[i]) {
			return ""
		}
	} else if i >= s.end || !isLetter(s.src[i]) {
		return ""
	}
	e := s.identEnd(i)
	if e == i {
		return ""
	}
	s.off = e
	return s.src[i:e]
}

// scanInt scans a decimal integer with an optional '-' sign.
func (s *scanner) scanInt(what string) (int64, bool) {
	s.skipSpace()
	i := s.off
	neg := false
	if i < s.end && s.src[i] == '-' {
		neg = true
		i++
	}
	if i >= s.end || !isDigit(s.src[i]) {
		s.expected(what)
		return 0, false
	}
	var v uint64
	for i < s.end && isDigit(s.src[i]) {
		d := uint64(s.src[i] - '0')
		if v > (1<<63-1-d)/10 {
			s.errorAt(s.pos(), "expected "+what+", found out-of-range integer")
			return 0, false
		}
		v = v*10 + d
		i++
	}
	s.off = i
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

// skipString moves past a double-quoted string with backslash escapes; the
// scanner must be at the opening quote.
func (s *scanner) skipString() bool {
	if e := stringEnd(s.src, s.off+1, s.end); e >= 0 {
		s.advanceTo(e)
		return true
	}
	start := s.pos()
	s.errorAt(start, "expected closing '\"' of string, found end of file")
	s.advanceTo(s.end)
	return false
}

// stringEnd returns the offset after the closing quote of the string
// whose body starts at i (after its opening quote), or -1 when src[:end]
// ends first. A backslash escapes the byte after it.
func stringEnd(src string, i, end int) int {
	for i < end {
		q := strings.IndexByte(src[i:end], '"')
		if q < 0 {
			return -1
		}
		b := strings.IndexByte(src[i:i+q], '\\')
		if b < 0 {
			return i + q + 1
		}
		i += b + 2 // the escaped byte may be a quote
	}
	return -1
}

// scanValue scans a raw attribute value: a run of non-blank bytes and
// balanced (), [], {} groups (with strings and comments inside them),
// ending at a top-level ',', blank, comment or unmatched closing bracket.
// The value is returned verbatim.
func (s *scanner) scanValue(what string) (string, bool) {
	s.skipSpace()
	start := s.off
	var stackBuf [32]byte
	stack := stackBuf[:0]
	src, i, end := s.src[:s.end], s.off, s.end // s.off is i's value only where s's methods run
loop:
	for i < end {
		for i < len(src) && !valueSpecial[src[i]] {
			i++
		}
		if i == len(src) {
			break
		}
		c := src[i]
		switch c {
		case '"':
			e := stringEnd(src, i+1, end)
			if e < 0 {
				s.advanceTo(i)
				s.skipString() // records the error
				return "", false
			}
			i = e
			continue
		case '{', '(', '[':
			stack = append(stack, closerOf(c))
		case '}', ')', ']':
			if len(stack) == 0 {
				break loop
			}
			if stack[len(stack)-1] != c {
				s.advanceTo(i)
				s.expected(quoteByte(stack[len(stack)-1]))
				return "", false
			}
			stack = stack[:len(stack)-1]
		case ',', ' ', '\t', '\r', '\n':
			if len(stack) == 0 {
				break loop
			}
		case '/':
			if i+1 < end && (src[i+1] == '/' || src[i+1] == '*') {
				if len(stack) == 0 {
					break loop
				}
				s.advanceTo(i)
				s.skipSpace()
				i = s.off
				continue
			}
		}
		i++
	}
	s.advanceTo(i)
	if len(stack) > 0 {
		s.expected(quoteByte(stack[len(stack)-1]))
		return "", false
	}
	if s.off == start {
		s.expected(what)
		return "", false
	}
	return s.src[start:s.off], true
}

// valueSpecial marks the bytes scanValue looks at.
var valueSpecial = [256]bool{'"': true, '{': true, '(': true, '[': true, '}': true, ')': true, ']': true,
	',': true, ' ': true, '\t': true, '\r': true, '\n': true, '/': true}

func closerOf(c byte) byte {
	switch c {
	case '{':
		return '}'
	case '(':
		return ')'
	}
	return ']'
}
