package cost

import (
	"fmt"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// CompiledFor is the backend a module was compiled for, as its text shows
// it, with the first thing that shows it.
type CompiledFor struct {
	// Backend is "gpu", "tpu" or "cpu"; "" when the text does not tell
	// (a module before XLA's optimizations).
	Backend string `json:"backend"`
	// Evidence names what tells, e.g. `tiled layout T(8,128) on %x.1`.
	Evidence string `json:"evidence"`
}

// Markers of each backend in a compiled module: backend_config keys and
// custom-call targets only that backend's compiler writes, each with what
// the report calls it.
var backendMarkers = []struct {
	backend, marker, what string
}{
	{"gpu", `"fusion_backend_config"`, "GPU fusion backend_config"},
	{"gpu", `"operation_queue_id"`, "GPU backend_config"},
	{"gpu", `__cublas$`, "cuBLAS custom call"},
	{"gpu", `__cudnn$`, "cuDNN custom call"},
	{"gpu", `__gpu$`, "GPU custom call"},
	{"tpu", `"scoped_memory_configs"`, "TPU backend_config"},
	{"tpu", `"flag_configs"`, "TPU backend_config"},
	{"tpu", `tpu_custom_call`, "TPU custom call"},
	{"tpu", `AllocateBuffer`, "TPU custom call AllocateBuffer"},
	{"tpu", `AssumeGatherIndicesInBound`, "TPU custom call AssumeGatherIndicesInBound"},
	{"tpu", `ConcatBitcast`, "TPU custom call ConcatBitcast"},
	{"cpu", `"__ynn_fusion"`, "CPU fusion kind __ynn_fusion"},
	{"cpu", `"outer_dimension_partitions"`, "CPU backend_config"},
	{"cpu", `__onednn$`, "oneDNN custom call"},
	{"cpu", `__xla_cpu_`, "CPU custom call"},
}

// ModuleCompiledFor finds the backend a module was compiled for from its
// instructions: the backend_config keys and custom-call targets of one
// backend's compiler (the first instruction, in module order, with one
// decides), else layout tiles (TPU's T(8,128); a module laid out for a TPU
// by the layout assignment has them too).
func ModuleCompiledFor(m *hlo.Module) CompiledFor {
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if f := markedBackend(in); f.Backend != "" {
				return f
			}
		}
	}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if s := firstArray(&in.Shape); s.Layout != nil && len(s.Layout.Tiles) > 0 {
				return CompiledFor{"tpu", fmt.Sprintf("tiled layout %s on %%%s", s.Layout.String(), in.Name)}
			}
		}
	}
	return CompiledFor{}
}

func markedBackend(in *hlo.Instruction) CompiledFor {
	for _, a := range in.Attrs {
		if a.Name != "backend_config" && a.Name != "custom_call_target" {
			continue
		}
		for _, mk := range backendMarkers {
			if strings.Contains(a.Value, mk.marker) {
				return CompiledFor{mk.backend, mk.what + " on %" + in.Name}
			}
		}
	}
	return CompiledFor{}
}

// foreignNote is the one line a cost report gives when the module was
// compiled for another backend than the device's, "" otherwise.
func foreignNote(f CompiledFor, d *Device) string {
	if f.Backend == "" || f.Backend == d.Kind {
		return ""
	}
	return fmt.Sprintf("this module was compiled for %s (%s); its kernels are %s's, estimated on %s %s as they stand, not as XLA's %s backend would make them",
		strings.ToUpper(f.Backend), f.Evidence, strings.ToUpper(f.Backend), strings.ToUpper(d.Kind), d.Name, strings.ToUpper(d.Kind))
}
