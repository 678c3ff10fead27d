package indexing

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ParseError is a syntax or semantic error in an indexing map's text, with
// the 1-based line and column where it was found.
type ParseError struct {
	Offset    int // byte offset in the input
	Line, Col int
	Msg       string
}

// Error formats the error as "line:col: message".
func (e *ParseError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// ParseIndexingMap parses an indexing map in either of XLA's printed forms,
// one-line or multi-line (whitespace is not significant), e.g.
//
//	(d0, d1)[s0]{rt0} -> (d0, s0 + rt0), domain: d0 in [0, 9], d1 in [0, 19], s0 in [0, 255], rt0 in [0, 4], d0 + s0 in [0, 20]
//
// It also accepts "UNDEFINED" and "KNOWN EMPTY". Variables may have custom
// names; every declared variable needs a bound in the domain. A trailing
// comma after the last domain item is accepted. Errors are *ParseError.
func ParseIndexingMap(src string) (*IndexingMap, error) {
	p := &parser{src: src}
	p.next()
	m, err := p.parseMap()
	if err != nil {
		return nil, err
	}
	return m, nil
}

// ParseExpr parses a single affine expression over variables with the
// default names d<i>, s<i> and rt<i>.
func ParseExpr(src string) (*Expr, error) {
	p := &parser{src: src, defaultNames: true}
	p.next()
	e, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokEOF {
		return nil, p.errorf("unexpected %s after expression", p.tok)
	}
	return e, nil
}

func (p *parser) is(text string) bool {
	return (p.tok.kind == tokPunct || p.tok.kind == tokIdent) && p.tok.text == text
}

func (p *parser) expect(text string) error {
	if !p.is(text) {
		return p.errorf("expected %q, found %s", text, p.tok)
	}
	p.next()
	return nil
}

func (p *parser) parseMap() (*IndexingMap, error) {
	switch {
	case p.is("UNDEFINED"):
		p.next()
		return Undefined(), p.expectEOF()
	case p.is("KNOWN"):
		p.next()
		if err := p.expect("EMPTY"); err != nil {
			return nil, err
		}
		return KnownEmpty(0, 0, 0, 0), p.expectEOF()
	}
	p.vars = map[string]*Expr{}
	var dims, ranges, rts []Variable
	var err error
	if dims, err = p.parseVarList("(", ")", KindDim); err != nil {
		return nil, err
	}
	if p.is("[") {
		if ranges, err = p.parseVarList("[", "]", KindSymbol); err != nil {
			return nil, err
		}
	}
	if p.is("{") {
		if rts, err = p.parseVarList("{", "}", KindRuntime); err != nil {
			return nil, err
		}
	}
	if err := p.expect("->"); err != nil {
		return nil, err
	}
	results, err := p.parseResults()
	if err != nil {
		return nil, err
	}
	if len(dims)+len(ranges)+len(rts) == 0 && p.tok.kind == tokEOF {
		return NewIndexingMap(nil, nil, nil, results)
	}
	for _, kw := range []string{",", "domain", ":"} {
		if err := p.expect(kw); err != nil {
			return nil, err
		}
	}
	cons, err := p.parseDomain(dims, ranges, rts)
	if err != nil {
		return nil, err
	}
	m, err := NewIndexingMap(dims, ranges, rts, results, cons...)
	if err != nil || !p.is("replica") {
		return m, err
	}
	p.next()
	for _, kw := range []string{"id", ":"} {
		if err := p.expect(kw); err != nil {
			return nil, err
		}
	}
	r, err := p.parseMap()
	if err != nil {
		return nil, err
	}
	if r.NumDims() != m.NumDims() {
		return nil, p.errorf("expected a replica id map of %d dimensions, found %d", m.NumDims(), r.NumDims())
	}
	return m.WithReplicaID(r), nil
}

func (p *parser) expectEOF() error {
	if p.tok.kind != tokEOF {
		return p.errorf("unexpected %s", p.tok)
	}
	return nil
}

var keywords = map[string]bool{
	"floordiv": true, "floorDiv": true, "ceildiv": true, "mod": true,
	"in": true, "domain": true, "UNDEFINED": true, "KNOWN": true, "EMPTY": true, "replica": true,
}

// parseVarList parses "(d0, d1)" and declares the names. Variables get an
// unset (infeasible) bound until the domain provides one.
func (p *parser) parseVarList(open, closing string, kind ExprKind) ([]Variable, error) {
	if err := p.expect(open); err != nil {
		return nil, err
	}
	var vars []Variable
	for !p.is(closing) {
		if len(vars) > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		if p.tok.kind != tokIdent || keywords[p.tok.text] {
			return nil, p.errorf("expected variable name, found %s", p.tok)
		}
		name := p.tok.text
		if _, dup := p.vars[name]; dup {
			return nil, p.errorf("duplicate variable %q", name)
		}
		v := &Expr{kind: kind, val: int64(len(vars))}
		p.vars[name] = v
		if name == v.String() {
			name = ""
		}
		vars = append(vars, Variable{Bounds: Interval{1, 0}, Name: name})
		p.next()
	}
	p.next()
	return vars, nil
}

func (p *parser) parseResults() ([]*Expr, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var results []*Expr
	for !p.is(")") {
		if len(results) > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		results = append(results, e)
	}
	p.next()
	return results, nil
}

// parseDomain parses the items after "domain:". The first item on a bare
// variable sets its bounds in place; every other item is a constraint (a
// repeated bound on a variable thus narrows it).
func (p *parser) parseDomain(dims, ranges, rts []Variable) ([]Constraint, error) {
	var cons []Constraint
	seen := map[varKey]bool{}
	vars := [][]Variable{dims, ranges, rts}
	for p.tok.kind != tokEOF && !p.is("replica") {
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		if err := p.expect("in"); err != nil {
			return nil, err
		}
		bounds, err := p.parseInterval()
		if err != nil {
			return nil, err
		}
		if k := (varKey{e.kind, e.val}); e.isVar() && !seen[k] {
			seen[k] = true
			vars[e.kind-KindDim][e.val].Bounds = bounds
		} else {
			cons = append(cons, Constraint{e, bounds})
		}
		if p.tok.kind == tokEOF || p.is("replica") {
			break
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
		if p.is("replica") {
			break
		}
	}
	for kind := KindDim; kind <= KindRuntime; kind++ {
		for i := range vars[kind-KindDim] {
			if !seen[varKey{kind, int64(i)}] {
				return nil, p.errorf("missing bound for variable %s", p.nameOf(kind, i))
			}
		}
	}
	return cons, nil
}

type varKey struct {
	kind ExprKind
	val  int64
}

func (p *parser) nameOf(kind ExprKind, i int) string {
	for name, v := range p.vars {
		if v.kind == kind && v.val == int64(i) {
			return name
		}
	}
	return ""
}

func (p *parser) parseInterval() (Interval, error) {
	if err := p.expect("["); err != nil {
		return Interval{}, err
	}
	lo, err := p.parseSignedInt()
	if err != nil {
		return Interval{}, err
	}
	if err := p.expect(","); err != nil {
		return Interval{}, err
	}
	hi, err := p.parseSignedInt()
	if err != nil {
		return Interval{}, err
	}
	return Interval{lo, hi}, p.expect("]")
}

func (p *parser) parseSignedInt() (int64, error) {
	neg := p.is("-")
	if neg {
		p.next()
	}
	if p.tok.kind != tokInt {
		return 0, p.errorf("expected integer, found %s", p.tok)
	}
	text := p.tok.text
	if neg {
		text = "-" + text
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, p.errorf("integer %s out of range", text)
	}
	p.next()
	return v, nil
}

// parseExpr parses an expression with MLIR's precedence: unary minus
// binds tightest, then *, floordiv, ceildiv and mod, then + and -; binary
// operators associate to the left.
func (p *parser) parseExpr() (e *Expr, err error) {
	start := p.tok.pos
	defer func() {
		if r := recover(); r != nil {
			var ov OverflowError
			if re, ok := r.(error); ok && errors.As(re, &ov) {
				e, err = nil, p.errorAt(start, "%v", ov)
				return
			}
			panic(r)
		}
	}()
	return p.parseSum()
}

func (p *parser) parseSum() (*Expr, error) {
	lhs, err := p.parseProduct()
	if err != nil {
		return nil, err
	}
	for p.is("+") || p.is("-") {
		minus := p.is("-")
		p.next()
		rhs, err := p.parseProduct()
		if err != nil {
			return nil, err
		}
		if minus {
			lhs = Sub(lhs, rhs)
		} else {
			lhs = Add(lhs, rhs)
		}
	}
	return lhs, nil
}

func (p *parser) parseProduct() (*Expr, error) {
	lhs, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	for {
		op := p.tok
		if !p.is("*") && !p.is("floordiv") && !p.is("floorDiv") && !p.is("ceildiv") && !p.is("mod") {
			return lhs, nil
		}
		p.next()
		rhs, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		c, rhsConst := rhs.IsConst()
		switch {
		case op.text == "*":
			lhs = MulExpr(lhs, rhs)
		case op.text == "mod" && rhsConst && c <= 0:
			return nil, p.errorAt(op.pos, "mod needs a positive right operand, found %d", c)
		case op.text == "mod":
			lhs = ModExpr(lhs, rhs)
		case rhsConst && c == 0:
			return nil, p.errorAt(op.pos, "%s needs a non-zero right operand", op.text)
		case op.text == "ceildiv":
			lhs = CeilDivExpr(lhs, rhs)
		default:
			lhs = FloorDivExpr(lhs, rhs)
		}
	}
}

func (p *parser) parseUnary() (*Expr, error) {
	if p.is("-") {
		p.next()
		e, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		return Neg(e), nil
	}
	return p.parsePrimary()
}

func (p *parser) parsePrimary() (*Expr, error) {
	switch {
	case p.is("("):
		p.next()
		e, err := p.parseSum()
		if err != nil {
			return nil, err
		}
		return e, p.expect(")")
	case p.tok.kind == tokInt:
		v, err := strconv.ParseInt(p.tok.text, 10, 64)
		if err != nil {
			return nil, p.errorf("integer %s out of range", p.tok.text)
		}
		p.next()
		return Const(v), nil
	case p.tok.kind == tokIdent && !keywords[p.tok.text]:
		v := p.resolve(p.tok.text)
		if v == nil {
			return nil, p.errorf("unknown variable %q", p.tok.text)
		}
		p.next()
		return v, nil
	}
	return nil, p.errorf("expected expression, found %s", p.tok)
}

// resolve returns the variable with the given name. Without declarations
// (ParseExpr) it accepts the default names d<i>, s<i> and rt<i>.
func (p *parser) resolve(name string) *Expr {
	if !p.defaultNames {
		return p.vars[name]
	}
	for _, d := range []struct {
		prefix string
		kind   ExprKind
	}{{"rt", KindRuntime}, {"d", KindDim}, {"s", KindSymbol}} {
		digits, ok := strings.CutPrefix(name, d.prefix)
		if !ok || digits == "" || (len(digits) > 1 && digits[0] == '0') {
			continue
		}
		i, err := strconv.Atoi(digits)
		if err != nil || i > 1<<20 {
			continue
		}
		return &Expr{kind: d.kind, val: int64(i)}
	}
	return nil
}
