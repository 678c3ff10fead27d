package hlo

import (
	"bytes"
	"strings"
)

// SplitMarker is the line that separates modules in a --split-input-file
// file, and OutputSeparator joins the outputs of its modules.
const (
	SplitMarker     = "// -----"
	OutputSeparator = "\n// -----\n"
)

// Chunk is one module's text in a --split-input-file file.
type Chunk struct {
	// Src is the chunk's text; it starts at the beginning of a line.
	Src []byte
	// Line is the 1-based line of the file on which Src starts.
	Line int
}

// SplitInputFile cuts src at every line that reads "// -----" (blanks
// around it allowed), like mlir's --split-input-file. The marker lines
// belong to no chunk. A file without markers is one chunk.
func SplitInputFile(src []byte) []Chunk {
	var chunks []Chunk
	start, startLine := 0, 1
	line := 1
	for off := 0; off < len(src); {
		nl := bytes.IndexByte(src[off:], '\n')
		end := len(src)
		next := len(src)
		if nl >= 0 {
			end = off + nl
			next = end + 1
		}
		if string(bytes.TrimSpace(src[off:end])) == SplitMarker {
			chunks = append(chunks, Chunk{Src: src[start:off], Line: startLine})
			start, startLine = next, line+1
		}
		off = next
		line++
	}
	return append(chunks, Chunk{Src: src[start:], Line: startLine})
}

// ParseChunk parses the module of one chunk of SplitInputFile; error
// positions are lines of the whole file.
func ParseChunk(filename string, c Chunk) (*Module, error) {
	return ParseOptions{}.ParseChunk(filename, c)
}

// ParseChunk is ParseChunk with these options.
func (o ParseOptions) ParseChunk(filename string, c Chunk) (*Module, error) {
	line := c.Line
	if line < 1 {
		line = 1
	}
	return parseText(filename, normalizeText(c.Src), line, o)
}

// JoinOutputs joins the printed outputs of split modules with
// OutputSeparator, the way --split-input-file tools print them. Trailing
// newlines of each output are trimmed before joining and one newline ends
// the result.
func JoinOutputs(outs []string) string {
	var b strings.Builder
	for i, o := range outs {
		if i > 0 {
			b.WriteString(OutputSeparator)
		}
		b.WriteString(strings.TrimRight(o, "\n"))
	}
	b.WriteByte('\n')
	return b.String()
}
