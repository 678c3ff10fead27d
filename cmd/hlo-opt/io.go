package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// readInput reads the named file, or stdin for "-".
func readInput(env *Env, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(env.Stdin)
	}
	return os.ReadFile(name)
}

// writeOutput writes data to stdout for "-" and otherwise atomically to the
// named file.
func writeOutput(env *Env, name string, data []byte) error {
	if name == "" || name == "-" {
		_, err := env.Stdout.Write(data)
		return err
	}
	return writeFileAtomic(name, data)
}

// writeFileAtomic writes a temporary file next to path and renames it into
// place, so that path is either complete or untouched.
func writeFileAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// chunk is one '// -----' separated part of the input; line is the number
// of lines before it in the file.
type chunk struct {
	src  []byte
	line int
}

// splitInput splits src at lines that are exactly "// -----" (surrounding
// blanks ignored), as mlir-opt and XLA's hlo-opt do.
func splitInput(src []byte) []chunk {
	var out []chunk
	start, startLine, line := 0, 0, 0
	for off := 0; off <= len(src); {
		end := bytes.IndexByte(src[off:], '\n')
		next := len(src) + 1
		if end >= 0 {
			end += off
			next = end + 1
		} else {
			end = len(src)
		}
		if string(bytes.TrimSpace(src[off:end])) == splitSeparator {
			out = append(out, chunk{src: src[start:off], line: startLine})
			start, startLine = min(next, len(src)), line+1
		}
		off = next
		line++
	}
	return append(out, chunk{src: src[start:], line: startLine})
}

// progress draws "hlo-opt: stats 12/40" on a terminal, at most every
// 100ms, and erases it when done; it does nothing when disabled.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	on      bool
	last    time.Time
	started time.Time
	drawn   bool
}

func newProgress(w io.Writer, on bool) *progress {
	return &progress{w: w, on: on, started: time.Now()}
}

func (p *progress) update(pass string, done, total int) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	// Only long runs get a line, and it is redrawn at most every 100ms.
	if now.Sub(p.started) < 500*time.Millisecond || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	p.drawn = true
	fmt.Fprintf(p.w, "\r\x1b[Khlo-opt: %s %d/%d computations", pass, done, total)
}

func (p *progress) done() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
