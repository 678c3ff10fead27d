package layoutassign

import (
	"fmt"
	"math"
	"strings"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// Backend is the kind of machine a Target describes.
type Backend uint8

// The backends. Only TPU tiles its arrays; GPU and CPU use plain
// minor_to_major layouts.
const (
	BackendTPU Backend = iota
	BackendGPU
	BackendCPU
)

// String returns "tpu", "gpu" or "cpu".
func (b Backend) String() string {
	switch b {
	case BackendTPU:
		return "tpu"
	case BackendGPU:
		return "gpu"
	case BackendCPU:
		return "cpu"
	}
	return fmt.Sprintf("Backend(%d)", uint8(b))
}

// Target is the machine whose tiling rules and element sizes apply.
type Target struct {
	Backend Backend
	// PredBytes is the storage size of one PRED element: 1 (used when 0)
	// is XLA's CPU/GPU default and what the TPU dumps in the corpus show
	// (PRED tiled like an 8-bit type, (8,128)(4,1)); 4 is the size the TPU
	// tiled-layout document gives, and PRED is then tiled like a 32-bit
	// type. SEED-ERRATA's PRED note asks for it to be a target property.
	PredBytes int64
	// PackedPred selects the 1-bit PRED format (32,128)(32,1) with E(1)
	// that tiled-layout.md ("TPU 1 bit tile format") proposes; it
	// overrides PredBytes for tiling and size.
	PackedPred bool
	// Device names the device the memory report checks the program
	// against (hlo-opt --device), HBMBytes its HBM capacity; without one
	// the report gives no fits/exceeds verdict.
	Device   string
	HBMBytes int64
	// VMEMBytes and SMEMBytes are the TPU's vector and scalar memories
	// (S(1), S(2)) of one TensorCore; 0 when not known.
	VMEMBytes, SMEMBytes int64
	// HeapAlignment aligns the temporaries in the preallocated temp heap;
	// 0 takes the backend's (see heapAlignment).
	HeapAlignment int64
	// AsyncFromOuterStart makes the values of a computation run by an
	// async op live from the start of the computation the async op is in,
	// as XLA's HloLiveRange does at its head (openxla/xla c38f167,
	// "Extend start_time backward to the outer computation's start").
	// The XLA of jax 0.11.2, whose compiles are in testdata/groundtruth,
	// starts them at their definition, as the default does.
	AsyncFromOuterStart bool
	// TupleTableAlign is the alignment of a TPU tuple's index table in
	// bytes: 512 (used when 0) on TPU v5e, 32 on v6e ("tpu-v6e").
	TupleTableAlign int64
	// AlternateSpace is the memory space of the TPU's memory-space
	// assignment, whose heap trace XLA's peak replays as that pass
	// exports it (see MemoryReport.XLAPeakBytes): 1, VMEM (used when 0);
	// 3 on TPU v4 ("tpu-v4"), whose compiles place in S(3) what v5e's and
	// v6e's place in S(1) (xla-diff seeds 1000-1139, 5000-5299).
	AlternateSpace int64
}

// alternateSpace is t.AlternateSpace or its default.
func (t Target) alternateSpace() int64 {
	if t.AlternateSpace > 0 {
		return t.AlternateSpace
	}
	return 1
}

// heapAlignment is the alignment of the temporaries of memory space
// space in their heap and in the preallocated temp allocation (XLA's
// color_alignment): 256 bytes on the GPU (the offsets of XLA's buffer
// assignments in testdata/groundtruth/*/h100-measured are multiples of
// 256, and two small values sit 256 bytes apart), 64 on the CPU (XLA's
// minimum CPU buffer alignment). On the TPU, as the TPU v5e buffer
// assignments XLA dumps place them: 16 KiB in HBM (512-byte tuple tables
// at offsets 16 KiB apart), 4 KiB in VMEM (two 1 KiB arrays 4 KiB apart),
// 4 bytes in S(2) (its 4-byte sync flags side by side), 512 bytes (a
// 128-word tile row) in the other spaces.
func (t Target) heapAlignment(space int64) int64 {
	if t.HeapAlignment > 0 {
		return t.HeapAlignment
	}
	switch t.Backend {
	case BackendGPU:
		return 256
	case BackendCPU:
		return 64
	}
	switch space {
	case 0:
		return 16 << 10
	case 1:
		return 4 << 10
	case 2:
		return 4
	}
	return 512
}

// TPU is the TPU target with 1-byte PRED elements.
func TPU() Target { return Target{Backend: BackendTPU, PredBytes: 1} }

// GPU is the GPU target: untiled layouts, 1-byte PRED.
func GPU() Target { return Target{Backend: BackendGPU, PredBytes: 1} }

// CPU is the CPU target: untiled layouts, 1-byte PRED.
func CPU() Target { return Target{Backend: BackendCPU, PredBytes: 1} }

// String names the target and its PRED size: "tpu(pred=1B)",
// "tpu(pred=1b packed)".
func (t Target) String() string {
	if t.PackedPred {
		return t.Backend.String() + "(pred=1b packed)"
	}
	return fmt.Sprintf("%s(pred=%dB)", t.Backend, t.predBytes())
}

func (t Target) predBytes() int64 {
	if t.PredBytes > 0 {
		return t.PredBytes
	}
	return 1
}

// SizeOptions are the hlo byte-size options of the target (its PRED size;
// no tuple index tables).
func (t Target) SizeOptions() hlo.SizeOptions {
	return hlo.SizeOptions{PredBytes: t.predBytes()}
}

// elementBits is the stored width of one element of type pt on t.
func (t Target) elementBits(pt hlo.PrimitiveType) int64 {
	if pt == hlo.PRED {
		if t.PackedPred {
			return 1
		}
		return 8 * t.predBytes()
	}
	return int64(pt.BitWidth())
}

// Rule is one tiling rule of a target, with a stable name (used in reports
// and tests) and the source it is taken from.
type Rule struct {
	Name string
	Doc  string
}

// String returns the rule's name.
func (r Rule) String() string { return r.Name }

// The tiling rules. Doc cites the seed section (tiled-layout.md), the
// semantics notes (SEMANTICS-cost-and-layout.md, section c.4) or the XLA TPU
// layouts seen in the corpus (maxtext__reference_hlo_*.hlo, after
// optimizations).
var (
	RuleUntiled = Rule{"untiled",
		"No tiles: minor_to_major only (tiled-layout.md, \"Untiled format\"; XLA's CPU and GPU layouts)."}
	RuleInvalidLayout = Rule{"invalid-layout",
		"The shape's minor_to_major is not a permutation of its dims: no tiles are chosen (hlo.Tiled reports the error)."}
	RuleUntiledSubByte = Rule{"untiled-subbyte",
		"No tiles; a sub-byte type gets its width as E(n) so elements are packed (corpus: s4[100,9]{1,0:E(4)} in the GPU lit tests)."}
	RuleTPUScalar = Rule{"tpu-scalar",
		"Rank 0: one linear tile of 128 32-bit words, T(128*32/bits) (corpus: f32[]/s32[]/u32[] T(128), bf16[] T(256), pred[] T(512))."}
	RuleTPURank1 = Rule{"tpu-rank1",
		"Rank 1, 32-bit: T(rows*128) with rows 1,2,4,8 the smallest power of two >= ceil(n/128), at most 8 (corpus: f32[64] T(128), s32[256] T(256), f32[512] T(512), f32[4096] T(1024); Mosaic's 1-D rule, SEMANTICS c.4)."}
	RuleTPURank1Packed = Rule{"tpu-rank1-packed",
		"Rank 1, narrower than 32 bits with packing p=32/bits: T(rows*128)(128)(p,1), rows starting at p and doubling up to ceil(n/128), at most max(8,p) (corpus: bf16[128] T(256)(128)(2,1), bf16[512] T(512)(128)(2,1), bf16[1536] T(1024)(128)(2,1), s8[4194304] T(1024)(128)(4,1))."}
	RuleTPU32Bit = Rule{"tpu-32bit-8x128",
		"32-bit, second-minor dim >= 5: (8,128), the 32-bit vector register (tiled-layout.md, \"TPU tile format\"; corpus: 376+ f32 shapes). c64, which XLA's TPU compiler keeps as two f32 arrays (X64Combine), is tiled as 32-bit, the compact tiles too (the differential tester's TPU dumps: 3000+ c64 arrays, c64[...,1,...] T(1,128), [...,2,...] T(2,128), [...,3,...] T(4,128))."}
	RuleTPU16Bit = Rule{"tpu-16bit-8x128-2x1",
		"16-bit, second-minor dim >= 5: (8,128)(2,1), an even and an odd row packed in one 32-bit word (tiled-layout.md, \"TPU 16 bit tile format\"; corpus: bf16)."}
	RuleTPU8Bit = Rule{"tpu-8bit-8x128-4x1",
		"8-bit, second-minor dim >= 5: (8,128)(4,1), four rows in one 32-bit word (tiled-layout.md, \"TPU 8 bit tile format\"; corpus: pred[1,128,128256] T(8,128)(4,1))."}
	RuleTPUSubByte = Rule{"tpu-subbyte-packed",
		"Sub-byte types (4, 2, 1 bit), p=32/bits: (max(8,p),128)(p,1) with E(bits) (extrapolated from Mosaic's memref tiling, SEMANTICS c.4, and the (32,128)(32,1) 1-bit format of tiled-layout.md; not in the corpus)."}
	RuleTPUCompact1x128 = Rule{"tpu-compact-1x128",
		"32-bit, second-minor dim 1: (1,128) (corpus: f32[1,128,1,1]{1,3,2,0:T(1,128)}, s32[1,1,128] T(1,128), u32[1,4] T(1,128); tiled-layout.md says 2x128, XLA TPU uses 1x128 for 32-bit)."}
	RuleTPUCompact2x128 = Rule{"tpu-compact-2x128",
		"Second-minor dim 1-2 (32-bit: exactly 2; 16-bit: (2,128)(2,1)): tiled-layout.md, \"TPU small tile format\" (corpus: bf16[...,1] and [...,2] T(2,128)(2,1))."}
	RuleTPUCompact4x128 = Rule{"tpu-compact-4x128",
		"Second-minor dim 3-4 (16-bit adds (2,1)), and 1-4 for 8-bit types ((4,128)(4,1), the packing needs 4 rows): tiled-layout.md, \"TPU small tile format\" (corpus: f32[1536,3]{0,1:T(4,128)}, bf16[4,4096] T(4,128)(2,1), s8[1,1,1] T(4,128)(4,1))."}
	RuleTPUPred = Rule{"tpu-pred",
		"PRED of rank >= 2: tiled as an integer of the target's PRED size: 1 byte gives the 8-bit tiles (4 or 8,128)(4,1) (corpus: pred[1,128,1] T(4,128)(4,1), pred[1,128,128256] T(8,128)(4,1)), 4 bytes the 32-bit tiles, packed PRED (32,128)(32,1) E(1) (tiled-layout.md, \"TPU 1 bit tile format\")."}
	RuleTPUWide = Rule{"tpu-wide-8x128",
		"Types wider than 32 bits but c64 (s64, f64, c128): (8,128), assumed (no public source or corpus evidence for the TPU format: JAX's TPU programs do not use them)."}
	RuleTPUVectorRegisters = Rule{"tpu-vector-registers",
		"Kept in vector registers of 1024 elements (8 sublanes of 128 lanes), sized as whole registers: the values XLA's TPU compile leaves without a layout in a laid-out module (a sort's comparator, some reducers), and untiled arrays of memory spaces S(4) and S(6) (XLA's buffer assignments: f32[] 4096 bytes, pred[] and pred[]{:S(6)} 1024, s32[2]{0:S(4)} 4096)."}
)

// Rules lists every rule ChooseTiling applies, for documentation and
// reports (RuleFromLayout, RuleUnbounded and RuleTPUVectorRegisters size
// arrays without choosing tiles).
func Rules() []Rule {
	return []Rule{RuleUntiled, RuleInvalidLayout, RuleUntiledSubByte, RuleTPUScalar, RuleTPURank1, RuleTPURank1Packed,
		RuleTPU32Bit, RuleTPU16Bit, RuleTPU8Bit, RuleTPUSubByte, RuleTPUCompact1x128,
		RuleTPUCompact2x128, RuleTPUCompact4x128, RuleTPUPred, RuleTPUWide}
}

// packing is how many elements of the given width share a 32-bit word.
func packing(bits int64) int64 {
	if bits <= 0 || bits >= 32 {
		return 1
	}
	return 32 / bits
}

// tileRows is the number of rows of a (rows,128) tile for a second-minor
// dim of size n with packing p: rows start at p and double while they are
// below min(n, max(8, p)). This reproduces XLA TPU's choices in the corpus
// (f32: 1,2,4,8; bf16: 2,4,8; 8-bit: 4,8) and is the rule of Mosaic's
// memref tiling (SEMANTICS c.4).
func tileRows(n, p int64) int64 {
	if n < 0 {
		// An unbounded dynamic size ("?", or a tile count derived from
		// one) may be any size at run time: full tiles.
		n = math.MaxInt64
	}
	rows := p
	for rows < min(n, max(8, p)) {
		rows *= 2
	}
	return rows
}

// ChooseTiling returns the tiles the target uses for an array shape whose
// minor_to_major is already chosen (the shape's own tiles are ignored), the
// element size to record as E(n) (0 for the type's natural width), and the
// rule that decided. Non-array shapes and non-TPU targets get no tiles.
func ChooseTiling(shape hlo.Shape, target Target) (tiles []hlo.Tile, elementSizeBits int64, rule Rule) {
	if !shape.IsArray() {
		return nil, 0, RuleUntiled
	}
	if !hlo.IsPermutation(shape.MinorToMajor(), shape.Rank()) {
		return nil, 0, RuleInvalidLayout
	}
	bits := target.elementBits(shape.Type)
	subByte := bits < 8
	if subByte && !(shape.Type == hlo.PRED && !target.PackedPred) {
		elementSizeBits = bits
	}
	if target.Backend != BackendTPU {
		if subByte && shape.Type != hlo.PRED {
			return nil, elementSizeBits, RuleUntiledSubByte
		}
		return nil, 0, RuleUntiled
	}
	if shape.Type == hlo.C64 {
		bits = 32 // two f32 arrays
	}
	p := packing(bits)
	// pack returns the tiles (a) or (a,b), followed by (p,1) for packed
	// types, in two allocations.
	pack := func(first ...int64) []hlo.Tile {
		buf := make([]int64, 0, len(first)+2)
		out := make([]hlo.Tile, 0, 2)
		buf = append(buf, first...)
		out = append(out, buf[:len(first):len(first)])
		if p > 1 {
			buf = append(buf, p, 1)
			out = append(out, buf[len(first):len(first)+2:len(first)+2])
		}
		return out
	}
	switch rank := shape.Rank(); rank {
	case 0:
		return []hlo.Tile{{128 * p}}, elementSizeBits, RuleTPUScalar
	case 1:
		rows := tileRows(ceilDiv(shape.Dims[0], 128), p)
		if p > 1 {
			return []hlo.Tile{{rows * 128}, {128}, {p, 1}}, elementSizeBits, RuleTPURank1Packed
		}
		return []hlo.Tile{{rows * 128}}, elementSizeBits, RuleTPURank1
	}
	m2m := shape.MinorToMajor()
	second := shape.Dims[m2m[1]]
	rows := tileRows(second, p)
	tiles = pack(rows, 128)
	switch {
	case shape.Type == hlo.PRED:
		rule = RuleTPUPred
	case bits > 32:
		return []hlo.Tile{{8, 128}}, 0, RuleTPUWide
	case subByte:
		rule = RuleTPUSubByte
	case rows == 1:
		rule = RuleTPUCompact1x128
	case rows == 2:
		rule = RuleTPUCompact2x128
	case rows == 4:
		rule = RuleTPUCompact4x128
	case bits == 32:
		rule = RuleTPU32Bit
	case bits == 16:
		rule = RuleTPU16Bit
	default:
		rule = RuleTPU8Bit
	}
	return tiles, elementSizeBits, rule
}

// WithTiling returns a copy of the array shape with the target's tiles and
// element size written into its layout (a default layout is created when it
// has none). Tuples get every leaf tiled.
func WithTiling(shape hlo.Shape, target Target) hlo.Shape {
	out := shape.Clone()
	if out.IsTuple() {
		for i := range out.Tuple {
			out.Tuple[i] = WithTiling(out.Tuple[i], target)
		}
		return out
	}
	if !out.IsArray() {
		return out
	}
	tiles, ebits, _ := ChooseTiling(out, target)
	if out.Layout == nil {
		out.Layout = hlo.DefaultLayout(out.Rank())
	}
	out.Layout.Tiles = tiles
	out.Layout.ElementSizeBits = ebits
	return out
}

// ceilDiv is ceil(a/b) for b > 0; a+b-1 could overflow.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b > 0 {
		q++
	}
	return q
}

// ParseTarget returns the target named "tpu", "gpu" or "cpu" (the
// --target flag), with 1-byte PRED; "tpu-pred4" is the TPU with 4-byte
// PRED of the tiled-layout document, "tpu-v6e" the TPU with v6e's 32-byte
// tuple table alignment, "tpu-v4" the TPU with v4's alternate memory
// space.
func ParseTarget(name string) (Target, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "tpu", "":
		return TPU(), nil
	case "tpu-v6e":
		t := TPU()
		t.TupleTableAlign = 32
		return t, nil
	case "tpu-v4":
		t := TPU()
		t.AlternateSpace = 3
		return t, nil
	case "tpu-pred4":
		t := TPU()
		t.PredBytes = 4
		return t, nil
	case "gpu":
		return GPU(), nil
	case "cpu":
		return CPU(), nil
	}
	return Target{}, fmt.Errorf("unknown target %q (want tpu, tpu-v4, tpu-v6e, tpu-pred4, gpu or cpu)", name)
}

// TupleTableBytes is the size of the index table of a tuple of n elements,
// the buffer XLA allocates for a tuple-shaped value: one 8-byte pointer per
// element on GPU and CPU (ShapeUtil::ByteSizeOf with pointer size 8); on
// TPU one 4-byte entry per element, rounded up to TupleTableAlign bytes
// (XLA's buffer assignments of the ground-truth programs: 512 on v5e, 32
// on v6e; an empty tuple has no table).
func (t Target) TupleTableBytes(n int) int64 {
	if t.Backend != BackendTPU {
		return 8 * int64(n)
	}
	align := t.TupleTableAlign
	if align <= 0 {
		align = 512
	}
	return ceilDiv(4*int64(n), align) * align
}
