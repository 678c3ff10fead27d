package passes

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// Error is one problem a pass found, located in the source and in the
// module: "mod.hlo:12:7: main/add.3: operand 1 is not defined".
type Error struct {
	// Pass is the pass that reported the error.
	Pass string
	// Source is the module's file name; empty if unknown.
	Source string
	// Pos is the instruction's (or computation's) position; zero if unknown.
	Pos hlo.Pos
	// Computation and Instruction name where the error is; either may be "".
	Computation, Instruction string
	Msg                      string

	comp, instr int   // module order, for sorting
	cause       error // the run function's error it was made from, if any
}

// Unwrap returns the error a pass's run function returned, when the Error
// was made from one (a *PanicError among them), so that errors.As finds it
// through the ErrorList.
func (e *Error) Unwrap() error { return e.cause }

func newError(m *hlo.Module, c *hlo.Computation, in *hlo.Instruction, msg string) *Error {
	e := &Error{Msg: msg, comp: -1, instr: -1}
	if m != nil {
		e.Source = m.Source
	}
	if in != nil && c == nil {
		c = in.Parent
	}
	if c != nil {
		e.Computation, e.Pos = c.Name, c.Pos
		if m != nil {
			e.comp = m.ComputationIndex(c)
		}
	}
	if in != nil {
		e.Instruction, e.instr = in.Name, in.Index
		if in.Pos.IsValid() {
			e.Pos = in.Pos
		}
	}
	return e
}

// Error returns "SOURCE:LINE:COL: COMPUTATION/INSTRUCTION: MSG", leaving
// out what is unknown, as hlo.Error prints a position.
func (e *Error) Error() string {
	msg := e.Msg
	switch {
	case e.Computation != "" && e.Instruction != "":
		msg = e.Computation + "/" + e.Instruction + ": " + msg
	case e.Computation != "":
		msg = e.Computation + ": " + msg
	}
	return (&hlo.Error{Filename: e.Source, Pos: e.Pos, Msg: msg}).Error()
}

// ErrorList is a list of errors in module order (computation, then
// instruction, then message), as go/scanner's ErrorList.
type ErrorList []*Error

// Sort orders the list by computation, instruction, then message.
func (l ErrorList) Sort() {
	slices.SortStableFunc(l, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.comp, b.comp), cmp.Compare(a.instr, b.instr), cmp.Compare(a.Msg, b.Msg))
	})
}

// RemoveMultiples sorts the list and removes exact duplicates.
func (l *ErrorList) RemoveMultiples() {
	l.Sort()
	*l = slices.CompactFunc(*l, func(a, b *Error) bool { return a.Error() == b.Error() && a.Pass == b.Pass })
}

// Error returns the first error's text, followed by "(and N more errors)"
// when there are more (hlo.ErrorsText).
func (l ErrorList) Error() string { return hlo.ErrorsText(l) }

// Err returns the list as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Unwrap returns the errors, for errors.As and errors.Is.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// PrintErrors writes err to w, one line per error when it is an ErrorList
// or wraps one.
func PrintErrors(w io.Writer, err error) {
	var pe *PassError
	if errors.As(err, &pe) {
		if l, ok := pe.Err.(ErrorList); ok {
			for _, e := range l {
				fmt.Fprintf(w, "%s: %s\n", pe.prefix(), e)
			}
			return
		}
	}
	if l, ok := err.(ErrorList); ok {
		for _, e := range l {
			fmt.Fprintln(w, e)
		}
		return
	}
	fmt.Fprintln(w, err)
}

// PassError is the error of a pipeline run: which pass failed and, for a
// verification failure, after which pass.
type PassError struct {
	// Pass is the pass that failed.
	Pass string
	// After is set when Pass is the verifier and names the pass whose
	// changes it rejected.
	After string
	// Input is set when Pass is the verifier run on the input before the
	// first pass: the module was invalid as given.
	Input bool
	// Err is the pass's error, usually an ErrorList.
	Err error
}

func (e *PassError) prefix() string {
	if e.Input {
		return "invalid input (" + e.Pass + ")"
	}
	if e.After != "" {
		return fmt.Sprintf("%s after pass %q", e.Pass, e.After)
	}
	return "pass " + e.Pass
}

func (e *PassError) Error() string { return e.prefix() + ": " + e.Err.Error() }

// Unwrap returns the pass's error.
func (e *PassError) Unwrap() error { return e.Err }

// PanicError is a pass's panic, recovered by the pipeline as its last
// guard: a pass is to return an error for any state it does not handle,
// so a PanicError is a bug (the fuzz tests fail on one).
type PanicError struct {
	Pass, Where string
	Value       any
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("panic during pass %s on %s: %v", e.Pass, e.Where, e.Value)
}
