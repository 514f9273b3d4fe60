//! Launch plans: what one or more kernel launches compute, before the GPU
//! or the emulator gives them addresses.
//!
//! A [`Pass`] is a grid of problems of one checked shape ([`Launch`]), with
//! its matrices named by [`Place`] and the batch layout of the kernel ABI
//! ([`Batch`]). A plain call is one pass of one problem; a strided batch one
//! pass of `count` problems; a split K two passes (the slices' partial
//! products into a workspace, then their ordered sum into C, see
//! [`split_k`]). Grids hold at most [`LaunchShape::MAX_GRID_Z`] problems, so
//! a pass runs as [`Pass::chunks`].

use gemm_codegen::abi::Batch;
use gemm_codegen::{Element, LaunchShape, Op, Requirements};

use crate::validate::{BatchLaunch, Launch};

/// Where a pass finds a matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// The caller's A.
    A,
    /// The caller's B.
    B,
    /// The caller's C.
    C,
    /// The workspace's partial products, `slices` column-major `m × n`
    /// matrices one after another.
    Partials,
    /// The workspace's column of ones (`slices` elements).
    Ones,
}

/// A grid of problems of one shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pass<T> {
    /// The problem (its `grid` is not used: each chunk computes its own).
    pub launch: Launch<T>,
    /// Where the kernel's `a`, `b` and `c` are.
    pub places: [Place; 3],
    /// The problems' layout; `k_last` is the last problem's depth.
    pub batch: Batch,
    /// Problems in the pass (at least 1).
    pub problems: u64,
}

/// One launch of a pass: problems `first ..` `first + count`, the batch
/// whose `k_last` is the pass's for the chunk holding its last problem and
/// `k` for the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// The chunk's first problem: its matrices start `first` strides in.
    pub first: u64,
    /// Problems in the chunk, the grid's depth.
    pub count: u32,
    /// The chunk's batch arguments.
    pub batch: Batch,
}

impl<T: Element> Pass<T> {
    /// A pass of one problem.
    pub fn single(launch: Launch<T>, places: [Place; 3]) -> Pass<T> {
        Pass { launch, places, batch: Batch::single(launch.k), problems: 1 }
    }

    /// The pass of a checked strided batch: its problems, its strides, A and
    /// B in the kernel's order.
    pub fn of_batch(batch: BatchLaunch<T>) -> Pass<T> {
        let [stride_a, stride_b, stride_c] = batch.strides;
        let launch = batch.launch;
        Pass {
            launch,
            places: [Place::A, Place::B, Place::C],
            batch: Batch { stride_a, stride_b, stride_c, k_last: launch.k, arrays: false, problems: 1 },
            problems: batch.count,
        }
        .with_operands(launch)
    }

    /// The pass with its operand places in the order the column-major
    /// kernel takes them: A and B swapped for a row-major `launch`.
    pub fn with_operands(mut self, launch: Launch<T>) -> Pass<T> {
        let (a, b) = launch.operands(self.places[0], self.places[1]);
        self.places[..2].copy_from_slice(&[a, b]);
        self
    }

    /// Whether every problem's A and B, at the addresses `addr` gives and
    /// `batch`'s strides apart, meet `requires`' alignment (then the kernel
    /// runs, else its unaligned twin). A pointer-array pass's problems are
    /// not at strides: its caller, which knows the pointers, decides.
    pub fn strided_operands_aligned(&self, requires: &Requirements, addr: &dyn Fn(Place) -> u64) -> bool {
        let (l, b) = (&self.launch, &self.batch);
        requires.operands_aligned(addr(self.places[0]), addr(self.places[1]), l.lda, l.ldb)
            && requires.strides_aligned(b.stride_a, b.stride_b)
    }

    /// The pass's launches, in order.
    pub fn chunks(&self) -> impl Iterator<Item = Chunk> + '_ {
        let step = LaunchShape::MAX_GRID_Z;
        (0..self.problems.div_ceil(step)).map(move |i| {
            let first = i * step;
            let count = (self.problems - first).min(step);
            let last = first + count == self.problems;
            let k_last = if last { self.batch.k_last } else { self.launch.k };
            Chunk {
                first,
                count: count as u32,
                batch: Batch { k_last, problems: count as u32, ..self.batch },
            }
        })
    }
}

/// Slices a split K cuts its reduction into, at most.
pub const MAX_SLICES: u32 = 128;
/// Each slice but the last is a multiple of this deep, so that every
/// slice's A and B are as aligned as the call's (any kernel's vector width
/// divides it).
pub const SLICE_GRAIN: u32 = 32;

/// A split K: the reduction of one problem cut into `slices` slices of
/// `depth` (the last shorter), computed as two passes: the slices' partial
/// products `P_z = op(A)_z · op(B)_z` into the workspace, then `C = alpha ·
/// (P_0 + P_1 + … ) + beta · C` in slice order. The sum's order is fixed, so
/// the same inputs give bitwise the same C on every run; no atomics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SplitK<T> {
    /// Slices (at least 2).
    pub slices: u32,
    /// Depth of every slice but the last.
    pub depth: u32,
    /// The slices' products, into [`Place::Partials`].
    pub partial: Pass<T>,
    /// Their sum into C: column `j` of C is the `m × 1` product of the
    /// `m × slices` matrix of column `j` of every partial with the column of
    /// ones, `alpha` and `beta` as the call's (one `m·n × 1` problem when C
    /// is contiguous).
    pub reduce: Pass<T>,
}

impl<T> SplitK<T> {
    /// Elements of [`Place::Partials`].
    pub fn partials_len(&self) -> u64 {
        self.partial.problems * self.partial.batch.stride_c
    }
}

/// How a runner's default calls split K ([`crate::Gemm::with_split`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SplitRule {
    /// The class's tuned split where it has one and the call has no more
    /// tiles than its shape ([`tuned_slices`]), else [`default_slices`]:
    /// split where the call's tiles leave the GPU idle and K is long.
    #[default]
    Auto,
    /// Never split: one kernel over the whole K.
    Never,
    /// Ask for this many slices on every call (fewer where K is short:
    /// [`slicing`]; 0 and 1 mean no split).
    Slices(u32),
}

impl SplitRule {
    /// The slices asked for on a call whose kernel has `tiles` output tiles
    /// of depth `k` on a GPU holding `resident` of its blocks at once.
    pub fn slices(self, tiles: u64, k: u64, resident: u64) -> u32 {
        match self {
            SplitRule::Auto => default_slices(tiles, k, resident),
            SplitRule::Never => 1,
            SplitRule::Slices(n) => n.max(1),
        }
    }
}

/// The slices of a class's tuned split (`KernelEntry::slices`) a call with
/// `tiles` output tiles takes under `rule`: the class's, where the rule is
/// [`SplitRule::Auto`], the class was tuned split and the call has no more
/// tiles than the class's shape (`class_tiles`: more tiles fill more of the
/// GPU unsplit); `None` where the runner's rule decides.
pub fn tuned_slices(rule: SplitRule, slices: u32, tiles: u64, class_tiles: u64) -> Option<u32> {
    (rule == SplitRule::Auto && slices > 1 && tiles <= class_tiles).then_some(slices)
}

/// The slices the default dispatch splits a call's K into: none (1) unless
/// the call's `tiles` output tiles fill at most half of the blocks the GPU
/// holds at once (`resident`: its multiprocessors times the kernel's blocks
/// per multiprocessor) and K is long (at least 4096); then enough slices to
/// fill those blocks once, each slice at least 1024 deep, at most
/// [`MAX_SLICES`]. (On the H100 one resident wave was the best of 2 to 128
/// slices, or within 5% of it, for every large-K shape measured:
/// `tuning/sm_90-splitk/`.)
pub fn default_slices(tiles: u64, k: u64, resident: u64) -> u32 {
    if tiles == 0 || k < 4096 || 2 * tiles > resident {
        return 1;
    }
    (resident / tiles).min(k / 1024).min(u64::from(MAX_SLICES)) as u32
}

/// How a depth `k` is cut when asked for `slices` slices: the slices made
/// and the depth of every one but the last (a multiple of [`SLICE_GRAIN`];
/// the last is shorter or as deep), or `None` when it is not cut.
pub fn slicing(k: u32, slices: u32) -> Option<(u32, u32)> {
    let slices = slices.min(MAX_SLICES);
    if k == 0 || slices < 2 {
        return None;
    }
    let depth = k.div_ceil(slices).next_multiple_of(SLICE_GRAIN);
    let slices = k.div_ceil(depth);
    (slices >= 2).then_some((slices, depth))
}

/// The split of `launch` into at most `slices` slices (fewer when K is
/// short: each at least [`SLICE_GRAIN`] deep), or `None` when it would not
/// split (fewer than two slices, or nothing to reduce).
pub fn split_k<T: Element>(launch: &Launch<T>, slices: u32) -> Option<SplitK<T>> {
    let k = launch.k;
    let (slices, depth) = slicing(k, slices)?;
    let k_last = k - (slices - 1) * depth;
    let (m, n) = (u64::from(launch.m), u64::from(launch.n));
    let deep = u64::from(depth);
    // Slice z of op(A) is columns z·depth.. of op(A): for op N columns of
    // the stored A (depth · lda further), else its rows; the reverse for B.
    let stride_a = if launch.op_a == Op::N { deep * launch.lda } else { deep };
    let stride_b = if launch.op_b == Op::N { deep } else { deep * launch.ldb };
    let (first, second) = launch.operands(Place::A, Place::B);
    let partial = Pass {
        launch: Launch { k: depth, ldc: m, alpha: T::ONE, beta: T::ZERO, grid: None, ..*launch },
        places: [first, second, Place::Partials],
        batch: Batch { stride_a, stride_b, stride_c: m * n, k_last, arrays: false, problems: 1 },
        problems: u64::from(slices),
    };
    let sum = Launch {
        op_a: Op::N,
        op_b: Op::N,
        m: launch.m,
        n: 1,
        k: slices,
        lda: m * n,
        ldb: u64::from(slices),
        ldc: launch.ldc,
        alpha: launch.alpha,
        beta: launch.beta,
        swap_ab: false,
        grid: None,
    };
    let places = [Place::Partials, Place::Ones, Place::C];
    let contiguous = launch.ldc == m && m * n <= crate::validate::MAX_DIM as u64;
    let reduce = if contiguous {
        let whole = (m * n) as u32;
        Pass::single(Launch { m: whole, ldc: m * n, ..sum }, places)
    } else {
        Pass {
            launch: sum,
            places,
            batch: Batch {
                stride_a: m,
                stride_b: 0,
                stride_c: launch.ldc,
                k_last: slices,
                arrays: false,
                problems: 1,
            },
            problems: n,
        }
    };
    Some(SplitK { slices, depth, partial, reduce })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(op_a: Op, op_b: Op, m: u32, n: u32, k: u32, ldc: u64) -> Launch<f64> {
        Launch {
            op_a,
            op_b,
            m,
            n,
            k,
            lda: if op_a == Op::N { u64::from(m) } else { u64::from(k) },
            ldb: if op_b == Op::N { u64::from(k) } else { u64::from(n) },
            ldc,
            alpha: 2.0,
            beta: 0.5,
            swap_ab: false,
            grid: None,
        }
    }

    #[test]
    fn a_tuned_split_serves_calls_of_no_more_tiles_under_auto() {
        assert_eq!(tuned_slices(SplitRule::Auto, 3, 36, 36), Some(3));
        assert_eq!(tuned_slices(SplitRule::Auto, 3, 20, 36), Some(3));
        assert_eq!(tuned_slices(SplitRule::Auto, 3, 37, 36), None);
        assert_eq!(tuned_slices(SplitRule::Auto, 1, 4, 36), None);
        assert_eq!(tuned_slices(SplitRule::Never, 3, 4, 36), None);
        assert_eq!(tuned_slices(SplitRule::Slices(5), 3, 4, 36), None);
    }

    #[test]
    fn the_default_splits_only_long_ks_of_few_tiles() {
        assert_eq!(default_slices(4, 65536, 132), 33);
        assert_eq!(default_slices(16, 65536, 132), 8);
        assert_eq!(default_slices(66, 1 << 20, 132), 2);
        assert_eq!(default_slices(67, 1 << 20, 132), 1);
        assert_eq!(default_slices(1, 4096, 132), 4);
        assert_eq!(default_slices(1, 4095, 132), 1);
        assert_eq!(default_slices(1, 1 << 30, 1000), MAX_SLICES);
        assert_eq!(default_slices(0, 1 << 20, 132), 1);
    }

    #[test]
    fn slices_cover_k_exactly_once_and_align() {
        for k in [1u32, 31, 32, 33, 64, 100, 1000, 4097, 65536, 100_003] {
            for want in [0u32, 1, 2, 3, 7, 16, 200] {
                let l = launch(Op::N, Op::T, 17, 5, k, 17);
                let Some(s) = split_k(&l, want) else {
                    assert!(want < 2 || k <= SLICE_GRAIN, "k {k} slices {want}");
                    continue;
                };
                assert!(s.slices >= 2 && s.slices <= want.min(MAX_SLICES), "k {k} slices {want}");
                assert_eq!(s.depth % SLICE_GRAIN, 0);
                let last = s.partial.batch.k_last;
                assert!(last >= 1 && last <= s.depth);
                assert_eq!((s.slices - 1) * s.depth + last, k);
                assert_eq!(s.partial.batch.stride_a, u64::from(s.depth) * 17);
                assert_eq!(s.partial.batch.stride_b, u64::from(s.depth) * 5);
                assert_eq!(s.partial.launch.k, s.depth);
            }
        }
    }

    #[test]
    fn a_split_rule_asks_for_its_slices() {
        let (tiles, k, resident) = (4, 1 << 16, 264);
        assert_eq!(SplitRule::Auto.slices(tiles, k, resident), default_slices(tiles, k, resident));
        assert!(SplitRule::Auto.slices(tiles, k, resident) > 1);
        assert_eq!(SplitRule::Never.slices(tiles, k, resident), 1);
        assert_eq!(SplitRule::Slices(7).slices(1000, 64, resident), 7);
        assert_eq!(SplitRule::Slices(0).slices(tiles, k, resident), 1);
        assert_eq!(SplitRule::default(), SplitRule::Auto);
    }

    #[test]
    fn the_sum_is_one_problem_for_contiguous_c_and_a_column_each_otherwise() {
        let s = split_k(&launch(Op::T, Op::N, 10, 6, 4096, 10), 4).unwrap();
        assert_eq!((s.reduce.problems, s.reduce.launch.m, s.reduce.launch.n), (1, 60, 1));
        assert_eq!((s.partial.batch.stride_a, s.partial.batch.stride_b), (1024, 1024));
        assert_eq!(s.partials_len(), 4 * 60);
        let s = split_k(&launch(Op::N, Op::N, 10, 6, 4096, 12), 4).unwrap();
        assert_eq!((s.reduce.problems, s.reduce.launch.m, s.reduce.launch.n), (6, 10, 1));
        assert_eq!((s.reduce.batch.stride_a, s.reduce.batch.stride_c, s.reduce.launch.lda), (10, 12, 60));
        assert_eq!((s.reduce.launch.alpha, s.reduce.launch.beta), (2.0, 0.5));
        assert_eq!((s.partial.launch.alpha, s.partial.launch.beta, s.partial.launch.ldc), (1.0, 0.0, 10));
    }

    #[test]
    fn chunks_hold_at_most_a_grids_depth_and_only_the_last_is_short() {
        let mut p = Pass::single(launch(Op::N, Op::N, 4, 4, 64, 4), [Place::A, Place::B, Place::C]);
        p.problems = 2 * LaunchShape::MAX_GRID_Z + 3;
        p.batch.k_last = 7;
        let chunks: Vec<Chunk> = p.chunks().collect();
        assert_eq!(chunks.len(), 3);
        assert_eq!(chunks.iter().map(|c| u64::from(c.count)).sum::<u64>(), p.problems);
        assert_eq!(chunks[1].first, LaunchShape::MAX_GRID_Z);
        assert_eq!(chunks.iter().map(|c| c.batch.k_last).collect::<Vec<_>>(), [64, 64, 7]);
    }
}
