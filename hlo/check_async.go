package hlo

import "strconv"

// checkAsyncChains checks the async ops of a module once called
// computations are resolved, as XLA's parser does: an async-update or
// async-done takes the op before it in its chain (an async-start or
// async-update) as its first operand (and operands bound late after it),
// an update that binds none keeps that op's shape, the
// "<op>-update/-done" spelling names the op the chain wraps, a thread or
// computation written again on an update or done is the start's, and no
// computation is wrapped by two async-starts.
func checkAsyncChains(m *Module, errs *ErrorList) {
	starts := map[*Computation]*Instruction{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			part := in.Opcode.asyncPart()
			switch part {
			case OpAsyncStart:
				if in.Opcode == OpAsyncStart && len(in.Called) == 1 {
					if prev, dup := starts[in.Called[0]]; dup && prev != in {
						errs.Add(m.Source, in.Pos, "Computation "+in.Called[0].Name+" is called by more than one async op (also by "+strconv.Quote(prev.Name)+")")
						continue
					}
					starts[in.Called[0]] = in
				}
			case OpAsyncUpdate, OpAsyncDone:
				if msg := asyncLinkProblem(in, part); msg != "" {
					errs.Add(m.Source, in.Pos, msg)
				}
			}
		}
	}
}

// asyncLinkProblem checks one async-update or async-done (part).
func asyncLinkProblem(in *Instruction, part Opcode) string {
	if len(in.Operands) == 0 {
		return "AsyncUpdate and AsyncDone expect a single async op as their operand. Found none"
	}
	prev := in.Operands[0]
	if p := prev.Opcode.asyncPart(); p != OpAsyncStart && p != OpAsyncUpdate {
		return "AsyncUpdate and AsyncDone expect a single async op as their operand. Found " + string(prev.Opcode) + " " + strconv.Quote(prev.Name) + " (AsyncUpdate and AsyncDone expect an asynchronous operation as their first operand.)"
	}
	// Operands after the first are bound late (XLA 0.12 reads them): the
	// update then states the operands bound so far. One that binds none
	// keeps its operand's shape.
	if part == OpAsyncUpdate && len(in.Operands) == 1 && !(ShapeCompare{}).Equal(prev.Shape, in.Shape) {
		return "AsyncUpdate expects the op shape to be the same as the operand shape. Found " + in.Shape.String() + " for " + prev.Shape.String()
	}
	start := prev
	for start.Opcode.asyncPart() == OpAsyncUpdate && len(start.Operands) == 1 {
		start = start.Operands[0]
	}
	if start.Opcode.asyncPart() != OpAsyncStart {
		return "" // the update before in is at fault, and reported
	}
	if w, _, sugar := in.Opcode.IsAsyncSugar(); sugar {
		if sw := asyncWrapped(start); sw != "" && sw != w {
			return "Expect async wrapped opcode to be " + string(sw) + ", but got " + string(w)
		}
	}
	if v, ok := in.Attr("async_execution_thread"); ok {
		want := "main"
		if sv, ok := start.Attr("async_execution_thread"); ok {
			want = unquote(sv)
		}
		if got := unquote(v); got != want {
			return "Expect async_execution_thread to be " + want + ", but got " + got
		}
	}
	if len(in.Called) == 1 && len(start.Called) == 1 && in.Called[0] != start.Called[0] {
		return "Expect async_wrapped_computation to be " + start.Called[0].Name + ", but got " + in.Called[0].Name
	}
	return ""
}

// asyncWrapped is the opcode an async-start wraps: the one its spelling
// names, or the root of the computation it calls; "" when unknown.
func asyncWrapped(start *Instruction) Opcode {
	if w, _, ok := start.Opcode.IsAsyncSugar(); ok {
		return w
	}
	if len(start.Called) == 1 && start.Called[0].Root != nil {
		return start.Called[0].Root.Opcode
	}
	return ""
}

// unquote returns a quoted attribute value without its quotes.
func unquote(v string) string {
	if s, err := strconv.Unquote(v); err == nil {
		return s
	}
	return v
}
