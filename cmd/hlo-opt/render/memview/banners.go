package memview

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/layoutassign"
)

// banner is a warning above the figures: what the module is (not what
// runs, cut short) and what that means for each figure.
type banner struct {
	ID, Title string
	// Figures say, figure by figure, what the module's state means for it.
	Figures []string
}

// Stage says what an HLO module is against what XLA runs.
type Stage struct {
	// BeforeOptimizations: the module is not the one XLA runs (its
	// *.before_optimizations.txt dump, or an unscheduled module without a
	// single fusion); Why says how hlo-opt tells.
	BeforeOptimizations bool
	Why                 string
	// Unscheduled: the module has no is_scheduled=true; the memory report
	// orders it topologically.
	Unscheduled bool
	// ShardedDevices is the most devices a sharding annotation spreads an
	// array over (0 without annotations): before SPMD partitioning, the
	// arrays are global.
	ShardedDevices int
	// partitions names the devices that run the program after
	// partitioning (layoutassign.Partitions).
	partitions string
	// Truncated is the module's truncation, nil when whole.
	Truncated *hlo.Truncation
}

// StageOf tells the stage of module m read from file.
func StageOf(m *hlo.Module, file string) Stage {
	st := Stage{Unscheduled: !m.IsScheduled(), Truncated: m.Truncated, partitions: layoutassign.Partitions(m)}
	fusions, instructions := 0, 0
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			instructions++
			if in.Opcode == hlo.OpFusion {
				fusions++
			}
			if s, ok := in.Attr("sharding"); ok {
				st.ShardedDevices = max(st.ShardedDevices, shardingDevices(s))
			}
		}
	}
	switch {
	case strings.Contains(filepath.Base(file), "before_optimizations"):
		st.BeforeOptimizations, st.Why = true, "its file name says so (XLA's *.before_optimizations.txt dump)"
	case st.Unscheduled && fusions == 0 && instructions >= minUnfused:
		st.BeforeOptimizations, st.Why = true, fmt.Sprintf("it is not scheduled and none of its %d instructions is a fusion; XLA's optimized modules are scheduled and fused", instructions)
	}
	return st
}

// minUnfused is the size from which an unscheduled module without a
// fusion is taken for one before XLA's optimizations (a handful of
// instructions may well have nothing to fuse).
const minUnfused = 20

var (
	devicesRE  = regexp.MustCompile(`devices=\[([0-9,]+)\]`)
	meshRE     = regexp.MustCompile(`mesh\[([^\]]*)\]`)
	meshAxisRE = regexp.MustCompile(`=(\d+)`)
)

// shardingDevices is the number of devices a sharding attribute spans: the
// product of its tile assignment's dimensions ("devices=[4,1]<=[4]"), or of
// its mesh's axes (today's "mesh['x'=4], [{'x'}, {}]"); 0 for a replicated
// or maximal one.
func shardingDevices(s string) int {
	most := 0
	product := func(sizes []string) int {
		n := 1
		for _, d := range sizes {
			n *= max(atoi(d), 1)
		}
		return n
	}
	for _, m := range devicesRE.FindAllStringSubmatch(s, -1) {
		most = max(most, product(strings.Split(m[1], ",")))
	}
	for _, m := range meshRE.FindAllStringSubmatch(s, -1) {
		var sizes []string
		for _, a := range meshAxisRE.FindAllStringSubmatch(m[1], -1) {
			sizes = append(sizes, a[1])
		}
		most = max(most, product(sizes))
	}
	return most
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}

// PerDevice says whose figures they are: "" for a program of one device
// or a module before SPMD partitioning (its arrays are global), else
// "per device: each of num_partitions=4 SPMD partitions runs this
// program".
func (st Stage) PerDevice() string {
	if st.partitions == "" || st.BeforeOptimizations {
		return ""
	}
	return "per device: " + st.partitions + " runs this program"
}

// banners are the warnings of a module's stage; hasCost adds what they
// mean for the time estimate.
func (st Stage) banners(mr *layoutassign.MemoryReport, hasCost bool) []banner {
	var out []banner
	if st.BeforeOptimizations {
		b := banner{ID: "banner-before", Title: "Before XLA's optimizations: this is not the program that runs (" + st.Why + ")."}
		b.Figures = append(b.Figures,
			"Peak and every step: an upper bound. Each intermediate array is a buffer of its own here; XLA's fusion keeps most of them out of memory, and its scheduler orders the program to cut the peak.",
			"Layouts and padding: "+layoutsWord(mr)+"; XLA's layout assignment runs later and may choose others.")
		if hasCost {
			b.Figures = append(b.Figures, "Estimated time: every unfused operation is costed as a kernel of its own that reads and writes memory, far above what the fused program takes.")
		}
		if st.ShardedDevices > 1 {
			b.Figures = append(b.Figures, fmt.Sprintf("Arrays are global, before SPMD partitioning: sharding annotations spread them over up to %d devices, and a device holds about 1/%d of each array sharded that way. The figures are of the whole arrays, not of one device.", st.ShardedDevices, st.ShardedDevices))
		}
		b.Figures = append(b.Figures, "Dump the module after optimizations (XLA_FLAGS=--xla_dump_to=DIR, the *after_optimizations.txt file) for the figures of what runs.")
		out = append(out, b)
	} else if st.Unscheduled {
		out = append(out, banner{ID: "banner-unscheduled", Title: "Unscheduled: the module has no is_scheduled=true, so hlo-opt orders it topologically.",
			Figures: []string{"Peak and steps: those of hlo-opt's order. XLA's scheduler picks the order that cuts the peak, so the program XLA runs may peak lower, at another step."}})
	}
	if t := st.Truncated; t != nil {
		b := banner{ID: "banner-truncated", Title: "Truncated: the " + t.String() + "."}
		if t.Entry || mr.Entry == "" {
			b.Figures = append(b.Figures, "No entry computation: no program peak, no chart and no verdict; each computation no other one calls is measured as if it were the entry.")
		} else {
			b.Figures = append(b.Figures, "Peak, steps and time leave the dropped computation out: what it would add is unknown.")
		}
		out = append(out, b)
	}
	return out
}

// layoutsWord says where the layouts come from.
func layoutsWord(mr *layoutassign.MemoryReport) string {
	if mr.Target.Backend == layoutassign.BackendTPU {
		return "the TPU tilings hlo-opt assigned where the module states none"
	}
	return "the layouts hlo-opt assigned where the module states none"
}
