//! Register reads and writes of a whole warp, and the arithmetic of the
//! decoded operations, lane by lane: the inner loop of the interpreter,
//! inlined into it.

use gemm_codegen::ptx::Cmp;

use super::{LaneTrap, Lanes, Trap, WARP, Warp, first};
use crate::error::FaultKind;
use crate::program::{Class, F2, I2, IDiv, Src};

#[inline(always)]
pub(super) fn lanes(w: &Warp, s: Src) -> Lanes {
    match s {
        Src::R(r) => w.vals[r as usize],
        Src::I(v) => [v; WARP],
    }
}

/// The lanes of `s`, without copying a register: an immediate is splatted
/// into `tmp`.
#[inline(always)]
pub(super) fn lanes_ref<'a>(vals: &'a [Lanes], s: Src, tmp: &'a mut Lanes) -> &'a Lanes {
    match s {
        Src::R(r) => &vals[r as usize],
        Src::I(v) => {
            *tmp = [v; WARP];
            tmp
        }
    }
}

#[inline(always)]
pub(super) fn need(w: &Warp, s: Src, m: u32) -> Result<(), LaneTrap> {
    if let Src::R(r) = s {
        let missing = m & !w.written[r as usize];
        if missing != 0 {
            return Err((Trap::UninitVal(r), first(missing)));
        }
    }
    Ok(())
}

#[inline(always)]
pub(super) fn need_pred(w: &Warp, p: u32, m: u32) -> Result<(), LaneTrap> {
    let missing = m & !w.pwritten[p as usize];
    if missing != 0 {
        return Err((Trap::UninitPred(p), first(missing)));
    }
    Ok(())
}

#[inline(always)]
pub(super) fn set_pred(w: &mut Warp, d: u32, m: u32, bits: u32) {
    let p = &mut w.preds[d as usize];
    *p = (*p & !m) | (bits & m);
    w.pwritten[d as usize] |= m;
}

#[inline(always)]
pub(super) fn store(w: &mut Warp, d: u32, m: u32, out: Lanes) {
    let dst = &mut w.vals[d as usize];
    if m == u32::MAX {
        *dst = out;
    } else {
        let mut mm = m;
        while mm != 0 {
            let l = mm.trailing_zeros() as usize;
            dst[l] = out[l];
            mm &= mm - 1;
        }
    }
    w.written[d as usize] |= m;
}

#[inline(always)]
pub(super) fn map1(w: &mut Warp, m: u32, d: u32, a: Src, f: impl Fn(u64) -> u64) -> Result<(), LaneTrap> {
    need(w, a, m)?;
    let mut ta = [0; WARP];
    let x = lanes_ref(&w.vals, a, &mut ta);
    let mut out = [0; WARP];
    for (o, &x) in out.iter_mut().zip(x) {
        *o = f(x);
    }
    store(w, d, m, out);
    Ok(())
}

#[inline(always)]
pub(super) fn map2(
    w: &mut Warp,
    m: u32,
    d: u32,
    a: Src,
    b: Src,
    f: impl Fn(u64, u64) -> u64,
) -> Result<(), LaneTrap> {
    need(w, a, m)?;
    need(w, b, m)?;
    let (mut ta, mut tb) = ([0; WARP], [0; WARP]);
    let x = lanes_ref(&w.vals, a, &mut ta);
    let y = lanes_ref(&w.vals, b, &mut tb);
    let mut out = [0; WARP];
    for (o, (&x, &y)) in out.iter_mut().zip(x.iter().zip(y)) {
        *o = f(x, y);
    }
    store(w, d, m, out);
    Ok(())
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn map3(
    w: &mut Warp,
    m: u32,
    d: u32,
    a: Src,
    b: Src,
    c: Src,
    f: impl Fn(u64, u64, u64) -> u64,
) -> Result<(), LaneTrap> {
    need(w, a, m)?;
    need(w, b, m)?;
    need(w, c, m)?;
    let (mut ta, mut tb, mut tc) = ([0; WARP], [0; WARP], [0; WARP]);
    let x = lanes_ref(&w.vals, a, &mut ta);
    let y = lanes_ref(&w.vals, b, &mut tb);
    let z = lanes_ref(&w.vals, c, &mut tc);
    let mut out = [0; WARP];
    for (o, ((&x, &y), &z)) in out.iter_mut().zip(x.iter().zip(y).zip(z)) {
        *o = f(x, y, z);
    }
    store(w, d, m, out);
    Ok(())
}

#[inline(always)]
pub(super) fn int2(w: &mut Warp, m: u32, f: I2, d: u32, a: Src, b: Src) -> Result<(), LaneTrap> {
    let lo = |x: u64| x as u32;
    let s32 = |x: u64| x as u32 as i32;
    let u = |x: u32| u64::from(x);
    match f {
        I2::Add32 => map2(w, m, d, a, b, |x, y| u(lo(x).wrapping_add(lo(y)))),
        I2::Add64 => map2(w, m, d, a, b, |x, y| x.wrapping_add(y)),
        I2::Sub32 => map2(w, m, d, a, b, |x, y| u(lo(x).wrapping_sub(lo(y)))),
        I2::Sub64 => map2(w, m, d, a, b, |x, y| x.wrapping_sub(y)),
        I2::MulLo32 => map2(w, m, d, a, b, |x, y| u(lo(x).wrapping_mul(lo(y)))),
        I2::MulLo64 => map2(w, m, d, a, b, |x, y| x.wrapping_mul(y)),
        I2::MulWideU32 => map2(w, m, d, a, b, |x, y| u(lo(x)) * u(lo(y))),
        I2::MulWideS32 => map2(w, m, d, a, b, |x, y| (i64::from(s32(x)) * i64::from(s32(y))) as u64),
        I2::And32 | I2::And64 => map2(w, m, d, a, b, |x, y| x & y),
        I2::Or32 | I2::Or64 => map2(w, m, d, a, b, |x, y| x | y),
        I2::Xor32 | I2::Xor64 => map2(w, m, d, a, b, |x, y| x ^ y),
        // Shift amounts past the width clamp to the width.
        I2::Shl32 => map2(w, m, d, a, b, |x, y| if lo(y) >= 32 { 0 } else { u(lo(x) << lo(y)) }),
        I2::Shl64 => map2(w, m, d, a, b, |x, y| if lo(y) >= 64 { 0 } else { x << lo(y) }),
        I2::ShrU32 => map2(w, m, d, a, b, |x, y| if lo(y) >= 32 { 0 } else { u(lo(x) >> lo(y)) }),
        I2::ShrS32 => map2(w, m, d, a, b, |x, y| u((s32(x) >> lo(y).min(31)) as u32)),
        I2::ShrU64 => map2(w, m, d, a, b, |x, y| if lo(y) >= 64 { 0 } else { x >> lo(y) }),
        I2::ShrS64 => map2(w, m, d, a, b, |x, y| ((x as i64) >> lo(y).min(63)) as u64),
        I2::MinU32 => map2(w, m, d, a, b, |x, y| u(lo(x).min(lo(y)))),
        I2::MinS32 => map2(w, m, d, a, b, |x, y| u(s32(x).min(s32(y)) as u32)),
        I2::MinU64 => map2(w, m, d, a, b, |x, y| x.min(y)),
        I2::MinS64 => map2(w, m, d, a, b, |x, y| (x as i64).min(y as i64) as u64),
        I2::MaxU32 => map2(w, m, d, a, b, |x, y| u(lo(x).max(lo(y)))),
        I2::MaxS32 => map2(w, m, d, a, b, |x, y| u(s32(x).max(s32(y)) as u32)),
        I2::MaxU64 => map2(w, m, d, a, b, |x, y| x.max(y)),
        I2::MaxS64 => map2(w, m, d, a, b, |x, y| (x as i64).max(y as i64) as u64),
    }
}

pub(super) fn div(w: &mut Warp, m: u32, f: IDiv, d: u32, a: Src, b: Src) -> Result<(), LaneTrap> {
    need(w, a, m)?;
    need(w, b, m)?;
    let (x, y) = (lanes(w, a), lanes(w, b));
    let wide = matches!(f, IDiv::DivU64 | IDiv::DivS64 | IDiv::RemU64 | IDiv::RemS64);
    let mut out = [0u64; WARP];
    let mut mm = m;
    while mm != 0 {
        let l = mm.trailing_zeros() as usize;
        mm &= mm - 1;
        let (p, q) = (x[l], y[l]);
        if (if wide { q } else { q & 0xffff_ffff }) == 0 {
            return Err((Trap::Kind(FaultKind::DivisionByZero), l as u32));
        }
        let (p32, q32) = (p as u32, q as u32);
        out[l] = match f {
            IDiv::DivU32 => u64::from(p32 / q32),
            IDiv::DivS32 => u64::from((p32 as i32).wrapping_div(q32 as i32) as u32),
            IDiv::RemU32 => u64::from(p32 % q32),
            IDiv::RemS32 => u64::from((p32 as i32).wrapping_rem(q32 as i32) as u32),
            IDiv::DivU64 => p / q,
            IDiv::DivS64 => (p as i64).wrapping_div(q as i64) as u64,
            IDiv::RemU64 => p % q,
            IDiv::RemS64 => (p as i64).wrapping_rem(q as i64) as u64,
        };
    }
    store(w, d, m, out);
    Ok(())
}

/// PTX `min`/`max` on floats: a NaN operand yields the other operand.
fn fmin<F: Copy + PartialOrd>(x: F, y: F, nan: impl Fn(F) -> bool, max: bool) -> F {
    match (nan(x), nan(y)) {
        (true, _) => y,
        (_, true) => x,
        _ if max => {
            if y > x {
                y
            } else {
                x
            }
        }
        _ => {
            if y < x {
                y
            } else {
                x
            }
        }
    }
}

#[inline(always)]
pub(super) fn float2(w: &mut Warp, m: u32, f: F2, d: u32, a: Src, b: Src) -> Result<(), LaneTrap> {
    let f32b = |x: u64| f32::from_bits(x as u32);
    let b32 = |x: f32| u64::from(x.to_bits());
    let f64b = f64::from_bits;
    match f {
        F2::Add32 => map2(w, m, d, a, b, |x, y| b32(f32b(x) + f32b(y))),
        F2::Sub32 => map2(w, m, d, a, b, |x, y| b32(f32b(x) - f32b(y))),
        F2::Mul32 => map2(w, m, d, a, b, |x, y| b32(f32b(x) * f32b(y))),
        F2::Min32 => map2(w, m, d, a, b, |x, y| b32(fmin(f32b(x), f32b(y), f32::is_nan, false))),
        F2::Max32 => map2(w, m, d, a, b, |x, y| b32(fmin(f32b(x), f32b(y), f32::is_nan, true))),
        F2::Add64 => map2(w, m, d, a, b, |x, y| (f64b(x) + f64b(y)).to_bits()),
        F2::Sub64 => map2(w, m, d, a, b, |x, y| (f64b(x) - f64b(y)).to_bits()),
        F2::Mul64 => map2(w, m, d, a, b, |x, y| (f64b(x) * f64b(y)).to_bits()),
        F2::Min64 => map2(w, m, d, a, b, |x, y| fmin(f64b(x), f64b(y), f64::is_nan, false).to_bits()),
        F2::Max64 => map2(w, m, d, a, b, |x, y| fmin(f64b(x), f64b(y), f64::is_nan, true).to_bits()),
        F2::PackF16 => map2(w, m, d, a, b, |x, y| super::half::pack(x, y, false)),
        F2::PackBf16 => map2(w, m, d, a, b, |x, y| super::half::pack(x, y, true)),
    }
}

/// An ordered comparison: false when either side is NaN, `ne` included
/// (PTX's `ne`; `neu` would be the unordered one).
#[inline(always)]
fn compare<T: PartialOrd>(cmp: Cmp, x: T, y: T) -> bool {
    match cmp {
        Cmp::Eq => x == y,
        Cmp::Ne => x.partial_cmp(&y).is_some_and(|o| o != std::cmp::Ordering::Equal),
        Cmp::Lt => x < y,
        Cmp::Le => x <= y,
        Cmp::Gt => x > y,
        Cmp::Ge => x >= y,
    }
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn setp(
    w: &mut Warp,
    m: u32,
    cmp: Cmp,
    class: Class,
    d: u32,
    a: Src,
    b: Src,
) -> Result<(), LaneTrap> {
    need(w, a, m)?;
    need(w, b, m)?;
    let (x, y) = (lanes(w, a), lanes(w, b));
    let test = |l: usize| -> bool {
        let (p, q) = (x[l], y[l]);
        match class {
            Class::U32 => compare(cmp, p as u32, q as u32),
            Class::S32 => compare(cmp, p as u32 as i32, q as u32 as i32),
            Class::U64 => compare(cmp, p, q),
            Class::S64 => compare(cmp, p as i64, q as i64),
            Class::F32 => compare(cmp, f32::from_bits(p as u32), f32::from_bits(q as u32)),
            Class::F64 => compare(cmp, f64::from_bits(p), f64::from_bits(q)),
        }
    };
    let mut bits = 0u32;
    for l in 0..WARP {
        bits |= u32::from(test(l)) << l;
    }
    set_pred(w, d, m, bits);
    Ok(())
}
