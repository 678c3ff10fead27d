package indexing

import (
	"strconv"
)

// textBuf is the buffer the printers append to: a byte slice with the
// writing methods of strings.Builder, so that a map's text can be appended
// to a caller's buffer (see IndexingMap.appendFormat) without a copy.
type textBuf []byte

func (b *textBuf) WriteString(s string) { *b = append(*b, s...) }

// WriteByte appends c; it never fails (the error is io.ByteWriter's).
func (b *textBuf) WriteByte(c byte) error {
	*b = append(*b, c)
	return nil
}

// VarNames names the variables when printing or parsing expressions. A
// missing or empty name prints as the default d<i>, s<i> or rt<i>.
type VarNames struct {
	Dims, Symbols, Runtime []string
}

func (n *VarNames) name(kind ExprKind, i int64) string {
	var names []string
	prefix := ""
	switch kind {
	case KindDim:
		names, prefix = n.Dims, "d"
	case KindSymbol:
		names, prefix = n.Symbols, "s"
	default:
		names, prefix = n.Runtime, "rt"
	}
	if i < int64(len(names)) && names[i] != "" {
		return names[i]
	}
	return defaultName(prefix, int(i))
}

// String prints the expression as MLIR prints affine expressions, with the
// default variable names, e.g. "d0 * 8 + d1" or "(d1 - 3) floordiv 7".
func (e *Expr) String() string { return e.Format(nil) }

// Format prints the expression with the given variable names; nil means the
// default names.
func (e *Expr) Format(names *VarNames) string {
	if names == nil {
		names = &VarNames{}
	}
	var b textBuf
	writeExpr(&b, e, names, false)
	return string(b)
}

// writeExpr prints e. strong is set when e is an operand of a tightly binding
// operator (*, floordiv, ceildiv, mod), where a compound expression needs
// parentheses.
func writeExpr(b *textBuf, e *Expr, names *VarNames, strong bool) {
	switch e.kind {
	case KindConst:
		b.WriteString(strconv.FormatInt(e.val, 10))
		return
	case KindDim, KindSymbol, KindRuntime:
		b.WriteString(names.name(e.kind, e.val))
		return
	}
	if strong {
		b.WriteByte('(')
		defer b.WriteByte(')')
	}
	switch e.kind {
	case KindMul:
		if e.val == -1 {
			b.WriteByte('-')
			writeExpr(b, e.lhs, names, true)
			return
		}
		writeExpr(b, e.lhs, names, true)
		b.WriteString(" * ")
		b.WriteString(strconv.FormatInt(e.val, 10))
	case KindFloorDiv, KindCeilDiv, KindMod:
		writeExpr(b, e.lhs, names, true)
		b.WriteString(opSpelling(e.kind))
		b.WriteString(strconv.FormatInt(e.val, 10))
	case KindMulExpr, KindFloorDivExpr, KindCeilDivExpr, KindModExpr:
		writeExpr(b, e.lhs, names, true)
		b.WriteString(opSpelling(e.kind))
		writeExpr(b, e.rhs, names, true)
	case KindAdd:
		for i, t := range e.terms {
			writeTerm(b, t, names, i == 0)
		}
		switch {
		case e.val > 0:
			b.WriteString(" + ")
			b.WriteString(strconv.FormatInt(e.val, 10))
		case e.val < 0:
			b.WriteString(" - ")
			b.WriteString(strconv.FormatInt(-e.val, 10))
		}
	}
}

// writeTerm prints one summand. Summands after the first with a negative
// coefficient print as subtractions, as MLIR does.
func writeTerm(b *textBuf, t Term, names *VarNames, first bool) {
	switch {
	case t.Coef == 1:
		if !first {
			b.WriteString(" + ")
		}
		writeExpr(b, t.Expr, names, false)
	case first:
		writeExpr(b, &Expr{kind: KindMul, val: t.Coef, lhs: t.Expr}, names, false)
	case t.Coef == -1:
		b.WriteString(" - ")
		writeExpr(b, t.Expr, names, false)
	case t.Coef < 0:
		b.WriteString(" - ")
		writeExpr(b, t.Expr, names, true)
		b.WriteString(" * ")
		b.WriteString(strconv.FormatInt(-t.Coef, 10))
	default:
		b.WriteString(" + ")
		writeExpr(b, t.Expr, names, true)
		b.WriteString(" * ")
		b.WriteString(strconv.FormatInt(t.Coef, 10))
	}
}

func opSpelling(k ExprKind) string {
	switch k {
	case KindFloorDiv, KindFloorDivExpr:
		return " floordiv "
	case KindCeilDiv, KindCeilDivExpr:
		return " ceildiv "
	case KindMulExpr:
		return " * "
	}
	return " mod "
}
