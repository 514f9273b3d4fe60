//! The multi-stage pipeline (`stages = s ≥ 2`, sm_80 and newer): a ring of
//! `s` stripes in shared memory, filled by `cp.async` straight from global
//! memory, so the product of stripe `t` overlaps the copies of stripes
//! `t + 1 … t + s − 1`.
//!
//! ```text
//! C_regs ⇐ 0
//! for t in 0 .. s−1:  copy stripe t → slot t if it exists;  commit   (prologue)
//! for t in 0 .. ktiles:
//!     wait until stripe t has landed (wait_group s−2);  bar.sync
//!     copy stripe t+s−1 → slot (t−1) mod s, if it exists;  commit
//!     C_regs += As · Bs  from slot t mod s
//! C = alpha · C_regs + beta · C
//! ```
//!
//! One barrier per stripe: it makes every thread's landed copies of stripe
//! `t` visible, and it is also the point after which no thread still reads
//! slot `(t − 1) mod s`, the one the copies issued next overwrite. Each
//! iteration commits exactly one group (empty past the last stripe), so the
//! `wait_group s − 2` at stripe `t` always leaves stripe `t` landed.
//!
//! With two sets of fragment registers (`frag_sets = 2`) the barrier moves
//! into the stripe's last step, so that the next stripe's first fragments
//! load while that step multiplies (CUTLASS's multistage main loop):
//!
//! ```text
//! prologue as above;  wait_group s−2;  bar.sync;  frag ⇐ stripe 0, step 0
//! for t in 0 .. ktiles:
//!     copy stripe t+s−1 → slot (t−1) mod s, if it exists;  commit
//!     steps 0 .. K_blk−2 of stripe t  (each loading the next step's fragments)
//!     wait_group s−2;  bar.sync                     (stripe t+1 has landed)
//!     frag ⇐ stripe t+1, step 0   (past the last stripe: stripe t's, unused)
//!     last step of stripe t
//! ```
//!
//! A product that meets the whole block at a barrier of its own in every
//! stripe, after its last read of the slot (the `wgmma` product's, once its
//! TF32 parts are written), takes the ring's barrier over: it waits for
//! stripe `t + 1` just before that barrier, so one barrier a stripe both
//! publishes its parts and lands the next stripe (`lands_next_stripe`):
//!
//! ```text
//! prologue as above;  wait_group s−2;  bar.sync
//! for t in 0 .. ktiles:
//!     copy stripe t+s−1 → slot (t−1) mod s, if it exists;  commit
//!     product of stripe t, whose barrier follows wait_group s−2
//! ```
//!
//! With interleaved copies (below) stripe `t + s − 1`'s group is committed
//! after the product, so the wait there is `wait_group s−3`, and a ring of
//! two stripes keeps its own barrier.
//!
//! The hand-off has no branch: after the last stripe it reloads that
//! stripe's own slot, which has landed, so `ptxas` schedules the loop as one
//! block (a guarded hand-off measured 2–12% slower on six SGEMM kernels,
//! H100; `tuning/sm_90-stalls/`).
//!
//! With `interleave = g ≥ 1` the copies of stripe `t + s − 1` leave the
//! top of the loop: they are guarded by a predicate ("the stripe exists")
//! instead of a branch, and issued in `g` groups, group `j` beside step
//! `⌊j · K_blk / g⌋` of the product (after that step's fragment loads,
//! before its FMAs); the commit follows the last group, before the next
//! wait. The loop body is then one basic block, and fewer copies queue in
//! the memory pipe at once, but the copies' registers live longer: which
//! `g` wins is the kernel's (`tuning/sm_90-copies`).
//!
//! Copies move runs of `ldg_width` elements. A run along the free dimension
//! is one copy into a row of the K-major stripe; a run along K spans
//! `ldg_width` rows of a K-major stripe, so it is one copy per element, and
//! one copy into a row of a K-contiguous stripe (tensor-core maths). Elements outside the
//! matrix are read as zeros through the copy's source size (`src-size`
//! below `cp-size` zero-fills the rest): nothing outside it is read.
//! Conjugation cannot happen in a copy; the inner product does it.

use crate::constraints::Operand;
use crate::ptx::{self, Address, Cmp, CpAsyncCache, Instr, Operand as Op, Reg, Type};
use crate::spec::GlobalLoad;

use super::mover::Footprint;
use super::{Cx, InnerProduct, NextStripe, Step};

/// Copies one operand's stripes into the ring with `cp.async`.
pub(crate) struct AsyncCopy {
    operand: Operand,
    at: Option<Footprint>,
    /// For a free leading dimension: bytes of each run inside the matrix
    /// along it (0 to `width · esz`), set once.
    run_bytes: Vec<Reg>,
    /// The source size of the copy being issued.
    src_bytes: Option<Reg>,
    /// The shared address of the slot being filled.
    dst: Option<Reg>,
}

impl AsyncCopy {
    pub fn new(operand: Operand) -> AsyncCopy {
        AsyncCopy { operand, at: None, run_bytes: Vec::new(), src_bytes: None, dst: None }
    }

    fn at(&self) -> &Footprint {
        self.at.as_ref().expect("setup runs first")
    }

    /// Bytes of one stripe of this operand in the ring.
    pub fn slot_bytes(&self, cx: &Cx<'_>) -> u32 {
        crate::constraints::proven_u32(crate::constraints::smem_stage_bytes(cx.plan.spec(), self.operand))
    }

    pub fn setup(&mut self, cx: &mut Cx<'_>) {
        let x = self.operand.lower();
        let at = Footprint::setup(cx, self.operand);
        let esz = cx.precision().element_bytes();
        if at.run_is_contiguous() {
            // Bytes of run r inside the matrix along the leading dimension:
            // set here once for a free dimension, per stripe for K (`begin`).
            self.run_bytes =
                (0..at.runs).map(|r| cx.b.reg(format!("{x}_run_bytes_{r}"), Type::U32)).collect();
            if !at.stripe.lead_is_k {
                run_bytes(cx, &at, &self.run_bytes, esz);
            }
        }
        self.src_bytes = Some(cx.b.reg(format!("{x}_src_bytes"), Type::U32));
        self.dst = Some(cx.b.reg(format!("{x}_slot"), Type::U32));
        self.at = Some(at);
    }

    /// Issues every copy of the stripe with `k_rem` elements of K left into
    /// the slot at byte offset `slot` (a register, or an immediate) of the
    /// ring.
    pub fn issue(&self, cx: &mut Cx<'_>, k_rem: Reg, slot: Op) {
        self.begin(cx, k_rem, slot);
        for unit in 0..self.units() {
            self.copy(cx, unit, None);
        }
    }

    /// Readies the copies of the stripe with `k_rem` elements of K left
    /// into the slot at byte offset `slot`: its bounds along K and where the
    /// slot is. The copies themselves are [`AsyncCopy::copy`]'s.
    pub fn begin(&self, cx: &mut Cx<'_>, k_rem: Reg, slot: Op) {
        let at = self.at();
        at.bound_k(cx, k_rem);
        if at.stripe.lead_is_k && at.run_is_contiguous() {
            run_bytes(cx, at, &self.run_bytes, cx.precision().element_bytes());
        }
        cx.b.push(Instr::add(self.dst.expect("setup"), at.sptr, slot));
    }

    /// How many copies (units) each thread issues per stripe.
    pub fn units(&self) -> u32 {
        let at = self.at();
        let per_run = if at.run_is_contiguous() { 1 } else { at.width };
        at.stripe.per_thread_cross * at.runs * per_run
    }

    /// Issues copy `unit` of the stripe [`AsyncCopy::begin`] readied, under
    /// `guard` if given. Units go cross row by cross row, run by run (and
    /// element by element for a run along K), and must be issued in that
    /// order: the first of each cross row steps the row pointer to it.
    pub fn copy(&self, cx: &mut Cx<'_>, unit: u32, guard: Option<Reg>) {
        let at = self.at();
        let esz = cx.esz();
        let (src_bytes, dst) = (self.src_bytes.expect("setup"), self.dst.expect("setup"));
        let stride = cx.plan.stride(self.operand);
        let w = at.width;
        let per_run = if at.run_is_contiguous() { 1 } else { w };
        let (j, in_row) = (unit / (at.runs * per_run), unit % (at.runs * per_run));
        let (r, e) = (in_row / per_run, in_row % per_run);
        let row = if in_row == 0 { at.cross_row(cx, j) } else { at.row_pointer(j) };
        let cross_ok = at.cross_ok[j as usize];
        let guard = guard.map(|pred| ptx::Guard { pred, negated: false });
        let copy = if !at.run_is_contiguous() {
            let inside = at.lead_ok[(r * w + e) as usize];
            cx.b.push(Instr::and_pred(at.ok, cross_ok, inside));
            cx.b.push(Instr::selp(src_bytes, Op::imm(esz), Op::imm(0), at.ok));
            let bytes = cx.precision().element_bytes();
            let to = Address::reg(dst, at.shared_offset(esz, stride, r, e, j));
            let from = Address::reg(row, at.global_offset(esz, r, e));
            Instr::cp_async_zfill(cache(cx, bytes), to, from, bytes, src_bytes)
        } else {
            cx.b.push(Instr::selp(src_bytes, self.run_bytes[r as usize], Op::imm(0), cross_ok));
            let bytes = w * cx.precision().element_bytes();
            let to = Address::reg(dst, at.shared_offset(esz, stride, r, 0, j));
            let from = Address::reg(row, at.global_offset(esz, r, 0));
            Instr::cp_async_zfill(cache(cx, bytes), to, from, bytes, src_bytes)
        };
        cx.b.push_guarded(guard, copy);
    }

    pub fn advance(&self, cx: &mut Cx<'_>) {
        self.at().advance(cx);
    }
}

/// `bytes[r] = ` the bytes of run `r` inside the matrix along the leading
/// dimension: `clamp(lim − r · load.0 · w, 0, w) · esz`, recovered from the
/// predicates as the count of true ones (they are a prefix of the run).
fn run_bytes(cx: &mut Cx<'_>, at: &Footprint, bytes: &[Reg], esz: u32) {
    for (r, &b) in bytes.iter().enumerate() {
        cx.b.push(Instr::mov(b, Op::imm(0)));
        for e in 0..at.width {
            let inside = at.lead_ok[(r as u32 * at.width + e) as usize];
            cx.b.push_if(inside, Instr::mov(b, Op::imm((e + 1) * esz)));
        }
    }
}

/// `.cg` (L2 only) for 16-byte copies unless the spec asks for `ldg = ca`;
/// `.ca` for smaller ones, the only form they have.
fn cache(cx: &Cx<'_>, bytes: u32) -> CpAsyncCache {
    if bytes == 16 && cx.plan.spec().ldg != GlobalLoad::Ca { CpAsyncCache::Cg } else { CpAsyncCache::Ca }
}

/// Emits the ring's prologue and main loop. Returns the label of the
/// epilogue (declared after the loop's own), reached with every stripe
/// accumulated.
pub(crate) fn main_loop(cx: &mut Cx<'_>, inner: &mut dyn InnerProduct) -> ptx::Label {
    let spec = *cx.plan.spec();
    let s = spec.stages;
    let mut a = AsyncCopy::new(Operand::A);
    let mut b = AsyncCopy::new(Operand::B);
    cx.b.section("global -> shared: per-thread pointers and bounds for A and B");
    a.setup(cx);
    b.setup(cx);
    cx.b.section("inner product: shared-memory read pointers");
    inner.setup(cx);
    cx.b.section("C_regs = 0");
    inner.zero(cx);
    let (a_slot, b_slot) = (a.slot_bytes(cx), b.slot_bytes(cx));

    cx.b.reg_group(format!("ring of {s} stripes: loop control and slots"));
    let ktiles = cx.b.reg("ktiles", Type::U32);
    let kt = cx.b.reg("kt", Type::U32);
    let k_rem = cx.b.reg("k_rem", Type::U32);
    let wr = cx.b.reg("slot_wr", Type::U32);
    let rd = cx.b.reg("slot_rd", Type::U32);
    let a_wr = cx.b.reg("a_slot_wr", Type::U32);
    let b_wr = cx.b.reg("b_slot_wr", Type::U32);
    let a_rd = cx.b.reg("a_slot_rd", Type::U32);
    let b_rd = cx.b.reg("b_slot_rd", Type::U32);
    let ahead = cx.b.reg("kt_ahead", Type::U32);
    let p = cx.b.reg("p_ring", Type::Pred);
    let rd_next = cx.b.reg("slot_rd_next", Type::U32);
    let p_next = cx.b.reg("p_next_stripe", Type::Pred);
    let loop_label = cx.b.label("main_loop");
    let epilogue = cx.b.label("epilogue");

    cx.b.section(format!("stripes along K: ktiles = ceil(k / {})", spec.k_blk));
    cx.b.push(Instr::add(ktiles, cx.params.k, Op::imm(spec.k_blk - 1)));
    cx.b.push(Instr::binary(ptx::BinOp::Div, ktiles, ktiles, Op::imm(spec.k_blk)));
    cx.b.push(Instr::setp(Cmp::Eq, Type::U32, p, ktiles, Op::imm(0)));
    cx.b.push_if(p, Instr::bra_uni(epilogue));

    cx.b.section(format!(
        "prologue: stripes 0 .. {} into slots 0 .. {0}, one commit group each (empty past the last stripe)",
        s - 2
    ));
    fill(cx, (&a, &b), (ktiles, k_rem), p, s - 1);
    cx.b.push(Instr::mov(wr, Op::imm(s - 1)));
    cx.b.push(Instr::mov(rd, Op::imm(0)));
    cx.b.push(Instr::mov(kt, Op::imm(0)));
    let crossing = inner.crosses_stripes();
    // Commit groups still allowed to be in flight once stripe kt + 1 has
    // landed, counted at the product of stripe kt: the copies of stripe kt +
    // s − 1 are committed before it without interleaving, after it with.
    let pending = if spec.interleave == 0 { Some(s - 2) } else { s.checked_sub(3) };
    let handed = !crossing && pending.is_some_and(|pending| inner.lands_next_stripe(pending));
    if crossing {
        cx.b.comment("stripe 0 has landed everywhere; its first fragments go to registers");
        land(cx, s);
        let stage = slot_offsets(cx, rd, (a_rd, b_rd), (a_slot, b_slot));
        inner.prime(cx, stage);
    } else if handed {
        cx.b.comment("stripe 0 lands everywhere; each stripe's product lands the next at its own barrier");
        land(cx, s);
    }

    cx.b.section(format!(
        "main loop: consume stripe kt from slot kt mod {s} while stripes up to kt + {} fly",
        s - 1
    ));
    cx.b.place(loop_label);
    if !crossing && !handed {
        land(cx, s);
    }
    // The copies of stripe kt + s − 1, and closing their group once all
    // are issued: commit, step along K, move the write slot on.
    let groups = spec.interleave;
    let close = |cx: &mut Cx<'_>| {
        cx.b.push(Instr::cp_async_commit());
        a.advance(cx);
        b.advance(cx);
        cx.b.push(Instr::sub(k_rem, k_rem, Op::imm(spec.k_blk)));
        next_slot(cx, wr, s, p);
    };
    cx.b.comment(if groups == 0 {
        format!("copy stripe kt + {} into the slot everyone finished reading", s - 1)
    } else {
        format!(
            "copies of stripe kt + {} (where it exists) into the slot everyone finished reading, \
             in {groups} groups beside the k steps of the product",
            s - 1
        )
    });
    cx.b.push(Instr::add(ahead, kt, Op::imm(s - 1)));
    let p_copy = if groups == 0 {
        let skip = cx.b.label("no_stripe_to_copy");
        cx.b.push(Instr::setp(Cmp::Ge, Type::U32, p, ahead, ktiles));
        cx.b.push_if(p, Instr::bra_uni(skip));
        let (a_wr, b_wr) = slot_offsets(cx, wr, (a_wr, b_wr), (a_slot, b_slot));
        a.issue(cx, k_rem, Op::Reg(a_wr));
        b.issue(cx, k_rem, Op::Reg(b_wr));
        cx.b.place(skip);
        close(cx);
        None
    } else {
        let p_copy = cx.b.reg("p_copy_stripe", Type::Pred);
        cx.b.push(Instr::setp(Cmp::Lt, Type::U32, p_copy, ahead, ktiles));
        let (a_wr, b_wr) = slot_offsets(cx, wr, (a_wr, b_wr), (a_slot, b_slot));
        a.begin(cx, k_rem, Op::Reg(a_wr));
        b.begin(cx, k_rem, Op::Reg(b_wr));
        Some(p_copy)
    };
    // Group `j` of the copies goes beside step ⌊j · steps / groups⌋.
    let (a_units, units) = (a.units(), a.units() + b.units());
    let mut copies = |cx: &mut Cx<'_>, step: Step| {
        let Some(p_copy) = p_copy else { return };
        let first_step = |j: u32| (u64::from(j) * u64::from(step.of) / u64::from(groups)) as u32;
        for j in (0..groups).filter(|&j| first_step(j) == step.index) {
            for unit in (Step { index: j, of: groups }).share(units) {
                match unit.checked_sub(a_units) {
                    None => a.copy(cx, unit, Some(p_copy)),
                    Some(unit) => b.copy(cx, unit, Some(p_copy)),
                }
            }
        }
    };
    cx.b.comment(format!("inner product: stripe kt from shared memory, {} deep", spec.k_blk));
    if crossing {
        inner.accumulate_handing_off(
            cx,
            &mut |cx| {
                if p_copy.is_some() {
                    close(cx);
                }
                cx.b.comment(
                    "hand-off: stripe kt + 1 lands everywhere and its first fragments load \
                     (after the last stripe, the last one's again: nothing uses them)",
                );
                land(cx, s);
                cx.b.push(Instr::add(ahead, kt, Op::imm(1)));
                cx.b.push(Instr::setp(Cmp::Lt, Type::U32, p_next, ahead, ktiles));
                cx.b.push(Instr::mov(rd_next, rd));
                next_slot(cx, rd_next, s, p);
                cx.b.push(Instr::selp(rd, rd_next, rd, p_next));
                NextStripe { stage: slot_offsets(cx, rd, (a_rd, b_rd), (a_slot, b_slot)) }
            },
            &mut copies,
        );
    } else {
        let stage = slot_offsets(cx, rd, (a_rd, b_rd), (a_slot, b_slot));
        inner.accumulate(cx, Some(stage), &mut copies);
        if p_copy.is_some() {
            close(cx);
        }
        next_slot(cx, rd, s, p);
    }
    cx.b.push(Instr::add(kt, kt, Op::imm(1)));
    cx.b.push(Instr::setp(Cmp::Lt, Type::U32, p, kt, ktiles));
    cx.b.push_if(p, Instr::bra_uni(loop_label));
    epilogue
}

/// The ring's prologue: the first `stripes` stripes of the `ktiles` (s − 1
/// for the ring's own loop) into slots 0, 1, …, one commit group each, with
/// `k_rem` from `k` down; the copies' pointers and `k_rem` are left at the
/// next stripe. `p` is scratch.
pub(super) fn fill(
    cx: &mut Cx<'_>,
    (a, b): (&AsyncCopy, &AsyncCopy),
    (ktiles, k_rem): (Reg, Reg),
    p: Reg,
    stripes: u32,
) {
    let spec = *cx.plan.spec();
    let (a_slot, b_slot) = (a.slot_bytes(cx), b.slot_bytes(cx));
    cx.b.push(Instr::mov(k_rem, cx.params.k));
    for t in 0..stripes {
        // Stripes past the last are not copied (a copy nobody waits for
        // would still be landing when the kernel ends); their groups stay
        // empty, so the count of groups is the same for every k.
        let skip = cx.b.label(&format!("prologue_past_k_{t}"));
        cx.b.push(Instr::setp(Cmp::Le, Type::U32, p, ktiles, Op::imm(t)));
        cx.b.push_if(p, Instr::bra_uni(skip));
        a.issue(cx, k_rem, Op::imm(t * a_slot));
        b.issue(cx, k_rem, Op::imm(t * b_slot));
        cx.b.place(skip);
        cx.b.push(Instr::cp_async_commit());
        a.advance(cx);
        b.advance(cx);
        cx.b.push(Instr::sub(k_rem, k_rem, Op::imm(spec.k_blk)));
    }
}

/// Waits until the stripe `s − 2` commit groups back has landed, then
/// makes every thread's copies of it visible to the whole block.
fn land(cx: &mut Cx<'_>, s: u32) {
    cx.b.push(Instr::cp_async_wait(s - 2));
    cx.b.push(Instr::bar_sync(0));
}

/// The byte offsets (A's, B's) of ring slot `slot`, slots of `bytes` (A's,
/// B's) each.
pub(super) fn slot_offsets(
    cx: &mut Cx<'_>,
    slot: Reg,
    (a_off, b_off): (Reg, Reg),
    (a_bytes, b_bytes): (u32, u32),
) -> (Reg, Reg) {
    cx.b.push(Instr::mul(a_off, slot, Op::imm(a_bytes)));
    cx.b.push(Instr::mul(b_off, slot, Op::imm(b_bytes)));
    (a_off, b_off)
}

/// `slot = (slot + 1) mod s`.
pub(super) fn next_slot(cx: &mut Cx<'_>, slot: Reg, s: u32, scratch: Reg) {
    step_slot(cx, slot, 1, s, scratch);
}

/// `slot = (slot + step) mod (step · s)`: the next of `s` slots `step`
/// apart (an index, or an offset in bytes or descriptor units, of `slot`'s
/// type).
pub(super) fn step_slot(cx: &mut Cx<'_>, slot: Reg, step: u32, s: u32, scratch: Reg) {
    cx.b.push(Instr::add(slot, slot, Op::imm(step)));
    cx.b.push(Instr::setp(Cmp::Eq, slot.ty, scratch, slot, Op::imm(step * s)));
    cx.b.push_if(scratch, Instr::mov(slot, Op::imm(0)));
}
