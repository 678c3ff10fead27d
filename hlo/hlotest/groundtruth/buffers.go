package groundtruth

import "github.com/hlo-opt/hlo-opt/hlo/xladump"

// The buffer assignment of a compile, as package xladump reads XLA's
// "-buffer-assignment.txt" dumps.
type (
	BufferAssignment = xladump.BufferAssignment
	Allocation       = xladump.Allocation
	Value            = xladump.Value
	AllocationStats  = xladump.AllocationStats
)

// What compiled.memory_analysis() and compiled.cost_analysis() give and
// how a module's layouts compare with XLA's, as package xladump reads them.
type (
	MemoryAnalysis = xladump.MemoryAnalysis
	CostAnalysis   = xladump.CostAnalysis
	LayoutTally    = xladump.LayoutTally
)

// NewLayoutTally returns an empty tally.
func NewLayoutTally() *LayoutTally { return xladump.NewLayoutTally() }
