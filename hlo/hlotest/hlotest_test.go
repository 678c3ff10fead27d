package hlotest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/hlo"
)

func TestRepoRootHoldsGoMod(t *testing.T) {
	root := RepoRoot(t)
	_, err := os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	wd, err := os.Getwd()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "hlo", "hlotest"), wd)
}

func TestFindCorpusAgreesWithCorpusDir(t *testing.T) {
	found := FindCorpus(t)
	want := filepath.Join(RepoRoot(t), "..", "shared", "corpus")
	if st, err := os.Stat(want); err != nil || !st.IsDir() {
		assert.Empty(t, found)
		return
	}
	assert.Equal(t, want, found)
	assert.Equal(t, found, CorpusDir(t))
}

func TestLargestCorpusFiles(t *testing.T) {
	files := CorpusFiles(t)
	var maxAll, maxFusion int64
	for _, f := range files {
		require.True(t, strings.HasSuffix(f, ".hlo"), f)
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		n := int64(len(src))
		maxAll = max(maxAll, n)
		if strings.Contains(string(src), " fusion(") {
			maxFusion = max(maxFusion, n)
		}
	}
	size := func(f string) int64 {
		st, err := os.Stat(f)
		require.NoError(t, err)
		return st.Size()
	}
	assert.Equal(t, maxAll, size(LargestCorpusFile(t)))
	assert.Equal(t, maxFusion, size(LargestCorpusFileWithFusions(t)))
	m, src := ReadModule(t, LargestCorpusFileWithFusions(t))
	assert.Equal(t, maxFusion, int64(len(src)))
	assert.Positive(t, CountInstructions(m))
}

func TestParseModulesSkipsCommentChunks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.hlo")
	src := "// RUN: hlo-opt %s\n\nENTRY a {\n  ROOT p = f32[] parameter(0)\n}\n" +
		"// -----\n// CHECK: nothing here\n" +
		"// -----\nHloModule second\nENTRY b {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(p)\n}\n"
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	mods := ParseModules(t, path)
	require.Len(t, mods, 2)
	assert.Equal(t, 0, mods[0].Chunk)
	assert.Equal(t, 1, mods[0].Line)
	assert.Equal(t, "two.hlo#02", mods[1].Name())
	assert.Equal(t, 9, mods[1].Line)
	assert.Equal(t, "second", mods[1].Module.Name)
	assert.Equal(t, 3, CountInstructions(mods[0].Module)+CountInstructions(mods[1].Module))
	assert.True(t, OnlyComments([]byte("// a\n\n   // b\n")))
	assert.False(t, OnlyComments([]byte("// a\n} // b\n")))
}

func TestCorpusModulesCoverEveryFile(t *testing.T) {
	mods := CorpusModules(t)
	seen := map[string]bool{}
	for _, m := range mods {
		// A truncated dump may have lost its entry; then Truncated says so.
		if m.Module.Entry == nil {
			require.NotNil(t, m.Module.Truncated, m.Name())
			require.True(t, m.Module.Truncated.Entry, m.Name())
		}
		seen[m.Path] = true
	}
	assert.Len(t, seen, len(CorpusFiles(t)))
}

// The builder sets what the parser sets: parents, indices, parameter
// numbers and roots, and callees that match the call attributes.
func TestLoopsModuleIsConsistent(t *testing.T) {
	m, cs := LoopsModule()
	require.Len(t, cs, 7)
	assert.Same(t, cs["main"], m.Entry)
	assert.True(t, m.Entry.IsEntry)
	for _, c := range m.Computations {
		assert.Same(t, c, cs[c.Name])
		assert.Same(t, c.Instructions[len(c.Instructions)-1], c.Root)
		for i, in := range c.Instructions {
			assert.Same(t, c, in.Parent)
			assert.Equal(t, i, in.Index)
			assert.NotNil(t, in.Typed)
			if in.Opcode == "parameter" {
				assert.Same(t, in, c.Params[in.ParameterNumber])
			} else {
				assert.Equal(t, -1, in.ParameterNumber)
			}
			for _, op := range in.Operands {
				assert.Same(t, c, op.Parent, "%s/%s", c.Name, in.Name)
			}
			var attrs strings.Builder
			for _, a := range in.Attrs {
				attrs.WriteString(a.Name + "=" + a.Value + " ")
			}
			for _, callee := range in.Called {
				assert.Regexp(t, `[=%]`+regexp.QuoteMeta(callee.Name)+`\b`, attrs.String(), "%s/%s", c.Name, in.Name)
			}
		}
	}
	assert.Equal(t, "{%br0, %br1}", m.Entry.Instructions[6].Attrs[0].Value)
	assert.Equal(t, 23, CountInstructions(m))
}

// CallsModule prints as HLO text that the parser reads back to the same
// text: the builder makes IR the parser would make.
func TestCallsModuleRoundTripsThroughText(t *testing.T) {
	m := CallsModule(3, 2)
	text := m.String()
	again, err := hlo.ParseString(text)
	require.NoError(t, err, text)
	assert.Equal(t, text, again.String())
	assert.Equal(t, 1+3*(2+1+2+1)+3+1, CountInstructions(again))
	assert.Equal(t, "calls3", again.Name)
}

func TestArchiveRoundTrip(t *testing.T) {
	const text = "a comment\n-- one --\nfirst\n\n-- two --\n-- three --\nlast\n"
	a := ParseArchive(text)
	assert.Equal(t, "a comment\n", a.Comment)
	assert.Equal(t, []File{{"one", "first\n\n"}, {"two", ""}, {"three", "last\n"}}, a.Files)
	assert.Equal(t, text, a.Format())
	a.Files = append(a.Files, File{"four", "no newline"})
	assert.Equal(t, text+"-- four --\nno newline\n", a.Format())
}
