package layoutassign

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/passes"
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
	// Relayout reports that every layout was assigned anew (--relayout)
	// rather than the stated ones kept.
	Relayout bool
}

// copyCount is the number of copy instructions inserted.
func (a *Assignment) copyCount() int {
	seen := map[string]bool{}
	for _, c := range a.Copies {
		seen[c.Computation+"/"+c.Name] = true
	}
	return len(seen)
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
	if in.Opcode == hlo.OpParameter {
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

// MaxTupleElements is how many elements an abbreviated tuple shape shows
// before "... N more".
const MaxTupleElements = 2

// AbbreviateShape shortens a printed tuple shape of more than
// MaxTupleElements+1 elements to its first elements, without layouts, and
// a count: "(s32[], bf16[2,8192,8192], ... 47 more)". Other shapes are
// returned as they are.
func AbbreviateShape(s string) string {
	if !strings.HasPrefix(s, "(") || !strings.HasSuffix(s, ")") {
		return s
	}
	elems := splitTopLevel(s[1 : len(s)-1])
	if len(elems) <= MaxTupleElements+1 {
		return s
	}
	parts := make([]string, 0, MaxTupleElements+1)
	for _, e := range elems[:MaxTupleElements] {
		e = strings.TrimSpace(indexCommentRE.ReplaceAllString(e, ""))
		parts = append(parts, AbbreviateShape(stripLayout(e)))
	}
	parts = append(parts, fmt.Sprintf("... %d more", len(elems)-MaxTupleElements))
	return "(" + strings.Join(parts, ", ") + ")"
}

// copiedLeaves names, for a tuple copy whose abbreviated shapes read the
// same, the leaves whose layouts change: " (leaves {3} {7} change layout)",
// at most MaxTupleElements of them.
func copiedLeaves(c Copy) string {
	if AbbreviateShape(c.From) != AbbreviateShape(c.To) || c.From == c.To {
		return ""
	}
	from, err1 := hlo.ParseShape(c.From)
	to, err2 := hlo.ParseShape(c.To)
	if err1 != nil || err2 != nil {
		return ""
	}
	fl, tl := from.Leaves(), to.Leaves()
	if len(fl) != len(tl) {
		return ""
	}
	var diff []string
	n := 0
	for i := range fl {
		if fl[i].Shape.String() == tl[i].Shape.String() {
			continue
		}
		if n++; n <= MaxTupleElements {
			diff = append(diff, strings.TrimSpace(indexSuffix(fl[i].Index)))
		}
	}
	if n > MaxTupleElements {
		diff = append(diff, fmt.Sprintf("... %d more", n-MaxTupleElements))
	}
	if len(diff) == 0 {
		return ""
	}
	return " (leaves " + strings.Join(diff, " ") + " change layout)"
}

var indexCommentRE = regexp.MustCompile(`/\*index=\d+\*/`)

// stripLayout drops the layout of a printed array shape: "f32[8]{0}" is
// "f32[8]"; a tuple is left to AbbreviateShape.
func stripLayout(s string) string {
	if strings.HasPrefix(s, "(") {
		return s
	}
	if i := strings.LastIndexByte(s, ']'); i >= 0 && i+1 < len(s) && s[i+1] == '{' {
		return s[:i+1]
	}
	if strings.HasSuffix(s, "}") {
		if i := strings.IndexByte(s, '{'); i > 0 {
			return s[:i] // a scalar: "f32[]" has its ']' before '{' too
		}
	}
	return s
}

// WriteText writes the memory report in the form of XLA's out-of-memory
// report, computed offline: what the layout pass did, XLA's
// BufferAssignment stats, the memory spaces, the peak and the largest
// allocations live at it, suggestions, and the verdict against the
// device's HBM.
func (r *Result) WriteText(w io.Writer, m *hlo.Module) error {
	bw := bufio.NewWriter(w)
	mr := r.Memory
	device := ""
	if mr.Target.Device != "" {
		device = ", device " + mr.Target.Device
	}
	fmt.Fprintf(bw, "Memory report for module %s on %s%s (offline estimate; nothing ran)\n", mr.Module, mr.Target, device)
	if n := Partitions(m); n != "" {
		fmt.Fprintf(bw, "Per device: %s runs this program; every figure is one device's.\n", n)
	}
	r.writeLayouts(bw)
	fmt.Fprintf(bw, "All arrays (fused computations excluded): %s, unpadded %s (%.1fx expansion).\n",
		fb(mr.Bytes), fb(mr.Unpadded), expansion(mr.Bytes, mr.Unpadded))
	if mr.Unsized > 0 {
		fmt.Fprintf(bw, "Not counted: %d arrays with unbounded dynamic dimensions (?), sized only at run time.\n", mr.Unsized)
	}
	if mr.Entry == "" {
		writeComputations(bw, mr)
	} else {
		writeAssignment(bw, mr)
		writePeak(bw, mr)
	}
	writeSuggestions(bw, mr)
	fmt.Fprintf(bw, "\n%s\n", mr.Verdict())
	return bw.Flush()
}

// Partitions says which devices run a partitioned module's program:
// "each of num_partitions=4 SPMD partitions" (and of replica_count=N
// replicas); "" for one device.
func Partitions(m *hlo.Module) string {
	if m == nil {
		return ""
	}
	var parts []string
	for _, a := range []struct{ attr, what string }{{"num_partitions", "SPMD partitions"}, {"replica_count", "replicas"}} {
		if v, ok := m.Attr(a.attr); ok && v != "1" && v != "0" {
			parts = append(parts, fmt.Sprintf("each of %s=%s %s", a.attr, v, a.what))
		}
	}
	return strings.Join(parts, " and ")
}

// fb is passes.FormatBytes, XLA's byte notation.
func fb(n int64) string { return passes.FormatBytes(n) }

func (r *Result) writeLayouts(bw *bufio.Writer) {
	as := r.Assignment
	if as == nil {
		return
	}
	how := "kept as stated (--relayout assigns them anew)"
	if r.Relayout {
		how = "assigned anew (--relayout)"
	}
	fmt.Fprintf(bw, "Layouts: %s; %d arrays, %d fixed, %d copies inserted; transposes free %d, costly %d; reshapes free %d, costly %d.\n",
		how, as.Arrays, as.Fixed, as.copyCount(), len(as.FreeTransposes), len(as.CostlyTransposes), len(as.FreeReshapes), len(as.CostlyReshapes))
	for _, c := range as.Copies {
		user := "the root of " + c.Computation
		if c.User != "" {
			user = fmt.Sprintf("operand %d of %s", c.Operand, c.User)
		}
		fmt.Fprintf(bw, "    copy %s: %s %s -> %s%s for %s\n", c.Name, c.Of, AbbreviateShape(c.From), AbbreviateShape(c.To), copiedLeaves(c), user)
	}
}

// maxComputations bounds the computations the text lists when the module
// has no entry (the JSON lists them all).
const maxComputations = 10

// writeComputations reports a module without entry computation: the
// computations with the largest peaks.
func writeComputations(bw *bufio.Writer, mr *MemoryReport) {
	cs := mr.Computations
	which := fmt.Sprintf("Each of the %d computations no other one calls", len(cs))
	if len(cs) == 1 {
		which = "The one computation no other one calls"
	}
	fmt.Fprintf(bw, "\nNo entry computation (the text lost it): no entry peak. %s, as if it were the entry (%s order), largest peak first:\n", which, mr.Order)
	if len(cs) > maxComputations {
		cs = cs[:maxComputations]
	}
	w := len("computation")
	for _, c := range cs {
		w = max(w, len(c.Computation))
	}
	fmt.Fprintf(bw, "  %-*s %6s %11s %11s %12s %11s\n", w, "computation", "steps", "arguments", "output", "temporaries", "peak")
	for _, c := range cs {
		fmt.Fprintf(bw, "  %-*s %6d %11s %11s %12s %11s\n", w, c.Computation, c.Steps, fb(c.ArgumentBytes), fb(c.OutputBytes), fb(c.TemporaryBytes), fb(c.PeakBytes))
	}
	if n := len(mr.Computations) - len(cs); n > 0 {
		fmt.Fprintf(bw, "  ... %d more (the JSON report lists them all)\n", n)
	}
}

// writeAssignment writes XLA's BufferAssignment stats and the memory
// spaces.
func writeAssignment(bw *bufio.Writer, mr *MemoryReport) {
	s := mr.Stats
	fmt.Fprintf(bw, "\nBuffer assignment of %s (%d steps, %s order), as XLA's BufferAssignment stats:\n", mr.Entry, mr.Steps, mr.Order)
	fmt.Fprintf(bw, "             parameter allocation: %10s\n", fb(s.ParameterBytes))
	fmt.Fprintf(bw, "              constant allocation: %10s\n", fb(s.ConstantBytes))
	fmt.Fprintf(bw, "        maybe_live_out allocation: %10s\n", fb(s.MaybeLiveOutBytes))
	fmt.Fprintf(bw, "     preallocated temp allocation: %10s\n", fb(s.PreallocatedTempBytes))
	if s.PreallocatedTempBytes > 0 {
		fmt.Fprintf(bw, "  preallocated temp fragmentation: %10s (%.2f%%)\n", fb(s.PreallocatedTempFragmentationBytes),
			100*float64(s.PreallocatedTempFragmentationBytes)/float64(s.PreallocatedTempBytes))
	}
	fmt.Fprintf(bw, "                 total allocation: %10s (thread-local %s)\n", fb(s.TotalBytes), fb(s.ThreadLocalBytes))
	fmt.Fprintf(bw, "\n  %-10s %11s %11s %11s %12s %11s %11s\n", "space", "arguments", "output", "aliased", "temporaries", "peak", "no reuse")
	for _, sp := range mr.Spaces {
		fmt.Fprintf(bw, "  %-10s %11s %11s %11s %12s %11s %11s\n", sp.label(),
			fb(sp.ArgumentBytes), fb(sp.OutputBytes), fb(sp.AliasedBytes), fb(sp.TemporaryBytes), fb(sp.PeakBytes), fb(sp.WithoutReuseBytes))
	}
	fmt.Fprintf(bw, "\nOutput size %s; shares %s with arguments.\n", fb(mr.OutputBytes), fb(mr.AliasedBytes))
}

// label is "HBM S(0)", "VMEM S(1)", "S(3)".
func (sp SpaceReport) label() string {
	if strings.HasPrefix(sp.Name, "S(") {
		return sp.Name
	}
	return fmt.Sprintf("%s S(%d)", sp.Name, sp.Space)
}

// writePeak writes the HBM peak and the largest allocations live at it.
func writePeak(bw *bufio.Writer, mr *MemoryReport) {
	at := "the start"
	if mr.PeakAt != "" {
		at = mr.PeakAt
	}
	byKind := map[string]int64{}
	for _, a := range mr.LiveAtPeak {
		byKind[a.Kind] += a.Cost.Bytes
	}
	fmt.Fprintf(bw, "\nPeak HBM %s at step %d of %d (%s): parameters %s, constants %s, outputs %s, temporaries %s.\n",
		fb(mr.PeakBytes), mr.PeakStep, mr.Steps, at, fb(byKind[KindParameter]+byKind[KindParameter+", "+KindLiveOut]),
		fb(byKind[KindConstant]), fb(byKind[KindLiveOut]), fb(byKind[KindTemp]))
	fmt.Fprintf(bw, "    Unpadded (%s) Padded (%s), extra memory due to padding: %s (%.1fx expansion)\n",
		fb(mr.PeakUnpadded), fb(mr.PeakBytes), fb(mr.PeakBytes-mr.PeakUnpadded), expansion(mr.PeakBytes, mr.PeakUnpadded))
	fmt.Fprintf(bw, "%s\n", mr.xlaPeakLine())
	n := min(len(mr.LiveAtPeak), MaxAllocations)
	fmt.Fprintf(bw, "\n  Largest allocations live at the peak (%d of %d):\n", n, len(mr.LiveAtPeak))
	for i, a := range mr.LiveAtPeak[:n] {
		fmt.Fprintf(bw, "\n  %d. Size: %s\n", i+1, fb(a.Cost.Bytes))
		if op := operator(a.Instruction); op != "" {
			fmt.Fprintf(bw, "     Operator: %s\n", op)
		}
		fmt.Fprintf(bw, "     Shape: %s%s\n", AbbreviateShape(a.Cost.Shape.String()), indexSuffix(a.Index))
		fmt.Fprintf(bw, "     Unpadded size: %s\n", fb(a.Cost.Unpadded))
		if a.Cost.Bytes != a.Cost.Unpadded {
			fmt.Fprintf(bw, "     Extra memory due to padding: %s (%.1fx expansion)\n", fb(a.Cost.Bytes-a.Cost.Unpadded), a.Cost.Expansion)
		}
		fmt.Fprintf(bw, "     XLA label: %s\n", xlaLabel(a.Instruction))
		fmt.Fprintf(bw, "     Allocation type: %s\n", a.Kind)
		fmt.Fprintf(bw, "     Tiling rule: %s\n", a.Cost.Rule.Name)
		fmt.Fprintf(bw, "     ==========================\n")
	}
}

func writeSuggestions(bw *bufio.Writer, mr *MemoryReport) {
	if len(mr.Suggestions) == 0 {
		return
	}
	fmt.Fprintf(bw, "\n  Suggestions to cut padding:\n")
	for i, s := range mr.Suggestions {
		fmt.Fprintf(bw, "\n  %d. %s%s: %s\n", i+1, s.Instruction, indexSuffix(s.Index), s.Problem)
		fmt.Fprintf(bw, "     %s\n", s.Change)
		fmt.Fprintf(bw, "     %s -> %s (saves %s)\n", fb(s.Before), fb(s.After), fb(s.Before-s.After))
	}
}

// MaxContributors is how many of the largest allocations the verdict
// names when the program does not fit.
const MaxContributors = 3

// percent prints part/whole as a percentage: whole percents, or two
// decimals below 1%.
func percent(part, whole int64) string {
	p := 100 * float64(part) / float64(whole)
	if p < 1 {
		return fmt.Sprintf("%.2f%%", p)
	}
	return fmt.Sprintf("%.0f%%", p)
}

// Verdict says whether the HBM peak fits the device, "Fits: 12.30GiB of
// 16.00GiB HBM (77%) on tpu-v5e." or "Exceeds HBM capacity by 4.10GiB on
// tpu-v5e (20.10GiB of 16.00GiB); largest: ...", naming the largest
// allocations at the peak as XLA's out-of-memory message does. When the
// program uses the TPU's on-chip memories it adds their peaks against
// their capacities ("; VMEM 2.00MiB of 128.00MiB (2%)"). Only HBM decides:
// XLA places buffers in VMEM and SMEM itself (memory-space assignment,
// its kernels' scoped allocations) within their capacities, and a module
// that names S(1) was laid out so; hlo-opt's replay of those placements
// may hold more at once than XLA's (see VMEMNote).
func (mr *MemoryReport) Verdict() string {
	t := mr.Target
	switch {
	case mr.Entry == "":
		return "No verdict: the module has no entry computation."
	case t.HBMBytes <= 0:
		return "No verdict: no device given (hlo-opt --device=tpu-v4|tpu-v5e|tpu-v5p|tpu-v6e|h100|h200|a100)."
	}
	var s string
	if mr.Fits() {
		s = fmt.Sprintf("Fits: %s of %s HBM (%s) on %s", fb(mr.PeakBytes), fb(t.HBMBytes), percent(mr.PeakBytes, t.HBMBytes), t.Device)
	} else {
		var largest []string
		for _, a := range mr.LiveAtPeak[:min(MaxContributors, len(mr.LiveAtPeak))] {
			largest = append(largest, fmt.Sprintf("%s%s %s (%s)", a.Instruction.Name, indexSuffix(a.Index), fb(a.Cost.Bytes), a.Kind))
		}
		s = fmt.Sprintf("Exceeds HBM capacity by %s on %s (%s of %s); largest: %s", fb(mr.PeakBytes-t.HBMBytes), t.Device,
			fb(mr.PeakBytes), fb(t.HBMBytes), strings.Join(largest, ", "))
	}
	var onChip []string
	for _, v := range mr.SpaceVerdicts() {
		if v.Space == 0 {
			continue
		}
		c := fmt.Sprintf("%s %s of %s (%s)", v.Name, fb(v.Peak), fb(v.Capacity), percent(v.Peak, v.Capacity))
		if !v.Fits() {
			c += ", " + VMEMNote
		}
		onChip = append(onChip, c)
	}
	if len(onChip) > 0 {
		s += "; " + strings.Join(onChip, ", ")
	}
	return s + "."
}

// VMEMNote says why an on-chip memory above its capacity is no verdict.
const VMEMNote = "above it in hlo-opt's replay, which may hold VMEM buffers longer than XLA, whose memory-space assignment keeps them within it"

// spaceIndex is the index of memory space space in Spaces.
func (mr *MemoryReport) spaceIndex(space int64) int {
	for i, sp := range mr.Spaces {
		if sp.Space == space {
			return i
		}
	}
	return -1
}

// Fits reports whether the HBM peak fits the device's HBM (see Verdict);
// false without a device or an entry.
func (mr *MemoryReport) Fits() bool {
	return mr.Entry != "" && mr.Target.HBMBytes > 0 && mr.PeakBytes <= mr.Target.HBMBytes
}
