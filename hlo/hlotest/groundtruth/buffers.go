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
