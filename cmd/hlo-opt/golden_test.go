package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// TestGolden is the one table-driven golden test of every pass: for each
// testdata/<pass>/NAME.hlo it runs "hlo-opt --passes=<pass>" and compares
// the text report and the JSON output with the sections "text" and "json"
// of testdata/<pass>/NAME.golden (a txtar archive). testdata/examples
// holds modules whose golden is the canonical printed module ("module"
// section). An input may ask for extra flags on a leading comment line
// "// hlo-opt: --target=gpu --keep-layouts". (The modules a transforming
// pass prints are checked by that pass's package.) Regenerate with:
// go test ./... -update, and review the diff.
func TestGolden(t *testing.T) {
	root := hlotest.TestdataPath(t)
	dirs, err := os.ReadDir(root)
	require.NoError(t, err)
	reg, err := newRegistry()
	require.NoError(t, err)
	ran := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		pass := d.Name()
		isPass := false
		if _, err := reg.Lookup(pass); err == nil {
			isPass = true
		}
		inputs, err := filepath.Glob(filepath.Join(root, pass, "*.hlo"))
		require.NoError(t, err)
		for _, in := range inputs {
			name := strings.TrimSuffix(filepath.Base(in), ".hlo")
			t.Run(pass+"/"+name, func(t *testing.T) {
				got := &hlotest.Archive{}
				add := func(section string, args ...string) {
					out, errOut, code := hloOpt(t, "", args...)
					if code != 0 {
						out = errOut
					}
					out = strings.ReplaceAll(out, root+string(filepath.Separator), "testdata/")
					got.Files = append(got.Files, hlotest.File{Name: section, Data: out})
				}
				if isPass {
					flags := inputFlags(t, in)
					add("text", append(flags, "--passes="+pass, in)...)
					add("json", append(flags, "--passes="+pass, "--format=json", in)...)
				} else {
					add("module", in)
				}
				goldenPath := filepath.Join(root, pass, name+".golden")
				if *hlotest.Update {
					require.NoError(t, os.WriteFile(goldenPath, []byte(got.Format()), 0o644))
					return
				}
				data := hlotest.ReadFile(t, goldenPath, "missing golden file; run go test ./cmd/hlo-opt -update")
				assert.Equal(t, hlotest.ParseArchive(string(data)).Files, got.Files)
			})
			ran++
		}
	}
	assert.Positive(t, ran, "no golden inputs under testdata/")
}

// inputFlags returns the flags of an input's "// hlo-opt: FLAGS" line
// among its leading comment lines.
func inputFlags(t *testing.T, path string) []string {
	src := hlotest.ReadFile(t, path)
	var flags []string
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "//") {
			break
		}
		if f, ok := strings.CutPrefix(line, "// hlo-opt:"); ok {
			flags = append(flags, strings.Fields(f)...)
		}
	}
	return flags
}

// An analysis named before a pass that changes the module reports on the
// module as printed: indexing before the layout assignment that inserts a
// copy used to index the old instruction list and crash in its report.
func TestAnalysisBeforeLayoutDescribesTheFinalModule(t *testing.T) {
	in := filepath.Join(t.TempDir(), "copies.hlo")
	require.NoError(t, os.WriteFile(in, []byte(`HloModule copies

ENTRY main {
  x = f32[64,32]{0,1} parameter(0)
  y = f32[64,32]{1,0} parameter(1)
  ROOT a = f32[64,32]{1,0} add(x, y)
}
`), 0o644))
	for _, passes := range []string{"indexing,layout", "indexing,coalescing", "stats,indexing,utilization"} {
		out, errOut, code := hloOpt(t, "", "--passes="+passes, "--emit=both", in)
		require.Equal(t, 0, code, "--passes=%s: %s", passes, errOut)
		assert.Contains(t, out, "%copy.layout.1 = f32[64,32]", "--passes=%s: the copy the layout assignment inserted", passes)
		if strings.Contains(passes, "indexing") {
			assert.Contains(t, out, "a = f32[64,32]{1,0", "--passes=%s", passes)
			assert.Contains(t, out, "add(copy.layout.1, y)\n    output 0 -> operand id = 0 (copy.layout.1):", "--passes=%s: indexing maps of the final module", passes)
		}
	}
}
