package xladump

import (
	"encoding/json"
	"fmt"
	"os"
)

// The file names of one compile's directory, as the ground-truth and
// differential-tester generators (testdata/groundtruth/gen,
// testdata/xladiff/gen) write them: XLA's modules before and after
// optimization, its buffer assignment, and what compiled.memory_analysis()
// and compiled.cost_analysis() returned.
const (
	BeforeOptimizations = "before_optimizations.txt"
	AfterOptimizations  = "after_optimizations.txt"
	BufferAssignmentTxt = "buffer-assignment.txt"
	MemoryAnalysisJSON  = "memory_analysis.json"
	CostAnalysisJSON    = "cost_analysis.json"
	CompileJSON         = "compile.json"
)

// MemoryAnalysis is compiled.memory_analysis(): the bytes of one device.
type MemoryAnalysis struct {
	Arguments     int64 `json:"argument_size_in_bytes"`
	Outputs       int64 `json:"output_size_in_bytes"`
	Aliased       int64 `json:"alias_size_in_bytes"`
	Temporaries   int64 `json:"temp_size_in_bytes"`
	GeneratedCode int64 `json:"generated_code_size_in_bytes"`
	// Peak is peak_memory_in_bytes; 0 where the jax version reports none.
	Peak int64 `json:"peak_memory_in_bytes"`
}

// CostAnalysis is compiled.cost_analysis() of the whole module.
type CostAnalysis struct {
	Flops           float64 `json:"flops"`
	Transcendentals float64 `json:"transcendentals"`
	BytesAccessed   float64 `json:"bytes accessed"`
	// OptimalSeconds is the TPU's roofline time of the module (its
	// compiler's own estimate); negative where it could not cost an op.
	OptimalSeconds float64 `json:"optimal_seconds"`
}

// ReadJSON decodes one of a compile's JSON files (MemoryAnalysisJSON,
// CostAnalysisJSON) outside a test; nil, and no error, when there is no
// such file or it holds null (XLA gave none).
func ReadJSON[T any](path string) (*T, error) {
	src, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var v *T
	if err := json.Unmarshal(src, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
