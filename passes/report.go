package passes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// A pass result shows up in hlo-opt's reports by implementing any of the
// interfaces below; the report writers ask each requested pass's result
// for them, so the command needs no knowledge of any pass.

// TextReporter is a result with a human-readable report, written in XLA's
// notation (shapes like f32[8,128]{1,0:T(8,128)}, indexing maps like
// (d0, d1) -> (d1, d0)). Lines should be stable across runs and --jobs.
type TextReporter interface {
	WriteText(w io.Writer, m *hlo.Module) error
}

// ModuleReporter is a result with a module-level JSON value, emitted as the
// top-level field named after the pass.
type ModuleReporter interface {
	ModuleReport() any
}

// ComputationReporter is a result with a JSON value per computation,
// emitted in the computation's object under the pass's name. A nil value
// omits the field.
type ComputationReporter interface {
	ComputationReport(c *hlo.Computation) any
}

// InstructionReporter is a result with a JSON value per instruction,
// emitted in the instruction's object under the pass's name. A nil value
// omits the field.
type InstructionReporter interface {
	InstructionReport(in *hlo.Instruction) any
}

// WriteText writes the text report of each requested pass whose result is
// a TextReporter, in pipeline order, separated by blank lines.
func WriteText(w io.Writer, r *Results) error {
	first := true
	for _, p := range requested(r) {
		v, _ := r.Of(p)
		tr, ok := v.(TextReporter)
		if !ok {
			continue
		}
		if !first {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		first = false
		if err := tr.WriteText(w, r.Module); err != nil {
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
func WriteJSON(w io.Writer, r *Results, opts JSONOptions) error {
	jw := jsonWriter{indent: opts.Indent, out: w, b: make([]byte, 0, 2*jsonFlushAt)}
	if err := jw.value(JSONValue(r, opts), 0); err != nil {
		return err
	}
	if jw.err != nil {
		return jw.err
	}
	jw.b = append(jw.b, '\n')
	_, err := w.Write(jw.b)
	return err
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
	if w.out != nil && len(w.b) >= jsonFlushAt && w.err == nil {
		_, w.err = w.out.Write(w.b)
		w.b = w.b[:0]
	}
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
		for i, f := range x {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.newline(d + 1)
			if err := w.value(f.Key, d+1); err != nil {
				return err
			}
			w.b = append(w.b, ':')
			if w.indent != "" {
				w.b = append(w.b, ' ')
			}
			if err := w.value(f.Value, d+1); err != nil {
				return fmt.Errorf("field %q: %w", f.Key, err)
			}
		}
		w.newline(d)
		w.b = append(w.b, '}')
		return nil
	case []Object:
		if len(x) == 0 {
			w.b = append(w.b, "[]"...)
			return nil
		}
		w.b = append(w.b, '[')
		for i, o := range x {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.newline(d + 1)
			if err := w.value(o, d+1); err != nil {
				return err
			}
		}
		w.newline(d)
		w.b = append(w.b, ']')
		return nil
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

// JSONValue builds the value WriteJSON writes; it marshals with
// encoding/json.
func JSONValue(r *Results, opts JSONOptions) json.Marshaler {
	m := r.Module
	var ps []*Pass
	if !opts.NoReports {
		ps = requested(r)
	}
	vals := make([]any, len(ps))
	for i, p := range ps {
		vals[i], _ = r.Of(p)
	}
	top := Object{{"module", m.Name}}
	if opts.ModuleText != "" {
		top = append(top, Field{"hlo", opts.ModuleText})
	}
	for i, p := range ps {
		if mr, ok := vals[i].(ModuleReporter); ok {
			if x := mr.ModuleReport(); x != nil {
				top = append(top, Field{p.Name, x})
			}
		}
	}
	comps := make([]Object, 0, len(m.Computations))
	for _, c := range m.Computations {
		co := Object{{"name", c.Name}}
		for i, p := range ps {
			if cr, ok := vals[i].(ComputationReporter); ok {
				if x := cr.ComputationReport(c); x != nil {
					co = append(co, Field{p.Name, x})
				}
			}
		}
		ins := make([]Object, 0, len(c.Instructions))
		for _, in := range c.Instructions {
			io := Object{{"name", in.Name}, {"opcode", string(in.Opcode)}, {"shape", in.Shape.String()}}
			for i, p := range ps {
				if ir, ok := vals[i].(InstructionReporter); ok {
					if x := ir.InstructionReport(in); x != nil {
						io = append(io, Field{p.Name, x})
					}
				}
			}
			ins = append(ins, io)
		}
		co = append(co, Field{"instructions", ins})
		comps = append(comps, co)
	}
	return append(top, Field{"computations", comps})
}

// requested returns the requested passes without repeats.
func requested(r *Results) []*Pass {
	var out []*Pass
	seen := map[*Pass]bool{}
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

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
