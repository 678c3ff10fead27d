package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// TestVersion: --version names the XLA whose HLO text is followed, and an
// attribute of a newer XLA is refused with a positioned error that says so.
func TestVersion(t *testing.T) {
	out, errOut, code := hloOpt(t, "", "--version")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "HLO text: XLA as in "+hlo.XLAVersion)
	assert.Contains(t, out, hlo.XLASurveyCommit[:12])

	_, errOut, code = hloOpt(t, "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p), future_attr=1\n}\n", "-")
	assert.Equal(t, 1, code)
	assert.Equal(t, "<stdin>:3:30: expected attribute name, found unknown \"future_attr\" (not in XLA's HLO text as of jaxlib 0.12.0.1: hlo-opt --version)\n", errOut)
}
