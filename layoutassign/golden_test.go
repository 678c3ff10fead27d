package layoutassign

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// goldenDir is testdata/layout at the repository root.
const goldenDir = "../testdata/layout"

// caseOptions reads the options a test module asks for on its
// "// hlo-opt: FLAGS" line, the directive the hlo-opt golden test also
// reads: --target=NAME and --relayout (--keep-layouts is the default).
func caseOptions(src string) Options {
	opts := Options{Target: TPU()}
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "//") {
			break
		}
		flags, ok := strings.CutPrefix(line, "// hlo-opt:")
		if !ok {
			continue
		}
		for _, f := range strings.Fields(flags) {
			switch {
			case f == "--relayout":
				opts.Relayout = true
			case strings.HasPrefix(f, "--device="):
				// The layout target follows the device's kind, as in hlo-opt.
				opts.Target = GPU()
				if strings.HasPrefix(strings.TrimPrefix(f, "--device="), "tpu") {
					opts.Target = TPU()
				}
			case strings.HasPrefix(f, "--target="):
				if t, err := ParseTarget(strings.TrimPrefix(f, "--target=")); err == nil {
					opts.Target = t
				}
			}
		}
	}
	return opts
}

// summary lists what the assignment did, as comment lines after the module.
func summary(res *Assignment) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// target: %s, arrays: %d, fixed: %d\n", res.Target, res.Arrays, res.Fixed)
	for _, c := range res.Copies {
		user := c.User
		if user == "" {
			user = "ROOT of " + c.Computation
		} else {
			user = fmt.Sprintf("%s operand %d", user, c.Operand)
		}
		fmt.Fprintf(&b, "// copy %s: %s %s -> %s (for %s)\n", c.Name, c.Of, c.From, c.To, user)
	}
	list := func(label string, names []string) {
		if len(names) > 0 {
			fmt.Fprintf(&b, "// %s: %s\n", label, strings.Join(names, ", "))
		}
	}
	list("free transposes", res.FreeTransposes)
	list("costly transposes", res.CostlyTransposes)
	list("free reshapes", res.FreeReshapes)
	list("costly reshapes", res.CostlyReshapes)
	return b.String()
}

// TestGolden runs the pass on every testdata/layout/*.hlo module and
// compares the printed result and a summary (copies, free transposes and
// reshapes) with NAME.module.golden (NAME.golden is the hlo-opt CLI
// golden of the same input). It also checks that the output re-parses
// and that a second run changes nothing.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.hlo"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".hlo")
		t.Run(name, func(t *testing.T) {
			src := hlotest.ReadFile(t, f)
			m, err := hlo.ParseFile(f, src)
			require.NoError(t, err)
			opts := caseOptions(string(src))
			res, err := Assign(m, opts)
			require.NoError(t, err)
			out := m.String()
			hlotest.Golden(t, strings.TrimSuffix(f, ".hlo")+".module.golden", out+"\n"+summary(res))

			again := parse(t, out)
			res2, err := Assign(again, opts)
			require.NoError(t, err)
			assert.Equal(t, out, again.String(), "not idempotent")
			assert.False(t, res2.Changed)
		})
	}
}
