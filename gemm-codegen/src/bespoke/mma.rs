//! The tensor-core form ([`Form::Mma`]): `mma.sync` on A's non-zero tiles,
//! DMMA for `f64`, three TF32 products (FP32-accurate: A split into big and
//! small parts when the kernel is generated, B when it is loaded) for `f32`.
//!
//! ```text
//! A (m × k) ──tiles of the mma shape──▶ non-zero tiles, in fragment order,
//!                                       in the kernel's read-only data
//! warp w      8 · width columns of C: for each k-tile with a non-zero
//!             tile, B's fragments (one load per element, `chunk` k-tiles
//!             ahead), then one mma per non-zero tile and column tile
//! epilogue    C = alpha · acc + beta · C, element by element, guarded
//! ```
//!
//! All-zero tiles of A emit nothing, and neither do the k-tiles of B that
//! only they would multiply. Loads and stores are of single elements, so
//! the form asks no alignment of B and C. The shape is chosen per operator
//! ([`plan`]): the one of the architecture's that does the least padded
//! work (f64: `m8n8k4` before sm_90, on sm_90 also `m16n8k4`, `m16n8k8`,
//! `m16n8k16`; tf32: `m16n8k4`, `m16n8k8`), the larger on a tie.

use super::plan::{BespokeField, BespokePlan, BespokeViolation, value_regs_cap};
#[cfg(any(doc, test))]
use super::spec::Form;
use super::spec::{BespokeSpec, BetaMode};
use crate::ptx::{
    Address, BinOp, CacheQual, Cmp, Instr, KernelBuilder, MmaKind, MmaShape, Module, Operand, Reg, Space,
    Special, Type, round_tf32,
};
use crate::spec::Precision;

/// The most `mma` instructions one kernel emits.
const MAX_MMAS: usize = 8192;

/// The most words of A's fragments a kernel carries (512 KiB).
const MAX_WORDS: usize = 1 << 16;

/// How a [`Form::Mma`] kernel tiles A.
#[derive(Clone, Debug)]
pub(crate) struct MmaPlan {
    pub shape: MmaShape,
    pub kind: MmaKind,
    /// Row tiles of A (rows padded to the shape's `m`).
    pub mtiles: usize,
    /// A's non-zero tiles `(mt, kt)`, k-tile by k-tile.
    pub tiles: Vec<(usize, usize)>,
    /// The row tiles each warp group computes (`msplit` groups, balanced by
    /// non-zero tiles).
    pub groups: Vec<Vec<usize>>,
    /// Their fragments: element `i` of lane `l` of tile `t` is word
    /// `(t · a_per_lane + i) · 32 + l`.
    pub words: Vec<u64>,
}

impl MmaPlan {
    /// Accumulator registers (32-bit) per thread for `width` column tiles
    /// (the largest warp group's).
    fn acc_regs(&self, width: u32) -> u64 {
        let per = if self.kind == MmaKind::F64 { 2 } else { 1 };
        let rows = self.groups.iter().map(Vec::len).max().unwrap_or(0) as u64;
        rows * u64::from(width) * u64::from(self.shape.c_per_lane()) * per
    }

    /// B-fragment registers per thread for `chunk` k-tiles ahead (f64: one
    /// value of two registers; 3xTF32: the value, its big and small parts).
    fn b_regs(&self, width: u32, chunk: u32) -> u64 {
        let used = self.used_ktiles().len() as u64;
        let per = if self.kind == MmaKind::F64 { 2 } else { 3 };
        used.min(u64::from(chunk)) * u64::from(width) * u64::from(self.shape.b_per_lane()) * per
    }

    /// The k-tiles with a non-zero tile, ascending.
    fn used_ktiles(&self) -> Vec<usize> {
        let mut kts: Vec<usize> = self.tiles.iter().map(|&(_, kt)| kt).collect();
        kts.dedup();
        kts
    }
}

/// Tiles A (`m × k`, row-major, in the kernel's precision) for `spec`, or
/// the rules it breaks.
pub(crate) fn plan(
    values: &[f64],
    m: usize,
    k: usize,
    spec: &BespokeSpec,
) -> Result<MmaPlan, Vec<BespokeViolation>> {
    let fail = |field, message: String| Err(vec![BespokeViolation { field, message }]);
    if !spec.arch.has_cp_async() {
        return fail(
            BespokeField::Arch,
            format!("mma needs arch = sm_80 or newer, not {}", spec.arch.token()),
        );
    }
    let kind = if spec.precision == Precision::F64 { MmaKind::F64 } else { MmaKind::Tf32 };
    let arch = spec.arch.ptx_arch();
    let tiled = |shape: MmaShape| -> Vec<(usize, usize)> {
        let (sm, sk) = (shape.m as usize, shape.k as usize);
        let (mtiles, ktiles) = (m.div_ceil(sm), k.div_ceil(sk));
        let mut tiles = Vec::new();
        for kt in 0..ktiles {
            for mt in 0..mtiles {
                let rows = mt * sm..((mt + 1) * sm).min(m);
                let nonzero =
                    rows.clone().any(|i| (kt * sk..((kt + 1) * sk).min(k)).any(|j| values[i * k + j] != 0.0));
                if nonzero {
                    tiles.push((mt, kt));
                }
            }
        }
        tiles
    };
    let shape = kind
        .shapes()
        .iter()
        .copied()
        .filter(|&s| kind.min_arch(s) <= arch)
        .min_by_key(|&s| {
            let work = tiled(s).len() as u64 * u64::from(s.m * s.k);
            (work, std::cmp::Reverse(s.m * s.k))
        })
        .expect("m8n8k4 runs on every architecture with cp.async");
    let tiles = tiled(shape);
    let (sm, sk) = (shape.m as usize, shape.k as usize);
    let mut words = Vec::with_capacity(tiles.len() * sm * sk);
    for &(mt, kt) in &tiles {
        for i in 0..shape.a_per_lane() {
            for lane in 0..32 {
                let (r, c) = shape.a_at(lane, i);
                let (row, col) = (mt * sm + r as usize, kt * sk + c as usize);
                let v = if row < m && col < k { values[row * k + col] } else { 0.0 };
                words.push(match kind {
                    MmaKind::F64 => v.to_bits(),
                    // f32: the 3xTF32 split, big in the low word.
                    MmaKind::Tf32 => {
                        let big = round_tf32((v as f32).to_bits());
                        let small = round_tf32((v as f32 - f32::from_bits(big)).to_bits());
                        u64::from(big) | u64::from(small) << 32
                    }
                });
            }
        }
    }
    let mtiles = m.div_ceil(sm);
    let mut errors = Vec::new();
    let warps = spec.block / 32;
    if spec.msplit as usize > mtiles || warps == 0 || !warps.is_multiple_of(spec.msplit) {
        errors.push(BespokeViolation {
            field: BespokeField::Msplit,
            message: format!(
                "msplit = {} warp groups must divide the block's {warps} warps and be at most A's {mtiles} row tiles",
                spec.msplit
            ),
        });
        return Err(errors);
    }
    let weights: Vec<usize> = (0..mtiles).map(|mt| tiles.iter().filter(|t| t.0 == mt).count()).collect();
    let groups = super::plan::balance(&weights, spec.msplit as usize);
    let plan = MmaPlan { shape, kind, mtiles, tiles, groups, words };
    let regs = plan.acc_regs(spec.width) + plan.b_regs(spec.width, spec.chunk);
    let cap = value_regs_cap(spec.threads());
    if regs > cap {
        errors.push(BespokeViolation {
            field: BespokeField::Width,
            message: format!(
                "{} row tiles × {} column tiles of accumulators and B's fragments take {regs} registers per thread, over the {cap} a block of {} threads leaves: lower width or chunk",
                plan.mtiles,
                spec.width,
                spec.threads()
            ),
        });
    }
    let mmas = plan.tiles.len() * spec.width as usize * if kind == MmaKind::Tf32 { 3 } else { 1 };
    if mmas > MAX_MMAS || plan.words.len() > MAX_WORDS {
        errors.push(BespokeViolation {
            field: BespokeField::Operator,
            message: format!(
                "A has {} non-zero {} tiles: {mmas} mma instructions and {} words of data, over {MAX_MMAS} and {MAX_WORDS}: use family = bstream or a dense gemm",
                plan.tiles.len(),
                shape.name(),
                plan.words.len()
            ),
        });
    }
    if errors.is_empty() { Ok(plan) } else { Err(errors) }
}

/// Lowers a validated [`Form::Mma`] plan.
// The fragment indices (tile, column tile, element) address several tables
// at once: index loops read better than zipped iterators here.
#[allow(clippy::needless_range_loop)]
pub(crate) fn lower(plan: &BespokePlan, entry: &str, header: Vec<String>) -> Module {
    let spec = *plan.spec();
    let mp = plan.mma.as_ref().expect("an mma plan");
    let (shape, kind) = (mp.shape, mp.kind);
    let (m, k) = (plan.operator().rows() as i64, plan.operator().cols() as i64);
    let (sm, sk) = (i64::from(shape.m), i64::from(shape.k));
    let width = spec.width as usize;
    let tf32 = kind == MmaKind::Tf32;
    let (ty, eb) = if tf32 { (Type::F32, 4i64) } else { (Type::F64, 8i64) };
    let mut b = KernelBuilder::new(entry);
    b.reqntid((spec.block, 1, 1));

    let super::lower::Params { b: bp, c: cp, n, ldb, ldc, alpha, beta } = super::lower::params(&mut b, &spec);
    let frags = b.global_data(&format!("{entry}_a"), 16, mp.words.clone());

    b.reg_group("the warp's columns and the lane's place in the fragments");
    let u32r = |b: &mut KernelBuilder, name: &str| b.reg(name, Type::U32);
    let (thread, cta, lane, warp, g, t) = (
        u32r(&mut b, "thread"),
        u32r(&mut b, "cta"),
        u32r(&mut b, "lane"),
        u32r(&mut b, "warp"),
        u32r(&mut b, "group_row"),
        u32r(&mut b, "thread_col"),
    );
    let u64r = |b: &mut KernelBuilder, name: &str| b.reg(name, Type::U64);
    let (n0, n64, tmp, b_lane, c_lane, a_lane, ldb_bytes, ldc_bytes, ptr) = (
        u64r(&mut b, "col0"),
        u64r(&mut b, "n64"),
        u64r(&mut b, "tmp"),
        u64r(&mut b, "b_lane"),
        u64r(&mut b, "c_lane"),
        u64r(&mut b, "a_lane"),
        u64r(&mut b, "ldb_bytes"),
        u64r(&mut b, "ldc_bytes"),
        u64r(&mut b, "ptr"),
    );
    let (p_out, p_tmp) = (b.reg("p_warp_out", Type::Pred), b.reg("p_tmp", Type::Pred));
    let exit = b.label("exit");

    b.section(format!(
        "column warp w of block x: columns {} * (x * {} + w) ..; lane = 4 * group_row + thread_col ({})",
        8 * width,
        spec.block / 32 / spec.msplit,
        shape.name()
    ));
    b.push(Instr::mov(thread, Special::TidX));
    b.push(Instr::mov(cta, Special::CtaidX));
    b.push(Instr::binary(BinOp::Rem, lane, thread, Operand::imm(32)));
    b.push(Instr::binary(BinOp::Div, warp, thread, Operand::imm(32)));
    b.push(Instr::binary(BinOp::Div, g, lane, Operand::imm(4)));
    b.push(Instr::binary(BinOp::Rem, t, lane, Operand::imm(4)));
    let wgroup = b.reg("warp_group", Type::U32);
    b.comment(format!(
        "warp group (splitting A's row tiles) = warp mod {}; column warp = warp / {}",
        spec.msplit, spec.msplit
    ));
    b.push(Instr::binary(BinOp::Rem, wgroup, warp, Operand::imm(spec.msplit)));
    b.push(Instr::binary(BinOp::Div, warp, warp, Operand::imm(spec.msplit)));
    b.push(Instr::mul_wide(n0, cta, Operand::imm(spec.columns_per_block())));
    b.push(Instr::mad_wide(n0, warp, Operand::imm(8 * spec.width), n0));
    b.push(Instr::cvt(n64, n));
    b.comment("a warp wholly past n has nothing to do (mma needs whole warps: no lane leaves alone)");
    b.push(Instr::setp(Cmp::Ge, Type::U64, p_out, n0, n64));
    b.push_if(p_out, Instr::bra_uni(exit));
    super::lower::stride_bytes(&mut b, ldb_bytes, ldb, spec.ldb, eb);
    super::lower::stride_bytes(&mut b, ldc_bytes, ldc, spec.ldc, eb);
    b.comment(
        "B at (row thread_col, column col0 + group_row); C at (row group_row, column col0 + 2 thread_col)",
    );
    b.push(Instr::mul_wide(tmp, g, Operand::imm(eb)));
    b.push(Instr::mad(tmp, n0, Operand::imm(eb), tmp));
    b.push(Instr::add(b_lane, bp, tmp));
    b.push(Instr::mul_wide(tmp, t, Operand::imm(1)));
    b.push(Instr::mad(b_lane, tmp, ldb_bytes, b_lane));
    b.push(Instr::mul_wide(tmp, t, Operand::imm(2 * eb)));
    b.push(Instr::mad(tmp, n0, Operand::imm(eb), tmp));
    b.push(Instr::add(c_lane, cp, tmp));
    b.push(Instr::mul_wide(tmp, g, Operand::imm(1)));
    b.push(Instr::mad(c_lane, tmp, ldc_bytes, c_lane));
    b.comment("A's fragments: this lane's word of each");
    b.push(Instr::mov(a_lane, Operand::Global(frags)));
    b.push(Instr::cvta_to_global(a_lane, a_lane));
    b.push(Instr::mad_wide(a_lane, lane, Operand::imm(8), a_lane));

    // Column predicates: B's column col0 + 8j + g, C's col0 + 8j + 2t + e.
    b.reg_group("column and row predicates");
    let col_pred = |b: &mut KernelBuilder, name: String, lane_part: Reg, scale: i64, offset: i64| {
        let p = b.reg(name, Type::Pred);
        b.push(Instr::mul_wide(tmp, lane_part, Operand::imm(scale)));
        b.push(Instr::add(tmp, tmp, n0));
        if offset != 0 {
            b.push(Instr::add(tmp, tmp, Operand::imm(offset)));
        }
        b.push(Instr::setp(Cmp::Lt, Type::U64, p, tmp, n64));
        p
    };
    b.section("which of the lane's columns are inside C");
    let p_bcol: Vec<Reg> =
        (0..width).map(|j| col_pred(&mut b, format!("p_bcol{j}"), g, 1, 8 * j as i64)).collect();
    let p_ccol: Vec<[Reg; 2]> = (0..width)
        .map(|j| [0, 1].map(|e| col_pred(&mut b, format!("p_ccol{j}_{e}"), t, 2, 8 * j as i64 + e)))
        .collect();
    // Row predicates: rows `base + lane_part` below `limit`, or None when
    // every lane's row is inside.
    let row_pred = |b: &mut KernelBuilder, name: String, lane_part: Reg, base: i64, span: i64, limit: i64| {
        if base + span <= limit {
            return None;
        }
        let p = b.reg(name, Type::Pred);
        b.push(Instr::setp(Cmp::Lt, Type::S32, p, lane_part, Operand::imm(limit - base)));
        Some(p)
    };

    let p_read = beta.map(|beta| {
        let p = b.reg("p_read_c", Type::Pred);
        b.push(Instr::setp(Cmp::Ne, ty, p, beta, Operand::float_zero(ty)));
        p
    });
    let most = mp.groups.iter().map(Vec::len).max().unwrap_or(0);
    b.reg_group("accumulators and C, one set per row tile of a warp group");
    let per_c = shape.c_per_lane() as usize;
    let tile_regs = |b: &mut KernelBuilder, name: &str| -> Vec<Vec<Vec<Reg>>> {
        (0..most)
            .map(|r| {
                (0..width)
                    .map(|j| (0..per_c).map(|i| b.reg(format!("{name}{r}_{j}_{i}"), ty)).collect())
                    .collect()
            })
            .collect()
    };
    let acc = tile_regs(&mut b, "acc");
    let cv = tile_regs(&mut b, "c");

    b.reg_group("fragments of A and B");
    let chunk = (spec.chunk as usize).min(mp.used_ktiles().len()).max(1);
    let per_b = shape.b_per_lane() as usize;
    // B's elements as loaded, and (3xTF32) their big and small parts.
    let frag = |b: &mut KernelBuilder, name: &str| -> Vec<Vec<Vec<Reg>>> {
        let fty = if name == "b" { ty } else { kind.ab_type() };
        (0..chunk)
            .map(|s| {
                (0..width)
                    .map(|j| (0..per_b).map(|i| b.reg(format!("{name}{s}_{j}_{i}"), fty)).collect())
                    .collect()
            })
            .collect()
    };
    let bv = frag(&mut b, "b");
    let (b_big, b_small) =
        if tf32 { (frag(&mut b, "b_big"), frag(&mut b, "b_small")) } else { (Vec::new(), Vec::new()) };
    let per_a = shape.a_per_lane() as usize;
    let a_big: Vec<Reg> = (0..per_a).map(|i| b.reg(format!("a{i}"), kind.ab_type())).collect();
    let a_small: Vec<Reg> = if tf32 {
        (0..per_a).map(|i| b.reg(format!("a_small{i}"), kind.ab_type())).collect()
    } else {
        Vec::new()
    };
    let p_other = (mp.groups.len() > 1).then(|| b.reg("p_other_group", Type::Pred));

    for (y, rows) in mp.groups.iter().enumerate() {
        let skip = p_other.map(|p| {
            let skip = b.label(&format!("group{y}_done"));
            b.section(format!("warp group {y}: row tiles {rows:?} of A"));
            b.push(Instr::setp(Cmp::Ne, Type::U32, p, wgroup, Operand::imm(y as i64)));
            b.push_if(p, Instr::bra_uni(skip));
            skip
        });
        let slot = |mt: usize| rows.iter().position(|&r| r == mt).expect("a row tile of the group");
        b.section("accumulators start at zero");
        for r in acc[..rows.len()].iter().flatten().flatten() {
            b.push(Instr::mov(*r, Operand::float_zero(ty)));
        }
        // The group's tiles (index into A's data), k-tile by k-tile.
        let tiles: Vec<(usize, usize, usize)> = mp
            .tiles
            .iter()
            .enumerate()
            .filter(|(_, (mt, _))| rows.contains(mt))
            .map(|(index, &(mt, kt))| (index, mt, kt))
            .collect();
        let mut used: Vec<usize> = tiles.iter().map(|&(_, _, kt)| kt).collect();
        used.dedup();
        let mut next = 0usize;
        for (c, kts) in used.chunks(chunk).enumerate() {
            b.section(format!("k-tiles {kts:?}: B's fragments"));
            for (s, &kt) in kts.iter().enumerate() {
                for i in 0..per_b {
                    let base = kt as i64 * sk + 4 * i as i64;
                    let p_row = row_pred(&mut b, format!("p_brow{y}_{c}_{s}_{i}"), t, base, 4, k);
                    b.push(Instr::mad(ptr, ldb_bytes, Operand::imm(base), b_lane));
                    for j in 0..width {
                        let dst = bv[s][j][i];
                        let load = Instr::ld(
                            Space::Global,
                            CacheQual::Nc,
                            &[dst],
                            Address::reg(ptr, 8 * eb * j as i64),
                        );
                        b.push(Instr::mov(dst, Operand::float_zero(ty)));
                        let guard = match p_row {
                            Some(p) => {
                                b.push(Instr::and_pred(p_tmp, p, p_bcol[j]));
                                p_tmp
                            }
                            None => p_bcol[j],
                        };
                        b.push_if(guard, load);
                    }
                }
            }
            if tf32 {
                b.comment("3xTF32: each element of B split into big = tf32(b) and small = tf32(b - big)");
                for s in 0..kts.len() {
                    for j in 0..width {
                        for i in 0..per_b {
                            let (x, big, small) = (bv[s][j][i], b_big[s][j][i], b_small[s][j][i]);
                            b.push(Instr::cvt_tf32(big, x));
                            b.push(Instr::sub(x, x, big));
                            b.push(Instr::cvt_tf32(small, x));
                        }
                    }
                }
            }
            for (s, &kt) in kts.iter().enumerate() {
                while next < tiles.len() && tiles[next].2 == kt {
                    let (index, mt, _) = tiles[next];
                    b.comment(format!("tile ({mt}, {kt}) of A"));
                    for i in 0..per_a {
                        let word = (index * per_a + i) as i64 * 32 * 8;
                        let dst: Vec<Reg> = if tf32 { vec![a_big[i], a_small[i]] } else { vec![a_big[i]] };
                        b.push(Instr::ld(Space::Global, CacheQual::Nc, &dst, Address::reg(a_lane, word)));
                    }
                    for j in 0..width {
                        let d = &acc[slot(mt)][j];
                        if tf32 {
                            // The small terms first, then the big product.
                            b.push(Instr::mma(kind, shape, d, &a_big, &b_small[s][j], d));
                            b.push(Instr::mma(kind, shape, d, &a_small, &b_big[s][j], d));
                            b.push(Instr::mma(kind, shape, d, &a_big, &b_big[s][j], d));
                        } else {
                            b.push(Instr::mma(kind, shape, d, &a_big, &bv[s][j], d));
                        }
                    }
                    next += 1;
                }
            }
        }

        b.section("epilogue: C = alpha * acc + beta * C, element by element inside C");
        // Every element's guard and address, then C's loads, then the stores.
        let mut elements = Vec::new();
        for &mt in rows {
            for half in 0..per_c / 2 {
                let base = mt as i64 * sm + 8 * half as i64;
                let p_row = row_pred(&mut b, format!("p_crow{mt}_{half}"), g, base, 8, m);
                for j in 0..width {
                    for e in 0..2 {
                        let guard = match p_row {
                            Some(p) => {
                                let guard = b.reg(format!("p_c{mt}_{j}_{}", 2 * half + e), Type::Pred);
                                b.push(Instr::and_pred(guard, p, p_ccol[j][e]));
                                guard
                            }
                            None => p_ccol[j][e],
                        };
                        let offset = eb * (8 * j as i64 + e as i64);
                        elements.push((slot(mt), j, 2 * half + e, base, offset, guard));
                    }
                }
            }
        }
        if spec.beta != BetaMode::Zero {
            b.comment("C's elements, loaded before any store");
            for &(r, j, i, base, offset, guard) in &elements {
                let dst = cv[r][j][i];
                b.push(Instr::mad(ptr, ldc_bytes, Operand::imm(base), c_lane));
                b.push(Instr::mov(dst, Operand::float_zero(ty)));
                let p = match p_read {
                    Some(p) => {
                        b.push(Instr::and_pred(p_tmp, p, guard));
                        p_tmp
                    }
                    None => guard,
                };
                b.push_if(p, Instr::ld(Space::Global, CacheQual::None, &[dst], Address::reg(ptr, offset)));
            }
        }
        for &(r, j, i, base, offset, guard) in &elements {
            let (x, c) = (acc[r][j][i], cv[r][j][i]);
            match (spec.beta, beta) {
                (BetaMode::Zero, _) => b.push(Instr::mul(x, x, alpha)),
                (BetaMode::One, _) => b.push(Instr::fma(x, x, alpha, c)),
                (BetaMode::Runtime, Some(beta)) => {
                    b.push(Instr::mul(c, c, beta));
                    b.push(Instr::fma(x, x, alpha, c));
                }
                (BetaMode::Runtime, None) => unreachable!("a runtime beta is a parameter"),
            }
            b.push(Instr::mad(ptr, ldc_bytes, Operand::imm(base), c_lane));
            b.push_if(guard, Instr::st(Space::Global, Address::reg(ptr, offset), &[x]));
        }
        if let Some(skip) = skip {
            b.push(Instr::bra_uni(exit));
            b.place(skip);
        }
    }
    b.section("exit");
    b.place(exit);
    b.push(Instr::ret());

    let floor = spec.arch.ptx_arch();
    let mut module = Module { header, floor, kernels: vec![b.finish()] };
    module.floor = module.target();
    module
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bespoke::{Operator, validate};
    use crate::spec::{Math, Target};

    fn spec(arch: Target) -> BespokeSpec {
        BespokeSpec { form: Form::Mma, arch, width: 2, chunk: 4, ..BespokeSpec::new(Precision::F64) }
    }

    #[test]
    fn the_shape_does_the_least_padded_work_and_zero_tiles_vanish() {
        // 8 × 8 with a zero right half: m8n8k4 has one non-zero tile.
        let a = Operator::from_fn(8, 8, |i, j| if j < 4 { (i + j + 1) as f64 } else { 0.0 }).unwrap();
        let p = validate(&a, &spec(Target::Sm80)).unwrap();
        let mp = p.mma.as_ref().unwrap();
        assert_eq!((mp.shape.name(), mp.tiles.clone()), ("m8n8k4".to_owned(), vec![(0, 0)]));
        assert_eq!(mp.words.len(), 32);
        // Lane 5 holds A[1][1] (row 5 / 4, column 5 mod 4).
        assert_eq!(f64::from_bits(mp.words[5]), a.get(1, 1));
        // 32 × 32 dense on sm_90: a 16-row, 16-deep shape.
        let d = Operator::from_fn(32, 32, |i, j| (i * 32 + j) as f64 + 1.0).unwrap();
        let p = validate(&d, &spec(Target::Sm90)).unwrap();
        assert_eq!(p.mma.as_ref().unwrap().shape.name(), "m16n8k16");
    }

    #[test]
    fn the_rules_of_the_form() {
        let a = Operator::from_fn(8, 8, |i, j| (i + j) as f64).unwrap();
        // f32: three TF32 products, A's parts exact TF32 values summing to it.
        let f32 = BespokeSpec { precision: Precision::F32, ..spec(Target::Sm80) };
        let p = validate(&a, &f32).unwrap();
        let mp = p.mma.as_ref().unwrap();
        assert_eq!((mp.kind, mp.shape.name()), (MmaKind::Tf32, "m16n8k8".to_owned()));
        let (row, col) = mp.shape.a_at(9, 0);
        let w = mp.words[9];
        let (big, small) = (w as u32, (w >> 32) as u32);
        assert_eq!((big & 0x1fff, small & 0x1fff), (0, 0));
        assert_eq!(f64::from(f32::from_bits(big) + f32::from_bits(small)), a.get(row as usize, col as usize));
        assert_eq!(validate(&a, &spec(Target::Sm75)).unwrap_err()[0].field, BespokeField::Arch);
        let split = BespokeSpec { msplit: 2, ..spec(Target::Sm80) };
        assert_eq!(validate(&a, &split).unwrap_err()[0].field, BespokeField::Msplit);
        let tall = Operator::from_fn(512, 8, |_, _| 1.0).unwrap();
        let e = validate(&tall, &BespokeSpec { width: 4, ..spec(Target::Sm80) }).unwrap_err();
        assert_eq!(e[0].field, BespokeField::Width, "{e:?}");
        let s = spec(Target::Sm80);
        assert_eq!((s.alignment(), s.unaligned_twin(), s.columns_per_block()), (1, None, 64));
        // The arithmetic its error is bounded by.
        let fma = BespokeSpec::new(Precision::F32);
        assert_eq!((s.math(), f32.math(), fma.math()), (Math::Dmma, Math::Tf32x3, Math::Fma));
    }
}
