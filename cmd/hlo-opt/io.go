package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/hlo-opt/hlo-opt/passes"
)

// readInput reads the named file, or stdin for "-".
func readInput(env *Env, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(env.Stdin)
	}
	return os.ReadFile(name)
}

// openInput opens the named input, stdin for "-" (not closed by Close).
func openInput(env *Env, name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(env.Stdin), nil
	}
	return os.Open(name)
}

// writeOutput writes data to stdout for "-" and otherwise to the named
// file (see writeFile).
func writeOutput(env *Env, name string, data *blocks) error {
	if name == "" || name == "-" {
		return data.writeTo(env.Stdout)
	}
	return writeFile(name, data.writeTo)
}

// writeStreamed writes what write writes to stdout for "-" (through a
// buffer) and otherwise to the named file (see writeFile). Unless keepEnd,
// the output's last newlines become one, as joinOutputs makes them.
func writeStreamed(env *Env, name string, keepEnd bool, write func(io.Writer) error) error {
	trimmed := write
	if !keepEnd {
		trimmed = func(w io.Writer) error {
			t := &trimWriter{w: w}
			if err := write(t); err != nil {
				return err
			}
			if !t.wrote {
				return nil
			}
			_, err := io.WriteString(w, "\n")
			return err
		}
	}
	if name != "" && name != "-" {
		return writeFile(name, trimmed)
	}
	bw := bufio.NewWriterSize(env.Stdout, blockSize)
	if err := trimmed(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// trimWriter writes through to w all but the newlines at the end of what
// it is given, which it holds until more text follows.
type trimWriter struct {
	w     io.Writer
	held  int  // newlines not yet written
	wrote bool // whether anything but newlines came
}

// newlines is what trimWriter writes held newlines from, 16 at a time.
const newlines = "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"

func (t *trimWriter) Write(p []byte) (int, error) {
	body := bytes.TrimRight(p, "\n")
	if len(body) > 0 {
		for t.held > 0 {
			k := min(t.held, len(newlines))
			if _, err := io.WriteString(t.w, newlines[:k]); err != nil {
				return 0, err
			}
			t.held -= k
		}
		if _, err := t.w.Write(body); err != nil {
			return 0, err
		}
		t.wrote = true
	}
	t.held += len(p) - len(body)
	return len(p), nil
}

// chunk is one '// -----' separated part of the input; line is the number
// of lines before it in the file.
type chunk struct {
	src  []byte
	line int
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

// restart starts the half second before a line is drawn anew (the passes
// of a module begin); chunks run side by side share the line.
func (p *progress) restart() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started = time.Now()
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

// bigInput is the size from which parsing and writing draw a progress line
// (the parser runs at 100-200 MB/s: a quarter of a second and up).
const bigInput = 32 << 20

// stage draws "hlo-opt: what" at once for a step that is not counted in
// computations (parsing, writing the output), when size is big enough for
// the step to take a while.
func (p *progress) stage(what string, size int) {
	if !p.on || size < bigInput {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drawn = true
	fmt.Fprintf(p.w, "\r\x1b[Khlo-opt: %s (%s)", what, passes.FormatBytes(int64(size)))
}

func (p *progress) done() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}
