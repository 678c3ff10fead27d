package hlo_test

import (
	"fmt"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

func ExampleParseFile() {
	src := []byte(`HloModule example

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[8,128]{1,0:T(8,128)} parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[8] reduce(p, zero), dimensions={1}, to_apply=add
}
`)
	m, err := hlo.ParseFile("example.hlo", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := m.Entry.Root
	fmt.Println(r.Opcode, r.Typed.Dimensions, r.Called[0].Name)
	fmt.Print(m.String())
	// Output:
	// reduce [1] add
	// HloModule example
	//
	// %add (x: f32[], y: f32[]) -> f32[] {
	//   %x = f32[] parameter(0)
	//   %y = f32[] parameter(1)
	//   ROOT %s = f32[] add(f32[] %x, f32[] %y)
	// }
	//
	// ENTRY %main (p: f32[8,128]) -> f32[8] {
	//   %p = f32[8,128]{1,0:T(8,128)} parameter(0)
	//   %zero = f32[] constant(0)
	//   ROOT %r = f32[8]{0} reduce(f32[8,128]{1,0:T(8,128)} %p, f32[] %zero), dimensions={1}, to_apply=%add
	// }
}

func ExampleParseFile_error() {
	_, err := hlo.ParseFile("bad.hlo", []byte("ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(q)\n}\n"))
	fmt.Println(err)
	// Output:
	// bad.hlo:3:26: expected defined instruction, found "q" (instruction does not exist: q)
}

// Today's XLA writes element k of a tuple as the operand "%t#k". The parser
// makes a get-tuple-element for it, marked Implicit, which the printer
// writes back as "%t#k", or as an instruction with PrintOptions.Classic.
func ExampleInstruction_implicit() {
	m, err := hlo.ParseString(`HloModule m

ENTRY %main (p: (f32[4], s32[])) -> f32[4] {
  %p = (f32[4]{0}, s32[]) parameter(0)
  ROOT %n = f32[4]{0} negate(%p#0)
}

`)
	if err != nil {
		fmt.Println(err)
		return
	}
	gte := m.Entry.Root.Operands[0]
	fmt.Println(gte.Name, gte.Opcode, gte.Typed.TupleIndex, gte.Implicit, gte.RefName())
	fmt.Print(m.String())
	var b strings.Builder
	_ = m.Print(&b, hlo.PrintOptions{Classic: true})
	fmt.Print(b.String())
	// Output:
	// p_0 get-tuple-element 0 true p#0
	// HloModule m
	//
	// ENTRY %main (p: (f32[4], s32[])) -> f32[4] {
	//   %p = (f32[4]{0}, s32[]) parameter(0)
	//   ROOT %n = f32[4]{0} negate(%p#0)
	// }
	//
	// HloModule m
	//
	// ENTRY %main (p: (f32[4], s32[])) -> f32[4] {
	//   %p = (f32[4]{0}, s32[]) parameter(0)
	//   %p_0 = f32[4]{0} get-tuple-element((f32[4]{0}, s32[]) %p), index=0
	//   ROOT %n = f32[4]{0} negate(f32[4]{0} %p_0)
	// }
}

// AppendText appends the text Print writes to a buffer, here after a
// comment line, and returns the buffer.
func ExampleModule_AppendText() {
	m, err := hlo.Parse([]byte("ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(p)\n}\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	buf := []byte("// short form\n")
	buf = m.AppendText(buf, hlo.PrintOptions{Short: true})
	fmt.Print(string(buf))
	// Output:
	// // short form
	// HloModule e, entry_computation_layout={(f32[2]{0})->f32[2]{0}}
	//
	// ENTRY e {
	//   p = f32[2]{0} parameter(0)
	//   ROOT n = f32[2]{0} negate(p)
	// }
}

func ExampleReadChunks() {
	text := "HloModule a\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n// -----\nHloModule b\nENTRY e {\n  ROOT q = s32[] parameter(0)\n}\n"
	err := hlo.ReadChunks(strings.NewReader(text), func(c hlo.Chunk, last bool) error {
		m, err := hlo.ParseChunk("f.hlo", c) // as each chunk is read
		if err != nil {
			return err
		}
		fmt.Printf("line %d: module %s, last %v\n", c.Line, m.Name, last)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// line 1: module a, last false
	// line 6: module b, last true
}
