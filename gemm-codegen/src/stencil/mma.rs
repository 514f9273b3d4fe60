//! The tensor-core inner product (`math = dmma`): each warp computes its
//! `WM × WN` part of the C tile (`tile.0 / warps.0 × tile.1 / warps.1`)
//! with `mma.sync` of shape `M × 8 × K` on `.f64`, one step of the walk
//! (`walk.rs`) being `K` rows of the stripe.
//!
//! # Fragments, and where they sit in the tile
//!
//! An `mma` names the rows and columns of its fragments (the PTX ISA's
//! layout, [`MmaShape::f64_a`] and its siblings: lane `(g, t) = (lane / 4,
//! lane mod 4)` holds A's rows `g` and `g + 8` at columns `t + 4i`, B's
//! column `g` at rows `t + 4i`, and the accumulators' row `g` (and `g + 8`)
//! at columns `2t`, `2t + 1`). Which rows of the warp tile an `mma`'s rows
//! are is ours to choose, as long as A and C agree (and B and C on the
//! columns); the choice here makes every lane's fragments pairs of
//! neighbouring elements, one 16-byte shared load each:
//!
//! ```text
//! warp-tile row    16p + 2r' + h     is row r' + 8h of m16 tile p      (m8: row r' of tile 2p + h)
//! warp-tile column 16q + 2c + h      is column c of n8 tile 2q + h
//! ```
//!
//! So lane `(g, t)` reads A's rows `16p + 2g, +1` and B's columns `16q +
//! 2g, +1`, at stripe rows `t + 4i`: a warp's load covers four k rows of 128
//! contiguous bytes each, the fewest shared-memory wavefronts 512 bytes take,
//! without padding. (Where an `mma` takes two or more elements of B, its B
//! operand is a column's elements at rows `t, t + 4, …`, which must sit in
//! consecutive registers; a pair of columns loaded at once would have to be
//! moved apart, so B's elements are loaded one by one: 8 bytes a lane, one
//! wavefront per k row still.) It owns C's rows `16p + 2g, +1` (a run of two, stored
//! with one 16-byte access by the epilogue) and columns `16q + 4t … +3`:
//! the [`super::CLayout`] of a tensor-core math.
//!
//! Products and sums are IEEE binary64; only their order differs from the
//! FMA kernels (the emulator runs each `mma` as a chain of FMAs along K).

use crate::ptx::{Address, BinOp, CacheQual, Instr, MmaShape, Operand as Op, Reg, Space, Type};

use super::walk::StepMath;
use super::{Cx, Elem};

/// One set of a lane's fragments for one step: `a[p][s]` is the pair of
/// A's rows `16p + 2g, +1` at stripe row `t + 4s`, `b[q][s]` the pair of
/// B's columns `16q + 2g, +1` there.
struct Set {
    a: Vec<Vec<[Reg; 2]>>,
    b: Vec<Vec<[Reg; 2]>>,
}

/// The tensor-core product of a plan with `math = dmma`.
#[derive(Default)]
pub(crate) struct Fragments {
    shape: Option<MmaShape>,
    /// The accumulators, `[i * n_thr + j]`.
    acc: Vec<Elem>,
    n_thr: u32,
    /// One or two sets (`frag_sets`), alternating by step.
    sets: Vec<Set>,
}

impl Fragments {
    fn shape(&self) -> MmaShape {
        self.shape.expect("setup runs first")
    }

    /// The accumulator of the thread's row `i` and column `j`.
    fn acc(&self, i: u32, j: u32) -> Reg {
        self.acc[(i * self.n_thr + j) as usize].re
    }
}

impl StepMath for Fragments {
    fn setup(&mut self, cx: &mut Cx<'_>) -> (Reg, Reg) {
        let spec = *cx.plan.spec();
        let shape = spec.mma.expect("a tensor-core plan has its shape");
        let warps = spec.warps.expect("a tensor-core plan has its warps");
        let (wm, wn) = (spec.m_blk / warps.m, spec.n_blk / warps.n);
        let (m_thr, n_thr) = (cx.plan.m_thr(), cx.plan.n_thr());
        let esz = cx.esz();
        self.shape = Some(shape);
        self.n_thr = n_thr;

        cx.b.reg_group(format!(
            "inner product: shared-memory read pointers of lane (g, t) = (lane / 4, lane mod 4), \
             warp tile {wm} x {wn} in mma.{} steps",
            shape.name()
        ));
        let a_sptr = cx.b.reg("a_sld", Type::U32);
        let b_sptr = cx.b.reg("b_sld", Type::U32);
        let t = cx.b.reg("lane_t", Type::U32);
        let g2 = cx.b.reg("lane_2g", Type::U32);
        let col = cx.b.reg("b_sld_col", Type::U32);
        cx.b.comment("A: As[t][2 tx], the lane's rows 2g, 2g + 1 of its warp's tile (2 tx = warp_m WM + 2g)");
        cx.b.push(Instr::binary(BinOp::And, t, cx.thread, Op::imm(3)));
        cx.b.push(Instr::binary(BinOp::Shr, g2, cx.thread, Op::imm(1)));
        cx.b.push(Instr::binary(BinOp::And, g2, g2, Op::imm(14)));
        cx.b.push(Instr::mul(a_sptr, t, Op::imm(cx.plan.smem_a_stride())));
        cx.b.push(Instr::mad(a_sptr, cx.tx, Op::imm(2), a_sptr));
        cx.b.push(Instr::mul(a_sptr, a_sptr, Op::imm(esz)));
        let a_base = cx.b.reg("a_sld_base", Type::U32);
        cx.shared_address(a_base, cx.smem_a);
        cx.b.push(Instr::add(a_sptr, a_sptr, a_base));
        cx.b.comment("B: Bs[t][warp_n WN + 2g] (4 (ty - t) = warp_n WN)");
        cx.b.push(Instr::sub(col, cx.ty, t));
        cx.b.push(Instr::mad(col, col, Op::imm(4), g2));
        cx.b.push(Instr::mad(b_sptr, t, Op::imm(cx.plan.smem_b_stride()), col));
        cx.b.push(Instr::mul(b_sptr, b_sptr, Op::imm(esz)));
        let b_base = cx.b.reg("b_sld_base", Type::U32);
        cx.shared_address(b_base, cx.smem_b);
        cx.b.push(Instr::add(b_sptr, b_sptr, b_base));

        cx.b.reg_group(format!("C accumulators: {m_thr} x {n_thr} per thread, in mma fragments"));
        self.acc = (0..m_thr)
            .flat_map(|i| (0..n_thr).map(move |j| (i, j)))
            .map(|(i, j)| cx.elem(&format!("c_{i}_{j}")))
            .collect();
        let sets = if spec.frag_sets > 1 { 2 } else { 1 };
        cx.b.reg_group(format!(
            "inner product: the lane's pairs of A rows and B columns at {} k rows, {sets} set(s)",
            shape.k / 4
        ));
        let pairs = |cx: &mut Cx<'_>, x: &str, set: usize, blocks: u32| -> Vec<Vec<[Reg; 2]>> {
            (0..blocks)
                .map(|p| {
                    (0..shape.k / 4)
                        .map(|s| [0, 1].map(|h| cx.b.reg(format!("{x}{set}_{p}_{s}_{h}"), Type::F64)))
                        .collect()
                })
                .collect()
        };
        let block = crate::constraints::MMA_WARP_BLOCK;
        self.sets = (0..sets)
            .map(|set| Set { a: pairs(cx, "a", set, wm / block), b: pairs(cx, "b", set, wn / block) })
            .collect();
        (a_sptr, b_sptr)
    }

    fn load(&self, cx: &mut Cx<'_>, set: usize, (a_ptr, b_ptr): (Reg, Reg), step: u32) {
        let shape = self.shape();
        let esz = cx.esz();
        let block = crate::constraints::MMA_WARP_BLOCK;
        let set = &self.sets[set];
        // B's pairs split when an mma takes more than one element of B: its
        // operand is then the lane's column at rows t, t + 4, …, which must
        // sit in consecutive registers, not the pair's two columns.
        let b_split = shape.b_per_lane() > 1;
        for (pairs, ptr, stride, split) in [
            (&set.a, a_ptr, cx.plan.smem_a_stride(), false),
            (&set.b, b_ptr, cx.plan.smem_b_stride(), b_split),
        ] {
            for (p, block_pairs) in pairs.iter().enumerate() {
                for (s, pair) in block_pairs.iter().enumerate() {
                    let row = step * shape.k + 4 * s as u32;
                    let offset = i64::from(row * stride + p as u32 * block) * esz;
                    if split {
                        for (h, &reg) in pair.iter().enumerate() {
                            let at = Address::reg(ptr, offset + h as i64 * esz);
                            cx.b.push(Instr::ld(Space::Shared, CacheQual::None, &[reg], at));
                        }
                    } else {
                        cx.b.push(Instr::ld(Space::Shared, CacheQual::None, pair, Address::reg(ptr, offset)));
                    }
                }
            }
        }
    }

    fn multiply(&self, cx: &mut Cx<'_>, set: usize) {
        let shape = self.shape();
        let set = &self.sets[set];
        let halves = shape.m / 8;
        // m16: tile p holds both rows of a pair; m8: tile 2p + h holds row h.
        let m_tiles = set.a.len() as u32 * (2 / halves);
        let n_tiles = set.b.len() as u32 * 2;
        let subs = shape.k / 4;
        for mt in 0..m_tiles {
            let (p, ha) = if halves == 2 { (mt, None) } else { (mt / 2, Some(mt % 2)) };
            let a: Vec<Reg> = (0..shape.a_per_lane())
                .map(|i| {
                    let (s, h) = match ha {
                        None => (i / 2, i % 2),
                        Some(h) => (i, h),
                    };
                    debug_assert!(s < subs);
                    set.a[p as usize][s as usize][h as usize]
                })
                .collect();
            for nt in 0..n_tiles {
                let (q, hb) = (nt / 2, nt % 2);
                let b: Vec<Reg> =
                    (0..shape.b_per_lane()).map(|i| set.b[q as usize][i as usize][hb as usize]).collect();
                let c: Vec<Reg> = (0..shape.c_per_lane())
                    .map(|i| {
                        // Accumulator i: fragment row g (+ 8 for i ≥ 2), column 2t + i mod 2.
                        let row = match ha {
                            None => 2 * p + i / 2,
                            Some(h) => 2 * p + h,
                        };
                        self.acc(row, 4 * q + 2 * (i % 2) + hb)
                    })
                    .collect();
                cx.b.push(Instr::mma_f64(shape, &c, &a, &b, &c));
            }
        }
    }

    fn accumulators(&self) -> &[Elem] {
        &self.acc
    }
}
