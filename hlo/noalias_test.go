package hlo

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest/hlogen"
)

// aliasedStrings walks every value reachable from v and returns the paths
// of the strings whose bytes lie inside buf.
func aliasedStrings(v any, buf []byte) []string {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	hi := lo + uintptr(len(buf))
	seen := map[uintptr]bool{}
	var out []string
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		if len(out) > 10 {
			return
		}
		switch v.Kind() {
		case reflect.String:
			s := v.String()
			if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); len(s) > 0 && p >= lo && p < hi {
				out = append(out, path+" = "+s)
			}
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			walk(v.Elem(), path)
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i), path+"[]")
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				walk(it.Key(), path+"{key}")
				walk(it.Value(), path+"{}")
			}
		}
	}
	walk(reflect.ValueOf(v), "Module")
	return out
}

// TestParseKeepsNoInputBytes parses modules from a buffer and checks that
// no string of the module points into the buffer, and that overwriting
// the buffer afterwards leaves the module printing the same. The inputs
// are the test data, the corpus and a generated module large enough to be
// parsed by several workers.
func TestParseKeepsNoInputBytes(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*", "*.hlo"))
	// hlo's internal tests cannot import hlotest (it imports hlo); they
	// always run in <root>/hlo, so the corpus is ../../shared/corpus.
	more, _ := filepath.Glob(filepath.Join("..", "..", "shared", "corpus", "*.hlo"))
	files = append(files, more...)
	inputs := map[string][]byte{"generated": hlogen.Module(parallelThreshold * 4)}
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for k, ch := range SplitInputFile(src) {
			inputs[filepath.Base(f)+"#"+strings.Repeat("i", k)] = ch.Src
		}
	}
	parsed := 0
	for name, src := range inputs {
		buf := append([]byte(nil), src...)
		m, err := Parse(buf)
		if err != nil {
			continue
		}
		parsed++
		assert.Empty(t, aliasedStrings(m, buf), name)
		want := m.String()
		for i := range buf {
			buf[i] = 'x'
		}
		assert.Equal(t, want, m.String(), name)
	}
	assert.Greater(t, parsed, 10)
}
