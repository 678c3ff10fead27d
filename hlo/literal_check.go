package hlo

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A constant's literal is kept verbatim (the printer writes it back as it
// was read), but the parser reads it as XLA's does, so that what XLA
// refuses is refused: every element in range for the element type, NaN
// payloads that fit, and nested braces that match the dimensions.

// floatFormat is what the range checks know of a floating-point type.
type floatFormat struct {
	mantissa int     // explicit mantissa bits
	max      float64 // largest finite value
	// maxOdd: the largest value's mantissa is odd, so a value halfway
	// between it and the next step rounds up, out of range.
	maxOdd bool
	// saturates: out-of-range values convert to the largest one (no
	// infinity, no NaN), so none is refused.
	saturates bool
	// payload is the largest NaN payload; -1 when NaNs carry none.
	payload int64
}

var floatFormats = [numPrimitiveTypes]floatFormat{
	F16:           {10, 65504, true, false, 0x3ff},
	BF16:          {7, 0x1.fep127, true, false, 0x7f},
	F32:           {23, math.MaxFloat32, true, false, 0x7fffff},
	F64:           {52, math.MaxFloat64, true, false, 0xfffffffffffff},
	F8E5M2:        {2, 57344, true, false, 0x3},
	F8E4M3FN:      {3, 448, false, false, -1},
	F8E4M3B11FNUZ: {3, 30, true, false, -1},
	F8E5M2FNUZ:    {2, 57344, true, false, -1},
	F8E4M3FNUZ:    {3, 240, true, false, -1},
	F8E4M3:        {3, 240, true, false, 0x7},
	F8E3M4:        {4, 15.5, true, false, 0xf},
	F8E8M0FNU:     {0, 0x1p127, false, false, -1},
	F4E2M1FN:      {1, 6, true, true, -1},
	F6E2M3FN:      {3, 7.5, true, true, -1},
	F6E3M2FN:      {2, 28, true, true, -1},
}

// overflows reports whether the finite v rounds (to nearest, ties to
// even) past the largest finite value of f.
func (f floatFormat) overflows(v float64) bool {
	if f.saturates {
		return false
	}
	a := math.Abs(v)
	if a <= f.max {
		return false
	}
	_, exp := math.Frexp(f.max)
	half := math.Ldexp(1, exp-1-f.mantissa-1) // half a step at the top
	if a > f.max+half {
		return true
	}
	return a == f.max+half && f.maxOdd
}

// intRange returns the bounds of an integer type.
func intRange(t PrimitiveType) (lo int64, hi uint64) {
	bits := t.BitWidth()
	if t.IsSigned() {
		return -1 << (bits - 1), 1<<(bits-1) - 1
	}
	if bits == 64 {
		return 0, math.MaxUint64
	}
	return 0, 1<<bits - 1
}

// upperName is a type's name as XLA's messages write it: "F16", "S4".
func upperName(t PrimitiveType) string { return strings.ToUpper(t.String()) }

// literalChecker reads a literal's text; err is its first error.
type literalChecker struct {
	s scanner
	// pending is XLA's recorded but not yet fatal error: an element at
	// the wrong nesting level or past the minor-most dimension, which
	// XLA reports only when the literal fails later.
	pending *Error
}

// checkLiteral reads the literal text at s (up to s.end) as the value of
// a constant of shape sh, as XLA's parser does; it returns the first
// error, or nil.
func checkLiteral(s scanner, sh Shape) *Error {
	c := &literalChecker{s: s}
	c.literal(sh)
	if c.s.err != nil && c.pending != nil {
		return c.pending
	}
	return c.s.err
}

func (c *literalChecker) fail(msg string) bool {
	c.s.skipSpace()
	c.s.errorAt(c.s.pos(), msg)
	return false
}

func (c *literalChecker) literal(sh Shape) bool {
	c.s.skipSpace()
	if sh.IsTuple() {
		if strings.HasPrefix(c.s.src[c.s.off:c.s.end], "{...}") {
			// XLA prints a tuple constant so (and cannot read it back);
			// what XLA prints is read.
			c.s.off += len("{...}")
			return true
		}
		if !c.s.expect('(') {
			return false
		}
		for i, e := range sh.Tuple {
			if i > 0 && !c.s.expect(',') {
				return false
			}
			if !c.literal(e) {
				return false
			}
		}
		return c.s.expect(')')
	}
	if !sh.IsArray() {
		return c.fail("expected no literal for " + sh.StringNoLayout() + ", found " + c.s.found())
	}
	return c.dense(sh)
}

// dense reads an array literal: nested braces, one level a dimension,
// the elements of the minor-most one inside, or "{...}" for an elided one.
func (c *literalChecker) dense(sh Shape) bool {
	s := &c.s
	rank := len(sh.Dims)
	seen := make([]int64, rank) // elements or sub-arrays seen per dimension
	nest := 0
	index := int64(0)
	total := sh.ElementCount()
	indexStr := func(dim int) string {
		parts := make([]string, dim)
		for i := range dim {
			parts[i] = strconv.FormatInt(seen[i]-1, 10)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	element := func() {
		if rank == 0 {
			return
		}
		if nest != rank {
			c.note(fmt.Sprintf("expects nested array in rank %d, but sees %d", rank, nest))
			return
		}
		seen[rank-1]++
		if seen[rank-1] > sh.Dims[rank-1] {
			c.note(fmt.Sprintf("expects %d elements on the minor-most dimension, but sees more", sh.Dims[rank-1]))
		}
	}
	for {
		s.skipSpace()
		if s.atEOF() {
			return c.fail("expected the rest of the literal, found end of literal")
		}
		switch ch := s.peek(); {
		case ch == '{':
			nest++
			if nest > rank {
				return c.fail(fmt.Sprintf("expects nested array in rank %d, but sees larger", rank))
			}
			if nest > 1 {
				seen[nest-2]++
				if seen[nest-2] > sh.Dims[nest-2] {
					return c.fail(fmt.Sprintf("expects %d elements in the %sth element, but sees more", sh.Dims[nest-2], indexStr(nest-2)))
				}
			}
			s.off++
		case ch == '}':
			if nest == 0 {
				return c.fail("unexpected '}' token")
			}
			nest--
			if seen[nest] != sh.Dims[nest] {
				return c.fail(fmt.Sprintf("expects %d elements in the %sth element, but sees %d", sh.Dims[nest], indexStr(nest), seen[nest]))
			}
			seen[nest] = 0
			s.off++
		case ch == ',':
			s.off++
		case ch == '.' && strings.HasPrefix(s.src[s.off:s.end], "..."):
			if nest != 1 {
				return c.fail(fmt.Sprintf("expects `...` at nest level 1, but sees it at nest level %d", nest))
			}
			seen[0] = sh.Dims[0]
			s.off += 3
		case ch == '(':
			if !sh.Type.IsComplex() {
				return c.fail("unexpected '(' in literal. Parens are only valid for complex literals")
			}
			element()
			if !c.complex(sh, index, total) {
				return false
			}
			index++
		default:
			element()
			if !c.value(sh, index, total) {
				return false
			}
			index++
		}
		if nest == 0 {
			return true
		}
	}
}

// note records XLA's first non-fatal complaint.
func (c *literalChecker) note(msg string) {
	if c.pending == nil {
		c.s.skipSpace()
		c.pending = &Error{Filename: c.s.file, Pos: c.s.pos(), Msg: msg}
	}
}

// number is one scalar token of a literal.
type number struct {
	text    string
	isInt   bool
	isBool  bool
	i       int64  // isInt: the value (as XLA reads it, wrapped to int64)
	u       uint64 // isInt: the value as unsigned
	f       float64
	payload int64 // NaN payload given as nan(0x...), or -1
}

// scanNumber reads one scalar token: an integer, a decimal, inf, nan with
// an optional payload, true or false.
func (c *literalChecker) scanNumber() (number, bool) {
	s := &c.s
	s.skipSpace()
	start := s.off
	i := s.off
	if i < s.end && s.src[i] == '-' {
		i++
	}
	j := i
	var u uint64 // the value of the digits at i, when no more than 18
	for j < s.end && isDigit(s.src[j]) {
		u = u*10 + uint64(s.src[j]-'0')
		j++
	}
	digits := j - i
	for j < s.end && (isLetter(s.src[j]) || isDigit(s.src[j]) || s.src[j] == '.' ||
		(s.src[j] == '+' || s.src[j] == '-') && j > i && (s.src[j-1] == 'e' || s.src[j-1] == 'E')) {
		j++
	}
	word := s.src[i:j]
	n := number{payload: -1}
	neg := i > start
	switch {
	case digits == len(word) && digits > 0 && digits <= 18: // a decimal integer, read as scanned
		n.isInt, n.u, n.i, n.f = true, u, int64(u), float64(u)
		if neg {
			n.i, n.u = -int64(u), -u
		}
	case word == "true" || word == "false":
		if neg {
			return n, c.fail("unexpected token type in a literal")
		}
		n.isBool, n.isInt, n.i, n.u = true, true, 0, 0
		if word == "true" {
			n.i, n.u = 1, 1
		}
	case word == "inf":
		n.f = math.Inf(1)
	case word == "nan":
		n.f = math.NaN()
		if j < s.end && s.src[j] == '(' {
			k := strings.IndexByte(s.src[j:s.end], ')')
			if k < 0 || !strings.HasPrefix(s.src[j+1:], "0x") {
				return n, c.fail("unexpected token type in a literal")
			}
			p, err := strconv.ParseInt(s.src[j+3:j+k], 16, 64)
			if err != nil {
				return n, c.fail("unexpected token type in a literal")
			}
			n.payload = p
			j += k + 1
		}
	case word != "" && isDigit(word[0]) && strings.IndexAny(word, ".eE") < 0:
		u, err := strconv.ParseUint(word, 10, 64)
		if err != nil {
			return n, c.fail("unexpected token type in a literal")
		}
		n.isInt, n.u, n.i = true, u, int64(u)
		if neg {
			if u > 1<<63 {
				return n, c.fail("unexpected token type in a literal")
			}
			n.i, n.u = -int64(u), -u
		}
		n.f = float64(u)
	case word != "" && (isDigit(word[0]) || word[0] == '.'):
		f, err := strconv.ParseFloat(word, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange || math.IsInf(f, 0) {
				if ok && ne.Err == strconv.ErrRange {
					return n, c.fail("Constant is out of range for double (+/-1.79769e+308) and so is unparsable")
				}
				return n, c.fail("unexpected token type in a literal")
			}
		}
		n.f = f
	default:
		return n, c.fail("unexpected token type in a literal")
	}
	if neg {
		n.f = -n.f
	}
	n.text = s.src[start:j]
	s.off = j
	return n, true
}

// value reads one element of a non-complex array and checks it.
func (c *literalChecker) value(sh Shape, index, total int64) bool {
	at := c.s
	at.skipSpace()
	n, ok := c.scanNumber()
	if !ok {
		return false
	}
	t := sh.Type
	switch {
	case t == PRED:
		if !n.isInt {
			return c.failAt(at, "expects integer for primitive type: PRED, found "+n.text)
		}
	case t.IsInteger():
		if n.isBool {
			return c.failAt(at, "expects integer for primitive type: "+upperName(t)+", found "+n.text)
		}
		if !n.isInt {
			return c.failAt(at, "expects integer for primitive type: "+upperName(t)+", found "+n.text)
		}
		lo, hi := intRange(t)
		if t.IsSigned() && (n.i < lo || n.i > int64(hi)) || !t.IsSigned() && n.u > hi {
			return c.failAt(at, fmt.Sprintf("value %s is out of range for literal's primitive type %s namely [%d, %d]", n.text, upperName(t), lo, hi))
		}
	case t.IsFloat():
		if n.isBool {
			return c.failAt(at, "expect floating point value for primitive type: "+upperName(t)+", found "+n.text)
		}
		if !c.checkFloat(at, t, n, "value", sh, index) {
			return false
		}
	default:
		return c.failAt(at, "unsupported primitive type "+upperName(t))
	}
	if index >= total && sh.Type.IsArray() && len(sh.Dims) > 0 {
		return c.failAt(at, fmt.Sprintf("tries to set value %s to a literal in shape %s at linear index %d, but the index is out of range", n.text, sh.StringNoLayout(), index))
	}
	return true
}

// complex reads "(re, im)" as one element of a complex array.
func (c *literalChecker) complex(sh Shape, index, total int64) bool {
	s := &c.s
	at := *s
	at.skipSpace()
	s.off++ // '('
	part := func(name string) bool {
		p := *s
		p.skipSpace()
		n, ok := c.scanNumber()
		if !ok {
			return false
		}
		if n.isBool {
			return c.failAt(p, "expects a number, found "+n.text)
		}
		comp := F32
		if sh.Type == C128 {
			comp = F64
		}
		return c.checkFloat(p, comp, n, name+" part", sh, index)
	}
	if !part("real") || !s.expect(',') || !part("imaginary") || !s.expect(')') {
		return false
	}
	if index >= total && len(sh.Dims) > 0 {
		return c.failAt(at, fmt.Sprintf("tries to set value to a literal in shape %s at linear index %d, but the index is out of range", sh.StringNoLayout(), index))
	}
	return true
}

// checkFloat checks a value of floating-point type t: in range after
// rounding, and a NaN payload t can hold. what names the value in a
// message ("value", "real part"), which its text follows.
func (c *literalChecker) checkFloat(at scanner, t PrimitiveType, n number, what string, sh Shape, index int64) bool {
	f := floatFormats[t]
	if math.IsNaN(n.f) {
		if n.payload < 0 {
			return true
		}
		switch {
		case f.payload < 0:
			return c.failAt(at, fmt.Sprintf("tries to set NaN payload %#x to a literal in shape %s at linear index %d, but %s does not support payloads", n.payload, sh.StringNoLayout(), index, sh.Type))
		case n.payload > f.payload:
			return c.failAt(at, fmt.Sprintf("tries to set NaN payload %#x to a literal in shape %s at linear index %d, but the NaN payload is out of range (%#x)", n.payload, sh.StringNoLayout(), index, f.payload))
		}
		return true
	}
	bad := !math.IsInf(n.f, 0) && f.overflows(n.f)
	if t == F8E8M0FNU && !math.IsInf(n.f, 0) && n.f <= 0 {
		bad = true // only positive powers of two
	}
	if !bad {
		return true
	}
	lo := -f.max
	if t == F8E8M0FNU {
		lo = 0x1p-127
	}
	return c.failAt(at, fmt.Sprintf("%s %s is out of range for literal's primitive type %s namely [%s, %s]", what, n.text, upperName(sh.Type), gfmt(lo), gfmt(f.max)))
}

// gfmt formats a bound as XLA's messages do (6 significant digits).
func gfmt(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

func (c *literalChecker) failAt(at scanner, msg string) bool {
	c.s.errorAt(at.pos(), msg)
	return false
}
