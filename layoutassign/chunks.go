package layoutassign

import "slices"

// chunkLen is the length a block of a chunks sequence is split at.
const chunkLen = 256

// chunks is a sequence kept in order by its user, in blocks of at most
// chunkLen elements, so that inserting or removing in the middle of a
// long sequence moves one block's elements, not the whole tail.
type chunks[T any] struct {
	blocks [][]T
}

// pos is a position in a chunks sequence: element i of block b; the end
// is {len(blocks), 0}.
type pos struct{ b, i int }

// insert puts x before the element at p (at the end when p is the end).
// A full block is split in two halves before the insertion, the first
// keeping its array, so that no block ever grows past chunkLen; a new
// sequence's block starts with room for a few elements.
func (c *chunks[T]) insert(p pos, x T) {
	if len(c.blocks) == 0 {
		blk := make([]T, 1, 4)
		blk[0] = x
		c.blocks = [][]T{blk}
		return
	}
	if p.b == len(c.blocks) {
		p = pos{p.b - 1, len(c.blocks[p.b-1])}
	}
	if blk := c.blocks[p.b]; len(blk) == chunkLen {
		const half = chunkLen / 2
		tail := append(make([]T, 0, chunkLen), blk[half:]...)
		c.blocks[p.b] = blk[:half]
		c.blocks = slices.Insert(c.blocks, p.b+1, tail)
		if p.i > half {
			p = pos{p.b + 1, p.i - half}
		}
	}
	blk := append(c.blocks[p.b], x)
	copy(blk[p.i+1:], blk[p.i:])
	blk[p.i] = x
	c.blocks[p.b] = blk
}

// remove removes the n elements from p on.
func (c *chunks[T]) remove(p pos, n int) {
	for n > 0 {
		blk := c.blocks[p.b]
		k := min(n, len(blk)-p.i)
		blk = append(blk[:p.i], blk[p.i+k:]...)
		n -= k
		if len(blk) > 0 {
			c.blocks[p.b] = blk
			p = pos{p.b + 1, 0}
			continue
		}
		c.blocks = append(c.blocks[:p.b], c.blocks[p.b+1:]...)
	}
}

// spanSet is a union of heap or time spans: disjoint, sorted, and never
// two that touch.
type spanSet struct{ c chunks[span] }

// firstEndingAfter is the position of the first span that ends after t.
func (s *spanSet) firstEndingAfter(t int64) pos { return firstEndingAfter(s.c.blocks, t) }

// firstEndingAfter is the position in blocks (those of a chunks sequence
// of spans sorted by hi) of the first span that ends after t: a binary
// search over the blocks' last spans, then within the block, written out
// (sort.Search's closure costs more than the search itself).
func firstEndingAfter(bl [][]span, t int64) pos {
	lo, hi := 0, len(bl)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if b := bl[m]; b[len(b)-1].hi > t {
			hi = m
		} else {
			lo = m + 1
		}
	}
	if lo == len(bl) {
		return pos{lo, 0}
	}
	b := bl[lo]
	i, j := 0, len(b)-1 // b's last span ends after t
	for i < j {
		m := int(uint(i+j) >> 1)
		if b[m].hi > t {
			j = m
		} else {
			i = m + 1
		}
	}
	return pos{lo, i}
}

// add unites sp with the set.
func (s *spanSet) add(sp span) {
	p := s.firstEndingAfter(sp.lo - 1) // the first span sp overlaps or touches
	n := 0
scan:
	for q := p; q.b < len(s.c.blocks); q.b, q.i = q.b+1, 0 {
		for _, x := range s.c.blocks[q.b][q.i:] {
			if x.lo > sp.hi {
				break scan
			}
			sp.lo, sp.hi = min(sp.lo, x.lo), max(sp.hi, x.hi)
			n++
		}
	}
	if n == 1 {
		s.c.blocks[p.b][p.i] = sp // one span grown: nothing moves
		return
	}
	s.c.remove(p, n)
	s.c.insert(p, sp)
}

// meets reports whether the set meets q.
func (s *spanSet) meets(q span) bool {
	p := s.firstEndingAfter(q.lo)
	return p.b < len(s.c.blocks) && s.c.blocks[p.b][p.i].lo < q.hi
}

// minus appends to out the parts of x that the set does not cover.
func (s *spanSet) minus(out []span, x span) []span {
scan:
	for p := s.firstEndingAfter(x.lo); p.b < len(s.c.blocks); p.b, p.i = p.b+1, 0 {
		for _, y := range s.c.blocks[p.b][p.i:] {
			if y.lo >= x.hi {
				break scan
			}
			if y.lo > x.lo {
				out = append(out, span{x.lo, y.lo})
			}
			x.lo = max(x.lo, y.hi)
		}
	}
	if x.lo < x.hi {
		out = append(out, x)
	}
	return out
}

// intersect appends to out the parts of the spans d that the set covers.
func (s *spanSet) intersect(out []span, d []span) []span {
	for _, x := range d {
	blocks:
		for p := s.firstEndingAfter(x.lo); p.b < len(s.c.blocks); p.b, p.i = p.b+1, 0 {
			for _, y := range s.c.blocks[p.b][p.i:] {
				if y.lo >= x.hi {
					break blocks
				}
				out = append(out, span{max(x.lo, y.lo), min(x.hi, y.hi)})
			}
		}
	}
	return out
}

// appendTo appends the set's spans to out.
func (s *spanSet) appendTo(out []span) []span {
	for _, blk := range s.c.blocks {
		out = append(out, blk...)
	}
	return out
}

// keyed is a sequence of value ids sorted by a key (ids of equal keys in
// insertion order), kept as spans {id, key} so that spanSet's search
// (by hi) finds them; key gives an id's key when it is inserted (it must
// not change while the id is in the sequence).
type keyed struct {
	c   chunks[span]
	key func(int32) int
}

func (k *keyed) insert(id int32) {
	t := int64(k.key(id))
	k.c.insert(firstEndingAfter(k.c.blocks, t), span{int64(id), t})
}

// each calls f on the ids whose key is in [lo, hi] until f returns false.
func (k *keyed) each(lo, hi int, f func(int32) bool) {
	for p := firstEndingAfter(k.c.blocks, int64(lo)-1); p.b < len(k.c.blocks); p.b, p.i = p.b+1, 0 {
		for _, x := range k.c.blocks[p.b][p.i:] {
			if x.hi > int64(hi) || !f(int32(x.lo)) {
				return
			}
		}
	}
}
