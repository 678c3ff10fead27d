package dumpdir

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hlo-opt/hlo-opt/cost"
	"github.com/hlo-opt/hlo-opt/hlo/xladump"
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

// Summary is one module of a dump directory as the summary lists it.
type Summary struct {
	// Module is the dump's name for the module, File its text.
	Module string `json:"module"`
	File   string `json:"file"`
	// Page is the module's page (--format=html), relative to the index.
	Page string `json:"page,omitempty"`
	// Error says why the module could not be analysed; the other fields
	// are then empty.
	Error string `json:"error,omitempty"`
	// PeakBytes is XLA's peak_memory_in_bytes as hlo-opt computes it,
	// HBMPeakBytes the HBM peak.
	PeakBytes    int64 `json:"xla_peak_memory_bytes"`
	HBMPeakBytes int64 `json:"hbm_peak_bytes"`
	// Verdict is the memory report's; Fits is nil without a device.
	Verdict string  `json:"verdict,omitempty"`
	Fits    *bool   `json:"fits,omitempty"`
	Percent float64 `json:"hbm_percent,omitempty"`
	// TimeUS is the cost pass's estimate on TimeDevice, nil when it did
	// not run.
	TimeUS     *float64 `json:"time_us,omitempty"`
	TimeDevice string   `json:"time_device,omitempty"`
	// TimeNote is the cost pass's note when the module was compiled for
	// another backend than TimeDevice (a TPU dump timed on the default
	// GPU): the time is then not the module's own.
	TimeNote string `json:"time_note,omitempty"`
	// TopPadding names the buffer whose layout pads most, and by how much.
	TopPadding      string `json:"top_padding,omitempty"`
	TopPaddingBytes int64  `json:"top_padding_bytes,omitempty"`
	// XLA sets hlo-opt's buffer assignment beside XLA's own, when XLA's
	// files are beside the module.
	XLA *Check `json:"xla,omitempty"`
}

// Check sets hlo-opt's buffer assignment of a module beside the one XLA
// dumped, memory space by memory space, in the classes of XLA's
// BufferAssignment stats.
type Check struct {
	Spaces []SpaceCheck `json:"spaces"`
	// Differences say in words where the two differ, one figure each;
	// none when they agree.
	Differences []string `json:"differences"`
}

// SpaceCheck is one memory space's BufferAssignment stats, XLA's and
// hlo-opt's: a parameter that is also an output counts in both classes,
// and total counts each allocation once (the thread-local ones too).
type SpaceCheck struct {
	Space int64                    `json:"space"`
	Name  string                   `json:"name"`
	XLA   layoutassign.BufferStats `json:"xla"`
	Ours  layoutassign.BufferStats `json:"hlo_opt"`
}

// Input is what a summary is made of: the layout pass's memory report
// (nil when the module failed, with Err), the cost pass's estimate (nil
// when it did not run) and XLA's files (nil when absent).
type Input struct {
	Module, File string
	Err          error
	Memory       *layoutassign.MemoryReport
	Estimate     *cost.ModuleEstimate
	Buffers      *xladump.BufferAssignment
	Usage        []xladump.Space
}

// Summarize makes the summary of one module.
func Summarize(in Input) Summary {
	s := Summary{Module: in.Module, File: in.File}
	if in.Err != nil {
		s.Error = in.Err.Error()
		return s
	}
	mr := in.Memory
	s.PeakBytes, s.HBMPeakBytes = mr.XLAPeakBytes, mr.PeakBytes
	s.Verdict = mr.Verdict()
	if mr.Entry != "" && mr.Target.HBMBytes > 0 {
		fits := mr.Fits()
		s.Fits = &fits
		s.Percent = float64(int64(1000*float64(mr.PeakBytes)/float64(mr.Target.HBMBytes)+0.5)) / 10
	}
	if in.Estimate != nil {
		t := in.Estimate.TimeUS
		s.TimeUS, s.TimeDevice, s.TimeNote = &t, in.Estimate.Device, in.Estimate.Note
	}
	for _, sp := range mr.Spaces {
		for _, b := range sp.Buffers {
			if pad := b.Cost.Bytes - b.Cost.Unpadded; pad > s.TopPaddingBytes {
				s.TopPadding, s.TopPaddingBytes = layoutassign.ValueRef{Instruction: b.Instruction, Index: b.Index}.String(), pad
			}
		}
	}
	if in.Buffers != nil || in.Usage != nil {
		s.XLA = check(mr, in.Buffers, in.Usage)
	}
	return s
}

// check sets the report's BufferAssignment stats beside XLA's buffer
// assignment (its allocations by class) and memory-usage report (each
// space's total), each memory space either has.
func check(mr *layoutassign.MemoryReport, ba *xladump.BufferAssignment, usage []xladump.Space) *Check {
	xla := map[int64]*layoutassign.BufferStats{}
	at := func(color int64) *layoutassign.BufferStats {
		if xla[color] == nil {
			xla[color] = &layoutassign.BufferStats{}
		}
		return xla[color]
	}
	if ba != nil {
		for color, st := range ba.StatsByColor() {
			*at(int64(color)) = layoutassign.BufferStats{ParameterBytes: st.Parameter, ConstantBytes: st.Constant,
				MaybeLiveOutBytes: st.MaybeLiveOut, PreallocatedTempBytes: st.PreallocatedTemp, ThreadLocalBytes: st.ThreadLocal, TotalBytes: st.Total}
		}
	}
	for _, u := range usage {
		at(u.Color).TotalBytes = u.Bytes
	}
	c := &Check{Spaces: []SpaceCheck{}, Differences: []string{}}
	ours := map[int64]layoutassign.SpaceReport{}
	for _, sp := range mr.Spaces {
		ours[sp.Space] = sp
		at(sp.Space)
	}
	for _, space := range slices.Sorted(maps.Keys(xla)) {
		sp := ours[space]
		name := layoutassign.SpaceName(space)
		x := *xla[space]
		c.Spaces = append(c.Spaces, SpaceCheck{Space: space, Name: name, XLA: x, Ours: sp.Stats})
		cx, co := x.Classes(), sp.Stats.Classes()
		for i := range cx {
			// Without XLA's buffer assignment only the memory-usage
			// report's totals are known.
			if (ba != nil || cx[i].Name == "total") && cx[i].Bytes != co[i].Bytes {
				c.Differences = append(c.Differences, fmt.Sprintf("%s %s allocation: XLA %s, hlo-opt %s (%s)", name, cx[i].Name,
					passes.FormatBytes(cx[i].Bytes), passes.FormatBytes(co[i].Bytes), ratio(co[i].Bytes, cx[i].Bytes)))
			}
		}
	}
	return c
}

// ratio is ours/xla as "1.57x", or "XLA has none".
func ratio(ours, xla int64) string {
	if xla == 0 {
		return "XLA has none"
	}
	return fmt.Sprintf("%.2fx", float64(ours)/float64(xla))
}
