//! The hard constraints of the pipeline parameters: `stages`, `ldg_width`,
//! `warps`, `unroll`, `frag_sets`, `interleave`, `c_batch` and (through
//! [`check_nonzero`](super::check_nonzero)) `raster`.
//! Part of the one constraints implementation: [`super::validate_with`]
//! calls [`check`], and the search space uses the public predicates.

use super::{Field, ParamPath, Report, Rule, StripePlan, violation};
use crate::spec::{KernelSpec, Precision};

/// The most shared-memory stripes a ring may hold.
pub const MAX_STAGES: u32 = 8;

/// [`Rule::Stages`]: `stages` is in `1..=8`, and above 1 only where the
/// architecture has `cp.async` (`has_cp_async`).
pub const fn stages_allowed(stages: u32, has_cp_async: bool) -> bool {
    stages >= 1 && stages <= MAX_STAGES && (stages == 1 || has_cp_async)
}

/// [`Rule::LdgWidth`], first part: `ldg_width` is 1, 2, 4 or 8 (8 only
/// fits the 16-bit precisions, [`ldg_width_fits_precision`]).
pub const fn ldg_width_allowed(width: u32) -> bool {
    matches!(width, 1 | 2 | 4 | 8)
}

/// [`Rule::LdgWidth`], second part: one global load of `width` (allowed)
/// elements of `precision` moves at most 16 bytes.
pub const fn ldg_width_fits_precision(width: u32, precision: Precision) -> bool {
    width * precision.element_bytes() <= 16
}

/// [`Rule::LdgWidth`], third part: the threads of `stripe`'s load shape,
/// each moving runs of `width` elements, tile the stripe's leading
/// dimension (`load.0 × width` divides it).
pub const fn ldg_width_divides(width: u32, stripe: &StripePlan) -> bool {
    let run = stripe.shape.lead as u64 * width as u64;
    (stripe.lead_len as u64).is_multiple_of(run)
}

/// [`Rule::Warps`]: `wm × wn` warps of 32 threads cover the `m_dim × n_dim`
/// threads, each warp a whole `m_dim / wm × n_dim / wn` sub-grid.
pub const fn warps_fit(wm: u32, wn: u32, m_dim: u32, n_dim: u32) -> bool {
    wm != 0
        && wn != 0
        && m_dim.is_multiple_of(wm)
        && n_dim.is_multiple_of(wn)
        && (m_dim / wm) as u64 * (n_dim / wn) as u64 == 32
}

/// [`Rule::Unroll`]: the inner product's loop takes `unroll` (nonzero) K
/// steps per iteration, a whole number of them per stripe of `k_blk`, and
/// more than one iteration: the whole stripe is the default (no `unroll`),
/// so one kernel never has two names.
pub const fn unroll_divides(unroll: u32, k_blk: u32) -> bool {
    unroll != 0 && unroll < k_blk && k_blk.is_multiple_of(unroll)
}

/// [`Rule::CBatch`]: the epilogue reads the old C of `batch` (nonzero)
/// columns together, at most the `n_thr` columns a thread writes.
pub const fn c_batch_allowed(batch: u32, n_thr: u32) -> bool {
    batch >= 1 && batch <= n_thr
}

/// [`Rule::FragSets`]: one or two register sets of fragments.
pub const fn frag_sets_allowed(sets: u32) -> bool {
    matches!(sets, 1 | 2)
}

/// [`Rule::Interleave`]: a ring's copies can be interleaved with the
/// product (`interleave = g ≥ 1`) when there is a ring (`stages ≥ 2`),
/// the product is straight-line code over the whole stripe (`unroll`
/// absent) and there are at least `g` steps of the product to put the
/// groups beside (`g ≤ steps`: `tile.2`, or `tile.2 / mma.2` with a
/// tensor-core math). 0, copies before the product, is always allowed.
pub const fn interleave_allowed(groups: u32, stages: u32, unrolled_whole: bool, steps: u32) -> bool {
    groups == 0 || (stages >= 2 && unrolled_whole && groups <= steps)
}

/// Checks the pipeline parameters of `spec` (every parameter nonzero), A's
/// and B's stripes as the spec reads them.
pub(super) fn check(spec: &KernelSpec, a: &StripePlan, b: &StripePlan, out: &mut Report) {
    if !stages_allowed(spec.stages, spec.arch.has_cp_async()) {
        let message = || {
            if spec.stages > MAX_STAGES {
                format!("`stages` ({}) must be at most {MAX_STAGES}", spec.stages)
            } else {
                format!(
                    "`stages` ({}) above 1 fills shared memory with `cp.async`, which needs \
                     `arch = sm_80` or newer (this kernel is for {}): add `arch = sm_80` or use `stages = 1`",
                    spec.stages, spec.arch
                )
            }
        };
        violation(out, ParamPath::whole(Field::Stages), Rule::Stages, message);
    }
    check_ldg_width(spec, a, b, out);
    if spec.frag_sets != 0 && !frag_sets_allowed(spec.frag_sets) {
        violation(out, ParamPath::whole(Field::FragSets), Rule::FragSets, || {
            format!(
                "`frag_sets` ({}) must be 1 (one set of fragment registers) or 2 (double buffered)",
                spec.frag_sets
            )
        });
    }
    if let Some(u) = spec.unroll
        && u != 0
        && spec.k_blk != 0
        && !unroll_divides(u, spec.k_blk)
    {
        violation(out, ParamPath::whole(Field::Unroll), Rule::Unroll, || {
            if u == spec.k_blk {
                format!("`unroll` ({u}) is the whole stripe `tile.2`, the default: leave `unroll` out")
            } else {
                format!(
                    "`unroll` ({u}) must divide `tile.2` ({}): use a divisor of it, or leave `unroll` \
                     out to unroll the whole stripe",
                    spec.k_blk
                )
            }
        });
    }
    check_interleave(spec, out);
    let n_thr = spec.n_thr();
    if spec.c_batch != 0 && n_thr != 0 && !c_batch_allowed(spec.c_batch, n_thr) {
        violation(out, ParamPath::whole(Field::CBatch), Rule::CBatch, || {
            format!(
                "`c_batch` ({}) must be at most {n_thr}, the columns of C each thread writes (`tile.1 / threads.1`)",
                spec.c_batch
            )
        });
    }
    if let Some(w) = spec.warps
        && !warps_fit(w.m, w.n, spec.m_dim, spec.n_dim)
    {
        violation(out, ParamPath::whole(Field::Warps), Rule::Warps, || {
            format!(
                "`warps` ({} × {}) must split `threads` ({} × {}) into sub-grids of exactly 32 \
                 threads: `threads.0` and `threads.1` must be multiples of `warps.0` and `warps.1`, \
                 and `threads.0 / warps.0 × threads.1 / warps.1` must be 32",
                w.m, w.n, spec.m_dim, spec.n_dim
            )
        });
    }
}

fn check_ldg_width(spec: &KernelSpec, a: &StripePlan, b: &StripePlan, out: &mut Report) {
    let at = ParamPath::whole(Field::LdgWidth);
    let w = spec.ldg_width;
    if !ldg_width_allowed(w) {
        violation(out, at, Rule::LdgWidth, || format!("`ldg_width` ({w}) must be 1, 2, 4 or 8"));
        return;
    }
    if !ldg_width_fits_precision(w, spec.precision) {
        let bytes = spec.precision.element_bytes();
        violation(out, at, Rule::LdgWidth, || {
            format!(
                "`ldg_width` ({w}) would load {} bytes at once but a global load moves at most 16: \
                 use at most {} for {}",
                w * bytes,
                16 / bytes,
                spec.precision
            )
        });
        return;
    }
    for stripe in [a, b] {
        // Only meaningful when the load shape divides the stripe; the load
        // rules report otherwise.
        if stripe.lead_divides() && !ldg_width_divides(w, stripe) {
            let x = stripe.operand.lower();
            violation(out, at, Rule::LdgWidth, || {
                format!(
                    "`ldg_width` ({w}) times `load_{x}.0` ({}) must divide the leading dimension \
                     ({}) of {}'s stored stripe: reduce `ldg_width` or `load_{x}.0`",
                    stripe.shape.lead,
                    stripe.lead_len,
                    stripe.operand.upper()
                )
            });
        }
    }
}

/// [`Rule::Interleave`], with the message naming the first of its parts
/// that fails.
fn check_interleave(spec: &KernelSpec, out: &mut Report) {
    let g = spec.interleave;
    let steps = spec.stripe_steps();
    if spec.stages == 0 || spec.k_blk == 0 || interleave_allowed(g, spec.stages, spec.unroll.is_none(), steps)
    {
        return;
    }
    let message = || {
        if spec.stages < 2 {
            format!(
                "`interleave` ({g}) spreads the copies of a `cp.async` ring over the product, and \
                 `stages = 1` has none: use `stages = 2` or more, or leave `interleave` out"
            )
        } else if spec.unroll.is_some() {
            format!(
                "`interleave` ({g}) puts copies beside the k steps of a stripe in straight-line code, \
                 which `unroll` turns into a loop: leave out `unroll` or `interleave`"
            )
        } else {
            format!("`interleave` ({g}) must be at most {steps}, the steps of the product over a stripe")
        }
    };
    violation(out, ParamPath::whole(Field::Interleave), Rule::Interleave, message);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{GlobalLoad, LoadShape, Op, Target, WarpShape};
    use crate::{Rule, validate};

    fn spec() -> KernelSpec {
        KernelSpec {
            precision: Precision::F32,
            op_a: Op::N,
            op_b: Op::N,
            m_blk: 128,
            n_blk: 128,
            k_blk: 8,
            m_dim: 16,
            n_dim: 16,
            load_a: LoadShape { lead: 32, cross: 8 },
            load_b: LoadShape { lead: 2, cross: 128 },
            lds_width: 4,
            ldg: GlobalLoad::Nc,
            arch: Target::Sm80,
            stages: 3,
            ldg_width: 4,
            warps: Some(WarpShape { m: 2, n: 4 }),
            raster: 8,
            unroll: None,
            frag_sets: 1,
            interleave: 0,
            c_batch: 1,
            math: crate::Math::Fma,
            mma: None,
            schedule: crate::Schedule::Tiles,
            producers: 0,
            operands: crate::Operands::Ab,
        }
    }

    fn rules(s: &KernelSpec) -> Vec<(String, Rule)> {
        match validate(s) {
            Ok(_) => vec![],
            Err(v) => v.into_iter().map(|v| (v.at.to_string(), v.rule)).collect(),
        }
    }

    #[test]
    fn a_modern_sgemm_is_legal_and_its_ring_is_counted() {
        let plan = validate(&spec()).expect("legal");
        // Three stripes of 8 rows of (128 + 4) floats for each operand.
        assert_eq!(plan.shared_bytes(), 2 * 3 * 8 * 132 * 4);
    }

    #[test]
    fn each_pipeline_rule_fires_on_its_parameter() {
        let s = spec();
        assert_eq!(rules(&KernelSpec { stages: 9, ..s }), [("stages".into(), Rule::Stages)]);
        assert_eq!(rules(&KernelSpec { arch: Target::Sm75, ..s }), [("stages".into(), Rule::Stages)]);
        assert_eq!(rules(&KernelSpec { stages: 1, arch: Target::Sm70, ..s }), []);
        assert_eq!(rules(&KernelSpec { ldg_width: 3, ..s }), [("ldg_width".into(), Rule::LdgWidth)]);
        let z = KernelSpec { precision: Precision::C64, ldg_width: 2, lds_width: 1, ..s };
        assert!(rules(&z).contains(&("ldg_width".into(), Rule::LdgWidth)));
        // B's stored stripe is 8 deep along K: 8 threads × 4 elements do not fit.
        let b_narrow = KernelSpec { load_b: LoadShape { lead: 8, cross: 32 }, ..s };
        assert_eq!(rules(&b_narrow), [("ldg_width".into(), Rule::LdgWidth)]);
        assert_eq!(rules(&KernelSpec { ldg_width: 2, ..b_narrow }), [("ldg_width".into(), Rule::LdgWidth)]);
        assert_eq!(rules(&KernelSpec { ldg_width: 1, ..b_narrow }), []);
        assert_eq!(
            rules(&KernelSpec { warps: Some(WarpShape { m: 4, n: 4 }), ..s }),
            [("warps".into(), Rule::Warps)]
        );
        assert_eq!(
            rules(&KernelSpec { warps: Some(WarpShape { m: 3, n: 1 }), ..s }),
            [("warps".into(), Rule::Warps)]
        );
        assert_eq!(
            rules(&KernelSpec { warps: Some(WarpShape { m: 0, n: 8 }), ..s }),
            [("warps.0".into(), Rule::Zero)]
        );
        assert_eq!(rules(&KernelSpec { raster: 0, ..s }), [("raster".into(), Rule::Zero)]);
        assert_eq!(rules(&KernelSpec { unroll: Some(3), ..s }), [("unroll".into(), Rule::Unroll)]);
        assert_eq!(rules(&KernelSpec { unroll: Some(16), ..s }), [("unroll".into(), Rule::Unroll)]);
        assert_eq!(rules(&KernelSpec { unroll: Some(0), ..s }), [("unroll".into(), Rule::Zero)]);
        assert_eq!(
            rules(&KernelSpec { unroll: Some(8), ..s }),
            [("unroll".into(), Rule::Unroll)],
            "the default"
        );
        for u in [1, 2, 4] {
            assert_eq!(rules(&KernelSpec { unroll: Some(u), ..s }), []);
        }
        assert_eq!(rules(&KernelSpec { frag_sets: 3, ..s }), [("frag_sets".into(), Rule::FragSets)]);
        assert_eq!(rules(&KernelSpec { frag_sets: 0, ..s }), [("frag_sets".into(), Rule::Zero)]);
        assert_eq!(rules(&KernelSpec { frag_sets: 2, ..s }), []);
        // 128 / 16 = 8 columns of C per thread.
        assert_eq!(rules(&KernelSpec { c_batch: 8, ..s }), []);
        assert_eq!(rules(&KernelSpec { c_batch: 9, ..s }), [("c_batch".into(), Rule::CBatch)]);
        assert_eq!(rules(&KernelSpec { c_batch: 0, ..s }), [("c_batch".into(), Rule::Zero)]);
        for g in [1, 2, 8] {
            assert_eq!(rules(&KernelSpec { interleave: g, ..s }), []);
        }
        let interleave = [("interleave".into(), Rule::Interleave)];
        assert_eq!(rules(&KernelSpec { interleave: 9, ..s }), interleave);
        assert_eq!(rules(&KernelSpec { interleave: 1, stages: 1, ..s }), interleave);
        assert_eq!(rules(&KernelSpec { interleave: 1, unroll: Some(2), ..s }), interleave);
    }

    #[test]
    fn shared_memory_limit_follows_the_architecture() {
        // 4 stages of 32 rows × 132 floats per operand: 135,168 bytes.
        let big = KernelSpec { k_blk: 32, stages: 4, ..spec() };
        assert_eq!(
            validate(&KernelSpec { arch: Target::Sm90, ..big }).map(|p| p.shared_bytes()),
            Ok(135_168)
        );
        assert_eq!(rules(&KernelSpec { arch: Target::Sm90, ..big }), []);
        assert_eq!(rules(&KernelSpec { arch: Target::Sm86, ..big }), [("tile".into(), Rule::SharedMemory)]);
    }
}
