package cost

import (
	"fmt"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// CompiledFor is the backend a module was compiled for, as its text shows
// it (CompiledBackend), with what shows it.
type CompiledFor struct {
	// Backend is "gpu", "tpu" or "cpu"; "" when the text does not tell
	// (a module before XLA's optimizations).
	Backend string `json:"backend"`
	// Evidence says what tells, e.g. "fusion has a GPU backend_config
	// (fusion_backend_config)".
	Evidence string `json:"evidence"`
}

// compiledFor is CompiledBackend as a CompiledFor.
func compiledFor(m *hlo.Module) CompiledFor {
	b, why := CompiledBackend(m)
	return CompiledFor{Backend: string(b), Evidence: why}
}

// foreignNote is the line a cost report gives when the module was
// compiled for another backend than the device's, "" otherwise.
func foreignNote(f CompiledFor, d *Device) string {
	if f.Backend == "" || f.Backend == d.Kind {
		return ""
	}
	return fmt.Sprintf("this module was compiled for %s (%s); its kernels are %s's, estimated on %s %s as they stand, not as XLA's %s backend would make them",
		strings.ToUpper(f.Backend), f.Evidence, strings.ToUpper(f.Backend), strings.ToUpper(d.Kind), d.Name, strings.ToUpper(d.Kind))
}
