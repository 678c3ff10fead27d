package hlo_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// FuzzParse checks that no input makes the parser or printer panic, and
// that whatever parses prints to text that parses and prints the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n",
		"HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}\n\nENTRY %e (p: f32[2]) -> f32[2] {\n  %p = f32[2]{0} parameter(0)\n  ROOT %n = f32[2]{0} negate(f32[2]{0} %p), metadata={op_name=\"n\"}\n}\n",
		"add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  p = f32[4,8]{0,1:T(2,128)S(1)} parameter(0)\n  c = f32[] constant(0)\n  ROOT r = f32[4] reduce(p, c), dimensions={1}, to_apply=add\n}\n",
		"ENTRY e {\n  p = f32[8,8] parameter(0)\n  ROOT c = f32[8,8] convolution(p, p), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n}\n",
		"ENTRY e {\n  c = c64[2] constant({(1, 2), (3, 4)})\n  ROOT t = (c64[2], f32[]) tuple(c, f32[] constant(nan))\n}\n",
		"ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT a = f32[4] all-reduce(p), replica_groups=[2,2]<=[4], to_apply=e\n}\n",
		"HloModule m\n\nENTRY %e (p: ((f32[4], s32[]), f32[4])) -> f32[4] {\n  %p = ((f32[4]{0}, s32[]), f32[4]{0}) parameter(0)\n  %c = pred[4]{0} compare(%p#0#0, %p#1), direction=LT, order=TOTAL\n  ROOT %s = f32[4]{0} select(%c, %p#1, %p#0#0)\n}\n\n",
		"HloModule m\n\nFileNames\n1 \"a.py\"\n\nFunctionNames\n1 \"f\"\n\nFileLocations\n1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=4 end_column=9}\n\nStackFrames\n1 {file_location_id=1 parent_frame_id=1}\n\n\nENTRY %e (p: f32[4]) -> b(f32[4]) {\n  %p = f32[4]{0} parameter(0)\n  ROOT %b = b(f32[4]{0}) custom-call(%p), custom_call_target=\"Pin\", metadata={op_name=\"b\" stack_frame_id=1}\n}\n\n",
	} {
		f.Add([]byte(s))
	}
	if hlotest.FindCorpus(f) != "" {
		for _, path := range hlotest.CorpusFiles(f) {
			src, err := os.ReadFile(path)
			if err == nil && len(src) < 64<<10 {
				f.Add(src)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, ch := range hlo.SplitInputFile(src) {
			m, err := hlo.ParseChunk("fuzz.hlo", ch)
			if err != nil {
				if _, ok := err.(hlo.ErrorList); !ok {
					t.Fatalf("error is %T, not ErrorList", err)
				}
				continue
			}
			for _, opts := range []hlo.PrintOptions{{}, {Short: true}, {Classic: true}} {
				var b strings.Builder
				if err := m.Print(&b, opts); err != nil {
					t.Fatal(err)
				}
				m2, err := hlo.ParseString(b.String())
				if err != nil {
					t.Fatalf("printed text does not parse: %v\n%s", err, b.String())
				}
				var b2 strings.Builder
				_ = m2.Print(&b2, opts)
				if b.String() != b2.String() {
					t.Fatalf("print not stable:\n%s\n---\n%s", b.String(), b2.String())
				}
			}
			_, _ = m.EntryComputationLayout()
			_, _ = m.InputOutputAliases()
		}
		_, _ = hlo.ParseShape(string(src))
		_, _ = hlo.ParseLayout(string(src))
	})
}
