//! The rules of the tensor memory accelerator (`ldg = tma`,
//! `stencil/bulk.rs`): which stripes can come as boxes landing as the ring
//! holds them, how deep a ring of stripes read in place may be, the
//! 16-bit types' boxes, and the `mbarrier`s' bytes. Part of the one
//! constraints implementation, called from [`super::validate`].

use super::wgmma::wgmma_direct;
use super::{Field, Operand, ParamPath, Report, Rule, free_blk, violation};
use crate::spec::{GlobalLoad, KernelSpec};

/// Whether `spec`'s stripes can come by the tensor memory accelerator
/// (`ldg = tma`): a warp-specialized `wgmma` kernel (`producers = 1`)
/// whose operands are 16-byte aligned (`ldg_width` elements of 16 bytes:
/// the alignment of a tensor map's base and strides), each stripe a box
/// landing as the ring holds it ([`tma_box_fits`]). Any other `ldg`
/// passes.
///
/// A 16-bit kernel takes `ldg = tma` and nothing else: its operands go to
/// the tensor cores as the boxes land them ([`half_box_fits`]).
pub const fn tma_allowed(spec: &KernelSpec) -> bool {
    if !tma_stages_fit(spec) {
        return false;
    }
    if spec.precision.is_half() {
        return matches!(spec.ldg, GlobalLoad::Tma)
            && spec.wgmma().is_some()
            && spec.producers == 1
            && spec.ldg_width as u64 * spec.precision.element_bytes() as u64 == 16
            && half_box_fits(spec, Operand::A)
            && half_box_fits(spec, Operand::B);
    }
    !matches!(spec.ldg, GlobalLoad::Tma)
        || (spec.wgmma().is_some()
            && spec.producers == 1
            && spec.ldg_width as u64 * spec.precision.element_bytes() as u64 == 16
            && tma_box_fits(spec, Operand::A)
            && tma_box_fits(spec, Operand::B))
}

/// Whether a box of `operand`'s stripe lands as the ring holds it: a
/// K-contiguous stripe's rows are 128 bytes (the 128-byte swizzle), a box
/// at most 256 rows; a K-major stripe's rows (of `free_blk` elements and
/// the skew, [`super::smem_skew`]) at most 256 elements and a multiple of
/// 16 bytes.
pub const fn tma_box_fits(spec: &KernelSpec, operand: Operand) -> bool {
    let esz = spec.precision.element_bytes() as u64;
    let free = free_blk(spec, operand) as u64;
    if super::stripe_layout(spec, operand).k_contiguous() {
        spec.k_blk as u64 * esz == 128 && free <= 256
    } else {
        let row = free + super::smem_skew(spec, operand) as u64;
        row <= 256 && spec.k_blk <= 256 && (row * esz).is_multiple_of(16)
    }
}

/// The most stages of a TMA kernel whose consumers read both operands in
/// place ([`tma_stages_fit`]).
pub const TMA_IN_PLACE_MAX_STAGES: u32 = 3;

/// Whether a TMA kernel whose `wgmma`s read both operands in place has at
/// most [`TMA_IN_PLACE_MAX_STAGES`] stages (any other kernel passes). Its
/// consumers wait only for the copies' `mbarrier`s, so they may run up to
/// `stages − 1` stripes ahead of the producer's wait at `EMPTY`, whose
/// two named barriers alternate by stripe (`stencil/specialized.rs`): from
/// 4 stages on, a consumer's arrival for stripe `t + 2` could land while the
/// producer has not yet met the barrier's round of stripe `t`, and count
/// toward it. (Where the producer converts an operand, the consumers also
/// meet it at `FULL`, which keeps them at most one stripe ahead.)
pub const fn tma_stages_fit(spec: &KernelSpec) -> bool {
    let in_place = matches!(spec.ldg, GlobalLoad::Tma)
        && wgmma_direct(spec, Operand::A)
        && wgmma_direct(spec, Operand::B);
    !in_place || spec.stages <= TMA_IN_PLACE_MAX_STAGES
}

/// Whether the boxes of a 16-bit kernel's `operand` land as `wgmma` reads
/// them, both with the 128-byte swizzle: an operand whose K leads in
/// global memory is K-contiguous in the ring ([`super::stripe_layout`]),
/// rows of 128 bytes (`k_blk = 64`), one box of at most 256 rows; any
/// other is MN-major, boxes of 64 elements (128 bytes) along M or N by
/// `k_blk` rows (at most 256), side by side — so the tile's side is a
/// multiple of 64, and so is each `wgmma`'s `n` for B, whose columns then
/// span whole boxes.
pub const fn half_box_fits(spec: &KernelSpec, operand: Operand) -> bool {
    let free = free_blk(spec, operand) as u64;
    let lead_is_k = super::StripePlan::new(spec, operand).lead_is_k;
    let k_contiguous = super::stripe_layout(spec, operand).k_contiguous();
    if lead_is_k {
        k_contiguous && spec.k_blk as u64 * 2 == 128 && free <= 256
    } else {
        let n_fits = match (operand, spec.mma) {
            (Operand::B, Some(shape)) => shape.n.is_multiple_of(HALF_BOX),
            _ => true,
        };
        !k_contiguous && free.is_multiple_of(HALF_BOX as u64) && spec.k_blk <= 256 && n_fits
    }
}

/// Elements of a 16-bit MN-major box along M or N: 128 bytes, one
/// 128-byte swizzle atom's width.
pub const HALF_BOX: u32 = 64;

/// Bytes of the `mbarrier`s after a TMA kernel's rings: one a stage, 8
/// bytes each; 0 for any other kernel.
pub const fn tma_barrier_bytes(spec: &KernelSpec) -> u128 {
    if matches!(spec.ldg, GlobalLoad::Tma) { 8 * spec.stages as u128 } else { 0 }
}

/// [`Rule::Tma`], spanned on `ldg` (on `stages` for [`tma_stages_fit`]).
pub(super) fn check_tma(spec: &KernelSpec, out: &mut Report) {
    if tma_allowed(spec) {
        return;
    }
    if !tma_stages_fit(spec) {
        return violation(out, ParamPath::whole(Field::Stages), Rule::Tma, || {
            format!(
                "`stages` ({}) must be at most {TMA_IN_PLACE_MAX_STAGES} when the tensor memory accelerator feeds \
                 `wgmma`s that read both operands in place: their consumers may run `stages - 1` stripes \
                 ahead of the producer, past the two barriers that free the slots",
                spec.stages
            )
        });
    }
    violation(out, ParamPath::whole(Field::Ldg), Rule::Tma, || {
        let width = 16 / spec.precision.element_bytes();
        if spec.precision.is_half() && !matches!(spec.ldg, GlobalLoad::Tma) {
            format!(
                "{} operands come by the tensor memory accelerator straight to the tensor cores: set `ldg = \
                 tma` (with `producers = 1`)",
                spec.precision
            )
        } else if spec.wgmma().is_none() || spec.producers != 1 {
            "`ldg = tma` feeds a warp-specialized `wgmma` kernel (`math = tf32 | tf32x3`, `mma = (64, n, \
             8)`, `producers = 1`): use one, or another `ldg`"
                .to_owned()
        } else if spec.ldg_width != width {
            format!(
                "`ldg = tma` copies 16-byte aligned operands: set `ldg_width = {width}` (not {})",
                spec.ldg_width
            )
        } else if spec.precision.is_half() {
            format!(
                "a {} tensor map's box is 128 bytes wide: an operand whose K leads needs `tile.2 = 64`, any \
                 other a side of `tile` that is a multiple of 64 (and `mma.1` one for B) and `tile.2` up to \
                 256; `tile` ({}, {}, {}) does not fit",
                spec.precision, spec.m_blk, spec.n_blk, spec.k_blk
            )
        } else {
            format!(
                "a tensor map's box has rows of 128 bytes along K (`tile.2 = {}`) and at most 256 rows: \
                 `tile` ({}, {}, {}) does not fit",
                128 / spec.precision.element_bytes(),
                spec.m_blk,
                spec.n_blk,
                spec.k_blk
            )
        }
    });
}
