package hlo

import (
	"fmt"
	"sort"
)

// Error is a positioned parse error. Its text is "FILE:LINE:COL: MSG",
// where MSG reads "expected X, found Y".
type Error struct {
	Filename string
	Pos      Pos
	Msg      string
}

// Error implements the error interface.
func (e *Error) Error() string {
	switch {
	case e.Filename != "" && e.Pos.IsValid():
		return fmt.Sprintf("%s:%d:%d: %s", e.Filename, e.Pos.Line, e.Pos.Col, e.Msg)
	case e.Pos.IsValid():
		return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg)
	case e.Filename != "":
		return e.Filename + ": " + e.Msg
	}
	return e.Msg
}

// ErrorList is a list of parse errors, in the style of go/scanner.ErrorList.
// The zero value is an empty list ready to use.
type ErrorList []*Error

// Add appends an error at the given file position.
func (l *ErrorList) Add(filename string, pos Pos, msg string) {
	*l = append(*l, &Error{Filename: filename, Pos: pos, Msg: msg})
}

// Reset empties the list.
func (l *ErrorList) Reset() { *l = (*l)[:0] }

// Len is the number of errors.
func (l ErrorList) Len() int { return len(l) }

// Swap swaps two errors.
func (l ErrorList) Swap(i, j int) { l[i], l[j] = l[j], l[i] }

// Less orders errors by file name, line, column and message.
func (l ErrorList) Less(i, j int) bool {
	a, b := l[i], l[j]
	if a.Filename != b.Filename {
		return a.Filename < b.Filename
	}
	if a.Pos.Line != b.Pos.Line {
		return a.Pos.Line < b.Pos.Line
	}
	if a.Pos.Col != b.Pos.Col {
		return a.Pos.Col < b.Pos.Col
	}
	return a.Msg < b.Msg
}

// Sort sorts the list by position.
func (l ErrorList) Sort() { sort.Stable(l) }

// Error returns the first error's text, followed by "(and N more errors)"
// when there are more.
func (l ErrorList) Error() string { return ErrorsText(l) }

// ErrorsText is the text of a list of errors in the style of
// go/scanner.ErrorList: "no errors", the only error's text, or the first
// error's text followed by " (and N more errors)". Error lists of other
// packages (passes.ErrorList) use it to read the same.
func ErrorsText[E error](errs []E) string {
	switch len(errs) {
	case 0:
		return "no errors"
	case 1:
		return errs[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", errs[0].Error(), len(errs)-1)
}

// Err returns nil when the list is empty and the list itself otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
