package hlotest

import (
	"strings"
	"testing"
)

// Archive is a txtar archive, the small subset of golang.org/x/tools/txtar
// that the tests use: a comment, then files, each introduced by a
// "-- NAME --" line. The CLI goldens are archives, and so are tables of
// cases ported from XLA's tests.
type Archive struct {
	Comment string
	Files   []File
}

// File is one file of an Archive.
type File struct {
	Name, Data string
}

// ParseArchive reads an archive; what stands before the first
// "-- NAME --" line is its comment.
func ParseArchive(data string) *Archive {
	a := &Archive{}
	for line := range strings.Lines(data) {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			a.Files = append(a.Files, File{Name: strings.TrimSpace(trimmed[3 : len(trimmed)-3])})
			continue
		}
		if len(a.Files) == 0 {
			a.Comment += line
		} else {
			a.Files[len(a.Files)-1].Data += line
		}
	}
	return a
}

// ReadArchive reads the archive at path, failing the test when it cannot.
func ReadArchive(tb testing.TB, path string) *Archive {
	tb.Helper()
	return ParseArchive(string(ReadFile(tb, path)))
}

// Format prints the archive: the comment, then each file after its
// "-- NAME --" line, ending in a newline.
func (a *Archive) Format() string {
	var b strings.Builder
	b.WriteString(withNewline(a.Comment))
	for _, f := range a.Files {
		b.WriteString("-- " + f.Name + " --\n")
		b.WriteString(withNewline(f.Data))
	}
	return b.String()
}

func withNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
