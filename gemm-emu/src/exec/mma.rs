//! `mma.sync` on `.f64` and on `.tf32`: a warp-collective instruction. All
//! 32 lanes must execute it together (converged and unguarded, in a whole
//! warp); each holds its fragments of A, B and C in registers, laid out as
//! the PTX ISA says ([`MmaShape::a_at`], [`MmaShape::b_at`],
//! [`MmaShape::c_at`]: the one description of the layout, shared with the
//! code generator, the same for both kinds).
//!
//! The product is computed element by element as a chain of FMAs along K,
//! `d = fma(a[r][K−1], b[K−1][c], … fma(a[r][0], b[0][c], c[r][c]))`, in
//! binary64 for `.f64` (one rounding per product-add, as the FP64 tensor
//! cores are documented to be IEEE-compliant) and in binary32 for `.tf32`
//! (a product of two TF32 values is exact in f32; how the TF32 tensor cores
//! add is not specified by PTX). Whether the hardware adds the K products
//! in this order is not documented either, so results are compared with
//! the f64 reference within a tolerance, never bitwise.
//!
//! A `.tf32` operand must be a TF32 value, its 13 low bits zero, as
//! `cvt.rna.tf32.f32` writes it: the emulator refuses one that is not
//! ([`FaultKind::MmaOperandNotTf32`]), where the hardware would drop the
//! bits silently — the typical mistake of a kernel that forgets to round.

use gemm_codegen::ptx::{MmaKind, MmaShape};

use super::lanes::{need, store};
use super::{LaneTrap, Trap, WARP, Warp};
use crate::error::FaultKind;
use crate::program::{Mma, Src};

/// The bits of a TF32 value that must be zero: the 13 low mantissa bits.
pub(super) const TF32_LOW: u32 = 0x1fff;

pub(crate) use gemm_codegen::ptx::round_tf32;

/// Runs `mma` for the lanes `m` of `w`, which must be the whole warp.
pub(super) fn run(w: &mut Warp, mma: &Mma, m: u32) -> Result<(), LaneTrap> {
    if m != u32::MAX || w.lanes != u32::MAX {
        let active = (0..WARP as u32).filter(|l| m >> l & 1 == 1).map(|l| w.tid0 + l).collect();
        return Err((Trap::Kind(FaultKind::MmaNotConverged { active }), m.trailing_zeros().min(31)));
    }
    for &r in mma.a.iter().chain(&mma.b).chain(&mma.c) {
        need(w, Src::R(r), m)?;
    }
    if mma.kind == MmaKind::Tf32 {
        for (operand, regs) in [('A', &mma.a), ('B', &mma.b)] {
            for &r in regs {
                let lanes = &w.vals[r as usize];
                if let Some(lane) = (0..WARP).find(|&l| lanes[l] as u32 & TF32_LOW != 0) {
                    let bits = lanes[lane] as u32;
                    let thread = w.tid0 + lane as u32;
                    let fault = FaultKind::MmaOperandNotTf32 { thread, operand, bits };
                    return Err((Trap::Kind(fault), lane as u32));
                }
            }
        }
    }
    // Values widened to f64 (exact for f32); the largest shape, m16n8k16, on
    // the stack: no allocation per mma.
    let (mut a, mut b, mut c) = ([0f64; 16 * 16], [0f64; 16 * 8], [0f64; 16 * 8]);
    let value = |bits: u64| match mma.kind {
        MmaKind::F64 => f64::from_bits(bits),
        MmaKind::Tf32 => f64::from(f32::from_bits(bits as u32)),
    };
    let MmaShape { m: rows, n: cols, k: depth } = mma.shape;
    let (rows, cols, depth) = (rows as usize, cols as usize, depth as usize);
    // Each fragment register's 32 lanes, read once, to where the layout puts them.
    let gather = |regs: &[u32], at: &dyn Fn(u32, u32) -> (u32, u32), out: &mut [f64], width: usize| {
        for (i, &r) in regs.iter().enumerate() {
            for (lane, &bits) in w.vals[r as usize].iter().enumerate() {
                let (row, col) = at(lane as u32, i as u32);
                out[row as usize * width + col as usize] = value(bits);
            }
        }
    };
    gather(&mma.a, &|l, i| mma.shape.a_at(l, i), &mut a, depth);
    gather(&mma.b, &|l, i| mma.shape.b_at(l, i), &mut b, cols);
    gather(&mma.c, &|l, i| mma.shape.c_at(l, i), &mut c, cols);
    for (row, out) in c[..rows * cols].chunks_mut(cols).enumerate() {
        for (col, acc) in out.iter_mut().enumerate() {
            let products = (0..depth).map(|kk| (a[row * depth + kk], b[kk * cols + col]));
            *acc = match mma.kind {
                MmaKind::F64 => products.fold(*acc, |s, (x, y)| x.mul_add(y, s)),
                MmaKind::Tf32 => {
                    f64::from(products.fold(*acc as f32, |s, (x, y)| (x as f32).mul_add(y as f32, s)))
                }
            };
        }
    }
    for (i, &r) in mma.d.iter().enumerate() {
        let out = std::array::from_fn(|lane| {
            let (row, col) = mma.shape.c_at(lane as u32, i as u32);
            let v = c[row as usize * cols + col as usize];
            match mma.kind {
                MmaKind::F64 => v.to_bits(),
                MmaKind::Tf32 => u64::from((v as f32).to_bits()),
            }
        });
        store(w, r, m, out);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::round_tf32;

    /// Bit patterns worked out by hand: the 13 low bits are `0x1fff`, half a
    /// TF32 place `0x1000`.
    #[test]
    fn tf32_rounding_is_to_nearest_ties_away_from_zero() {
        // 1.0 and -2.5 are TF32 already; 0 and -0 stay.
        for x in [1.0f32, -2.5, 0.0, -0.0] {
            assert_eq!(round_tf32(x.to_bits()), x.to_bits(), "{x}");
        }
        // Below half a place: down; at half: away from zero (both signs).
        assert_eq!(round_tf32(0x3f80_0fff), 0x3f80_0000);
        assert_eq!(round_tf32(0x3f80_1000), 0x3f80_2000);
        assert_eq!(round_tf32(0xbf80_1000), 0xbf80_2000);
        assert_eq!(round_tf32(0xbf80_0fff), 0xbf80_0000);
        // A carry into the exponent: 1.99999… rounds to 2.
        assert_eq!(round_tf32(0x3fff_f000), 0x4000_0000);
        // Past the largest TF32, infinity; infinities stay; NaN is canonical.
        assert_eq!(round_tf32(0x7f7f_f000), 0x7f80_0000);
        assert_eq!(round_tf32(0xff7f_f800), 0xff80_0000);
        assert_eq!(round_tf32(f32::INFINITY.to_bits()), f32::INFINITY.to_bits());
        assert_eq!(round_tf32(f32::NEG_INFINITY.to_bits()), f32::NEG_INFINITY.to_bits());
        assert_eq!(round_tf32(0x7fff_ffff), 0x7fff_ffff);
        assert_eq!(round_tf32(0xffc0_0001), 0x7fff_ffff);
        // Subnormals round the same way: 0x1fff up to 0x2000, 0x0fff down.
        assert_eq!(round_tf32(0x0000_1fff), 0x0000_2000);
        assert_eq!(round_tf32(0x8000_0fff), 0x8000_0000);
        // The result is always a TF32 value.
        for x in [0x1234_5678u32, 0xdead_beef, 0x0000_1001, 0x7f7f_ffff] {
            assert_eq!(round_tf32(x) & 0x1fff, 0, "{x:#x}");
        }
    }
}
