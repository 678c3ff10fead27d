package cost

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// The scans of backend configs for the compilers' keys and the fusion
// kinds find what strings.Contains finds, on every config of every module
// we hold and on made-up ones (a key behind no quote, a key cut short,
// kinds that hold each other).
func TestConfigScansMatchContains(t *testing.T) {
	configs := []string{
		`{"fusion_backend_config":{"kind":"__triton_nested_gemm_fusion"}}`,
		`{"x":"window_config","window_config"}`,
		`{"flag_configs`,
		`"`,
		`___triton_gemm__cudnn`,
		`{"kind":"__triton"}`,
	}
	for _, f := range hlotest.ModuleFiles(t, "verify") {
		for _, cm := range hlotest.ParseModules(t, f) {
			for _, c := range cm.Module.Computations {
				for _, in := range c.Instructions {
					for _, name := range []string{"backend_config", "frontend_attributes"} {
						if v, ok := in.Attr(name); ok {
							configs = append(configs, v)
						}
					}
				}
			}
		}
	}
	keys := append(append(append([]string(nil), tpuConfigKeys...), gpuConfigKeys...), cpuConfigKeys...)
	for _, cfg := range configs {
		for _, k := range keys {
			assert.Equal(t, strings.Contains(cfg, k), containsQuoted(cfg, k), "%q in %q", k, cfg)
		}
		want := ""
		for _, k := range fusionKinds {
			if strings.Contains(cfg, k) {
				want = k
				break
			}
		}
		assert.Equal(t, want, kindIn(cfg), cfg)
	}
}
