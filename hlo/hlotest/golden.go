package hlotest

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Update is the -update flag of every hlo-opt test binary: with it, golden
// tests rewrite their expected files instead of comparing. It lives here,
// registered once in each test binary that imports hlotest, so that
// "go test ./... -update" (make golden) is accepted by every package, those
// without golden files included.
var Update = flag.Bool("update", false, "update golden files")

// Golden compares got with the golden file path, or rewrites it under
// -update; a difference fails the test and shows the first line that
// differs.
func Golden(tb testing.TB, path, got string) {
	tb.Helper()
	if *Update {
		require.NoError(tb, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(tb, err, "go test -update writes %s", path)
	if string(want) != got {
		tb.Errorf("%s differs from what the test computes; go test -run %s -update rewrites it (review the diff):\n%s",
			path, tb.Name(), firstDiff(string(want), got))
	}
}

func firstDiff(want, got string) string {
	if n, a, b := FirstDifferentLine(want, got); n > 0 {
		return fmt.Sprintf("line %d:\n- %s\n+ %s", n, a, b)
	}
	return ""
}

// FirstDifferentLine is the first line (counted from 1) where got differs
// from want, with both versions of it; n is 0 when they are equal.
func FirstDifferentLine(want, got string) (n int, wantLine, gotLine string) {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return i + 1, a, b
		}
	}
	return 0, "", ""
}
