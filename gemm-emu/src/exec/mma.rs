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

use super::lanes::{need, store};
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
    // The largest .f64 shape, m16n8k16, on the stack: no allocation per mma.
    let (mut a, mut b, mut c) = ([0f64; 16 * 16], [0f64; 16 * 8], [0f64; 16 * 8]);
    // Each fragment register's 32 lanes, read once, to where the layout puts them.
    let gather = |regs: &[u32], at: &dyn Fn(u32, u32) -> (u32, u32), out: &mut [f64], width: usize| {
        for (i, &r) in regs.iter().enumerate() {
            for (lane, &bits) in w.vals[r as usize].iter().enumerate() {
                let (row, col) = at(lane as u32, i as u32);
                out[row as usize * width + col as usize] = f64::from_bits(bits);
            }
        }
    };
    gather(&mma.a, &|l, i| mma.shape.f64_a(l, i), &mut a, depth);
    gather(&mma.b, &|l, i| mma.shape.f64_b(l, i), &mut b, cols);
    gather(&mma.c, &|l, i| mma.shape.f64_c(l, i), &mut c, cols);
    for (row, out) in c[..rows * cols].chunks_mut(cols).enumerate() {
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
