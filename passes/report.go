package passes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

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
	v := JSONValue(r, opts)
	b, err := marshal(v)
	if err != nil {
		return err
	}
	if opts.Indent != "" {
		var buf bytes.Buffer
		if err := json.Indent(&buf, b, "", opts.Indent); err != nil {
			return err
		}
		b = buf.Bytes()
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
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
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := marshal(f.Key)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		v, err := marshal(f.Value)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", f.Key, err)
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
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
