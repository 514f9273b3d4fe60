//! The interpreter: blocks of warps of 32 lanes in lockstep.
//!
//! A worker runs one block at a time. Each warp runs until every one of its
//! threads waits at a barrier or has exited; then the next warp runs. A
//! barrier releases its warps when its count has arrived; when no warp can
//! run, the block is done or deadlocked (`exec/barrier.rs`).
//!
//! Divergence: a warp is a set of *groups*, each a program counter and the
//! lanes at it. The group with the lowest program counter runs, until it
//! branches or reaches the next group's program counter, where the two merge
//! ("min-PC" reconvergence: for if/else and loops laid out in program order,
//! as code generators emit them, the paths meet at their join point). Lanes
//! never observe one another except through memory and barriers, both
//! checked, so the order groups run in changes no result of a race-free
//! kernel; only the instruction counts of [`Stats`] depend on it.
//!
//! Barriers count warps, not instructions (as on sm_70 and later): groups
//! of a warp waiting at different `bar.sync 0` instructions arrive together.
//! A `bar.sync` whose guard splits a warp is refused as a fault.

use super::error::{Fault, FaultKind};
use super::memory::{BlockOrder, Clocks, Global, Ordered, PagedShadow, ShadowWords, View};
use super::program::{I1, I3, Inst, Op, Program, SharedArray};
use super::{Options, Stats};
use gemm_codegen::ptx::Special;

mod access;
mod async_copy;
mod async_proxy;
mod atomic;
mod barrier;
mod half;
mod lanes;
mod mma;
mod registers;
mod tma;
mod wgmma;

use async_copy::AsyncCopies;
use async_proxy::AsyncProxy;
use lanes::{div, float2, int2, lanes, map1, map3, need, need_pred, set_pred, setp, store};
use registers::{REGISTER_WAIT, RegisterPool};
use tma::{MBARRIER_WAIT, TmaState};
use wgmma::{GroupLog, WarpWgmma};

pub(crate) const WARP: usize = 32;
type Lanes = [u64; WARP];

#[derive(Clone, Copy, Debug)]
struct Group {
    pc: u32,
    mask: u32,
    /// The barrier this group waits at.
    barrier: Option<u32>,
}

/// One warp's registers and control state.
struct Warp {
    vals: Vec<Lanes>,
    /// Per value register, the lanes that have written it.
    written: Vec<u32>,
    preds: Vec<u32>,
    pwritten: Vec<u32>,
    groups: Vec<Group>,
    exited: u32,
    /// Lanes that exist (a last partial warp has fewer than 32).
    lanes: u32,
    /// Linear thread index of lane 0.
    tid0: u32,
    steps: u64,
    /// Its `wgmma` state (empty for a kernel without `wgmma`), boxed to
    /// keep the warp small for the others.
    wg: Box<WarpWgmma>,
}

/// Why an instruction stopped, before it is placed in a block and thread.
enum Trap {
    UninitVal(u32),
    UninitPred(u32),
    Kind(FaultKind),
}

/// A trap on one lane.
type LaneTrap = (Trap, u32);

fn first(mask: u32) -> u32 {
    mask.trailing_zeros()
}

/// What is fixed for a whole launch.
pub(crate) struct LaunchInfo<'a> {
    pub grid: (u32, u32, u32),
    pub block: (u32, u32, u32),
    pub params: &'a [u8],
    /// The shared arrays, the dynamic one sized for this launch.
    pub shared: Vec<SharedArray>,
    /// Bytes of the shared window.
    pub shared_window: u64,
    pub options: &'a Options,
    /// Buffers the caller gave: the kernel's global arrays follow them.
    pub user_buffers: usize,
}

/// One thread of the host running blocks, one after another.
pub(crate) struct Worker<'a> {
    prog: &'a Program,
    info: &'a LaunchInfo<'a>,
    global: &'a Global,
    gshadow: Vec<PagedShadow>,
    smem: Vec<u32>,
    sshadow: ShadowWords,
    warps: Vec<Warp>,
    /// The block's happens-before clocks.
    clocks: Clocks,
    /// What the running warp knows: its accesses' stamp and order.
    view: View,
    block: (u32, u32, u32),
    block_id: u32,
    checks: bool,
    /// The block's `cp.async` copies in flight.
    copies: AsyncCopies,
    /// Shared memory as `wgmma` reads it.
    proxy: AsyncProxy,
    /// The block's `mbarrier`s and bulk copies in flight.
    tma: TmaState,
    /// Per warpgroup of the block, its `wgmma` instructions (for a kernel
    /// with `wgmma`).
    groups: Vec<GroupLog>,
    /// The cross-block records that know release and acquire (for a kernel
    /// with atomics, with race checks on).
    ordered: Option<&'a Ordered>,
    /// The block's side of that order: what it acquired and releases.
    order: BlockOrder,
    /// Whether the host has AVX2 and FMA.
    avx2_fma: bool,
    /// Per barrier, the thread and pc of its latest `bar.arrive`.
    arrivals: [(u32, u32); crate::memory::BARRIERS],
    /// The block's register pool and its warps' limits (`setmaxnreg`).
    registers: RegisterPool,
    pub stats: Stats,
}

impl<'a> Worker<'a> {
    pub fn new(prog: &'a Program, info: &'a LaunchInfo<'a>, global: &'a Global) -> Worker<'a> {
        let (bx, by, bz) = info.block;
        let threads = bx * by * bz;
        let warps = (0..threads.div_ceil(WARP as u32))
            .map(|i| {
                let n = (threads - i * WARP as u32).min(WARP as u32);
                Warp {
                    vals: vec![[0; WARP]; prog.n_vals()],
                    written: vec![0; prog.n_vals()],
                    preds: vec![0; prog.n_preds()],
                    pwritten: vec![0; prog.n_preds()],
                    groups: Vec::new(),
                    exited: 0,
                    lanes: if n == 32 { u32::MAX } else { (1 << n) - 1 },
                    tid0: i * WARP as u32,
                    steps: 0,
                    wg: Box::new(WarpWgmma::new(prog.accumulators.regs.len())),
                }
            })
            .collect();
        let checks = info.options.check_races;
        let window_words = info.shared_window.div_ceil(4) as usize;
        Worker {
            prog,
            info,
            global,
            gshadow: if checks {
                (0..global.bufs.len()).map(|b| PagedShadow::new(global.units(b))).collect()
            } else {
                Vec::new()
            },
            smem: vec![0; window_words],
            sshadow: if checks { ShadowWords::new(window_words) } else { ShadowWords::default() },
            warps,
            clocks: Clocks::default(),
            view: View::START,
            block: (0, 0, 0),
            block_id: 0,
            checks,
            copies: AsyncCopies::new(prog.async_copies, window_words, threads as usize),
            proxy: AsyncProxy::new(prog.uses_wgmma, window_words, threads as usize),
            tma: TmaState::default(),
            groups: Vec::new(),
            ordered: global.ordered.as_ref(),
            order: BlockOrder::default(),
            #[cfg(target_arch = "x86_64")]
            avx2_fma: is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
            #[cfg(not(target_arch = "x86_64"))]
            avx2_fma: false,
            arrivals: [(0, 0); crate::memory::BARRIERS],
            registers: RegisterPool::default(),
            stats: Stats::default(),
        }
    }

    /// Runs block `linear` (x fastest) to completion.
    pub fn run_block(&mut self, linear: u64) -> Result<(), Fault> {
        let (gx, gy, _) = self.info.grid;
        let (gx, gy) = (u64::from(gx), u64::from(gy));
        self.block = ((linear % gx) as u32, ((linear / gx) % gy) as u32, (linear / (gx * gy)) as u32);
        self.block_id = linear as u32;
        self.clocks.start_block(self.warps.len());
        self.stats.blocks += 1;
        self.copies.reset();
        if self.prog.uses_tma {
            self.tma.reset(self.warps.len());
        }
        if self.ordered.is_some() {
            self.order.reset(self.clocks.block_first());
        }
        if self.prog.uses_setmaxnreg {
            let (bx, by, bz) = self.info.block;
            self.registers.reset(self.warps.len(), bx * by * bz);
        }
        if self.prog.uses_wgmma {
            self.proxy.reset();
            self.groups.clear();
            let (bx, by, bz) = self.info.block;
            self.groups.resize_with(
                (bx * by * bz).div_ceil(gemm_codegen::ptx::WARPGROUP) as usize,
                GroupLog::default,
            );
        }

        let mut warps = std::mem::take(&mut self.warps);
        let result = self.run_warps(&mut warps);
        self.warps = warps;
        result
    }

    fn run_warps(&mut self, warps: &mut [Warp]) -> Result<(), Fault> {
        let bx = self.info.block.0;
        let base = self.prog.special_base as usize;
        let (cx, cy, cz) = self.block;
        for w in warps.iter_mut() {
            w.written.fill(0);
            w.pwritten.fill(0);
            w.groups.clear();
            w.groups.push(Group { pc: 0, mask: w.lanes, barrier: None });
            w.exited = 0;
            w.steps = 0;
            w.wg.reset();
            let tid = std::array::from_fn(|l| u64::from((w.tid0 + l as u32) % bx));
            // In `Special::ALL` order (the length makes a new special a
            // compile error here): tid.x, ntid.x, ctaid.x, ctaid.y, ctaid.z,
            // nctaid.x, nctaid.z.
            let values: [_; Special::ALL.len()] = [
                tid,
                [u64::from(bx); WARP],
                [u64::from(cx); WARP],
                [u64::from(cy); WARP],
                [u64::from(cz); WARP],
                [u64::from(self.info.grid.0); WARP],
                [u64::from(self.info.grid.2); WARP],
            ];
            for (i, v) in values.into_iter().enumerate() {
                w.vals[base + i] = v;
                w.written[base + i] = w.lanes;
            }
            // The addresses of the module's global arrays, after the specials.
            for g in 0..self.prog.globals.len() {
                let r = base + Special::ALL.len() + g;
                w.vals[r] = [crate::memory::buffer_address(self.info.user_buffers + g); WARP];
                w.written[r] = w.lanes;
            }
        }
        self.schedule(warps)
    }

    fn fault(&self, kind: FaultKind, thread: u32, pc: u32) -> Fault {
        let pc = pc as usize;
        Fault {
            kind,
            block: self.block,
            thread,
            line: self.prog.lines.get(pc).copied().unwrap_or(0),
            instr: self.prog.texts.get(pc).cloned().unwrap_or_else(|| "<end of kernel>".to_owned()),
        }
    }

    fn trap(&self, (trap, lane): LaneTrap, w: &Warp, pc: u32) -> Fault {
        let kind = match trap {
            Trap::UninitVal(r) => {
                FaultKind::UninitializedRegister { reg: self.prog.val_names[r as usize].clone() }
            }
            Trap::UninitPred(p) => {
                FaultKind::UninitializedRegister { reg: self.prog.pred_names[p as usize].clone() }
            }
            Trap::Kind(k) => k,
        };
        self.fault(kind, w.tid0 + lane, pc)
    }

    /// Runs `w` until every one of its groups waits at a barrier or has
    /// exited, with the host's vector and fused multiply-add instructions
    /// when it has them (`mul_add` is otherwise a slow software routine),
    /// and the accumulator checks of `wgmma` only for a kernel that has it.
    fn run_warp(&mut self, w: &mut Warp) -> Result<(), Fault> {
        let wgmma = self.prog.uses_wgmma;
        #[cfg(target_arch = "x86_64")]
        if self.avx2_fma {
            // SAFETY: `avx2_fma` is set only when the running CPU reports both
            // features (see `Worker::new`), which is all `run_warp_avx2` needs.
            return unsafe { self.run_warp_avx2(w, wgmma) };
        }
        self.run_warp_any(w, wgmma)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn run_warp_avx2(&mut self, w: &mut Warp, wgmma: bool) -> Result<(), Fault> {
        self.run_warp_any(w, wgmma)
    }

    /// [`Self::run_warp`]; `wgmma`: whether the kernel uses `wgmma` (and so
    /// needs the accumulator checks). One test of it per instruction: a
    /// second copy of this loop without the checks, chosen once, made the
    /// compiler inline the loop's helpers differently and cost kernels
    /// without `wgmma` up to 4% (`emu_speed`).
    #[inline(always)]
    fn run_warp_any(&mut self, w: &mut Warp, wgmma: bool) -> Result<(), Fault> {
        let prog = self.prog;
        let code: &[Inst] = &prog.code;
        let limit = self.info.options.max_warp_steps;
        loop {
            merge(&mut w.groups);
            let Some(gi) = (0..w.groups.len())
                .filter(|&i| w.groups[i].barrier.is_none())
                .min_by_key(|&i| w.groups[i].pc)
            else {
                return Ok(());
            };
            let stop = (0..w.groups.len())
                .filter(|&i| i != gi && w.groups[i].barrier.is_none())
                .map(|i| w.groups[i].pc)
                .min()
                .unwrap_or(u32::MAX);
            let single = w.groups.len() == 1;
            let Group { mut pc, mut mask, .. } = w.groups[gi];
            let (mut n, mut lanes) = (0u64, 0u64);
            let result = loop {
                if pc == stop {
                    w.groups[gi] = Group { pc, mask, barrier: None };
                    break Ok(());
                }
                let Some(inst) = code.get(pc as usize) else {
                    // Falling off the end of the body returns.
                    if let Err(f) = self.copies_at_exit(w, mask, pc) {
                        break Err(f);
                    }
                    if wgmma && let Err(f) = self.wgmma_at_exit(w, mask, pc) {
                        break Err(f);
                    }
                    w.exited |= mask;
                    w.groups.swap_remove(gi);
                    break Ok(());
                };
                n += 1;
                lanes += u64::from(mask.count_ones());
                let m = match inst.guard {
                    None => mask,
                    Some((p, negated)) => {
                        let missing = mask & !w.pwritten[p as usize];
                        if missing != 0 {
                            break Err(self.trap((Trap::UninitPred(p), first(missing)), w, pc));
                        }
                        let v = w.preds[p as usize];
                        (if negated { !v } else { v }) & mask
                    }
                };
                match inst.op {
                    Op::Bra { target, uni } => {
                        if m == mask {
                            pc = target;
                            if !single {
                                w.groups[gi] = Group { pc, mask, barrier: None };
                                break Ok(());
                            }
                        } else if m == 0 {
                            pc += 1;
                        } else if uni {
                            let ids =
                                |mm: u32| (0..32).filter(|l| mm >> l & 1 == 1).map(|l| w.tid0 + l).collect();
                            let kind = FaultKind::DivergentUniformBranch {
                                taken: ids(m),
                                not_taken: ids(mask & !m),
                            };
                            break Err(self.fault(kind, w.tid0 + first(m), pc));
                        } else {
                            w.groups[gi] = Group { pc: pc + 1, mask: mask & !m, barrier: None };
                            w.groups.push(Group { pc: target, mask: m, barrier: None });
                            break Ok(());
                        }
                    }
                    Op::Bar { id, threads, arrive } => {
                        if m == 0 {
                            pc += 1;
                        } else if m != mask || arrive && (!single || mask != w.lanes & !w.exited) {
                            break Err(self.fault(FaultKind::DivergentBarrier, w.tid0 + first(m), pc));
                        } else if arrive {
                            let threads = threads.expect("`bar.arrive` has a count");
                            if let Err(f) = self.bar_arrive(w, id, threads, pc) {
                                break Err(f);
                            }
                            pc += 1;
                        } else {
                            w.groups[gi] = Group { pc, mask, barrier: Some(id) };
                            break Ok(());
                        }
                    }
                    Op::MbarTryWait { p, base, off, parity } => {
                        if m != mask {
                            let kind = FaultKind::Tma(crate::TmaFault::DivergentWait);
                            break Err(self.fault(kind, w.tid0 + first(mask), pc));
                        }
                        match self.mbarrier_try_wait(w, m, (p, base, off, parity)) {
                            Ok(true) => pc += 1,
                            Ok(false) => {
                                w.groups[gi] = Group { pc, mask, barrier: Some(MBARRIER_WAIT) };
                                break Ok(());
                            }
                            Err(t) => break Err(self.trap(t, w, pc)),
                        }
                    }
                    Op::SetMaxNReg { inc, count } => {
                        if m != w.lanes & !w.exited {
                            let active = (0..32).filter(|l| m >> l & 1 == 1).map(|l| w.tid0 + l).collect();
                            let kind = FaultKind::SetMaxNRegNotConverged { active };
                            break Err(self.fault(kind, w.tid0 + first(mask), pc));
                        }
                        let u = (w.tid0 / WARP as u32) as usize;
                        match self.registers.set(u, inc, count) {
                            Ok(true) => pc += 1,
                            Ok(false) => {
                                w.groups[gi] = Group { pc, mask, barrier: Some(REGISTER_WAIT) };
                                break Ok(());
                            }
                            Err(kind) => break Err(self.fault(kind, w.tid0, pc)),
                        }
                    }
                    Op::Ret => {
                        if let Err(f) = self.copies_at_exit(w, m, pc) {
                            break Err(f);
                        }
                        if wgmma
                            && m != 0
                            && let Err(f) = self.wgmma_at_exit(w, m, pc)
                        {
                            break Err(f);
                        }
                        w.exited |= m;
                        if m == mask {
                            w.groups.swap_remove(gi);
                            break Ok(());
                        }
                        mask &= !m;
                        pc += 1;
                    }
                    ref op => {
                        if wgmma
                            && m != 0
                            && let Err(t) = self.accumulators_touched(w, pc, m)
                        {
                            break Err(self.trap(t, w, pc));
                        }
                        if m != 0
                            && let Err(t) = self.exec(w, op, pc, m)
                        {
                            break Err(self.trap(t, w, pc));
                        }
                        pc += 1;
                    }
                }
                if w.steps + n > limit {
                    break Err(self.fault(FaultKind::StepLimit { steps: limit }, w.tid0 + first(mask), pc));
                }
            };
            w.steps += n;
            self.stats.warp_instructions += n;
            self.stats.thread_instructions += lanes;
            result?;
        }
    }

    /// Executes a non-control operation for lanes `m` (not empty).
    #[inline(always)]
    fn exec(&mut self, w: &mut Warp, op: &Op, pc: u32, m: u32) -> Result<(), LaneTrap> {
        match *op {
            Op::Mov { d, a } => map1(w, m, d, a, |x| x),
            Op::PMov { d, a } => {
                need_pred(w, a, m)?;
                set_pred(w, d, m, w.preds[a as usize]);
                Ok(())
            }
            Op::LdParam { d, n, size, off } => {
                for (e, &r) in d.iter().enumerate().take(n as usize) {
                    let at = off as usize + e * size as usize;
                    let mut b = [0u8; 8];
                    b[..size as usize].copy_from_slice(&self.info.params[at..at + size as usize]);
                    store(w, r, m, [u64::from_le_bytes(b); WARP]);
                }
                Ok(())
            }
            Op::I1 { f, d, a } => match f {
                I1::Neg32 => map1(w, m, d, a, |x| u64::from((x as u32).wrapping_neg())),
                I1::Neg64 => map1(w, m, d, a, |x| x.wrapping_neg()),
                I1::Not32 => map1(w, m, d, a, |x| u64::from(!(x as u32))),
                I1::Not64 => map1(w, m, d, a, |x| !x),
                I1::Sext32 => map1(w, m, d, a, |x| x as u32 as i32 as i64 as u64),
                I1::Trunc32 => map1(w, m, d, a, |x| x & 0xffff_ffff),
                I1::Copy => map1(w, m, d, a, |x| x),
                I1::Tf32 => map1(w, m, d, a, |x| u64::from(mma::round_tf32(x as u32))),
                I1::F16ToF32 => map1(w, m, d, a, half::f16_to_f32),
            },
            Op::I2 { f, d, a, b } => int2(w, m, f, d, a, b),
            Op::IDiv { f, d, a, b } => div(w, m, f, d, a, b),
            Op::I3 { f, d, a, b, c } => match f {
                I3::MadLo32 => map3(w, m, d, a, b, c, |x, y, z| {
                    u64::from((x as u32).wrapping_mul(y as u32).wrapping_add(z as u32))
                }),
                I3::MadLo64 => map3(w, m, d, a, b, c, |x, y, z| x.wrapping_mul(y).wrapping_add(z)),
                I3::MadWideU32 => {
                    map3(w, m, d, a, b, c, |x, y, z| ((x & 0xffff_ffff) * (y & 0xffff_ffff)).wrapping_add(z))
                }
                I3::MadWideS32 => map3(w, m, d, a, b, c, |x, y, z| {
                    ((i64::from(x as u32 as i32) * i64::from(y as u32 as i32)) as u64).wrapping_add(z)
                }),
            },
            Op::FNeg32 { d, a } => map1(w, m, d, a, |x| x ^ 0x8000_0000),
            Op::FNeg64 { d, a } => map1(w, m, d, a, |x| x ^ (1 << 63)),
            Op::F2 { f, d, a, b } => float2(w, m, f, d, a, b),
            Op::Fma32 { d, a, b, c } => map3(w, m, d, a, b, c, |x, y, z| {
                u64::from(
                    f32::from_bits(x as u32)
                        .mul_add(f32::from_bits(y as u32), f32::from_bits(z as u32))
                        .to_bits(),
                )
            }),
            Op::Fma64 { d, a, b, c } => map3(w, m, d, a, b, c, |x, y, z| {
                f64::from_bits(x).mul_add(f64::from_bits(y), f64::from_bits(z)).to_bits()
            }),
            Op::Setp { cmp, class, d, a, b } => setp(w, m, cmp, class, d, a, b),
            Op::Selp { d, a, b, p } => {
                need(w, a, m)?;
                need(w, b, m)?;
                need_pred(w, p, m)?;
                let (x, y, bits) = (lanes(w, a), lanes(w, b), w.preds[p as usize]);
                store(w, d, m, std::array::from_fn(|l| if bits >> l & 1 == 1 { x[l] } else { y[l] }));
                Ok(())
            }
            Op::PAnd { d, a, b } => {
                need_pred(w, a, m)?;
                need_pred(w, b, m)?;
                set_pred(w, d, m, w.preds[a as usize] & w.preds[b as usize]);
                Ok(())
            }
            Op::POr { d, a, b } => {
                need_pred(w, a, m)?;
                need_pred(w, b, m)?;
                set_pred(w, d, m, w.preds[a as usize] | w.preds[b as usize]);
                Ok(())
            }
            Op::PNot { d, a } => {
                need_pred(w, a, m)?;
                set_pred(w, d, m, !w.preds[a as usize]);
                Ok(())
            }
            Op::Ld { mem, d, n, size, base, off } => self.load(w, pc, m, mem, d, n, size, base, off),
            Op::St { mem, s, n, size, base, off } => self.store(w, pc, m, mem, s, n, size, base, off),
            Op::CpAsync(_)
            | Op::CpAsyncCommit
            | Op::CpAsyncWait { .. }
            | Op::Wgmma(_)
            | Op::WgmmaFence
            | Op::WgmmaCommit
            | Op::WgmmaWait { .. }
            | Op::FenceProxyAsync
            | Op::AtomInc { .. }
            | Op::FenceAcqRel
            | Op::MbarInit { .. }
            | Op::MbarExpectTx { .. }
            | Op::TensorLoad(_)
            | Op::LdB16 { .. }
            | Op::StB16 { .. } => self.uncommon(w, op, pc, m),
            Op::Mma(i) => mma::run(w, &self.prog.mmas[i as usize], m),
            Op::Bar { .. } | Op::Bra { .. } | Op::Ret | Op::MbarTryWait { .. } | Op::SetMaxNReg { .. } => {
                unreachable!("control flow is handled by run_warp")
            }
        }
    }

    /// Executes, for lanes `m`, an instruction of the families most kernels
    /// never use: `cp.async`, `wgmma` with `fence.proxy.async`, atomics
    /// with `fence.acq_rel.gpu`, TMA, and the 16-bit loads and stores of
    /// the 16-bit precisions. One out-of-line call for all of them: with
    /// their own arms inlined in [`Self::exec`], kernels without `cp.async`
    /// ran some 5% slower.
    #[cold]
    #[inline(never)]
    fn uncommon(&mut self, w: &mut Warp, op: &Op, pc: u32, m: u32) -> Result<(), LaneTrap> {
        match *op {
            Op::CpAsync(ref c) => self.cp_async(w, pc, m, c),
            Op::CpAsyncCommit => {
                self.cp_async_commit(w, m);
                Ok(())
            }
            Op::CpAsyncWait { keep } => self.cp_async_wait(w, pc, m, keep),
            Op::AtomInc { d, base, off, bound } => self.atom_inc(w, pc, m, d, (base, off), bound),
            Op::FenceAcqRel => {
                self.fence_acq_rel(w, m);
                Ok(())
            }
            Op::MbarInit { base, off, count } => self.mbarrier_init(w, m, (base, off), count),
            Op::MbarExpectTx { base, off, bytes } => self.mbarrier_expect_tx(w, m, (base, off), bytes),
            Op::TensorLoad(i) => {
                let load = self.prog.tensor_loads[i as usize];
                self.tensor_load(w, pc, m, &load)
            }
            Op::LdB16 { d, base, off } => self.load_b16(w, pc, m, d, (base, off)),
            Op::StB16 { s, base, off } => self.store_b16(w, pc, m, s, (base, off)),
            _ => self.wgmma_family(w, op, pc, m),
        }
    }
}

/// Merges groups at the same program counter and barrier state.
fn merge(groups: &mut Vec<Group>) {
    if groups.len() < 2 {
        return;
    }
    let mut i = 0;
    while i < groups.len() {
        let mut j = i + 1;
        while j < groups.len() {
            if groups[j].pc == groups[i].pc && groups[j].barrier == groups[i].barrier {
                groups[i].mask |= groups[j].mask;
                groups.swap_remove(j);
            } else {
                j += 1;
            }
        }
        i += 1;
    }
}
