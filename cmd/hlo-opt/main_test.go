package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "update golden files")

// hloOpt runs the command in-process and returns stdout, stderr and the
// exit code.
func hloOpt(t testing.TB, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb})
	return out.String(), errb.String(), code
}

// repoRoot walks up from the working directory to the directory with go.mod.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, parent, dir, "no go.mod above the test directory")
		dir = parent
	}
}

// corpusDir returns ../shared/corpus next to the repository, or skips.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not found at %s", dir)
	}
	return dir
}

// txtar is the small subset of golang.org/x/tools/txtar that goldens use:
// sections introduced by "-- NAME --" lines.
type txtar struct {
	names    []string
	sections map[string]string
}

func parseTxtar(data string) *txtar {
	a := &txtar{sections: map[string]string{}}
	cur := ""
	for _, line := range strings.SplitAfter(data, "\n") {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			cur = strings.TrimSpace(trimmed[3 : len(trimmed)-3])
			a.names = append(a.names, cur)
			a.sections[cur] = ""
			continue
		}
		if cur != "" {
			a.sections[cur] += line
		}
	}
	return a
}

func (a *txtar) format() string {
	var b strings.Builder
	for _, n := range a.names {
		b.WriteString("-- " + n + " --\n")
		s := a.sections[n]
		b.WriteString(s)
		if s != "" && !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
