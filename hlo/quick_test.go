package hlo

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo/hlotest/hlogen"
)

// TestQuickParseAgreesWithPrescan parses every text we hold (the
// repository's testdata, XLA's parser cases, the fuzz corpus, the
// corpus's modules and generated ones) with 1, 2 and 3 jobs, once as
// ParseFile does (parseQuick) and once cut into computations first
// (prescan), and checks that both give the same module (its text, every
// position, spelling, truncation) or the same errors.
func TestQuickParseAgreesWithPrescan(t *testing.T) {
	texts := heldTexts(t)
	split := 0
	for name, src := range texts {
		for _, jobs := range []int{1, 2, 3} {
			quick, spans := describeParse(src, true, jobs)
			if quick == "" {
				continue // parseQuick left it to the prescanned parse
			}
			split += spans - 1
			slow, _ := describeParse(src, false, jobs)
			assert.True(t, quick == slow, "%s, %d jobs: the quick parse differs from the prescanned one", name, jobs)
		}
	}
	assert.Greater(t, split, 100, "spans cut by parseQuick")
}

// heldTexts are the texts we hold, by name: the repository's testdata,
// XLA's parser cases, the fuzz corpus, the corpus's modules and generated
// ones.
func heldTexts(t *testing.T) map[string][]byte {
	texts := map[string][]byte{
		"generated":     hlogen.Module(parallelThreshold * 3),
		"unrolled":      hlogen.Unrolled(64),
		"nested-whiles": hlogen.NestedWhiles(8),
		"wide-tuples":   hlogen.WideTuple(64),
	}
	add := func(name string, src []byte) {
		for k, ch := range SplitInputFile(src) {
			texts[fmt.Sprintf("%s#%d", name, k)] = ch.Src
		}
	}
	for _, root := range []string{filepath.Join("..", "testdata"), filepath.Join("..", "..", "shared", "corpus")} {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".hlo") {
				src, err := os.ReadFile(path)
				require.NoError(t, err)
				add(path, src)
			}
			return nil
		})
	}
	parserCases, err := os.ReadFile(filepath.Join("testdata", "xla-parser.txtar"))
	require.NoError(t, err)
	for i, sec := range strings.Split(string(parserCases), "\n-- ") {
		texts[fmt.Sprintf("xla-parser.txtar#%d", i)] = []byte(sec)
	}
	fuzz, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzParse", "*"))
	require.NoError(t, err)
	for _, f := range fuzz {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, line := range strings.Split(string(b), "\n") {
			if q, ok := strings.CutPrefix(line, "[]byte("); ok {
				if s, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
					texts[f] = []byte(s)
				}
			}
		}
	}
	require.Greater(t, len(texts), 300)
	return texts
}

// describeParse parses the computations of src as parseText does, with
// parseQuick when quick (returning "" when it leaves the text to the
// prescanned parse) or cut by prescan, and describes what they parsed:
// every computation's text, positions, errors, truncation and spelling.
// It returns the number of spans too.
func describeParse(src []byte, quick bool, jobs int) (string, int) {
	text := normalizeText(src)
	s := newScanner("t.hlo", text, 0, len(text), 1, 0)
	s.strs = newStrArena(0)
	if isSingleInstruction(s) {
		return "", 0
	}
	if parseHeader(&s, &Module{}); s.err != nil {
		return "", 0
	}
	var results []chunkResult
	spans := 0
	if quick {
		var ok bool
		if results, ok = parseQuick("t.hlo", text, s, jobs); !ok {
			return "", 0
		}
		spans = len(results)
	} else {
		results = parseSpans("t.hlo", text, prescan(s), jobs)
	}
	var b strings.Builder
	var sp spellingCounts
	calls := 0
	for _, r := range results {
		sp.add(r.spelling)
		calls += len(r.calls)
		if r.err != nil || r.truncated != nil {
			fmt.Fprintf(&b, "%v %+v\n", r.err, r.truncated)
		}
		for _, c := range r.comps {
			fmt.Fprintf(&b, "%s %v\n%s\n", c.Name, c.Pos, c.String())
			for _, in := range c.Instructions {
				fmt.Fprintf(&b, " %s %v", in.Name, in.Pos)
			}
			b.WriteByte('\n')
		}
	}
	fmt.Fprintf(&b, "%+v, %d calls\n", sp, calls)
	return b.String(), spans
}
