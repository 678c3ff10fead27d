package xladump

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// BufferAssignment is XLA's buffer assignment of a module as its dump
// "<module>.after_optimizations-buffer-assignment.txt" prints it: the
// allocations, each with the values (an instruction's result, or one leaf
// of it) that live in it.
type BufferAssignment struct {
	Allocations []Allocation
}

// Allocation is one "allocation N: size S, ...:" block.
type Allocation struct {
	Index int
	Size  int64
	// Color is the memory space (0 the default: HBM, device memory; on
	// TPU 1 is VMEM, 2 SMEM).
	Color int
	// Parameter is the entry parameter number, -1 when the allocation holds
	// none; ParameterIndex its shape index ("{}" for the whole).
	Parameter      int
	ParameterIndex string
	// Output: the entry computation's result lives here.
	Output, MaybeLiveOut                   bool
	Constant, ThreadLocal, PreallocatedTmp bool
	Values                                 []Value
}

// Kind names what the allocation holds: "parameter", "output",
// "parameter+output" (aliased), "constant", "thread-local" or "temp".
func (a Allocation) Kind() string {
	switch {
	case a.Parameter >= 0 && (a.Output || a.MaybeLiveOut):
		return "parameter+output"
	case a.Parameter >= 0:
		return "parameter"
	case a.Output || a.MaybeLiveOut:
		return "output"
	case a.Constant:
		return "constant"
	case a.ThreadLocal:
		return "thread-local"
	}
	return "temp"
}

// Value is one " value: <id name{index} @color> (size=S,offset=O): shape"
// line: the buffer of an instruction's result at a shape index.
type Value struct {
	ID          int
	Instruction string
	// Index is the shape index, nil for the whole result.
	Index        []int64
	Color        int
	Size, Offset int64
	// Shape is the value's shape as XLA printed it, with its layout.
	Shape string
}

// bufferRegexps are compiled on first use: most runs read no dump.
var bufferRegexps = sync.OnceValue(func() (r struct{ allocLine, valueLine, paramAttr, colorAttr *regexp.Regexp }) {
	r.allocLine = regexp.MustCompile(`^allocation (\d+): size (\d+), (.*):$`)
	r.valueLine = regexp.MustCompile(`^ value: <(\d+) ([^ {]+)(\{[0-9,]*\})?(?: \(phi\))? @(\d+)> \(size=(\d+),offset=(\d+)\): (.*)$`)
	r.paramAttr = regexp.MustCompile(`(?:^|, )parameter (\d+), shape \|[^|]*\| at ShapeIndex (\{[0-9,]*\})`)
	r.colorAttr = regexp.MustCompile(`(?:^|, )color (\d+)(?:,|$)`)
	return r
})

// ParseBufferAssignment reads the allocations of a buffer-assignment dump.
// Lines after the allocations (the per-value details of some versions)
// are ignored.
func ParseBufferAssignment(text string) (*BufferAssignment, error) {
	ba := &BufferAssignment{}
	re := bufferRegexps()
	for i, line := range strings.Split(text, "\n") {
		if m := re.allocLine.FindStringSubmatch(line); m != nil {
			a := Allocation{Parameter: -1}
			a.Index, _ = strconv.Atoi(m[1])
			a.Size, _ = strconv.ParseInt(m[2], 10, 64)
			attrs := m[3]
			if p := re.paramAttr.FindStringSubmatch(attrs); p != nil {
				a.Parameter, _ = strconv.Atoi(p[1])
				a.ParameterIndex = p[2]
			}
			if c := re.colorAttr.FindStringSubmatch(attrs); c != nil {
				a.Color, _ = strconv.Atoi(c[1])
			}
			a.Output = strings.Contains(attrs, "output shape is |")
			a.MaybeLiveOut = strings.Contains(attrs, "maybe-live-out")
			a.Constant = strings.HasSuffix(attrs, "constant") || strings.Contains(attrs, "constant,")
			a.ThreadLocal = strings.Contains(attrs, "thread-local")
			a.PreallocatedTmp = strings.Contains(attrs, "preallocated-temp")
			ba.Allocations = append(ba.Allocations, a)
			continue
		}
		if !strings.HasPrefix(line, " value: ") {
			if len(ba.Allocations) > 0 && !strings.HasPrefix(line, "allocation ") {
				break // the allocations are over
			}
			continue
		}
		m := re.valueLine.FindStringSubmatch(line)
		if m == nil || len(ba.Allocations) == 0 {
			return nil, fmt.Errorf("line %d: expected a value of an allocation, found %q", i+1, line)
		}
		v := Value{Instruction: m[2], Shape: m[7]}
		v.ID, _ = strconv.Atoi(m[1])
		if m[3] != "" {
			idx, err := parseIndex(m[3])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			v.Index = idx
		}
		v.Color, _ = strconv.Atoi(m[4])
		v.Size, _ = strconv.ParseInt(m[5], 10, 64)
		v.Offset, _ = strconv.ParseInt(m[6], 10, 64)
		a := &ba.Allocations[len(ba.Allocations)-1]
		a.Values = append(a.Values, v)
	}
	if len(ba.Allocations) == 0 {
		return nil, fmt.Errorf("no allocations")
	}
	return ba, nil
}

// parseIndex reads a shape index "{}" or "{0,1}".
func parseIndex(s string) ([]int64, error) {
	body := strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	idx := []int64{}
	if body == "" {
		return idx, nil
	}
	for _, f := range strings.Split(body, ",") {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("shape index %s: %w", s, err)
		}
		idx = append(idx, n)
	}
	return idx, nil
}

// Values lists every value of every allocation.
func (ba *BufferAssignment) Values() []Value {
	var vs []Value
	for _, a := range ba.Allocations {
		vs = append(vs, a.Values...)
	}
	return vs
}

// AllocationStats sums the allocations of a buffer assignment by class,
// as XLA's BufferAssignment::ComputeSummaryStats does (an allocation
// counts in each class it is in).
type AllocationStats struct {
	Parameter, Constant, MaybeLiveOut, PreallocatedTemp, ThreadLocal, Total int64
}

// Stats sums the allocations by class.
func (ba *BufferAssignment) Stats() AllocationStats {
	var st AllocationStats
	for _, a := range ba.Allocations {
		st.add(a)
	}
	return st
}

// StatsByColor sums the allocations of each memory space (color) by
// class.
func (ba *BufferAssignment) StatsByColor() map[int]AllocationStats {
	out := map[int]AllocationStats{}
	for _, a := range ba.Allocations {
		st := out[a.Color]
		st.add(a)
		out[a.Color] = st
	}
	return out
}

// add counts a in each class it is in.
func (st *AllocationStats) add(a Allocation) {
	if a.Parameter >= 0 {
		st.Parameter += a.Size
	}
	if a.Constant {
		st.Constant += a.Size
	}
	if a.MaybeLiveOut {
		st.MaybeLiveOut += a.Size
	}
	if a.PreallocatedTmp {
		st.PreallocatedTemp += a.Size
	}
	if a.ThreadLocal {
		st.ThreadLocal += a.Size
	}
	st.Total += a.Size
}
