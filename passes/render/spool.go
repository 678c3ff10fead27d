package render

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/hlo-opt/hlo-opt/hlo"
	"github.com/hlo-opt/hlo-opt/passes"
)

// Spool holds the text reports of a pipeline run, each written as soon as
// its pass's result is final (Add is a passes.Options.Finished), so that
// the run can drop the results instead of holding them all until the
// output is written: on a large module the analyses' results are several
// times the module. Spool.WriteText then writes what WriteText would have.
//
// The reports stay in memory up to the size given to NewSpool, then go to
// a temporary file that is removed as soon as it is made (where the system
// allows it; else by Close), so that nothing is left behind, however the
// process ends. A Spool is used by one goroutine at a time.
type Spool struct {
	m        *hlo.Module
	dir      string
	inMemory int
	mem      []byte        // the reports while they fit in inMemory
	f        *os.File      // the reports once they did not
	w        *bufio.Writer // f's buffer
	linked   bool          // f could not be removed at once
	size     int64         // bytes written
	at       map[*passes.Pass]section
	err      error // the first error making or writing f
}

// section is where a report lies in the spool.
type section struct{ off, n int64 }

// NewSpool returns a spool for the reports of a run on m that keeps up to
// inMemory bytes in memory and the rest in a temporary file in dir (""
// is os.TempDir()). Close it once its reports are written.
func NewSpool(m *hlo.Module, dir string, inMemory int) *Spool {
	return &Spool{m: m, dir: dir, inMemory: inMemory, at: map[*passes.Pass]section{}}
}

// Add writes the text report of p's result, if it has one (see
// passes.TextReporter), in place of any report of p written before.
func (s *Spool) Add(p *passes.Pass, result any) error {
	tr, ok := result.(passes.TextReporter)
	if !ok {
		delete(s.at, p)
		return nil
	}
	off := s.size
	if err := tr.WriteText((*writer)(s), s.m); err != nil {
		return err
	}
	if s.err != nil {
		return s.err
	}
	s.at[p] = section{off, s.size - off}
	return nil
}

// writer is a Spool as the io.Writer its reports are written to.
type writer Spool

// Write appends b to the spool, moving the spool to a file once it
// outgrows its memory.
func (w *writer) Write(b []byte) (int, error) {
	s := (*Spool)(w)
	if s.err == nil && s.f == nil && len(s.mem)+len(b) > s.inMemory {
		s.spill()
	}
	switch {
	case s.err != nil:
		return 0, s.err
	case s.f == nil:
		s.mem = append(s.mem, b...)
	default:
		if _, s.err = s.w.Write(b); s.err != nil {
			return 0, s.err
		}
	}
	s.size += int64(len(b))
	return len(b), nil
}

// spill moves the spool to a new temporary file, unlinked at once.
func (s *Spool) spill() {
	f, err := os.CreateTemp(s.dir, "hlo-opt-spool-*")
	if err != nil {
		s.err = fmt.Errorf("spooling the reports: %w", err)
		return
	}
	s.f = f
	// The open file stays readable; Close removes it where this fails.
	s.linked = os.Remove(f.Name()) != nil
	s.w = bufio.NewWriterSize(f, 64<<10)
	_, s.err = s.w.Write(s.mem)
	s.mem = nil
}

// WriteText writes the text report of r as WriteText does, taking each
// requested pass's report from the spool, or from r where the spool has
// none.
func (s *Spool) WriteText(w io.Writer, r *passes.Results) error {
	if s.err == nil && s.w != nil {
		s.err = s.w.Flush()
	}
	if s.err != nil {
		return s.err
	}
	return writeText(w, r, s)
}

// section returns where p's report lies, and whether the spool (nil
// holds none) has one.
func (s *Spool) section(p *passes.Pass) (section, bool) {
	if s == nil {
		return section{}, false
	}
	sec, ok := s.at[p]
	return sec, ok
}

// copy writes the report of p, which the spool has, to w.
func (s *Spool) copy(w io.Writer, p *passes.Pass) error {
	sec := s.at[p]
	if s.f == nil {
		_, err := w.Write(s.mem[sec.off : sec.off+sec.n])
		return err
	}
	_, err := io.Copy(w, io.NewSectionReader(s.f, sec.off, sec.n))
	return err
}

// Close releases the spool's memory and file; a closed spool is not used
// again.
func (s *Spool) Close() error {
	s.mem, s.at = nil, nil
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	if s.linked {
		if rerr := os.Remove(s.f.Name()); err == nil {
			err = rerr
		}
	}
	s.f, s.w = nil, nil
	return err
}
