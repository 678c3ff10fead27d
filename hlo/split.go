package hlo

import (
	"bytes"
	"io"
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
	start, line := 0, 1
	for {
		ms, me, ok := markerLine(src[start:])
		if !ok {
			return append(chunks, Chunk{Src: src[start:], Line: line})
		}
		chunks = append(chunks, Chunk{Src: src[start : start+ms], Line: line})
		line += bytes.Count(src[start:start+me], newline) + 1
		start = min(start+me+1, len(src))
	}
}

var (
	marker  = []byte(SplitMarker)
	newline = []byte{'\n'}
)

// markerLine returns where the first marker line of b starts and ends
// (before its '\n', or at the end of b).
func markerLine(b []byte) (start, end int, ok bool) {
	for from := 0; ; {
		i := bytes.Index(b[from:], marker)
		if i < 0 {
			return 0, 0, false
		}
		i += from
		start = bytes.LastIndexByte(b[:i], '\n') + 1
		end = len(b)
		if k := bytes.IndexByte(b[i:], '\n'); k >= 0 {
			end = i + k
		}
		if string(bytes.TrimSpace(b[start:end])) == SplitMarker {
			return start, end, true
		}
		from = i + 1
	}
}

// ReadChunks reads a --split-input-file text from r and calls f with each
// of the chunks SplitInputFile would cut, in order, as soon as its end is
// read (the marker line after it, or the end of r), so that a caller can
// parse the chunks read while the rest is read; last says the chunk is
// the text's last. Each chunk's Src is a buffer of its own, f's to keep:
// once a chunk is parsed, its text is garbage. ReadChunks returns the
// first error of r (io.EOF aside) or f.
func ReadChunks(r io.Reader, f func(c Chunk, last bool) error) error {
	const block = 256 << 10 // the most read at once
	size := 4 * block       // the buffer of a chunk, then the size of the one before
	buf := make([]byte, 0, size)
	scanned, line := 0, 1 // buf[:scanned] holds whole lines and no marker
	for {
		if cap(buf)-len(buf) < block {
			buf = append(make([]byte, 0, 2*cap(buf)), buf...)
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), len(buf)+block)])
		buf = buf[:len(buf)+n]
		final := err == io.EOF
		if err != nil && !final {
			return err
		}
		for {
			end := len(buf) // the whole lines read
			if !final {
				end = bytes.LastIndexByte(buf, '\n') + 1
			}
			ms, me, ok := markerLine(buf[scanned:end])
			if !ok {
				scanned = max(scanned, end)
				break
			}
			ms, me = scanned+ms, scanned+me
			size = max(size, ms+block)
			rest := buf[min(me+1, len(buf)):]
			next := append(make([]byte, 0, max(size, len(rest)+block)), rest...)
			c := Chunk{Src: buf[:ms:ms], Line: line}
			line += bytes.Count(buf[:me], newline) + 1
			if err := f(c, false); err != nil {
				return err
			}
			buf, scanned = next, 0
		}
		if final {
			return f(Chunk{Src: buf, Line: line}, true)
		}
	}
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
