package hlo

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Frame is one frame of the program stack an instruction was traced from:
// the file, the function and the line (column 0 when not known).
type Frame struct {
	File, Function string
	Line, Column   int
}

// String is "file:line:function", or "file:line" without a function.
func (f Frame) String() string {
	s := f.File + ":" + strconv.Itoa(f.Line)
	if f.Function != "" {
		s += ":" + f.Function
	}
	return s
}

// StackFrames resolves the stack_frame_id of an instruction's metadata
// through the module's origin tables (FileNames, FunctionNames,
// FileLocations, StackFrames), as XLA's HloModule::get_stack_frame does:
// ids count from 1, a frame's printed parent_frame_id is its parent's id
// plus one (1: no parent), and file and function names are C-escaped.
// JAX dumps carry stack_frame_id instead of source_file and source_line.
type StackFrames struct {
	files, functions []string
	locations        []location
	frames           []stackFrame
}

type location struct {
	file, function, line, column int
}

type stackFrame struct {
	location, parent int
}

// stackRegexps are compiled on first use: most runs read no origin.
var stackRegexps = sync.OnceValue(func() (r struct{ tableField, stackID, srcFile, srcLine *regexp.Regexp }) {
	r.tableField = regexp.MustCompile(`(\w+)=(-?\d+)`)
	r.stackID = regexp.MustCompile(`\bstack_frame_id=(\d+)`)
	r.srcFile = regexp.MustCompile(`\bsource_file="((?:[^"\\]|\\.)*)"`)
	r.srcLine = regexp.MustCompile(`\bsource_line=(\d+)`)
	return r
})

// NewStackFrames reads m's origin tables. Entries it cannot read are left
// out: a frame that names one resolves to nothing.
func NewStackFrames(m *Module) *StackFrames {
	sf := &StackFrames{}
	for _, t := range m.Tables {
		for _, e := range t.Entries {
			i := int(e.ID) - 1
			if i < 0 || i > 1<<20 {
				continue
			}
			switch t.Name {
			case "FileNames":
				sf.files = setAt(sf.files, i, unescapeC(e.Value))
			case "FunctionNames":
				sf.functions = setAt(sf.functions, i, unescapeC(e.Value))
			case "FileLocations":
				f := fields(e.Value)
				sf.locations = setAt(sf.locations, i, location{f["file_name_id"], f["function_name_id"], f["line"], f["column"]})
			case "StackFrames":
				f := fields(e.Value)
				sf.frames = setAt(sf.frames, i, stackFrame{f["file_location_id"], f["parent_frame_id"] - 1})
			}
		}
	}
	return sf
}

// setAt sets s[i] = v, growing s with zero values as needed.
func setAt[T any](s []T, i int, v T) []T {
	for len(s) <= i {
		var zero T
		s = append(s, zero)
	}
	s[i] = v
	return s
}

// fields reads the name=number fields of a table entry "{a=1 b=2}".
func fields(v string) map[string]int {
	out := map[string]int{}
	for _, m := range stackRegexps().tableField.FindAllStringSubmatch(v, -1) {
		n, err := strconv.Atoi(m[2])
		if err == nil {
			out[m[1]] = n
		}
	}
	return out
}

// unescapeC reads a quoted, C-escaped name ("a\"b", "\303\251"); a value
// that is not one is kept as it is.
func unescapeC(v string) string {
	if s, err := strconv.Unquote(strings.ReplaceAll(v, `\'`, `'`)); err == nil {
		return s
	}
	return strings.Trim(v, `"`)
}

// Stack returns the frames of stack frame id, innermost first (nil for an
// id the tables do not hold). A chain that loops stops where it would
// repeat a frame.
func (sf *StackFrames) Stack(id int) []Frame {
	var out []Frame
	seen := map[int]bool{}
	for id >= 1 && id <= len(sf.frames) && !seen[id] {
		seen[id] = true
		fr := sf.frames[id-1]
		if fr.location < 1 || fr.location > len(sf.locations) {
			break
		}
		loc := sf.locations[fr.location-1]
		out = append(out, Frame{File: name(sf.files, loc.file), Function: name(sf.functions, loc.function), Line: loc.line, Column: loc.column})
		id = fr.parent
	}
	return out
}

// name is names[id-1], "" when id is out of range.
func name(names []string, id int) string {
	if id < 1 || id > len(names) {
		return ""
	}
	return names[id-1]
}

// Source returns where in's metadata says it comes from: source_file and
// source_line when it has them, else the innermost frame of its
// stack_frame_id; ok is false when it says neither.
func (sf *StackFrames) Source(in *Instruction) (Frame, bool) {
	st := sf.StackOf(in)
	if len(st) > 0 {
		return st[0], true
	}
	return Frame{}, false
}

// StackOf returns the stack in's metadata names, innermost first: the
// frames of its stack_frame_id (as JAX writes it), else the one frame of
// its source_file and source_line; nil when it names neither.
func (sf *StackFrames) StackOf(in *Instruction) []Frame {
	md, ok := in.Attr("metadata")
	if !ok {
		return nil
	}
	re := stackRegexps()
	if m := re.stackID.FindStringSubmatch(md); m != nil {
		if id, err := strconv.Atoi(m[1]); err == nil {
			if st := sf.Stack(id); len(st) > 0 {
				return st
			}
		}
	}
	f := re.srcFile.FindStringSubmatch(md)
	l := re.srcLine.FindStringSubmatch(md)
	if f == nil || l == nil {
		return nil
	}
	line, _ := strconv.Atoi(l[1])
	return []Frame{{File: unescapeC(`"` + f[1] + `"`), Line: line}}
}
