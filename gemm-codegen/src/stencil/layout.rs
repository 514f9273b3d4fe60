//! Which elements of the C tile each thread owns.
//!
//! Following Nath, Tomov and Dongarra, a thread does not own a contiguous
//! `M_thr × N_thr` block: its rows are spread over the tile at stride
//! `M_dim` (its columns at stride `N_dim`), so that at every step of the
//! epilogue consecutive threads write consecutive rows of column-major C and
//! the stores coalesce. With `lds_width = w > 1` the rows come in runs of `w`
//! consecutive ones at stride `w · M_dim`, which lets the inner product read
//! a thread's `w` elements of A (and of B) with one vector load from shared
//! memory.

use crate::constraints::Plan;

/// The per-thread layout of the C tile.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CLayout {
    w: u32,
    m_dim: u32,
    n_dim: u32,
}

impl CLayout {
    pub fn new(plan: &Plan) -> CLayout {
        let spec = plan.spec();
        CLayout { w: spec.lds_width, m_dim: spec.m_dim, n_dim: spec.n_dim }
    }

    /// Elements per run (the `lds_width`).
    pub fn width(&self) -> u32 {
        self.w
    }

    /// Rows between the starts of a thread's consecutive runs.
    pub fn row_step(&self) -> u32 {
        self.w * self.m_dim
    }

    /// Columns between the starts of a thread's consecutive runs.
    pub fn col_step(&self) -> u32 {
        self.w * self.n_dim
    }

    /// Row of the thread's `i`-th element, relative to its first row
    /// (`tx · w` within the tile, where `tx = thread mod M_dim`).
    pub fn row_offset(&self, i: u32) -> u32 {
        (i / self.w) * self.row_step() + i % self.w
    }

    /// Column of the thread's `j`-th element, relative to its first column
    /// (`ty · w`, where `ty = thread div M_dim`).
    pub fn col_offset(&self, j: u32) -> u32 {
        (j / self.w) * self.col_step() + j % self.w
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
                        let row = tx * w + l.row_offset(i);
                        let col = ty * w + l.col_offset(j);
                        assert!(row < spec.m_blk && col < spec.n_blk);
                        owned[(row + col * spec.m_blk) as usize] += 1;
                    }
                }
            }
            assert!(owned.iter().all(|&n| n == 1), "width {w}");
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
