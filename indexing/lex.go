package indexing

import (
	"fmt"
	"strconv"
	"strings"
)

type tokKind uint8

const (
	tokEOF tokKind = iota
	tokIdent
	tokInt
	tokPunct // one of ( ) [ ] { } , : + - * and "->"
	tokBad
)

type token struct {
	kind tokKind
	text string
	pos  int
}

func (t token) String() string {
	if t.kind == tokEOF {
		return "end of input"
	}
	return strconv.Quote(t.text)
}

type parser struct {
	src          string
	off          int
	tok          token
	vars         map[string]*Expr
	defaultNames bool
}

func (p *parser) next() {
	for p.off < len(p.src) && strings.ContainsRune(" \t\r\n", rune(p.src[p.off])) {
		p.off++
	}
	start := p.off
	if p.off >= len(p.src) {
		p.tok = token{tokEOF, "", start}
		return
	}
	c := p.src[p.off]
	switch {
	case isLetter(c):
		for p.off < len(p.src) && (isLetter(p.src[p.off]) || isDigit(p.src[p.off])) {
			p.off++
		}
		p.tok = token{tokIdent, p.src[start:p.off], start}
	case isDigit(c):
		for p.off < len(p.src) && isDigit(p.src[p.off]) {
			p.off++
		}
		p.tok = token{tokInt, p.src[start:p.off], start}
	case strings.HasPrefix(p.src[p.off:], "->"):
		p.off += 2
		p.tok = token{tokPunct, "->", start}
	case strings.IndexByte("()[]{},:+-*", c) >= 0:
		p.off++
		p.tok = token{tokPunct, string(c), start}
	default:
		p.off++
		p.tok = token{tokBad, string(c), start}
	}
}

func isLetter(c byte) bool { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

func (p *parser) errorAt(pos int, format string, args ...any) *ParseError {
	line, col := 1, 1
	for _, c := range p.src[:pos] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &ParseError{Offset: pos, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) errorf(format string, args ...any) *ParseError {
	return p.errorAt(p.tok.pos, format, args...)
}
