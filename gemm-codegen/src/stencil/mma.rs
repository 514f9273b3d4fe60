//! The tensor-core inner product (`math = dmma`): each warp computes its
//! `WM × WN` part of the C tile (`tile.0 / warps.0 × tile.1 / warps.1`)
//! with `mma.sync` of shape `M × 8 × K` on `.f64`, one step of the walk
//! (`walk.rs`) being `K` rows of the stripe. A complex product is four real
//! ones on the real and imaginary parts.
//!
//! # Fragments, and where they sit in the tile
//!
//! An `mma` names the rows and columns of its fragments (the PTX ISA's
//! layout, [`MmaShape::f64_a`] and its siblings: lane `(g, t) = (lane / 4,
//! lane mod 4)` holds A's rows `g` and `g + 8` at columns `t + 4i`, B's
//! column `g` at rows `t + 4i`, and the accumulators' row `g` (and `g + 8`)
//! at columns `2t`, `2t + 1`). Which rows of the warp tile an `mma`'s rows
//! are is ours to choose, as long as A and C agree (and B and C on the
//! columns); the choice here makes a warp's fragment loads 16 bytes a lane
//! over 128 contiguous bytes of each k row, the fewest shared-memory
//! wavefronts they can take, without padding:
//!
//! ```text
//! f64   warp-tile row    16p + 2r + h    is row r + 8h of m16 tile p   (m8: row r of tile 2p + h)
//!       warp-tile column 16q + 2c + h    is column c of n8 tile 2q + h
//! c64   warp-tile row    16p + 8h + r    is row r + 8h of m16 tile p   (m8: row r of tile 2p + h)
//!       warp-tile column 8n + c          is column c of n8 tile n
//! ```
//!
//! For f64, lane `(g, t)` reads A's rows `16p + 2g, +1` with one load (and
//! B's columns `16q + 2g, +1`, where an `mma` takes one element of B; where
//! it takes several, its B operand is a column's elements at rows `t, t +
//! 4, …`, which must sit in consecutive registers, so B's elements load one
//! by one, 8 bytes a lane, one wavefront per k row still). It owns C's rows
//! `16p + 2g, +1`, a run the epilogue stores with one 16-byte access, and
//! columns `16q + 4t … +3`. A c64 element is 16 bytes itself: lane `(g, t)`
//! reads A's rows `16p + g` and `16p + 8 + g`, B's columns `8n + g`, and owns
//! C's rows `8i + g`, columns `8n + 2t, +1`. These are the
//! [`super::CLayout`] of a tensor-core math.
//!
//! # Complex products
//!
//! With `A = a + ib`, `B = c + id` (`σ_A`, `σ_B` = −1 for a conjugated
//! operand), `re += a·c − σ_A σ_B b·d` and `im += σ_B a·d + σ_A b·c`: four
//! `mma`s, whose signs go on B's fragments (an `mma` has no negated
//! operand): B's imaginary part is loaded once and negated once per element
//! and step, its real part too when A is conjugated. B's fragments are the
//! smaller: `n_thr · K / 8` elements a lane, A's `m_thr · K / 4`.
//!
//! Products and sums are IEEE binary64; only their order differs from the
//! FMA kernels (the emulator runs each `mma` as a chain of FMAs along K).

use crate::ptx::{Address, CacheQual, Instr, MmaShape, Operand as Op, Reg, Space, Type};

use super::walk::StepMath;
use super::{CLayout, Cx, Elem};

/// One set of a lane's fragments for one step. `a[p][s][h]` is A's element
/// of the lane's `h`-th row of 16-row block `p` at stripe row `t + 4s`;
/// `b[q][s][h]` likewise for B's columns. For c64, `b_neg_im` and (when A
/// is conjugated) `b_neg_re` hold B's parts negated.
struct Set {
    a: Vec<Vec<[Elem; 2]>>,
    b: Vec<Vec<[Elem; 2]>>,
    b_neg_im: Vec<Vec<[Reg; 2]>>,
    b_neg_re: Vec<Vec<[Reg; 2]>>,
}

/// The tensor-core product of a plan with `math = dmma`.
#[derive(Default)]
pub(crate) struct Fragments {
    /// Conjugate A's elements as they are multiplied.
    conj_a: bool,
    /// Conjugate B's elements as they are multiplied.
    conj_b: bool,
    shape: Option<MmaShape>,
    /// Whether elements are complex (one per 16-byte load; f64 pairs two).
    complex: bool,
    /// The accumulators, `[i * n_thr + j]`.
    acc: Vec<Elem>,
    n_thr: u32,
    /// One or two sets (`frag_sets`), alternating by step.
    sets: Vec<Set>,
}

impl Fragments {
    /// The product, conjugating A's and B's elements as it multiplies them
    /// when asked (for stripes that reach shared memory unconjugated).
    pub fn new(conj_a: bool, conj_b: bool) -> Fragments {
        Fragments { conj_a, conj_b, ..Fragments::default() }
    }

    fn shape(&self) -> MmaShape {
        self.shape.expect("setup runs first")
    }

    /// The accumulator of the thread's row `i` and of the column that is
    /// column `2t + e` of n8 tile `2q + h`.
    fn acc(&self, i: u32, q: u32, h: u32, e: u32) -> Elem {
        let j = if self.complex { 4 * q + 2 * h + e } else { 4 * q + 2 * e + h };
        self.acc[(i * self.n_thr + j) as usize]
    }
}

/// `f(block, s, h)` for every block, k row `s` and row (column) `h` of a
/// lane's pairs, as `[block][s][h]`.
fn grid<T>(blocks: u32, subs: u32, mut f: impl FnMut(u32, u32, u32) -> T) -> Vec<Vec<[T; 2]>> {
    (0..blocks).map(|p| (0..subs).map(|s| [0, 1].map(|h| f(p, s, h))).collect()).collect()
}

impl StepMath for Fragments {
    fn setup(&mut self, cx: &mut Cx<'_>) -> (Reg, Reg) {
        let spec = *cx.plan.spec();
        let shape = spec.mma.expect("a tensor-core plan has its shape");
        let warps = spec.warps.expect("a tensor-core plan has its warps");
        let (wm, wn) = (spec.m_blk / warps.m, spec.n_blk / warps.n);
        let (m_thr, n_thr) = (cx.plan.m_thr(), cx.plan.n_thr());
        let layout = CLayout::new(cx.plan);
        let esz = cx.esz();
        self.shape = Some(shape);
        self.complex = cx.precision().is_complex();
        self.n_thr = n_thr;
        // Elements a lane's 16-byte load holds: 2 f64, 1 c64.
        let r = spec.lds_width;

        cx.b.reg_group(format!(
            "inner product: shared-memory read pointers of lane (g, t) = (lane / 4, lane mod 4), \
             warp tile {wm} x {wn} in mma.{} steps",
            shape.name()
        ));
        let a_sptr = cx.b.reg("a_sld", Type::U32);
        let b_sptr = cx.b.reg("b_sld", Type::U32);
        let col = cx.b.reg("b_sld_col", Type::U32);
        let (g, t) = cx.lane.expect("thread_position places a tensor-core math's lanes");
        let (rw, cw) = (layout.row_width(), layout.col_width());
        cx.b.comment(format!(
            "A: As[t][{rw} tx] = As[t][warp_m WM + {r} g], the lane's first row of its warp's tile"
        ));
        cx.b.push(Instr::mul(a_sptr, t, Op::imm(cx.plan.smem_a_stride())));
        cx.b.push(Instr::mad(a_sptr, cx.tx, Op::imm(rw), a_sptr));
        cx.b.push(Instr::mul(a_sptr, a_sptr, Op::imm(esz)));
        let a_base = cx.b.reg("a_sld_base", Type::U32);
        cx.shared_address(a_base, cx.smem_a);
        cx.b.push(Instr::add(a_sptr, a_sptr, a_base));
        cx.b.comment(format!("B: Bs[t][warp_n WN + {r} g], with warp_n WN = {cw} (ty - t)"));
        cx.b.push(Instr::sub(col, cx.ty, t));
        cx.b.push(Instr::mul(col, col, Op::imm(cw)));
        cx.b.push(Instr::mad(col, g, Op::imm(r), col));
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
            "inner product: the lane's elements of A's rows and B's columns at {} k rows, {sets} set(s)",
            shape.k / 4
        ));
        let block = crate::constraints::MMA_WARP_BLOCK;
        let (subs, conj_a, complex) = (shape.k / 4, self.conj_a, self.complex);
        self.sets = (0..sets)
            .map(|set| {
                let a = grid(wm / block, subs, |p, s, h| cx.elem(&format!("a{set}_{p}_{s}_{h}")));
                let b = grid(wn / block, subs, |q, s, h| cx.elem(&format!("b{set}_{q}_{s}_{h}")));
                let mut negated = |part: &str, wanted: bool| {
                    let blocks = if wanted { wn / block } else { 0 };
                    grid(blocks, subs, |q, s, h| cx.b.reg(format!("b{set}_{q}_{s}_{h}_n{part}"), Type::F64))
                };
                let b_neg_im = negated("im", complex);
                let b_neg_re = negated("re", complex && conj_a);
                Set { a, b, b_neg_im, b_neg_re }
            })
            .collect();
        (a_sptr, b_sptr)
    }

    fn load(&self, cx: &mut Cx<'_>, set: usize, (a_ptr, b_ptr): (Reg, Reg), step: u32) {
        let shape = self.shape();
        let esz = cx.esz();
        let block = crate::constraints::MMA_WARP_BLOCK;
        let set = &self.sets[set];
        // f64: an mma taking several elements of B wants them apart (see above).
        let b_split = !self.complex && shape.b_per_lane() > 1;
        for (frags, ptr, stride, split) in [
            (&set.a, a_ptr, cx.plan.smem_a_stride(), false),
            (&set.b, b_ptr, cx.plan.smem_b_stride(), b_split),
        ] {
            for (p, block_frags) in frags.iter().enumerate() {
                for (s, pair) in block_frags.iter().enumerate() {
                    let row = step * shape.k + 4 * s as u32;
                    let offset = |col: u32| i64::from(row * stride + p as u32 * block + col) * esz;
                    let ld = |cx: &mut Cx<'_>, regs: &[Reg], col: u32| {
                        cx.b.push(Instr::ld(
                            Space::Shared,
                            CacheQual::None,
                            regs,
                            Address::reg(ptr, offset(col)),
                        ));
                    };
                    if self.complex {
                        // Rows (columns) h · 8 + g: one element, re and im, per load.
                        for (h, e) in pair.iter().enumerate() {
                            ld(cx, &e.regs(), 8 * h as u32);
                        }
                    } else if split {
                        for (h, e) in pair.iter().enumerate() {
                            ld(cx, &[e.re], h as u32);
                        }
                    } else {
                        ld(cx, &[pair[0].re, pair[1].re], 0);
                    }
                }
            }
        }
        for (q, block_frags) in set.b.iter().enumerate() {
            for (s, pair) in block_frags.iter().enumerate() {
                for (h, e) in pair.iter().enumerate() {
                    if let Some(neg) = set.b_neg_im.get(q).map(|x| x[s][h]) {
                        cx.b.push(Instr::neg(neg, e.im.expect("complex")));
                    }
                    if let Some(neg) = set.b_neg_re.get(q).map(|x| x[s][h]) {
                        cx.b.push(Instr::neg(neg, e.re));
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
        for mt in 0..m_tiles {
            let (p, ha) = if halves == 2 { (mt, None) } else { (mt / 2, Some(mt % 2)) };
            let a: Vec<Elem> = (0..shape.a_per_lane())
                .map(|i| {
                    let (s, h) = match ha {
                        None => (i / 2, i % 2),
                        Some(h) => (i, h),
                    };
                    set.a[p as usize][s as usize][h as usize]
                })
                .collect();
            for nt in 0..n_tiles {
                let (q, hb) = (nt / 2, nt % 2);
                let b_at = |i: u32| set.b[q as usize][i as usize][hb as usize];
                let b: Vec<Elem> = (0..shape.b_per_lane()).map(b_at).collect();
                let c: Vec<Elem> = (0..shape.c_per_lane())
                    .map(|i| {
                        // Accumulator i: fragment row g (+ 8 for i ≥ 2), column 2t + i mod 2.
                        let row = match ha {
                            None => 2 * p + i / 2,
                            Some(h) => 2 * p + h,
                        };
                        self.acc(row, q, hb, i % 2)
                    })
                    .collect();
                let re = |x: &[Elem]| x.iter().map(|e| e.re).collect::<Vec<Reg>>();
                let (c_re, a_re, b_re) = (re(&c), re(&a), re(&b));
                if !self.complex {
                    cx.b.push(Instr::mma_f64(shape, &c_re, &a_re, &b_re, &c_re));
                    continue;
                }
                let im = |x: &[Elem]| x.iter().map(|e| e.im.expect("complex")).collect::<Vec<Reg>>();
                let (c_im, a_im, b_im) = (im(&c), im(&a), im(&b));
                let neg = |parts: &Vec<Vec<[Reg; 2]>>| -> Vec<Reg> {
                    (0..shape.b_per_lane()).map(|i| parts[q as usize][i as usize][hb as usize]).collect()
                };
                let b_nim = neg(&set.b_neg_im);
                // re += a c − σ_A σ_B b d;  im += σ_B a d + σ_A b c.
                let d_for_re = if self.conj_a != self.conj_b { &b_im } else { &b_nim };
                let d_for_im = if self.conj_b { &b_nim } else { &b_im };
                let c_for_im = if self.conj_a { neg(&set.b_neg_re) } else { b_re.clone() };
                cx.b.push(Instr::mma_f64(shape, &c_re, &a_re, &b_re, &c_re));
                cx.b.push(Instr::mma_f64(shape, &c_im, &a_re, d_for_im, &c_im));
                cx.b.push(Instr::mma_f64(shape, &c_re, &a_im, d_for_re, &c_re));
                cx.b.push(Instr::mma_f64(shape, &c_im, &a_im, &c_for_im, &c_im));
            }
        }
    }

    fn accumulators(&self) -> &[Elem] {
        &self.acc
    }
}
