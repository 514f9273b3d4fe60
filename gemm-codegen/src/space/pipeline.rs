//! The pipeline dimensions of the space: `arch`, `stages`, `ldg_width`,
//! `frag_sets`, `warps`, `raster`, `unroll` and `interleave` ([`Pipeline`]).
//!
//! They fall in two kinds, and adding a parameter means putting it in one:
//!
//! - **Point dimensions** change a point's resources or which load shapes
//!   fit it: `lds_width` (in [`super::Bounds`]), `stages` (the ring
//!   multiplies the shared stripes and frees the registers that staged
//!   them), `ldg_width` (the skew of the shared rows, and the load rule
//!   `load.0 × ldg_width` divides the stripe) and `frag_sets` (a second set
//!   of fragment registers). The generator loops over them per tile, and
//!   each (tile, threads, `lds_width`, `stages`, `ldg_width`, `frag_sets`)
//!   is one point with its own [`super::Stats`].
//! - **Free dimensions** change neither: every value multiplies the specs
//!   of a point. They are the table `FREE`: `ldg` (the cache path),
//!   `warps`, `raster`, and the walk of the stripe: `unroll` (whose values
//!   are the listed divisors of the point's `tile.2`) or, with the whole
//!   stripe unrolled in a ring, `interleave` (the listed group counts up
//!   to the product's steps) — one row, since interleaving needs no
//!   `unroll`. The point dimension `math` (with `mma`) is the exception
//!   that fixes a free one: a tensor-core point has the `warps` its
//!   threads are the lane grid of. A new
//!   parameter of this kind is one more list in [`Pipeline`] and one more
//!   row of `FREE`; counting, listing and membership follow.
//!
//! The epilogue's `c_batch` (columns of old C read before any is written)
//! is in neither: it matters only where K is short, which the space does
//! not know, and the analytic bound does not see it. The space holds the
//! default (1); the tuner times the other values as siblings of its best
//! candidates and of the class's shipped kernel (`xtask tune --c-batched`).

use crate::constraints::{
    StripePlan, WGMMA_MIN_STAGES, ldg_width_allowed, ldg_width_divides, ldg_width_fits_precision,
    math_allowed, mma_allowed, mma_fits, mma_lds_width, mma_unroll_fits, stages_allowed, unroll_divides,
    warps_fit, wgmma_allowed,
};
use crate::ptx::WgmmaShape;
use crate::spec::{KernelSpec, Math, MmaShape, Precision, Target, WarpShape};

use super::Space;

/// Which `ldg_width`s the space holds for a pair of load shapes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LdgWidths {
    /// Each width of the list that the hard rules allow: the whole legal
    /// space along this dimension.
    Each(Vec<u32>),
    /// 1, and the widest of 1, 2 and 4 that the load rules allow for both
    /// load shapes (`ldg_width_allowed`, `ldg_width_fits_precision` and
    /// `ldg_width_divides` for A's and B's stripes; shared memory is not
    /// consulted). The tuner's choice: a wider load moves the same bytes
    /// in fewer instructions, so among widths above 1 the widest is the
    /// one to time (every H100 winner used it: 4 for f32, 2 for f64 and
    /// c32); 1 stays because it keeps the narrowest skew of the shared
    /// rows and the paper's scalar loads.
    WidestOrOne,
}

impl LdgWidths {
    /// The widths whose fitting load shapes the generator counts, in
    /// generation order.
    pub(super) fn candidates(&self) -> &[u32] {
        match self {
            LdgWidths::Each(list) => list,
            LdgWidths::WidestOrOne => &[1, 2, 4],
        }
    }
}

/// Which warp arrangements (`warps`) the space holds for a thread
/// arrangement. Every choice includes `None`, the default numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Warps {
    /// `None` only.
    Default,
    /// `None`, and the legal arrangements whose warp sub-grid
    /// (`threads.0 / warps.0 × threads.1 / warps.1`, 32 threads) has the
    /// least perimeter: 4 × 8 and 8 × 4 where they fit. Per `k` step a
    /// warp reads one A fragment per sub-grid row and one B fragment per
    /// sub-grid column from shared memory, so the squarest sub-grid reads
    /// the fewest distinct words (12, against 18 for 2 × 16 and 33 for
    /// 1 × 32); the H100 winners used (2, 4) and (4, 2) on 16 × 16 threads.
    Squarest,
    /// `None`, and every legal arrangement.
    Every,
}

/// The pipeline dimensions of a [`Space`]: the values each parameter added
/// after the paper takes (see the module documentation for how they enter
/// the generator).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipeline {
    /// The architecture the specs are compiled for. `None`: the portable
    /// space, the paper's — `arch = sm_70` (the default) and the 48 KiB a
    /// block may declare statically on every GPU. `Some(target)`: specs
    /// with `arch = target`, under the shared memory the GPU grants a
    /// block after opting in (capped by what `target` allows).
    pub target: Option<Target>,
    /// The `stages` to try; values above 1 are legal on sm_80 and newer.
    pub stages: Vec<u32>,
    /// The `ldg_width`s.
    pub ldg_widths: LdgWidths,
    /// The `warps`.
    pub warps: Warps,
    /// The `raster` group sizes.
    pub rasters: Vec<u32>,
    /// The `frag_sets` (1: one set of fragment registers, 2: double
    /// buffered).
    pub frag_sets: Vec<u32>,
    /// The `unroll`s besides the whole stripe (`None`, always in): each
    /// that divides a point's `tile.2` and is below it.
    pub unrolls: Vec<u32>,
    /// The `interleave` group counts besides 0 (always in): each up to a
    /// point's steps over a stripe, at points with a ring (`stages ≥ 2`),
    /// with the whole stripe unrolled.
    pub interleaves: Vec<u32>,
    /// The tensor-core maths and their `mma` shapes, besides `fma` (always
    /// in): each at points of a precision and architecture that have it
    /// whose threads are `(8 wm, 4 wn)`, with `warps = (wm, wn)` and the
    /// 16-byte `lds_width` (a point dimension: it fixes `warps` and
    /// `lds_width`).
    pub mmas: Vec<(Math, MmaShape)>,
}

impl Pipeline {
    /// The paper's space: every pipeline parameter at its default.
    pub fn portable() -> Pipeline {
        Pipeline {
            target: None,
            stages: vec![KernelSpec::DEFAULT_STAGES],
            ldg_widths: LdgWidths::Each(vec![KernelSpec::DEFAULT_LDG_WIDTH]),
            warps: Warps::Default,
            rasters: vec![KernelSpec::DEFAULT_RASTER],
            frag_sets: vec![KernelSpec::DEFAULT_FRAG_SETS],
            unrolls: Vec::new(),
            interleaves: Vec::new(),
            mmas: Vec::new(),
        }
    }

    /// What the tuner searches on a GPU of `target`: `stages` 1 to 4 where
    /// `cp.async` exists (1 elsewhere; CUTLASS's SIMT kernels use 2 to 4,
    /// the H100 winners 3), `ldg_width` [`LdgWidths::WidestOrOne`], warps
    /// [`Warps::Squarest`], `raster` 1 and 8 (8 gained 10% on the H100),
    /// `frag_sets` 1 and 2 (2, which in a ring also hands off to the next
    /// stripe in the last step, beat 1 by 1.4% on the H100's SGEMM NN
    /// 192 × 128 × 20; the hand-off itself gained 1–7% on SGEMM NN, DGEMM
    /// and CGEMM kernels and lost up to 2% on two SGEMM NT ones), `unroll`
    /// the whole stripe or 2 steps (2 was the best of 2, 4 and 8 on the
    /// H100's 256 × 128 SGEMM; 4 and 8 lost), `interleave` 0, 1, 2, 4 and
    /// 8 (each was the best of these on some of 13 H100 kernels, by up
    /// to 13%; `tuning/sm_90-copies`), and for f64 and c64 `math = dmma`
    /// with m16n8k4 and m16n8k8 on sm_90 (the fastest two of the four
    /// shapes on the H100, m8n8k4 at half their speed, m16n8k16 short of
    /// registers; `tuning/sm_90-dmma`), m8n8k4 on sm_80 to sm_89 (their
    /// only one). `math = tf32x3` joins with [`Pipeline::with_tf32x3`].
    pub fn tuner(target: Target) -> Pipeline {
        let stages = if target.has_cp_async() { vec![1, 2, 3, 4] } else { vec![1] };
        Pipeline {
            target: Some(target),
            stages,
            ldg_widths: LdgWidths::WidestOrOne,
            warps: Warps::Squarest,
            rasters: vec![1, 8],
            frag_sets: vec![1, 2],
            unrolls: vec![2],
            interleaves: vec![1, 2, 4, 8],
            mmas: match target.sm() {
                90.. => vec![
                    (Math::Dmma, MmaShape { m: 16, n: 8, k: 4 }),
                    (Math::Dmma, MmaShape { m: 16, n: 8, k: 8 }),
                ],
                80.. => vec![(Math::Dmma, MmaShape { m: 8, n: 8, k: 4 })],
                _ => Vec::new(),
            },
        }
    }

    /// This pipeline with `math = tf32x3` for f32 and c32, m16n8k8 and
    /// m16n8k4, where the target has TF32 tensor cores (sm_80 and newer).
    /// Not in [`Pipeline::tuner`] by default until a tune shows it ahead of
    /// the FMA kernels at cuBLAS's accuracy: on the H100 (`tuning/sm_90-tf32`)
    /// it reaches 1.4–1.9× cuBLAS SGEMM's error, but the specs tuned before
    /// its round-to-nearest accumulation now run at only 0.91–1.19× cuBLAS.
    /// 1xTF32 is never tuned in.
    pub fn with_tf32x3(mut self) -> Pipeline {
        if self.target.is_some_and(|t| t.sm() >= 80) {
            for k in [8, 4] {
                self.mmas.push((Math::Tf32x3, MmaShape { m: 16, n: 8, k }));
            }
        }
        self
    }

    /// This pipeline with Hopper's warpgroup `wgmma` for f32 and c32 where
    /// the target is sm_90: `math = tf32x3` with `mma = (64, 64, 8)` and
    /// `(64, 128, 8)` (`stencil/wgmma.rs`; c32 takes the first alone). Its points are `arch = sm_90a` (the
    /// only target that has `wgmma`), within a space of `arch = sm_90`; a
    /// ring (`stages ≥ 2`), one fragment set and the whole stripe unrolled
    /// (the warpgroup product reads its fragments from shared memory
    /// itself). Not in [`Pipeline::tuner`] by default: on the H100 the
    /// hand-written 128 × 128 × 32 kernels won the large squares
    /// (`tuning/sm_90-wgmma`); this lets the tuner try smaller tiles on
    /// smaller problems.
    pub fn with_wgmma(mut self) -> Pipeline {
        if self.target.is_some_and(|t| t.sm() == 90) {
            for n in [64, 128] {
                self.mmas.push((Math::Tf32x3, MmaShape { m: WgmmaShape::M, n, k: WgmmaShape::K_BYTES / 4 }));
            }
        }
        self
    }

    /// Whether the pipeline lists a `wgmma` shape ([`Pipeline::with_wgmma`]).
    pub fn has_wgmma(&self) -> bool {
        self.mmas.iter().any(|&(_, shape)| shape.m == WgmmaShape::M)
    }

    /// Whether `tile`'s register bound fits `limits` with some math the
    /// pipeline lists for it (`fma`, or a listed `mma` shape the precision
    /// and architecture have, whether or not the tile fits its fragments):
    /// the generator's early exit, which must not drop a tile a tensor-core
    /// math fits (an m16n8k4 step holds fewer fragments of B than an FMA
    /// step).
    pub(super) fn regs_fit_some_math(&self, tile: &KernelSpec, limits: &crate::constraints::Limits) -> bool {
        use crate::constraints::regs_fit;
        let fma = KernelSpec { math: Math::Fma, mma: None, ..*tile };
        regs_fit(&fma, limits)
            || self.mmas.iter().any(|&(math, shape)| {
                let mma = KernelSpec { math, mma: Some(shape), ..*tile };
                math_allowed(math, tile.precision, tile.arch) && regs_fit(&mma, limits)
            })
    }

    /// The maths at a point of `tile` (tile, threads, precision and
    /// architecture set): `(math, mma, warps, lds_width)`, `fma` first
    /// (its `warps` then a free dimension, `lds_width` the point's), then
    /// each listed `mma` shape that the precision, architecture, threads
    /// and tile take. A point's `unroll` is its default (none).
    pub(super) fn maths(&self, tile: &KernelSpec) -> impl Iterator<Item = MathChoice> + '_ {
        let tile = *tile;
        let fma = MathChoice { math: Math::Fma, mma: None, warps: None };
        let mmas = self.mmas.iter().filter_map(move |&(math, shape)| {
            let (m_dim, n_dim) = (tile.m_dim, tile.n_dim);
            if !(m_dim.is_multiple_of(8) && n_dim.is_multiple_of(4)) {
                return None;
            }
            let warps = Some(WarpShape { m: m_dim / 8, n: n_dim / 4 });
            let choice = MathChoice { math, mma: Some(shape), warps };
            let spec = choice.apply(KernelSpec { unroll: None, ..tile });
            let ok = match spec.wgmma() {
                // The shallowest ring its rule allows (stages are a later loop).
                Some(_) => {
                    wgmma_allowed(spec.math, spec.precision, shape, spec.arch)
                        && mma_fits(&KernelSpec { stages: WGMMA_MIN_STAGES, ..spec })
                }
                None => {
                    math_allowed(spec.math, spec.precision, spec.arch)
                        && mma_allowed(spec.math, spec.mma, spec.arch)
                        && mma_fits(&spec)
                }
            };
            ok.then_some(choice)
        });
        std::iter::once(fma).chain(mmas)
    }

    /// The listed `unroll`s that divide a stripe `k_blk` deep and are below
    /// it, in list order (the space's `unroll` values are `None`, the whole
    /// stripe, then these).
    fn partial_unrolls(&self, spec: &KernelSpec) -> impl Iterator<Item = u32> + '_ {
        let (k_blk, step, wgmma) = (spec.k_blk, spec.k_per_step(), spec.wgmma().is_some());
        self.unrolls
            .iter()
            .copied()
            .filter(move |&u| !wgmma && unroll_divides(u, k_blk) && mma_unroll_fits(Some(u), step))
    }

    /// The listed `interleave`s a point of `spec`'s stages and `tile.2`
    /// takes with the whole stripe unrolled, in list order (the space's
    /// values are 0 then these): none without a ring.
    fn interleaves_at(&self, spec: &KernelSpec) -> impl Iterator<Item = u32> + '_ {
        let (ring, steps) = (spec.stages >= 2, spec.stripe_steps());
        self.interleaves.iter().copied().filter(move |&g| ring && g > 0 && g <= steps)
    }

    /// The `interleave` values the space holds for specs that differ from
    /// `spec` in `interleave` alone: 0, then the listed ones a ring with the
    /// whole stripe unrolled takes.
    pub fn interleave_values(&self, spec: &KernelSpec) -> impl Iterator<Item = u32> + '_ {
        let whole = spec.unroll.is_none();
        std::iter::once(KernelSpec::DEFAULT_INTERLEAVE)
            .chain(self.interleaves_at(spec).filter(move |_| whole))
    }

    /// The walks of a stripe at a point: `(unroll, interleave)`, first
    /// `(None, 0)`, then each listed `interleave`, then each listed
    /// `unroll` (with `interleave` 0).
    fn walks(&self, spec: &KernelSpec) -> impl Iterator<Item = (Option<u32>, u32)> + '_ {
        let interleaved = self.interleaves_at(spec).map(|g| (None, g));
        let looped = self.partial_unrolls(spec).map(|u| (Some(u), 0));
        std::iter::once((None, 0)).chain(interleaved).chain(looped)
    }

    /// The `arch` of every spec of the space.
    pub fn arch(&self) -> Target {
        self.target.unwrap_or(KernelSpec::DEFAULT_ARCH)
    }

    /// The listed stages the hard rule allows on the space's architecture,
    /// least and greatest: the least needs the least shared memory, the
    /// greatest (a ring) the fewest registers. `None` if no stage is
    /// allowed (the space is then empty).
    pub(super) fn stage_extremes(&self) -> Option<(u32, u32)> {
        let cp_async = self.arch().has_cp_async();
        let allowed = self.stages.iter().copied().filter(|&s| stages_allowed(s, cp_async));
        Some((allowed.clone().min()?, allowed.max()?))
    }

    /// The `warps` values of a thread arrangement, in generation order:
    /// `None`, then the admitted shapes by ascending `warps.0`.
    pub fn warp_shapes(&self, m_dim: u32, n_dim: u32) -> Vec<Option<WarpShape>> {
        let mut out = vec![None];
        if self.warps == Warps::Default {
            return out;
        }
        // Sub-grids of 32 threads: m × (32 / m).
        let legal: Vec<(WarpShape, u32)> = [32u32, 16, 8, 4, 2, 1]
            .into_iter()
            .filter(|&m| m_dim.is_multiple_of(m) && n_dim.is_multiple_of(32 / m))
            .map(|m| (WarpShape { m: m_dim / m, n: n_dim / (32 / m) }, m + 32 / m))
            .filter(|(w, _)| warps_fit(w.m, w.n, m_dim, n_dim))
            .collect();
        let least = legal.iter().map(|l| l.1).min().unwrap_or(0);
        out.extend(
            legal.into_iter().filter(|l| self.warps == Warps::Every || l.1 == least).map(|l| Some(l.0)),
        );
        out
    }

    /// Whether the free and pipeline parameters of `spec` are among this
    /// pipeline's values (its load shapes given): the membership half of
    /// [`Space::contains`] that the hard rules do not decide.
    pub(super) fn lists(&self, spec: &KernelSpec) -> bool {
        let math = match spec.math {
            Math::Fma => spec.mma.is_none() && self.warp_shapes(spec.m_dim, spec.n_dim).contains(&spec.warps),
            // The 16-bit maths are not in the tuner's space.
            Math::F16 | Math::Bf16 => false,
            Math::Dmma | Math::Tf32 | Math::Tf32x3 => {
                let choice = self.maths(spec).find(|c| c.math == spec.math && c.mma == spec.mma);
                choice
                    .is_some_and(|c| c.warps == spec.warps && spec.lds_width == mma_lds_width(spec.precision))
            }
        };
        let (arch, frag_sets) = match spec.wgmma() {
            Some(_) => (self.arch().sm() == 90 && spec.arch == Target::Sm90a, spec.frag_sets == 1),
            None => (spec.arch == self.arch(), true),
        };
        math && arch
            && frag_sets
            && spec.c_batch == KernelSpec::DEFAULT_C_BATCH
            && self.stages.contains(&spec.stages)
            && self.rasters.contains(&spec.raster)
            && self.frag_sets.contains(&spec.frag_sets)
            && self.walks(spec).any(|w| w == (spec.unroll, spec.interleave))
            && match &self.ldg_widths {
                LdgWidths::Each(list) => list.contains(&spec.ldg_width),
                LdgWidths::WidestOrOne => {
                    spec.ldg_width == 1
                        || spec.ldg_width == widest(spec.precision, &[stripe_a(spec), stripe_b(spec)])
                }
            }
    }
}

impl Default for Pipeline {
    fn default() -> Self {
        Pipeline::portable()
    }
}

fn stripe_a(spec: &KernelSpec) -> StripePlan {
    StripePlan::new(spec, crate::constraints::Operand::A)
}

fn stripe_b(spec: &KernelSpec) -> StripePlan {
    StripePlan::new(spec, crate::constraints::Operand::B)
}

/// Whether `width` is a legal `ldg_width` for reading `stripe` in
/// `precision` (its load shape fitting the stripe).
pub(super) fn ldg_fits(width: u32, precision: Precision, stripe: &StripePlan) -> bool {
    ldg_width_allowed(width) && ldg_width_fits_precision(width, precision) && ldg_width_divides(width, stripe)
}

/// The widest of 1, 2 and 4 that is legal for every stripe.
pub(super) fn widest(precision: Precision, stripes: &[StripePlan]) -> u32 {
    [4, 2, 1].into_iter().find(|&w| stripes.iter().all(|s| ldg_fits(w, precision, s))).unwrap_or(1)
}

/// A point's math: `fma`, or a tensor-core one with its shape and the
/// `warps` its threads fix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MathChoice {
    pub math: Math,
    pub mma: Option<MmaShape>,
    pub warps: Option<WarpShape>,
}

impl MathChoice {
    /// `spec` with this math (and, for a tensor-core one, its warps and
    /// `lds_width`; for a warpgroup shape, `arch = sm_90a`).
    pub fn apply(self, spec: KernelSpec) -> KernelSpec {
        match self.math {
            Math::Fma => KernelSpec { math: Math::Fma, mma: None, ..spec },
            Math::Dmma | Math::Tf32 | Math::Tf32x3 | Math::F16 | Math::Bf16 => {
                let spec = KernelSpec {
                    math: self.math,
                    mma: self.mma,
                    warps: self.warps,
                    lds_width: mma_lds_width(spec.precision),
                    ..spec
                };
                KernelSpec { arch: if spec.wgmma().is_some() { Target::Sm90a } else { spec.arch }, ..spec }
            }
        }
    }
}

/// The space's `ldg` values but `tma`.
fn thread_ldgs(s: &Space) -> impl Iterator<Item = crate::spec::GlobalLoad> + '_ {
    s.bounds.ldgs.iter().copied().filter(|&l| l != crate::spec::GlobalLoad::Tma)
}

/// One free dimension (see the module documentation): how many values it
/// takes at a point, and how to set the `i`-th.
pub(super) struct FreeDim {
    /// Values at a point whose spec is `spec` (tile, threads and point
    /// dimensions set).
    pub count: fn(&Space, &KernelSpec) -> usize,
    /// Sets the `i`-th value (`i < count`).
    pub set: fn(&Space, &mut KernelSpec, usize),
}

/// The free dimensions, in generation order (the last varies fastest).
pub(super) const FREE: [FreeDim; 4] = [
    // `ldg`: the paths of the threads' own loads. `tma` feeds only a
    // warp-specialized kernel (`producers = 1`), which the space does not
    // enumerate: it is never generated, and a spec with it never contained.
    FreeDim {
        count: |s, _| thread_ldgs(s).count(),
        set: |s, spec, i| spec.ldg = thread_ldgs(s).nth(i).expect("i < count"),
    },
    // `warps` (fixed at a tensor-core point)
    FreeDim {
        count: |s, spec| {
            if spec.math.is_mma() { 1 } else { s.pipeline.warp_shapes(spec.m_dim, spec.n_dim).len() }
        },
        set: |s, spec, i| {
            if !spec.math.is_mma() {
                spec.warps = s.pipeline.warp_shapes(spec.m_dim, spec.n_dim)[i];
            }
        },
    },
    // `raster`
    FreeDim { count: |s, _| s.pipeline.rasters.len(), set: |s, spec, i| spec.raster = s.pipeline.rasters[i] },
    // `unroll` or `interleave`
    FreeDim {
        // Counted and set per generated spec: no allocation.
        count: |s, spec| s.pipeline.walks(spec).count(),
        set: |s, spec, i| {
            (spec.unroll, spec.interleave) = s.pipeline.walks(spec).nth(i).expect("i < count");
        },
    },
];

/// Specs of a point from the free dimensions: their values' product.
pub(super) fn free_count(space: &Space, spec: &KernelSpec) -> u64 {
    FREE.iter().map(|d| (d.count)(space, spec) as u64).product()
}

/// Every setting of the free dimensions of `spec`, in generation order.
pub(super) fn free_settings(space: &Space, spec: KernelSpec) -> impl Iterator<Item = KernelSpec> + '_ {
    let counts: Vec<usize> = FREE.iter().map(|d| (d.count)(space, &spec)).collect();
    let total: usize = counts.iter().product();
    (0..total).map(move |mut index| {
        let mut out = spec;
        for (dim, &n) in FREE.iter().zip(&counts).rev() {
            (dim.set)(space, &mut out, index % n);
            index /= n;
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warp_shapes_of_16_by_16_threads() {
        let every = Pipeline { warps: Warps::Every, ..Pipeline::portable() };
        let shape = |m, n| Some(WarpShape { m, n });
        assert_eq!(every.warp_shapes(16, 16), [None, shape(1, 8), shape(2, 4), shape(4, 2), shape(8, 1)]);
        let squarest = Pipeline { warps: Warps::Squarest, ..Pipeline::portable() };
        assert_eq!(squarest.warp_shapes(16, 16), [None, shape(2, 4), shape(4, 2)]);
        // 8 × 4 threads: one warp, 8 × 4 sub-grid; 6 × 6 has none.
        assert_eq!(squarest.warp_shapes(8, 4), [None, shape(1, 1)]);
        assert_eq!(every.warp_shapes(6, 6), [None]);
        assert_eq!(Pipeline::portable().warp_shapes(16, 16), [None]);
    }

    #[test]
    fn tuner_pipelines_follow_the_target() {
        assert_eq!(Pipeline::tuner(Target::Sm90).stage_extremes(), Some((1, 4)));
        assert_eq!(Pipeline::tuner(Target::Sm75).stage_extremes(), Some((1, 1)));
        let none = Pipeline { stages: vec![2, 9], ..Pipeline::portable() };
        assert_eq!(none.stage_extremes(), None);
        assert_eq!(Pipeline::portable().arch(), Target::Sm70);
    }
}
