package hlo

import (
	"strconv"
	"strings"
)

// The checks XLA's parser makes on one instruction once its operands and
// attributes are read (xla/hlo/parser/hlo_parser.cc, CreateInstruction and
// ParseInstructionRhs): what XLA refuses to build is refused here, with
// XLA's words. Each returns "" or the error's text.

// checkInstruction runs the checks of in's opcode; false after an error,
// recorded at in's position. The checks of an attribute run only where the
// instruction has it.
func (p *chunkParser) checkInstruction(in *Instruction, slot *opSlot) bool {
	msg := checkRequiredAttrs(in, slot.requiredOf(in.Opcode))
	if msg == "" {
		msg = checkOpcodeRules(in)
	}
	for _, a := range in.Attrs {
		if msg != "" {
			break
		}
		switch a.Name {
		case "parameter_replication":
			msg = checkParameterReplication(in, a.Value)
		case "result_accuracy":
			msg = checkResultAccuracy(a.Value)
		}
	}
	if msg == "" && in.Opcode == OpCustomCall {
		msg = checkCustomCall(in)
	}
	if msg != "" {
		p.errorAt(in.Pos, msg)
		return false
	}
	return true
}

// checkRequiredAttrs checks that in carries every attribute XLA's parser
// requires of its opcode (required, its opcodeRequiredAttrs).
func checkRequiredAttrs(in *Instruction, required []string) string {
	for _, name := range required {
		if _, ok := in.Attr(name); !ok {
			return "attribute " + name + " is expected but not seen"
		}
	}
	return ""
}

// checkOpcodeRules checks the operands and shape an opcode requires.
func checkOpcodeRules(in *Instruction) string {
	switch in.Opcode {
	case OpBroadcast:
		if _, ok := in.Attr("dimensions"); !ok && len(in.Operands) == 1 && !in.Operands[0].Shape.IsScalar() {
			return "attribute dimensions is expected but not seen (a broadcast of " + in.Operands[0].Shape.StringNoLayout() + " names the result dimensions its operand's map to)"
		}
	case OpInfeed:
		if !in.Shape.IsTuple() || len(in.Shape.Tuple) == 0 {
			return "infeed must have a non-empty tuple shape, found " + in.Shape.StringNoLayout()
		}
	case OpDynamicReshape:
		if len(in.Operands) == 0 {
			return "DynamicReshape requires at least one operand."
		}
	case OpConditional:
		if len(in.Operands) == 0 {
			return "expected a branch index operand, found none"
		}
		idx := in.Operands[0].Shape
		if !idx.IsScalar() {
			return "The first operand must be a scalar, found " + idx.StringNoLayout()
		}
		if idx.Type != PRED && idx.Type != S32 {
			return "The first operand must be a scalar of PRED or S32, found " + idx.StringNoLayout()
		}
	case OpFusion:
		if k, ok := in.Attr("kind"); ok && !IsFusionKind(k) {
			return "expects fusion kind but sees: " + k + ", error: Unknown fusion kind: " + k + " (expected kLoop, kInput, kOutput or kCustom)"
		}
	}
	if in.Opcode == OpAsyncStart || strings.HasSuffix(string(in.Opcode), "-start") && in.Opcode.asyncPart() == OpAsyncStart {
		if s := in.Shape; !s.IsTuple() || len(s.Tuple) < 2 || !s.Tuple[0].IsTuple() {
			return "AsyncStart expects the op shape to be in the form of ((async-operands), async-outputs, state). Found " + s.StringNoLayout()
		}
	}
	return ""
}

// asyncPart is the async opcode o stands for: o itself for async-start,
// -update and -done, the async op of an "<op>-start/-update/-done"
// spelling, or "".
func (o Opcode) asyncPart() Opcode {
	switch o {
	case OpAsyncStart, OpAsyncUpdate, OpAsyncDone:
		return o
	}
	_, async, _ := o.IsAsyncSugar()
	return async
}

// FusionKinds are the fusion kinds of XLA's text (kind=...).
var FusionKinds = []string{"kLoop", "kInput", "kOutput", "kCustom"}

// IsFusionKind reports whether k is one of FusionKinds.
func IsFusionKind(k string) bool {
	for _, f := range FusionKinds {
		if k == f {
			return true
		}
	}
	return false
}

// checkParameterReplication: parameter_replication={...} has one entry
// per leaf buffer of the shape.
func checkParameterReplication(in *Instruction, v string) string {
	n := 1
	if inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(v, "{"), "}")); inner == "" {
		n = 0
	} else {
		n = strings.Count(inner, ",") + 1
	}
	if leaves := len(in.Shape.Leaves()); leaves != n {
		return "parameter has " + strconv.Itoa(leaves) + " leaf buffers, but parameter_replication has " + strconv.Itoa(n) + " elements."
	}
	return ""
}

// checkResultAccuracy reads result_accuracy={mode=highest} or
// result_accuracy={tolerance={rtol=0.5, atol=1.0, ulps=2}}.
func checkResultAccuracy(v string) string {
	s := newScanner("", v, 0, len(v), 1, 0)
	if !s.accept('{') {
		return "expected '{' to start result precision list, found " + s.found()
	}
	name, ok := attrNameEq(&s)
	if !ok {
		return "expects attribute name, found " + s.found() + " in result_accuracy"
	}
	switch name {
	case "mode":
		m := s.scanIdent()
		switch strings.ToLower(m) {
		case "default", "highest":
		default:
			return "expects ResultAccuracy type but sees: " + m + ", error: Unknown accuracy mode (expected default or highest)"
		}
	case "tolerance":
		if !s.accept('{') {
			return "expected '{' to start result accuracy list, found " + s.found()
		}
		for !s.accept('}') {
			field, ok := attrNameEq(&s)
			if !ok {
				return "expects string for result_accuracy tolerance type, found " + s.found()
			}
			switch field {
			case "ulps", "rtol", "atol":
			default:
				return "invalid attribute name: " + field + " (expected ulps, rtol or atol)"
			}
			s.skipSpace()
			start := s.off
			for s.off < s.end && strings.IndexByte(",} ", s.src[s.off]) < 0 {
				s.off++
			}
			if _, err := strconv.ParseFloat(s.src[start:s.off], 64); err != nil {
				return "expected a number for " + field + ", found " + strconv.Quote(s.src[start:s.off])
			}
			s.accept(',')
		}
	default:
		return "invalid attribute name: " + name + " (expected mode or tolerance)"
	}
	if !s.accept('}') {
		return "expected '}' to end result_accuracy, found " + s.found()
	}
	return ""
}

// attrNameEq reads "name=" and returns the name.
func attrNameEq(s *scanner) (string, bool) {
	save := *s
	name := s.scanIdent()
	if name == "" || !s.accept('=') {
		*s = save
		return "", false
	}
	return name, true
}

// customCallAPIVersions are the api_version values of a custom call.
var customCallAPIVersions = []string{
	"API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING", "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI",
}

// checkCustomCall checks a custom call's api_version and its
// operand_layout_constraints: one shape with a layout per operand,
// compatible with it.
func checkCustomCall(in *Instruction) string {
	if v, ok := in.Attr("api_version"); ok {
		switch known := false; {
		case strings.EqualFold(v, "API_VERSION_UNSPECIFIED"):
			return "Invalid API version: API_VERSION_UNSPECIFIED"
		default:
			for _, k := range customCallAPIVersions {
				known = known || strings.EqualFold(v, k)
			}
			if !known {
				return "expects custom-call API version but sees: " + v + ", error: Unknown API version (expected one of " + strings.Join(customCallAPIVersions, ", ") + ")"
			}
		}
	}
	v, ok := in.Attr("operand_layout_constraints")
	if !ok {
		return ""
	}
	p := newShapeParser("", v)
	var shapes []Shape
	if p.expect('{') && !p.accept('}') {
		for {
			sh, ok := p.parseShape()
			if !ok {
				break
			}
			shapes = append(shapes, sh)
			if !p.accept(',') {
				p.expect('}')
				break
			}
		}
	}
	if p.err != nil {
		return "expected a list of shapes in operand_layout_constraints, found " + strconv.Quote(v) + ": " + p.err.Msg
	}
	if len(shapes) != len(in.Operands) {
		return "Expected " + strconv.Itoa(len(in.Operands)) + " operand layout constraints, " + strconv.Itoa(len(shapes)) + " given"
	}
	for i, sh := range shapes {
		if !Compatible(sh, in.Operands[i].Shape) {
			return "Operand layout constraint shape " + sh.String() + " for operand " + strconv.Itoa(i) + " is not compatible with operand shape " + in.Operands[i].Shape.String()
		}
	}
	return ""
}
