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

// SpaceCheck is one memory space's figures, XLA's and hlo-opt's.
type SpaceCheck struct {
	Space int64   `json:"space"`
	Name  string  `json:"name"`
	XLA   Figures `json:"xla"`
	Ours  Figures `json:"hlo_opt"`
}

// Figures are the bytes of a memory space's allocations by class, as
// XLA's BufferAssignment stats count them: a parameter that is also an
// output counts in both, and Total counts each allocation once (the
// thread-local ones too).
type Figures struct {
	Parameter int64 `json:"parameter_bytes"`
	Constant  int64 `json:"constant_bytes"`
	Output    int64 `json:"maybe_live_out_bytes"`
	Temp      int64 `json:"preallocated_temp_bytes"`
	Total     int64 `json:"total_bytes"`
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
		s.TimeUS, s.TimeDevice = &t, in.Estimate.Device
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
	xla := map[int64]*Figures{}
	at := func(color int64) *Figures {
		if xla[color] == nil {
			xla[color] = &Figures{}
		}
		return xla[color]
	}
	if ba != nil {
		for _, a := range ba.Allocations {
			f := at(int64(a.Color))
			if a.Parameter >= 0 {
				f.Parameter += a.Size
			}
			if a.Constant {
				f.Constant += a.Size
			}
			if a.Output || a.MaybeLiveOut {
				f.Output += a.Size
			}
			if a.PreallocatedTmp {
				f.Temp += a.Size
			}
			f.Total += a.Size
		}
	}
	for _, u := range usage {
		at(u.Color).Total = u.Bytes
	}
	c := &Check{Spaces: []SpaceCheck{}, Differences: []string{}}
	ours := map[int64]layoutassign.SpaceReport{}
	for _, sp := range mr.Spaces {
		ours[sp.Space] = sp
		if xla[sp.Space] == nil {
			at(sp.Space)
		}
	}
	for _, space := range sortedSpaces(xla) {
		sp := ours[space]
		name := sp.Name
		if name == "" {
			name = layoutassign.SpaceName(space)
		}
		o := Figures{Parameter: sp.Stats.ParameterBytes, Constant: sp.Stats.ConstantBytes, Output: sp.Stats.MaybeLiveOutBytes,
			Temp: sp.Stats.PreallocatedTempBytes, Total: sp.Stats.TotalBytes}
		x := *xla[space]
		c.Spaces = append(c.Spaces, SpaceCheck{Space: space, Name: name, XLA: x, Ours: o})
		for _, f := range []struct {
			what      string
			xla, ours int64
			known     bool
		}{
			{"parameter allocation", x.Parameter, o.Parameter, ba != nil},
			{"constant allocation", x.Constant, o.Constant, ba != nil},
			{"maybe_live_out allocation", x.Output, o.Output, ba != nil},
			{"preallocated temp allocation", x.Temp, o.Temp, ba != nil},
			{"total allocation", x.Total, o.Total, true},
		} {
			if f.known && f.xla != f.ours {
				c.Differences = append(c.Differences, fmt.Sprintf("%s %s: XLA %s, hlo-opt %s (%s)", name, f.what,
					passes.FormatBytes(f.xla), passes.FormatBytes(f.ours), ratio(f.ours, f.xla)))
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

func sortedSpaces(m map[int64]*Figures) []int64 { return slices.Sorted(maps.Keys(m)) }
