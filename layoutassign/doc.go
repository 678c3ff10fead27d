// Package layoutassign chooses array layouts for a target: the TPU tiling
// rules today, the layout propagation pass and the memory report later.
//
// Tiling rules (ChooseTiling; each Rule names its source). With p = 32/bits
// elements packed in a 32-bit word (p = 1 for 32-bit types):
//
//   - rank 0: T(128*p) (f32[] T(128), bf16[] T(256), pred[] T(512));
//   - rank 1: T(rows*128), followed by (128)(p,1) for packed types, rows
//     the smallest power of two from p that reaches ceil(n/128), capped at
//     max(8,p) (f32[4096] T(1024), bf16[128] T(256)(128)(2,1));
//   - rank >= 2: (rows,128) over the two most minor physical dims, followed
//     by (p,1) for packed types, rows growing from p by doubling until it
//     covers the second-minor dim, capped at max(8,p): 32-bit 1,2,4,8;
//     16-bit 2,4,8; 8-bit 4,8; sub-byte p (with E(bits)). These are the
//     "compact 2nd minor" (1x128, 2x128, 4x128), 8x128, (8,128)(2,1) and
//     (8,128)(4,1) formats of tiled-layout.md, with XLA TPU's (1,128) for a
//     32-bit second-minor dim of 1 as the corpus shows;
//   - PRED is tiled as an integer of the target's PRED size (1 byte by
//     default, as in the corpus: (8,128)(4,1)); 4-byte PRED as 32-bit; the
//     proposed packed form is (32,128)(32,1) with E(1);
//   - GPU and CPU: no tiles; sub-byte types get E(bits).
//
// MemoryCost gives unpadded and padded bytes of a shape on a target, and
// Suggest proposes a minor_to_major or a reshape that reduces the padding
// of a badly padded array.
package layoutassign
