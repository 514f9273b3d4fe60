//! The warp-specialized `wgmma` kernel (`producers = 1`): a producer
//! warpgroup beside the consumer warpgroups of `threads` does all the data
//! movement — every `cp.async` of the ring, and the conversion of each
//! landed stripe into its TF32 parts — and hands the parts to the
//! consumers, which only issue `wgmma`s, join tf32x3's products and write
//! C. The two sides meet only at named barriers (CUTLASS's
//! warp-specialized mainloop, with `bar.arrive`/`bar.sync` pairs where it
//! uses `mbarrier`s):
//!
//! ```text
//! producer (threads C .. C + 127, p = their index)    consumers (threads 0 .. C − 1)
//!   copy stripes 0 .. s−2 into slots 0 .. s−2           C_regs ⇐ 0
//!   for t in 0 .. ktiles:                               for t in 0 .. ktiles:
//!     wait_group s−2;  bar.sync PRODUCERS, 128            bar.sync FULL[t mod 2], N
//!     t ≥ 2: bar.sync EMPTY[t mod 2], N                   wgmma × steps on parts[t mod 2]; commit
//!     convert slot t mod s → parts[t mod 2]               wgmma.wait_group 0
//!     fence.proxy.async                                   t + 2 < ktiles: bar.arrive EMPTY[t mod 2], N
//!     bar.arrive FULL[t mod 2], N                         tf32x3: C_regs += products
//!     copy stripe t+s−1 → slot (t−1) mod s; commit      C = alpha · C_regs + beta · C
//! ```
//!
//! `N` is the whole block (`C + 128` threads). The producers' own barrier
//! does the ring's job among them: after it every producer's copies of
//! stripe `t` have landed, and every producer has finished converting
//! stripe `t − 1`, whose slot the next copies overwrite. `FULL[j]` tells the
//! consumers that a set of parts is written and fenced for the async proxy;
//! `EMPTY[j]` tells the producer that the group which read it has retired
//! in every consumer warp. The consumers arrive at `EMPTY` only for the
//! stripes whose set the producer converts into again (`t + 2 < ktiles`),
//! so every barrier completes as often as it is entered. The loops are
//! unrolled twice, one body per set of parts, so that every barrier id is
//! an immediate. 1xTF32 keeps one group in flight: it waits for the
//! previous stripe's group (`wait_group 1`) and frees that stripe's set.
//!
//! Where `wgmma` reads an operand from the ring instead of converted parts
//! (1xTF32, [`crate::constraints::wgmma_direct`]; or the consumers load
//! A's fragments from it into registers, `wgmma.rs`'s "A from
//! registers"), the consumers read the ring's slot of stripe `t` itself,
//! and the producer may overwrite it only once they have retired that
//! stripe's group. 1xTF32's consumers say so
//! for stripe `t − 1` right after issuing stripe `t` (`EMPTY[(t − 1) mod
//! 2]`), so the producer waits there after handing stripe `t` over, then
//! copies stripe `t + s − 1` into that slot — the copies stay `s − 1`
//! stripes ahead, and the wait also frees the set of parts of an operand
//! still converted (the producer's `EMPTY` before the conversion goes) and
//! tells the producer that the consumers have passed `FULL[(t − 1) mod 2]`,
//! which it arrives at next. With both operands read from the ring (TN)
//! there is nothing to convert: each producer waits for its own copies,
//! fences them for the async proxy and arrives at `FULL`, whose completion
//! tells the consumers that every producer's copies have landed — no
//! producers' barrier.
//!
//! With `ldg = tma` (`bulk.rs`) one thread of the producer brings each
//! stripe with two bulk tensor copies instead, and the copies' completion
//! on the slot's `mbarrier` hands the stripe over: the consumers wait on
//! that barrier where they would meet `FULL`, and the producer keeps only
//! its wait at `EMPTY` before overwriting a slot. Where nothing is
//! converted, nothing else holds the consumers back: they may run `stages −
//! 1` stripes ahead of that wait, and `EMPTY`'s two barriers alternate by
//! stripe, so such a kernel has at most 3 stages
//! ([`crate::constraints::tma_stages_fit`]) — with 4, an arrival for
//! stripe `t + 2` could count toward the producer's round of stripe `t`.
//!
//! The producers exit after their last stripe; the consumers' epilogue
//! meets no barrier.
//!
//! A producer that only issues bulk copies needs few registers: it gives
//! the rest to the consumers (`setmaxnreg.dec` as it branches off,
//! `setmaxnreg.inc` at the consumers' start, which waits until the
//! producer has; [`crate::constraints::register_limits`]).
//!
//! The consumers' loop is the kernel's `main_loop`: the analytic bound
//! (`bound/`) counts its tensor-core work, issue slots and shared-memory
//! reads, and not the producer's conversion beside it — for this kernel the
//! bound is optimistic by whatever the producer's share of the issue slots
//! and of shared-memory bandwidth costs.

use crate::constraints::Operand;
use crate::ptx::{self, Cmp, Instr, Operand as Op, Reg, Type};
use crate::spec::GlobalLoad;

use super::bulk::{Barriers, BulkCopy};
use super::ring::{AsyncCopy, fill, next_slot, slot_offsets};
use super::wgmma::Warpgroup;
use super::{Cx, Epilogue, InnerProduct};

/// The producers' own barrier (the ring's, among their 128 threads).
const PRODUCERS: u32 = 1;
/// Set `j` of the parts is written and fenced: `FULL + j`.
const FULL: u32 = 2;
/// Set `j` of the parts is free again: `EMPTY + j`.
const EMPTY: u32 = 4;

/// Emits both sides after the prologue; control falls through to the
/// kernel's `ret`.
pub(crate) fn lower(cx: &mut Cx<'_>, mut wg: Warpgroup, epilogue: &mut dyn Epilogue) {
    let consumers = cx.plan.threads();
    let block = cx.plan.spec().block().0;
    let producer = cx.b.label("producer");
    let p = cx.b.reg("p_producer", Type::Pred);
    cx.b.section(format!(
        "warp specialization: threads 0 .. {} issue the wgmmas and write C, threads {consumers} .. {} \
         copy and convert the stripes",
        consumers - 1,
        block - 1
    ));
    let bars = (cx.plan.spec().ldg == GlobalLoad::Tma).then(|| Barriers::init(cx));
    cx.b.push(Instr::setp(Cmp::Ge, Type::U32, p, cx.thread, Op::imm(consumers)));
    cx.b.push_if(p, Instr::bra_uni(producer));
    let limits = crate::constraints::register_limits(cx.plan.spec());
    if let Some((_, consumer)) = limits {
        cx.b.comment(format!(
            "the consumers' registers raised to {consumer} a thread, from those the producer gives back \
             (waits until it has)"
        ));
        cx.b.push(Instr::setmaxnreg(true, consumer));
    }
    consume(cx, &mut wg, block, bars, epilogue);
    cx.b.place(producer);
    if let Some((producer, _)) = limits {
        cx.b.comment(format!("the producer keeps {producer} registers a thread, the rest to the consumers"));
        cx.b.push(Instr::setmaxnreg(false, producer));
    }
    produce(cx, &mut wg, block, bars);
}

/// `ktiles = ceil(k / K_blk)` into a new register `{side}_ktiles`;
/// branches to `none` when it is 0.
fn stripes(cx: &mut Cx<'_>, side: &str, none: ptx::Label, p: Reg) -> Reg {
    let k_blk = cx.plan.spec().k_blk;
    let ktiles = cx.b.reg(format!("{side}_ktiles"), Type::U32);
    cx.b.comment(format!("stripes along K: ktiles = ceil(k / {k_blk})"));
    cx.b.push(Instr::add(ktiles, cx.params.k, Op::imm(k_blk - 1)));
    cx.b.push(Instr::binary(ptx::BinOp::Div, ktiles, ktiles, Op::imm(k_blk)));
    cx.b.push(Instr::setp(Cmp::Eq, Type::U32, p, ktiles, Op::imm(0)));
    cx.b.push_if(p, Instr::bra_uni(none));
    ktiles
}

/// In body `j` of the producer's loop: waits at `EMPTY[1 − j]` until the
/// consumers have retired stripe `kt − 1`, which they say from `kt = 1` on
/// while stripe `kt + 1` exists (`ahead` is clobbered).
fn wait_previous_retired(cx: &mut Cx<'_>, j: u32, (kt, ktiles, ahead, p): (Reg, Reg, Reg, Reg), block: u32) {
    let kept = cx.b.label(&format!("slot_{}_kept", 1 - j));
    cx.b.push(Instr::setp(Cmp::Lt, Type::U32, p, kt, Op::imm(1)));
    cx.b.push_if(p, Instr::bra_uni(kept));
    cx.b.push(Instr::add(ahead, kt, Op::imm(1)));
    cx.b.push(Instr::setp(Cmp::Ge, Type::U32, p, ahead, ktiles));
    cx.b.push_if(p, Instr::bra_uni(kept));
    cx.b.push(Instr::bar_sync_named(EMPTY + 1 - j, block));
    cx.b.place(kept);
}

/// The end of body `j` of a loop unrolled twice: `kt += 1`, then out to
/// `done` past the last stripe, or (after the second body) back to `top`.
fn next_stripe(
    cx: &mut Cx<'_>,
    j: u32,
    (kt, ktiles, p): (Reg, Reg, Reg),
    (done, top): (ptx::Label, ptx::Label),
) {
    cx.b.push(Instr::add(kt, kt, Op::imm(1)));
    cx.b.push(Instr::setp(Cmp::Lt, Type::U32, p, kt, ktiles));
    if j == 0 {
        cx.b.push_unless(p, Instr::bra_uni(done));
    } else {
        cx.b.push_if(p, Instr::bra_uni(top));
    }
}

/// The consumer warpgroups: the `wgmma`s of every stripe, then the
/// epilogue, ending in `ret`.
fn consume(
    cx: &mut Cx<'_>,
    wg: &mut Warpgroup,
    block: u32,
    bars: Option<Barriers>,
    epilogue: &mut dyn Epilogue,
) {
    cx.b.section("consumers: descriptors, C_regs = 0");
    wg.setup_product(cx);
    wg.first_set(cx);
    wg.zero(cx);
    cx.b.reg_group("consumers' loop control");
    let p = cx.b.reg("p_consumer", Type::Pred);
    let kt = cx.b.reg("kt", Type::U32);
    let ahead = cx.b.reg("kt_ahead", Type::U32);
    let done = cx.b.label("epilogue");
    let top = cx.b.label("main_loop");
    let ktiles = stripes(cx, "consumer", done, p);
    cx.b.push(Instr::mov(kt, Op::imm(0)));
    let x3 = cx.plan.spec().math == crate::Math::Tf32x3;
    // With bulk copies: the ring slot of stripe kt, the parity of its
    // barrier's phase, and the wait's registers.
    // A stripe read in place comes by its barrier; one converted, by FULL.
    let full = bars.filter(|_| wg.reads_ring()).map(|bars| {
        let slot = cx.b.reg("full_slot", Type::U32);
        let phase = cx.b.reg("full_phase", Type::U32);
        let wait = (cx.b.reg("p_full", Type::Pred), cx.b.reg("full_at", Type::U32));
        cx.b.push(Instr::mov(slot, Op::imm(0)));
        cx.b.push(Instr::mov(phase, Op::imm(0)));
        (bars, slot, phase, wait)
    });
    cx.b.section("consumers' loop: two stripes an iteration, one on each set of parts");
    cx.b.place(top);
    for j in 0..2 {
        if wg.converts() {
            cx.b.comment(format!("stripe kt: its parts are in set {j}"));
        } else {
            cx.b.comment(format!("stripe kt: landed in its ring slot, handed over at FULL[{j}]"));
        }
        if bars.is_none() || wg.converts() {
            cx.b.push(Instr::bar_sync_named(FULL + j, block));
        }
        if let Some((bars, slot, phase, wait)) = full {
            cx.b.comment("stripe kt: its bulk copies completed on FULL[kt mod s], phase kt div s");
            bars.wait(cx, (slot, phase), wait, j);
            // The wait's retry loop is a branch back between two stripes'
            // wgmmas: ptxas fences there itself (C7519, "warpgroup.arrive
            // is injected"), so the PTX says so.
            cx.b.comment("the wait loop's branch precedes this stripe's wgmmas: fenced for them");
            cx.b.push(Instr::wgmma_fence());
        }
        wg.issue_stripe(cx, &mut |_, _| {});
        // The set of parts whose group has retired, and that stripe's
        // distance behind kt: tf32x3 retires this stripe's (its products
        // join now), 1xTF32 the previous one's.
        let (freed, behind) = if x3 { (j, 0) } else { (1 - j, 1) };
        wg.retire_previous(cx);
        let skip = cx.b.label(&format!("set_{freed}_kept"));
        let stripe = if behind > 0 { "the previous stripe's group" } else { "this stripe's group" };
        let next = if behind > 0 { "+ 1" } else { "+ 2" };
        cx.b.comment(if wg.converts() {
            format!(
                "{stripe} retired: set {freed} is free, if the producer converts into it again (stripe kt \
                 {next} exists)"
            )
        } else {
            format!(
                "{stripe} retired: its ring slot is free (EMPTY[{freed}]), if the producer waits for that \
                 (stripe kt {next} exists)"
            )
        });
        cx.b.push(Instr::add(ahead, kt, Op::imm(2)));
        if behind > 0 {
            cx.b.push(Instr::setp(Cmp::Lt, Type::U32, p, kt, Op::imm(behind)));
            cx.b.push_if(p, Instr::bra_uni(skip));
            cx.b.push(Instr::sub(ahead, ahead, Op::imm(behind)));
        }
        cx.b.push(Instr::setp(Cmp::Ge, Type::U32, p, ahead, ktiles));
        cx.b.push_if(p, Instr::bra_uni(skip));
        cx.b.push(Instr::bar_arrive(EMPTY + freed, block));
        cx.b.place(skip);
        wg.join_products(cx, "this stripe's products");
        wg.next_set(cx);
        wg.next_slot(cx, p);
        if let Some((_, slot, phase, _)) = full {
            // Past slot s − 1 the next phase of each barrier.
            step_phase(cx, (slot, phase), cx.plan.spec().stages, p, &format!("same_phase_{j}"));
        }
        next_stripe(cx, j, (kt, ktiles, p), (done, top));
    }
    cx.b.section("epilogue: C = alpha * C_regs + beta * C");
    cx.b.place(done);
    if !x3 {
        cx.b.comment("the last stripe's group retired");
        cx.b.push(Instr::wgmma_wait(0));
    }
    super::problem_c(cx);
    epilogue.emit(cx, wg.accumulators());
    cx.b.push(Instr::ret());
}

/// How the producer moves the stripes: every producer thread's
/// `cp.async`s (and the K left for their bounds), or one thread's bulk
/// copies (`ldg = tma`, `bulk.rs`).
enum Mover {
    Async { a: Box<AsyncCopy>, b: Box<AsyncCopy>, k_rem: Reg },
    Bulk(BulkCopy),
}

/// The producer warpgroup: the ring's copies and the conversion of every
/// stripe, falling through to the kernel's end. With bulk copies (`bars`)
/// their completion on the slot's barrier hands a stripe read in place to
/// the consumers; a stripe to convert the producers wait for there
/// themselves, where they would wait for their `cp.async` groups.
fn produce(cx: &mut Cx<'_>, wg: &mut Warpgroup, block: u32, bars: Option<Barriers>) {
    let spec = *cx.plan.spec();
    let s = spec.stages;
    let producers = crate::constraints::proven_u32(u128::from(spec.copy_threads()));
    // Whether the consumers read a slot of the ring itself: then the
    // producer overwrites it only once they have retired its stripe.
    let (direct, converts) = (wg.reads_ring(), wg.converts());
    cx.b.section("producer: its thread index, copy pointers and bounds, conversion units");
    let ptid = cx.b.reg("producer_thread", Type::U32);
    cx.b.push(Instr::sub(ptid, cx.thread, Op::imm(cx.plan.threads())));
    // The movers and the conversion number the producers' threads alone.
    let thread = std::mem::replace(&mut cx.thread, ptid);
    let mut mover = match bars {
        Some(bars) => Mover::Bulk(BulkCopy::new(cx, ptid, bars)),
        None => {
            let (mut a, mut b) = (AsyncCopy::new(Operand::A), AsyncCopy::new(Operand::B));
            a.setup(cx);
            b.setup(cx);
            Mover::Async { a: Box::new(a), b: Box::new(b), k_rem: cx.b.reg("k_rem", Type::U32) }
        }
    };
    wg.setup_conversion(cx, (ptid, producers), true);
    cx.thread = thread;
    wg.first_set(cx);
    let slot_bytes = |x| crate::constraints::proven_u32(crate::constraints::smem_stage_bytes(&spec, x));
    let (a_slot, b_slot) = (slot_bytes(Operand::A), slot_bytes(Operand::B));

    cx.b.reg_group(format!("producer's ring of {s} stripes"));
    let p = cx.b.reg("p_ring", Type::Pred);
    let kt = cx.b.reg("pkt", Type::U32);
    let ahead = cx.b.reg("pkt_ahead", Type::U32);
    let wr = cx.b.reg("slot_wr", Type::U32);
    let rd = cx.b.reg("slot_rd", Type::U32);
    let (a_wr, b_wr) = (cx.b.reg("a_slot_wr", Type::U32), cx.b.reg("b_slot_wr", Type::U32));
    let (a_rd, b_rd) = (cx.b.reg("a_slot_rd", Type::U32), cx.b.reg("b_slot_rd", Type::U32));
    // The parity of the phase of slot `rd`'s barrier a converting producer
    // waits for, and the wait's registers.
    let landed = match (&mover, converts) {
        (Mover::Bulk(_), true) => Some((
            cx.b.reg("slot_rd_phase", Type::U32),
            (cx.b.reg("p_landed", Type::Pred), cx.b.reg("landed_at", Type::U32)),
        )),
        _ => None,
    };
    let done = cx.b.label("producer_done");
    let top = cx.b.label("producer_loop");
    let ktiles = stripes(cx, "producer", done, p);

    match &mover {
        Mover::Async { a, b, k_rem } => {
            cx.b.section(format!(
                "producer's prologue: stripes 0 .. {} into slots 0 .. {0}, a group each",
                s - 2
            ));
            fill(cx, (&**a, &**b), (ktiles, *k_rem), p, s - 1);
        }
        Mover::Bulk(copy) => {
            cx.b.section(format!("producer's prologue: stripes 0 .. {} into slots 0 .. {0}", s - 2));
            for t in 0..s - 1 {
                let skip = cx.b.label(&format!("prologue_past_k_{t}"));
                cx.b.push(Instr::setp(Cmp::Le, Type::U32, p, ktiles, Op::imm(t)));
                cx.b.push_if(p, Instr::bra_uni(skip));
                copy.copy(cx, Op::imm(t), Op::imm(t));
                cx.b.place(skip);
            }
        }
    }
    cx.b.push(Instr::mov(wr, Op::imm(s - 1)));
    cx.b.push(Instr::mov(rd, Op::imm(0)));
    cx.b.push(Instr::mov(kt, Op::imm(0)));
    if let Some((phase, _)) = landed {
        cx.b.push(Instr::mov(phase, Op::imm(0)));
    }

    cx.b.section("producer's loop: two stripes an iteration, one into each set of parts");
    cx.b.place(top);
    for j in 0..2 {
        let bulk = matches!(mover, Mover::Bulk(_));
        cx.b.comment(match (converts, bulk) {
            (true, false) => format!(
                "stripe kt landed for every producer, and slot kt - 1 read by all (the copies of stripe \
                 kt + {} go there once this stripe is handed over)",
                s - 1
            ),
            (true, true) => format!(
                "stripe kt landed (its bulk copies completed on FULL[kt mod s]), and slot kt - 1 read by \
                 all (the copies of stripe kt + {} go there once this stripe is handed over)",
                s - 1
            ),
            (false, false) => "stripe kt landed for this thread".to_owned(),
            (false, true) => "stripe kt: the consumers wait for its bulk copies themselves".to_owned(),
        });
        match (&mover, landed, bars) {
            (Mover::Async { .. }, ..) => cx.b.push(Instr::cp_async_wait(s - 2)),
            (Mover::Bulk(_), Some((phase, wait)), Some(bars)) => bars.wait(cx, (rd, phase), wait, 2 + j),
            (Mover::Bulk(_), ..) => {}
        }
        // The producers' own barrier: their copies landed for all of them
        // (`cp.async`), and none still converts stripe kt − 1 from the slot
        // the leader's next bulk copies overwrite — which, with a stripe
        // read in place, `EMPTY` (the whole block) already says.
        if converts && !(bulk && direct) {
            cx.b.push(Instr::bar_sync_named(PRODUCERS, producers));
        }
        if !direct {
            let free = cx.b.label(&format!("set_{j}_never_used"));
            cx.b.comment(format!(
                "set {j} free: the consumers retired stripe kt - 2's group (none before kt = 2)"
            ));
            cx.b.push(Instr::setp(Cmp::Lt, Type::U32, p, kt, Op::imm(2)));
            cx.b.push_if(p, Instr::bra_uni(free));
            cx.b.push(Instr::bar_sync_named(EMPTY + j, block));
            cx.b.place(free);
        }
        if converts {
            let stage = slot_offsets(cx, rd, (a_rd, b_rd), (a_slot, b_slot));
            wg.convert_stripe(cx, stage);
            cx.b.comment(format!(
                "set {j} written: visible to wgmma (the async proxy), handed to the consumers"
            ));
        } else if !bulk {
            cx.b.comment("stripe kt visible to wgmma (the async proxy), handed to the consumers");
        }
        if converts || !bulk {
            cx.b.push(Instr::fence_proxy_async());
            cx.b.push(Instr::bar_arrive(FULL + j, block));
        }
        if direct {
            let set = if converts { format!(" and set {}", 1 - j) } else { String::new() };
            let passed =
                if converts || !bulk { format!(", and FULL[{}] passed", 1 - j) } else { String::new() };
            cx.b.comment(format!(
                "the consumers retired stripe kt - 1's group: its slot{set} free{passed} (they say so at \
                 EMPTY[{}] from kt = 1 on, while stripe kt + 1 exists)",
                1 - j
            ));
            wait_previous_retired(cx, j, (kt, ktiles, ahead, p), block);
        }
        cx.b.comment(format!(
            "the copies of stripe kt + {} into slot kt - 1, after the hand-off: {}",
            s - 1,
            if direct {
                "the consumers have retired that stripe"
            } else {
                "the conversion starts as soon as the set is free"
            }
        ));
        let no_copy = cx.b.label(&format!("no_stripe_to_copy_{j}"));
        cx.b.push(Instr::add(ahead, kt, Op::imm(s - 1)));
        cx.b.push(Instr::setp(Cmp::Ge, Type::U32, p, ahead, ktiles));
        cx.b.push_if(p, Instr::bra_uni(no_copy));
        match &mut mover {
            Mover::Async { a, b, k_rem } => {
                let (a_wr, b_wr) = slot_offsets(cx, wr, (a_wr, b_wr), (a_slot, b_slot));
                a.issue(cx, *k_rem, Op::Reg(a_wr));
                b.issue(cx, *k_rem, Op::Reg(b_wr));
                cx.b.place(no_copy);
                cx.b.push(Instr::cp_async_commit());
                a.advance(cx);
                b.advance(cx);
                cx.b.push(Instr::sub(*k_rem, *k_rem, Op::imm(spec.k_blk)));
            }
            Mover::Bulk(copy) => {
                copy.copy(cx, Op::Reg(ahead), Op::Reg(wr));
                cx.b.place(no_copy);
            }
        }
        next_slot(cx, wr, s, p);
        wg.next_set(cx);
        match landed {
            // Past slot s − 1 the next phase of each barrier.
            Some((phase, _)) => step_phase(cx, (rd, phase), s, p, &format!("rd_phase_{j}")),
            None if !bulk || converts => next_slot(cx, rd, s, p),
            None => {}
        }
        next_stripe(cx, j, (kt, ktiles, p), (done, top));
    }
    cx.b.place(done);
}

/// `slot = slot + 1`, and past slot `s − 1` slot 0 of the barriers' next
/// phase (`phase ^= 1`); `label` names the branch's target.
fn step_phase(cx: &mut Cx<'_>, (slot, phase): (Reg, Reg), s: u32, p: Reg, label: &str) {
    let same = cx.b.label(label);
    cx.b.push(Instr::add(slot, slot, Op::imm(1)));
    cx.b.push(Instr::setp(Cmp::Lt, Type::U32, p, slot, Op::imm(s)));
    cx.b.push_if(p, Instr::bra_uni(same));
    cx.b.push(Instr::mov(slot, Op::imm(0)));
    cx.b.push(Instr::binary(ptx::BinOp::Xor, phase, phase, Op::imm(1)));
    cx.b.place(same);
}
