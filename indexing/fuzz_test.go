package indexing

import (
	"errors"
	"testing"
)

// FuzzParseIndexingMap checks that the parser never panics, that errors are
// positioned, and that printing a parsed map and parsing it again is a
// fixed point.
func FuzzParseIndexingMap(f *testing.F) {
	for _, m := range seedMaps {
		f.Add(m.text)
	}
	for _, s := range []string{
		"(d0, d1)[s0]{rt0} -> (d0, s0 + rt0), domain: d0 in [0, 9], d1 in [0, 19], s0 in [0, 255], rt0 in [0, 4], d0 + s0 in [0, 20]",
		"(d0, d1) -> (-((d0 * -11 - d1 + 109) floordiv 11) + 9), domain: d0 in [0, 9], d1 in [0, 10]",
		"(d0) -> (d0 ceildiv 4, (d0 * 2 + 1) floordiv 3), domain: d0 in [-5, 9]",
		"(d0)[s0] -> (d0 * s0 + d0 floordiv (s0 + 1), -(d0 * s0) mod s0), domain: d0 in [0, 9], s0 in [0, 3], s0 * d0 in [0, 8]",
		"() -> ()",
		"UNDEFINED",
		"KNOWN EMPTY",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := ParseIndexingMap(src)
		if err != nil {
			var perr *ParseError
			if !errors.As(err, &perr) {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		for _, text := range []string{m.String(), m.MultiLineString()} {
			again, err := ParseIndexingMap(text)
			if err != nil {
				t.Fatalf("printed map does not parse: %v\n%s", err, text)
			}
			if again.String() != m.String() {
				t.Fatalf("print/parse is not a fixed point:\n%s\n%s", m, again)
			}
		}
		_ = m.Simplify().String()
	})
}
