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
//! # The loop over the stripe and register double buffering
//!
//! The stripe is walked `unroll` steps per iteration of a loop (the whole
//! stripe by default, which is straight-line code). With `frag_sets = 1`
//! each step loads its fragments and multiplies them. With `frag_sets = 2`
//! the fragments come in two sets of registers: the loads of step k + 1 go
//! into one while the FMAs of step k read the other, so the shared-memory
//! latency hides behind a step's FMAs:
//!
//! ```text
//! frag[0] ⇐ step 0
//! repeat K_blk / unroll − 1 times:                 (no loop without `unroll`)
//!     for s in 0 .. unroll:  frag[(s+1) mod 2] ⇐ step s+1;  C_regs += frag[s mod 2]
//!     read pointers += unroll rows
//! for s in 0 .. unroll:  (frag ⇐ step s+1 unless s is the last);  C_regs += frag[s mod 2]
//! ```
//!
//! The last body is peeled so that no load reads past the stripe; in a
//! `cp.async` ring its last step instead loads the next stripe's first
//! fragments, after the ring's hand-off (see `ring.rs`). With an
//! odd `unroll`, the load that crosses into the next iteration fills set 0,
//! the set its own last step reads, so it is issued after that step's FMAs.
//! Whether the second set pays depends on the kernel: `ptxas` schedules
//! the loads itself, and the extra registers can cost it more than the
//! order gains (measured in `tuning/sm_90-pipeline/unroll/`).

use crate::ptx::{Address, CacheQual, Cmp, Instr, Operand as Op, Reg, Space, Type};

use super::{Beside, CLayout, Cx, Elem, InnerProduct, NextStripe, Step};

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
    /// The moving read pointers, when the stripe sits in a ring slot or is
    /// walked by a loop.
    a_cur: Option<Reg>,
    b_cur: Option<Reg>,
    a_sptr: Option<Reg>,
    b_sptr: Option<Reg>,
    /// Iterations left of the loop over the stripe, and its predicate.
    iters_left: Option<(Reg, Reg)>,
    /// Loops emitted so far, to name each one's label.
    loops: u32,
}

impl RegisterBlocked {
    /// The product, conjugating A's and B's elements as it multiplies them
    /// when asked (for stripes that reach shared memory unconjugated).
    pub fn new(conj_a: bool, conj_b: bool) -> RegisterBlocked {
        RegisterBlocked { conj_a, conj_b, ..RegisterBlocked::default() }
    }

    /// Loads the fragments of the step `row` rows past the read pointers
    /// into set `set`.
    fn load(&self, cx: &mut Cx<'_>, set: usize, (a_ptr, b_ptr): (Reg, Reg), row: u32) {
        let layout = CLayout::new(cx.plan);
        let w = layout.width() as usize;
        let esz = cx.esz();
        let frag = &self.frag[set];
        for (regs, sptr, stride, step) in [
            (&frag.a, a_ptr, cx.plan.smem_a_stride(), layout.row_step()),
            (&frag.b, b_ptr, cx.plan.smem_b_stride(), layout.col_step()),
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

    /// One body of `unroll` steps from the read pointers `ptrs`, calling
    /// `beside` with step `s` of `unroll` between each step's loads and its
    /// multiply-adds. With two sets, the first step's fragments are already
    /// in set 0; a body that loops ends having loaded the next body's (at
    /// `unroll` rows) into set 0, and the stripe's last body ends as `end`
    /// says.
    fn body(&self, cx: &mut Cx<'_>, ptrs: (Reg, Reg), unroll: u32, end: End<'_>, beside: Beside<'_>) {
        let mut step = |cx: &mut Cx<'_>, index: u32| beside(cx, Step { index, of: unroll });
        if self.frag.len() == 1 {
            for s in 0..unroll {
                self.load(cx, 0, ptrs, s);
                step(cx, s);
                self.multiply(cx, 0);
            }
            return;
        }
        let mut end = Some(end);
        for s in 0..unroll {
            let set = (s % 2) as usize;
            if s + 1 < unroll {
                self.load(cx, 1 - set, ptrs, s + 1);
                step(cx, s);
                self.multiply(cx, set);
                continue;
            }
            step(cx, s);
            match end.take().expect("one last step") {
                End::Loops if set == 0 => {
                    // Odd `unroll`: the next body starts in set 0, which this step reads.
                    self.multiply(cx, set);
                    self.load(cx, 0, ptrs, s + 1);
                }
                End::Loops => {
                    self.load(cx, 0, ptrs, s + 1);
                    self.multiply(cx, set);
                }
                End::Stripe => self.multiply(cx, set),
                End::HandOff(next) if set == 0 => {
                    self.multiply(cx, set);
                    self.hand_off(cx, ptrs, next);
                }
                End::HandOff(next) => {
                    self.hand_off(cx, ptrs, next);
                    self.multiply(cx, set);
                }
            }
        }
    }

    /// Lets the pipeline make the next stripe readable, moves the read
    /// pointers `ptrs` to it and loads its first fragments into set 0.
    fn hand_off(&self, cx: &mut Cx<'_>, ptrs: (Reg, Reg), next: &mut dyn FnMut(&mut Cx<'_>) -> NextStripe) {
        let NextStripe { stage } = next(cx);
        self.point(cx, ptrs, stage);
        self.load(cx, 0, ptrs, 0);
    }

    /// `ptrs = the thread's read pointers + stage` (a ring slot's offsets).
    fn point(&self, cx: &mut Cx<'_>, (a_cur, b_cur): (Reg, Reg), (a_off, b_off): (Reg, Reg)) {
        let (a_sptr, b_sptr) = (self.a_sptr.expect("setup"), self.b_sptr.expect("setup"));
        cx.b.push(Instr::add(a_cur, a_sptr, a_off));
        cx.b.push(Instr::add(b_cur, b_sptr, b_off));
    }

    /// The moving read pointers of a ring.
    fn cursors(&self) -> (Reg, Reg) {
        self.a_cur.zip(self.b_cur).expect("setup declares the ring's read pointers")
    }

    /// Walks the stripe from `ptrs`, whose first fragments are loaded when
    /// there are two sets: `iters − 1` looping bodies of `unroll` steps,
    /// then the last one, ending as `end` says. `beside` gets the stripe's
    /// steps when it is one body, or the whole stripe before the loop.
    fn walk(&mut self, cx: &mut Cx<'_>, ptrs: (Reg, Reg), end: End<'_>, beside: Beside<'_>) {
        let spec = *cx.plan.spec();
        let unroll = spec.unroll_steps();
        let iters = spec.k_blk / unroll;
        if iters > 1 {
            let (left, more) = self.iters_left.expect("setup declares the loop's counter");
            let label = cx.b.label(&format!("k_steps_{}", self.loops));
            self.loops += 1;
            beside(cx, Step { index: 0, of: 1 });
            cx.b.comment(format!("{} iterations of {unroll} k steps, then the last one", iters - 1));
            cx.b.push(Instr::mov(left, Op::imm(iters - 1)));
            cx.b.place(label);
            self.body(cx, ptrs, unroll, End::Loops, &mut |_, _| {});
            let esz = cx.esz();
            for (ptr, stride) in [(ptrs.0, cx.plan.smem_a_stride()), (ptrs.1, cx.plan.smem_b_stride())] {
                cx.b.push(Instr::add(ptr, ptr, Op::imm(i64::from(unroll * stride) * esz)));
            }
            cx.b.push(Instr::sub(left, left, Op::imm(1)));
            cx.b.push(Instr::setp(Cmp::Ne, Type::U32, more, left, Op::imm(0)));
            cx.b.push_if(more, Instr::bra_uni(label));
            self.body(cx, ptrs, unroll, end, &mut |_, _| {});
        } else {
            self.body(cx, ptrs, unroll, end, beside);
        }
    }
}

/// How a body's last step ends.
enum End<'h> {
    /// The body loops: it loads the next body's first fragments.
    Loops,
    /// The stripe ends here.
    Stripe,
    /// The stripe ends here, loading the next stripe's first fragments
    /// where the pipeline says it is.
    HandOff(&'h mut dyn FnMut(&mut Cx<'_>) -> NextStripe),
}

impl InnerProduct for RegisterBlocked {
    fn setup(&mut self, cx: &mut Cx<'_>) {
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
        let looped = spec.unroll_steps() < spec.k_blk;
        if spec.stages > 1 || looped {
            self.a_cur = Some(cx.b.reg("a_sld_cur", Type::U32));
            self.b_cur = Some(cx.b.reg("b_sld_cur", Type::U32));
        }
        if looped {
            let left = cx.b.reg("k_iters_left", Type::U32);
            let more = cx.b.reg("p_k_iters_left", Type::Pred);
            self.iters_left = Some((left, more));
        }
        self.a_sptr = Some(a_sptr);
        self.b_sptr = Some(b_sptr);
    }

    fn zero(&mut self, cx: &mut Cx<'_>) {
        for &e in &self.acc {
            cx.zero(e);
        }
    }

    fn accumulate(&mut self, cx: &mut Cx<'_>, stage: Option<(Reg, Reg)>, beside: Beside<'_>) {
        let spec = *cx.plan.spec();
        let (a_sptr, b_sptr) = (self.a_sptr.expect("setup"), self.b_sptr.expect("setup"));
        let iters = spec.k_blk / spec.unroll_steps();
        let ptrs = match (stage, self.a_cur.zip(self.b_cur)) {
            (Some(stage), Some(cur)) => {
                self.point(cx, cur, stage);
                cur
            }
            (None, Some((a_cur, b_cur))) if iters > 1 => {
                cx.b.push(Instr::mov(a_cur, a_sptr));
                cx.b.push(Instr::mov(b_cur, b_sptr));
                (a_cur, b_cur)
            }
            (None, _) => (a_sptr, b_sptr),
            (Some(_), None) => unreachable!("setup declares the ring's read pointers"),
        };
        if self.frag.len() > 1 {
            self.load(cx, 0, ptrs, 0);
        }
        self.walk(cx, ptrs, End::Stripe, beside);
    }

    fn crosses_stripes(&self) -> bool {
        self.frag.len() > 1
    }

    fn prime(&mut self, cx: &mut Cx<'_>, stage: (Reg, Reg)) {
        let ptrs = self.cursors();
        self.point(cx, ptrs, stage);
        self.load(cx, 0, ptrs, 0);
    }

    fn accumulate_handing_off(
        &mut self,
        cx: &mut Cx<'_>,
        next: &mut dyn FnMut(&mut Cx<'_>) -> NextStripe,
        beside: Beside<'_>,
    ) {
        let ptrs = self.cursors();
        self.walk(cx, ptrs, End::HandOff(next), beside);
    }

    fn accumulators(&self) -> &[Elem] {
        &self.acc
    }
}
