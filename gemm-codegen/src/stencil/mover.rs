//! Global → shared movement staged through registers (Algorithm 1, lines
//! 2–3, 6–7 and 14–15), and the thread footprint every mover shares.
//!
//! The block is reshaped to `load.0 × load.1` threads laid over the stripe
//! as it is stored, `load.0` along the leading dimension, so that a warp's
//! reads are consecutive addresses. Each thread moves runs of `ldg_width`
//! consecutive elements along the leading dimension: thread `t` sits at
//! `(t mod load.0, t div load.0)`, and its run `r` of cross row `j` starts
//! at leading index `(t mod load.0 + r · load.0) · ldg_width`, cross index
//! `t div load.0 + j · load.1`. A run wholly inside the matrix is one
//! vector load; a run cut by the edge of the matrix (past `m` or `n`, or at
//! or past `k`) loads its inside elements one by one and the rest become
//! zeros, which the inner product then multiplies harmlessly. Nothing
//! outside the matrix is ever read. Conjugation happens here, so the inner
//! product never sees the op.
//!
//! In shared memory a stripe is stored K-major, `As[k][m]` and `Bs[k][n]`,
//! rows skewed (see [`Plan::skew`](crate::Plan::skew)); or, for a
//! tensor-core math and an operand whose K leads, K-contiguous, `As[m][k]`
//! or `Bs[n][k]`, chunks swizzled (see
//! [`stripe_layout`](crate::constraints::stripe_layout)): a run along K is
//! then one store (one copy) like a run along a free dimension.

use crate::constraints::{Operand, StripeLayout, StripePlan};
use crate::ptx::{Address, CacheQual, Cmp, Instr, Operand as Op, Reg, Space, Type};
use crate::spec::GlobalLoad;

use super::{Cx, Elem, StripeMover};

/// Where one thread's runs of a stripe lie, in global and shared memory, and
/// which of them are inside the matrix: what every mover computes alike.
pub(crate) struct Footprint {
    pub stripe: StripePlan,
    /// Whether the shared stripe is K-contiguous (`[free][k]`).
    pub k_contiguous: bool,
    /// Elements per run (`ldg_width`).
    pub width: u32,
    /// Runs along the leading dimension per thread.
    pub runs: u32,
    /// Global address of the thread's first element of the current stripe.
    pub gptr: Reg,
    /// Bytes between the thread's consecutive cross rows (`load.1` of them).
    pub gstep: Reg,
    /// Scratch pointer walking across the leading dimension.
    pub gcur: Reg,
    /// Bytes to the next stripe along K, when K is not the leading dimension
    /// (otherwise an immediate).
    kstep: Option<Reg>,
    /// `lead_ok[r * width + e]`: element `e` of run `r` is inside along the
    /// leading dimension (set once for a free leading dimension, per stripe
    /// for K).
    pub lead_ok: Vec<Reg>,
    /// `cross_ok[j]`: cross row `j` is inside (per stripe when K is the
    /// cross dimension, once otherwise).
    pub cross_ok: Vec<Reg>,
    /// The limit the per-stripe predicates compare with: `k_rem` minus the
    /// thread's first K index, signed.
    k_lim: Reg,
    /// The thread's first K index within a stripe.
    k_idx0: Reg,
    /// Scratch predicate.
    pub ok: Reg,
    /// Shared-window address of the thread's first element in `As`/`Bs`
    /// (in the first stripe of a ring).
    pub sptr: Reg,
}

impl Footprint {
    /// Declares the registers and computes the per-thread pointers and the
    /// bounds that do not change along K.
    pub fn setup(cx: &mut Cx<'_>, operand: Operand) -> Footprint {
        let x = operand.lower();
        let stripe = match operand {
            Operand::A => *cx.plan.stripe_a(),
            Operand::B => *cx.plan.stripe_b(),
        };
        let (base, ld, extent, free0, smem) = match operand {
            Operand::A => (cx.params.a_ptr, cx.params.lda, cx.params.m, cx.blk_m0, cx.smem_a),
            Operand::B => (cx.params.b_ptr, cx.params.ldb, cx.params.n, cx.blk_n0, cx.smem_b),
        };
        let stride = cx.plan.stride(operand);
        let esz = cx.esz();
        let shape = stripe.shape;
        let width = cx.plan.spec().ldg_width;
        let runs = stripe.per_thread_lead / width;
        let cross_n = stripe.per_thread_cross;
        let lead_elems = runs * width;

        let each = if width == 1 {
            format!("{lead_elems} x {cross_n} elements each")
        } else {
            format!("{cross_n} x {runs} runs of {width} elements each")
        };
        cx.b.reg_group(format!(
            "{X}: stored stripe {} x {} ({} contiguous), read by {} x {} threads, {each}",
            stripe.lead_len,
            stripe.cross_len,
            if stripe.lead_is_k {
                "K"
            } else if operand == Operand::A {
                "M"
            } else {
                "N"
            },
            shape.lead,
            shape.cross,
            X = operand.upper(),
        ));
        let (cross0, lead0) = cx.divmod(cx.thread, shape.lead, &format!("{x}_cross0"), &format!("{x}_lead0"));
        let lead_first = if width > 1 {
            let r = cx.b.reg(format!("{x}_lead_first"), Type::U32);
            cx.b.push(Instr::mul(r, lead0, Op::imm(width)));
            r
        } else {
            lead0
        };
        let ld_bytes = cx.b.reg(format!("{x}_ld_bytes"), Type::U64);
        let gptr = cx.b.reg(format!("{x}_gptr"), Type::U64);
        let gstep = cx.b.reg(format!("{x}_gstep"), Type::U64);
        let gcur = cx.b.reg(format!("{x}_gcur"), Type::U64);
        let free_idx = cx.b.reg(format!("{x}_free_idx"), Type::U32);
        let free_lim = cx.b.reg(format!("{x}_free_lim"), Type::S32);
        let lead_bytes = cx.b.reg(format!("{x}_lead_bytes"), Type::U64);
        let sptr = cx.b.reg(format!("{x}_sptr"), Type::U32);
        // Predicates named for the dimension they bound: free (M or N) or K.
        let (free_n, k_n) = if stripe.lead_is_k { (cross_n, lead_elems) } else { (lead_elems, cross_n) };
        let free_ok: Vec<_> = (0..free_n).map(|f| cx.b.reg(format!("{x}_free_ok_{f}"), Type::Pred)).collect();
        let k_lim = cx.b.reg(format!("{x}_k_lim"), Type::S32);
        let k_ok: Vec<_> = (0..k_n).map(|q| cx.b.reg(format!("{x}_k_ok_{q}"), Type::Pred)).collect();
        let (lead_ok, cross_ok) = if stripe.lead_is_k { (k_ok, free_ok) } else { (free_ok, k_ok) };
        let ok = cx.b.reg(format!("{x}_ok"), Type::Pred);
        let kstep = (!stripe.lead_is_k).then(|| cx.b.reg(format!("{x}_kstep"), Type::U64));

        // Global address of the thread's first element: stored row `lead_first`
        // and column `cross0` of the stripe, the stripe starting at row
        // `free0` (free dimension leads) or column `free0` (K leads).
        cx.b.push(Instr::mul(ld_bytes, ld, Op::imm(esz)));
        let (row, col) = if stripe.lead_is_k { (lead_first, free_idx) } else { (free_idx, cross0) };
        let free_first = if stripe.lead_is_k { cross0 } else { lead_first };
        cx.b.push(Instr::add(free_idx, free0, free_first));
        cx.b.push(Instr::mul_wide(lead_bytes, row, Op::imm(esz)));
        cx.b.push(Instr::add(lead_bytes, lead_bytes, base));
        cx.index_times_stride(gptr, col, ld_bytes, Some(lead_bytes));
        cx.b.push(Instr::mul(gstep, ld_bytes, Op::imm(shape.cross)));
        if let Some(kstep) = kstep {
            cx.b.push(Instr::mul(kstep, ld_bytes, Op::imm(cx.plan.spec().k_blk)));
        }

        // Which of the thread's free-dimension elements lie inside the matrix.
        cx.b.push(Instr::sub(free_lim, extent, free_idx));
        let free_preds = if stripe.lead_is_k { &cross_ok } else { &lead_ok };
        for (f, &p) in free_preds.iter().enumerate() {
            let offset = if stripe.lead_is_k {
                f as u32 * shape.cross
            } else {
                lead_offset(f as u32, width, shape.lead)
            };
            cx.b.push(Instr::setp(Cmp::Gt, Type::S32, p, free_lim, Op::imm(offset)));
        }

        // Shared-window address of the thread's first element: As[k0][m0],
        // or As[m0][k0] with its chunk swizzled.
        let (k0, f0) = if stripe.lead_is_k { (lead_first, cross0) } else { (cross0, lead_first) };
        let row_in_smem = cx.b.reg(format!("{x}_smem_elem"), Type::U32);
        let layout = cx.plan.layout(operand);
        match layout {
            StripeLayout::KMajor => {
                cx.b.push(Instr::mad(row_in_smem, k0, Op::imm(stride), f0));
                cx.shared_address(sptr, smem);
                cx.b.push(Instr::mad(sptr, row_in_smem, Op::imm(esz), sptr));
            }
            StripeLayout::KContiguous(z) => {
                cx.b.push(Instr::mad(row_in_smem, f0, Op::imm(stride), k0));
                cx.b.push(Instr::mul(row_in_smem, row_in_smem, Op::imm(esz)));
                let mask = cx.b.reg(format!("{x}_swizzle"), Type::U32);
                cx.swizzle(row_in_smem, f0, z, mask);
                cx.shared_address(sptr, smem);
                cx.b.push(Instr::add(sptr, sptr, row_in_smem));
            }
        }

        let k_idx0 = if stripe.lead_is_k { lead_first } else { cross0 };
        Footprint {
            stripe,
            k_contiguous: layout.k_contiguous(),
            width,
            runs,
            gptr,
            gstep,
            gcur,
            kstep,
            lead_ok,
            cross_ok,
            k_lim,
            k_idx0,
            ok,
            sptr,
        }
    }

    /// Sets the predicates along K for the stripe with `k_rem` elements of
    /// K left (signed: at or below zero nothing is inside).
    pub fn bound_k(&self, cx: &mut Cx<'_>, k_rem: Reg) {
        let shape = self.stripe.shape;
        cx.b.push(Instr::sub(self.k_lim, k_rem, self.k_idx0));
        let k_preds = if self.stripe.lead_is_k { &self.lead_ok } else { &self.cross_ok };
        for (q, &p) in k_preds.iter().enumerate() {
            let offset = if self.stripe.lead_is_k {
                lead_offset(q as u32, self.width, shape.lead)
            } else {
                q as u32 * shape.cross
            };
            cx.b.push(Instr::setp(Cmp::Gt, Type::S32, p, self.k_lim, Op::imm(offset)));
        }
    }

    /// The global pointer of cross row `j`: `gptr`, or `gcur` after stepping
    /// it there (call with `j` = 0, 1, 2, … in order).
    pub fn cross_row(&self, cx: &mut Cx<'_>, j: u32) -> Reg {
        match j {
            0 => self.gptr,
            1 => {
                cx.b.push(Instr::add(self.gcur, self.gptr, self.gstep));
                self.row_pointer(j)
            }
            _ => {
                cx.b.push(Instr::add(self.gcur, self.gcur, self.gstep));
                self.row_pointer(j)
            }
        }
    }

    /// The register holding cross row `j`'s pointer once
    /// [`Footprint::cross_row`] has stepped there.
    pub fn row_pointer(&self, j: u32) -> Reg {
        if j == 0 { self.gptr } else { self.gcur }
    }

    /// Byte offset of run `r`, element `e` from the start of its cross row,
    /// in global memory.
    pub fn global_offset(&self, esz: i64, r: u32, e: u32) -> i64 {
        i64::from(r * self.stripe.shape.lead * self.width + e) * esz
    }

    /// Byte offset of run `r`, element `e` of cross row `j` from
    /// [`Footprint::sptr`] in the shared array of row `stride`: K-major, or
    /// K-contiguous, where the layout's conditions make the swizzle of
    /// every copy the swizzle of the first shifted by this much.
    pub fn shared_offset(&self, esz: i64, stride: u32, r: u32, e: u32, j: u32) -> i64 {
        let lead = r * self.stripe.shape.lead * self.width + e;
        let cross = j * self.stripe.shape.cross;
        let (k, f) = if self.stripe.lead_is_k { (lead, cross) } else { (cross, lead) };
        let (row, col) = if self.k_contiguous { (f, k) } else { (k, f) };
        i64::from(row * stride + col) * esz
    }

    /// Whether a run along the leading dimension is contiguous in shared
    /// memory: always, unless K leads a K-major stripe.
    pub fn run_is_contiguous(&self) -> bool {
        !self.stripe.lead_is_k || self.k_contiguous
    }

    /// Moves the global pointers one stripe further along K.
    pub fn advance(&self, cx: &mut Cx<'_>) {
        match self.kstep {
            Some(kstep) => cx.b.push(Instr::add(self.gptr, self.gptr, kstep)),
            None => {
                let bytes = i64::from(cx.plan.spec().k_blk) * cx.esz();
                cx.b.push(Instr::add(self.gptr, self.gptr, Op::imm(bytes)));
            }
        }
    }
}

/// The leading index of element `index` of a thread's runs, relative to its
/// first element: run `index / width` is `load.0 × width` further on.
fn lead_offset(index: u32, width: u32, lead_threads: u32) -> u32 {
    (index / width) * lead_threads * width + index % width
}

/// The register-staged mover: the next stripe goes global → registers while
/// the current one is consumed, then registers → shared between barriers.
pub(crate) struct RegisterStaged {
    operand: Operand,
    state: Option<State>,
}

struct State {
    at: Footprint,
    /// Staging registers, `[(j * runs + r) * width + e]`.
    staged: Vec<Elem>,
    /// `!full` of the run being loaded, for runs wider than one element.
    not_full: Option<Reg>,
}

impl RegisterStaged {
    pub fn new(operand: Operand) -> RegisterStaged {
        RegisterStaged { operand, state: None }
    }

    fn state(&self) -> &State {
        self.state.as_ref().expect("setup runs first")
    }
}

impl StripeMover for RegisterStaged {
    fn setup(&mut self, cx: &mut Cx<'_>) {
        let x = self.operand.lower();
        let at = Footprint::setup(cx, self.operand);
        let lead_n = at.runs * at.width;
        let staged = (0..at.stripe.per_thread_cross)
            .flat_map(|j| (0..lead_n).map(move |i| (i, j)))
            .map(|(i, j)| cx.elem(&format!("{x}_pf_{i}_{j}")))
            .collect();
        let not_full = (at.width > 1).then(|| cx.b.reg(format!("{x}_not_full"), Type::Pred));
        self.state = Some(State { at, staged, not_full });
    }

    fn fetch(&mut self, cx: &mut Cx<'_>, k_rem: Reg) {
        let s = self.state();
        let at = &s.at;
        let esz = cx.esz();
        let conjugate = at.stripe.op == crate::Op::C;
        let qual = match cx.plan.spec().ldg {
            GlobalLoad::Nc => CacheQual::Nc,
            GlobalLoad::Ca => CacheQual::Ca,
            GlobalLoad::Cg | GlobalLoad::Tma => CacheQual::Cg,
        };
        let w = at.width;
        at.bound_k(cx, k_rem);
        for j in 0..at.stripe.per_thread_cross {
            let ptr = at.cross_row(cx, j);
            for r in 0..at.runs {
                let first = ((j * at.runs + r) * w) as usize;
                let run = &s.staged[first..first + w as usize];
                let elem_ok = |e: u32| at.lead_ok[(r * w + e) as usize];
                let cross_ok = at.cross_ok[j as usize];
                let addr = |e: u32| Address::reg(ptr, at.global_offset(esz, r, e));
                // Both inside: the free-dimension predicate first.
                let both = |cx: &mut Cx<'_>, lead: Reg| {
                    let (free, k) = if at.stripe.lead_is_k { (cross_ok, lead) } else { (lead, cross_ok) };
                    cx.b.push(Instr::and_pred(at.ok, free, k));
                };
                // The whole run in one load when its last element is inside.
                both(cx, elem_ok(w - 1));
                let regs: Vec<Reg> = run.iter().flat_map(Elem::regs).collect();
                cx.b.push_if(at.ok, Instr::ld(Space::Global, qual, &regs, addr(0)));
                if let Some(not_full) = s.not_full {
                    // A run cut by the edge: its inside elements one by one.
                    cx.b.push(Instr::not(not_full, at.ok));
                    for (e, elem) in run.iter().enumerate().take(w as usize - 1) {
                        let e = e as u32;
                        both(cx, elem_ok(e));
                        for reg in elem.regs() {
                            cx.b.push_unless(at.ok, Instr::mov(reg, Op::float_zero(cx.scalar)));
                        }
                        cx.b.push(Instr::and_pred(at.ok, at.ok, not_full));
                        cx.b.push_if(at.ok, Instr::ld(Space::Global, qual, &elem.regs(), addr(e)));
                    }
                    for reg in run[w as usize - 1].regs() {
                        cx.b.push_if(not_full, Instr::mov(reg, Op::float_zero(cx.scalar)));
                    }
                } else {
                    for reg in run[0].regs() {
                        cx.b.push_unless(at.ok, Instr::mov(reg, Op::float_zero(cx.scalar)));
                    }
                }
                if conjugate {
                    for e in run {
                        let im = e.im.expect("conjugation is for complex elements");
                        cx.b.push(Instr::neg(im, im));
                    }
                }
            }
        }
    }

    fn commit(&mut self, cx: &mut Cx<'_>) {
        let s = self.state();
        let at = &s.at;
        let stride = cx.plan.stride(self.operand);
        let esz = cx.esz();
        let w = at.width;
        for j in 0..at.stripe.per_thread_cross {
            for r in 0..at.runs {
                let first = ((j * at.runs + r) * w) as usize;
                let run = &s.staged[first..first + w as usize];
                if !at.run_is_contiguous() {
                    // A run along K spans `width` rows of the K-major array.
                    for (e, elem) in run.iter().enumerate() {
                        let offset = at.shared_offset(esz, stride, r, e as u32, j);
                        cx.b.push(Instr::st(Space::Shared, Address::reg(at.sptr, offset), &elem.regs()));
                    }
                } else {
                    let regs: Vec<Reg> = run.iter().flat_map(Elem::regs).collect();
                    let offset = at.shared_offset(esz, stride, r, 0, j);
                    cx.b.push(Instr::st(Space::Shared, Address::reg(at.sptr, offset), &regs));
                }
            }
        }
    }

    fn advance(&mut self, cx: &mut Cx<'_>) {
        self.state().at.advance(cx);
    }
}
