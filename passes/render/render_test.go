package render

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
	"github.com/hlo-opt/hlo-opt/passes"
)

// TestJSONWriterMatchesEncodingJSON writes nested Objects, lists of them
// and encoding/json values, compact and indented, and compares the bytes
// with what encoding/json (with json.Indent) makes of the same values
// written as ordered maps would be: the writer must be a faster spelling
// of the same output.
func TestJSONWriterMatchesEncodingJSON(t *testing.T) {
	type leaf struct {
		A []string       `json:"a"`
		B map[string]int `json:"b"`
		C *leaf          `json:"c,omitempty"`
	}
	v := Object{
		{"plain", "f32[8,128]{1,0:T(8,128)}"},
		{"escaped", "quote \" back \\ tab \t <html> & é \u2028"},
		{"empty", Object{}},
		{"none", []Object{}},
		{"list", []Object{{{"x", 1}}, {{"y", Object{{"z", []int{1, 2}}}}}}},
		{"leaf", leaf{A: []string{"(d0) -> (d0)", ""}, B: map[string]int{"k": 1}, C: &leaf{}}},
		{"nil", nil},
		{"num", 1.5e-7},
	}
	// encoding/json's view: Object.MarshalJSON of old, without the
	// writer: every Object marshalled field by field.
	var want func(v any) []byte
	want = func(v any) []byte {
		var b bytes.Buffer
		switch x := v.(type) {
		case Object:
			b.WriteByte('{')
			for i, f := range x {
				if i > 0 {
					b.WriteByte(',')
				}
				b.Write(want(f.Key))
				b.WriteByte(':')
				b.Write(want(f.Value))
			}
			b.WriteByte('}')
		case []Object:
			b.WriteByte('[')
			for i, o := range x {
				if i > 0 {
					b.WriteByte(',')
				}
				b.Write(want(o))
			}
			b.WriteByte(']')
		default:
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			require.NoError(t, enc.Encode(v))
			return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
		}
		return b.Bytes()
	}
	compact := want(v)
	require.True(t, json.Valid(compact))
	for _, indent := range []string{"", "  ", "\t"} {
		w := jsonWriter{indent: indent}
		require.NoError(t, w.value(v, 0))
		exp := compact
		if indent != "" {
			var b bytes.Buffer
			require.NoError(t, json.Indent(&b, compact, "", indent))
			exp = b.Bytes()
		}
		assert.Equal(t, string(exp), string(w.b), "indent %q", indent)
	}
	// Object.MarshalJSON is the compact form.
	got, err := v.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, string(compact), string(got))
}

func TestJSONWriterFlushesInOrder(t *testing.T) {
	var list []Object
	for i := range 20000 {
		list = append(list, Object{{"i", i}, {"s", "some text to fill the blocks"}})
	}
	v := Object{{"list", list}}
	whole := jsonWriter{indent: "  "}
	require.NoError(t, whole.value(v, 0))
	var out bytes.Buffer
	flushed := jsonWriter{indent: "  ", out: &out}
	require.NoError(t, flushed.value(v, 0))
	require.Greater(t, out.Len(), 0, "the writer handed text out on the way")
	out.Write(flushed.b)
	assert.Equal(t, string(whole.b), out.String())
}

// TestWriteJSONMatchesJSONValue runs stats over modules of
// several shapes (computations without instructions, one with hundreds
// of instructions, none at all) and compares WriteJSON with the Object
// JSONValue returns, marshalled and indented by encoding/json.
func TestWriteJSONMatchesJSONValue(t *testing.T) {
	big := hlotest.NewBuilder("big")
	big.Computation("empty")
	big.Entry("main")
	prev := big.Param("p", 0, hlo.Shape{Type: hlo.F32})
	for i := range 400 {
		prev = big.Add(fmt.Sprintf("n%d", i), "negate", hlo.Shape{Type: hlo.F32}, prev)
	}
	big.Computation("empty_last")
	modules := []*hlo.Module{big.Module(), hlotest.CallsModule(5, 2), {Name: "none"}}
	for _, m := range modules {
		res := &passes.Results{Module: m}
		if len(m.Computations) > 0 {
			pl, err := passes.NewPipeline([]*passes.Pass{passes.Stats}, passes.Options{Jobs: 1, NoVerify: true}) // empty computations are invalid
			require.NoError(t, err)
			res, err = pl.Run(context.Background(), m)
			require.NoError(t, err)
		}
		for _, indent := range []string{"", "  "} {
			opts := JSONOptions{Indent: indent, ModuleText: "HloModule x"}
			compact, err := json.Marshal(JSONValue(res, opts))
			require.NoError(t, err)
			want := compact
			if indent != "" {
				var b bytes.Buffer
				require.NoError(t, json.Indent(&b, compact, "", indent))
				want = b.Bytes()
			}
			var got bytes.Buffer
			require.NoError(t, WriteJSON(&got, res, opts))
			assert.Equal(t, string(want)+"\n", got.String(), "%s, indent %q", m.Name, indent)
		}
	}
}
