package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// TestXLATodaySpellings prints each module today's XLA printed
// (testdata/xla-today) back byte for byte, and runs every pass over it as
// it was printed, with "%t#k" operands,
// and in the long spelling (--print=classic: a get-tuple-element
// instruction for each, operands with shapes): the reports must be
// byte-identical, text and JSON, verify must pass, and --jobs=1 and
// --jobs=8 must agree.
func TestXLATodaySpellings(t *testing.T) {
	hlotest.RunXLATodayDumps(t, func(t *testing.T, d hlotest.XLAToday) {
		backend, src := d.Backend, d.Src
		same, errOut, code := hloOpt(t, string(src), "-")
		require.Equal(t, 0, code, errOut)
		assert.True(t, same == string(src), "hlo-opt does not print the dump back byte for byte")
		long, errOut, code := hloOpt(t, string(src), "--print=classic", "-")
		require.Equal(t, 0, code, errOut)
		if strings.Contains(string(src), "#") {
			assert.NotEqual(t, string(src), long)
		}
		target := "tpu"
		switch {
		case strings.HasPrefix(backend, "gpu"):
			target = "gpu"
		case backend == "cpu":
			target = "cpu"
		}
		for _, format := range []string{"text", "json"} {
			args := []string{"--target=" + target, "--passes=" + allPassesFlag, "--format=" + format, "-"}
			today, errToday, code := hloOpt(t, string(src), args...)
			require.Equal(t, 0, code, errToday)
			classic, errClassic, code := hloOpt(t, long, args...)
			require.Equal(t, 0, code, errClassic)
			assert.True(t, today == classic, "%s reports differ between the two spellings", format)
			jobs8, _, _ := hloOpt(t, string(src), append([]string{"--jobs=8"}, args...)...)
			assert.True(t, today == jobs8, "%s reports differ between --jobs=1 and --jobs=8", format)
		}
	})
}
