//! `mma.sync` on `.f64`: a warp-collective instruction. All 32 lanes must
//! execute it together (converged and unguarded, in a whole warp); each
//! holds its fragments of A, B and C in registers, laid out as the PTX ISA
//! says ([`MmaShape::f64_a`], [`MmaShape::f64_b`], [`MmaShape::f64_c`]: the
//! one description of the layout, shared with the code generator).
//!
//! The product is computed element by element as a chain of IEEE binary64
//! FMAs along K, `d = fma(a[r][K−1], b[K−1][c], … fma(a[r][0], b[0][c],
//! c[r][c]))`: one rounding per product-add, as the FP64 tensor cores'
//! are documented to be IEEE-compliant. Whether the hardware adds the K
//! products in this order is not documented, so results are compared with
//! the f64 reference within a tolerance, never bitwise.

use gemm_codegen::ptx::MmaShape;

use super::lanes::{lanes, need, store};
use super::{LaneTrap, Trap, WARP, Warp};
use crate::error::FaultKind;
use crate::program::{Mma, Src};

/// Runs `mma` for the lanes `m` of `w`, which must be the whole warp.
pub(super) fn run(w: &mut Warp, mma: &Mma, m: u32) -> Result<(), LaneTrap> {
    if m != u32::MAX || w.lanes != u32::MAX {
        let active = (0..WARP as u32).filter(|l| m >> l & 1 == 1).map(|l| w.tid0 + l).collect();
        return Err((Trap::Kind(FaultKind::MmaNotConverged { active }), m.trailing_zeros().min(31)));
    }
    for &r in mma.a.iter().chain(&mma.b).chain(&mma.c) {
        need(w, Src::R(r), m)?;
    }
    let MmaShape { m: rows, n: cols, k: depth } = mma.shape;
    let (rows, cols, depth) = (rows as usize, cols as usize, depth as usize);
    let mut a = vec![0f64; rows * depth];
    let mut b = vec![0f64; depth * cols];
    let mut c = vec![0f64; rows * cols];
    let value = |w: &Warp, r: u32, lane: usize| f64::from_bits(lanes(w, Src::R(r))[lane]);
    for lane in 0..WARP {
        let l = lane as u32;
        for (i, &r) in mma.a.iter().enumerate() {
            let (row, col) = mma.shape.f64_a(l, i as u32);
            a[row as usize * depth + col as usize] = value(w, r, lane);
        }
        for (i, &r) in mma.b.iter().enumerate() {
            let (row, col) = mma.shape.f64_b(l, i as u32);
            b[row as usize * cols + col as usize] = value(w, r, lane);
        }
        for (i, &r) in mma.c.iter().enumerate() {
            let (row, col) = mma.shape.f64_c(l, i as u32);
            c[row as usize * cols + col as usize] = value(w, r, lane);
        }
    }
    for (row, out) in c.chunks_mut(cols).enumerate() {
        for (col, acc) in out.iter_mut().enumerate() {
            for kk in 0..depth {
                *acc = a[row * depth + kk].mul_add(b[kk * cols + col], *acc);
            }
        }
    }
    for (i, &r) in mma.d.iter().enumerate() {
        let out = std::array::from_fn(|lane| {
            let (row, col) = mma.shape.f64_c(lane as u32, i as u32);
            c[row as usize * cols + col as usize].to_bits()
        });
        store(w, r, m, out);
    }
    Ok(())
}
