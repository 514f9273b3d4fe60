//! The 16-bit precisions' own work: the conversions between f32 and the
//! 16-bit floats (`f16`, `bf16`), and 16-bit global loads and stores
//! through 32-bit registers.
//!
//! The conversions are exact where the hardware's are: an f16 or a bf16
//! widens to f32 exactly (subnormals, infinities and NaNs included), and
//! `cvt.rn.{f16,bf16}x2.f32` rounds each f32 to the nearest 16-bit value,
//! ties to even, overflowing to infinity (no `.satfinite`) and keeping
//! subnormal results (no `.ftz`); a NaN becomes a quiet NaN (its bits the
//! `half` crate's, the GPU's canonical NaN may differ, as for every NaN an
//! operation creates, see the crate's limitations).
//!
//! `ld.global.b16` reads two bytes and zero-extends them into its 32-bit
//! register; `st.global.b16` writes the low 16 bits of its value and
//! leaves the other half of the word as it is, atomically with respect to
//! a store to that other half by another block running on another host
//! thread (the word is an `AtomicU32`). Both are 2-byte aligned, inside
//! one buffer, and checked by the race detector per half-word (see
//! `memory.rs`): two threads storing the two halves of a word do not race.

use std::sync::atomic::Ordering;

use gemm_codegen::ptx::WgmmaInput;
use half::{bf16, f16};

use super::lanes::need;
use super::{LaneTrap, WARP, Warp, Worker};
use crate::error::AccessKind;
use crate::program::{Base, Mem, Src};

/// `cvt.f32.f16`: the f16 in the low 16 bits of `bits`, as f32 bits.
pub(super) fn f16_to_f32(bits: u64) -> u64 {
    u64::from(f16::from_bits(bits as u16).to_f32().to_bits())
}

/// `cvt.rn.f16x2.f32` (`bf16` false) or `cvt.rn.bf16x2.f32`: the f32s
/// `hi` and `lo` (bits) rounded to the nearest even 16-bit float, `hi`'s
/// in the upper half of the result, `lo`'s in the lower.
pub(super) fn pack(hi: u64, lo: u64, bf16: bool) -> u64 {
    let round = |x: u64| {
        let x = f32::from_bits(x as u32);
        u32::from(if bf16 { bf16::from_f32(x).to_bits() } else { f16::from_f32(x).to_bits() })
    };
    u64::from(round(hi) << 16 | round(lo))
}

/// The value of the 16-bit `bits` of a `wgmma` operand of type `input`
/// (`f16` or `bf16`), exactly.
pub(super) fn operand_value(input: WgmmaInput, bits: u16) -> f32 {
    match input {
        WgmmaInput::Bf16 => bf16::from_bits(bits).to_f32(),
        _ => f16::from_bits(bits).to_f32(),
    }
}

impl Worker<'_> {
    /// `ld.global.b16 d, [base + off]` for lanes `m`.
    pub(super) fn load_b16(
        &mut self,
        w: &mut Warp,
        pc: u32,
        m: u32,
        d: u32,
        (base, off): (Base, i64),
    ) -> Result<(), LaneTrap> {
        let mut addrs = [0; WARP];
        Self::addresses(w, m, base, off, &mut addrs)?;
        let mut mm = m;
        while mm != 0 {
            let l = mm.trailing_zeros();
            mm &= mm - 1;
            let addr = addrs[l as usize];
            let (buf, word) = self.half_access(addr, AccessKind::Read, w.tid0 + l, pc).map_err(|t| (t, l))?;
            let v = self.read_word::<true>(buf, word) >> (16 * (addr >> 1 & 1)) & 0xffff;
            w.vals[d as usize][l as usize] = v;
        }
        w.written[d as usize] |= m;
        Ok(())
    }

    /// `st.global.b16 [base + off], s` for lanes `m`.
    pub(super) fn store_b16(
        &mut self,
        w: &mut Warp,
        pc: u32,
        m: u32,
        s: Src,
        (base, off): (Base, i64),
    ) -> Result<(), LaneTrap> {
        need(w, s, m)?;
        let mut addrs = [0; WARP];
        Self::addresses(w, m, base, off, &mut addrs)?;
        let mut mm = m;
        while mm != 0 {
            let l = mm.trailing_zeros();
            mm &= mm - 1;
            let addr = addrs[l as usize];
            let (buf, word) =
                self.half_access(addr, AccessKind::Write, w.tid0 + l, pc).map_err(|t| (t, l))?;
            let value = match s {
                Src::R(r) => w.vals[r as usize][l as usize],
                Src::I(v) => v,
            } as u32
                & 0xffff;
            let shift = 16 * (addr >> 1 & 1) as u32;
            let keep = !(0xffff << shift);
            let cell = &self.global.bufs[buf].words[word];
            // The closure always gives a value, so the update always succeeds.
            let _ = cell
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| Some(old & keep | value << shift));
        }
        Ok(())
    }

    /// Checks one lane's 16-bit global access at `addr` (inside a buffer,
    /// 2-byte aligned, a store not to a read-only buffer) and records it
    /// for the race detector: its buffer and word.
    fn half_access(
        &mut self,
        addr: u64,
        access: AccessKind,
        tid: u32,
        pc: u32,
    ) -> Result<(usize, usize), super::Trap> {
        let (buf, word) = self.locate(Mem::Global, access, addr, 2, 2)?;
        if self.checks {
            self.shadow_half(buf, (word, (addr >> 1 & 1) as usize), addr, tid, pc, access)?;
        }
        Ok((buf, word))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact widening, and rounding to nearest even with overflow to
    /// infinity, for both 16-bit types.
    #[test]
    fn conversions_round_as_the_hardware_does() {
        let f = |x: f32| u64::from(x.to_bits());
        assert_eq!(f16_to_f32(0xdead_3c00), f(1.0), "the high half is ignored");
        assert_eq!(f16_to_f32(0x0001), f(2f32.powi(-24)), "the least subnormal");
        assert_eq!(f16_to_f32(0x7c00), f(f32::INFINITY));
        assert!(f32::from_bits(f16_to_f32(0x7e00) as u32).is_nan());
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: even is 1.
        assert_eq!(pack(f(1.0 + 2f32.powi(-11)), f(1.0 + 3.0 * 2f32.powi(-11)), false), 0x3c00_3c02);
        assert_eq!(pack(f(65520.0), f(65519.0), false), 0x7c00_7bff, "overflow to infinity");
        assert_eq!(pack(f(1.0 + 2f32.powi(-8)), f(f32::MAX), true), 0x3f80_7f80);
        assert_eq!(operand_value(WgmmaInput::Bf16, 0xc040), -3.0);
        assert_eq!(operand_value(WgmmaInput::F16, 0xc200), -3.0);
    }
}
