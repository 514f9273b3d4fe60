//! The register-blocked inner product (Algorithm 1, lines 8–12): for each k
//! of the stripe, a column of `M_thr` elements of A and a row of `N_thr`
//! elements of B go from shared memory to registers, and every one of the
//! `M_thr × N_thr` accumulators takes one multiply-add. Fully unrolled.
//!
//! With `lds_width = w`, each shared load moves a run of `w` elements
//! (`ld.shared.v2`/`.v4`); the [`CLayout`] puts a thread's elements in such
//! runs. A complex multiply-add is four real FMAs, the imaginary part of A
//! negated once per element and k.

use crate::ptx::{Address, CacheQual, Instr, Operand as Op, Reg, Space, Type};

use super::{CLayout, Cx, Elem, InnerProduct};

#[derive(Default)]
pub(crate) struct RegisterBlocked {
    /// Conjugate A's elements as they are multiplied.
    conj_a: bool,
    /// Conjugate B's elements as they are multiplied.
    conj_b: bool,
    acc: Vec<Elem>,
    a: Vec<Elem>,
    b: Vec<Elem>,
    /// `-im` of each element of A, for the real part of complex products.
    a_neg_im: Vec<Reg>,
    /// `-re` of each element of A, when B is conjugated.
    a_neg_re: Vec<Reg>,
    /// The stripe's read pointers when the stripe is not the first of a ring.
    a_cur: Option<Reg>,
    b_cur: Option<Reg>,
    a_sptr: Option<Reg>,
    b_sptr: Option<Reg>,
}

impl RegisterBlocked {
    /// The product, conjugating A's and B's elements as it multiplies them
    /// when asked (for stripes that reach shared memory unconjugated).
    pub fn new(conj_a: bool, conj_b: bool) -> RegisterBlocked {
        RegisterBlocked { conj_a, conj_b, ..RegisterBlocked::default() }
    }
}

impl InnerProduct for RegisterBlocked {
    fn setup(&mut self, cx: &mut Cx<'_>) {
        let (m_thr, n_thr) = (cx.plan.m_thr(), cx.plan.n_thr());
        let w = cx.plan.spec().lds_width;
        cx.b.reg_group("inner product: shared-memory read pointers");
        let a_sptr = cx.b.reg("a_sld", Type::U32);
        let b_sptr = cx.b.reg("b_sld", Type::U32);
        // A thread reads As[k][tx·w + row_offset(i)] and Bs[k][ty·w + col_offset(j)].
        let run_bytes = i64::from(w) * cx.esz();
        cx.shared_address(a_sptr, cx.smem_a);
        cx.b.push(Instr::mad(a_sptr, cx.tx, Op::imm(run_bytes), a_sptr));
        cx.shared_address(b_sptr, cx.smem_b);
        cx.b.push(Instr::mad(b_sptr, cx.ty, Op::imm(run_bytes), b_sptr));

        cx.b.reg_group(format!("C accumulators: {m_thr} x {n_thr} per thread"));
        self.acc = (0..m_thr)
            .flat_map(|i| (0..n_thr).map(move |j| (i, j)))
            .map(|(i, j)| cx.elem(&format!("c_{i}_{j}")))
            .collect();
        cx.b.reg_group("inner product: a column of A and a row of B");
        self.a = (0..m_thr).map(|i| cx.elem(&format!("a_{i}"))).collect();
        self.b = (0..n_thr).map(|j| cx.elem(&format!("b_{j}"))).collect();
        if cx.precision().is_complex() {
            self.a_neg_im = (0..m_thr).map(|i| cx.b.reg(format!("a_{i}_nim"), cx.scalar)).collect();
            if self.conj_b {
                self.a_neg_re = (0..m_thr).map(|i| cx.b.reg(format!("a_{i}_nre"), cx.scalar)).collect();
            }
        }
        if cx.plan.spec().stages > 1 {
            self.a_cur = Some(cx.b.reg("a_sld_stage", Type::U32));
            self.b_cur = Some(cx.b.reg("b_sld_stage", Type::U32));
        }
        self.a_sptr = Some(a_sptr);
        self.b_sptr = Some(b_sptr);
    }

    fn zero(&mut self, cx: &mut Cx<'_>) {
        for &e in &self.acc {
            cx.zero(e);
        }
    }

    fn accumulate(&mut self, cx: &mut Cx<'_>, stage: Option<(Reg, Reg)>) {
        let layout = CLayout::new(cx.plan);
        let w = layout.width() as usize;
        let spec = *cx.plan.spec();
        let esz = cx.esz();
        let (mut a_sptr, mut b_sptr) = (self.a_sptr.expect("setup"), self.b_sptr.expect("setup"));
        if let Some((a_off, b_off)) = stage {
            let (a_cur, b_cur) = (self.a_cur.expect("a ring"), self.b_cur.expect("a ring"));
            cx.b.push(Instr::add(a_cur, a_sptr, a_off));
            cx.b.push(Instr::add(b_cur, b_sptr, b_off));
            (a_sptr, b_sptr) = (a_cur, b_cur);
        }
        let n_thr = cx.plan.n_thr() as usize;
        for k in 0..spec.k_blk {
            for (frag, sptr, stride, step) in [
                (&self.a, a_sptr, cx.plan.smem_a_stride(), layout.row_step()),
                (&self.b, b_sptr, cx.plan.smem_b_stride(), layout.col_step()),
            ] {
                for (g, run) in frag.chunks(w).enumerate() {
                    let regs: Vec<Reg> = run.iter().flat_map(Elem::regs).collect();
                    let offset = i64::from(k * stride + g as u32 * step) * esz;
                    cx.b.push(Instr::ld(Space::Shared, CacheQual::None, &regs, Address::reg(sptr, offset)));
                }
            }
            for (a, &nim) in self.a.iter().zip(&self.a_neg_im) {
                cx.b.push(Instr::neg(nim, a.im.expect("complex")));
            }
            for (a, &nre) in self.a.iter().zip(&self.a_neg_re) {
                cx.b.push(Instr::neg(nre, a.re));
            }
            for (i, a) in self.a.iter().enumerate() {
                for (j, b) in self.b.iter().enumerate() {
                    let c = self.acc[i * n_thr + j];
                    match (c.im, a.im, b.im) {
                        (None, None, None) => cx.b.push(Instr::fma(c.re, a.re, b.re, c.re)),
                        (Some(c_im), Some(a_im), Some(b_im)) => {
                            // re += a.re·b.re ∓ a.im·b.im; im += ±a.re·b.im ± a.im·b.re,
                            // the signs from which operands are conjugated.
                            let a_nim = self.a_neg_im[i];
                            let im_im = if self.conj_a != self.conj_b { a_im } else { a_nim };
                            let re_for_b_im = if self.conj_b { self.a_neg_re[i] } else { a.re };
                            let im_for_b_re = if self.conj_a { a_nim } else { a_im };
                            cx.b.push(Instr::fma(c.re, a.re, b.re, c.re));
                            cx.b.push(Instr::fma(c.re, im_im, b_im, c.re));
                            cx.b.push(Instr::fma(c_im, re_for_b_im, b_im, c_im));
                            cx.b.push(Instr::fma(c_im, im_for_b_re, b.re, c_im));
                        }
                        _ => unreachable!("mixed real and complex elements"),
                    }
                }
            }
        }
    }

    fn accumulators(&self) -> &[Elem] {
        &self.acc
    }
}
