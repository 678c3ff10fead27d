package xladump

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Module is one after-optimizations module of a dump directory and the
// files XLA wrote beside it ("" when absent).
type Module struct {
	// Name is the file name without XLA's suffix:
	// "module_0042.jit_train_step.cl_1014260217" (TPU),
	// "module_0001.jit_f.sm_9.0a_gpu" (GPU), "module_0003.jit_f.cpu" (CPU).
	Name string
	// Path is the module's text, "<name>.after_optimizations.txt" (TPU)
	// or "<name>_after_optimizations.txt" (GPU, CPU).
	Path string
	// BufferAssignment, MemoryUsageReport and LiveRange are XLA's reports
	// on the module's buffer assignment.
	BufferAssignment, MemoryUsageReport, LiveRange string
	// Before is the module before optimizations, when XLA dumped it.
	Before string
}

// afterOptimizations ends the name of an optimized module's text.
const afterOptimizations = "after_optimizations.txt"

// Find lists the after-optimizations modules of dir (not its
// subdirectories), in file name order: the HLO text files whose names end
// in "after_optimizations.txt", with the files beside each. Other dumps
// (the module after buffer assignment, after codegen, the passes'
// modules) are not listed. An error names dir when it cannot be read.
func Find(dir string) ([]Module, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			names[e.Name()] = true
		}
	}
	var out []Module
	for _, e := range entries {
		f := e.Name()
		if e.IsDir() || !strings.HasSuffix(f, afterOptimizations) {
			continue
		}
		stem := strings.TrimSuffix(f, ".txt")
		m := Module{Name: strings.TrimRight(strings.TrimSuffix(f, afterOptimizations), "._"), Path: filepath.Join(dir, f)}
		beside := func(suffix string) string {
			if names[stem+suffix] {
				return filepath.Join(dir, stem+suffix)
			}
			return ""
		}
		m.BufferAssignment = beside("-buffer-assignment.txt")
		m.MemoryUsageReport = beside("-memory-usage-report.txt")
		m.LiveRange = beside("-live-range.txt")
		if b := m.Name + ".before_optimizations.txt"; names[b] {
			m.Before = filepath.Join(dir, b)
		} else if b := beforeName(m.Name); b != "" && names[b] {
			m.Before = filepath.Join(dir, b)
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Module) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// Platform is the platform XLA's file name gives: "cpu" for
// "cpu_after_optimizations", "gpu" for "sm_9.0a_gpu_after_optimizations";
// "" for a TPU's (its names carry no platform) or another.
func (m Module) Platform() string {
	switch {
	case strings.HasSuffix(m.Name, ".cpu"):
		return "cpu"
	case strings.HasSuffix(m.Name, "_gpu"):
		return "gpu"
	}
	return ""
}

// beforeName is the before-optimizations file of a GPU or CPU module,
// whose name carries the platform ("module_0001.jit_f.cpu" ->
// "module_0001.jit_f.before_optimizations.txt"), "" for another.
func beforeName(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return ""
	}
	return name[:i] + ".before_optimizations.txt"
}

// Space is one memory space of a memory-usage report: XLA's name for it
// ("default", "vmem", "smem", ...), its color (the S(n) of layouts) and
// the bytes of its allocations.
type Space struct {
	Name  string
	Color int64
	Bytes int64
}

// ParseMemoryUsageReport reads the "Memory Space: NAME (color=N)" and
// "Total bytes: B (...)" lines of XLA's memory-usage report, one Space per
// memory space in the report's order. The per-allocation tables are not
// read. An error names the line that breaks the form.
func ParseMemoryUsageReport(text string) ([]Space, error) {
	var out []Space
	for i, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "Memory Space: "):
			var s Space
			rest := strings.TrimPrefix(line, "Memory Space: ")
			open := strings.LastIndex(rest, " (color=")
			if open < 0 || !strings.HasSuffix(rest, ")") {
				return nil, fmt.Errorf("line %d: expected \"Memory Space: NAME (color=N)\", found %q", i+1, line)
			}
			s.Name = rest[:open]
			if _, err := fmt.Sscanf(rest[open:], " (color=%d)", &s.Color); err != nil {
				return nil, fmt.Errorf("line %d: expected a color number, found %q", i+1, line)
			}
			out = append(out, s)
		case strings.HasPrefix(line, "Total bytes: "):
			if len(out) == 0 {
				return nil, fmt.Errorf("line %d: expected \"Memory Space:\" before \"Total bytes:\", found %q", i+1, line)
			}
			if _, err := fmt.Sscanf(line, "Total bytes: %d", &out[len(out)-1].Bytes); err != nil {
				return nil, fmt.Errorf("line %d: expected a byte count, found %q", i+1, line)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("line 1: expected \"Memory Space:\", found none")
	}
	return out, nil
}
