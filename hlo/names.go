package hlo

// nameTable maps the names of the instructions of the computation being
// parsed to their positions in the parser's list of them. It is an
// open-addressing hash table (FNV-1a, linear probing, at most half full)
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

func nameHash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
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
	h := nameHash(name)
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.gen != t.gen {
			return -1
		}
		if sl.hash == h && insts[sl.at].Name == name {
			return int(sl.at)
		}
	}
}

// put maps name to insts[at] (replacing what it mapped to).
func (t *nameTable) put(name string, at int, insts []*Instruction) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	h := nameHash(name)
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.gen != t.gen {
			*sl = nameSlot{gen: t.gen, hash: h, at: int32(at)}
			t.n++
			return
		}
		if sl.hash == h && insts[sl.at].Name == name {
			sl.at = int32(at)
			return
		}
	}
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
