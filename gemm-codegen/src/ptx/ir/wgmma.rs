//! Hopper's warpgroup-level matrix multiply (`wgmma.mma_async`, sm_90a):
//! its shape, the accumulators' fragment layout, and the shared-memory
//! matrix descriptor with the canonical K-major layout it addresses — the
//! one description the code generator and the emulator share (PTX ISA
//! 9.7.15, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate").
//!
//! A *warpgroup* is four consecutive warps of a block (threads `128g …
//! 128g + 127`). `wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32 d,
//! a_desc, b_desc, scale_d, 1, 1` computes `D = A · B + (scale_d ? D : 0)`
//! with A a `64 × 8` and B an `8 × N` TF32 matrix in shared memory, each
//! named by a 64-bit [`SmemDesc`], and D a `64 × N` f32 matrix held `N / 2`
//! registers a thread ([`WgmmaShape::d_at`]): warp `q` of the warpgroup
//! holds rows `16q … 16q + 15`, so each warp's part of the product depends
//! only on its 16 rows of A and on all of B.
//!
//! The instruction is asynchronous: it reads its shared-memory operands and
//! writes D some time before the `wgmma.wait_group` that retires its
//! *wgmma-group* (closed by `wgmma.commit_group`). Until then D's registers
//! must not be read or written, nor the shared memory it reads written.
//! `wgmma.fence` orders earlier register accesses before a `wgmma`, and
//! `fence.proxy.async` makes earlier generic-proxy writes of shared memory
//! (`st.shared`, `cp.async`) visible to the async proxy that `wgmma` reads
//! through.
//!
//! # The K-major, non-swizzled layout
//!
//! For 32-bit elements (TF32) with K-major operands (A `M × K` and B
//! `N × K`, K contiguous, as the ISA requires of TF32), the canonical
//! layout without swizzle is made of *core matrices* of 8 rows × 16 bytes
//! (4 elements along K), each 128 contiguous bytes, row `r` at byte `16r`.
//! Core matrices adjacent along K are the *leading byte offset* (`lbo`)
//! apart, those adjacent along M or N (the next 8 rows) the *stride byte
//! offset* (`sbo`): element `(row, k)` sits at
//!
//! ```text
//! start + (row / 8)·sbo + (k / 4)·lbo + (row mod 8)·16 + (k mod 4)·4
//! ```
//!
//! (CuTe's `((8, m), (T, 2k)) : ((1T, SBO), (1, LBO))`, T = 4 elements.)
//! One `m64nNk8` reads two core matrices along K.
//!
//! # The K-major layout with the 128-byte swizzle
//!
//! Rows of 128 bytes (32 TF32 values), 8-row groups (*atoms* of 1024
//! bytes) `sbo` apart; the 16-byte chunk `c` of row `r` sits at chunk `c ^
//! (r mod 8)` of its row. The hardware applies the swizzle to the address
//! itself — bits 4–6 XOR bits 7–9 — so the atoms must start at addresses
//! aligned to 1024 (the descriptor's base offset 0), and the `wgmma` of a
//! later 8-deep step starts 32 bytes further into the rows:
//!
//! ```text
//! linear = start + (row / 8)·sbo + (row mod 8)·128 + k·4
//! address = linear ^ ((linear >> 7) mod 8) << 4
//! ```
//!
//! (CuTe's `Swizzle<3, 4, 3>` over `((8, m), (32, 1)) : ((32, SBO), (1, _))`;
//! `lbo` is unused while a `wgmma` stays within a row, and set to 16.)

/// Threads in a warpgroup.
pub const WARPGROUP: u32 = 128;

/// The fewest and most registers a thread `setmaxnreg` may ask for
/// ([`super::Instr::SetMaxNReg`]; multiples of 8).
pub const SETMAXNREG_MIN: u32 = 24;
pub const SETMAXNREG_MAX: u32 = 256;

/// Registers of a block on the architectures with `wgmma` and
/// `setmaxnreg` (sm_90a): the register file a block of `T` threads shares
/// out, and the pool its warps' limits come from.
pub const BLOCK_REGISTERS: u32 = 65536;

/// Registers each thread of a block of `threads` starts with where
/// `setmaxnreg` moves them (ptxas gives a kernel with `.reqntid` the
/// block's even share, in multiples of 8), at most [`SETMAXNREG_MAX`].
pub const fn register_share(threads: u32) -> u32 {
    let share = (BLOCK_REGISTERS / if threads == 0 { 1 } else { threads }) / 8 * 8;
    if share > SETMAXNREG_MAX { SETMAXNREG_MAX } else { share }
}

/// The type of A and B a `wgmma` multiplies (D is `.f32` for each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WgmmaInput {
    /// `.tf32`: 32-bit values, K-major only, `k = 8`.
    Tf32,
    /// `.f16`: IEEE half, either major, `k = 16`.
    F16,
    /// `.bf16`: bfloat16, either major, `k = 16`.
    Bf16,
}

impl WgmmaInput {
    /// Bytes of one element of A or B.
    pub const fn bytes(self) -> u32 {
        match self {
            WgmmaInput::Tf32 => 4,
            WgmmaInput::F16 | WgmmaInput::Bf16 => 2,
        }
    }

    /// The type's PTX name: `tf32`, `f16`, `bf16`.
    pub const fn name(self) -> &'static str {
        match self {
            WgmmaInput::Tf32 => "tf32",
            WgmmaInput::F16 => "f16",
            WgmmaInput::Bf16 => "bf16",
        }
    }

    /// Whether an operand of this type may be MN-major in shared memory
    /// (`imm-trans-a`/`imm-trans-b`): the 16-bit types only.
    pub const fn transposes(self) -> bool {
        !matches!(self, WgmmaInput::Tf32)
    }
}

/// The shape `m64nNkK` of a `wgmma` with f32 accumulators: `k = 8` for
/// TF32, 16 for the 16-bit types — always 32 bytes of each row of A and B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WgmmaShape {
    /// Columns of B and D: a multiple of 8 from 8 to 256.
    pub n: u32,
    /// The type of A and B.
    pub input: WgmmaInput,
}

impl WgmmaShape {
    /// Rows of A and D.
    pub const M: u32 = 64;
    /// Bytes of a row of A or B one `wgmma` reads along K: 8 TF32, 16
    /// 16-bit values.
    pub const K_BYTES: u32 = 32;
    /// The deepest `k` (of the 16-bit types).
    pub const K_MAX: u32 = 16;

    /// The TF32 shape with `n` columns, if there is one.
    pub const fn tf32(n: u32) -> Option<WgmmaShape> {
        WgmmaShape::new(WgmmaInput::Tf32, n)
    }

    /// The shape with `n` columns on `input`, if there is one.
    pub const fn new(input: WgmmaInput, n: u32) -> Option<WgmmaShape> {
        if n >= 8 && n <= 256 && n.is_multiple_of(8) { Some(WgmmaShape { n, input }) } else { None }
    }

    /// The depth: 8 for TF32, 16 for `f16` and `bf16`.
    pub const fn k(self) -> u32 {
        Self::K_BYTES / self.input.bytes()
    }

    /// Accumulator registers a thread holds: `N / 2`.
    pub const fn d_per_thread(self) -> u32 {
        self.n / 2
    }

    /// Where thread `thread` (0 … 127 of its warpgroup) holds its `i`-th
    /// accumulator, `(row, col)` of the `64 × N` D: warp `q = thread / 32`,
    /// lane `(g, t) = (lane / 4, lane mod 4)`: row `16q + g` (then `+ 8`),
    /// columns `2t`, `2t + 1` of each 8-column block `i / 4` — the layout of
    /// `mma.sync`'s `m16n8` accumulators, `N / 8` times side by side.
    pub const fn d_at(self, thread: u32, i: u32) -> (u32, u32) {
        let (warp, lane) = (thread / 32, thread % 32);
        (16 * warp + lane / 4 + 8 * ((i / 2) % 2), 2 * (lane % 4) + i % 2 + 8 * (i / 4))
    }

    /// Where thread `thread` (0 … 127) holds its `i`-th element of A
    /// (0 … 3) when A comes from registers (TF32 only), `(row, k)` of the
    /// `64 × 8` A: warp `q`, lane `(g, t)`: rows `16q + g` and `16q + g + 8`
    /// (`i` even, odd), k `t` and `t + 4` (`i` below 2, from 2) —
    /// `mma.sync`'s m16n8k8 TF32 A fragment, the warp's 16 rows.
    pub const fn a_at(self, thread: u32, i: u32) -> (u32, u32) {
        let (warp, lane) = (thread / 32, thread % 32);
        (16 * warp + lane / 4 + 8 * (i % 2), lane % 4 + 4 * (i / 2))
    }

    /// `m64n128k8`, as PTX writes it.
    pub fn name(self) -> String {
        format!("m{}n{}k{}", Self::M, self.n, self.k())
    }

    /// The instruction's types after its shape: `.f32.tf32.tf32`.
    pub fn types(self) -> String {
        format!(".f32.{0}.{0}", self.input.name())
    }
}

/// How a `wgmma` operand lies in shared memory: K-major (K contiguous, the
/// only form of TF32, `imm-trans = 0`) or MN-major (M or N contiguous,
/// 16-bit types, `imm-trans = 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Major {
    /// K contiguous.
    K,
    /// M (of A) or N (of B) contiguous.
    Mn,
}

/// The swizzling mode of a [`SmemDesc`] (bits 62–63).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescSwizzle {
    /// No swizzle: the interleaved core-matrix layout of the module docs.
    None = 0,
    /// 128-byte swizzle.
    B128 = 1,
    /// 64-byte swizzle.
    B64 = 2,
    /// 32-byte swizzle.
    B32 = 3,
}

/// A shared-memory matrix descriptor: a 64-bit value naming a `wgmma`
/// operand in shared memory. Addresses and offsets are in bytes; the
/// descriptor holds each divided by 16 in 14 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SmemDesc {
    /// The matrix's first byte, a shared-window address (16-byte aligned).
    pub start: u32,
    /// Leading byte offset: between core matrices adjacent along K.
    pub lbo: u32,
    /// Stride byte offset: between core matrices adjacent along M or N.
    pub sbo: u32,
    /// The swizzle's base offset (bits 49–51; 0 without swizzle).
    pub base_offset: u32,
    /// The swizzling mode.
    pub swizzle: DescSwizzle,
}

/// The 128-byte swizzle of a shared-memory address: the 16-byte chunk
/// (bits 4–6) XOR the 128-byte row within its 1024-byte atom (bits 7–9).
pub const fn swizzle_128(linear: u32) -> u32 {
    linear ^ (((linear >> 7) % 8) << 4)
}

/// A 14-bit descriptor field.
const FIELD: u64 = 0x3fff;

/// `matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4`.
const fn encode_field(x: u32) -> u64 {
    ((x as u64) & 0x3ffff) >> 4
}

impl SmemDesc {
    /// A non-swizzled K-major descriptor.
    pub const fn k_major(start: u32, lbo: u32, sbo: u32) -> SmemDesc {
        SmemDesc { start, lbo, sbo, base_offset: 0, swizzle: DescSwizzle::None }
    }

    /// A K-major descriptor with the 128-byte swizzle, atoms `sbo` apart
    /// (module docs).
    pub const fn k_major_sw128(start: u32, sbo: u32) -> SmemDesc {
        SmemDesc { start, lbo: 16, sbo, base_offset: 0, swizzle: DescSwizzle::B128 }
    }

    /// The 64-bit value: `start`, `lbo`, `sbo` encoded as the ISA's
    /// `matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4`.
    pub const fn encode(self) -> u64 {
        encode_field(self.start)
            | encode_field(self.lbo) << 16
            | encode_field(self.sbo) << 32
            | ((self.base_offset as u64) & 7) << 49
            | (self.swizzle as u64) << 62
    }

    /// The descriptor a 64-bit value holds (its unused bits ignored).
    pub const fn decode(bits: u64) -> SmemDesc {
        let swizzle = match bits >> 62 {
            0 => DescSwizzle::None,
            1 => DescSwizzle::B128,
            2 => DescSwizzle::B64,
            _ => DescSwizzle::B32,
        };
        SmemDesc {
            start: ((bits & FIELD) << 4) as u32,
            lbo: (((bits >> 16) & FIELD) << 4) as u32,
            sbo: (((bits >> 32) & FIELD) << 4) as u32,
            base_offset: ((bits >> 49) & 7) as u32,
            swizzle,
        }
    }

    /// The byte address of element `(row, k)` (`k < 8`, one step) of a
    /// K-major operand of 4-byte elements: [`SmemDesc::at`] for TF32.
    pub const fn k_major_tf32_at(self, row: u32, k: u32) -> Option<u32> {
        self.at(Major::K, 4, row, k)
    }

    /// The byte address of element `(row, k)` of one `wgmma`'s operand
    /// (`row` along M or N, `k < 32 / esz`) of `esz`-byte elements lying
    /// `major` (module docs): K-major without swizzle or with the 128-byte
    /// one (base offset 0); MN-major with the 128-byte swizzle, whose atoms
    /// are 8 K-rows of 64 2-byte elements along M or N (128 bytes), atoms
    /// adjacent along M or N `lbo` apart, along K `sbo` apart (CuTe's
    /// `Swizzle<3, 4, 3> ∘ ((8, m), (8, k)) : ((1, LBO), (8, SBO))` in
    /// 16-byte units). `None` for a layout gemmforge does not emit.
    pub const fn at(self, major: Major, esz: u32, row: u32, k: u32) -> Option<u32> {
        let per_chunk = 16 / esz;
        match (major, self.swizzle, self.base_offset) {
            (Major::K, DescSwizzle::None, _) => Some(
                self.start
                    + (row / 8) * self.sbo
                    + (k / per_chunk) * self.lbo
                    + (row % 8) * 16
                    + (k % per_chunk) * esz,
            ),
            (Major::K, DescSwizzle::B128, 0) => {
                Some(swizzle_128(self.start + (row / 8) * self.sbo + (row % 8) * 128 + k * esz))
            }
            (Major::Mn, DescSwizzle::B128, 0) if esz == 2 => Some(swizzle_128(
                self.start + (row / 64) * self.lbo + (k / 8) * self.sbo + (k % 8) * 128 + (row % 64) * 2,
            )),
            _ => None,
        }
    }

    /// An MN-major descriptor with the 128-byte swizzle (16-bit elements):
    /// atoms of 64 elements along M or N `lbo` apart, 8-deep K groups `sbo`
    /// apart ([`SmemDesc::at`]).
    pub const fn mn_major_sw128(start: u32, lbo: u32, sbo: u32) -> SmemDesc {
        SmemDesc { start, lbo, sbo, base_offset: 0, swizzle: DescSwizzle::B128 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_round_trip() {
        for (start, lbo, sbo) in [(0, 128, 1024), (0x3fff0, 16, 0x3fff0), (4096, 2048, 128)] {
            let d = SmemDesc::k_major(start, lbo, sbo);
            assert_eq!(SmemDesc::decode(d.encode()), d);
        }
        // The ISA's example: LBO 64 and SBO 32 TF32 elements encode as 16 and 8.
        let d = SmemDesc::k_major(0, 64 * 4, 32 * 4).encode();
        assert_eq!((d >> 16) & FIELD, 16);
        assert_eq!((d >> 32) & FIELD, 8);
        assert_eq!(SmemDesc::decode(1 << 62).swizzle, DescSwizzle::B128);
    }

    /// The 128-byte swizzle: chunk `c` of row `r` of an atom at `c ^ r`,
    /// a later step's start 32 bytes further along the row.
    #[test]
    fn the_128_byte_swizzle_permutes_each_rows_chunks() {
        let d = SmemDesc::k_major_sw128(2048, 1024);
        assert_eq!(SmemDesc::decode(d.encode()), d);
        assert_eq!(d.k_major_tf32_at(0, 0), Some(2048));
        // Row 3, k 4 (chunk 1): chunk 1 ^ 3 = 2 of row 3.
        assert_eq!(d.k_major_tf32_at(3, 4), Some(2048 + 3 * 128 + 2 * 16));
        // Row 9: the second atom, its row 1.
        assert_eq!(d.k_major_tf32_at(9, 1), Some(2048 + 1024 + 128 + 16 + 4));
        // Step 3 (k 24 .. 31, chunks 6 and 7) of row 5: chunk 6 ^ 5 = 3.
        let step = SmemDesc { start: 2048 + 96, ..d };
        assert_eq!(step.k_major_tf32_at(5, 2), Some(2048 + 5 * 128 + 3 * 16 + 8));
        for row in 0..16 {
            let mut chunks: Vec<u32> = (0..8)
                .map(|s| SmemDesc { start: d.start + 16 * s, ..d }.k_major_tf32_at(row, 0).unwrap())
                .collect();
            chunks.sort();
            let first = 2048 + (row / 8) * 1024 + (row % 8) * 128;
            assert_eq!(chunks, (0..8).map(|c| first + 16 * c).collect::<Vec<_>>(), "row {row}");
        }
        assert_eq!(SmemDesc { swizzle: DescSwizzle::B64, ..d }.k_major_tf32_at(0, 0), None);
        assert_eq!(SmemDesc { base_offset: 1, ..d }.k_major_tf32_at(0, 0), None);
    }

    /// The ISA's figure of the K-major non-swizzled TF32 layout: `((8, 2),
    /// (4, 4)) : ((4, 32), (1, 64))` in elements, LBO 64 and SBO 32 elements.
    #[test]
    fn k_major_layout_is_the_isa_example() {
        let d = SmemDesc::k_major(0, 64 * 4, 32 * 4);
        for row in 0..16 {
            for k in 0..16 {
                let element = (row % 8) * 4 + (row / 8) * 32 + (k % 4) + (k / 4) * 64;
                assert_eq!(d.k_major_tf32_at(row, k), Some(4 * element));
            }
        }
    }

    /// The 128 threads' A elements (from registers) cover the 64 × 8 A once.
    #[test]
    fn register_a_covers_a_once() {
        let shape = WgmmaShape::tf32(64).unwrap();
        let mut owned = [0u32; 64 * 8];
        for thread in 0..WARPGROUP {
            for i in 0..4 {
                let (row, k) = shape.a_at(thread, i);
                owned[(row * 8 + k) as usize] += 1;
            }
        }
        assert!(owned.iter().all(|&c| c == 1));
        let m16n8k8 = crate::ptx::MmaShape { m: 16, n: 8, k: 8 };
        for lane in 0..32 {
            for i in 0..4 {
                assert_eq!(shape.a_at(lane, i), m16n8k8.a_at(lane, i), "mma.sync's A fragment");
            }
        }
    }

    /// The 128 threads' accumulators cover the 64 × N tile once.
    #[test]
    fn accumulators_partition_the_tile() {
        for n in [8, 64, 128, 256] {
            let shape = WgmmaShape::tf32(n).unwrap();
            let mut owned = vec![0u32; (64 * n) as usize];
            for thread in 0..WARPGROUP {
                for i in 0..shape.d_per_thread() {
                    let (row, col) = shape.d_at(thread, i);
                    owned[(row * n + col) as usize] += 1;
                }
            }
            assert!(owned.iter().all(|&c| c == 1), "n = {n}");
        }
        assert_eq!(WgmmaShape::tf32(12), None);
        assert_eq!(WgmmaShape::tf32(264), None);
    }
}
