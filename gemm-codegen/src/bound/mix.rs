//! Finding a kernel's main loop in the PTX IR and counting what one trip
//! through it issues.

use std::ops::Range;

use crate::ptx::{
    AddrBase, Address, BinOp, HalfCvt, Instr, Kernel, MmaKind, Operand, Space, Stmt, Tma, Type, UnOp,
};

use super::lanes::{self, SharedCycles};

/// Per-thread instruction counts of a stretch of straight-line code: what
/// one thread issues on one pass (a warp issues the same, once per warp).
///
/// Guarded instructions count as issued whether or not their guard holds,
/// as the GPU issues them. Counts are of PTX instructions: `ptxas` may fold
/// some address arithmetic into memory operands or split 64-bit integer
/// operations in two, so the SASS mix differs a little; loads, stores,
/// barriers and floating-point FMAs map one to one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InstrMix {
    /// `fma.rn.f32` (a complex multiply-add is four of them in the IR).
    pub fma_f32: u32,
    /// `fma.rn.f64`.
    pub fma_f64: u32,
    /// `mma.sync`, counted per thread as issued once per warp like every
    /// instruction; each multiply-adds `m·n·k / 32` per lane.
    pub mma: u32,
    /// The multiply-adds of those `mma`s, per lane.
    pub mma_fmas: u32,
    /// Their kind (the FP64 or the TF32 tensor cores); a kernel has one.
    pub mma_kind: Option<MmaKind>,
    /// `ld.shared`, any vector width.
    pub shared_loads: u32,
    /// Bytes one thread reads with them.
    pub shared_load_bytes: u32,
    /// `st.shared`, any vector width.
    pub shared_stores: u32,
    /// Bytes one thread writes with them.
    pub shared_store_bytes: u32,
    /// `ld.global`, any vector width or cache qualifier.
    pub global_loads: u32,
    /// Bytes one thread reads with them.
    pub global_load_bytes: u32,
    /// `st.global`.
    pub global_stores: u32,
    /// Bytes one thread writes with them.
    pub global_store_bytes: u32,
    /// `bar.sync`.
    pub barriers: u32,
    /// `cp.async`s: each is also in [`InstrMix::global_loads`] and
    /// [`InstrMix::shared_stores`] (it moves bytes through both), but
    /// issues once (one `LDGSTS`).
    pub async_copies: u32,
    /// Floating-point `neg`s whose result only FMAs read: `ptxas` folds
    /// such a negation into the FMAs' operand modifiers, so it takes no
    /// issue slot and is not in [`InstrMix::total`] (any other `neg` is in
    /// [`InstrMix::other`]).
    pub folded: u32,
    /// Integer address arithmetic (`add`, `sub`, `mul`, `mad`, shifts on
    /// integers), moves and conversions: in [`InstrMix::total`], but not in
    /// [`InstrMix::issued`], as `ptxas` folds much of it into addressing
    /// modes or hoists it out of the loop (a measured FMA kernel on the
    /// H100 beat an issue bound that charged all of it,
    /// `tuning/sm_90-wgmma/run5`).
    pub address: u32,
    /// Everything else: compares, selects, bit operations, branches,
    /// parameter loads, other floating-point operations.
    pub other: u32,
}

impl InstrMix {
    /// Counts the instructions among `stmts`.
    pub fn of(stmts: &[Stmt]) -> InstrMix {
        let instrs: Vec<&Instr> = stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Instr { instr, .. } => Some(instr),
                _ => None,
            })
            .collect();
        let mut mix = InstrMix::default();
        for (i, instr) in instrs.iter().enumerate() {
            match instr {
                Instr::Unary { op: UnOp::Neg, ty, dst, .. }
                    if ty.is_float() && only_fmas_read(dst.index(), &instrs[i + 1..]) =>
                {
                    mix.folded += 1
                }
                _ => mix.add(instr),
            }
        }
        mix
    }

    fn add(&mut self, instr: &Instr) {
        // Exhaustive on purpose: a new instruction must say where it counts
        // (a `cp.async`, say, is a global read and a shared write at once).
        match instr {
            Instr::Fma { ty: Type::F64, .. } => self.fma_f64 += 1,
            Instr::Fma { .. } => self.fma_f32 += 1,
            Instr::Ld { space: Space::Shared, ty, dst, .. } => {
                self.shared_loads += 1;
                self.shared_load_bytes += ty.bytes() * dst.len() as u32;
            }
            Instr::Ld { space: Space::Global, ty, dst, .. } => {
                self.global_loads += 1;
                self.global_load_bytes += ty.bytes() * dst.len() as u32;
            }
            Instr::St { space: Space::Shared, ty, src, .. } => {
                self.shared_stores += 1;
                self.shared_store_bytes += ty.bytes() * src.len() as u32;
            }
            Instr::St { space: Space::Global, ty, src, .. } => {
                self.global_stores += 1;
                self.global_store_bytes += ty.bytes() * src.len() as u32;
            }
            Instr::BarSync { .. } | Instr::BarArrive { .. } => self.barriers += 1,
            Instr::Mma { shape, kind, .. } => {
                self.mma += 1;
                self.mma_fmas += shape.m * shape.n * shape.k / 32;
                self.mma_kind = Some(*kind);
            }
            // Per thread: its warpgroup's 64 · N · 8 products over 128 threads.
            Instr::Wgmma { shape, .. } | Instr::WgmmaRs { shape, .. } => {
                self.mma += 1;
                self.mma_fmas += shape.n * 4;
                self.mma_kind = Some(crate::ptx::MmaKind::Tf32);
            }
            // A global read and a shared write at once, issued by one slot.
            Instr::CpAsync { bytes, .. } => {
                self.async_copies += 1;
                self.global_loads += 1;
                self.global_load_bytes += bytes;
                self.shared_stores += 1;
                self.shared_store_bytes += bytes;
            }
            Instr::CpAsyncCommit
            | Instr::CpAsyncWait { .. }
            | Instr::CpAsyncWaitAll
            | Instr::WgmmaFence
            | Instr::WgmmaCommit
            | Instr::WgmmaWait { .. }
            | Instr::SetMaxNReg { .. }
            | Instr::FenceProxyAsync
            | Instr::AtomInc { .. }
            | Instr::FenceAcqRelGpu => self.other += 1,
            // The copy engine moves the bytes: one issue slot.
            Instr::Tma(Tma::TensorLoad { .. }) => self.async_copies += 1,
            Instr::Tma(_) => self.other += 1,
            Instr::Binary {
                op: BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl | BinOp::Shr, ty, ..
            } if !ty.is_float() => self.address += 1,
            Instr::Mad { ty, .. } if !ty.is_float() => self.address += 1,
            Instr::Mov { .. } | Instr::CvtaToGlobal { .. } | Instr::Cvt { .. } => self.address += 1,
            Instr::Ld { space: Space::Param, .. }
            | Instr::St { space: Space::Param, .. }
            | Instr::LdParam { .. }
            | Instr::CvtTf32 { .. }
            | Instr::CvtHalf(_)
            | Instr::Unary { .. }
            | Instr::Binary { .. }
            | Instr::Mad { .. }
            | Instr::Setp { .. }
            | Instr::Selp { .. }
            | Instr::Bra { .. }
            | Instr::Ret => self.other += 1,
        }
    }

    /// Floating-point FMAs of both precisions.
    pub const fn fmas(&self) -> u32 {
        self.fma_f32 + self.fma_f64
    }

    /// Shared-memory loads and stores.
    pub const fn shared_accesses(&self) -> u32 {
        self.shared_loads + self.shared_stores
    }

    /// Bytes one thread moves to or from shared memory.
    pub const fn shared_bytes(&self) -> u32 {
        self.shared_load_bytes + self.shared_store_bytes
    }

    /// Bytes one thread moves to or from global memory.
    pub const fn global_bytes(&self) -> u32 {
        self.global_load_bytes + self.global_store_bytes
    }

    /// Every instruction of the PTX loop (but the folded negations).
    pub const fn total(&self) -> u32 {
        self.issued() + self.address
    }

    /// The instructions certain to take an issue slot: all but the
    /// [`InstrMix::address`] arithmetic `ptxas` may fold or hoist.
    pub const fn issued(&self) -> u32 {
        self.fmas()
            + self.mma
            + self.shared_accesses()
            + self.global_loads
            + self.global_stores
            + self.barriers
            + self.other
            - self.async_copies
    }

    /// The FMAs' share of all instructions, in `[0, 1]` (0 for no code).
    pub fn fma_share(&self) -> f64 {
        match self.total() {
            0 => 0.0,
            t => f64::from(self.fmas()) / f64::from(t),
        }
    }
}

/// Where the counted code comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Region {
    /// The body of a loop: from its label to the last backward branch to it
    /// (inclusive), `body` indexing [`Kernel::body`].
    Loop {
        /// The loop's label.
        label: String,
        /// Statements of one trip.
        body: Range<usize>,
    },
    /// The kernel has no backward branch: its whole body, run once.
    WholeBody,
}

/// What one trip through a kernel's main loop issues.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopMix {
    /// The kernel's entry name.
    pub kernel: String,
    /// The code counted.
    pub region: Region,
    /// Its instructions, per thread.
    pub mix: InstrMix,
    /// Distinct registers written by an FMA in the region: the independent
    /// FMA chains a thread can interleave (its accumulators).
    pub fma_chains: u32,
    /// The shared-memory cycles of one trip of a block, from the addresses
    /// its lanes touch.
    pub shared: SharedCycles,
    /// Tensor-core products per product of the GEMM: 3 for `math = tf32x3`
    /// (big·big, big·small, small·big), else 1. The code alone cannot tell;
    /// [`LoopMix::of`] says 1 and [`super::AnalyticBound::of_plan`] sets it
    /// from the spec.
    pub passes: u32,
}

impl LoopMix {
    /// The main loop of `plan`'s kernel as the stencil lowers it, with the
    /// tensor-core products its math makes of each product of the GEMM.
    pub fn of_plan(plan: &crate::Plan) -> LoopMix {
        let module = crate::lower(plan);
        let kernel = module.kernels.first().expect("the stencil lowers to one kernel");
        LoopMix { passes: plan.spec().math.passes(), ..LoopMix::of(kernel) }
    }

    /// The main loop of `kernel` ([`main_loop`]) counted, or the whole body
    /// when it has none.
    pub fn of(kernel: &Kernel) -> LoopMix {
        let (region, body) = match main_loop(kernel) {
            Some((label, body)) => {
                (Region::Loop { label: kernel.labels[label].clone(), body: body.clone() }, body)
            }
            None => (Region::WholeBody, 0..kernel.body.len()),
        };
        let stmts = &kernel.body[body.clone()];
        let mut chains: Vec<usize> = stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Instr { instr: Instr::Fma { dst, .. }, .. } => Some(dst.index()),
                _ => None,
            })
            .collect();
        chains.sort_unstable();
        chains.dedup();
        LoopMix {
            kernel: kernel.name.clone(),
            region,
            mix: InstrMix::of(stmts),
            fma_chains: chains.len() as u32,
            shared: lanes::shared_cycles(kernel, body),
            passes: 1,
        }
    }
}

/// The main loop of `kernel`: the label index and the statements from the
/// label to the last backward branch to it, inclusive.
///
/// A loop is a label with a branch after it that jumps back to it. The main
/// loop is the one whose label is named `main_loop` (the stencil's), else
/// the one with the most FMAs, the earliest on a tie. Code inside is counted
/// as straight-line: a branch within the loop is taken to fall through, an
/// inner loop to run once. `None` when no branch goes backward.
pub fn main_loop(kernel: &Kernel) -> Option<(usize, Range<usize>)> {
    let mut placed = vec![None; kernel.labels.len()];
    let mut loops: Vec<(usize, Range<usize>)> = Vec::new();
    for (i, stmt) in kernel.body.iter().enumerate() {
        match stmt {
            Stmt::Label(l) => placed[l.index()] = Some(i),
            Stmt::Instr { instr: Instr::Bra { target, .. }, .. } => {
                let Some(start) = placed.get(target.index()).copied().flatten() else { continue };
                match loops.iter_mut().find(|(l, _)| *l == target.index()) {
                    Some((_, body)) => body.end = i + 1,
                    None => loops.push((target.index(), start..i + 1)),
                }
            }
            _ => {}
        }
    }
    let fmas = |body: &Range<usize>| InstrMix::of(&kernel.body[body.clone()]).fmas();
    if let Some(named) = loops.iter().find(|(l, _)| kernel.labels[*l] == "main_loop") {
        return Some(named.clone());
    }
    // `max_by_key` keeps the last maximum: walk backwards for the earliest.
    loops.into_iter().rev().max_by_key(|(_, body)| fmas(body))
}

/// Whether register `reg`, as written just before `after`, is read at least
/// once and only as an operand of `fma` until it is written again.
fn only_fmas_read(reg: usize, after: &[&Instr]) -> bool {
    let mut read = false;
    for instr in after {
        let uses = reads(instr).contains(&reg);
        if uses {
            if !matches!(instr, Instr::Fma { .. }) {
                return false;
            }
            read = true;
        }
        if written(instr).contains(&reg) {
            break;
        }
    }
    read
}

/// Registers an instruction reads (its guard aside).
fn reads(instr: &Instr) -> Vec<usize> {
    let regs = |ops: &[&Operand]| ops.iter().filter_map(|o| o.reg()).map(|r| r.index()).collect::<Vec<_>>();
    let base = |a: &Address| match a.base {
        AddrBase::Reg(r) => vec![r.index()],
        AddrBase::Shared(_) | AddrBase::Param(_) => Vec::new(),
    };
    match instr {
        Instr::LdParam { .. }
        | Instr::BarSync { .. }
        | Instr::BarArrive { .. }
        | Instr::Bra { .. }
        | Instr::Ret
        | Instr::CpAsyncCommit
        | Instr::CpAsyncWait { .. }
        | Instr::CpAsyncWaitAll
        | Instr::WgmmaFence
        | Instr::WgmmaCommit
        | Instr::WgmmaWait { .. }
        | Instr::SetMaxNReg { .. }
        | Instr::FenceProxyAsync
        | Instr::FenceAcqRelGpu => Vec::new(),
        Instr::AtomInc { addr, bound, .. } => {
            [base(addr), bound.reg().map(|r| r.index()).into_iter().collect()].concat()
        }
        Instr::Wgmma { d, a_desc, b_desc, scale_d, .. } => {
            d.iter().chain([a_desc, b_desc, scale_d]).map(|r| r.index()).collect()
        }
        Instr::WgmmaRs { d, a, b_desc, scale_d, .. } => {
            d.iter().chain(a).chain([b_desc, scale_d]).map(|r| r.index()).collect()
        }
        Instr::CpAsync { dst, src, src_bytes, .. } => {
            [base(dst), base(src), src_bytes.iter().filter_map(|o| o.reg()).map(|r| r.index()).collect()]
                .concat()
        }
        Instr::Mov { src, .. } | Instr::Unary { src, .. } => regs(&[src]),
        Instr::CvtaToGlobal { src, .. } | Instr::Cvt { src, .. } | Instr::CvtTf32 { src, .. } => {
            vec![src.index()]
        }
        Instr::CvtHalf(HalfCvt::F16ToF32 { src, .. }) => vec![src.index()],
        Instr::CvtHalf(HalfCvt::Pack { hi, lo, .. }) => vec![hi.index(), lo.index()],
        Instr::Binary { a, b, .. } | Instr::Setp { a, b, .. } => regs(&[a, b]),
        Instr::Mad { a, b, c, .. } | Instr::Fma { a, b, c, .. } => regs(&[a, b, c]),
        Instr::Selp { a, b, pred, .. } => [regs(&[a, b]), vec![pred.index()]].concat(),
        Instr::Ld { addr, .. } => base(addr),
        Instr::Mma { a, b, c, .. } => [a, b, c].iter().flat_map(|rs| rs.iter().map(|r| r.index())).collect(),
        Instr::Tma(t) => t.reads().iter().map(|r| r.index()).collect(),
        Instr::St { addr, src, .. } => [base(addr), regs(&src.iter().collect::<Vec<_>>())].concat(),
    }
}

/// Registers an instruction writes.
pub(super) fn written(instr: &Instr) -> Vec<usize> {
    match instr {
        Instr::LdParam { dst, .. }
        | Instr::Mov { dst, .. }
        | Instr::CvtaToGlobal { dst, .. }
        | Instr::Cvt { dst, .. }
        | Instr::CvtTf32 { dst, .. }
        | Instr::CvtHalf(HalfCvt::F16ToF32 { dst, .. } | HalfCvt::Pack { dst, .. })
        | Instr::Unary { dst, .. }
        | Instr::Binary { dst, .. }
        | Instr::Mad { dst, .. }
        | Instr::Fma { dst, .. }
        | Instr::Setp { dst, .. }
        | Instr::Selp { dst, .. }
        | Instr::AtomInc { dst, .. } => vec![dst.index()],
        Instr::Ld { dst, .. }
        | Instr::Mma { d: dst, .. }
        | Instr::Wgmma { d: dst, .. }
        | Instr::WgmmaRs { d: dst, .. } => dst.iter().map(|r| r.index()).collect(),
        Instr::Tma(t) => t.writes().iter().map(|r| r.index()).collect(),
        Instr::St { .. }
        | Instr::WgmmaFence
        | Instr::WgmmaCommit
        | Instr::WgmmaWait { .. }
        | Instr::SetMaxNReg { .. }
        | Instr::FenceProxyAsync
        | Instr::FenceAcqRelGpu
        | Instr::BarSync { .. }
        | Instr::BarArrive { .. }
        | Instr::Bra { .. }
        | Instr::Ret
        | Instr::CpAsync { .. }
        | Instr::CpAsyncCommit
        | Instr::CpAsyncWait { .. }
        | Instr::CpAsyncWaitAll => Vec::new(),
    }
}
