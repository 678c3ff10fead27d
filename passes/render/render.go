package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/passes"
)

// WriteText writes the text report of each requested pass whose result is
// a passes.TextReporter, in pipeline order, separated by blank lines.
//
// When the module's entry is not plain (no ENTRY marker, or a truncated
// text), the report begins with the lines of ModuleNotes.
func WriteText(w io.Writer, r *passes.Results) error {
	return writeText(w, r, nil)
}

// writeText writes the text report of r, each pass's report taken from
// the spool s where it has one (s may be nil).
func writeText(w io.Writer, r *passes.Results, s *Spool) error {
	for _, n := range passes.ModuleNotes(r.Module) {
		if _, err := io.WriteString(w, n+"\n"); err != nil {
			return err
		}
	}
	first := true
	for _, p := range requested(r) {
		_, spooled := s.section(p)
		v, _ := r.Of(p)
		tr, ok := v.(passes.TextReporter)
		if !spooled && !ok {
			continue
		}
		if !first {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		first = false
		var err error
		if spooled {
			err = s.copy(w, p)
		} else {
			err = tr.WriteText(w, r.Module)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// JSONOptions select what WriteJSON includes.
type JSONOptions struct {
	// ModuleText, if not empty, is emitted as the "hlo" field.
	ModuleText string
	// NoReports leaves out the pass fields.
	NoReports bool
	// Indent indents the output with this string; "" writes one line.
	Indent string
}

// WriteJSON writes the module and the requested passes' results as one JSON
// object followed by a newline. The schema is documented in the package
// doc; keys keep a fixed order, so output is byte-identical across runs.
func WriteJSON(w io.Writer, r *passes.Results, opts JSONOptions) error {
	ps, vals := reportValues(r, opts)
	jw := jsonWriter{indent: opts.Indent, out: w, b: make([]byte, 0, 2*jsonFlushAt)}
	m := r.Module
	// The module's fields, then its computations, each with its fields
	// then its instructions.
	err := jw.objectThen(moduleJSON(m, ps, vals, opts), 0, "computations", func() error {
		return jw.list(len(m.Computations), 1, func(k int) error {
			c := m.Computations[k]
			return jw.objectThen(computationHeadJSON(c, ps, vals), 2, "instructions", func() error {
				return jw.list(len(c.Instructions), 3, func(i int) error {
					return jw.value(instructionJSON(c.Instructions[i], ps, vals), 4)
				})
			})
		})
	})
	if err != nil {
		return err
	}
	jw.b = append(jw.b, '\n')
	if jw.err != nil {
		return jw.err
	}
	_, err = w.Write(jw.b)
	return err
}

// objectThen writes an object at depth d: the fields of o, then the key
// last with the value writeLast writes (a list too long to build first).
func (w *jsonWriter) objectThen(o Object, d int, last string, writeLast func() error) error {
	w.b = append(w.b, '{')
	if err := w.fields(o, d+1); err != nil {
		return err
	}
	if len(o) > 0 {
		w.b = append(w.b, ',')
	}
	w.newline(d + 1)
	w.key(last)
	if err := writeLast(); err != nil {
		return err
	}
	w.newline(d)
	w.b = append(w.b, '}')
	return nil
}

// fields writes the fields of o at depth d, a line each.
func (w *jsonWriter) fields(o Object, d int) error {
	for i, f := range o {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.newline(d)
		if err := w.field(f, d); err != nil {
			return err
		}
	}
	return nil
}

// list writes a list of n items at depth d, item i written by item at
// depth d+1.
func (w *jsonWriter) list(n, d int, item func(i int) error) error {
	if n == 0 {
		w.b = append(w.b, "[]"...)
		return nil
	}
	w.b = append(w.b, '[')
	for i := range n {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.newline(d + 1)
		if err := item(i); err != nil {
			return err
		}
	}
	w.newline(d)
	w.b = append(w.b, ']')
	return nil
}

// key writes "k": (with a space when indenting).
func (w *jsonWriter) key(k string) {
	_ = w.value(k, 0) // a string never fails
	w.b = append(w.b, ':')
	if w.indent != "" {
		w.b = append(w.b, ' ')
	}
}

// field writes "key": value at depth d.
func (w *jsonWriter) field(f Field, d int) error {
	w.key(f.Key)
	if err := w.value(f.Value, d); err != nil {
		return fmt.Errorf("field %q: %w", f.Key, err)
	}
	return nil
}

// flush writes out what the writer holds when it has an output and that,
// with more bytes to come, reaches jsonFlushAt.
func (w *jsonWriter) flush(more int) {
	if w.out != nil && len(w.b)+more >= jsonFlushAt && len(w.b) > 0 {
		w.write(w.b)
		w.b = w.b[:0]
	}
}

// write writes p to the output, keeping the first error.
func (w *jsonWriter) write(p []byte) {
	if w.err == nil {
		_, w.err = w.out.Write(p)
	}
}

// jsonFlushAt is the text a jsonWriter with an output keeps before it
// writes it out.
const jsonFlushAt = 64 << 10

// jsonWriter writes Objects, lists of Objects and encoding/json values in
// one pass, indented as json.Indent would. Marshalling nested Objects
// through encoding/json instead made it check and copy each object's
// bytes again at every level, and indenting after made one more pass:
// seven times the text report's time on a large module.
type jsonWriter struct {
	b      []byte
	out    io.Writer // where b goes once it holds jsonFlushAt bytes; nil keeps all
	err    error     // the first error writing to out
	indent string
	leaf   bytes.Buffer // an encoding/json value
	enc    *json.Encoder
	tmp    bytes.Buffer
}

// newline starts a line at depth d (nothing when not indenting), after
// writing out what the writer holds once that is jsonFlushAt bytes.
func (w *jsonWriter) newline(d int) {
	w.flush(0)
	if w.indent == "" {
		return
	}
	w.b = append(w.b, '\n')
	for range d {
		w.b = append(w.b, w.indent...)
	}
}

// value writes v, at depth d.
func (w *jsonWriter) value(v any, d int) error {
	switch x := v.(type) {
	case Object:
		if len(x) == 0 {
			w.b = append(w.b, "{}"...)
			return nil
		}
		w.b = append(w.b, '{')
		if err := w.fields(x, d+1); err != nil {
			return err
		}
		w.newline(d)
		w.b = append(w.b, '}')
		return nil
	case []Object:
		return w.list(len(x), d, func(i int) error { return w.value(x[i], d+1) })
	case string:
		if plainJSONString(x) {
			w.b = append(append(append(w.b, '"'), x...), '"')
			return nil
		}
	}
	if w.enc == nil {
		w.enc = json.NewEncoder(&w.leaf)
		w.enc.SetEscapeHTML(false)
	}
	w.leaf.Reset()
	if err := w.enc.Encode(v); err != nil {
		return err
	}
	leaf := bytes.TrimSuffix(w.leaf.Bytes(), []byte("\n"))
	if w.indent == "" {
		w.b = append(w.b, leaf...)
		return nil
	}
	w.tmp.Reset()
	if err := json.Indent(&w.tmp, leaf, strings.Repeat(w.indent, d), w.indent); err != nil {
		return err
	}
	w.b = append(w.b, w.tmp.Bytes()...)
	return nil
}

// plainJSONString reports whether s encodes as itself in quotes: printable
// ASCII without quotes or backslashes.
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// JSONValue builds the value WriteJSON writes, as an Object: encoding/json
// marshals it to the same bytes. WriteJSON writes them in one pass without
// building the whole value (why it is not encoding/json: the README's
// performance section).
func JSONValue(r *passes.Results, opts JSONOptions) json.Marshaler {
	ps, vals := reportValues(r, opts)
	m := r.Module
	comps := make([]Object, 0, len(m.Computations))
	for _, c := range m.Computations {
		co := computationHeadJSON(c, ps, vals)
		ins := make([]Object, 0, len(c.Instructions))
		for _, in := range c.Instructions {
			ins = append(ins, instructionJSON(in, ps, vals))
		}
		comps = append(comps, append(co, Field{"instructions", ins}))
	}
	return append(moduleJSON(m, ps, vals, opts), Field{"computations", comps})
}

// reportValues returns the passes whose reports the JSON holds and their
// results.
func reportValues(r *passes.Results, opts JSONOptions) ([]*passes.Pass, []any) {
	var ps []*passes.Pass
	if !opts.NoReports {
		ps = requested(r)
	}
	vals := make([]any, len(ps))
	for i, p := range ps {
		vals[i], _ = r.Of(p)
	}
	return ps, vals
}

// moduleJSON is the module's fields of the JSON value: its name, text and
// module reports; "entry" and "truncated" when the entry is not plain (see
// ModuleNotes).
func moduleJSON(m *hlo.Module, ps []*passes.Pass, vals []any, opts JSONOptions) Object {
	top := Object{{"module", m.Name}}
	if m.Truncated != nil || m.ImpliedEntry {
		var entry any // null: the entry was dropped
		if m.Entry != nil {
			entry = m.Entry.Name
		}
		top = append(top, Field{"entry", entry})
	}
	if t := m.Truncated; t != nil {
		top = append(top, Field{"truncated", Object{{"computation", t.Computation},
			{"line", t.Pos.Line}, {"col", t.Pos.Col}, {"entry_dropped", t.Entry}}})
	}
	if opts.ModuleText != "" {
		top = append(top, Field{"hlo", opts.ModuleText})
	}
	for i, p := range ps {
		if mr, ok := vals[i].(passes.ModuleReporter); ok {
			if x := mr.ModuleReport(); x != nil {
				top = append(top, Field{p.Name, x})
			}
		}
	}
	return top
}

// computationHeadJSON is a computation's fields before "instructions".
func computationHeadJSON(c *hlo.Computation, ps []*passes.Pass, vals []any) Object {
	co := Object{{"name", c.Name}}
	for i, p := range ps {
		if cr, ok := vals[i].(passes.ComputationReporter); ok {
			if x := cr.ComputationReport(c); x != nil {
				co = append(co, Field{p.Name, x})
			}
		}
	}
	return co
}

// instructionJSON is an instruction's JSON object.
func instructionJSON(in *hlo.Instruction, ps []*passes.Pass, vals []any) Object {
	io := Object{{"name", in.Name}, {"opcode", string(in.Opcode)}, {"shape", in.Shape.String()}}
	for i, p := range ps {
		if ir, ok := vals[i].(passes.InstructionReporter); ok {
			if x := ir.InstructionReport(in); x != nil {
				io = append(io, Field{p.Name, x})
			}
		}
	}
	return io
}

// requested returns the requested passes without repeats.
func requested(r *passes.Results) []*passes.Pass {
	var out []*passes.Pass
	seen := map[*passes.Pass]bool{}
	for _, p := range r.Passes {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// Field is one key of an Object.
type Field struct {
	Key   string
	Value any
}

// Object is a JSON object whose keys keep their order.
type Object []Field

// MarshalJSON writes the fields in order, without HTML escaping.
func (o Object) MarshalJSON() ([]byte, error) {
	var w jsonWriter
	if err := w.value(o, 0); err != nil {
		return nil, err
	}
	return w.b, nil
}
