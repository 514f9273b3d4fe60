//! The hard constraints of the inner product's math: `math` and `mma`, and
//! what a tensor-core math asks of the threads, the tile and the stripe.
//! Part of the one constraints implementation: [`super::validate_with`]
//! calls [`check`], and the search space uses the public predicates.
//!
//! A tensor-core kernel (`dmma`, `tf32`, `tf32x3`) gives each warp a
//! `tile.0 / warps.0 × tile.1 / warps.1` part of the C tile, which it
//! computes with `mma.sync` fragments. Its 32 lanes are the fragments' 8 × 4
//! grid (`g = lane / 4` along M, `t = lane mod 4` along N), so the block's
//! thread grid is `(8 · warps.0, 4 · warps.1)` and each thread owns `tile.0
//! / threads.0` rows and `tile.1 / threads.1` columns of C, as in every
//! stencil kernel. Each lane reads its fragments of a K-major stripe 16
//! bytes at once (`lds_width` = 2 f64, 1 c64, 4 f32, 2 c32), so a warp tile
//! is a whole number of blocks of 8 such runs: 16 × 16 for f64, c64 and
//! c32, 32 × 32 for f32 (see `stencil/mma.rs`; a K-contiguous stripe, see
//! `layout.rs`, keeps the same rows and reads each row's k slots at once).

use super::{Field, ParamPath, Report, Rule, violation};
use crate::ptx::{MmaKind, MmaShape, WgmmaShape};
use crate::spec::{KernelSpec, Math, Precision, Target, WarpShape};

/// Rows and columns of the blocks a tensor-core warp tile of `precision`
/// is made of: 8 lanes' 16-byte runs, and at least the 16 rows of an m16
/// fragment.
pub const fn mma_warp_block(precision: Precision) -> u32 {
    let run = mma_lds_width(precision);
    8 * if run > 2 { run } else { 2 }
}

/// [`Rule::Math`]: whether `math` exists for `precision` on `arch`: `fma`
/// for the BLAS precisions everywhere, `dmma` for `f64` and `c64`, `tf32`
/// and `tf32x3` for `f32` and `c32`, on sm_80 and newer; `f16` for `f16`
/// and `bf16` for `bf16` on sm_90a (Hopper's `wgmma`), the only maths of
/// those precisions.
pub const fn math_allowed(math: Math, precision: Precision, arch: Target) -> bool {
    match math {
        Math::Fma => !precision.is_half(),
        Math::F16 => matches!(precision, Precision::F16) && matches!(arch, Target::Sm90a),
        Math::Bf16 => matches!(precision, Precision::Bf16) && matches!(arch, Target::Sm90a),
        Math::Dmma => matches!(precision, Precision::F64 | Precision::C64) && arch.sm() >= 80,
        Math::Tf32 | Math::Tf32x3 => matches!(precision, Precision::F32 | Precision::C32) && arch.sm() >= 80,
    }
}

/// [`Rule::Mma`]: whether `mma` suits `math` on `arch`: none for `fma`; for
/// a tensor-core math, a shape of its kind that the architecture has.
pub fn mma_allowed(math: Math, mma: Option<MmaShape>, arch: Target) -> bool {
    // The precision a `wgmma` of `math` multiplies (any of them will do).
    let precision = match math {
        Math::F16 => Precision::F16,
        Math::Bf16 => Precision::Bf16,
        _ => Precision::F32,
    };
    match (math.mma_kind(), mma) {
        (_, Some(shape)) if math.wgmma_input().is_some() && shape.m == WgmmaShape::M => {
            super::wgmma::wgmma_allowed(math, precision, shape, arch)
        }
        (None, None) => matches!(math, Math::Fma),
        (None, Some(_)) | (Some(_), None) => false,
        (Some(kind), Some(shape)) => {
            kind.shapes().contains(&shape) && arch.ptx_arch().sm >= kind.min_arch(shape).sm
        }
    }
}

/// The shapes of `kind`, as a message lists them.
fn shape_list(kind: MmaKind) -> String {
    let shapes: Vec<String> = kind.shapes().iter().map(|s| format!("({}, {}, {})", s.m, s.n, s.k)).collect();
    shapes.join(", ")
}

/// [`Rule::MmaTile`], threads: the block is `(8 · wm, 4 · wn)` threads, the
/// lane grid of the fragments in each of `wm × wn` warps.
pub const fn mma_threads_fit(m_dim: u32, n_dim: u32, warps: WarpShape) -> bool {
    m_dim as u64 == 8 * warps.m as u64 && n_dim as u64 == 4 * warps.n as u64
}

/// [`Rule::MmaTile`], tile: `blk` rows (or columns) of the C tile split over
/// `warps` warps (nonzero) give each a whole number of
/// [`mma_warp_block`]s of `precision`.
pub const fn mma_warp_tile_fits(blk: u32, warps: u32, precision: Precision) -> bool {
    warps != 0 && blk.is_multiple_of(warps) && (blk / warps).is_multiple_of(mma_warp_block(precision))
}

/// [`Rule::MmaTile`], stripe: a stripe of `k_blk` rows is a whole number of
/// `mma` steps of depth `k` (nonzero).
pub const fn mma_stripe_fits(k_blk: u32, k: u32) -> bool {
    k != 0 && k_blk.is_multiple_of(k)
}

/// [`Rule::MmaTile`], loop: a loop trip over the stripe (`unroll`, if any)
/// takes whole `mma` steps of depth `k` (nonzero).
pub const fn mma_unroll_fits(unroll: Option<u32>, k: u32) -> bool {
    match unroll {
        Some(u) => mma_stripe_fits(u, k),
        None => true,
    }
}

/// [`Rule::MmaTile`] as a whole, for a spec whose `math` and `mma` are
/// allowed ([`math_allowed`], [`mma_allowed`]) and whose fields are
/// nonzero: the threads, warp tiles, stripe, `unroll` and `lds_width` fit
/// the `mma` fragments (always, for `fma`).
pub const fn mma_fits(spec: &KernelSpec) -> bool {
    let (Some(shape), Some(warps)) = (spec.mma, spec.warps) else { return spec.mma.is_none() };
    if let Some(wg) = spec.wgmma() {
        return super::wgmma::wgmma_fits(spec, wg, warps);
    }
    mma_threads_fit(spec.m_dim, spec.n_dim, warps)
        && mma_warp_tile_fits(spec.m_blk, warps.m, spec.precision)
        && mma_warp_tile_fits(spec.n_blk, warps.n, spec.precision)
        && mma_stripe_fits(spec.k_blk, shape.k)
        && mma_unroll_fits(spec.unroll, shape.k)
        && spec.lds_width == mma_lds_width(spec.precision)
}

/// The only `lds_width` of a tensor-core math: 16 bytes, two `f64`, one
/// `c64`, four `f32`, two `c32`.
pub const fn mma_lds_width(precision: Precision) -> u32 {
    16 / precision.element_bytes()
}

/// Checks `math` and `mma` of `spec` (every parameter nonzero), and what a
/// tensor-core math asks of the rest.
pub(super) fn check(spec: &KernelSpec, out: &mut Report) {
    let math = spec.math;
    if !math_allowed(math, spec.precision, spec.arch) {
        if let Some(message) = half_math_message(spec) {
            violation(out, ParamPath::whole(Field::Math), Rule::Math, || message);
            return;
        }
        let (unit, types, wanted) = match math {
            Math::Tf32 | Math::Tf32x3 => ("TF32", "f32 and c32", "use `precision = f32` or `c32`"),
            _ => ("FP64", "f64 and c64", "use `precision = f64` or `c64`"),
        };
        let message = || {
            if spec.arch.sm() >= 80 || math == Math::Fma {
                format!(
                    "`math = {math}` multiplies {types} on the {unit} tensor cores, and this kernel is {}: \
                 {wanted}, or `math = fma`",
                    spec.precision
                )
            } else {
                format!(
                    "`math = {math}` runs on the {unit} tensor cores of sm_80 and newer (this kernel is for \
                 {}): add `arch = sm_80` or newer, or use `math = fma`",
                    spec.arch
                )
            }
        };
        violation(out, ParamPath::whole(Field::Math), Rule::Math, message);
        return;
    }
    if let (Some(_), Some(shape)) = (math.wgmma_input(), spec.mma)
        && shape.m == WgmmaShape::M
        && !super::wgmma::wgmma_allowed(math, spec.precision, shape, spec.arch)
    {
        violation(out, ParamPath::whole(Field::Mma), Rule::Mma, || super::wgmma::shape_message(spec, shape));
        return;
    }
    if !mma_allowed(math, spec.mma, spec.arch) {
        let (at, message) = match (math.mma_kind(), spec.mma) {
            (None, None) if math.wgmma_input().is_some() => (
                ParamPath::whole(Field::Math),
                format!("`math = {math}` needs the shape of its `wgmma`: add `mma = (64, n, 16)`"),
            ),
            (None, Some(s)) if math.wgmma_input().is_some() => (
                ParamPath::whole(Field::Mma),
                format!(
                    "`mma` ({}, {}, {}) is not a shape of `math = {math}`, which runs on Hopper's `wgmma` \
                     only: use `mma = (64, n, 16)`",
                    s.m, s.n, s.k
                ),
            ),
            (None, _) => (
                ParamPath::whole(Field::Mma),
                "`mma` is the shape of a tensor-core instruction, and `math = fma` has none: add \
                 `math = dmma` (f64, c64) or `math = tf32x3` (f32, c32), or leave `mma` out"
                    .to_owned(),
            ),
            (Some(MmaKind::F64), None) => (
                ParamPath::whole(Field::Math),
                format!(
                    "`math = {math}` needs the shape of its instruction: add `mma = (8, 8, 4)`, or on \
                     sm_90 `mma = (16, 8, 4)`, `(16, 8, 8)` or `(16, 8, 16)`"
                ),
            ),
            (Some(kind), None) => (
                ParamPath::whole(Field::Math),
                format!(
                    "`math = {math}` needs the shape of its instruction: add `mma = ` one of {}",
                    shape_list(kind)
                ),
            ),
            (Some(kind), Some(s)) if !kind.shapes().contains(&s) => (
                ParamPath::whole(Field::Mma),
                format!(
                    "`mma` ({}, {}, {}) is not an `mma.sync` shape of `math = {math}`: use {}",
                    s.m,
                    s.n,
                    s.k,
                    shape_list(kind)
                ),
            ),
            (Some(_), Some(s)) => (
                ParamPath::whole(Field::Mma),
                format!(
                    "`mma` ({}, {}, {}) exists on sm_90 and newer (this kernel is for {}): use \
                     `mma = (8, 8, 4)`, or `arch = sm_90`",
                    s.m, s.n, s.k, spec.arch
                ),
            ),
        };
        violation(out, at, Rule::Mma, || message);
        return;
    }
    let Some(shape) = spec.mma else { return };
    check_tile(spec, shape, out);
}

/// Why a 16-bit `precision` or a 16-bit `math` is not allowed, if that is
/// the trouble: each multiplies only the other, on sm_90a.
fn half_math_message(spec: &KernelSpec) -> Option<String> {
    let (math, precision) = (spec.math, spec.precision);
    let own = match precision {
        Precision::F16 => Math::F16,
        Precision::Bf16 => Math::Bf16,
        _ => {
            return matches!(math, Math::F16 | Math::Bf16).then(|| {
                format!(
                    "`math = {math}` multiplies {math} operands, and this kernel is {precision}: use `precision = \
                     {math}`, or another `math`"
                )
            });
        }
    };
    Some(if math != own {
        format!(
            "{precision} operands multiply on the tensor cores with `wgmma`: set `math = {own}` (with `mma = (64, n, \
             16)`, `arch = sm_90a`)"
        )
    } else {
        format!(
            "`math = {math}` runs on Hopper's `wgmma`, which only sm_90a has (this kernel is for {}): add `arch = \
             sm_90a`",
            spec.arch
        )
    })
}

/// What an `mma` of `shape` asks of the threads, the tile, the stripe and
/// the shared loads.
fn check_tile(spec: &KernelSpec, shape: MmaShape, out: &mut Report) {
    let Some(warps) = spec.warps else {
        violation(out, ParamPath::whole(Field::Math), Rule::MmaTile, || {
            format!(
                "`math = {}` lays whole warps over the C tile: add `warps = (wm, wn)`, with `threads = \
                 (8 * wm, 4 * wn)`",
                spec.math
            )
        });
        return;
    };
    if warps.m == 0 || warps.n == 0 {
        return;
    }
    if let Some(wg) = spec.wgmma() {
        super::wgmma::check(spec, wg, warps, out);
        return;
    }
    if !mma_threads_fit(spec.m_dim, spec.n_dim, warps) {
        violation(out, ParamPath::whole(Field::Threads), Rule::MmaTile, || {
            format!(
                "`threads` must be (8 * warps.0, 4 * warps.1) = ({}, {}) with `math = {}`: the 32 \
                 lanes of each warp are the 8 x 4 grid of the mma fragments",
                8 * u64::from(warps.m),
                4 * u64::from(warps.n),
                spec.math
            )
        });
    }
    let block = mma_warp_block(spec.precision);
    for (i, blk, w) in [(0u8, spec.m_blk, warps.m), (1, spec.n_blk, warps.n)] {
        if !mma_warp_tile_fits(blk, w, spec.precision) {
            violation(out, ParamPath::at(Field::Tile, i), Rule::MmaTile, || {
                format!(
                    "`tile.{i}` ({blk}) must split over `warps.{i}` ({w}) into warp tiles of a multiple \
                     of {block} with `math = {}` on {}: use a multiple of {}",
                    spec.math,
                    spec.precision,
                    u64::from(w) * u64::from(block)
                )
            });
        }
    }
    if shape.k != 0 && !mma_stripe_fits(spec.k_blk, shape.k) {
        violation(out, ParamPath::at(Field::Tile, 2), Rule::MmaTile, || {
            format!(
                "`tile.2` ({}) must be a multiple of `mma.2` ({}), the depth of one mma",
                spec.k_blk, shape.k
            )
        });
    }
    if let Some(u) = spec.unroll
        && shape.k != 0
        && !mma_unroll_fits(spec.unroll, shape.k)
    {
        violation(out, ParamPath::whole(Field::Unroll), Rule::MmaTile, || {
            format!(
                "`unroll` ({u}) must be a multiple of `mma.2` ({}): a loop trip takes whole mma steps",
                shape.k
            )
        });
    }
    let width = mma_lds_width(spec.precision);
    if spec.lds_width != width {
        violation(out, ParamPath::whole(Field::LdsWidth), Rule::MmaTile, || {
            format!(
                "`math = {}` reads its {} fragments 16 bytes at a time: set `lds_width = {width}`",
                spec.math, spec.precision
            )
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{LoadShape, Op};
    use crate::validate;

    /// A DGEMM on the FP64 tensor cores: 2 × 4 warps of 32 × 16, mma 16 × 8 × 8.
    fn spec() -> KernelSpec {
        KernelSpec {
            lds_width: 2,
            arch: Target::Sm90,
            stages: 3,
            ldg_width: 2,
            warps: Some(WarpShape { m: 2, n: 4 }),
            math: Math::Dmma,
            mma: MmaKind::F64.shape(16, 8, 8),
            ..KernelSpec::new(Precision::F64, (Op::N, Op::N), (64, 64, 16), (16, 16), (16, 16), (8, 32))
        }
    }

    fn rules(s: &KernelSpec) -> Vec<(String, Rule)> {
        match validate(s) {
            Ok(_) => vec![],
            Err(v) => v.into_iter().map(|v| (v.at.to_string(), v.rule)).collect(),
        }
    }

    #[test]
    fn every_f64_shape_is_legal_where_it_exists() {
        for shape in MmaShape::F64 {
            assert_eq!(rules(&KernelSpec { mma: Some(shape), ..spec() }), [], "{}", shape.name());
            let on_80 = KernelSpec { mma: Some(shape), arch: Target::Sm80, ..spec() };
            let want = if shape.m == 8 { vec![] } else { vec![("mma".to_owned(), Rule::Mma)] };
            assert_eq!(rules(&on_80), want, "{}", shape.name());
        }
    }

    #[test]
    fn each_math_rule_fires_on_its_parameter() {
        let s = spec();
        let at = |p: &str, r: Rule| vec![(p.to_owned(), r)];
        assert_eq!(rules(&KernelSpec { precision: Precision::C32, ..s })[..1], at("math", Rule::Math)[..]);
        assert_eq!(rules(&KernelSpec { precision: Precision::C64, ldg_width: 1, lds_width: 1, ..s }), []);
        assert_eq!(rules(&KernelSpec { arch: Target::Sm75, stages: 1, ..s }), at("math", Rule::Math));
        assert_eq!(rules(&KernelSpec { mma: None, ..s }), at("math", Rule::Mma));
        assert_eq!(
            rules(&KernelSpec { mma: Some(MmaShape { m: 16, n: 8, k: 32 }), ..s }),
            at("mma", Rule::Mma)
        );
        assert_eq!(rules(&KernelSpec { math: Math::Fma, ..s }), at("mma", Rule::Mma));
        assert_eq!(rules(&KernelSpec { warps: None, ..s }), at("math", Rule::MmaTile));
        // 4 × 2 warps of 16 × 32: threads must be (32, 8).
        let tall = KernelSpec { warps: Some(WarpShape { m: 4, n: 2 }), ..s };
        assert_eq!(rules(&tall), at("threads", Rule::MmaTile));
        let tall = KernelSpec { m_dim: 32, n_dim: 8, load_a: LoadShape { lead: 32, cross: 8 }, ..tall };
        assert_eq!(rules(&tall), []);
        // 96 rows over 2 warps: 48, a multiple of 16; over 4 warps 24 is not.
        let wide = KernelSpec { m_blk: 96, load_a: LoadShape { lead: 16, cross: 16 }, ldg_width: 2, ..s };
        assert_eq!(rules(&wide), []);
        let wide = KernelSpec { n_blk: 96, load_b: LoadShape { lead: 8, cross: 32 }, ..s };
        assert_eq!(rules(&wide), at("tile.1", Rule::MmaTile));
        assert_eq!(
            rules(&KernelSpec {
                k_blk: 12,
                ldg_width: 1,
                load_a: LoadShape { lead: 64, cross: 4 },
                load_b: LoadShape { lead: 4, cross: 64 },
                ..s
            }),
            at("tile.2", Rule::MmaTile)
        );
        assert_eq!(rules(&KernelSpec { unroll: Some(4), ..s }), at("unroll", Rule::MmaTile));
        assert_eq!(rules(&KernelSpec { unroll: Some(8), ..s }), []);
        assert_eq!(rules(&KernelSpec { lds_width: 1, ..s }), at("lds_width", Rule::MmaTile));
        assert_eq!(rules(&KernelSpec { interleave: 2, ..s }), []);
        assert_eq!(rules(&KernelSpec { interleave: 3, ..s }), at("interleave", Rule::Interleave));
    }

    /// The predicates the space will use say what validation says.
    #[test]
    fn predicates_agree_with_validation() {
        let s = spec();
        assert!(
            math_allowed(s.math, s.precision, s.arch) && mma_allowed(s.math, s.mma, s.arch) && mma_fits(&s)
        );
        assert!(!mma_fits(&KernelSpec { lds_width: 1, ..s }));
        assert!(!mma_allowed(Math::Fma, s.mma, s.arch));
        assert!(mma_allowed(Math::Fma, None, Target::Sm70));
        assert!(!math_allowed(Math::Dmma, Precision::F32, Target::Sm90));
        assert!(math_allowed(Math::Tf32x3, Precision::C32, Target::Sm80));
        assert!(!math_allowed(Math::Tf32, Precision::F64, Target::Sm90));
        assert!(!mma_allowed(Math::Tf32x3, MmaKind::F64.shape(16, 8, 16), Target::Sm90));
        assert!(mma_allowed(Math::Tf32x3, MmaKind::Tf32.shape(16, 8, 8), Target::Sm80));
    }

    /// An SGEMM on the TF32 tensor cores: 2 × 2 warps of 64 × 32, whose
    /// warp tiles are whole 32 × 32 blocks (a lane reads 4 f32 at once).
    fn tf32() -> KernelSpec {
        KernelSpec {
            lds_width: 4,
            arch: Target::Sm90,
            stages: 3,
            ldg_width: 4,
            warps: Some(WarpShape { m: 2, n: 2 }),
            math: Math::Tf32x3,
            mma: MmaKind::Tf32.shape(16, 8, 8),
            ..KernelSpec::new(Precision::F32, (Op::N, Op::N), (128, 64, 16), (16, 8), (32, 4), (4, 32))
        }
    }

    #[test]
    fn tf32_rules_fire_on_their_parameters() {
        let s = tf32();
        let at = |p: &str, r: Rule| vec![(p.to_owned(), r)];
        assert_eq!(rules(&s), []);
        assert_eq!(rules(&KernelSpec { math: Math::Tf32, ..s }), []);
        assert_eq!(rules(&KernelSpec { mma: MmaKind::Tf32.shape(16, 8, 4), ..s }), []);
        assert_eq!(rules(&KernelSpec { arch: Target::Sm80, ..s }), []);
        assert_eq!(rules(&KernelSpec { mma: MmaKind::F64.shape(16, 8, 16), ..s }), at("mma", Rule::Mma));
        let f64_rules = rules(&KernelSpec { precision: Precision::F64, ldg_width: 2, lds_width: 2, ..s });
        assert_eq!(f64_rules, at("math", Rule::Math));
        assert_eq!(rules(&KernelSpec { lds_width: 2, ..s }), at("lds_width", Rule::MmaTile));
        // 64 columns over 4 warps: 16, not a whole 32-column block for f32.
        let narrow = KernelSpec { warps: Some(WarpShape { m: 1, n: 4 }), m_dim: 8, n_dim: 16, ..s };
        assert!(rules(&narrow).contains(&("tile.1".to_owned(), Rule::MmaTile)), "{:?}", rules(&narrow));
        // c32: 16-byte runs of two elements, 16 x 16 blocks.
        let c32 = KernelSpec { precision: Precision::C32, lds_width: 2, ldg_width: 2, ..s };
        assert_eq!(rules(&c32), []);
    }
}
