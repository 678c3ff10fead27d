package hlo

import "unsafe"

// strArena holds the strings a parsed module keeps (names, attribute
// values, literals): the parser reads the caller's bytes in place, without
// copying the whole text, and copies only what it keeps into large blocks,
// so the module neither aliases the caller's buffer nor keeps its
// comments, blanks, shapes and operand lists alive. An arena is used by
// one goroutine at a time.
type strArena struct {
	buf   []byte
	block int // size of a block; strings longer than block/8 get their own
}

// newStrArena returns an arena for the strings kept from about textSize
// bytes of text: blocks of a quarter of that, between 4 KiB and 256 KiB,
// so that a small module does not keep mostly empty blocks.
func newStrArena(textSize int) *strArena {
	return &strArena{block: min(max(textSize/4, 4<<10), 256<<10)}
}

// keep returns a copy of s in the arena.
func (a *strArena) keep(s string) string {
	if len(s) == 0 {
		return ""
	}
	if cap(a.buf)-len(a.buf) < len(s) {
		if len(s) > a.block/8 {
			b := make([]byte, len(s))
			copy(b, s)
			return unsafe.String(&b[0], len(b))
		}
		a.buf = make([]byte, 0, a.block)
	}
	l := len(a.buf)
	a.buf = append(a.buf, s...)
	// The bytes are never written again: the arena only appends.
	return unsafe.String(&a.buf[l], len(s))
}

// keepStr returns s as the module may keep it: copied into the scanner's
// arena when the text is a view of the caller's bytes, else s itself.
func (s *scanner) keepStr(v string) string {
	if s.strs == nil {
		return v
	}
	return s.strs.keep(v)
}

// bytesView returns b as a string without copying. The caller must not
// change b while the string is in use.
func bytesView(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
