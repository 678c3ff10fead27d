package layoutassign

import (
	"slices"

	"github.com/hlo-opt/hlo-opt/hlo"
)

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
	// Tables lists the index tables of a tuple and of the tuples nested in
	// it, the buffers XLA's buffer assignment gives a tuple-shaped value
	// (not in the totals above).
	Tables []TupleTableJSON `json:"tables,omitempty"`
}

// TupleTableJSON is the index table of the tuple at Index (empty: the
// instruction's own result) and its size on the target.
type TupleTableJSON struct {
	Index []int64 `json:"index"`
	Bytes int64   `json:"bytes"`
}

// tupleTables lists the index tables of s and of the tuples nested in it,
// in shape-index order.
func tupleTables(s *hlo.Shape, index []int64, t Target, out []TupleTableJSON) []TupleTableJSON {
	if !s.IsTuple() {
		return out
	}
	out = append(out, TupleTableJSON{Index: slices.Clone(index), Bytes: t.TupleTableBytes(len(s.Tuple))})
	for i := range s.Tuple {
		out = tupleTables(&s.Tuple[i], append(index, int64(i)), t, out)
	}
	return out
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
	costs := r.Memory.ArraysOf(in)
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
	out.Tables = tupleTables(&in.Shape, []int64{}, r.Memory.Target, nil)
	return out
}

// The module-level "layout" JSON (hlo-opt --passes=layout --format=json).
// Its fields are stable: tools compare them with XLA's own figures. The
// byte fields of the top level are those of HBM (S(0)) and read as XLA's
// compiled.memory_analysis() reads:
//
//	argument_bytes   argument_size_in_bytes (entry parameter allocations)
//	output_bytes     output_size_in_bytes (maybe-live-out allocations)
//	aliased_bytes    alias_size_in_bytes (parameters an output is aliased with)
//	temporary_bytes  temp_size_in_bytes (the preallocated temp allocation;
//	                 the TPU reports 0 there)
//	xla_peak_memory_bytes  peak_memory_in_bytes (all memory spaces: see
//	                 MemoryReport.XLAPeakBytes; xla_peak_parts its terms)
//	peak.bytes       the HBM peak (peak_memory_in_bytes on the GPU)
//
// and buffer_assignment as XLA's "BufferAssignment stats" (all memory
// spaces); memory_spaces repeats these per space.

// ModuleJSON is the module-level JSON of the layout pass.
type ModuleJSON struct {
	Target string `json:"target"`
	// Device is the device of --device; Layouts "kept" (stated layouts
	// kept, the default) or "assigned" (--relayout).
	Device           string   `json:"device,omitempty"`
	Layouts          string   `json:"layouts"`
	Arrays           int      `json:"arrays"`
	Fixed            int      `json:"fixed"`
	Copies           []Copy   `json:"copies"`
	FreeTransposes   []string `json:"free_transposes"`
	CostlyTransposes []string `json:"costly_transposes"`
	FreeReshapes     []string `json:"free_reshapes"`
	CostlyReshapes   []string `json:"costly_reshapes"`
	Bytes            int64    `json:"bytes"`
	UnpaddedBytes    int64    `json:"unpadded_bytes"`
	Expansion        float64  `json:"expansion"`
	UnsizedArrays    int      `json:"unsized_arrays,omitempty"`
	// Entry is "" when the module has none (Computations then).
	Entry            string            `json:"entry"`
	Order            string            `json:"order"`
	Steps            int               `json:"steps"`
	ArgumentBytes    int64             `json:"argument_bytes"`
	OutputBytes      int64             `json:"output_bytes"`
	AliasedBytes     int64             `json:"aliased_bytes"`
	TemporaryBytes   int64             `json:"temporary_bytes"`
	XLAPeakBytes     int64             `json:"xla_peak_memory_bytes"`
	XLAPeakParts     []XLAPeakPartJSON `json:"xla_peak_parts"`
	BufferAssignment BufferStats       `json:"buffer_assignment"`
	MemorySpaces     []SpaceJSON       `json:"memory_spaces"`
	Peak             PeakJSON          `json:"peak"`
	Capacity         *CapacityJSON     `json:"capacity,omitempty"`
	Computations     []ComputationJSON `json:"computations,omitempty"`
	Suggestions      []SuggestionJSON  `json:"suggestions"`
}

// SpaceJSON is one memory space (see SpaceReport).
type SpaceJSON struct {
	Space              int64       `json:"space"`
	Name               string      `json:"name"`
	ArgumentBytes      int64       `json:"argument_bytes"`
	OutputBytes        int64       `json:"output_bytes"`
	AliasedBytes       int64       `json:"aliased_bytes"`
	TemporaryBytes     int64       `json:"temporary_bytes"`
	TemporaryPeakBytes int64       `json:"temporary_peak_bytes"`
	PeakBytes          int64       `json:"peak_bytes"`
	WithoutReuseBytes  int64       `json:"without_reuse_bytes"`
	BufferAssignment   BufferStats `json:"buffer_assignment"`
}

// PeakJSON is the HBM peak of the entry computation.
type PeakJSON struct {
	Bytes         int64            `json:"bytes"`
	UnpaddedBytes int64            `json:"unpadded_bytes"`
	Step          int              `json:"step"`
	Instruction   string           `json:"instruction"`
	Live          []AllocationJSON `json:"live"`
}

// AllocationJSON is one allocation live at the peak.
type AllocationJSON struct {
	Instruction   string  `json:"instruction"`
	Index         []int64 `json:"index,omitempty"`
	Shape         string  `json:"shape"`
	Bytes         int64   `json:"bytes"`
	UnpaddedBytes int64   `json:"unpadded_bytes"`
	Expansion     float64 `json:"expansion"`
	Kind          string  `json:"kind"`
	Rule          string  `json:"rule"`
	Operator      string  `json:"operator,omitempty"`
	Start         int     `json:"start"`
	End           int     `json:"end"`
}

// CapacityJSON is the verdict against the device's memories: HBM, and
// on the TPU VMEM and SMEM when the program uses them. Fits and Percent
// are HBM's, which decides (see MemoryReport.Verdict).
type CapacityJSON struct {
	Device   string              `json:"device"`
	HBMBytes int64               `json:"hbm_bytes"`
	Fits     bool                `json:"fits"`
	Percent  float64             `json:"percent"`
	Verdict  string              `json:"verdict"`
	Spaces   []SpaceCapacityJSON `json:"spaces"`
}

// SpaceCapacityJSON is one memory space's peak against its capacity.
type SpaceCapacityJSON struct {
	Space         int64   `json:"space"`
	Name          string  `json:"name"`
	PeakBytes     int64   `json:"peak_bytes"`
	CapacityBytes int64   `json:"capacity_bytes"`
	Fits          bool    `json:"fits"`
	Percent       float64 `json:"percent"`
}

// XLAPeakPartJSON is one term of XLA's peak_memory_in_bytes (see
// MemoryReport.XLAPeakParts).
type XLAPeakPartJSON struct {
	Space       string `json:"space"`
	Temporaries bool   `json:"temporaries"`
	Bytes       int64  `json:"bytes"`
}

func round1(f float64) float64 { return float64(int64(10*f+0.5)) / 10 }

// ComputationJSON is one computation of a module without entry.
type ComputationJSON struct {
	Computation    string `json:"computation"`
	Steps          int    `json:"steps"`
	ArgumentBytes  int64  `json:"argument_bytes"`
	OutputBytes    int64  `json:"output_bytes"`
	TemporaryBytes int64  `json:"temporary_bytes"`
	PeakBytes      int64  `json:"peak_bytes"`
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
	j := ModuleJSON{Target: mr.Target.String(), Device: mr.Target.Device, Layouts: "kept", Bytes: mr.Bytes, UnpaddedBytes: mr.Unpadded,
		Expansion: round3(expansion(mr.Bytes, mr.Unpadded)), UnsizedArrays: mr.Unsized, Entry: mr.Entry, Order: mr.Order, Steps: mr.Steps,
		ArgumentBytes: mr.ArgumentBytes, OutputBytes: mr.OutputBytes, AliasedBytes: mr.AliasedBytes, TemporaryBytes: mr.TemporaryBytes,
		XLAPeakBytes: mr.XLAPeakBytes, XLAPeakParts: []XLAPeakPartJSON{},
		BufferAssignment: mr.Stats, MemorySpaces: []SpaceJSON{}, Copies: []Copy{},
		FreeTransposes: []string{}, CostlyTransposes: []string{}, FreeReshapes: []string{}, CostlyReshapes: []string{},
		Peak:        PeakJSON{Bytes: mr.PeakBytes, UnpaddedBytes: mr.PeakUnpadded, Step: mr.PeakStep, Instruction: mr.PeakAt, Live: []AllocationJSON{}},
		Suggestions: []SuggestionJSON{}}
	if r.Relayout {
		j.Layouts = "assigned"
	}
	if as := r.Assignment; as != nil {
		j.Arrays, j.Fixed = as.Arrays, as.Fixed
		j.Copies = orEmpty(as.Copies)
		j.FreeTransposes, j.CostlyTransposes = orEmpty(as.FreeTransposes), orEmpty(as.CostlyTransposes)
		j.FreeReshapes, j.CostlyReshapes = orEmpty(as.FreeReshapes), orEmpty(as.CostlyReshapes)
	} else {
		j.Arrays = mr.ArrayCount
	}
	for _, sp := range mr.Spaces {
		j.MemorySpaces = append(j.MemorySpaces, SpaceJSON{Space: sp.Space, Name: sp.Name, ArgumentBytes: sp.ArgumentBytes,
			OutputBytes: sp.OutputBytes, AliasedBytes: sp.AliasedBytes, TemporaryBytes: sp.TemporaryBytes,
			TemporaryPeakBytes: sp.TemporaryPeakBytes, PeakBytes: sp.PeakBytes, WithoutReuseBytes: sp.WithoutReuseBytes, BufferAssignment: sp.Stats})
	}
	for _, a := range mr.LiveAtPeak {
		j.Peak.Live = append(j.Peak.Live, AllocationJSON{Instruction: a.Instruction.Name, Index: a.Index, Shape: AbbreviateShape(a.Cost.Shape.String()),
			Bytes: a.Cost.Bytes, UnpaddedBytes: a.Cost.Unpadded, Expansion: round3(a.Cost.Expansion), Kind: a.Kind,
			Rule: a.Cost.Rule.Name, Operator: operator(a.Instruction), Start: a.Start, End: a.End})
	}
	if t := mr.Target; t.HBMBytes > 0 && mr.Entry != "" {
		j.Capacity = &CapacityJSON{Device: t.Device, HBMBytes: t.HBMBytes, Fits: mr.Fits(),
			Percent: round1(100 * float64(mr.PeakBytes) / float64(t.HBMBytes)), Verdict: mr.Verdict(), Spaces: []SpaceCapacityJSON{}}
		for _, v := range mr.SpaceVerdicts() {
			j.Capacity.Spaces = append(j.Capacity.Spaces, SpaceCapacityJSON{Space: v.Space, Name: v.Name, PeakBytes: v.Peak,
				CapacityBytes: v.Capacity, Fits: v.Fits(), Percent: round1(v.Percent())})
		}
	}
	for _, p := range mr.XLAPeakParts() {
		j.XLAPeakParts = append(j.XLAPeakParts, XLAPeakPartJSON(p))
	}
	for _, c := range mr.Computations {
		j.Computations = append(j.Computations, ComputationJSON(c))
	}
	for _, s := range mr.Suggestions {
		j.Suggestions = append(j.Suggestions, SuggestionJSON{Instruction: s.Instruction, Index: s.Index, Problem: s.Problem,
			Change: s.Change, Shape: s.Shape.String(), Before: s.Before, After: s.After})
	}
	return j
}
