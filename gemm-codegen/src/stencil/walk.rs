//! Walking a stripe of the inner product: the steps of one stripe in
//! straight-line code or a loop of `unroll` rows per trip, one or two
//! fragment sets, and the hand-off to the next stripe of a ring. What a
//! step loads and multiplies is the [`StepMath`]'s: register-blocked FMAs
//! (`fma.rs`) or tensor-core fragments (`mma.rs`).
//!
//! # The loop over the stripe and register double buffering
//!
//! The stripe is walked `unroll` rows per iteration of a loop (the whole
//! stripe by default, which is straight-line code), in steps of one row
//! (`fma`) or of an `mma`'s depth. With `frag_sets = 1` each step loads its
//! fragments and multiplies them. With `frag_sets = 2` the fragments come in
//! two sets of registers: the loads of step s + 1 go into one while step s
//! multiplies the other, so the shared-memory latency hides behind a step's
//! arithmetic:
//!
//! ```text
//! frag[0] ⇐ step 0
//! repeat K_blk / unroll − 1 times:                 (no loop without `unroll`)
//!     for s in 0 .. steps:  frag[(s+1) mod 2] ⇐ step s+1;  C_regs += frag[s mod 2]
//!     read pointers += unroll rows
//! for s in 0 .. steps:  (frag ⇐ step s+1 unless s is the last);  C_regs += frag[s mod 2]
//! ```
//!
//! The last body is peeled so that no load reads past the stripe; in a
//! `cp.async` ring its last step instead loads the next stripe's first
//! fragments, after the ring's hand-off (see `ring.rs`). With an odd number
//! of steps per body, the load that crosses into the next iteration fills
//! set 0, the set its own last step reads, so it is issued after that
//! step's arithmetic. Whether the second set pays depends on the kernel:
//! `ptxas` schedules the loads itself, and the extra registers can cost it
//! more than the order gains (measured in `tuning/sm_90-pipeline/unroll/`).

use crate::constraints::Operand;
use crate::ptx::{Cmp, Instr, Operand as Op, Reg, Type};

use super::{Beside, Cx, Elem, InnerProduct, NextStripe, Step};

/// What one step of a stripe's product loads and multiplies.
pub(crate) trait StepMath {
    /// Declares the accumulators and fragment registers and returns the
    /// thread's shared-memory read pointers into the first stripe (A's,
    /// B's), each step's fragments sitting at fixed offsets from them.
    fn setup(&mut self, cx: &mut Cx<'_>) -> (Reg, Reg);
    /// Loads the fragments of step `step` of a body read from `ptrs` into
    /// set `set`.
    fn load(&self, cx: &mut Cx<'_>, set: usize, ptrs: (Reg, Reg), step: u32);
    /// `C_regs += ` the product of the fragments in set `set`.
    fn multiply(&self, cx: &mut Cx<'_>, set: usize);
    /// The accumulators, `[i * n_thr + j]` in the plan's [`super::CLayout`].
    fn accumulators(&self) -> &[Elem];
}

/// The inner product of a [`StepMath`], walking each stripe as the module
/// docs say.
pub(crate) struct Walker<S> {
    math: S,
    /// K rows per step.
    rows_per_step: u32,
    /// Fragment sets (`frag_sets`), alternating by step.
    sets: usize,
    /// The thread's read pointers into the first stripe.
    a_sptr: Option<Reg>,
    b_sptr: Option<Reg>,
    /// The moving read pointers, when the stripe sits in a ring slot or is
    /// walked by a loop.
    a_cur: Option<Reg>,
    b_cur: Option<Reg>,
    /// Iterations left of the loop over the stripe, and its predicate.
    iters_left: Option<(Reg, Reg)>,
    /// Loops emitted so far, to name each one's label.
    loops: u32,
}

impl<S: StepMath> Walker<S> {
    pub fn new(math: S) -> Walker<S> {
        Walker {
            math,
            rows_per_step: 1,
            sets: 1,
            a_sptr: None,
            b_sptr: None,
            a_cur: None,
            b_cur: None,
            iters_left: None,
            loops: 0,
        }
    }

    /// One body of `steps` steps from the read pointers `ptrs`, calling
    /// `beside` with step `s` of `steps` between each step's loads and its
    /// arithmetic. With two sets, the first step's fragments are already
    /// in set 0; a body that loops ends having loaded the next body's into
    /// set 0, and the stripe's last body ends as `end` says.
    fn body(&self, cx: &mut Cx<'_>, ptrs: (Reg, Reg), steps: u32, end: End<'_>, beside: Beside<'_>) {
        let math = &self.math;
        let mut step = |cx: &mut Cx<'_>, index: u32| beside(cx, Step { index, of: steps });
        if self.sets == 1 {
            for s in 0..steps {
                math.load(cx, 0, ptrs, s);
                step(cx, s);
                math.multiply(cx, 0);
            }
            return;
        }
        let mut end = Some(end);
        for s in 0..steps {
            let set = (s % 2) as usize;
            if s + 1 < steps {
                math.load(cx, 1 - set, ptrs, s + 1);
                step(cx, s);
                math.multiply(cx, set);
                continue;
            }
            step(cx, s);
            match end.take().expect("one last step") {
                End::Loops if set == 0 => {
                    // An odd body: the next one starts in set 0, which this step reads.
                    math.multiply(cx, set);
                    math.load(cx, 0, ptrs, s + 1);
                }
                End::Loops => {
                    math.load(cx, 0, ptrs, s + 1);
                    math.multiply(cx, set);
                }
                End::Stripe => math.multiply(cx, set),
                End::HandOff(next) if set == 0 => {
                    math.multiply(cx, set);
                    self.hand_off(cx, ptrs, next);
                }
                End::HandOff(next) => {
                    self.hand_off(cx, ptrs, next);
                    math.multiply(cx, set);
                }
            }
        }
    }

    /// Lets the pipeline make the next stripe readable, moves the read
    /// pointers `ptrs` to it and loads its first fragments into set 0.
    fn hand_off(&self, cx: &mut Cx<'_>, ptrs: (Reg, Reg), next: &mut dyn FnMut(&mut Cx<'_>) -> NextStripe) {
        let NextStripe { stage } = next(cx);
        self.point(cx, ptrs, stage);
        self.math.load(cx, 0, ptrs, 0);
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
    /// there are two sets: `iters − 1` looping bodies of `unroll` rows, then
    /// the last one, ending as `end` says. `beside` gets the stripe's steps
    /// when it is one body, or the whole stripe before the loop.
    fn walk(&mut self, cx: &mut Cx<'_>, ptrs: (Reg, Reg), end: End<'_>, beside: Beside<'_>) {
        let spec = *cx.plan.spec();
        let unroll = spec.unroll_steps();
        let steps = unroll / self.rows_per_step;
        let iters = spec.k_blk / unroll;
        if iters > 1 {
            let (left, more) = self.iters_left.expect("setup declares the loop's counter");
            let label = cx.b.label(&format!("k_steps_{}", self.loops));
            self.loops += 1;
            beside(cx, Step { index: 0, of: 1 });
            cx.b.comment(format!("{} iterations of {unroll} k steps, then the last one", iters - 1));
            cx.b.push(Instr::mov(left, Op::imm(iters - 1)));
            cx.b.place(label);
            self.body(cx, ptrs, steps, End::Loops, &mut |_, _| {});
            let esz = cx.esz();
            for (ptr, operand) in [(ptrs.0, Operand::A), (ptrs.1, Operand::B)] {
                // `unroll` k rows, or elements of a K-contiguous row.
                let stride = if cx.plan.layout(operand).k_contiguous() { 1 } else { cx.plan.stride(operand) };
                cx.b.push(Instr::add(ptr, ptr, Op::imm(i64::from(unroll * stride) * esz)));
            }
            cx.b.push(Instr::sub(left, left, Op::imm(1)));
            cx.b.push(Instr::setp(Cmp::Ne, Type::U32, more, left, Op::imm(0)));
            cx.b.push_if(more, Instr::bra_uni(label));
            self.body(cx, ptrs, steps, end, &mut |_, _| {});
        } else {
            self.body(cx, ptrs, steps, end, beside);
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

impl<S: StepMath> InnerProduct for Walker<S> {
    fn setup(&mut self, cx: &mut Cx<'_>) {
        let spec = *cx.plan.spec();
        self.rows_per_step = spec.k_per_step();
        self.sets = if spec.frag_sets > 1 { 2 } else { 1 };
        let (a_sptr, b_sptr) = self.math.setup(cx);
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
        for &e in self.math.accumulators() {
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
        if self.sets > 1 {
            self.math.load(cx, 0, ptrs, 0);
        }
        self.walk(cx, ptrs, End::Stripe, beside);
    }

    fn crosses_stripes(&self) -> bool {
        self.sets > 1
    }

    fn prime(&mut self, cx: &mut Cx<'_>, stage: (Reg, Reg)) {
        let ptrs = self.cursors();
        self.point(cx, ptrs, stage);
        self.math.load(cx, 0, ptrs, 0);
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
        self.math.accumulators()
    }
}
