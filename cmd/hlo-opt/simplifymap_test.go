package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSimplifyMap feeds the simplifier examples of the indexing analysis
// document, a map that does not parse and a blank line: one output line
// per input line, an error line for the bad one, exit status 1.
func TestSimplifyMap(t *testing.T) {
	in := strings.Join([]string{
		"(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]",
		"(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 100, ((d0 * 100 + d1 * 10 + d2) mod 100) floordiv 10, d2 mod 10), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
		"(d0, d1) -> (d0 + , d1)",
		"",
		"(d0)[s0] -> (d0 + s0), domain: d0 in [0, 5], s0 in [1, 3], d0 + s0 in [0, 20]",
	}, "\n") + "\n"
	out, errOut, code := hloOpt(t, in, "simplify-map")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	assert.Equal(t, 1, code)
	assert.Empty(t, errOut)
	if assert.Len(t, lines, 5) {
		assert.Equal(t, "(d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 14]", lines[0])
		assert.Equal(t, "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]", lines[1])
		assert.True(t, strings.HasPrefix(lines[2], "error: <stdin>:3:"), lines[2])
		assert.Equal(t, "", lines[3])
		assert.Equal(t, "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 5], s0 in [1, 3]", lines[4])
	}
	out, _, code = hloOpt(t, "(d0) -> (d0 mod 4), domain: d0 in [0, 3]\n", "simplify-map")
	assert.Equal(t, 0, code)
	assert.Equal(t, "(d0) -> (d0), domain: d0 in [0, 3]\n", out)
	_, errOut, code = hloOpt(t, "", "simplify-map", "extra")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "expected no arguments")
}
