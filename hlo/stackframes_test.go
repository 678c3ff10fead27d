package hlo_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// The tables of a JAX dump (testdata/groundtruth's mlp on the TPU, as the
// pinned XLA prints them): frame 5 is programs.py line 210 in "_", called
// from compile_one (frame 3), main and the module.
const framesModule = `HloModule jit_mlp

FileNames
1 "testdata/groundtruth/gen/generate.py"
2 "testdata/groundtruth/gen/programs.py"

FunctionNames
1 "<module>"
2 "main"
3 "compile_one"
4 "_"

FileLocations
1 {file_name_id=1 function_name_id=1 line=296 end_line=296 column=4 end_column=10}
2 {file_name_id=1 function_name_id=2 line=259 end_line=259 column=8 end_column=35}
3 {file_name_id=1 function_name_id=3 line=186 end_line=186 column=15 end_column=83}
4 {file_name_id=2 function_name_id=4 line=210 end_line=210 column=11 end_column=30}
5 {file_name_id=2 function_name_id=4 line=210 end_line=210 column=23 end_column=29}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=2}
3 {file_location_id=3 parent_frame_id=3}
4 {file_location_id=4 parent_frame_id=4}
5 {file_location_id=5 parent_frame_id=4}

ENTRY main {
  x = f32[8] parameter(0), metadata={op_name="x"}
  d = f32[8] negate(x), metadata={op_name="jit(mlp)/dot_general" stack_frame_id=5}
  o = f32[8] exponential(d), metadata={op_name="old" source_file="/src/model.py" source_line=12}
  ROOT z = f32[8] add(o, o), metadata={op_name="bad" stack_frame_id=99}
}
`

func TestStackFrames(t *testing.T) {
	m, err := hlo.ParseString(framesModule)
	require.NoError(t, err)
	sf := hlo.NewStackFrames(m)
	c := m.Entry
	src, ok := sf.Source(named(c, "d"))
	require.True(t, ok)
	assert.Equal(t, "testdata/groundtruth/gen/programs.py:210:_", src.String())
	var stack []string
	for _, f := range sf.StackOf(named(c, "d")) {
		stack = append(stack, f.String())
	}
	assert.Equal(t, []string{"testdata/groundtruth/gen/programs.py:210:_", "testdata/groundtruth/gen/generate.py:186:compile_one",
		"testdata/groundtruth/gen/generate.py:259:main", "testdata/groundtruth/gen/generate.py:296:<module>"}, stack,
		"frame 5's parent is frame 3 (printed parent_frame_id=4), whose parents are 2 and 1")
	src, ok = sf.Source(named(c, "o"))
	require.True(t, ok)
	assert.Equal(t, "/src/model.py:12", src.String(), "source_file and source_line of older dumps")
	_, ok = sf.Source(named(c, "x"))
	assert.False(t, ok, "no origin")
	_, ok = sf.Source(named(c, "z"))
	assert.False(t, ok, "a frame the tables do not hold")
}

// In every module of testdata and the corpus with origin tables (the JAX
// dumps of the ground truth and testdata/xla-today), every stack_frame_id
// an instruction carries resolves to a file and a line.
func TestStackFramesTestdata(t *testing.T) {
	n := 0
	for _, f := range hlotest.ModuleFiles(t, "verify") {
		for _, cm := range hlotest.ParseModules(t, f) {
			n += checkFrames(t, f, cm.Module)
		}
	}
	assert.Greater(t, n, 1000, "instructions with a stack_frame_id")
}

// checkFrames checks that m's instructions' stack frame ids resolve, and
// returns how many there are.
func checkFrames(t *testing.T, f string, m *hlo.Module) int {
	n := 0
	if len(m.Tables) > 0 {
		sf := hlo.NewStackFrames(m)
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				md, _ := in.Attr("metadata")
				if !stackFrameID(md) {
					continue
				}
				n++
				st := sf.StackOf(in)
				if assert.NotEmpty(t, st, "%s: %s", f, in.Name) {
					assert.NotEmpty(t, st[0].File, "%s: %s", f, in.Name)
					assert.Positive(t, st[0].Line, "%s: %s", f, in.Name)
				}
			}
		}
	}
	return n
}

// named is c's instruction called name.
func named(c *hlo.Computation, name string) *hlo.Instruction {
	for _, in := range c.Instructions {
		if in.Name == name {
			return in
		}
	}
	return nil
}

func stackFrameID(md string) bool {
	_, after, ok := strings.Cut(md, "stack_frame_id=")
	return ok && after != "" && after[0] >= '1' && after[0] <= '9'
}

func ExampleStackFrames() {
	m, err := hlo.ParseString(framesModule)
	if err != nil {
		panic(err)
	}
	src, _ := hlo.NewStackFrames(m).Source(named(m.Entry, "d"))
	fmt.Println(src)
	// Output: testdata/groundtruth/gen/programs.py:210:_
}
