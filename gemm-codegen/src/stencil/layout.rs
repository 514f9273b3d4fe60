//! Which elements of the C tile each thread owns.
//!
//! Following Nath, Tomov and Dongarra, a thread does not own a contiguous
//! `M_thr × N_thr` block: its rows are spread over the tile at stride
//! `M_dim` (its columns at stride `N_dim`), so that at every step of the
//! epilogue consecutive threads write consecutive rows of column-major C and
//! the stores coalesce. With `lds_width = w > 1` the rows come in runs of `w`
//! consecutive ones at stride `w · M_dim`, which lets the inner product read
//! a thread's `w` elements of A (and of B) with one vector load from shared
//! memory. A tensor-core math has the layout of its fragments instead.

use crate::constraints::Plan;

/// The per-thread layout of the C tile: along each dimension, runs of
/// consecutive rows (columns) at a fixed step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CLayout {
    rows: Runs,
    cols: Runs,
}

/// A thread's elements along one dimension: runs of `width` consecutive
/// ones, `step` apart.
#[derive(Clone, Copy, Debug)]
struct Runs {
    width: u32,
    step: u32,
}

impl Runs {
    fn offset(self, i: u32) -> u32 {
        (i / self.width) * self.step + i % self.width
    }
}

/// Whether a lane's B columns of a tensor-core math are `8j + g` (each
/// n8 tile's column `g`, as for c64) rather than a run of consecutive
/// ones: for an f64 `mma` taking several elements of B (`k ≥ 8`), which it
/// wants in consecutive registers (its k rows `t + 4i` of one column).
/// Loaded from a run, they would come two columns to a 16-byte load and
/// need moving into place (ptxas merges two 8-byte loads of adjacent
/// columns into one and then moves each half, 8 `MOV`s a k16 `mma`);
/// 8 columns apart, each lands where the `mma` reads it.
pub(crate) fn b_columns_split(spec: &crate::KernelSpec) -> bool {
    let several = matches!(spec.mma, Some(shape) if shape.k > 4);
    spec.math == crate::Math::Dmma && spec.precision == crate::Precision::F64 && several
}

impl CLayout {
    /// The layout of `plan`: the paper's strided one (runs of `lds_width`)
    /// for `fma`; for a tensor-core math, the fragments' (see
    /// `stencil/mma.rs`): for f64, in each 16 × 16 block of its warp tile,
    /// lane `(g, t)` owns rows `2g, 2g + 1` and columns `4t … 4t + 3`
    /// (`2t, 2t + 1, 2t + 8, 2t + 9` where B's columns are split,
    /// [`b_columns_split`]); for c64, in each 8 × 8 block, row `g` and
    /// columns `2t, 2t + 1`.
    pub fn new(plan: &Plan) -> CLayout {
        let spec = plan.spec();
        let w = spec.lds_width;
        if spec.wgmma().is_some() {
            // `wgmma`'s accumulators: rows g and g + 8, columns 2t, 2t + 1 of
            // each 8-column block (`stencil/wgmma.rs`).
            return CLayout { rows: Runs { width: 1, step: 8 }, cols: Runs { width: 2, step: 8 } };
        }
        if spec.math.is_mma() {
            // A lane's 16-byte loads hold `w` elements (2 f64, 1 c64): rows
            // 8w·i + w·g + …, columns 8w·j + 2w·t + … (`stencil/mma.rs`),
            // or 8j + 2t, 8j + 2t + 1 where B's columns are split.
            let cols = if b_columns_split(spec) {
                Runs { width: 2, step: 8 }
            } else {
                Runs { width: 2 * w, step: 8 * w }
            };
            return CLayout { rows: Runs { width: w, step: 8 * w }, cols };
        }
        CLayout {
            rows: Runs { width: w, step: w * spec.m_dim },
            cols: Runs { width: w, step: w * spec.n_dim },
        }
    }

    /// Rows per run: a thread's first row is `tx` times this.
    pub fn row_width(&self) -> u32 {
        self.rows.width
    }

    /// Columns per run: a thread's first column is `ty` times this.
    pub fn col_width(&self) -> u32 {
        self.cols.width
    }

    /// Rows between the starts of a thread's consecutive runs.
    pub fn row_step(&self) -> u32 {
        self.rows.step
    }

    /// Columns between the starts of a thread's consecutive runs.
    pub fn col_step(&self) -> u32 {
        self.cols.step
    }

    /// Row of the thread's `i`-th element, relative to its first row.
    pub fn row_offset(&self, i: u32) -> u32 {
        self.rows.offset(i)
    }

    /// Column of the thread's `j`-th element, relative to its first column.
    pub fn col_offset(&self, j: u32) -> u32 {
        self.cols.offset(j)
    }

    /// The layout of the transposed tile: rows and columns trade places
    /// (the epilogue of a kernel with swapped operands, which stores its
    /// product's tile as C's).
    pub fn transposed(self) -> CLayout {
        CLayout { rows: self.cols, cols: self.rows }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{KernelSpec, Op, Precision};

    fn plan(w: u32) -> Plan {
        let spec = KernelSpec {
            lds_width: w,
            ..KernelSpec::new(Precision::F32, (Op::N, Op::N), (64, 32, 8), (8, 8), (64, 1), (8, 8))
        };
        crate::validate(&spec).unwrap()
    }

    /// Every element of the tile is owned by exactly one (thread, i, j).
    #[test]
    fn threads_partition_the_tile() {
        for w in [1, 2, 4] {
            let p = plan(w);
            let l = CLayout::new(&p);
            let spec = p.spec();
            let mut owned = vec![0u32; (spec.m_blk * spec.n_blk) as usize];
            for t in 0..p.threads() {
                let (tx, ty) = (t % spec.m_dim, t / spec.m_dim);
                for i in 0..p.m_thr() {
                    for j in 0..p.n_thr() {
                        let row = tx * l.row_width() + l.row_offset(i);
                        let col = ty * l.col_width() + l.col_offset(j);
                        assert!(row < spec.m_blk && col < spec.n_blk);
                        owned[(row + col * spec.m_blk) as usize] += 1;
                    }
                }
            }
            assert!(owned.iter().all(|&n| n == 1), "width {w}");
        }
    }

    /// With a tensor-core math each warp's 32 lanes cover its warp tile
    /// once, and the warps the block's tile: dmma on f64 and c64, tf32x3 on
    /// f32 (32-row blocks) and c32.
    #[test]
    fn mma_lanes_partition_the_tile() {
        use crate::spec::{Math, Target, WarpShape};
        let cases = [((2, 4), (64, 128)), ((1, 1), (32, 32)), ((4, 2), (128, 64))];
        let maths = [
            (Precision::F64, Math::Dmma),
            (Precision::C64, Math::Dmma),
            (Precision::F32, Math::Tf32x3),
            (Precision::C32, Math::Tf32x3),
        ];
        for ((warps, tile), (precision, math)) in cases.into_iter().flat_map(|c| maths.map(|m| (c, m))) {
            let spec = KernelSpec {
                lds_width: 16 / precision.element_bytes(),
                arch: Target::Sm90,
                stages: 2,
                warps: Some(WarpShape { m: warps.0, n: warps.1 }),
                math,
                mma: math.mma_kind().and_then(|k| k.shape(16, 8, 4)),
                ..KernelSpec::new(
                    precision,
                    (Op::T, Op::N),
                    (tile.0, tile.1, 8),
                    (8 * warps.0, 4 * warps.1),
                    (8, 4 * warps.0 * warps.1),
                    (8, 4 * warps.0 * warps.1),
                )
            };
            let p = crate::validate(&spec).unwrap_or_else(|e| panic!("{e:?}"));
            let l = CLayout::new(&p);
            let (wm, wn) = (tile.0 / warps.0, tile.1 / warps.1);
            let mut owned = vec![0u32; (tile.0 * tile.1) as usize];
            for thread in 0..p.threads() {
                // As `schedule::thread_position` computes them.
                let (warp, lane) = (thread / 32, thread % 32);
                let (warp_m, warp_n) = (warp % warps.0, warp / warps.0);
                let tx = warp_m * (wm / l.row_width()) + lane / 4;
                let ty = warp_n * (wn / l.col_width()) + lane % 4;
                for i in 0..p.m_thr() {
                    for j in 0..p.n_thr() {
                        let row = tx * l.row_width() + l.row_offset(i);
                        let col = ty * l.col_width() + l.col_offset(j);
                        assert!(row / wm == warp_m && col / wn == warp_n, "inside the warp's tile");
                        owned[(row + col * tile.0) as usize] += 1;
                    }
                }
            }
            assert!(owned.iter().all(|&n| n == 1), "warps {warps:?}, {precision}");
        }
    }

    #[test]
    fn scalar_layout_is_the_papers_stride() {
        let l = CLayout::new(&plan(1));
        assert_eq!((0..4).map(|i| l.row_offset(i)).collect::<Vec<_>>(), [0, 8, 16, 24]);
        let l = CLayout::new(&plan(2));
        assert_eq!((0..4).map(|i| l.row_offset(i)).collect::<Vec<_>>(), [0, 1, 16, 17]);
    }
}
