package hlo

// nameTable maps the names of the instructions of the computation being
// parsed to their positions in the parser's list of them. It is an
// open-addressing hash table (nameHash, linear probing, at most half full)
// of 12-byte slots without pointers, which reset empties at once by
// moving to a new generation, so that the parser reuses one across
// computations of any size; a Go map costs a hash call and a clear
// proportional to the largest computation seen, and its entries (name,
// instruction) are pointers the collector follows.
type nameTable struct {
	slots []nameSlot
	n     int
	gen   uint32
}

type nameSlot struct {
	gen, hash uint32
	at        int32 // the instruction's position in the list
}

// nameHash hashes s eight bytes at a time (a byte at a time, names of
// 10-30 bytes spent more on the chain of multiplications than the table
// on its lookups).
func nameHash(s string) uint32 {
	const m = 0x9e3779b97f4a7c15
	h := uint64(len(s)) * m
	var w uint64 // the last eight bytes (fewer when s is shorter)
	if len(s) >= 8 {
		w = word(s[len(s)-8:])
	} else {
		for i := len(s) - 1; i >= 0; i-- {
			w = w<<8 | uint64(s[i])
		}
	}
	for ; len(s) > 8; s = s[8:] {
		h = (h ^ word(s)) * m
		h ^= h >> 31
	}
	h = (h ^ w) * m
	h ^= h >> 29
	h *= m
	return uint32(h >> 32)
}

// word is the first eight bytes of s, little-endian.
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// reset empties the table.
func (t *nameTable) reset() {
	t.n = 0
	if t.gen++; t.gen == 0 { // wrapped: old stamps could match again
		clear(t.slots)
		t.gen = 1
	}
}

// get returns the instruction of insts named name, or nil.
func (t *nameTable) get(name string, insts []*Instruction) *Instruction {
	if at := t.find(name, insts); at >= 0 {
		return insts[at]
	}
	return nil
}

// find returns the position in insts of the instruction named name, or -1.
func (t *nameTable) find(name string, insts []*Instruction) int {
	if t.n == 0 {
		return -1
	}
	if sl, found := t.slot(name, nameHash(name), insts); found {
		return int(sl.at)
	}
	return -1
}

// put maps name to insts[at] (replacing what it mapped to).
func (t *nameTable) put(name string, at int, insts []*Instruction) {
	t.add(name, at, insts).at = int32(at)
}

// add maps name to insts[at] unless it maps to an instruction already,
// and returns name's slot: a position, of insts[at] or of the earlier one.
func (t *nameTable) add(name string, at int, insts []*Instruction) *nameSlot {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	h := nameHash(name)
	sl, found := t.slot(name, h, insts)
	if !found {
		*sl = nameSlot{gen: t.gen, hash: h, at: int32(at)}
		t.n++
	}
	return sl
}

// slot returns the slot of name (of hash h) and true, or the empty slot
// where it goes and false.
func (t *nameTable) slot(name string, h uint32, insts []*Instruction) (*nameSlot, bool) {
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.gen != t.gen {
			return sl, false
		}
		if sl.hash == h && insts[sl.at].Name == name {
			return sl, true
		}
	}
}

// sizeFor makes the table empty, with room for n names without growing.
func (t *nameTable) sizeFor(n int) {
	size := 64
	for size < 2*(n+1) {
		size *= 2
	}
	t.slots = make([]nameSlot, size)
	t.n, t.gen = 0, 1 // a slot of generation 0 is empty
}

// grow doubles the table (or makes its first slots), keeping the entries
// of the current generation.
func (t *nameTable) grow() {
	old := t.slots
	t.slots = make([]nameSlot, max(64, 2*len(old)))
	gen := max(t.gen, 1)
	mask := uint32(len(t.slots) - 1)
	for _, sl := range old {
		if sl.gen != t.gen || t.gen == 0 {
			continue
		}
		i := sl.hash & mask
		for t.slots[i].gen == gen {
			i = (i + 1) & mask
		}
		t.slots[i] = sl
		t.slots[i].gen = gen
	}
	t.gen = gen
}
