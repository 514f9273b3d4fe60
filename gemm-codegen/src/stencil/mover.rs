//! Global → shared movement staged through registers (Algorithm 1, lines
//! 2–3, 6–7 and 14–15).
//!
//! The block is reshaped to `load.0 × load.1` threads laid over the stripe
//! as it is stored, `load.0` along the leading dimension, so that a warp's
//! reads are consecutive addresses. Thread `t` sits at `(t mod load.0,
//! t div load.0)` and reads the elements at strides `load.0` and `load.1`
//! from there. Elements outside the matrix (past `m` or `n`, or at or past
//! `k`) are never read: they become zeros, which the inner product then
//! multiplies harmlessly. Conjugation happens here, so the inner product
//! never sees the op.
//!
//! In shared memory both stripes are stored K-major: `As[k][m]` and
//! `Bs[k][n]`, rows skewed (see [`Plan::skew`](crate::Plan::skew)).

use crate::constraints::{Operand, StripePlan};
use crate::ptx::{Address, CacheQual, Cmp, Instr, Operand as Op, Reg, Space, Type};
use crate::spec::GlobalLoad;

use super::{Cx, Elem, StripeMover};

/// Registers and bounds of one operand's stripe movement.
pub(crate) struct RegisterStaged {
    operand: Operand,
    state: Option<State>,
}

struct State {
    stripe: StripePlan,
    /// Global address of the thread's first element of the current stripe.
    gptr: Reg,
    /// Bytes between the thread's consecutive elements across the leading
    /// dimension (`load.1` columns).
    gstep: Reg,
    /// Scratch pointer walking across the leading dimension.
    gcur: Reg,
    /// Bytes to the next stripe along K, when K is not the leading dimension
    /// (otherwise an immediate).
    kstep: Option<Reg>,
    /// `extent - (free index of the thread's first element)`, signed: the
    /// element `x` steps along the free dimension is inside iff `x · step < free_lim`.
    free_ok: Vec<Reg>,
    /// The thread's first K index within a stripe.
    k_idx0: Reg,
    /// `k_rem - k_idx0`, signed, per stripe.
    k_lim: Reg,
    k_ok: Vec<Reg>,
    ok: Reg,
    /// Staging registers, `[j * per_thread_lead + i]`.
    staged: Vec<Elem>,
    /// Shared-window address of the thread's first element in `As`/`Bs`.
    sptr: Reg,
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
        let stripe = match self.operand {
            Operand::A => *cx.plan.stripe_a(),
            Operand::B => *cx.plan.stripe_b(),
        };
        let (base, ld, extent, free0, smem, stride) = match self.operand {
            Operand::A => {
                (cx.params.a_ptr, cx.params.lda, cx.params.m, cx.blk_m0, cx.smem_a, cx.plan.smem_a_stride())
            }
            Operand::B => {
                (cx.params.b_ptr, cx.params.ldb, cx.params.n, cx.blk_n0, cx.smem_b, cx.plan.smem_b_stride())
            }
        };
        let esz = cx.esz();
        let shape = stripe.shape;
        let (lead_n, cross_n) = (stripe.per_thread_lead, stripe.per_thread_cross);
        let (free_n, k_n) = if stripe.lead_is_k { (cross_n, lead_n) } else { (lead_n, cross_n) };

        cx.b.reg_group(format!(
            "{X}: stored stripe {} x {} ({} contiguous), read by {} x {} threads, {} x {} elements each",
            stripe.lead_len,
            stripe.cross_len,
            if stripe.lead_is_k {
                "K"
            } else if self.operand == Operand::A {
                "M"
            } else {
                "N"
            },
            shape.lead,
            shape.cross,
            lead_n,
            cross_n,
            X = self.operand.upper(),
        ));
        let (cross0, lead0) = cx.divmod(cx.thread, shape.lead, &format!("{x}_cross0"), &format!("{x}_lead0"));
        let ld_bytes = cx.b.reg(format!("{x}_ld_bytes"), Type::U64);
        let gptr = cx.b.reg(format!("{x}_gptr"), Type::U64);
        let gstep = cx.b.reg(format!("{x}_gstep"), Type::U64);
        let gcur = cx.b.reg(format!("{x}_gcur"), Type::U64);
        let free_idx = cx.b.reg(format!("{x}_free_idx"), Type::U32);
        let free_lim = cx.b.reg(format!("{x}_free_lim"), Type::S32);
        let lead_bytes = cx.b.reg(format!("{x}_lead_bytes"), Type::U64);
        let sptr = cx.b.reg(format!("{x}_sptr"), Type::U32);
        let free_ok: Vec<_> = (0..free_n).map(|f| cx.b.reg(format!("{x}_free_ok_{f}"), Type::Pred)).collect();
        let k_lim = cx.b.reg(format!("{x}_k_lim"), Type::S32);
        let k_ok: Vec<_> = (0..k_n).map(|q| cx.b.reg(format!("{x}_k_ok_{q}"), Type::Pred)).collect();
        let ok = cx.b.reg(format!("{x}_ok"), Type::Pred);
        let kstep = (!stripe.lead_is_k).then(|| cx.b.reg(format!("{x}_kstep"), Type::U64));

        // Global address of the thread's first element: stored row `lead0`
        // and column `cross0` of the stripe, the stripe starting at row
        // `free0` (free dimension leads) or column `free0` (K leads).
        cx.b.push(Instr::mul(ld_bytes, ld, Op::imm(esz)));
        let (row, col) = if stripe.lead_is_k { (lead0, free_idx) } else { (free_idx, cross0) };
        let free_first = if stripe.lead_is_k { cross0 } else { lead0 };
        cx.b.push(Instr::add(free_idx, free0, free_first));
        cx.b.push(Instr::mul_wide(lead_bytes, row, Op::imm(esz)));
        cx.b.push(Instr::add(lead_bytes, lead_bytes, base));
        cx.index_times_stride(gptr, col, ld_bytes, Some(lead_bytes));
        cx.b.push(Instr::mul(gstep, ld_bytes, Op::imm(shape.cross)));
        if let Some(kstep) = kstep {
            cx.b.push(Instr::mul(kstep, ld_bytes, Op::imm(cx.plan.spec().k_blk)));
        }

        // Which of the thread's free-dimension elements lie inside the matrix.
        let free_step = if stripe.lead_is_k { shape.cross } else { shape.lead };
        cx.b.push(Instr::sub(free_lim, extent, free_idx));
        for (f, &p) in free_ok.iter().enumerate() {
            cx.b.push(Instr::setp(Cmp::Gt, Type::S32, p, free_lim, Op::imm(f as u32 * free_step)));
        }

        // Shared-window address of the thread's first element: As[k0][m0].
        let (k0, f0) = if stripe.lead_is_k { (lead0, cross0) } else { (cross0, lead0) };
        let row_in_smem = cx.b.reg(format!("{x}_smem_elem"), Type::U32);
        cx.b.push(Instr::mad(row_in_smem, k0, Op::imm(stride), f0));
        cx.b.push(Instr::mov(sptr, smem));
        cx.b.push(Instr::mad(sptr, row_in_smem, Op::imm(esz), sptr));

        let k_idx0 = if stripe.lead_is_k { lead0 } else { cross0 };
        let staged = (0..cross_n)
            .flat_map(|j| (0..lead_n).map(move |i| (i, j)))
            .map(|(i, j)| cx.elem(&format!("{x}_pf_{i}_{j}")))
            .collect();
        self.state =
            Some(State { stripe, gptr, gstep, gcur, kstep, free_ok, k_idx0, k_lim, k_ok, ok, staged, sptr });
    }

    fn fetch(&mut self, cx: &mut Cx<'_>, k_rem: Reg) {
        let s = self.state();
        let esz = cx.esz();
        let stripe = s.stripe;
        let shape = stripe.shape;
        let conjugate = stripe.op == crate::Op::C;
        let qual = match cx.plan.spec().ldg {
            GlobalLoad::Nc => CacheQual::Nc,
            GlobalLoad::Ca => CacheQual::Ca,
            GlobalLoad::Cg => CacheQual::Cg,
        };
        let k_step = if stripe.lead_is_k { shape.lead } else { shape.cross };
        cx.b.push(Instr::sub(s.k_lim, k_rem, s.k_idx0));
        for (q, &p) in s.k_ok.iter().enumerate() {
            cx.b.push(Instr::setp(Cmp::Gt, Type::S32, p, s.k_lim, Op::imm(q as u32 * k_step)));
        }
        for j in 0..stripe.per_thread_cross {
            let ptr = if j == 0 { s.gptr } else { s.gcur };
            if j > 0 {
                let prev = if j == 1 { s.gptr } else { s.gcur };
                cx.b.push(Instr::add(s.gcur, prev, s.gstep));
            }
            for i in 0..stripe.per_thread_lead {
                let (free, k) = if stripe.lead_is_k { (j, i) } else { (i, j) };
                let e = s.staged[(j * stripe.per_thread_lead + i) as usize];
                cx.b.push(Instr::and_pred(s.ok, s.free_ok[free as usize], s.k_ok[k as usize]));
                let addr = Address::reg(ptr, i64::from(i * shape.lead) * esz);
                cx.b.push_if(s.ok, Instr::ld(Space::Global, qual, &e.regs(), addr));
                for r in e.regs() {
                    cx.b.push_unless(s.ok, Instr::mov(r, Op::float_zero(cx.scalar)));
                }
                if let (true, Some(im)) = (conjugate, e.im) {
                    cx.b.push(Instr::neg(im, im));
                }
            }
        }
    }

    fn commit(&mut self, cx: &mut Cx<'_>) {
        let s = self.state();
        let stripe = s.stripe;
        let shape = stripe.shape;
        let stride = match self.operand {
            Operand::A => cx.plan.smem_a_stride(),
            Operand::B => cx.plan.smem_b_stride(),
        };
        for j in 0..stripe.per_thread_cross {
            for i in 0..stripe.per_thread_lead {
                let (dk, df) = if stripe.lead_is_k {
                    (i * shape.lead, j * shape.cross)
                } else {
                    (j * shape.cross, i * shape.lead)
                };
                let e = s.staged[(j * stripe.per_thread_lead + i) as usize];
                let offset = i64::from(dk * stride + df) * cx.esz();
                cx.b.push(Instr::st(Space::Shared, Address::reg(s.sptr, offset), &e.regs()));
            }
        }
    }

    fn advance(&mut self, cx: &mut Cx<'_>) {
        let s = self.state();
        match s.kstep {
            Some(kstep) => cx.b.push(Instr::add(s.gptr, s.gptr, kstep)),
            None => {
                let bytes = i64::from(cx.plan.spec().k_blk) * cx.esz();
                cx.b.push(Instr::add(s.gptr, s.gptr, Op::imm(bytes)));
            }
        }
    }
}
