//! How each operand's stripe is laid out in shared memory: part of the one
//! constraints implementation, since the layout decides the shared memory a
//! spec needs ([`super::smem_stage_bytes`]).
//!
//! Every stripe is `k_blk` deep along K and `free_blk` (`tile.0` for A,
//! `tile.1` for B) wide. It is stored one of two ways:
//!
//! - **K-major**, `[k][free]`: `k_blk` rows of `free_blk + skew` elements.
//!   What the FMA step reads (a column of A and a row of B per k), and what a
//!   tensor-core step reads of an operand whose free dimension leads in
//!   global memory: the copies move runs along the free dimension, the
//!   fragment loads 16 bytes of consecutive rows (columns) at one k.
//! - **K-contiguous**, `[free][k]`: `free_blk` rows of `k_blk` elements, no
//!   skew. For a tensor-core math and an operand whose K leads in global
//!   memory (A for op T/C, B for op N): its runs along K are copied as they
//!   are (16 bytes at once) instead of being transposed one element per
//!   copy, which bounded the TF32 kernels (1xTF32 SGEMM 122 TFLOP/s NT but
//!   64 TN on the H100, `tuning/sm_90-tf32/explore2`). A lane then reads
//!   its `K/4` k-elements of a fragment row as one load, because the step
//!   numbers its k slots so that lane `(g, t)` holds stripe rows `(K/4)·t
//!   … (K/4)·t + K/4 − 1` where the PTX ISA's fragments say `t, t + 4, …`
//!   (an `mma` sums over k, so any order both operands share gives the same
//!   products; see `stencil/mma.rs`).
//!
//! A K-contiguous stripe's 16-byte chunks are XOR-swizzled so that the
//! fragment loads meet no bank conflicts: chunk `c` of row `f` (counted
//! from the stripe's start, 16 bytes each) sits at chunk `c ^ G·((f / d) mod
//! R)`. A warp's fragment load of `λ = (K/4)·esz` bytes a lane is served
//! in wavefronts of `128 / λ` lanes, `R = 32 / λ` rows of `G = λ / 4`
//! chunks; the rows of consecutive `g` are `d` apart (a lane's run of
//! `lds_width` rows, 1 for c64), so the `R` rows of one wavefront get the
//! `R` distinct masks and together cover all eight chunks of 128 bytes.
//! With rows a multiple of 128 bytes the mask only touches a row's own
//! chunks (and a step's `G`-chunk group), so it is a permutation of each
//! row and a copy never straddles two rows. A `wgmma` kernel reads its
//! stripes only to convert them (`stencil/wgmma.rs`), one chunk of each of
//! 8 consecutive rows at once: its mask is `f mod 8` (`G = d = 1`, `R = 8`).

use super::{Operand, StripePlan, mma_lds_width};
use crate::spec::KernelSpec;

/// The layout of one operand's stripe in shared memory (see the module
/// doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StripeLayout {
    /// `[k][free]`, rows of `free_blk + skew` elements.
    KMajor,
    /// `[free][k]`, rows of `k_blk` elements, chunks swizzled.
    KContiguous(Swizzle),
}

/// The XOR swizzle of a K-contiguous stripe: 16-byte chunk `c` of row `f`
/// is stored at chunk `c ^ chunks · ((f / rows) mod period)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swizzle {
    /// `G`: chunks a row gives one wavefront of a fragment load (1, 2 or 4).
    pub chunks: u32,
    /// `d`: rows between the rows of consecutive lanes `g`.
    pub rows: u32,
    /// `R = 8 / G`: rows one wavefront reads.
    pub period: u32,
}

impl Swizzle {
    /// The mask XORed into the chunk index of a chunk of row `f`.
    pub const fn mask(&self, f: u32) -> u32 {
        self.chunks * ((f / self.rows) % self.period)
    }

    /// The stored byte offset of logical byte `offset` of a stripe whose
    /// rows are `row_bytes` long (a multiple of 128).
    pub const fn place(&self, offset: u32, row_bytes: u32) -> u32 {
        let f = offset / row_bytes;
        ((offset / 16) ^ self.mask(f)) * 16 + offset % 16
    }
}

impl StripeLayout {
    /// Whether K is contiguous.
    pub const fn k_contiguous(&self) -> bool {
        matches!(self, StripeLayout::KContiguous(_))
    }
}

/// How `spec` lays `operand`'s stripe out in shared memory: K-contiguous
/// exactly when every condition below holds, K-major otherwise. Exact and
/// panic-free for any field values.
///
/// - a tensor-core math with its shape, and K leading the operand in
///   global memory;
/// - a lane's `K/4` k-elements are 4, 8 or 16 bytes (one load);
/// - a row is a whole number of 128-byte lines (`k_blk · esz`), and so is
///   a trip of the loop over the stripe (`unroll`), so the swizzle's masks
///   stay on a row's chunks and move with the read pointers;
/// - a thread's copies sit at fixed offsets from its first one: its runs
///   along K (`ldg_width` elements, `load.0` threads apart) are whole lines
///   apart, and its rows (`load.1` apart) a whole swizzle period.
pub const fn stripe_layout(spec: &KernelSpec, operand: Operand) -> StripeLayout {
    let (Some(shape), true) = (spec.mma, spec.math.is_mma()) else { return StripeLayout::KMajor };
    let stripe = StripePlan::new(spec, operand);
    let load = stripe.shape;
    let esz = spec.precision.element_bytes() as u64;
    let lane_bytes = (shape.k / 4) as u64 * esz;
    let copy_bytes = spec.ldg_width as u64 * esz;
    let wgmma = spec.wgmma().is_some();
    if !stripe.lead_is_k
        || !(wgmma || matches!(lane_bytes, 4 | 8 | 16))
        || copy_bytes > 16
        || load.lead == 0
        || load.cross == 0
        || spec.ldg_width == 0
    {
        return StripeLayout::KMajor;
    }
    // A `wgmma` kernel's conversion reads one 16-byte chunk of each of 8
    // consecutive rows at once: every row of 8 its own mask.
    let chunks = if wgmma { 1 } else { (lane_bytes / 4) as u32 };
    let period = 8 / chunks;
    // A lane's run of rows: its 16-byte load of a K-major stripe (c64's one).
    let rows = if wgmma { 1 } else { mma_lds_width(spec.precision) };
    let row_bytes = spec.k_blk as u64 * esz;
    let trip_bytes = spec.unroll_steps() as u64 * esz;
    let runs = stripe.per_thread_lead / spec.ldg_width;
    let runs_apart = load.lead as u64 * copy_bytes;
    let fits = row_bytes != 0
        && row_bytes.is_multiple_of(128)
        && trip_bytes.is_multiple_of(128)
        && (runs <= 1 || runs_apart.is_multiple_of(128))
        && (stripe.per_thread_cross <= 1 || (load.cross as u64).is_multiple_of(rows as u64 * period as u64));
    if fits { StripeLayout::KContiguous(Swizzle { chunks, rows, period }) } else { StripeLayout::KMajor }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Math, Op, Precision, Target, WarpShape};

    /// A tensor-core SGEMM (tf32x3, 128 × 128 × 32 on 2 × 2 warps) with
    /// the given ops and loads.
    fn sgemm(ops: (Op, Op), load_a: (u32, u32), load_b: (u32, u32)) -> KernelSpec {
        KernelSpec {
            lds_width: 4,
            ldg_width: 4,
            arch: Target::Sm90,
            stages: 3,
            warps: Some(WarpShape { m: 2, n: 2 }),
            math: Math::Tf32x3,
            mma: Math::Tf32x3.mma_kind().and_then(|k| k.shape(16, 8, 8)),
            ..KernelSpec::new(Precision::F32, ops, (128, 128, 32), (16, 8), load_a, load_b)
        }
    }

    #[test]
    fn only_k_leading_operands_of_tensor_core_maths_are_k_contiguous() {
        let tn = sgemm((Op::T, Op::N), (8, 16), (8, 16));
        assert!(stripe_layout(&tn, Operand::A).k_contiguous());
        assert!(stripe_layout(&tn, Operand::B).k_contiguous());
        let nt = sgemm((Op::N, Op::T), (32, 4), (32, 4));
        assert_eq!(stripe_layout(&nt, Operand::A), StripeLayout::KMajor);
        assert_eq!(stripe_layout(&nt, Operand::B), StripeLayout::KMajor);
        let fma = KernelSpec { math: Math::Fma, mma: None, warps: None, ..tn };
        assert_eq!(stripe_layout(&fma, Operand::A), StripeLayout::KMajor);
    }

    #[test]
    fn copies_that_would_straddle_the_swizzle_keep_k_major() {
        // Two runs of 4 f32 per thread, 64 bytes apart: not whole lines.
        let tn = sgemm((Op::T, Op::N), (4, 32), (8, 16));
        assert_eq!(stripe_layout(&tn, Operand::A), StripeLayout::KMajor);
        assert!(stripe_layout(&tn, Operand::B).k_contiguous());
        // A trip of 8 k rows is 32 bytes, not a line.
        let looped = KernelSpec { unroll: Some(8), ..sgemm((Op::T, Op::N), (8, 16), (8, 16)) };
        assert_eq!(stripe_layout(&looped, Operand::A), StripeLayout::KMajor);
    }

    /// Every row's chunks are permuted among themselves, and one wavefront
    /// of a warp's fragment loads (`R` rows `d` apart, `G` chunks each)
    /// covers the eight chunks of 128 bytes: no bank conflict.
    #[test]
    fn the_swizzle_is_a_permutation_and_spreads_a_wavefront() {
        for (chunks, rows) in [(1, 4), (2, 4), (2, 2), (4, 2), (4, 1)] {
            let z = Swizzle { chunks, rows, period: 8 / chunks };
            for row_bytes in [128, 256] {
                for f in 0..64 {
                    let mut seen: Vec<u32> =
                        (0..row_bytes / 16).map(|c| z.place(f * row_bytes + 16 * c, row_bytes)).collect();
                    seen.sort_unstable();
                    let want: Vec<u32> = (0..row_bytes / 16).map(|c| f * row_bytes + 16 * c).collect();
                    assert_eq!(seen, want, "row {f} of {row_bytes} bytes, {z:?}");
                }
                for base in [0, rows * z.period, 3 * rows * z.period] {
                    for group in 0..row_bytes / (16 * chunks) {
                        let mut banks: Vec<u32> = (0..z.period)
                            .flat_map(|g| {
                                let f = base + g * rows;
                                (0..chunks).map(move |c| f * row_bytes + 16 * (group * chunks + c))
                            })
                            .map(|offset| (z.place(offset, row_bytes) / 16) % 8)
                            .collect();
                        banks.sort_unstable();
                        assert_eq!(banks, (0..8).collect::<Vec<_>>(), "{z:?}, {row_bytes}-byte rows");
                    }
                }
            }
        }
    }
}
