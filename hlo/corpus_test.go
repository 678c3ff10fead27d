package hlo_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/hlo/hlotest"
)

// TestCorpusRoundTrip parses every module of every corpus file (split at
// "// -----"), prints it, and checks that the printed text parses and
// prints to the same bytes, in the long and the short form.
func TestCorpusRoundTrip(t *testing.T) {
	hlotest.RunCorpusFiles(t, func(t *testing.T, f string) {
		for _, ch := range hlotest.ParseModules(t, f) {
			m := ch.Module
			for _, opts := range []hlo.PrintOptions{{}, {Short: true}} {
				var b strings.Builder
				require.NoError(t, m.Print(&b, opts))
				printed := b.String()
				m2, err := hlo.ParseString(printed)
				require.NoError(t, err, "reparse of printed chunk at line %d (%+v)", ch.Line, opts)
				if m.Entry == nil {
					// A truncated dump that lost its entry prints no
					// ENTRY; the reparse takes the last computation.
					require.True(t, m2.ImpliedEntry)
					m2.Entry.IsEntry, m2.Entry = false, nil
				}
				var b2 strings.Builder
				require.NoError(t, m2.Print(&b2, opts))
				assert.Equal(t, printed, b2.String(), "chunk at line %d not stable (%+v)", ch.Line, opts)
				assert.Equal(t, len(m.Computations), len(m2.Computations))
			}
			assert.Equal(t, m.String(), func() string { var b strings.Builder; _ = m.Print(&b, hlo.PrintOptions{}); return b.String() }())
		}
	})
}
