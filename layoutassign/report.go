package layoutassign

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// MaxAllocations is how many of the allocations live at the peak the text
// report lists.
const MaxAllocations = 10

// Result is the layout pass's result: what the assignment did and the
// memory report of the laid-out module. It implements the passes
// reporters: WriteText (the offline out-of-memory style report),
// ModuleReport and InstructionReport (JSON).
type Result struct {
	Assignment *Assignment
	Memory     *MemoryReport
}

// copyCount is the number of copy instructions inserted.
func (a *Assignment) copyCount() int {
	seen := map[string]bool{}
	for _, c := range a.Copies {
		seen[c.Computation+"/"+c.Name] = true
	}
	return len(seen)
}

// HumanBytes prints a byte count as XLA's memory reports do: "0B", "512B",
// "36.0K", "530.00M", "17.13G" (powers of 1024).
func HumanBytes(n int64) string {
	switch f := float64(n); {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1fK", f/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.2fM", f/(1<<20))
	case n < 1<<40:
		return fmt.Sprintf("%.2fG", f/(1<<30))
	default:
		return fmt.Sprintf("%.2fT", f/(1<<40))
	}
}

var (
	opNameRE = regexp.MustCompile(`op_name="((?:[^"\\]|\\.)*)"`)
	opTypeRE = regexp.MustCompile(`op_type="((?:[^"\\]|\\.)*)"`)
)

// operator is the op_type and op_name of an instruction's metadata, as the
// TPU report prints them.
func operator(in *hlo.Instruction) string {
	md, ok := in.Attr("metadata")
	if !ok {
		return ""
	}
	var parts []string
	if m := opTypeRE.FindStringSubmatch(md); m != nil {
		parts = append(parts, `op_type="`+m[1]+`"`)
	}
	if m := opNameRE.FindStringSubmatch(md); m != nil {
		parts = append(parts, `op_name="`+m[1]+`"`)
	}
	return strings.Join(parts, " ")
}

// xlaLabel is the short instruction text of XLA's report:
// "fusion.4 = fusion(p0, p1), kind=kLoop, calls=fused_computation.4".
func xlaLabel(in *hlo.Instruction) string {
	var b strings.Builder
	b.WriteString(in.Name)
	b.WriteString(" = ")
	b.WriteString(string(in.Opcode))
	b.WriteByte('(')
	if in.Opcode == "parameter" {
		fmt.Fprint(&b, in.ParameterNumber)
	}
	for i, op := range in.Operands {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == 4 && len(in.Operands) > 5 {
			fmt.Fprintf(&b, "... %d more", len(in.Operands)-4)
			break
		}
		b.WriteString(op.Name)
	}
	b.WriteByte(')')
	for _, a := range in.Attrs {
		switch a.Name {
		case "kind", "calls", "to_apply", "body", "condition", "custom_call_target", "dimensions", "index":
			fmt.Fprintf(&b, ", %s=%s", a.Name, a.Value)
		}
	}
	return b.String()
}

func indexSuffix(idx []int64) string {
	if len(idx) == 0 {
		return ""
	}
	return " {" + joinInts(idx) + "}"
}

// WriteText writes the memory report in the form of the TPU out-of-memory
// report, computed offline: totals and peak, the largest allocations live
// at the peak with their padding, then suggestions.
func (r *Result) WriteText(w io.Writer, m *hlo.Module) error {
	bw := bufio.NewWriter(w)
	mr, as := r.Memory, r.Assignment
	fmt.Fprintf(bw, "Memory report for module %s on %s (offline estimate; nothing ran)\n", mr.Module, mr.Target)
	if as != nil {
		fmt.Fprintf(bw, "Layouts: %d arrays, %d fixed by constraints, %d copies inserted; transposes free %d, costly %d; reshapes free %d, costly %d.\n",
			as.Arrays, as.Fixed, as.copyCount(), len(as.FreeTransposes), len(as.CostlyTransposes), len(as.FreeReshapes), len(as.CostlyReshapes))
		for _, c := range as.Copies {
			user := "the root of " + c.Computation
			if c.User != "" {
				user = fmt.Sprintf("operand %d of %s", c.Operand, c.User)
			}
			fmt.Fprintf(bw, "    copy %s: %s %s -> %s for %s\n", c.Name, c.Of, c.From, c.To, user)
		}
	}
	fmt.Fprintf(bw, "All arrays (fused computations excluded): %s, unpadded %s (%.1fx expansion).\n",
		HumanBytes(mr.Bytes), HumanBytes(mr.Unpadded), expansion(mr.Bytes, mr.Unpadded))
	if mr.Unsized > 0 {
		fmt.Fprintf(bw, "Not counted: %d arrays with unbounded dynamic dimensions (?), sized only at run time.\n", mr.Unsized)
	}
	fmt.Fprintln(bw)
	total := mr.ArgumentBytes + mr.OutputBytes - mr.AliasedBytes + mr.TemporaryBytes
	fmt.Fprintf(bw, "Total memory of %s without buffer reuse >= %s:\n", mr.Entry, HumanBytes(total))
	fmt.Fprintf(bw, "    arguments   %10s\n", HumanBytes(mr.ArgumentBytes))
	fmt.Fprintf(bw, "    output      %10s\n", HumanBytes(mr.OutputBytes))
	fmt.Fprintf(bw, "    temporaries %10s\n\n", HumanBytes(mr.TemporaryBytes))
	fmt.Fprintf(bw, "Output size %s; shares %s with arguments.\n\n", HumanBytes(mr.OutputBytes), HumanBytes(mr.AliasedBytes))
	fmt.Fprintf(bw, "Peak memory %s at step %d of %d (%s, %s order):\n", HumanBytes(mr.PeakBytes), mr.PeakStep, mr.Steps, mr.PeakAt, mr.Order)
	fmt.Fprintf(bw, "    Unpadded (%s) Padded (%s), extra memory due to padding: %s (%.1fx expansion)\n",
		HumanBytes(mr.PeakUnpadded), HumanBytes(mr.PeakBytes), HumanBytes(mr.PeakBytes-mr.PeakUnpadded), expansion(mr.PeakBytes, mr.PeakUnpadded))
	n := min(len(mr.LiveAtPeak), MaxAllocations)
	fmt.Fprintf(bw, "\n  Largest allocations live at the peak (%d of %d):\n", n, len(mr.LiveAtPeak))
	for i, a := range mr.LiveAtPeak[:n] {
		fmt.Fprintf(bw, "\n  %d. Size: %s\n", i+1, HumanBytes(a.Cost.Bytes))
		if a.Extra {
			fmt.Fprintf(bw, "     Peak temporaries of %s called by %s\n", a.Called, xlaLabel(a.Instruction))
			fmt.Fprintf(bw, "     Allocation type: %s\n     ==========================\n", a.Kind)
			continue
		}
		if op := operator(a.Instruction); op != "" {
			fmt.Fprintf(bw, "     Operator: %s\n", op)
		}
		fmt.Fprintf(bw, "     Shape: %s%s\n", a.Cost.Shape.String(), indexSuffix(a.Index))
		fmt.Fprintf(bw, "     Unpadded size: %s\n", HumanBytes(a.Cost.Unpadded))
		if a.Cost.Bytes != a.Cost.Unpadded {
			fmt.Fprintf(bw, "     Extra memory due to padding: %s (%.1fx expansion)\n", HumanBytes(a.Cost.Bytes-a.Cost.Unpadded), a.Cost.Expansion)
		}
		fmt.Fprintf(bw, "     XLA label: %s\n", xlaLabel(a.Instruction))
		fmt.Fprintf(bw, "     Allocation type: %s\n", a.Kind)
		fmt.Fprintf(bw, "     Tiling rule: %s\n", a.Cost.Rule.Name)
		fmt.Fprintf(bw, "     ==========================\n")
	}
	if len(mr.Suggestions) > 0 {
		fmt.Fprintf(bw, "\n  Suggestions to cut padding:\n")
		for i, s := range mr.Suggestions {
			fmt.Fprintf(bw, "\n  %d. %s%s: %s\n", i+1, s.Instruction, indexSuffix(s.Index), s.Problem)
			fmt.Fprintf(bw, "     %s\n", s.Change)
			fmt.Fprintf(bw, "     %s -> %s (saves %s)\n", HumanBytes(s.Before), HumanBytes(s.After), HumanBytes(s.Before-s.After))
		}
	}
	return bw.Flush()
}

// ArrayJSON is the JSON form of one array's layout and size.
type ArrayJSON struct {
	Index         []int64 `json:"index,omitempty"`
	Shape         string  `json:"shape"`
	Bytes         int64   `json:"bytes"`
	UnpaddedBytes int64   `json:"unpadded_bytes"`
	Expansion     float64 `json:"expansion"`
	Rule          string  `json:"rule"`
	// Leaves lists a tuple's array leaves (the totals above sum them).
	Leaves []ArrayJSON `json:"leaves,omitempty"`
}

func arrayJSON(c ArrayCost) ArrayJSON {
	return ArrayJSON{Index: c.Index, Shape: c.Shape.String(), Bytes: c.Bytes, UnpaddedBytes: c.Unpadded,
		Expansion: round3(c.Expansion), Rule: c.Rule.Name}
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// InstructionReport is the "layout" object of an instruction in the JSON
// report: shape, padded and unpadded bytes, expansion and tiling rule; a
// tuple sums its leaves and lists them. Instructions without arrays have
// none.
func (r *Result) InstructionReport(in *hlo.Instruction) any {
	costs := r.Memory.Arrays[in]
	if len(costs) == 0 {
		return nil
	}
	if !in.Shape.IsTuple() {
		j := arrayJSON(costs[0])
		j.Index = nil
		return j
	}
	out := ArrayJSON{Shape: in.Shape.String(), Rule: "tuple"}
	for _, c := range costs {
		out.Bytes += c.Bytes
		out.UnpaddedBytes += c.Unpadded
		out.Leaves = append(out.Leaves, arrayJSON(c))
	}
	out.Expansion = round3(expansion(out.Bytes, out.UnpaddedBytes))
	return out
}

// AllocationJSON is one allocation live at the peak.
type AllocationJSON struct {
	Instruction   string  `json:"instruction"`
	Index         []int64 `json:"index,omitempty"`
	Shape         string  `json:"shape,omitempty"`
	Bytes         int64   `json:"bytes"`
	UnpaddedBytes int64   `json:"unpadded_bytes"`
	Expansion     float64 `json:"expansion"`
	Kind          string  `json:"kind"`
	Rule          string  `json:"rule,omitempty"`
	Called        string  `json:"called,omitempty"`
	Operator      string  `json:"operator,omitempty"`
	Start         int     `json:"start"`
	End           int     `json:"end"`
}

// ModuleJSON is the module-level JSON of the layout pass.
type ModuleJSON struct {
	Target           string           `json:"target"`
	Arrays           int              `json:"arrays"`
	Fixed            int              `json:"fixed"`
	Copies           []Copy           `json:"copies"`
	FreeTransposes   []string         `json:"free_transposes"`
	CostlyTransposes []string         `json:"costly_transposes"`
	FreeReshapes     []string         `json:"free_reshapes"`
	CostlyReshapes   []string         `json:"costly_reshapes"`
	Bytes            int64            `json:"bytes"`
	UnpaddedBytes    int64            `json:"unpadded_bytes"`
	Expansion        float64          `json:"expansion"`
	UnsizedArrays    int              `json:"unsized_arrays,omitempty"`
	ArgumentBytes    int64            `json:"argument_bytes"`
	OutputBytes      int64            `json:"output_bytes"`
	AliasedBytes     int64            `json:"aliased_bytes"`
	TemporaryBytes   int64            `json:"temporary_bytes"`
	Peak             PeakJSON         `json:"peak"`
	Suggestions      []SuggestionJSON `json:"suggestions"`
}

// PeakJSON is the peak of the entry computation.
type PeakJSON struct {
	Bytes         int64            `json:"bytes"`
	UnpaddedBytes int64            `json:"unpadded_bytes"`
	Step          int              `json:"step"`
	Steps         int              `json:"steps"`
	Instruction   string           `json:"instruction"`
	Order         string           `json:"order"`
	Live          []AllocationJSON `json:"live"`
}

// SuggestionJSON is one padding suggestion.
type SuggestionJSON struct {
	Instruction string  `json:"instruction,omitempty"`
	Index       []int64 `json:"index,omitempty"`
	Problem     string  `json:"problem"`
	Change      string  `json:"change"`
	Shape       string  `json:"shape"`
	Before      int64   `json:"bytes_before"`
	After       int64   `json:"bytes_after"`
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ModuleReport is the module-level "layout" JSON value.
func (r *Result) ModuleReport() any {
	mr := r.Memory
	j := ModuleJSON{Target: mr.Target.String(), Bytes: mr.Bytes, UnpaddedBytes: mr.Unpadded,
		Expansion: round3(expansion(mr.Bytes, mr.Unpadded)), UnsizedArrays: mr.Unsized, ArgumentBytes: mr.ArgumentBytes, OutputBytes: mr.OutputBytes,
		AliasedBytes: mr.AliasedBytes, TemporaryBytes: mr.TemporaryBytes, Copies: []Copy{},
		FreeTransposes: []string{}, CostlyTransposes: []string{}, FreeReshapes: []string{}, CostlyReshapes: []string{},
		Peak: PeakJSON{Bytes: mr.PeakBytes, UnpaddedBytes: mr.PeakUnpadded, Step: mr.PeakStep, Steps: mr.Steps,
			Instruction: mr.PeakAt, Order: mr.Order, Live: []AllocationJSON{}}, Suggestions: []SuggestionJSON{}}
	if as := r.Assignment; as != nil {
		j.Arrays, j.Fixed = as.Arrays, as.Fixed
		j.Copies = orEmpty(as.Copies)
		j.FreeTransposes, j.CostlyTransposes = orEmpty(as.FreeTransposes), orEmpty(as.CostlyTransposes)
		j.FreeReshapes, j.CostlyReshapes = orEmpty(as.FreeReshapes), orEmpty(as.CostlyReshapes)
	} else {
		j.Arrays = mr.ArrayCount
	}
	for _, a := range mr.LiveAtPeak {
		aj := AllocationJSON{Instruction: a.Instruction.Name, Index: a.Index, Bytes: a.Cost.Bytes,
			UnpaddedBytes: a.Cost.Unpadded, Expansion: round3(a.Cost.Expansion), Kind: a.Kind, Called: a.Called,
			Start: a.Start, End: a.End}
		if !a.Extra {
			aj.Shape, aj.Rule, aj.Operator = a.Cost.Shape.String(), a.Cost.Rule.Name, operator(a.Instruction)
		}
		j.Peak.Live = append(j.Peak.Live, aj)
	}
	for _, s := range mr.Suggestions {
		j.Suggestions = append(j.Suggestions, SuggestionJSON{Instruction: s.Instruction, Index: s.Index, Problem: s.Problem,
			Change: s.Change, Shape: s.Shape.String(), Before: s.Before, After: s.After})
	}
	return j
}
