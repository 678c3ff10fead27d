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

// ModuleNotes are the lines a report of m begins with when its entry
// computation is not plain: which computation was taken as the entry when
// no computation is marked ENTRY (XLA takes the last one), and what a
// truncated text lost. None for a complete text with an ENTRY.
func ModuleNotes(m *hlo.Module) []string {
	var notes []string
	if t := m.Truncated; t != nil {
		kept := fmt.Sprintf("%d complete computations", len(m.Computations))
		if len(m.Computations) == 1 {
			kept = "1 complete computation"
		}
		n := fmt.Sprintf("Truncated input: %s; %s kept", t, kept)
		if m.Entry == nil {
			n += ", no entry computation"
		}
		notes = append(notes, n+".")
	}
	if m.Entry != nil && m.ImpliedEntry {
		notes = append(notes, fmt.Sprintf("Entry computation: %s (no computation is marked ENTRY; XLA takes the last one).", m.Entry.Name))
	}
	return notes
}

// marshal is encoding/json without HTML escaping and without the final
// newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
