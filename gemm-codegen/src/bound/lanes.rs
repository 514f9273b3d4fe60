//! The shared-memory cycles of a loop trip, from the addresses each lane
//! touches.
//!
//! Shared memory is 32 banks of 4-byte words; each bank delivers one word
//! per clock, and lanes reading the same word share the delivery
//! (broadcast). A warp-level access therefore takes at least as many cycles
//! as the largest number of distinct words it touches in one bank, and
//! accesses take turns. Summed over the warps of a block, that is a lower
//! bound on the cycles one trip of the block's loop keeps shared memory busy
//! (a 16-byte access served a quarter warp at a time, [`cycles`]), and so an
//! upper bound on its FMAs per clock.
//!
//! The addresses come from running the kernel's integer code on every
//! thread of one block without a GPU: a small abstract interpreter that
//! knows `%tid.x`, `%ntid.x`, immediates and shared-array addresses, and
//! treats everything else (parameters, block indices, loaded values,
//! predicates, floating point) as unknown. The straight-line code before
//! the loop sets up the shared pointers, and the loop's first trip runs
//! from the values it leaves: a ring's read pointers (slot offsets from a
//! counter the code before the loop starts at zero), the stripe's steps.
//! Later trips move each pointer by the same amount on every lane (the next
//! slot, the next rows; a chunk swizzle's XOR stays below the 128-byte
//! alignment of slots), which leaves every access's cycles as they were. An
//! access whose address stays unknown, or that is guarded, is charged one
//! cycle per warp: still a lower bound, only a loose one.

use std::collections::HashSet;
use std::ops::Range;

use super::mix::written;
use crate::ptx::{AddrBase, Address, BinOp, Instr, Kernel, Operand, Space, Special, Stmt, Type, UnOp};

/// Lanes per warp on every GPU gemmforge targets.
pub(super) const WARP: u32 = 32;
/// Shared-memory banks, each one 4-byte word wide.
pub(super) const BANKS: u64 = 32;

/// The shared-memory cycles of one trip of a block through the loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SharedCycles {
    /// Threads of the block the cycles are summed over (one warp when the
    /// kernel does not fix its block shape with `.reqntid`).
    pub threads: u32,
    /// Cycles, summed over the block's warps and the trip's accesses.
    pub cycles: u64,
    /// Warp-level accesses whose addresses were not known (or that were
    /// guarded), charged one cycle each.
    pub unknown: u64,
    /// The cycles the known accesses would take without a bank conflict:
    /// each phase its distinct words over the 32 banks, rounded up. What
    /// `cycles` has beyond this and `unknown` is bank conflicts.
    pub fewest: u64,
}

impl SharedCycles {
    /// The cycles bank conflicts add to the known accesses: `cycles`
    /// beyond `unknown` and `fewest`.
    pub fn conflicts(&self) -> u64 {
        self.cycles - self.unknown - self.fewest
    }
}

/// Per-thread values of a register, when known for every thread.
type Value = Option<Vec<u64>>;

struct Eval {
    threads: u32,
    /// `%ntid.x`, when the kernel fixes it.
    ntid: Option<u32>,
    regs: Vec<Value>,
    shared_base: Vec<u64>,
}

/// The shared-memory cycles of `body` (statements of `kernel`), after the
/// straight-line code before it has run.
pub(super) fn shared_cycles(kernel: &Kernel, body: Range<usize>) -> SharedCycles {
    let (threads, ntid) = match kernel.reqntid {
        Some((x, y, z)) => (x * y * z, Some(x)),
        None => (WARP, None),
    };
    let mut base = 0u64;
    let shared_base = kernel
        .shared
        .iter()
        .map(|s| {
            let at = base.next_multiple_of(u64::from(s.align.max(1)));
            // The dynamic array comes last; its size does not move anything.
            base = at + u64::from(s.bytes.unwrap_or(0));
            at
        })
        .collect();
    let mut eval = Eval { threads, ntid, regs: vec![None; kernel.regs.len()], shared_base };
    for stmt in &kernel.body[..body.start] {
        if let Stmt::Instr { guard, instr } = stmt {
            eval.step(guard.is_some(), instr);
        }
    }
    // The loop's first trip: the values before it are the ones it starts
    // from (see the module doc).
    let mut out = SharedCycles { threads, ..SharedCycles::default() };
    let warps = u64::from(threads.div_ceil(WARP));
    for stmt in &kernel.body[body] {
        let Stmt::Instr { guard, instr } = stmt else { continue };
        let access = match instr {
            Instr::Ld { space: Space::Shared, ty, dst, addr, .. } => {
                Some((addr, ty.bytes() * dst.len() as u32))
            }
            Instr::St { space: Space::Shared, ty, src, addr } => Some((addr, ty.bytes() * src.len() as u32)),
            _ => None,
        };
        if let Some((addr, bytes)) = access {
            match eval.addresses(addr).filter(|_| guard.is_none()) {
                Some(at) => {
                    let (cycles, fewest) = cycles(&at, bytes);
                    out.cycles += cycles;
                    out.fewest += fewest;
                }
                None => {
                    out.cycles += warps;
                    out.unknown += warps;
                }
            }
        }
        eval.step(guard.is_some(), instr);
    }
    out
}

/// Cycles of the warps of one access. The hardware serves a 16-byte access
/// a quarter warp at a time, narrower ones a warp at a time; a phase takes
/// the most distinct words any bank holds among the words its lanes touch.
/// A phase touching only words an earlier phase of the same access touched
/// is counted as riding along with it (a broadcast), which keeps the sum a
/// lower bound. (Against ncu on an H200: a DGEMM's fragment loads with
/// their rows 16 bytes apart cost exactly the extra wavefronts this counts,
/// 4 per 16-byte load and 2 per 8-byte one; the H100 journal's c32 kernels,
/// whose half warps read different words of B in one wavefront, rule out
/// half-warp phases for 8-byte loads.)
/// Also returns the cycles without a bank conflict (see
/// [`SharedCycles::fewest`]).
fn cycles(addresses: &[u64], bytes: u32) -> (u64, u64) {
    let phase = if bytes >= 16 { WARP / 4 } else { WARP } as usize;
    let words = |lanes: &[u64]| -> HashSet<u64> {
        lanes.iter().flat_map(|&a| (a / 4)..(a + u64::from(bytes)).div_ceil(4)).collect()
    };
    let (mut cycles, mut fewest) = (0, 0);
    for warp in addresses.chunks(WARP as usize) {
        let mut seen: HashSet<u64> = HashSet::new();
        for lanes in warp.chunks(phase) {
            let words = words(lanes);
            if !words.is_subset(&seen) {
                let mut per_bank = [0u64; BANKS as usize];
                for &w in &words {
                    per_bank[(w % BANKS) as usize] += 1;
                }
                cycles += per_bank.into_iter().max().unwrap_or(0).max(1);
                fewest += (words.len() as u64).div_ceil(BANKS).max(1);
            }
            seen.extend(words);
        }
    }
    (cycles, fewest)
}

/// `v` of a `bits`-wide type, sign-extended when `signed`.
fn extend(v: u64, bits: u32, signed: bool) -> i128 {
    if bits >= 64 {
        if signed { i128::from(v as i64) } else { i128::from(v) }
    } else if signed {
        let shift = 64 - bits;
        i128::from(((v << shift) as i64) >> shift)
    } else {
        i128::from(v & ((1u64 << bits) - 1))
    }
}

/// The low `bits` of `v`.
fn wrap(v: i128, bits: u32) -> u64 {
    if bits >= 64 { v as u64 } else { (v as u64) & ((1u64 << bits) - 1) }
}

impl Eval {
    fn operand(&self, op: &Operand) -> Value {
        let n = self.threads as usize;
        match *op {
            Operand::Reg(r) => self.regs[r.index()].clone(),
            Operand::Imm(v) => Some(vec![v as u64; n]),
            Operand::Special(Special::TidX) => {
                let x = self.ntid.unwrap_or(WARP);
                Some((0..self.threads).map(|t| u64::from(t % x)).collect())
            }
            Operand::Special(Special::NtidX) => self.ntid.map(|x| vec![u64::from(x); n]),
            Operand::Special(
                Special::CtaidX | Special::CtaidY | Special::CtaidZ | Special::NctaidX | Special::NctaidZ,
            ) => None,
            Operand::Shared(s) => Some(vec![self.shared_base[s.index()]; n]),
            Operand::F32(_) | Operand::F64(_) | Operand::Global(_) => None,
        }
    }

    /// Per-thread byte addresses of a shared access, if known.
    fn addresses(&self, addr: &Address) -> Option<Vec<u64>> {
        let base = match addr.base {
            AddrBase::Reg(r) => self.regs[r.index()].clone()?,
            AddrBase::Shared(s) => vec![self.shared_base[s.index()]; self.threads as usize],
            AddrBase::Param(_) => return None,
        };
        Some(base.into_iter().map(|b| b.wrapping_add(addr.offset as u64)).collect())
    }

    /// Runs `instr` on every thread; a guarded write is unknown (predicates
    /// are not tracked).
    fn step(&mut self, guarded: bool, instr: &Instr) {
        let value = if guarded { None } else { self.value(instr) };
        for r in written(instr) {
            self.regs[r] = value.clone();
        }
    }

    /// The value `instr` writes, if it writes one integer known on every
    /// thread.
    fn value(&self, instr: &Instr) -> Value {
        let each =
            |a: Vec<u64>, f: &dyn Fn(u64) -> Option<u64>| a.into_iter().map(f).collect::<Option<Vec<_>>>();
        let pair = |a: Vec<u64>, b: Vec<u64>, f: &dyn Fn(u64, u64) -> Option<u64>| {
            a.into_iter().zip(b).map(|(x, y)| f(x, y)).collect::<Option<Vec<_>>>()
        };
        match instr {
            Instr::Mov { dst, src } if !dst.ty().is_float() && dst.ty() != Type::Pred => {
                let bits = dst.ty().bits();
                each(self.operand(src)?, &|v| Some(wrap(i128::from(v), bits)))
            }
            Instr::Cvt { dst, src } => {
                let (from, to) = (src.ty(), dst.ty());
                each(self.regs[src.index()].clone()?, &|v| {
                    Some(wrap(extend(v, from.bits(), from.is_signed()), to.bits()))
                })
            }
            Instr::Unary { op, ty, src, .. } if !ty.is_float() && *ty != Type::Pred => {
                let bits = ty.bits();
                each(self.operand(src)?, &|v| {
                    Some(match op {
                        UnOp::Neg => wrap(-extend(v, bits, true), bits),
                        UnOp::Not => wrap(i128::from(!v), bits),
                    })
                })
            }
            Instr::Binary { op, ty, a, b, .. } if !ty.is_float() && *ty != Type::Pred => {
                let (bits, signed) = (ty.bits(), ty.is_signed());
                let op = *op;
                pair(self.operand(a)?, self.operand(b)?, &|x, y| binary(op, bits, signed, x, y))
            }
            Instr::Mad { wide, ty, a, b, c, .. } => {
                let (bits, signed) = (ty.bits(), ty.is_signed());
                let out_bits = if *wide { 2 * bits } else { bits };
                let ab = pair(self.operand(a)?, self.operand(b)?, &|x, y| {
                    Some(wrap(extend(x, bits, signed) * extend(y, bits, signed), out_bits))
                })?;
                pair(ab, self.operand(c)?, &|p, z| Some(wrap(i128::from(p) + i128::from(z), out_bits)))
            }
            _ => None,
        }
    }
}

/// `op` on `bits`-wide integers; `None` where PTX leaves the result
/// undefined (division by zero) or the IR has no integer meaning.
fn binary(op: BinOp, bits: u32, signed: bool, x: u64, y: u64) -> Option<u64> {
    let (a, b) = (extend(x, bits, signed), extend(y, bits, signed));
    let shift = (y & 0xffff_ffff).min(u64::from(bits)) as u32;
    Some(match op {
        BinOp::Add => wrap(a + b, bits),
        BinOp::Sub => wrap(a - b, bits),
        BinOp::Mul => wrap(a * b, bits),
        BinOp::MulWide => wrap(a * b, 2 * bits),
        BinOp::Div => wrap(a.checked_div(b).filter(|_| b != 0)?, bits),
        BinOp::Rem => wrap(a.checked_rem(b).filter(|_| b != 0)?, bits),
        BinOp::And => wrap(i128::from(x & y), bits),
        BinOp::Or => wrap(i128::from(x | y), bits),
        BinOp::Xor => wrap(i128::from(x ^ y), bits),
        BinOp::Shl => wrap(i128::from(x) << shift, bits),
        BinOp::Shr => wrap(a >> shift, bits),
        BinOp::Min => wrap(a.min(b), bits),
        BinOp::Max => wrap(a.max(b), bits),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_semantics_follow_the_type() {
        assert_eq!(extend(0xffff_fffe, 32, true), -2);
        assert_eq!(extend(0xffff_fffe, 32, false), 0xffff_fffe);
        assert_eq!(binary(BinOp::Add, 32, false, 0xffff_ffff, 1), Some(0));
        assert_eq!(binary(BinOp::Shr, 32, true, 0xffff_fff0, 4), Some(0xffff_ffff));
        assert_eq!(binary(BinOp::Shr, 32, false, 0xffff_fff0, 4), Some(0x0fff_ffff));
        assert_eq!(binary(BinOp::Div, 32, true, (-7i32) as u32 as u64, 2), Some((-3i32) as u32 as u64));
        assert_eq!(binary(BinOp::Rem, 32, false, 7, 0), None);
        assert_eq!(binary(BinOp::MulWide, 32, false, 0x8000_0000, 4), Some(0x2_0000_0000));
        assert_eq!(binary(BinOp::Min, 32, true, (-1i32) as u32 as u64, 3), Some(0xffff_ffff));
        assert_eq!(binary(BinOp::And, 32, false, 0x1234_5678, (-16i64) as u64), Some(0x1234_5670));
    }

    #[test]
    fn bank_cycles_count_distinct_words_per_bank() {
        // (cycles, without conflicts). Broadcast: 32 lanes on one word; a
        // 2-way conflict; 16-byte rows.
        assert_eq!(cycles(&[64; 32], 4), (1, 1));
        assert_eq!(cycles(&(0..32).map(|t| 8 * t).collect::<Vec<_>>(), 4), (2, 1));
        assert_eq!(cycles(&(0..32).map(|t| 16 * t).collect::<Vec<_>>(), 16), (4, 4));
        // Two warps add up; a partial warp is still a cycle.
        assert_eq!(cycles(&(0..40).map(|t| 4 * t).collect::<Vec<_>>(), 4), (2, 2));
        // A 16-byte access a quarter warp at a time: lanes (g, t) = (lane / 4,
        // lane mod 4) reading 16 bytes at column 16 g of row t, rows 1040
        // bytes apart, overlap two by two in the banks (8 cycles, as ncu
        // counted on the GPU); 1056 bytes apart (a 32-byte skew) they do not
        // (4, the least 512 bytes take).
        let rows = |stride: u64| (0..32).map(|l: u64| (l % 4) * stride + (l / 4) * 16).collect::<Vec<_>>();
        assert_eq!(cycles(&rows(1040), 16), (8, 4));
        assert_eq!(cycles(&rows(1056), 16), (4, 4));
        // An 8-byte access, column 8 g of row t: the whole warp's words.
        let rows8 = |stride: u64| (0..32).map(|l: u64| (l % 4) * stride + (l / 4) * 8).collect::<Vec<_>>();
        assert_eq!(cycles(&rows8(1040), 8), (4, 2));
        assert_eq!(cycles(&rows8(1056), 8), (2, 2));
        // Quarter warps reading the same 128 bytes: the others ride along.
        assert_eq!(cycles(&(0..32).map(|l: u64| (l % 8) * 16).collect::<Vec<_>>(), 16), (1, 1));
    }
}
