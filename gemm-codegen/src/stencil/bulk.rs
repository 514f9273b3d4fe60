//! The tensor memory accelerator's side of the warp-specialized `wgmma`
//! kernel (`ldg = tma`, [`crate::constraints::tma_allowed`]): one thread
//! of the producer warpgroup brings each stripe of A and B with two
//! `cp.async.bulk.tensor` copies into the ring slot the `cp.async`s would
//! fill, in the same layout, and the copies complete on the slot's
//! `mbarrier`. A stripe `wgmma` reads in place is handed to the consumers
//! by that completion (below); one the producers convert, they wait for
//! there themselves, where they would wait for their `cp.async` groups,
//! and hand its parts over at `FULL` as before (`specialized.rs`).
//!
//! ```text
//! thread 0: mbarrier.init FULL[i], 1 for every slot i;  bar.sync 0 (the whole block)
//! producer (leader = its thread 0)                     consumers
//!   leader, t in 0 .. s−2:  expect_tx FULL[t], bytes;    for t in 0 .. ktiles:
//!     copy A, B boxes of stripe t → slot t                 try_wait FULL[t mod s], parity (t div s) mod 2
//!   for t in 0 .. ktiles:                                  wgmma × steps on slot t mod s; commit
//!     t ≥ 1, t + 1 < ktiles: bar.sync EMPTY[(t−1) mod 2]   wgmma.wait_group 1
//!     t + s − 1 < ktiles: leader: expect_tx FULL[w], bytes; t ≥ 1, t + 1 < ktiles: bar.arrive EMPTY[(t−1) mod 2]
//!       copy A, B boxes of stripe t + s − 1 → slot w = (t − 1) mod s
//! ```
//!
//! A K-contiguous stripe's box is `tile.2` elements of K (128 bytes, the
//! 128-byte swizzle `wgmma` and the conversion read) by the tile's rows of
//! A (or columns of B), at coordinates `(k_blk t, blk_m0, z)` (`(k_blk t,
//! blk_n0, z)`) of the operand's tensor map, `z` the block's problem; a
//! K-major stripe's box is the tile's rows (columns) by `tile.2`, rows of
//! K one after another without swizzle, at `(blk_m0, k_blk t, z)`. Either
//! is exactly the slot the `cp.async` ring would fill, and elements outside
//! the matrix land as zeros, so no thread computes a bound. `expect_tx` counts both whole boxes, zeros
//! included, as the copies do. The consumers' wait replaces `FULL`'s named
//! barrier: phase `n` of `FULL[i]` is stripe `n · s + i`, so its parity is
//! `(t div s) mod 2`.
//!
//! A 16-bit operand whose M or N leads (`f16`, `bf16`; `wgmma` reads it
//! MN-major, [`crate::constraints::half_box_fits`]) comes as boxes of 64
//! elements along M or N (128 bytes, the 128-byte swizzle) by `tile.2`
//! rows, one after another in the slot, box `j` at `(blk_m0 + 64 j, k_blk
//! t, z)`: a slot is `tile.0 / 64` such boxes (`tile.1 / 64` for B), each
//! `128 · tile.2` bytes. `EMPTY` stays a named barrier, met as in the
//! `cp.async` kernel that reads its operands in place; the producer's
//! other 127 threads meet it too and copy nothing.

use crate::constraints::{HALF_BOX, Operand, smem_stage_bytes};
use crate::ptx::{Address, Cmp, Instr, Operand as Op, Reg, Special, Tma, Type};

use super::Cx;
use super::cx::SharedBase;

/// The `mbarrier`s of a TMA kernel: `FULL[i]` for ring slot `i`, 8 bytes
/// each, after the rings and parts.
#[derive(Clone, Copy, Debug)]
pub(super) struct Barriers {
    /// The shared-window address of `FULL[0]` (`.u32`).
    pub base: Reg,
}

impl Barriers {
    /// Declares the barriers' address; thread 0 of the block initializes
    /// each to one arrival (the leader's `expect_tx`), then the whole
    /// block meets at `bar.sync 0`, after which any thread may use them.
    pub fn init(cx: &mut Cx<'_>) -> Barriers {
        let spec = *cx.plan.spec();
        let at = crate::constraints::shared_bytes(&spec) - crate::constraints::tma_barrier_bytes(&spec);
        let base = cx.b.reg("full_bars", Type::U32);
        let p = cx.b.reg("p_initializer", Type::Pred);
        cx.b.section(format!(
            "mbarriers FULL[0 .. {}]: one a ring slot, completed by its stripe's bulk copies",
            spec.stages - 1
        ));
        let array = SharedBase { array: cx.smem_a.array, offset: crate::constraints::proven_u32(at) };
        cx.shared_address(base, array);
        cx.b.push(Instr::setp(Cmp::Eq, Type::U32, p, cx.thread, Op::imm(0)));
        for i in 0..spec.stages {
            let bar = Address::reg(base, i64::from(8 * i));
            cx.b.push_if(p, Instr::Tma(Tma::MbarrierInit { bar, count: 1 }));
        }
        cx.b.comment("the barriers initialized before any thread uses them");
        cx.b.push(Instr::bar_sync(0));
        Barriers { base }
    }

    /// The consumers wait for ring slot `slot` (an index) to be full in the
    /// phase of parity `phase`: `try_wait` until it answers yes (the loop's
    /// label `full_wait_{tag}`).
    pub fn wait(&self, cx: &mut Cx<'_>, (slot, phase): (Reg, Reg), (done, addr): (Reg, Reg), tag: u32) {
        let again = cx.b.label(&format!("full_wait_{tag}"));
        cx.b.push(Instr::mul(addr, slot, Op::imm(8)));
        cx.b.push(Instr::add(addr, addr, self.base));
        cx.b.place(again);
        let bar = Address::reg(addr, 0);
        cx.b.push(Instr::Tma(Tma::MbarrierTryWait { done, bar, parity: phase.into() }));
        cx.b.push_unless(done, Instr::bra_uni(again));
    }
}

/// The producer's copies: one leader thread, the tensor maps, the rings.
pub(super) struct BulkCopy {
    leader: Reg,
    /// Per operand, whether its stripe is K-contiguous (a box's rows run
    /// along K) rather than K-major (along M or N).
    k_inner: [bool; 2],
    maps: [Reg; 2],
    rings: [Reg; 2],
    slot_bytes: [u32; 2],
    /// Per operand, the boxes a stripe is (1, or one per 64 elements of a
    /// 16-bit MN-major stripe), and the bytes of each.
    boxes: [(u32, u32); 2],
    /// A box's origin along M or N and its address, past the first box.
    box_regs: Option<(Reg, Reg)>,
    problem: Reg,
    k0: Reg,
    addr: [Reg; 3],
    bars: Barriers,
}

impl BulkCopy {
    /// Sets up the copies of the producer warpgroup whose thread index is
    /// `ptid` (its thread 0 copies).
    pub fn new(cx: &mut Cx<'_>, ptid: Reg, bars: Barriers) -> BulkCopy {
        let maps = cx.params.tensor_maps.map(|m| m.expect("a TMA kernel's ABI has both tensor maps"));
        let spec = *cx.plan.spec();
        cx.b.reg_group("the producer's bulk copies");
        let leader = cx.b.reg("p_leader", Type::Pred);
        let rings = [cx.b.reg("a_ring", Type::U32), cx.b.reg("b_ring", Type::U32)];
        let problem = cx.b.reg("tma_problem", Type::U32);
        let k0 = cx.b.reg("tma_k0", Type::U32);
        let addr =
            [cx.b.reg("a_box", Type::U32), cx.b.reg("b_box", Type::U32), cx.b.reg("full_bar", Type::U32)];
        cx.b.comment("thread 0 of the producer copies; the rings' addresses; the block's problem");
        cx.b.push(Instr::setp(Cmp::Eq, Type::U32, leader, ptid, Op::imm(0)));
        cx.shared_address(rings[0], cx.smem_a);
        cx.shared_address(rings[1], cx.smem_b);
        cx.b.push(Instr::mov(problem, Special::CtaidZ));
        let slot_bytes =
            [Operand::A, Operand::B].map(|x| crate::constraints::proven_u32(smem_stage_bytes(&spec, x)));
        let k_inner =
            [Operand::A, Operand::B].map(|x| crate::constraints::stripe_layout(&spec, x).k_contiguous());
        let boxes = [Operand::A, Operand::B].map(|x| {
            let i = x as usize;
            if spec.precision.is_half() && !k_inner[i] {
                let free = crate::constraints::free_blk(&spec, x);
                (free / HALF_BOX, slot_bytes[i] / (free / HALF_BOX))
            } else {
                (1, slot_bytes[i])
            }
        });
        let box_regs = boxes
            .iter()
            .any(|&(n, _)| n > 1)
            .then(|| (cx.b.reg("box_origin", Type::U32), cx.b.reg("box_dst", Type::U32)));
        BulkCopy { leader, k_inner, maps, rings, slot_bytes, boxes, box_regs, problem, k0, addr, bars }
    }

    /// Bytes one stripe's copies bring: both boxes, whole.
    fn stripe_bytes(&self) -> u32 {
        self.slot_bytes[0] + self.slot_bytes[1]
    }

    /// The leader copies stripe `stripe` (a register or an immediate) into
    /// ring slot `slot` (a register or an immediate) and expects its bytes
    /// on that slot's barrier.
    pub fn copy(&self, cx: &mut Cx<'_>, stripe: Op, slot: Op) {
        let k_blk = cx.plan.spec().k_blk;
        let [a_box, b_box, bar] = self.addr;
        // `dst = x · factor (+ base)`, folded where `x` is an immediate.
        let scaled = |cx: &mut Cx<'_>, dst: Reg, x: Op, factor: u32, base: Option<Reg>| match (x, base) {
            (Op::Imm(v), None) => cx.b.push(Instr::mov(dst, Op::imm(v as u32 * factor))),
            (Op::Imm(v), Some(base)) => cx.b.push(Instr::add(dst, base, Op::imm(v as u32 * factor))),
            (x, base) => {
                cx.b.push(Instr::mul(dst, x, Op::imm(factor)));
                if let Some(base) = base {
                    cx.b.push(Instr::add(dst, dst, base));
                }
            }
        };
        scaled(cx, self.k0, stripe, k_blk, None);
        scaled(cx, bar, slot, 8, Some(self.bars.base));
        scaled(cx, a_box, slot, self.slot_bytes[0], Some(self.rings[0]));
        scaled(cx, b_box, slot, self.slot_bytes[1], Some(self.rings[1]));
        let bar_at = Address::reg(bar, 0);
        let expect = Tma::MbarrierArriveExpectTx { bar: bar_at, bytes: self.stripe_bytes() };
        cx.b.push_if(self.leader, Instr::Tma(expect));
        for (i, (dst, origin)) in [(a_box, cx.blk_m0), (b_box, cx.blk_n0)].into_iter().enumerate() {
            let (boxes, box_bytes) = self.boxes[i];
            for j in 0..boxes {
                let (dst, origin) = match (j, self.box_regs) {
                    (0, _) | (_, None) => (dst, origin),
                    (j, Some((box_origin, box_dst))) => {
                        cx.b.push(Instr::add(box_origin, origin, Op::imm(j * HALF_BOX)));
                        cx.b.push(Instr::add(box_dst, dst, Op::imm(j * box_bytes)));
                        (box_dst, box_origin)
                    }
                };
                let (first, second) = if self.k_inner[i] { (self.k0, origin) } else { (origin, self.k0) };
                let load = Tma::TensorLoad {
                    dst: Address::reg(dst, 0),
                    map: self.maps[i],
                    coords: [first.into(), second.into(), self.problem.into()],
                    bar: bar_at,
                };
                cx.b.push_if(self.leader, Instr::Tma(load));
            }
        }
    }
}
