package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func text(s string) func(io.Writer) error { return (&blocks{bs: [][]byte{[]byte(s)}}).writeTo }

func TestWriteFileRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	require.NoError(t, writeFile(p, text("one")))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), "a new file is 0644")

	require.NoError(t, os.Chmod(p, 0o600))
	require.NoError(t, writeFile(p, text("two")))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "two", string(b))
	fi, err = os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the old file's mode is kept")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left")
}

func TestWriteFileSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.txt")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o640))
	link := filepath.Join(dir, "link.txt")
	require.NoError(t, os.Symlink("target.txt", link))
	require.NoError(t, writeFile(link, text("new")))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link stays a link")
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "new", string(b), "its target is written")
	fi, err = os.Stat(target)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())

	dangling := filepath.Join(dir, "dangling.txt")
	require.NoError(t, os.Symlink("made.txt", dangling))
	require.NoError(t, writeFile(dangling, text("made")))
	b, err = os.ReadFile(filepath.Join(dir, "made.txt"))
	require.NoError(t, err)
	assert.Equal(t, "made", string(b), "a dangling link's target is created")

	loop := filepath.Join(dir, "loop")
	require.NoError(t, os.Symlink("loop", loop))
	err = writeFile(loop, text("x"))
	assert.ErrorContains(t, err, loop+": too many levels of symbolic links")
}

func TestWriteFileFifoAndDevice(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	require.NoError(t, writeFile(fifo, text("through the fifo")))
	assert.Equal(t, "through the fifo", <-got)
	fi, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeNamedPipe, "the fifo is not replaced")

	require.NoError(t, writeFile(os.DevNull, text("discarded")))
	fi, err = os.Stat(os.DevNull)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeCharDevice, "/dev/null stays a device")
}

func TestWriteFileErrorsNameThePath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	under := filepath.Join(file, "out.txt")
	err := writeFile(under, text("x"))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), under+": "), err.Error())
	assert.NotContains(t, err.Error(), ".tmp")

	err = writeFile(dir, text("x"))
	assert.EqualError(t, err, dir+": is a directory")

	missing := filepath.Join(dir, "no", "such", "dir", "out.txt")
	err = writeFile(missing, text("x"))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), missing+": "), err.Error())
}

func TestOutputFlagKeepsOldFileOnFailure(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.hlo")
	require.NoError(t, os.WriteFile(out, []byte("precious"), 0o600))
	_, errOut, code := hloOpt(t, "HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(\n", "-o", out, "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "<stdin>:")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "precious", string(b), "nothing written on a failed run")
}

// The streamed output ends as the joined one does: its last newlines
// become one (none for an empty output), unless it is a module printed
// alone; a failing writer replaces no file.
func TestWriteStreamed(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	parts := func(ps ...string) func(io.Writer) error {
		return func(w io.Writer) error {
			for _, s := range ps {
				if _, err := io.WriteString(w, s); err != nil {
					return err
				}
			}
			return nil
		}
	}
	for _, c := range []struct {
		parts   []string
		keepEnd bool
		want    string
	}{
		{[]string{"a\n\n", "\n", "b\n\n\n"}, false, "a\n\n\nb\n"},
		{[]string{"a", "\n", "\n"}, false, "a\n"},
		{[]string{"a", strings.Repeat("\n", 40), "b"}, false, "a" + strings.Repeat("\n", 40) + "b\n"},
		{[]string{"\n\n"}, false, ""},
		{nil, false, ""},
		{[]string{"a\n\n"}, true, "a\n\n"},
	} {
		require.NoError(t, writeStreamed(&Env{}, p, c.keepEnd, parts(c.parts...)))
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, c.want, string(got), "%q keepEnd=%v", c.parts, c.keepEnd)

		var out strings.Builder
		require.NoError(t, writeStreamed(&Env{Stdout: &out}, "-", c.keepEnd, parts(c.parts...)))
		assert.Equal(t, c.want, out.String(), "stdout: %q", c.parts)
	}

	require.NoError(t, writeStreamed(&Env{}, p, false, parts("old\n")))
	err := writeStreamed(&Env{}, p, false, func(w io.Writer) error {
		_, _ = io.WriteString(w, strings.Repeat("partial ", 1<<14))
		return assert.AnError
	})
	require.ErrorIs(t, err, assert.AnError)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "old\n", string(got), "a failed output replaces nothing")
	left, err := filepath.Glob(filepath.Join(dir, ".out.txt.tmp*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file is left")
}
