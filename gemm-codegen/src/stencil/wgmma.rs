//! The Hopper warpgroup inner product (`math = tf32 | tf32x3` with `mma =
//! (64, n, 8)`, `arch = sm_90a`, on `f32` or `c32`): each warpgroup of four
//! warps computes a `64 × n` block of the C tile with `wgmma.mma_async`,
//! reading A and B from shared memory through matrix descriptors
//! (`ptx/ir/wgmma.rs`).
//!
//! # A stripe's product
//!
//! ```text
//! stripe t (set = t mod 2):
//!   convert: ring slot (f32, as copied)  ⇒  TF32 parts[set], canonical K-major layout
//!   tf32x3:  wgmma.wait_group 0;  cp.async.wait_group  (stripe t − 1's group retired,
//!                                                   this thread's copies of stripe t + 1 landed)
//!   fence.proxy.async;  bar.sync                   (parts visible to wgmma; tf32x3: the other
//!                                                   set free, stripe t + 1 landed everywhere)
//!   tf32x3:  C_regs += tmp                          (stripe t − 1's products)
//!   tf32x3:  wgmma.fence                            (1xTF32: once, after C_regs ⇐ 0: a chain
//!                                                   of wgmmas on the same accumulators needs none)
//!   for each 8-deep step s:  tmp (+)= small_a·big_b, big_a·small_b, big_a·big_b
//!                            (tf32: C_regs += big_a·big_b)
//!   wgmma.commit_group
//!   tf32:  wgmma.wait_group 1                       (stripe t − 1's group retired)
//! epilogue: wgmma.wait_group 0;  tf32x3: C_regs += tmp
//! ```
//!
//! Two sets of parts alternate, so the conversion of stripe `t` overlaps
//! the tensor cores' work on stripe `t − 1`: a set is written again only
//! after the group that read it has retired in every warpgroup. tf32x3
//! waits for it before the parts' barrier, which also lands the ring's next
//! stripe (`ring.rs`: one barrier a stripe); 1xTF32 keeps a group in flight
//! across that barrier and waits for it before the ring's own barrier at the
//! top of the next stripe.
//!
//! `wgmma` reads TF32 operands that are K-major in shared memory (no
//! transposed TF32 form exists), and tf32x3 needs each element's big and
//! small TF32 parts: neither is what the `cp.async` ring copies, so every
//! thread converts its share of the landed stripe into the parts — `big =
//! tf32(x)`, `small = tf32(x − big)`, rounded as the `mma.sync` kernels do
//! (`split_tf32` in `mma.rs`) — written in the non-swizzled canonical
//! layout: core matrices of 8 rows × 4 k (128 bytes), K-adjacent ones 128
//! bytes apart (LBO), 8-row groups `128 · k_blk / 4 + 16` bytes apart (SBO,
//! [`crate::constraints::wgmma_sbo`]; the 16 bytes keep the conversion's
//! stores to one k of consecutive groups in different banks). The
//! conversion transposes too, so every op pair reads the same parts: a
//! K-major ring stripe (`[k][free]`) is converted in blocks of 4 rows × 4 k
//! (four 16-byte loads along the free dimension, four 16-byte stores along
//! K), a K-contiguous one (`[free][k]`, chunks swizzled by `row mod 8`) one
//! 16-byte chunk at a time; lanes run along the free dimension, so each
//! warp's loads and stores meet no bank conflict.
//!
//! # Operands read from the ring
//!
//! A warp-specialized 1xTF32 SGEMM needs neither split nor transposition
//! of an operand whose K leads in global memory, if its stripe is rows of
//! 128 bytes (`k_blk = 32`): the ring's K-contiguous slot, chunks swizzled
//! by `row mod 8` on 1024-byte aligned slots, *is* the K-major layout with
//! the 128-byte swizzle (`ptx/ir/wgmma.rs`), and the tensor cores read the
//! f32 bits as TF32, dropping the 13 low ones (truncation, where the
//! conversion rounds to nearest). Such an operand
//! ([`crate::constraints::wgmma_direct`]) has no parts: its descriptor
//! points at the warpgroup's rows of the stripe's slot, 8-row groups 1024
//! bytes apart, each step 32 bytes further into the rows, and the consumers
//! move it from slot to slot ([`Warpgroup::next_slot`]). `specialized.rs`
//! keeps the slot unwritten until the stripe's group has retired.
//!
//! # A from registers
//!
//! `wgmma` has no MN-major TF32 operand in shared memory: a 1xTF32 A whose
//! M leads in global memory (op N) is either converted into K-major parts
//! or, in a warp-specialized kernel with a ring of 3 stages or more, loaded
//! by the consumers from the ring into registers for `wgmma`'s
//! A-from-registers form — see `wgmma/fragments.rs`.
//!
//! tf32x3's three products of a stripe gather in a second set of
//! accumulators that starts from zero (`scale-d` false at the first
//! `wgmma`), joined to C's by one round-to-nearest `add.f32` each: the
//! tensor cores' own f32 sums truncate (see `mma.rs`). `tf32` accumulates
//! in C's registers directly.
//!
//! The accumulators of warp `q` of a warpgroup are rows `16q + g` and `16q +
//! g + 8`, columns `2t, 2t + 1` of each 8-column block (`WgmmaShape::d_at`):
//! the [`super::CLayout`] of a `wgmma` plan, rows in runs of 1 at step 8,
//! columns in runs of 2 at step 8, so the stencil's epilogue stores them.
//!
//! # Complex (`c32`)
//!
//! `wgmma` multiplies real matrices, so the conversion also splits the
//! ring's interleaved `(re, im)` pairs into two planes per part, real and
//! imaginary, each in the canonical layout above (an operand's parts are
//! `[part][plane]`, one [`wgmma_part_bytes`] each). With `A = a + ib`, `B
//! = c + id` (`σ_A`, `σ_B` = −1 for a conjugated operand), a step is four
//! real products per part pair, into real and imaginary accumulators:
//!
//! ```text
//! re += a·c − σ_A σ_B b·d        im += σ_B a·d + σ_A b·c
//! ```
//!
//! each sign an `imm-scale-a` of −1 on its `wgmma` (so conjugation costs
//! nothing, and the ring copies pairs as they are). A K-major stripe's
//! conversion unit is 2 rows × 4 k (one 16-byte load is two pairs), a
//! K-contiguous one's one row's 4 k (two 16-byte chunks, the second at the
//! first's chunk index XOR 1 — the swizzle's mask leaves that pairing
//! intact).

use crate::constraints::{
    HALF_BOX, Operand, WGMMA_DIRECT_SBO, wgmma_a_regs, wgmma_converted_bytes, wgmma_direct, wgmma_part_bytes,
    wgmma_parts, wgmma_planes, wgmma_sbo,
};
use crate::ptx::{BinOp, Cmp, Instr, Major, Operand as Op, Reg, SmemDesc, Type, WgmmaShape};
use crate::spec::{KernelSpec, Math};

use super::{Beside, Cx, Elem, InnerProduct, NextStripe, SharedBase, Step};

mod convert;
mod fragments;

use convert::{Conversion, Scratch};
use fragments::Fragments;

/// Bytes between core matrices adjacent along K (the descriptors' LBO).
const LBO: u32 = 128;

/// The warpgroup product of one stripe (see the module doc).
pub(crate) struct Warpgroup {
    shape: WgmmaShape,
    x3: bool,
    /// Whether A's and B's elements are conjugated as they multiply (c32).
    conj: (bool, bool),
    acc: Vec<Elem>,
    /// A stripe's tf32x3 products: real parts, then imaginary ones (c32),
    /// in the order of [`Warpgroup::acc_regs`].
    tmp: Vec<Reg>,
    conversions: Vec<Conversion>,
    /// The descriptors of the first step, `[operand][part · planes +
    /// plane]` (part 0 big, 1 small; plane 0 real, 1 imaginary).
    desc: Vec<Vec<Reg>>,
    /// Planes a part has: 1, or 2 for c32.
    planes: usize,
    /// `false` and `true` as predicates, for `scale-d`.
    p_false: Option<Reg>,
    p_true: Option<Reg>,
    /// Bytes from the first set of parts to the second.
    set_bytes: u32,
    /// This stripe's set: 0 or `set_bytes`.
    set: Option<Reg>,
    /// The ring's `wait_group` before the parts' barrier, which then also
    /// lands the next stripe ([`InnerProduct::lands_next_stripe`]).
    lands: Option<u32>,
    /// Registers of a stripe's conversion and of its `wgmma`s, declared by
    /// the first stripe a loop emits and reused by the next (a loop
    /// unrolled over the two sets of parts emits two).
    scratch: Option<Scratch>,
    /// Stripes converted so far in the code (their labels differ).
    converted: u32,
    /// Whether a conversion loads all of the thread's units of an operand
    /// before it splits and stores any (a producer warpgroup, with
    /// registers to spare), or one unit at a time.
    load_ahead: bool,
    steps: Option<StepRegs>,
    /// Per operand (A, B): whether `wgmma` reads it from the ring
    /// ([`wgmma_direct`]), and then the current stripe's slot as a
    /// descriptor offset (bytes / 16, 64 bits).
    direct: [bool; 2],
    ring_slot: [Option<Reg>; 2],
    /// Per operand: how `wgmma` reads it — K-major, or MN-major (a 16-bit
    /// operand whose M or N leads in global memory, [`half_box_fits`]).
    major: [Major; 2],
    /// A's fragments' registers, where the consumers load them from the
    /// ring ([`wgmma_a_regs`]; set up with the product).
    fragments: Option<Fragments>,
}

/// The registers of a stripe's `wgmma`s, declared by the first stripe a
/// loop emits and reused by the next.
struct StepRegs {
    /// The set's byte offset, as descriptor units (`/ 16`), 32 and 64 bits.
    set16: Reg,
    set64: Reg,
    /// `[operand][part · planes + plane]`: the first step's descriptors on
    /// the stripe's set.
    current: Vec<Vec<Reg>>,
    /// `[step][product]`: A's and B's descriptors of each `wgmma` (A's
    /// none where it comes from registers).
    each: Vec<Vec<(Option<Reg>, Reg)>>,
}

impl StepRegs {
    fn declare(cx: &mut Cx<'_>, desc: &[Vec<Reg>], steps: u32, products: usize) -> StepRegs {
        let a_desc = !desc[0].is_empty();
        cx.b.reg_group("step descriptors");
        let set64 = cx.b.reg("parts_set_desc", Type::U64);
        let set16 = cx.b.reg("parts_set_16", Type::U32);
        let current = (desc.iter().zip(["a", "b"]))
            .map(|(descs, x)| {
                (0..descs.len()).map(|i| cx.b.reg(format!("{x}_desc_{i}_set"), Type::U64)).collect()
            })
            .collect();
        let each = (0..steps)
            .map(|s| {
                (0..products)
                    .map(|i| {
                        let a = a_desc.then(|| cx.b.reg(format!("a_desc_s{s}_{i}"), Type::U64));
                        (a, cx.b.reg(format!("b_desc_s{s}_{i}"), Type::U64))
                    })
                    .collect()
            })
            .collect();
        StepRegs { set16, set64, current, each }
    }
}

impl Warpgroup {
    /// The product of `spec`'s `shape` and math, conjugating A's and B's
    /// elements as it multiplies them when asked (`conj`, complex only).
    pub fn new(spec: &KernelSpec, shape: WgmmaShape, conj: (bool, bool)) -> Warpgroup {
        Warpgroup {
            shape,
            x3: spec.math == Math::Tf32x3,
            conj,
            acc: Vec::new(),
            tmp: Vec::new(),
            conversions: Vec::new(),
            desc: Vec::new(),
            planes: 1,
            p_false: None,
            p_true: None,
            set_bytes: 0,
            set: None,
            lands: None,
            scratch: None,
            converted: 0,
            load_ahead: false,
            steps: None,
            direct: [Operand::A, Operand::B].map(|o| wgmma_direct(spec, o)),
            ring_slot: [None; 2],
            major: [Operand::A, Operand::B].map(|o| {
                if spec.precision.is_half() && !crate::constraints::stripe_layout(spec, o).k_contiguous() {
                    Major::Mn
                } else {
                    Major::K
                }
            }),
            fragments: None,
        }
    }

    /// The accumulator registers in `wgmma`'s order for D (`d_i` at row
    /// half `(i / 2) mod 2`, column `i mod 2 + 8 (i / 4)`), from the
    /// [`super::CLayout`] order `[half · n_thr + j]`, `j = i mod 2 + 2 (i / 4)`.
    fn d_order(&self, regs: &[Reg]) -> Vec<Reg> {
        let n_thr = self.shape.n / 4;
        (0..self.shape.d_per_thread())
            .map(|i| regs[((i / 2) % 2 * n_thr + i % 2 + 2 * (i / 4)) as usize])
            .collect()
    }

    /// The accumulators' scalar registers: every real part, then every
    /// imaginary one (c32).
    fn acc_regs(&self) -> Vec<Reg> {
        let re = self.acc.iter().map(|e| e.re);
        re.chain(self.acc.iter().filter_map(|e| e.im)).collect()
    }

    /// `C_regs += tmp`, rounded to nearest (the caller has retired the
    /// group that wrote `tmp`).
    fn join(&self, cx: &mut Cx<'_>, acc: &[Reg], what: &str) {
        cx.b.comment(format!("C_regs += {what}, retired (zero before the first stripe)"));
        for (&c, &p) in acc.iter().zip(&self.tmp) {
            cx.b.push(Instr::add(c, c, p));
        }
    }

    /// Byte offset of `operand`'s TF32 parts in the shared array: past both
    /// rings, A's parts first (none where A is read from the ring).
    fn parts_at(cx: &Cx<'_>, operand: Operand) -> u32 {
        let spec = cx.plan.spec();
        let a_parts = cx.plan.smem_a_bytes() + cx.plan.smem_b_bytes();
        match operand {
            Operand::A => a_parts,
            Operand::B => {
                let planes = wgmma_parts(spec) * wgmma_planes(spec);
                a_parts + planes * wgmma_converted_bytes(spec, Operand::A) as u32
            }
        }
    }

    /// `operand`'s ring, and the shared address of its parts in a new
    /// register `{operand}_parts{suffix}`.
    fn parts_base(cx: &mut Cx<'_>, operand: Operand, suffix: &str) -> (SharedBase, Reg) {
        let ring = match operand {
            Operand::A => cx.smem_a,
            Operand::B => cx.smem_b,
        };
        let base_at = SharedBase { array: ring.array, offset: Self::parts_at(cx, operand) };
        let base = cx.b.reg(format!("{}_parts{suffix}", operand.lower()), Type::U32);
        cx.shared_address(base, base_at);
        (ring, base)
    }

    /// Declares one operand's parts' descriptors for this thread's
    /// warpgroup, whose rows start `wg_row` 8-row groups in.
    fn setup_descriptors(&mut self, cx: &mut Cx<'_>, operand: Operand, wg_row: Reg) {
        let spec = *cx.plan.spec();
        let name = operand.lower();
        if self.direct[operand as usize] {
            return self.setup_direct(cx, operand, wg_row);
        }
        let sbo = wgmma_sbo(&spec) as u32;
        let part = wgmma_part_bytes(&spec, operand) as u32;
        let (parts, planes) = (wgmma_parts(&spec), wgmma_planes(&spec));
        let parts_at = Self::parts_at(cx, operand);
        cx.b.comment(format!(
            "{name}: TF32 parts at byte {parts_at} of the array{}, 8-row groups {sbo} bytes apart; \
             descriptors of this warpgroup's rows",
            if planes > 1 {
                format!(", each a real and an imaginary plane of {part} bytes")
            } else {
                String::new()
            }
        ));
        let (_, base) = Self::parts_base(cx, operand, "");
        let mut descs = Vec::new();
        let addr = cx.b.reg(format!("{name}_desc_addr"), Type::U32);
        let wide = cx.b.reg(format!("{name}_desc_addr64"), Type::U64);
        for p in 0..parts {
            for q in 0..planes {
                let plane = if planes > 1 { ["_re", "_im"][q as usize] } else { "" };
                let desc =
                    cx.b.reg(format!("{name}_desc_{}{plane}", ["big", "small"][p as usize]), Type::U64);
                cx.b.push(Instr::mad(addr, wg_row, Op::imm(sbo), base));
                if p * planes + q > 0 {
                    cx.b.push(Instr::add(addr, addr, Op::imm((p * planes + q) * part)));
                }
                cx.b.push(Instr::binary(BinOp::Shr, addr, addr, Op::imm(4)));
                cx.b.push(Instr::cvt(wide, addr));
                let template = SmemDesc::k_major(0, LBO, sbo).encode();
                cx.b.push(Instr::binary(BinOp::Or, desc, wide, Op::imm(template as i64)));
                descs.push(desc);
            }
        }
        self.desc.push(descs);
    }

    /// Declares the descriptor of an operand read from the ring's first
    /// slot, for this thread's warpgroup, whose rows start `wg_row` 8-row
    /// groups in, and the register of the current stripe's slot.
    ///
    /// K-major: K-contiguous rows of 128 bytes, 8-row groups
    /// [`WGMMA_DIRECT_SBO`] apart. MN-major (a 16-bit operand): boxes of 64
    /// elements along M or N (128 bytes) by `k_blk` rows, each `k_blk · 128`
    /// bytes (the descriptor's LBO), 8-deep K groups 1024 bytes apart in
    /// each (its SBO); the warpgroup's first row, `8 · wg_row`, starts box
    /// `wg_row / 8`. Both with the 128-byte swizzle.
    fn setup_direct(&mut self, cx: &mut Cx<'_>, operand: Operand, wg_row: Reg) {
        let name = operand.lower();
        let ring = match operand {
            Operand::A => cx.smem_a,
            Operand::B => cx.smem_b,
        };
        let addr = cx.b.reg(format!("{name}_desc_addr"), Type::U32);
        let template = match self.major[operand as usize] {
            Major::K => {
                cx.b.comment(format!(
                    "{name}: read from the ring's slot as copied (K-contiguous rows of 128 bytes, chunks \
                     swizzled by row mod 8: the 128-byte swizzle), 8-row groups {WGMMA_DIRECT_SBO} bytes apart; \
                     the descriptor of this warpgroup's rows in slot 0"
                ));
                cx.shared_address(addr, ring);
                cx.b.push(Instr::mad(addr, wg_row, Op::imm(WGMMA_DIRECT_SBO), addr));
                SmemDesc::k_major_sw128(0, WGMMA_DIRECT_SBO)
            }
            Major::Mn => {
                let box_bytes = cx.plan.spec().k_blk * 128;
                cx.b.comment(format!(
                    "{name}: read MN-major from the ring's slot as copied (boxes of {HALF_BOX} elements by k_blk \
                     rows, {box_bytes} bytes each, rows swizzled by the 128-byte swizzle), 8-deep K groups \
                     {WGMMA_DIRECT_SBO} bytes apart; the descriptor of this warpgroup's box in slot 0"
                ));
                let boxes = cx.b.reg(format!("{name}_desc_boxes"), Type::U32);
                cx.shared_address(addr, ring);
                cx.b.push(Instr::binary(BinOp::Shr, boxes, wg_row, Op::imm(3)));
                cx.b.push(Instr::mad(addr, boxes, Op::imm(box_bytes), addr));
                SmemDesc::mn_major_sw128(0, box_bytes, WGMMA_DIRECT_SBO)
            }
        };
        let wide = cx.b.reg(format!("{name}_desc_addr64"), Type::U64);
        let desc = cx.b.reg(format!("{name}_desc_ring"), Type::U64);
        cx.b.push(Instr::binary(BinOp::Shr, addr, addr, Op::imm(4)));
        cx.b.push(Instr::cvt(wide, addr));
        cx.b.push(Instr::binary(BinOp::Or, desc, wide, Op::imm(template.encode() as i64)));
        self.desc.push(vec![desc]);
        self.ring_slot[operand as usize] = Some(cx.b.reg(format!("{name}_slot_desc"), Type::U64));
    }

    /// Moves the operands read from the ring on to the next slot (after
    /// the last, the first).
    pub fn next_slot(&self, cx: &mut Cx<'_>, scratch: Reg) {
        let spec = *cx.plan.spec();
        let stage =
            |operand| crate::constraints::proven_u32(crate::constraints::smem_stage_bytes(&spec, operand));
        for (operand, slot) in [Operand::A, Operand::B].into_iter().zip(self.ring_slot) {
            let Some(slot) = slot else { continue };
            super::ring::step_slot(cx, slot, stage(operand) / 16, spec.stages, scratch);
        }
        if let Some(f) = &self.fragments {
            super::ring::step_slot(cx, f.slot, stage(Operand::A), spec.stages, scratch);
        }
    }

    /// Whether an operand is read from the ring (not converted).
    pub fn reads_ring(&self) -> bool {
        self.direct.contains(&true)
    }
}

impl Warpgroup {
    /// Declares what issuing the `wgmma`s takes: the accumulators (and
    /// tf32x3's products), the warpgroup's descriptors, the set of parts.
    pub fn setup_product(&mut self, cx: &mut Cx<'_>) {
        let spec = *cx.plan.spec();
        let warps = spec.warps.expect("a wgmma plan has its warps");
        let (m_thr, n_thr) = (cx.plan.m_thr(), cx.plan.n_thr());
        cx.b.reg_group(format!("accumulators: {m_thr} x {n_thr} per thread"));
        for i in 0..m_thr {
            for j in 0..n_thr {
                let e = cx.elem(&format!("c_{i}_{j}"));
                self.acc.push(e);
            }
        }
        self.planes = wgmma_planes(&spec) as usize;
        if self.x3 {
            cx.b.reg_group("a stripe's tf32x3 products, joined to the accumulators per stripe");
            let suffix: &[&str] = if self.planes > 1 { &["_re", "_im"] } else { &[""] };
            self.tmp = suffix
                .iter()
                .flat_map(|q| (0..m_thr * n_thr).map(move |i| format!("prod_{i}{q}")))
                .map(|name| cx.b.reg(name, Type::F32))
                .collect();
        }
        cx.b.reg_group("warpgroup and descriptors");
        let p_false = cx.b.reg("p_false", Type::Pred);
        let p_true = cx.b.reg("p_true", Type::Pred);
        cx.b.push(Instr::setp(Cmp::Ne, Type::U32, p_false, cx.thread, cx.thread));
        cx.b.push(Instr::setp(Cmp::Eq, Type::U32, p_true, cx.thread, cx.thread));
        (self.p_false, self.p_true) = (Some(p_false), Some(p_true));
        cx.b.comment(format!(
            "warpgroup (warp_m / 4, warp_n): its A rows start at 64 (warp_m / 4), its B columns at {} warp_n",
            self.shape.n
        ));
        let (warp, lane) = cx.divmod(cx.thread, 32, "wg_warp", "wg_lane");
        let (warp_n, warp_m) = cx.divmod(warp, warps.m, "wg_warp_n", "wg_warp_m");
        // 8-row groups before the warpgroup's rows: 8 (warp_m / 4) for A, n / 8 warp_n for B.
        let a_row = cx.b.reg("wg_a_groups", Type::U32);
        cx.b.push(Instr::binary(BinOp::Shr, a_row, warp_m, Op::imm(2)));
        cx.b.push(Instr::mul(a_row, a_row, Op::imm(WgmmaShape::M / 8)));
        let b_row = cx.b.reg("wg_b_groups", Type::U32);
        cx.b.push(Instr::mul(b_row, warp_n, Op::imm(self.shape.n / 8)));
        if wgmma_a_regs(&spec) {
            self.fragments = Some(Fragments::setup(cx, warp_m, lane));
            self.desc.push(Vec::new());
        } else {
            self.setup_descriptors(cx, Operand::A, a_row);
        }
        self.setup_descriptors(cx, Operand::B, b_row);
    }

    /// Points the set register at the first set of parts (declaring it the
    /// first time), and the operands read from the ring at its first slot.
    pub fn first_set(&mut self, cx: &mut Cx<'_>) {
        if self.converts() {
            self.set_bytes = (crate::constraints::wgmma_bytes(cx.plan.spec()) / 2) as u32;
            let set = *self.set.get_or_insert_with(|| cx.b.reg("parts_set", Type::U32));
            cx.b.comment(format!(
                "stripe t converts into set t mod 2 of the parts, {} bytes apart",
                self.set_bytes
            ));
            cx.b.push(Instr::mov(set, Op::imm(0)));
        }
        let fragments = self.fragments.as_ref().map(|f| f.slot);
        for slot in self.ring_slot.into_iter().flatten().chain(fragments) {
            cx.b.push(Instr::mov(slot, Op::imm(0)));
        }
    }

    /// Whether an operand is converted (not read from the ring).
    pub fn converts(&self) -> bool {
        self.direct.contains(&false)
    }
}

impl Warpgroup {
    /// `C_regs += tmp` (tf32x3; nothing for 1xTF32), once the group that
    /// wrote `tmp` has retired.
    pub fn join_products(&self, cx: &mut Cx<'_>, what: &str) {
        if self.x3 {
            self.join(cx, &self.acc_regs(), what);
        }
    }

    /// After a stripe's `wgmma`s, in a warp-specialized kernel: waits until
    /// the groups of the stripe before have retired (tf32x3: this
    /// stripe's too). Where A's fragments come from registers the stripe's
    /// own waits have already retired them (each leaves one group, its
    /// step's or its stripe's, in flight).
    pub fn retire_previous(&self, cx: &mut Cx<'_>) {
        if self.fragments.is_some() {
            cx.b.comment("the previous stripe's groups retired at this stripe's waits");
        } else {
            cx.b.push(Instr::wgmma_wait(if self.x3 { 0 } else { 1 }));
        }
    }

    /// Moves on to the other set of parts (if any operand is converted).
    pub fn next_set(&self, cx: &mut Cx<'_>) {
        if let Some(set) = self.set {
            cx.b.push(Instr::binary(BinOp::Xor, set, set, Op::imm(self.set_bytes)));
        }
    }

    /// Issues the `wgmma`s of one stripe on the current set of parts, as one
    /// committed group (tf32x3: into the products, zeroed by its first
    /// `wgmma`; else into the accumulators), calling `beside` at each step.
    pub fn issue_stripe(&mut self, cx: &mut Cx<'_>, beside: Beside<'_>) {
        let spec = *cx.plan.spec();
        let acc = self.acc_regs();
        let steps = spec.k_blk / self.shape.k();
        // D of the real accumulators (or products), then of the imaginary.
        let d: Vec<Vec<Reg>> = if self.x3 { &self.tmp } else { &acc }
            .chunks(self.acc.len())
            .map(|regs| self.d_order(regs))
            .collect();
        // (A's part, B's part) of each product: small terms first, then big·big.
        let parts: &[(usize, usize)] = if self.x3 { &[(1, 0), (0, 1), (0, 0)] } else { &[(0, 0)] };
        let terms = self.terms();
        let reads = match (self.fragments.is_some(), self.direct) {
            (true, [_, true]) => "A's fragments loaded from this stripe's ring slot, B in the slot",
            (true, [_, false]) => "A's fragments loaded from this stripe's ring slot, B's parts",
            (false, [false, false]) => "this stripe's set of parts",
            (false, [true, true]) => "this stripe's ring slot",
            (false, [true, false]) => "A in this stripe's ring slot, B's parts",
            (false, [false, true]) => "A's parts, B in this stripe's ring slot",
        };
        cx.b.comment(format!(
            "{} wgmma {} per {}-deep step{}, {steps} steps, on {reads}{}",
            parts.len() * terms.len(),
            self.shape.name(),
            self.shape.k(),
            if terms.len() > 1 {
                " (4 real products per complex one, imm-scale-a -1 where negated)"
            } else {
                ""
            },
            if self.x3 { ", into the stripe's products (zero first)" } else { ", into the accumulators" }
        ));
        let (desc, converts, direct, ring_slot) = (&self.desc, self.converts(), self.direct, self.ring_slot);
        let regs =
            self.steps.get_or_insert_with(|| StepRegs::declare(cx, desc, steps, parts.len() * terms.len()));
        if converts {
            let set = self.set.expect("set up");
            cx.b.push(Instr::binary(BinOp::Shr, regs.set16, set, Op::imm(4)));
            cx.b.push(Instr::cvt(regs.set64, regs.set16));
        }
        for ((descs, current), slot) in desc.iter().zip(&regs.current).zip(ring_slot) {
            for (&desc, &cur) in descs.iter().zip(current) {
                cx.b.push(Instr::add(cur, desc, slot.unwrap_or(regs.set64)));
            }
        }
        if let Some(f) = &self.fragments {
            cx.b.push(Instr::add(f.stripe, f.at, f.slot));
        }
        // A step starts 2 core matrices further along K (2·LBO bytes), 32
        // bytes further into the rows of a swizzled ring slot, or two 8-deep
        // K groups (2 SBO) further into an MN-major one.
        let major = self.major;
        let step_units = |operand: usize, s: u32| {
            i64::from(match (direct[operand], major[operand]) {
                (true, Major::K) => s * WgmmaShape::K_BYTES / 16,
                (true, Major::Mn) => s * 2 * WGMMA_DIRECT_SBO / 16,
                (false, _) => s * 2 * LBO / 16,
            })
        };
        if self.x3 {
            // The join read the products this stripe's wgmmas write again.
            cx.b.push(Instr::wgmma_fence());
        }
        let (p_false, p_true) = (self.p_false.expect("set up"), self.p_true.expect("set up"));
        let planes = self.planes;
        // Which of `d` a wgmma of this stripe has written (tf32x3 zeroes each
        // at its first).
        let mut zeroed = vec![false; d.len()];
        if let Some(f) = &mut self.fragments {
            f.begin_stripe(cx, self.shape, steps);
        }
        for s in 0..steps {
            for (i, (&(pa, pb), term)) in
                parts.iter().flat_map(|p| terms.iter().map(move |t| (p, t))).enumerate()
            {
                let (da, db) = regs.each[s as usize][i];
                cx.b.push(Instr::add(db, regs.current[1][pb * planes + term.b], Op::imm(step_units(1, s))));
                let first = self.x3 && !std::mem::replace(&mut zeroed[term.d], true);
                let scale = if first { p_false } else { p_true };
                let negate = (term.negate, false);
                match (da, &mut self.fragments) {
                    (Some(da), _) => {
                        let a = regs.current[0][pa * planes + term.a];
                        cx.b.push(Instr::add(da, a, Op::imm(step_units(0, s))));
                        let major = (major[0], major[1]);
                        cx.b.push(Instr::wgmma(self.shape, &d[term.d], (da, db), scale, negate, major));
                    }
                    (None, Some(f)) => {
                        let wgmma = |a| Instr::wgmma_rs(self.shape, &d[term.d], (a, db), scale, negate);
                        f.issue(cx, self.shape, (s, steps), wgmma);
                    }
                    (None, None) => unreachable!("A without descriptors comes from registers"),
                }
            }
            beside(cx, Step { index: s, of: steps });
        }
        if self.fragments.is_none() {
            cx.b.push(Instr::wgmma_commit());
        }
        if let Some(f) = &self.fragments {
            f.end_stripe(cx);
        }
    }
}

/// One real product of a step: A's plane, B's plane (0 real, 1
/// imaginary), the accumulators it adds to (0 real, 1 imaginary), and
/// whether it is subtracted (`imm-scale-a = -1`).
#[derive(Clone, Copy, Debug)]
struct Term {
    a: usize,
    b: usize,
    d: usize,
    negate: bool,
}

impl Warpgroup {
    /// The real products of a step (see the module doc's "Complex"): one
    /// for f32; for c32 `re += a·c`, `im += σ_B a·d`, `re −= σ_A σ_B b·d`,
    /// `im += σ_A b·c`, alternating between the accumulators.
    fn terms(&self) -> Vec<Term> {
        if self.planes == 1 {
            return vec![Term { a: 0, b: 0, d: 0, negate: false }];
        }
        let (conj_a, conj_b) = self.conj;
        vec![
            Term { a: 0, b: 0, d: 0, negate: false },
            Term { a: 0, b: 1, d: 1, negate: conj_b },
            Term { a: 1, b: 1, d: 0, negate: conj_a == conj_b },
            Term { a: 1, b: 0, d: 1, negate: conj_a },
        ]
    }
}

impl InnerProduct for Warpgroup {
    fn setup(&mut self, cx: &mut Cx<'_>) {
        self.setup_product(cx);
        let all = (cx.thread, cx.plan.threads());
        self.setup_conversion(cx, all, false);
        self.first_set(cx);
    }

    fn zero(&mut self, cx: &mut Cx<'_>) {
        for e in self.acc.clone() {
            cx.zero(e);
        }
        // The first stripe (and an epilogue without stripes) adds these.
        for &p in &self.tmp {
            cx.b.push(Instr::mov(p, Op::float_zero(Type::F32)));
        }
        if !self.x3 {
            cx.b.comment(
                "C_regs written: fenced once for the wgmmas; a chain of wgmmas of one shape on them needs \
                 no fence between stripes (one there would wait for the group in flight)",
            );
            cx.b.push(Instr::wgmma_fence());
        }
    }

    fn accumulate(&mut self, cx: &mut Cx<'_>, stage: Option<(Reg, Reg)>, beside: Beside<'_>) {
        let stage = stage.expect("a wgmma kernel reads its stripes from a cp.async ring");
        self.convert_stripe(cx, stage);
        if let Some(pending) = self.lands {
            cx.b.comment(
                "before the barrier: the previous stripe's group retired (its set of parts is written \
                 next, once every warp has passed the barrier), and stripe kt + 1's copies of this \
                 thread landed (the barrier lands everyone's)",
            );
            cx.b.push(Instr::wgmma_wait(0));
            cx.b.push(Instr::cp_async_wait(pending));
        }
        cx.b.comment(
            "the parts, written by this thread, visible to wgmma (the async proxy) and to every warp",
        );
        cx.b.push(Instr::fence_proxy_async());
        cx.b.push(Instr::bar_sync(0));
        if self.x3 {
            if self.lands.is_none() {
                cx.b.push(Instr::wgmma_wait(0));
            }
            self.join_products(cx, "the previous stripe's products");
        }
        self.issue_stripe(cx, beside);
        if !self.x3 {
            cx.b.comment("the previous stripe's group retired: its set of parts may be written again");
            cx.b.push(Instr::wgmma_wait(1));
        }
        self.next_set(cx);
    }

    fn crosses_stripes(&self) -> bool {
        false
    }

    fn prime(&mut self, _: &mut Cx<'_>, _: (Reg, Reg)) {
        unreachable!("the ring hands off only to a product that crosses stripes")
    }

    fn accumulate_handing_off(
        &mut self,
        _: &mut Cx<'_>,
        _: &mut dyn FnMut(&mut Cx<'_>) -> NextStripe,
        _: Beside<'_>,
    ) {
        unreachable!("the ring hands off only to a product that crosses stripes")
    }

    /// tf32x3 waits for the previous stripe's group at its barrier anyway
    /// (its products join C's before the next are issued), so that barrier
    /// can also free the other set of parts and land the next stripe. 1xTF32
    /// keeps one group in flight across the barrier, and the ring's own
    /// barrier then frees the set.
    fn lands_next_stripe(&mut self, pending: u32) -> bool {
        self.lands = self.x3.then_some(pending);
        self.x3
    }

    fn accumulators(&self) -> &[Elem] {
        &self.acc
    }

    fn finish(&mut self, cx: &mut Cx<'_>) {
        cx.b.comment("the last stripe's group retired");
        cx.b.push(Instr::wgmma_wait(0));
        self.join_products(cx, "the last stripe's products");
    }
}
