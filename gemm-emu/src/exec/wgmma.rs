//! `wgmma.mma_async` and its fence, commit and wait: Hopper's asynchronous
//! warpgroup MMA, after the PTX ISA (9.7.15).
//!
//! A *warpgroup* is four consecutive warps of the block; warp `q` of it
//! (its index in the block mod 4) holds rows `16q … 16q + 15` of the
//! `64 × N` accumulator D ([`WgmmaShape::d_at`]), which depend only on
//! those 16 rows of A and on all of B. So each warp runs its own part, with
//! no synchronisation between the four; that they run the *same*
//! instructions with the same descriptors (`.aligned`) is checked through
//! a per-warpgroup log ([`FaultKind::WgmmaWarpgroupDiverged`]).
//!
//! Per warp, as the ISA says:
//!
//! - every `wgmma` instruction is `.sync.aligned`: executed by all 32
//!   lanes together, unguarded ([`FaultKind::WgmmaNotConverged`]), in a
//!   block of whole warpgroups ([`FaultKind::WgmmaPartialWarpgroup`]); a
//!   guard false in every lane skips it, as a uniform branch around it
//!   would (the warpgroup log then faults unless all four warps skip it);
//! - `wgmma.mma_async` reads its descriptors and `scale-d` when issued,
//!   each the same in every lane ([`FaultKind::WgmmaNotUniform`]); it needs
//!   a `wgmma.fence` before the warp's first `wgmma` and between any other
//!   instruction's access (read or write) of one of its accumulators, or
//!   write of one of its A registers, and the `wgmma`
//!   ([`FaultKind::WgmmaWithoutFence`]); a chain of `wgmma`s of one shape
//!   on the same accumulators needs none between them;
//! - with A from registers (TF32 only: `mma.sync`'s A fragment in each
//!   warp, [`WgmmaShape::a_at`]), it reads them when issued, as register
//!   operands are read, each value TF32
//!   ([`FaultKind::WgmmaRegisterNotTf32`]);
//! - it joins the warp's open *wgmma-group*, and its accumulators are in
//!   flight: any other instruction touching them, or a `wgmma` of another
//!   shape or accumulator list, faults
//!   ([`FaultKind::WgmmaRegisterInFlight`]); so are its A registers, which
//!   may be read but not written
//!   ([`FaultKind::WgmmaOperandRegisterWritten`]);
//! - `wgmma.commit_group` closes the open group (possibly empty);
//!   `wgmma.wait_group n` retires every committed group but the `n` newest,
//!   oldest first, executing their `wgmma`s then: operands in shared
//!   memory are read at retirement ([`super::async_proxy`]), each element of
//!   D computed as `mma.sync`'s `.tf32` path does (products of TF32 values
//!   in f32, a chain of FMAs along K in f32, from D if `scale-d`, else from
//!   zero; `imm-scale = -1` negates A or B), and the accumulators written;
//! - the 16-bit inputs (`m64nNk16.f32.f16.f16`, `.f32.bf16.bf16`) run the
//!   same way, 16 deep: each element of A and B, 2 bytes in shared memory
//!   wherever [`SmemDesc::at`] puts it for the operand's major
//!   (`imm-trans-a`, `imm-trans-b`: K-major, or MN-major with the 128-byte
//!   swizzle), is converted to f32 exactly, each product is exact in f32
//!   (11- or 8-bit significands), and D accumulates the chain of products
//!   along K in f32 as for TF32; any bits are a 16-bit value, so there is
//!   no check of the values' form;
//! - a thread exiting with `wgmma`s not retired faults
//!   ([`FaultKind::WgmmaPendingAtExit`]).
//!
//! A kernel without `wgmma` pays one test of a flag per instruction and
//! per shared store for all of this.

use std::collections::VecDeque;

use gemm_codegen::ptx::{Major, SmemDesc, WARPGROUP, WgmmaShape};

use super::async_proxy::Operands;
use super::lanes::{need, need_pred, store};
use super::mma::TF32_LOW;
use super::{LaneTrap, Trap, WARP, Warp, Worker, first};
use crate::error::{Fault, FaultKind, WarpgroupMismatch};
use crate::program::{ASource, Op, Src, Wgmma};

/// All 32 lanes.
const FULL: u32 = u32::MAX;

/// A warp's part of a `wgmma.mma_async` issued and not retired.
#[derive(Clone, Copy, Debug)]
struct Pending {
    /// Its index in [`crate::Program::wgmmas`].
    wgmma: u32,
    /// Its instruction.
    pc: u32,
    /// What it reads from shared memory.
    operands: Operands,
    /// With A from registers (TF32), the warp's 16 rows of A as read at
    /// issue (row-major, 8 values a row).
    a: [f32; 16 * 8],
    /// Whether it accumulates into D.
    scale_d: bool,
}

/// One warp's `wgmma` state.
#[derive(Debug, Default)]
pub(super) struct WarpWgmma {
    /// Whether the warp has executed a `wgmma.fence`.
    fenced: bool,
    /// Per slot ([`crate::program::Accumulators`]): touched by another
    /// instruction since the warp's last `wgmma.fence`.
    touched: Vec<bool>,
    /// Per slot: `wgmma`s in flight writing it (an accumulator) or reading
    /// it (an A register).
    in_flight: Vec<u32>,
    /// Per slot: one of those `wgmma`s, the latest issued (for an
    /// accumulator, all of them have the same shape and accumulator list).
    owner: Vec<u32>,
    /// The open group.
    open: Vec<Pending>,
    /// Committed groups not retired, oldest first.
    committed: VecDeque<Vec<Pending>>,
    /// `wgmma`s issued and not retired.
    pending: u32,
}

impl WarpWgmma {
    /// The state of a warp of a kernel with `accumulators` slots
    /// (accumulators and A registers).
    pub fn new(accumulators: usize) -> WarpWgmma {
        WarpWgmma {
            touched: vec![false; accumulators],
            in_flight: vec![0; accumulators],
            owner: vec![0; accumulators],
            ..WarpWgmma::default()
        }
    }

    /// Back to the start of a block.
    pub fn reset(&mut self) {
        self.fenced = false;
        self.touched.fill(false);
        self.in_flight.fill(0);
        self.open.clear();
        self.committed.clear();
        self.pending = 0;
    }

    /// The oldest `wgmma` not retired.
    fn oldest(&self) -> Option<&Pending> {
        self.committed.iter().flatten().chain(&self.open).next()
    }
}

/// One warpgroup's `wgmma` instructions, for the `.aligned` check: the
/// entries some warp has executed and not all four have, each `(pc, A
/// descriptor, B descriptor, first thread of the warp that executed it
/// first)`.
#[derive(Debug, Default)]
pub(super) struct GroupLog {
    /// Entries each of the four warps has executed.
    counts: [u64; 4],
    /// The entry number of `entries[0]`.
    base: u64,
    entries: VecDeque<(u32, u64, u64, u32)>,
}

impl Worker<'_> {
    /// Executes an instruction of the `wgmma` family, or
    /// `fence.proxy.async`, for lanes `m` of `w`.
    #[cold]
    #[inline(never)]
    pub(super) fn wgmma_family(&mut self, w: &mut Warp, op: &Op, pc: u32, m: u32) -> Result<(), LaneTrap> {
        if let Op::FenceProxyAsync = *op {
            let mut mm = m;
            while mm != 0 {
                self.proxy.fence(w.tid0 + mm.trailing_zeros());
                mm &= mm - 1;
            }
            return Ok(());
        }
        if m != FULL || w.lanes != FULL {
            let active = (0..WARP as u32).filter(|l| m >> l & 1 == 1).map(|l| w.tid0 + l).collect();
            return Err((Trap::Kind(FaultKind::WgmmaNotConverged { active }), first(m)));
        }
        let (bx, by, bz) = self.info.block;
        let threads = bx * by * bz;
        if !threads.is_multiple_of(WARPGROUP) {
            return Err((Trap::Kind(FaultKind::WgmmaPartialWarpgroup { threads }), 0));
        }
        match *op {
            Op::Wgmma(i) => self.wgmma_issue(w, i, pc),
            Op::WgmmaFence => {
                self.aligned(w, pc, (0, 0))?;
                w.wg.fenced = true;
                w.wg.touched.fill(false);
                Ok(())
            }
            Op::WgmmaCommit => {
                self.aligned(w, pc, (0, 0))?;
                let group = std::mem::take(&mut w.wg.open);
                w.wg.committed.push_back(group);
                Ok(())
            }
            Op::WgmmaWait { keep } => {
                self.aligned(w, pc, (0, 0))?;
                while w.wg.committed.len() > keep as usize {
                    let group = w.wg.committed.pop_front().expect("more groups than kept");
                    for p in group {
                        self.wgmma_retire(w, &p).map_err(|t| (t, 0))?;
                    }
                }
                Ok(())
            }
            _ => unreachable!("not a wgmma instruction"),
        }
    }

    /// Faults if another instruction touches a `wgmma` register in flight
    /// at `pc` (an accumulator read or written, an A register written), and
    /// records the accesses for the `wgmma.fence` check (lanes `m`, not
    /// empty).
    #[inline(always)]
    pub(super) fn accumulators_touched(&self, w: &mut Warp, pc: u32, m: u32) -> Result<(), LaneTrap> {
        let slots = self.prog.accumulators.touched(pc);
        if slots.is_empty() {
            return Ok(());
        }
        self.touch(w, slots, m)
    }

    /// [`Self::accumulators_touched`] for an instruction that touches
    /// `slots`.
    #[cold]
    #[inline(never)]
    fn touch(&self, w: &mut Warp, slots: &[u32], m: u32) -> Result<(), LaneTrap> {
        for &slot in slots {
            if w.wg.in_flight[slot as usize] != 0 {
                return Err((Trap::Kind(self.in_flight_fault(w, slot)), first(m)));
            }
            w.wg.touched[slot as usize] = true;
        }
        Ok(())
    }

    /// [`FaultKind::WgmmaRegisterInFlight`] for accumulator `slot`,
    /// [`FaultKind::WgmmaOperandRegisterWritten`] for an A register.
    fn in_flight_fault(&self, w: &Warp, slot: u32) -> FaultKind {
        let acc = &self.prog.accumulators;
        let reg = self.prog.val_names[acc.regs[slot as usize] as usize].clone();
        let owner = w.wg.owner[slot as usize];
        let pc = w.wg.committed.iter().flatten().chain(&w.wg.open).find(|p| p.wgmma == owner).map(|p| p.pc);
        let wgmma_line = pc.and_then(|pc| self.prog.lines.get(pc as usize).copied()).unwrap_or(0);
        if acc.is_a(slot) {
            FaultKind::WgmmaOperandRegisterWritten { reg, wgmma_line }
        } else {
            FaultKind::WgmmaRegisterInFlight { reg, wgmma_line }
        }
    }

    /// Issues the warp's part of `wgmma.mma_async` number `i` at `pc`.
    fn wgmma_issue(&mut self, w: &mut Warp, i: u32, pc: u32) -> Result<(), LaneTrap> {
        let prog = self.prog;
        let g = &prog.wgmmas[i as usize];
        let a_regs: &[u32] = match &g.a {
            ASource::Desc(r) => std::slice::from_ref(r),
            ASource::Regs(rs) => rs,
        };
        for &r in a_regs.iter().chain([&g.b_desc]) {
            need(w, Src::R(r), FULL)?;
        }
        need_pred(w, g.scale_d, FULL)?;
        let uniform =
            |operand: &'static str, lanes: [u64; WARP]| match lanes.iter().position(|&v| v != lanes[0]) {
                None => Ok(lanes[0]),
                Some(l) => {
                    let (thread, value, first) = (w.tid0 + l as u32, lanes[l], lanes[0]);
                    Err((Trap::Kind(FaultKind::WgmmaNotUniform { operand, thread, value, first }), l as u32))
                }
            };
        let a_bits = match g.a {
            ASource::Desc(r) => Some(uniform("A's descriptor", w.vals[r as usize])?),
            ASource::Regs(_) => None,
        };
        let b_bits = uniform("B's descriptor", w.vals[g.b_desc as usize])?;
        let scale = w.preds[g.scale_d as usize];
        let scale_d = uniform("scale-d", std::array::from_fn(|l| u64::from(scale >> l & 1)))? == 1;
        if !w.wg.fenced {
            return Err((Trap::Kind(FaultKind::WgmmaWithoutFence { reg: None }), 0));
        }
        let a_slots = g.a_slots.iter();
        let regs = g.d.iter().zip(&g.d_slots).chain(a_regs.iter().zip(a_slots));
        for (&r, &slot) in regs {
            if w.wg.touched[slot as usize] {
                let reg = Some(prog.val_names[r as usize].clone());
                return Err((Trap::Kind(FaultKind::WgmmaWithoutFence { reg }), 0));
            }
        }
        for (&r, &slot) in g.d.iter().zip(&g.d_slots) {
            let slot = slot as usize;
            if w.wg.in_flight[slot] != 0 {
                let owner = &prog.wgmmas[w.wg.owner[slot] as usize];
                if w.wg.owner[slot] != i && (owner.shape != g.shape || owner.d != g.d) {
                    return Err((Trap::Kind(self.in_flight_fault(w, slot as u32)), 0));
                }
            } else if scale_d {
                need(w, Src::R(r), FULL)?;
            }
        }
        let quarter = (w.tid0 / WARP as u32) % 4;
        let a_values = self.a_from_registers(w, g, quarter)?;
        let esz = g.shape.input.bytes();
        let a = a_bits.map(|bits| descriptor(('A', g.major.0), esz, bits)).transpose().map_err(|t| (t, 0))?;
        let b = descriptor(('B', g.major.1), esz, b_bits).map_err(|t| (t, 0))?;
        self.aligned(w, pc, (a_bits.unwrap_or(0), b_bits))?;
        let operands = Operands { shape: g.shape, major: g.major, a, b, quarter };
        self.issue_operands(&operands, w.tid0, pc).map_err(|t| (t, 0))?;
        for &slot in g.d_slots.iter().chain(&g.a_slots) {
            w.wg.in_flight[slot as usize] += 1;
            w.wg.owner[slot as usize] = i;
        }
        w.wg.open.push(Pending { wgmma: i, pc, operands, a: a_values, scale_d });
        w.wg.pending += 1;
        Ok(())
    }

    /// The warp's 16 rows of A (row-major, 8 values a row) from the
    /// registers of `g`, warp `quarter` of its warpgroup, each lane's
    /// element where [`WgmmaShape::a_at`] puts it; zeros for A by
    /// descriptor. Faults a value that is not TF32.
    fn a_from_registers(&self, w: &Warp, g: &Wgmma, quarter: u32) -> Result<[f32; 16 * 8], LaneTrap> {
        let mut a = [0f32; 16 * 8];
        let ASource::Regs(regs) = g.a else { return Ok(a) };
        for (i, &r) in regs.iter().enumerate() {
            for (lane, &value) in w.vals[r as usize].iter().enumerate() {
                let (row, k) = g.shape.a_at(WARP as u32 * quarter + lane as u32, i as u32);
                let bits = value as u32;
                if bits & TF32_LOW != 0 {
                    let (thread, reg) = (w.tid0 + lane as u32, self.prog.val_names[r as usize].clone());
                    let kind = FaultKind::WgmmaRegisterNotTf32 { thread, reg, row, k, bits };
                    return Err((Trap::Kind(kind), lane as u32));
                }
                a[((row - 16 * quarter) * g.shape.k() + k) as usize] = f32::from_bits(bits);
            }
        }
        Ok(a)
    }

    /// Retires the warp's part `p` of a `wgmma`: reads its operands,
    /// computes D and writes the accumulators.
    fn wgmma_retire(&mut self, w: &mut Warp, p: &Pending) -> Result<(), Trap> {
        const K_MAX: usize = WgmmaShape::K_MAX as usize;
        let g = &self.prog.wgmmas[p.wgmma as usize];
        let n = g.shape.n as usize;
        let k = g.shape.k() as usize;
        // Row-major, `k` values a row: the warp's 16 rows of A (from
        // registers, TF32's 8 a row, or read now from shared memory), B's N
        // rows.
        let (mut a, mut b) = ([0f32; 16 * K_MAX], [0f32; 256 * K_MAX]);
        a[..p.a.len()].copy_from_slice(&p.a);
        self.retire_operands(&p.operands, w.tid0, p.pc, &mut a[..16 * k], &mut b[..n * k])?;
        let (sa, sb) = (if g.neg_a { -1.0 } else { 1.0 }, if g.neg_b { -1.0 } else { 1.0 });
        let quarter = p.operands.quarter;
        for (i, &r) in g.d.iter().enumerate() {
            let out = std::array::from_fn(|lane| {
                let (row, col) = g.shape.d_at(WARP as u32 * quarter + lane as u32, i as u32);
                let (row, col) = ((row - 16 * quarter) as usize, col as usize);
                let start = if p.scale_d { f32::from_bits(w.vals[r as usize][lane] as u32) } else { 0.0 };
                let products = (0..k).map(|kk| (sa * a[row * k + kk], sb * b[col * k + kk]));
                u64::from(products.fold(start, |s, (x, y)| x.mul_add(y, s)).to_bits())
            });
            store(w, r, FULL, out);
        }
        for &slot in g.d_slots.iter().chain(&g.a_slots) {
            w.wg.in_flight[slot as usize] -= 1;
        }
        w.wg.pending -= 1;
        self.stats.wgmmas += 1;
        Ok(())
    }

    /// Faults if lanes `m` of `w`, exiting at `pc`, leave `wgmma`s not
    /// retired.
    #[inline(always)]
    pub(super) fn wgmma_at_exit(&self, w: &Warp, m: u32, pc: u32) -> Result<(), Fault> {
        if w.wg.pending == 0 {
            return Ok(());
        }
        let oldest = w.wg.oldest().expect("pending wgmmas").pc;
        let kind = FaultKind::WgmmaPendingAtExit {
            wgmmas: w.wg.pending,
            uncommitted: w.wg.open.len() as u32,
            wgmma_line: self.prog.lines.get(oldest as usize).copied().unwrap_or(0),
        };
        Err(self.fault(kind, w.tid0 + first(m), pc))
    }

    /// Logs the warp's `wgmma` instruction at `pc` (with its descriptors,
    /// zero for the others) in its warpgroup's log, faulting if another
    /// warp of the warpgroup executed a different one in its place.
    fn aligned(&mut self, w: &Warp, pc: u32, descriptors: (u64, u64)) -> Result<(), LaneTrap> {
        let warp = w.tid0 / WARP as u32;
        let log = &mut self.groups[(warp / 4) as usize];
        let q = (warp % 4) as usize;
        let index = (log.counts[q] - log.base) as usize;
        match log.entries.get(index) {
            Some(&(other_pc, a, b, other_thread)) => {
                let mismatch = if other_pc != pc {
                    let other_line = self.prog.lines.get(other_pc as usize).copied().unwrap_or(0);
                    WarpgroupMismatch::Instruction { other_line }
                } else if (a, b) != descriptors {
                    WarpgroupMismatch::Descriptors { a, b }
                } else {
                    log.counts[q] += 1;
                    while log.counts.iter().all(|&c| c > log.base) {
                        log.entries.pop_front();
                        log.base += 1;
                    }
                    return Ok(());
                };
                Err((Trap::Kind(FaultKind::WgmmaWarpgroupDiverged { other_thread, mismatch }), 0))
            }
            None => {
                log.entries.push_back((pc, descriptors.0, descriptors.1, w.tid0));
                log.counts[q] += 1;
                Ok(())
            }
        }
    }

    /// Once every thread of the block has exited: faults if a warp of a
    /// warpgroup executed fewer `wgmma` instructions than another.
    pub(super) fn warpgroups_complete(&self) -> Result<(), Fault> {
        for (g, log) in self.groups.iter().enumerate() {
            let most = log.counts.iter().max().copied().unwrap_or(0);
            if let Some(q) = log.counts.iter().position(|&c| c < most) {
                let (pc, _, _, other_thread) = log.entries[(log.counts[q] - log.base) as usize];
                let kind =
                    FaultKind::WgmmaWarpgroupDiverged { other_thread, mismatch: WarpgroupMismatch::Missing };
                return Err(self.fault(kind, WARPGROUP * g as u32 + WARP as u32 * q as u32, pc));
            }
        }
        Ok(())
    }
}

/// The descriptor `bits` of operand `operand`, lying `major`, of
/// `esz`-byte elements, if the emulator models it: a layout
/// [`SmemDesc::at`] addresses (K-major without swizzle or with the 128-byte
/// one, MN-major with the 128-byte one; base offset 0), no reserved bit
/// set.
fn descriptor((operand, major): (char, Major), esz: u32, bits: u64) -> Result<SmemDesc, Trap> {
    let d = SmemDesc::decode(bits);
    if d.at(major, esz, 0, 0).is_none() || d.base_offset != 0 || d.encode() != bits {
        return Err(Trap::Kind(FaultKind::WgmmaUnsupportedDescriptor { operand, major, bits }));
    }
    Ok(d)
}
