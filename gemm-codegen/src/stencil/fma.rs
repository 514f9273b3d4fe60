//! The register-blocked inner product (Algorithm 1, lines 8–12): for each k
//! of the stripe, a column of `M_thr` elements of A and a row of `N_thr`
//! elements of B go from shared memory to registers, and every one of the
//! `M_thr × N_thr` accumulators takes one multiply-add.
//!
//! With `lds_width = w`, each shared load moves a run of `w` elements
//! (`ld.shared.v2`/`.v4`); the [`CLayout`] puts a thread's elements in such
//! runs. A complex multiply-add is four real FMAs, the imaginary part of A
//! negated once per element and k.
//!
//! Each k row of the stripe is one step of the walk (`walk.rs`), with one
//! or two sets of fragment registers.

use crate::constraints::Operand;
use crate::ptx::{Address, CacheQual, Instr, Operand as Op, Reg, Space, Type};

use super::walk::StepMath;
use super::{CLayout, Cx, Elem};

/// One set of fragment registers: a column of A and a row of B.
#[derive(Default)]
struct Fragments {
    a: Vec<Elem>,
    b: Vec<Elem>,
}

#[derive(Default)]
pub(crate) struct RegisterBlocked {
    /// Conjugate A's elements as they are multiplied.
    conj_a: bool,
    /// Conjugate B's elements as they are multiplied.
    conj_b: bool,
    acc: Vec<Elem>,
    /// One or two sets (`frag_sets`), alternating by step.
    frag: Vec<Fragments>,
    /// `-im` of each element of A, for the real part of complex products.
    a_neg_im: Vec<Reg>,
    /// `-re` of each element of A, when B is conjugated.
    a_neg_re: Vec<Reg>,
}

impl RegisterBlocked {
    /// The product, conjugating A's and B's elements as it multiplies them
    /// when asked (for stripes that reach shared memory unconjugated).
    pub fn new(conj_a: bool, conj_b: bool) -> RegisterBlocked {
        RegisterBlocked { conj_a, conj_b, ..RegisterBlocked::default() }
    }
}

impl StepMath for RegisterBlocked {
    fn setup(&mut self, cx: &mut Cx<'_>) -> (Reg, Reg) {
        let (m_thr, n_thr) = (cx.plan.m_thr(), cx.plan.n_thr());
        let spec = *cx.plan.spec();
        let w = spec.lds_width;
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
        if spec.frag_sets > 1 {
            cx.b.reg_group("inner product: a column of A and a row of B, two sets alternating by k step");
            self.frag = (0..2)
                .map(|set| Fragments {
                    a: (0..m_thr).map(|i| cx.elem(&format!("a{set}_{i}"))).collect(),
                    b: (0..n_thr).map(|j| cx.elem(&format!("b{set}_{j}"))).collect(),
                })
                .collect();
        } else {
            cx.b.reg_group("inner product: a column of A and a row of B");
            self.frag = vec![Fragments {
                a: (0..m_thr).map(|i| cx.elem(&format!("a_{i}"))).collect(),
                b: (0..n_thr).map(|j| cx.elem(&format!("b_{j}"))).collect(),
            }];
        }
        if cx.precision().is_complex() {
            self.a_neg_im = (0..m_thr).map(|i| cx.b.reg(format!("a_{i}_nim"), cx.scalar)).collect();
            if self.conj_b {
                self.a_neg_re = (0..m_thr).map(|i| cx.b.reg(format!("a_{i}_nre"), cx.scalar)).collect();
            }
        }
        (a_sptr, b_sptr)
    }

    /// Loads the fragments of step `row` (one k row) into set `set`.
    fn load(&self, cx: &mut Cx<'_>, set: usize, (a_ptr, b_ptr): (Reg, Reg), row: u32) {
        let layout = CLayout::new(cx.plan);
        let w = layout.row_width() as usize;
        let esz = cx.esz();
        let frag = &self.frag[set];
        for (regs, sptr, stride, step) in [
            (&frag.a, a_ptr, cx.plan.stride(Operand::A), layout.row_step()),
            (&frag.b, b_ptr, cx.plan.stride(Operand::B), layout.col_step()),
        ] {
            for (g, run) in regs.chunks(w).enumerate() {
                let regs: Vec<Reg> = run.iter().flat_map(Elem::regs).collect();
                let offset = i64::from(row * stride + g as u32 * step) * esz;
                cx.b.push(Instr::ld(Space::Shared, CacheQual::None, &regs, Address::reg(sptr, offset)));
            }
        }
    }

    /// `C_regs += a · b` for the fragments in set `set`.
    fn multiply(&self, cx: &mut Cx<'_>, set: usize) {
        let Fragments { a, b } = &self.frag[set];
        for (x, &nim) in a.iter().zip(&self.a_neg_im) {
            cx.b.push(Instr::neg(nim, x.im.expect("complex")));
        }
        for (x, &nre) in a.iter().zip(&self.a_neg_re) {
            cx.b.push(Instr::neg(nre, x.re));
        }
        let n_thr = b.len();
        for (i, a) in a.iter().enumerate() {
            for (j, b) in b.iter().enumerate() {
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

    fn accumulators(&self) -> &[Elem] {
        &self.acc
    }
}
