package layoutassign

import (
	"fmt"
	"strings"
)

// Capacity is the capacity of memory space space on the target's device:
// its HBM for S(0), on the TPU its VMEM for S(1) and SMEM for S(2); 0
// when the target does not say (host memory, other spaces, no device).
func (t Target) Capacity(space int64) int64 {
	switch {
	case space == 0:
		return t.HBMBytes
	case t.Backend != BackendTPU:
		return 0
	case space == 1:
		return t.VMEMBytes
	case space == 2:
		return t.SMEMBytes
	}
	return 0
}

// SpaceVerdict is one memory space's peak against its capacity.
type SpaceVerdict struct {
	Space    int64
	Name     string
	Peak     int64
	Capacity int64
}

// Fits reports whether the peak fits the capacity.
func (v SpaceVerdict) Fits() bool { return v.Peak <= v.Capacity }

// Percent is the peak as a percentage of the capacity.
func (v SpaceVerdict) Percent() float64 { return 100 * float64(v.Peak) / float64(v.Capacity) }

// SpaceVerdicts are the verdicts of every memory space with a peak whose
// capacity the target knows (HBM always when it knows the device's),
// by space.
func (mr *MemoryReport) SpaceVerdicts() []SpaceVerdict {
	var out []SpaceVerdict
	for _, sp := range mr.Spaces {
		c := mr.Target.Capacity(sp.Space)
		if c <= 0 || sp.Space != 0 && sp.PeakBytes == 0 {
			continue
		}
		out = append(out, SpaceVerdict{Space: sp.Space, Name: sp.Name, Peak: sp.PeakBytes, Capacity: c})
	}
	return out
}

// PeakPart is one term of XLA's peak_memory_in_bytes.
type PeakPart struct {
	// Space names the memory space; Temporaries tells the term is the
	// space's temporaries at their most, else its parameters, constants
	// and outputs (which XLA counts for the whole program).
	Space       string
	Temporaries bool
	Bytes       int64
}

// XLAPeakParts splits XLAPeakBytes into its terms as XLA adds them: the
// parameters, constants (HBM's with those of the computations called per
// element) and outputs of each memory space that holds any, then the
// temporaries of the one space whose temporaries peak highest in the trace
// XLA replays (XLA counts one space's; none on the CPU). Their Bytes add
// up to XLAPeakBytes.
func (mr *MemoryReport) XLAPeakParts() []PeakPart {
	var out []PeakPart
	var top *SpaceReport
	for i := range mr.Spaces {
		sp := &mr.Spaces[i]
		fixed := sp.PeakBytes - sp.TemporaryPeakBytes
		if sp.Space == 0 {
			fixed += mr.elementConstBytes
		}
		if fixed > 0 {
			out = append(out, PeakPart{Space: sp.Name, Bytes: fixed})
		}
		if top == nil || sp.xlaTempPeak > top.xlaTempPeak {
			top = sp
		}
	}
	if top != nil && top.xlaTempPeak > 0 && mr.Target.Backend != BackendCPU {
		out = append(out, PeakPart{Space: top.Name, Temporaries: true, Bytes: top.xlaTempPeak})
	}
	return out
}

// String is "HBM parameters, constants and outputs 8.01MiB" or "VMEM
// temporaries 15.03MiB".
func (p PeakPart) String() string {
	what := "parameters, constants and outputs"
	if p.Temporaries {
		what = "temporaries at their most"
	}
	return fmt.Sprintf("%s %s %s", p.Space, what, fb(p.Bytes))
}

// xlaPeakLine is the text report's line on XLA's peak_memory_in_bytes.
func (mr *MemoryReport) xlaPeakLine() string {
	var parts []string
	for _, p := range mr.XLAPeakParts() {
		parts = append(parts, p.String())
	}
	return fmt.Sprintf("XLA's peak_memory_in_bytes %s = %s (XLA adds the temporaries of one memory space, the one whose temporaries peak highest).",
		fb(mr.XLAPeakBytes), strings.Join(parts, " + "))
}
