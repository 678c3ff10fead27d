package hlo

import "strconv"

// Today's XLA writes element k of a tuple-shaped instruction t as the
// operand "%t#k" (nested: "%t#1#0") instead of a get-tuple-element
// instruction. The parser turns each such element into a get-tuple-element
// of its own, marked Implicit, so that every analysis sees the graph the
// long spelling gives; see Instruction.Implicit.

// elemKey names element k of tuple t.
type elemKey struct {
	t *Instruction
	k int64
}

// tupleElements reads the "#k" suffixes after an operand name (blanks
// may precede '#', as XLA's lexer allows) and returns the get-tuple-element
// they name, or t itself when there is none; nil after an error. pos is the
// operand's position.
func (p *chunkParser) tupleElements(t *Instruction, pos Pos) *Instruction {
	for {
		save := p.scanner
		p.skipSpace()
		if p.peek() != '#' {
			p.scanner = save
			return t
		}
		p.off++
		if !isDigit(p.peek()) {
			p.expected("tuple element index after '#'")
			return nil
		}
		kpos := p.pos()
		k, ok := p.scanInt("tuple element index")
		if !ok {
			return nil
		}
		if t = p.tupleElement(t, k, pos, kpos); t == nil {
			return nil
		}
	}
}

// tupleElement returns the get-tuple-element of element k of t, made at
// its first use (it then comes just before its first user, whose operands
// are being read).
func (p *chunkParser) tupleElement(t *Instruction, k int64, pos, kpos Pos) *Instruction {
	if gte := p.elems[elemKey{t, k}]; gte != nil {
		return gte
	}
	switch {
	case !t.Shape.IsTuple():
		p.errorAt(kpos, "expected an operand of tuple shape before '#', found "+strconv.Quote(t.RefName())+" of shape "+t.Shape.StringNoLayout())
		return nil
	case k >= int64(len(t.Shape.Tuple)):
		n := strconv.Itoa(len(t.Shape.Tuple))
		p.errorAt(kpos, "expected a tuple element index below "+n+" ("+strconv.Quote(t.RefName())+" has "+n+" elements), found "+strconv.FormatInt(k, 10))
		return nil
	}
	gte := p.ar.inst()
	gte.Opcode = OpGetTupleElement
	gte.Shape = t.Shape.Tuple[k]
	gte.Operands = p.ar.instPtrs([]*Instruction{t})
	gte.Attrs = p.ar.attrList([]Attribute{{Name: attrNames["index"], Value: strconv.FormatInt(k, 10)}})
	gte.Typed = p.ar.typed()
	gte.Typed.TupleIndex = k
	gte.ParameterNumber = -1
	gte.Parent = p.comp
	gte.Pos = pos
	gte.Implicit = true
	p.elems[elemKey{t, k}] = gte
	p.implicit = append(p.implicit, gte)
	p.insts = append(p.insts, gte)
	return gte
}

// nameImplicit names the get-tuple-elements made for "#k" operands as XLA's
// parser does, "<tuple>_<k>" (so "%t#1#0" reads "t_1_0"), adding ".1",
// ".2", ... when an instruction of the computation already has the name.
// Instructions written in the text keep their names.
func (p *chunkParser) nameImplicit() {
	for _, gte := range p.implicit {
		base := gte.Operands[0].Name + "_" + strconv.FormatInt(gte.Typed.TupleIndex, 10)
		name := base
		for n := 1; p.names.get(name) != nil; n++ {
			name = base + "." + strconv.Itoa(n)
		}
		gte.Name = name
		p.names.put(name, gte)
	}
}

// spellingCounts counts how the text spells operands and names, from which
// the module's Spelling follows.
type spellingCounts struct {
	shapedOperands, bareOperands, percentNames int
	// blankEnd: the text ends with a blank line, as XLA's dumps do.
	blankEnd bool
}

func (c *spellingCounts) count(shaped bool) {
	if shaped {
		c.shapedOperands++
	} else {
		c.bareOperands++
	}
}

func (c *spellingCounts) add(d spellingCounts) {
	c.shapedOperands += d.shapedOperands
	c.bareOperands += d.bareOperands
	c.percentNames += d.percentNames
}

// spelling is the Spelling of a module whose text had the counts c: today's
// when names carry '%' and no operand has a shape, as XLA has printed since
// 2025 (a module without operands is today's when its text ends with a
// blank line, as XLA's text does). Hand-written text without '%' is printed
// as before, with operand shapes.
func (c spellingCounts) spelling() Spelling {
	if c.shapedOperands == 0 && c.percentNames > 0 && (c.bareOperands > 0 || c.blankEnd) {
		return SpellingToday
	}
	return SpellingClassic
}

// RefName is how an operand names in: its name, or "t#k" for an implicit
// get-tuple-element of element k of t (see Instruction.Implicit).
func (in *Instruction) RefName() string {
	if !in.Implicit || in.Opcode != OpGetTupleElement || len(in.Operands) != 1 {
		return in.Name
	}
	return in.Operands[0].RefName() + "#" + strconv.FormatInt(in.Typed.TupleIndex, 10)
}
