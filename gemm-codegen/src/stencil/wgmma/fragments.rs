//! A's fragments loaded by the consumers from the ring into registers,
//! for `wgmma`'s A-from-registers form.
//!
//! `wgmma` has no MN-major TF32 operand in shared memory, so a 1xTF32 A
//! whose M leads in global memory (op N) would have to be converted into
//! K-major parts. In a warp-specialized kernel with a ring of 3 stages or
//! more the consumers instead load A's fragments from the ring themselves
//! ([`crate::constraints::wgmma_a_regs`]): the stripe is K-major,
//! `[k][m_blk + 8]` (the rows' skew puts the four k of a fragment load 8
//! banks apart beside its 8 rows: no bank conflict), and lane `(g, t)` of
//! warp `q` of the warpgroup loads rows `16q + g`, `16q + g + 8` at k `t`,
//! `t + 4` of each 8-deep step ([`WgmmaShape::a_at`]), rounds them to
//! TF32 (as the conversion does) and fences them for the `wgmma`s. Where a
//! consumer thread holds the registers for two stripes' fragments beside
//! its accumulators (what the producer hands over by `setmaxnreg`,
//! [`crate::constraints::register_limits`], or the block's share), a
//! stripe is one group, as where both operands are read in place
//! ([`crate::constraints::FragmentPipeline::Stripes`]):
//!
//! ```text
//! stripe t (landed in its slot):  load every step's fragment into the sets of stripe t mod 2
//!   wgmma.fence;  for each step s: wgmma (A = its set, B's descriptor);  commit
//!   wgmma.wait_group 1          (stripe t − 1 retired: its sets and slot free)
//! ```
//!
//! Run 49 measured it 3–5% faster than four sets of steps with two steps in
//! flight (`tuning/sm_90-wgmma`), where ptxas serializes the `wgmma`s with
//! three or more groups in flight (C7513). Otherwise each step is a group
//! of its own over two sets
//! ([`crate::constraints::FragmentPipeline::Steps`]):
//!
//! ```text
//! stripe (landed in its slot):  load step 0's fragment into set 0
//!   for each step s:  wgmma.fence;  wgmma (A = set s mod 2, B's descriptor);  commit
//!                     wgmma.wait_group 1          (step s − 1 retired: its set free)
//!                     load step s + 1's fragment into set (s + 1) mod 2
//! ```
//!
//! Either way the stripe before has retired by the end of a stripe (the
//! consumers' `EMPTY` needs no wait of its own).

use crate::constraints::{FragmentPipeline, Operand};
use crate::ptx::{Address, CacheQual, Instr, Operand as Op, Reg, Space, Type, WgmmaShape};

use super::super::Cx;

/// The registers of A's fragments where the consumers load them from the
/// ring ([`crate::constraints::wgmma_a_regs`]).
pub(super) struct Fragments {
    /// This thread's first element in the ring's first slot (`.u32`
    /// shared address), and the current slot's byte offset.
    pub(super) at: Reg,
    pub(super) slot: Reg,
    /// `at + slot`, the current stripe's.
    pub(super) stripe: Reg,
    /// Elements between the stripe's k rows (`m_blk` and the skew).
    pub(super) pitch: u32,
    /// The rounding's scratch.
    pub(super) half: Reg,
    /// Sets of a step's four values, loaded and rounded to TF32 in place,
    /// in turn by step: a set is loaded again once the group of the step
    /// that read it has retired.
    pub(super) sets: Vec<[Reg; 4]>,
    /// How the steps' groups go ([`crate::constraints::wgmma_a_fragments`]).
    pub(super) pipeline: FragmentPipeline,
    /// Fragments loaded so far in the code, for the set of the next.
    pub(super) loaded: u32,
    /// The sets loaded for the stripe's steps still to be issued, in step
    /// order.
    pending: Vec<[Reg; 4]>,
}

impl Fragments {
    /// Declares the registers of A's fragments and this thread's first
    /// element in the ring's first slot: lane `(g, t)` of warp `warp_m`
    /// (its rows `16 warp_m …`) loads rows `16 warp_m + g (+ 8)` at k `t (+
    /// 4)` of each step ([`WgmmaShape::a_at`]).
    pub(super) fn setup(cx: &mut Cx<'_>, warp_m: Reg, lane: Reg) -> Fragments {
        let pitch = cx.plan.stride(Operand::A);
        cx.b.comment(format!(
            "A: its fragments loaded from the ring's slot into registers (k rows of {pitch} elements: the \
             four k of a load 8 banks apart, beside its 8 rows, no bank conflict), rounded to TF32"
        ));
        let (g, t) = cx.divmod(lane, 4, "frag_g", "frag_t");
        let at = cx.b.reg("a_frag_at", Type::U32);
        let row = cx.b.reg("a_frag_row", Type::U32);
        cx.b.push(Instr::mad(row, warp_m, Op::imm(16), g));
        cx.b.push(Instr::mad(row, t, Op::imm(pitch), row));
        cx.shared_address(at, cx.smem_a);
        cx.b.push(Instr::mad(at, row, Op::imm(4), at));
        let slot = cx.b.reg("a_frag_slot", Type::U32);
        let stripe = cx.b.reg("a_frag_stripe", Type::U32);
        let half = cx.b.reg("a_frag_half", Type::B32);
        let spec = cx.plan.spec();
        let pipeline = crate::constraints::wgmma_a_fragments(spec).expect("A loaded into registers");
        let sets = (0..pipeline.sets(spec.stripe_steps()))
            .map(|j| [0, 1, 2, 3].map(|i| cx.b.reg(format!("a_frag_{j}_{i}"), Type::B32)))
            .collect();
        Fragments { at, slot, stripe, pitch, half, sets, pipeline, loaded: 0, pending: Vec::new() }
    }

    /// Before a stripe's steps: a stripe a group loads every step's
    /// fragment and fences them once; a step a group loads the first.
    pub(super) fn begin_stripe(&mut self, cx: &mut Cx<'_>, shape: WgmmaShape, steps: u32) {
        let sets = 2 * steps as usize;
        assert!(sets.is_multiple_of(self.sets.len()), "a loop of two stripes goes round the sets");
        self.pending = match self.pipeline {
            FragmentPipeline::Stripes => {
                let loaded = (0..steps).map(|s| self.load(cx, shape, s)).collect();
                cx.b.comment("the stripe's fragments loaded fenced for its wgmmas");
                cx.b.push(Instr::wgmma_fence());
                loaded
            }
            FragmentPipeline::Steps => vec![self.load(cx, shape, 0)],
        };
    }

    /// Step `s` of `steps`: its `wgmma` on its fragment (`wgmma` of the
    /// set), as part of the stripe's group; or fenced, as a group of its own
    /// (the step before retired, its set free), then the next step's
    /// fragment loaded.
    pub(super) fn issue(
        &mut self,
        cx: &mut Cx<'_>,
        shape: WgmmaShape,
        (s, steps): (u32, u32),
        wgmma: impl Fn([Reg; 4]) -> Instr,
    ) {
        let a = self.pending.remove(0);
        if self.pipeline == FragmentPipeline::Stripes {
            return cx.b.push(wgmma(a));
        }
        cx.b.comment(format!("step {s}: the fragment loaded fenced for wgmma"));
        cx.b.push(Instr::wgmma_fence());
        cx.b.push(wgmma(a));
        cx.b.comment("the step's own group; the step before retired: its set is free");
        cx.b.push(Instr::wgmma_commit());
        cx.b.push(Instr::wgmma_wait(1));
        if s + 1 < steps {
            let next = self.load(cx, shape, s + 1);
            self.pending.push(next);
        }
    }

    /// After a stripe's steps: a stripe a group commits it and retires the
    /// stripe before (its sets free).
    pub(super) fn end_stripe(&self, cx: &mut Cx<'_>) {
        if self.pipeline == FragmentPipeline::Stripes {
            cx.b.comment("the stripe's own group; the stripe before retired: its sets are free");
            cx.b.push(Instr::wgmma_commit());
            cx.b.push(Instr::wgmma_wait(1));
        }
    }

    /// Loads step `s`'s A fragment of the current stripe into the next set
    /// of registers, rounded to TF32 in place: element `i` at row `16 warp
    /// + g + 8 (i mod 2)`, k `8 s + t + 4 (i div 2)` ([`WgmmaShape::a_at`]),
    /// from the thread's first element `(g, t)`.
    fn load(&mut self, cx: &mut Cx<'_>, shape: WgmmaShape, s: u32) -> [Reg; 4] {
        let set = self.sets[self.loaded as usize % self.sets.len()];
        self.loaded += 1;
        let k = shape.k();
        cx.b.comment(format!("A's fragment of step {s} (rows g, g + 8 at k t, t + 4), rounded to TF32"));
        for (i, &x) in (0..4).zip(&set) {
            let elements = (k * s + k / 2 * (i / 2)) * self.pitch + 8 * (i % 2);
            let at = Address::reg(self.stripe, i64::from(4 * elements));
            cx.b.push(Instr::ld(Space::Shared, CacheQual::None, &[x], at));
        }
        for &x in &set {
            super::super::mma::split_tf32(cx, x, self.half, x, None);
        }
        set
    }
}
