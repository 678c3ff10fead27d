package main

import "io"

// blockSize is the size of the blocks an output is kept in.
const blockSize = 64 << 10

// blocks keeps an output in memory until the run that makes it succeeded
// (nothing is written otherwise), in blocks that are filled once and never
// moved: a growing buffer would copy a report of megabytes several times
// over.
type blocks struct {
	bs [][]byte
}

// room returns the last block with free space, adding one if needed.
func (b *blocks) room() *[]byte {
	if n := len(b.bs); n == 0 || len(b.bs[n-1]) == cap(b.bs[n-1]) {
		b.bs = append(b.bs, make([]byte, 0, blockSize))
	}
	return &b.bs[len(b.bs)-1]
}

// Write appends p.
func (b *blocks) Write(p []byte) (int, error) { return appendBlocks(b, p), nil }

// WriteString appends s.
func (b *blocks) WriteString(s string) (int, error) { return appendBlocks(b, s), nil }

// appendBlocks appends p to b's blocks and returns its length.
func appendBlocks[T string | []byte](b *blocks, p T) int {
	n := len(p)
	for len(p) > 0 {
		last := b.room()
		k := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
	}
	return n
}

// adopt appends p as a block, without a copy: p is b's from then on.
func (b *blocks) adopt(p []byte) { b.bs = append(b.bs, p) }

// WriteByte appends c.
func (b *blocks) WriteByte(c byte) error {
	last := b.room()
	*last = append(*last, c)
	return nil
}

// trimNewlines drops the newlines at the end.
func (b *blocks) trimNewlines() {
	for n := len(b.bs); n > 0; n = len(b.bs) {
		last := b.bs[n-1]
		for len(last) > 0 && last[len(last)-1] == '\n' {
			last = last[:len(last)-1]
		}
		b.bs[n-1] = last
		if len(last) > 0 {
			return
		}
		b.bs = b.bs[:n-1]
	}
}

// empty reports whether nothing was written (or all was trimmed).
func (b *blocks) empty() bool { return len(b.bs) == 0 }

// size is the number of bytes held.
func (b *blocks) size() int {
	n := 0
	for _, x := range b.bs {
		n += len(x)
	}
	return n
}

// writeTo writes the blocks to w in order.
func (b *blocks) writeTo(w io.Writer) error {
	for _, p := range b.bs {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}
