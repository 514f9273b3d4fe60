//! The conversion of a landed stripe into the TF32 parts `wgmma` reads
//! (see the parent module's doc): each thread's *units* (4 rows × 4 k of a
//! K-major stripe, one row's 4 k of a K-contiguous one), loaded from the
//! ring's slot, split into big and small TF32 parts and stored in the
//! canonical layout. A producer warpgroup (`specialized.rs`) loads all of
//! its units of an operand before it splits any; a warpgroup that also
//! multiplies converts one unit at a time.

use crate::constraints::{Operand, wgmma_part_bytes, wgmma_planes, wgmma_sbo};
use crate::ptx::{Address, BinOp, Cmp, Instr, Operand as Op, Reg, Space, Type};

use super::super::mma::split_tf32;
use super::super::{Cx, SharedBase};
use super::{LBO, Warpgroup};

/// One operand's conversion from its ring slot to its TF32 parts.
pub(super) struct Conversion {
    operand: Operand,
    /// Whether the ring's stripe is `[k][free]` (else `[free][k]`).
    k_major: bool,
    /// Bytes between rows of the ring's stripe.
    row_bytes: u32,
    /// Where the ring's first slot lies.
    ring: SharedBase,
    /// Per unit of the thread: its offset in a slot, the shared address of
    /// its place in the big part's (real) plane, and its guard where units
    /// run out.
    units: Vec<(Reg, Reg, Option<Reg>)>,
    /// Bytes from the big part to the small one (tf32x3).
    small_offset: Option<u32>,
    /// Bytes from a part's real plane to its imaginary one (c32, whose
    /// elements are pairs of scalars).
    im_offset: Option<u32>,
}

impl Warpgroup {
    /// Declares the conversion of each stripe into its TF32 parts by
    /// `threads` threads, this one `thread` among them: of each operand
    /// not read from the ring ([`crate::constraints::wgmma_direct`]).
    pub fn setup_conversion(&mut self, cx: &mut Cx<'_>, by: (Reg, u32), load_ahead: bool) {
        self.load_ahead = load_ahead;
        if !self.converts() {
            return;
        }
        cx.b.reg_group("conversion units");
        for operand in [Operand::A, Operand::B] {
            if !self.direct[operand as usize] {
                self.setup_units(cx, operand, by);
            }
        }
    }

    /// Converts the landed stripe `stage` bytes (A's, B's) past the ring's
    /// first slot into the current set of parts (this thread's units).
    pub fn convert_stripe(&mut self, cx: &mut Cx<'_>, (a_stage, b_stage): (Reg, Reg)) {
        let set = self.set.expect("set up");
        let batch =
            self.load_ahead.then(|| self.conversions.iter().map(|c| c.units.len()).max().unwrap_or(1));
        let scratch = self.scratch.take().unwrap_or_else(|| Scratch::declare(cx, batch.unwrap_or(1) as u32));
        let tag = if self.converted > 0 { format!("_{}", self.converted) } else { String::new() };
        self.converted += 1;
        for conv in &self.conversions {
            let stage = match conv.operand {
                Operand::A => a_stage,
                Operand::B => b_stage,
            };
            self.convert(cx, conv, (stage, set), &scratch, &tag);
        }
        self.scratch = Some(scratch);
    }

    /// Declares one operand's conversion by `threads` threads, this one
    /// numbered `thread` among them: its units' offsets, places and guards.
    fn setup_units(&mut self, cx: &mut Cx<'_>, operand: Operand, (thread, threads): (Reg, u32)) {
        let plan = cx.plan;
        let spec = *plan.spec();
        let name = operand.lower();
        let rows = crate::constraints::free_blk(&spec, operand);
        let sbo = wgmma_sbo(&spec) as u32;
        let part = wgmma_part_bytes(&spec, operand) as u32;
        let planes = wgmma_planes(&spec);
        let esz = spec.precision.element_bytes();
        let k_major = !plan.layout(operand).k_contiguous();
        let row_bytes = plan.stride(operand) * esz;
        let (ring, base) = Self::parts_base(cx, operand, "_cv");

        // Units: 16 / esz rows × 4 k of a K-major stripe (a 16-byte load a
        // k), or one row's 4 k of a K-contiguous one (esz / 4 chunks); lanes
        // along the rows.
        let unit_rows = if k_major { 16 / esz } else { 1 };
        let row_units = rows / unit_rows;
        let units = row_units * (spec.k_blk / 4);
        cx.b.comment(format!(
            "{name}: {units} conversion units of {}, unit u = thread + {threads} i at row {}(u mod {row_units}), \
             k chunk u div {row_units}",
            if k_major { format!("{unit_rows} rows x 4 k") } else { "one row's 4 k".to_owned() },
            if k_major { format!("{unit_rows} ") } else { String::new() },
        ));
        let mut list = Vec::new();
        for i in 0..units.div_ceil(threads) {
            let tag = format!("{name}_u{i}");
            let u = cx.b.reg(format!("{tag}_index"), Type::U32);
            cx.b.push(Instr::add(u, thread, Op::imm(i * threads)));
            let guard = ((i + 1) * threads > units).then(|| {
                let p = cx.b.reg(format!("p_{tag}"), Type::Pred);
                cx.b.push(Instr::setp(Cmp::Lt, Type::U32, p, u, Op::imm(units)));
                p
            });
            let (kq, r) = cx.divmod(u, row_units, &format!("{tag}_kq"), &format!("{tag}_r"));
            let row = if unit_rows > 1 {
                let row = cx.b.reg(format!("{tag}_row"), Type::U32);
                cx.b.push(Instr::mul(row, r, Op::imm(unit_rows)));
                row
            } else {
                r
            };
            let off = cx.b.reg(format!("{tag}_off"), Type::U32);
            let place = cx.b.reg(format!("{tag}_place"), Type::U32);
            let scratch = cx.b.reg(format!("{tag}_scratch"), Type::U32);
            if k_major {
                // Ring: [k][free], row 4kq at byte esz·row.
                cx.b.push(Instr::mul(off, kq, Op::imm(4 * row_bytes)));
                cx.b.push(Instr::mad(off, row, Op::imm(esz), off));
            } else {
                // Ring: [free][k], 16-byte chunk c of row `row` at chunk c ^
                // (row mod 8); the unit's first chunk is c = (esz / 4) kq.
                cx.b.push(Instr::binary(BinOp::And, scratch, row, Op::imm(7)));
                if esz > 4 {
                    cx.b.push(Instr::mul(off, kq, Op::imm(esz / 4)));
                    cx.b.push(Instr::binary(BinOp::Xor, scratch, scratch, off));
                } else {
                    cx.b.push(Instr::binary(BinOp::Xor, scratch, scratch, kq));
                }
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
            small_offset: self.x3.then_some(planes * part),
            im_offset: (planes > 1).then_some(part),
        });
    }

    /// Converts one operand's landed stripe, `stage` bytes past the ring's
    /// first slot, into its TF32 parts at `set`: the thread's units
    /// `batch` at a time, each batch's loads first (into registers of
    /// their own, so that they are in flight together), then their splits
    /// and stores.
    fn convert(
        &self,
        cx: &mut Cx<'_>,
        conv: &Conversion,
        (stage, set): (Reg, Reg),
        scratch: &Scratch,
        tag: &str,
    ) {
        cx.b.comment(format!("{}: the landed stripe -> its TF32 parts", conv.operand.lower()));
        cx.shared_address(scratch.slot, conv.ring);
        cx.b.push(Instr::add(scratch.slot, scratch.slot, stage));
        let batch = scratch.x.len() / 16;
        let x = conv.operand.lower();
        let units: Vec<_> = conv.units.iter().copied().enumerate().collect();
        for chunk in units.chunks(batch) {
            // One unit: a branch over all of it; a batch: one over each
            // unit's loads, and one over its splits and stores.
            let mut loaded = Vec::new();
            let mut skips = Vec::new();
            for (k, &(i, (off, _, guard))) in chunk.iter().enumerate() {
                skips.push(Self::skip_unit(cx, guard, &format!("{x}_no_unit_{i}{tag}")));
                loaded.push(self.load_unit(cx, conv, off, &scratch.x[16 * k..][..16], scratch));
                if batch > 1
                    && let Some(skip) = skips.pop().flatten()
                {
                    cx.b.place(skip);
                }
            }
            for (&(i, (_, place, guard)), rows) in chunk.iter().zip(&loaded) {
                let skip = match skips.pop() {
                    Some(skip) => skip,
                    None => Self::skip_unit(cx, guard, &format!("{x}_no_split_{i}{tag}")),
                };
                cx.b.push(Instr::add(scratch.place, place, set));
                self.store_unit(cx, conv, rows, scratch);
                if let Some(skip) = skip {
                    cx.b.place(skip);
                }
            }
        }
    }

    /// A thread past the last unit branches over it (a guard on the loads
    /// and stores alone would leave the split reading registers nothing
    /// wrote, which the emulator refuses): the label to place after it.
    fn skip_unit(cx: &mut Cx<'_>, guard: Option<Reg>, name: &str) -> Option<crate::ptx::Label> {
        guard.map(|p| {
            let skip = cx.b.label(name);
            cx.b.push_unless(p, Instr::bra(skip));
            skip
        })
    }

    /// Loads the unit `off` bytes into the slot into `x`: `rows[c][q][j]`,
    /// scalar q (real, imaginary) of row c, k j.
    fn load_unit(
        &self,
        cx: &mut Cx<'_>,
        conv: &Conversion,
        off: Reg,
        x: &[Reg],
        scratch: &Scratch,
    ) -> Vec<Vec<[Reg; 4]>> {
        // Scalars an element has: 1, or 2 for c32's pairs.
        let s = if conv.im_offset.is_some() { 2 } else { 1 };
        let ld = |cx: &mut Cx<'_>, x: &[Reg], at: Address| {
            cx.b.push(Instr::ld(Space::Shared, crate::ptx::CacheQual::None, x, at));
        };
        cx.b.push(Instr::add(scratch.addr, scratch.slot, off));
        if conv.k_major {
            // One 16-byte load a k along the rows: `x[4 j + s c + q]`.
            for j in 0..4 {
                let at = Address::reg(scratch.addr, (j * conv.row_bytes) as i64);
                ld(cx, &x[4 * j as usize..][..4], at);
            }
            (0..4 / s).map(|c| (0..s).map(|q| [0, 1, 2, 3].map(|j| x[4 * j + s * c + q])).collect()).collect()
        } else {
            // One row's 4 k in `s` chunks, the second at chunk index ^ 1:
            // `x[s j + q]`.
            ld(cx, &x[..4], Address::reg(scratch.addr, 0));
            if s > 1 {
                cx.b.push(Instr::binary(BinOp::Xor, scratch.addr, scratch.addr, Op::imm(16)));
                ld(cx, &x[4..8], Address::reg(scratch.addr, 0));
            }
            vec![(0..s).map(|q| [0, 1, 2, 3].map(|j| x[s * j + q])).collect()]
        }
    }

    /// Splits a loaded unit and stores its parts at `scratch.place`.
    fn store_unit(&self, cx: &mut Cx<'_>, conv: &Conversion, rows: &[Vec<[Reg; 4]>], scratch: &Scratch) {
        for (c, row) in rows.iter().enumerate() {
            for (q, values) in row.iter().enumerate() {
                for (j, &x) in values.iter().enumerate() {
                    let small = conv.small_offset.map(|_| (scratch.small[j], scratch.rest));
                    split_tf32(cx, x, scratch.half, scratch.big[j], small);
                }
                let plane = q as u32 * conv.im_offset.unwrap_or(0);
                let at = |extra: u32| Address::reg(scratch.place, (16 * c as u32 + plane + extra) as i64);
                cx.b.push(Instr::st(Space::Shared, at(0), &scratch.big));
                if let Some(small) = conv.small_offset {
                    cx.b.push(Instr::st(Space::Shared, at(small), &scratch.small));
                }
            }
        }
    }
}

/// The conversion's registers.
pub(super) struct Scratch {
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
    /// The registers of a conversion that loads `batch` units ahead.
    fn declare(cx: &mut Cx<'_>, batch: u32) -> Scratch {
        cx.b.reg_group("TF32 conversion scratch");
        let mut reg = |name: String, ty| cx.b.reg(name, ty);
        Scratch {
            slot: reg("cv_slot".into(), Type::U32),
            addr: reg("cv_addr".into(), Type::U32),
            place: reg("cv_place".into(), Type::U32),
            x: (0..16 * batch).map(|i| reg(format!("cv_x{i}"), Type::F32)).collect(),
            big: [0, 1, 2, 3].map(|i| reg(format!("cv_big{i}"), Type::B32)),
            small: [0, 1, 2, 3].map(|i| reg(format!("cv_small{i}"), Type::B32)),
            half: reg("cv_half".into(), Type::B32),
            rest: reg("cv_rest".into(), Type::B32),
        }
    }
}
