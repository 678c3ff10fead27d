package hlo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpusDir finds ../shared/corpus next to the repository root (the
// directory holding go.mod), or returns "".
func corpusDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	require.NoError(tb, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			c := filepath.Join(dir, "..", "shared", "corpus")
			if st, err := os.Stat(c); err == nil && st.IsDir() {
				return c
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func corpusFiles(tb testing.TB) []string {
	dir := corpusDir(tb)
	if dir == "" {
		tb.Skip("corpus ../shared/corpus not found")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.hlo"))
	require.NoError(tb, err)
	require.NotEmpty(tb, files)
	return files
}

// TestCorpusRoundTrip parses every module of every corpus file (split at
// "// -----"), prints it, and checks that the printed text parses and
// prints to the same bytes, in the long and the short form.
func TestCorpusRoundTrip(t *testing.T) {
	for _, f := range corpusFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			for _, ch := range SplitInputFile(src) {
				if strings.TrimSpace(stripComments(string(ch.Src))) == "" {
					continue
				}
				m, err := ParseChunk(f, ch)
				require.NoError(t, err, "chunk at line %d", ch.Line)
				for _, opts := range []PrintOptions{{}, {Short: true}} {
					var b strings.Builder
					require.NoError(t, m.Print(&b, opts))
					printed := b.String()
					m2, err := ParseString(printed)
					require.NoError(t, err, "reparse of printed chunk at line %d (%+v)", ch.Line, opts)
					var b2 strings.Builder
					require.NoError(t, m2.Print(&b2, opts))
					assert.Equal(t, printed, b2.String(), "chunk at line %d not stable (%+v)", ch.Line, opts)
					assert.Equal(t, len(m.Computations), len(m2.Computations))
				}
				assert.Equal(t, m.String(), func() string { var b strings.Builder; _ = m.Print(&b, PrintOptions{}); return b.String() }())
			}
		})
	}
}

// stripComments removes // line comments, for spotting chunks that hold
// nothing but RUN and CHECK lines.
func stripComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if i := strings.Index(l, "//"); i >= 0 {
			l = l[:i]
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
