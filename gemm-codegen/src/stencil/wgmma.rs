//! The Hopper warpgroup inner product (`math = tf32 | tf32x3` with `mma =
//! (64, n, 8)`, `arch = sm_90a`): each warpgroup of four warps computes a
//! `64 × n` block of the C tile with `wgmma.mma_async`, reading A and B
//! from shared memory through matrix descriptors (`ptx/ir/wgmma.rs`).
//!
//! # A stripe's product
//!
//! ```text
//! stripe t (set = t mod 2):
//!   convert: ring slot (f32, as copied)  ⇒  TF32 parts[set], canonical K-major layout
//!   fence.proxy.async;  bar.sync                   (parts visible to wgmma)
//!   tf32x3:  wgmma.wait_group 0;  C_regs += tmp     (stripe t − 1's products)
//!   wgmma.fence
//!   for each 8-deep step s:  tmp (+)= small_a·big_b, big_a·small_b, big_a·big_b
//!                            (tf32: C_regs += big_a·big_b)
//!   wgmma.commit_group
//!   tf32:  wgmma.wait_group 1                       (stripe t − 1's group retired)
//! epilogue: wgmma.wait_group 0;  tf32x3: C_regs += tmp
//! ```
//!
//! Two sets of parts alternate, so the conversion of stripe `t` overlaps
//! the tensor cores' work on stripe `t − 1`: a set is written again only
//! after the group that read it has retired in every warpgroup (each warp
//! waits for it before the ring's barrier at the top of the next stripe).
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

use crate::constraints::{Operand, wgmma_part_bytes, wgmma_sbo};
use crate::ptx::{Address, BinOp, Cmp, Instr, Operand as Op, Reg, SmemDesc, Space, Type, WgmmaShape};
use crate::spec::Math;

use super::mma::split_tf32;
use super::{Beside, Cx, Elem, InnerProduct, NextStripe, SharedBase, Step};

/// Bytes between core matrices adjacent along K (the descriptors' LBO).
const LBO: u32 = 128;

/// One operand's conversion from its ring slot to its TF32 parts.
struct Conversion {
    operand: Operand,
    /// Whether the ring's stripe is `[k][free]` (else `[free][k]`).
    k_major: bool,
    /// Bytes between rows of the ring's stripe.
    row_bytes: u32,
    /// Where the ring's first slot lies.
    ring: SharedBase,
    /// Per unit of the thread: its offset in a slot, the shared address of
    /// its place in the big part, and its guard where units run out.
    units: Vec<(Reg, Reg, Option<Reg>)>,
    /// Bytes from the big part to the small one (tf32x3).
    small_offset: Option<u32>,
}

/// The warpgroup product of one stripe (see the module doc).
pub(crate) struct Warpgroup {
    shape: WgmmaShape,
    x3: bool,
    acc: Vec<Elem>,
    tmp: Vec<Reg>,
    conversions: Vec<Conversion>,
    /// The descriptors of the first step, `[operand][part]` (part 0 big,
    /// 1 small).
    desc: Vec<Vec<Reg>>,
    /// `false` and `true` as predicates, for `scale-d`.
    p_false: Option<Reg>,
    p_true: Option<Reg>,
    /// Bytes from the first set of parts to the second.
    set_bytes: u32,
    /// This stripe's set: 0 or `set_bytes`.
    set: Option<Reg>,
}

impl Warpgroup {
    pub fn new(shape: WgmmaShape, math: Math) -> Warpgroup {
        Warpgroup {
            shape,
            x3: math == Math::Tf32x3,
            acc: Vec::new(),
            tmp: Vec::new(),
            conversions: Vec::new(),
            desc: Vec::new(),
            p_false: None,
            p_true: None,
            set_bytes: 0,
            set: None,
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

    /// `wgmma.wait_group 0`, then `C_regs += tmp`, rounded to nearest.
    fn join(&self, cx: &mut Cx<'_>, acc: &[Reg], what: &str) {
        cx.b.comment(format!("C_regs += {what}, once retired (zero before the first stripe)"));
        cx.b.push(Instr::wgmma_wait(0));
        for (&c, &p) in acc.iter().zip(&self.tmp) {
            cx.b.push(Instr::add(c, c, p));
        }
    }

    /// Declares one operand's conversion: its units' offsets, places and
    /// guards, and its parts' descriptors for this thread's warpgroup.
    fn setup_operand(&mut self, cx: &mut Cx<'_>, operand: Operand, parts_at: u32, wg_row: Reg) {
        let plan = cx.plan;
        let spec = *plan.spec();
        let name = operand.lower();
        let rows = crate::constraints::free_blk(&spec, operand);
        let sbo = wgmma_sbo(&spec) as u32;
        let part = wgmma_part_bytes(&spec, operand) as u32;
        let k_major = !plan.layout(operand).k_contiguous();
        let row_bytes = plan.stride(operand) * 4;
        let ring = match operand {
            Operand::A => cx.smem_a,
            Operand::B => cx.smem_b,
        };
        let parts = SharedBase { array: ring.array, offset: parts_at };

        cx.b.comment(format!(
            "{name}: TF32 parts at byte {parts_at} of the array, 8-row groups {sbo} bytes apart; \
             descriptors of this warpgroup's rows"
        ));
        let base = cx.b.reg(format!("{name}_parts"), Type::U32);
        cx.shared_address(base, parts);
        let mut descs = Vec::new();
        let addr = cx.b.reg(format!("{name}_desc_addr"), Type::U32);
        let wide = cx.b.reg(format!("{name}_desc_addr64"), Type::U64);
        for p in 0..if self.x3 { 2 } else { 1 } {
            let desc = cx.b.reg(format!("{name}_desc_{}", ["big", "small"][p]), Type::U64);
            cx.b.push(Instr::mad(addr, wg_row, Op::imm(sbo), base));
            if p > 0 {
                cx.b.push(Instr::add(addr, addr, Op::imm(p as u32 * part)));
            }
            cx.b.push(Instr::binary(BinOp::Shr, addr, addr, Op::imm(4)));
            cx.b.push(Instr::cvt(wide, addr));
            let template = SmemDesc::k_major(0, LBO, sbo).encode();
            cx.b.push(Instr::binary(BinOp::Or, desc, wide, Op::imm(template as i64)));
            descs.push(desc);
        }
        self.desc.push(descs);

        // Units: 4 rows × 4 k of a K-major stripe, or one 4-k chunk of a row
        // of a K-contiguous one; lanes along the rows.
        let (row_units, units) =
            if k_major { (rows / 4, rows / 4 * (spec.k_blk / 4)) } else { (rows, rows * (spec.k_blk / 4)) };
        let threads = cx.plan.threads();
        cx.b.comment(format!(
            "{name}: {units} conversion units of {}, unit u = thread + {threads} i at row {}(u mod {row_units}), \
             k chunk u div {row_units}",
            if k_major { "4 rows x 4 k" } else { "one row's 4 k" },
            if k_major { "4 " } else { "" },
        ));
        let mut list = Vec::new();
        for i in 0..units.div_ceil(threads) {
            let tag = format!("{name}_u{i}");
            let u = cx.b.reg(format!("{tag}_index"), Type::U32);
            cx.b.push(Instr::add(u, cx.thread, Op::imm(i * threads)));
            let guard = ((i + 1) * threads > units).then(|| {
                let p = cx.b.reg(format!("p_{tag}"), Type::Pred);
                cx.b.push(Instr::setp(Cmp::Lt, Type::U32, p, u, Op::imm(units)));
                p
            });
            let (kq, r) = cx.divmod(u, row_units, &format!("{tag}_kq"), &format!("{tag}_r"));
            let row = if k_major {
                let row = cx.b.reg(format!("{tag}_row"), Type::U32);
                cx.b.push(Instr::mul(row, r, Op::imm(4)));
                row
            } else {
                r
            };
            let off = cx.b.reg(format!("{tag}_off"), Type::U32);
            let place = cx.b.reg(format!("{tag}_place"), Type::U32);
            let scratch = cx.b.reg(format!("{tag}_scratch"), Type::U32);
            if k_major {
                // Ring: [k][free], row 4kq at byte 4·row.
                cx.b.push(Instr::mul(off, kq, Op::imm(4 * row_bytes)));
                cx.b.push(Instr::mad(off, row, Op::imm(4), off));
            } else {
                // Ring: [free][k], chunk kq of row `row` at chunk kq ^ (row mod 8).
                cx.b.push(Instr::binary(BinOp::And, scratch, row, Op::imm(7)));
                cx.b.push(Instr::binary(BinOp::Xor, scratch, scratch, kq));
                cx.b.push(Instr::mul(off, row, Op::imm(row_bytes)));
                cx.b.push(Instr::mad(off, scratch, Op::imm(16), off));
            }
            // Parts: (row / 8)·SBO + kq·128 + (row mod 8)·16.
            cx.b.push(Instr::binary(BinOp::Shr, scratch, row, Op::imm(3)));
            cx.b.push(Instr::mad(place, scratch, Op::imm(sbo), base));
            cx.b.push(Instr::mad(place, kq, Op::imm(LBO), place));
            cx.b.push(Instr::binary(BinOp::And, scratch, row, Op::imm(7)));
            cx.b.push(Instr::mad(place, scratch, Op::imm(16), place));
            list.push((off, place, guard));
        }
        self.conversions.push(Conversion {
            operand,
            k_major,
            row_bytes,
            ring,
            units: list,
            small_offset: self.x3.then_some(part),
        });
    }

    /// Converts one operand's landed stripe, `stage` bytes past the ring's
    /// first slot, into its TF32 parts.
    fn convert(&self, cx: &mut Cx<'_>, conv: &Conversion, (stage, set): (Reg, Reg), scratch: &Scratch) {
        cx.b.comment(format!("{}: the landed stripe -> its TF32 parts", conv.operand.lower()));
        cx.shared_address(scratch.slot, conv.ring);
        cx.b.push(Instr::add(scratch.slot, scratch.slot, stage));
        for (i, &(off, place, guard)) in conv.units.iter().enumerate() {
            // A thread past the last unit branches over it: a guard on the
            // loads and stores alone would leave the split reading registers
            // nothing wrote (the emulator refuses that).
            let skip = guard.map(|p| {
                let skip = cx.b.label(&format!("{}_no_unit_{i}", conv.operand.lower()));
                cx.b.push_unless(p, Instr::bra(skip));
                skip
            });
            cx.b.push(Instr::add(scratch.addr, scratch.slot, off));
            cx.b.push(Instr::add(scratch.place, place, set));
            // Rows of 4 k values each: `x[4 j + c]` is row c, k j of a K-major
            // block, loaded along the rows; a K-contiguous chunk is one row.
            let blocks: Vec<[Reg; 4]> = if conv.k_major {
                for j in 0..4 {
                    let at = Address::reg(scratch.addr, (j * conv.row_bytes) as i64);
                    cx.b.push(Instr::ld(
                        Space::Shared,
                        crate::ptx::CacheQual::None,
                        &scratch.x[4 * j as usize..][..4],
                        at,
                    ));
                }
                (0..4).map(|c| [0, 1, 2, 3].map(|j| scratch.x[4 * j + c])).collect()
            } else {
                cx.b.push(Instr::ld(
                    Space::Shared,
                    crate::ptx::CacheQual::None,
                    &scratch.x[..4],
                    Address::reg(scratch.addr, 0),
                ));
                vec![[0, 1, 2, 3].map(|j| scratch.x[j])]
            };
            for (c, row) in blocks.iter().enumerate() {
                for (j, &x) in row.iter().enumerate() {
                    let small = conv.small_offset.map(|_| (scratch.small[j], scratch.rest));
                    split_tf32(cx, x, scratch.half, scratch.big[j], small);
                }
                let at = |extra: u32| Address::reg(scratch.place, (16 * c as u32 + extra) as i64);
                cx.b.push(Instr::st(Space::Shared, at(0), &scratch.big));
                if let Some(small) = conv.small_offset {
                    cx.b.push(Instr::st(Space::Shared, at(small), &scratch.small));
                }
            }
            if let Some(skip) = skip {
                cx.b.place(skip);
            }
        }
    }
}

/// The conversion's registers.
struct Scratch {
    slot: Reg,
    addr: Reg,
    place: Reg,
    x: Vec<Reg>,
    big: [Reg; 4],
    small: [Reg; 4],
    half: Reg,
    rest: Reg,
}

impl Scratch {
    fn declare(cx: &mut Cx<'_>) -> Scratch {
        cx.b.reg_group("TF32 conversion scratch");
        let mut reg = |name: String, ty| cx.b.reg(name, ty);
        Scratch {
            slot: reg("cv_slot".into(), Type::U32),
            addr: reg("cv_addr".into(), Type::U32),
            place: reg("cv_place".into(), Type::U32),
            x: (0..16).map(|i| reg(format!("cv_x{i}"), Type::F32)).collect(),
            big: [0, 1, 2, 3].map(|i| reg(format!("cv_big{i}"), Type::B32)),
            small: [0, 1, 2, 3].map(|i| reg(format!("cv_small{i}"), Type::B32)),
            half: reg("cv_half".into(), Type::B32),
            rest: reg("cv_rest".into(), Type::B32),
        }
    }
}

impl InnerProduct for Warpgroup {
    fn setup(&mut self, cx: &mut Cx<'_>) {
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
        if self.x3 {
            cx.b.reg_group("a stripe's tf32x3 products, joined to the accumulators per stripe");
            self.tmp = (0..m_thr * n_thr).map(|i| cx.b.reg(format!("prod_{i}"), Type::F32)).collect();
        }
        cx.b.reg_group("warpgroup, descriptors and conversion units");
        let p_false = cx.b.reg("p_false", Type::Pred);
        let p_true = cx.b.reg("p_true", Type::Pred);
        cx.b.push(Instr::setp(Cmp::Ne, Type::U32, p_false, cx.thread, cx.thread));
        cx.b.push(Instr::setp(Cmp::Eq, Type::U32, p_true, cx.thread, cx.thread));
        (self.p_false, self.p_true) = (Some(p_false), Some(p_true));
        cx.b.comment(format!(
            "warpgroup (warp_m / 4, warp_n): its A rows start at 64 (warp_m / 4), its B columns at {} warp_n",
            self.shape.n
        ));
        let (warp, _) = cx.divmod(cx.thread, 32, "wg_warp", "wg_lane");
        let (warp_n, warp_m) = cx.divmod(warp, warps.m, "wg_warp_n", "wg_warp_m");
        // 8-row groups before the warpgroup's rows: 8 (warp_m / 4) for A, n / 8 warp_n for B.
        let a_row = cx.b.reg("wg_a_groups", Type::U32);
        cx.b.push(Instr::binary(BinOp::Shr, a_row, warp_m, Op::imm(2)));
        cx.b.push(Instr::mul(a_row, a_row, Op::imm(WgmmaShape::M / 8)));
        let b_row = cx.b.reg("wg_b_groups", Type::U32);
        cx.b.push(Instr::mul(b_row, warp_n, Op::imm(self.shape.n / 8)));
        let parts = if self.x3 { 2 } else { 1 };
        let a_parts = cx.plan.smem_a_bytes() + cx.plan.smem_b_bytes();
        let b_parts = a_parts + parts * wgmma_part_bytes(&spec, Operand::A) as u32;
        self.setup_operand(cx, Operand::A, a_parts, a_row);
        self.setup_operand(cx, Operand::B, b_parts, b_row);
        self.set_bytes = (crate::constraints::wgmma_bytes(&spec) / 2) as u32;
        let set = cx.b.reg("parts_set", Type::U32);
        cx.b.comment(format!(
            "stripe t converts into set t mod 2 of the parts, {} bytes apart",
            self.set_bytes
        ));
        cx.b.push(Instr::mov(set, Op::imm(0)));
        self.set = Some(set);
    }

    fn zero(&mut self, cx: &mut Cx<'_>) {
        for e in self.acc.clone() {
            cx.zero(e);
        }
        // The first stripe (and an epilogue without stripes) adds these.
        for &p in &self.tmp {
            cx.b.push(Instr::mov(p, Op::float_zero(Type::F32)));
        }
    }

    fn accumulate(&mut self, cx: &mut Cx<'_>, stage: Option<(Reg, Reg)>, beside: Beside<'_>) {
        let spec = *cx.plan.spec();
        let (a_stage, b_stage) = stage.expect("a wgmma kernel reads its stripes from a cp.async ring");
        let set = self.set.expect("set up");
        let scratch = Scratch::declare(cx);
        for (conv, stage) in self.conversions.iter().zip([a_stage, b_stage]) {
            self.convert(cx, conv, (stage, set), &scratch);
        }
        cx.b.comment(
            "the parts, written by this thread, visible to wgmma (the async proxy) and to every warp",
        );
        cx.b.push(Instr::fence_proxy_async());
        cx.b.push(Instr::bar_sync(0));

        let acc: Vec<Reg> = self.acc.iter().map(|e| e.re).collect();
        if self.x3 {
            self.join(cx, &acc, "the previous stripe's products");
        }
        let steps = spec.k_blk / WgmmaShape::K;
        let d = self.d_order(if self.x3 { &self.tmp } else { &acc });
        // (A's part, B's part) of each product: small terms first, then big·big.
        let products: &[(usize, usize)] = if self.x3 { &[(1, 0), (0, 1), (0, 0)] } else { &[(0, 0)] };
        cx.b.comment(format!(
            "{} wgmma {} per 8-deep step, {steps} steps, on this stripe's set of parts{}",
            products.len(),
            self.shape.name(),
            if self.x3 { ", into the stripe's products (zero first)" } else { ", into the accumulators" }
        ));
        cx.b.reg_group("step descriptors");
        let set64 = cx.b.reg("parts_set_desc", Type::U64);
        let shifted = cx.b.reg("parts_set_16", Type::U32);
        cx.b.push(Instr::binary(BinOp::Shr, shifted, set, Op::imm(4)));
        cx.b.push(Instr::cvt(set64, shifted));
        let current: Vec<Vec<Reg>> = self
            .desc
            .iter()
            .zip(["a", "b"])
            .map(|(parts, x)| {
                parts
                    .iter()
                    .zip(["big", "small"])
                    .map(|(&desc, part)| {
                        let cur = cx.b.reg(format!("{x}_desc_{part}_set"), Type::U64);
                        cx.b.push(Instr::add(cur, desc, set64));
                        cur
                    })
                    .collect()
            })
            .collect();
        cx.b.push(Instr::wgmma_fence());
        let (p_false, p_true) = (self.p_false.expect("set up"), self.p_true.expect("set up"));
        for s in 0..steps {
            for (i, &(pa, pb)) in products.iter().enumerate() {
                let da = cx.b.reg(format!("a_desc_s{s}_{i}"), Type::U64);
                let db = cx.b.reg(format!("b_desc_s{s}_{i}"), Type::U64);
                // Step s starts 2 core matrices further along K: 2·LBO / 16.
                cx.b.push(Instr::add(da, current[0][pa], Op::imm(i64::from(s * 2 * LBO / 16))));
                cx.b.push(Instr::add(db, current[1][pb], Op::imm(i64::from(s * 2 * LBO / 16))));
                let scale = if self.x3 && s == 0 && i == 0 { p_false } else { p_true };
                cx.b.push(Instr::wgmma(self.shape, &d, (da, db), scale, (false, false)));
            }
            beside(cx, Step { index: s, of: steps });
        }
        cx.b.push(Instr::wgmma_commit());
        if !self.x3 {
            cx.b.comment("the previous stripe's group retired: its set of parts may be written again");
            cx.b.push(Instr::wgmma_wait(1));
        }
        cx.b.push(Instr::binary(BinOp::Xor, set, set, Op::imm(self.set_bytes)));
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

    fn accumulators(&self) -> &[Elem] {
        &self.acc
    }

    fn finish(&mut self, cx: &mut Cx<'_>) {
        let acc: Vec<Reg> = self.acc.iter().map(|e| e.re).collect();
        if self.x3 {
            self.join(cx, &acc, "the last stripe's products");
        } else {
            cx.b.comment("the last stripe's group retired");
            cx.b.push(Instr::wgmma_wait(0));
        }
    }
}
