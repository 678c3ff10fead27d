package hlotest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// ReadFile reads the file at path, failing the test when it cannot;
// msgAndArgs are added to the failure as in require.NoError.
func ReadFile(tb testing.TB, path string, msgAndArgs ...any) []byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	require.NoError(tb, err, msgAndArgs...)
	return data
}

// WriteFile writes data to the file name in dir (mode 0644) and returns
// its path, failing the test when it cannot.
func WriteFile(tb testing.TB, dir, name, data string) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	require.NoError(tb, os.WriteFile(path, []byte(data), 0o644))
	return path
}
