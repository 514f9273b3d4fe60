//! The tensor-core inner product (`math = dmma | tf32 | tf32x3`): each warp
//! computes its `WM × WN` part of the C tile (`tile.0 / warps.0 × tile.1 /
//! warps.1`) with `mma.sync` of shape `M × 8 × K` (`.f64`, or `.tf32` with
//! f32 accumulators), one step of the walk (`walk.rs`) being `K` rows of the
//! stripe. A complex product is four real ones on the real and imaginary
//! parts.
//!
//! # Fragments, and where they sit in the tile
//!
//! An `mma` names the rows and columns of its fragments (the PTX ISA's
//! layout, [`MmaShape::a_at`] and its siblings: lane `(g, t) = (lane / 4,
//! lane mod 4)` holds A's rows `g` and `g + 8` at columns `t + 4i`, B's
//! column `g` at rows `t + 4i`, and the accumulators' row `g` (and `g + 8`)
//! at columns `2t`, `2t + 1`). Which rows of the warp tile an `mma`'s rows
//! are is ours to choose, as long as A and C agree (and B and C on the
//! columns); the choice here makes a warp's fragment loads 16 bytes a lane
//! over 128 contiguous bytes of each k row, the fewest shared-memory
//! wavefronts they can take, without padding. A lane reads a run of `w =
//! lds_width` consecutive rows (16 bytes: 2 f64, 4 f32, 2 c32) and the warp
//! tile is made of blocks of `8w` rows, 8 lanes' runs:
//!
//! ```text
//! w ≥ 2  warp-tile row    8w·p + w·r + j      is row r + 8 (j mod 2) of m16 tile (w/2)·p + j/2
//!                                              (f64 m8: row r of m8 tile 2p + j)
//!        warp-tile column 8w·q + w·c + j      is column c of n8 tile w·q + j
//! c64    warp-tile row    16p + 8j + r        is row r + 8j of m16 tile p   (m8: row r of tile 2p + j)
//!        warp-tile column 16q + 8j + c        is column c of n8 tile 2q + j
//! f64 k8, k16: rows as for w ≥ 2, columns as for c64 (split, below)
//! ```
//!
//! Lane `(g, t)` reads A's rows `8w·p + w·g … + w − 1` with one load (and
//! B's columns likewise). It owns C's rows `8w·p + w·g …`, a run the
//! epilogue stores with one 16-byte access, and columns `8w·q + 2w·t … +
//! 2w − 1`. A c64 element is 16 bytes itself: lane `(g, t)` reads A's rows
//! `16p + g` and `16p + 8 + g`, B's columns `16q + g`, `16q + 8 + g`, and
//! owns C's rows `8i + g`, columns `8i + 2t, +1`.
//!
//! An f64 shape taking several elements of B (k8, k16) wants B's operand,
//! one column's elements at rows `t, t + 4, …`, in consecutive registers.
//! Its B columns are split, as c64's are: lane `(g, t)` reads column `g` of
//! each n8 tile, 8 bytes a load, and owns C's columns `8j + 2t` and `8j +
//! 2t + 1` ([`super::layout::b_columns_split`]). From a run, the loads of
//! two adjacent columns at one k row would be merged by ptxas into one
//! 16-byte load, whose halves then move into the operands' registers: 8
//! `MOV`s a k16 `mma` (split, the one-set m16n8k8 and m16n8k16 kernels of
//! `tuning/sm_90-dmma` ran 2–7% faster, run 57 against runs 51 and 56).
//! These layouts are the [`super::CLayout`] of a tensor-core math.
//!
//! # K-contiguous operands
//!
//! An operand whose K leads in global memory (A for op T/C, B for op N) is
//! stored `[free][k]` when the layout rules allow
//! ([`stripe_layout`](crate::constraints::stripe_layout)): its copies are
//! 16-byte runs along K, not one element per copy. A lane then wants a
//! fragment row's k elements side by side, so the step renumbers its k
//! slots: where the ISA's fragments say lane `(g, t)` holds k `t + 4i`, it
//! gets stripe row `(K/4)·t + i`, for both operands alike (an `mma` sums
//! over k: any order A and B share gives the same products). A
//! K-contiguous operand's row then loads its `K/4` slots at once (4, 8 or
//! 16 bytes); a K-major one reads 16 bytes of consecutive rows at each of
//! its slot rows as above. The chunk swizzle that keeps the row loads free
//! of bank conflicts sits in the lane's read pointer (its mask depends only
//! on `g`): step `s` of the row's groups of `R` steps is at `pointer ^ 16G
//! (s mod R) + 128 (s div R)`, one `xor` a step.
//!
//! # TF32
//!
//! A `.tf32` operand is an f32 with 10 mantissa bits, its 13 low bits
//! zero (the emulator rejects an `mma` operand that is not). `tf32(x)`
//! rounds to nearest, ties away from zero, as `cvt.rna.tf32.f32` does, but
//! not with it: ptxas lowers that `cvt` to a predicated add in place (the
//! add skipped for a NaN or an infinity), and a lane's run of loaded
//! elements, in place, is not in the registers an `mma` wants its fragment
//! in (A's `a0 … a3` consecutive, B's `b0, b1`): ptxas then spent about
//! 4 `MOV`s per `mma` (127 for the 32 of a 128 × 128 1xTF32 loop). Here
//! `tf32(x)` is `(x + half) & !0x1fff`, `half` the TF32 half place `x`
//! carries (its sign and exponent, mantissa cleared, times
//! 2^−11), added by one FMA that writes a new register anywhere ptxas
//! likes. The sum is exact for a normal `x`, a carry runs into the exponent
//! (to infinity at the top), and a NaN or an infinity stays one; a
//! subnormal `x`, whose half place this does not see, is truncated instead
//! (an error below 2^−136). ptxas drops the `and` where only `mma`s read
//! the value (the tensor cores ignore the low bits).
//!
//! `tf32` multiplies `tf32(a)·tf32(b)`; `tf32x3` splits each element once
//! per step as its set is multiplied, `big = tf32(x)`, `small = tf32(x −
//! big)` (the second rounding in two integer operations, right for the
//! finite `x − big` of a finite `x`; where `x` is not finite, `big` is not
//! either and decides C), and issues `big_a·small_b`, `small_a·big_b`
//! and `big_a·big_b` into a fragment of zeros, which one round-to-nearest
//! `add.f32` per element then joins to the accumulators: the tensor cores'
//! own f32 sums truncate, and accumulating all of K in them cost 7× cuBLAS
//! SGEMM's error on the H100 (1.4–1.9× this way, `tuning/sm_90-tf32`).
//! `small_a·small_b` lies below an f32 ulp of the product, and `x − big` is
//! exact in f32. Products of TF32 values are exact in f32.
//!
//! # Complex products
//!
//! With `A = a + ib`, `B = c + id` (`σ_A`, `σ_B` = −1 for a conjugated
//! operand), `re += a·c − σ_A σ_B b·d` and `im += σ_B a·d + σ_A b·c`: four
//! `mma`s, whose signs go on B's fragments (an `mma` has no negated
//! operand): B's imaginary part is negated once per element and step, its
//! real part too when A is conjugated (after the TF32 split, part by part).
//! B's fragments are the smaller: `n_thr · K / 8` elements a lane, A's
//! `m_thr · K / 4`.
//!
//! `dmma` products and sums are IEEE binary64; only their order differs
//! from the FMA kernels (the emulator runs each `mma` as a chain of FMAs
//! along K).

use crate::constraints::{Operand, StripeLayout, Swizzle};
use crate::ptx::{Address, BinOp, CacheQual, Instr, MmaKind, MmaShape, Operand as Op, Reg, Space, Type};
use crate::spec::Math;

use super::walk::StepMath;
use super::{CLayout, Cx, Elem};

/// One element of a lane's fragments: the registers it is loaded into, and
/// the `mma` operands made of them. Each operand part is its list of terms:
/// the loaded register itself (`dmma`), its TF32 rounding (`tf32`), or its
/// big and small TF32 parts (`tf32x3`).
struct Frag {
    x: Elem,
    re: Vec<Reg>,
    im: Vec<Reg>,
    /// B's parts negated (complex only; `neg_re` when A is conjugated).
    neg_re: Vec<Reg>,
    neg_im: Vec<Reg>,
}

/// Which of a fragment element's operand parts an `mma` takes.
#[derive(Clone, Copy)]
enum Part {
    Re,
    Im,
    NegRe,
    NegIm,
}

impl Frag {
    fn part(&self, part: Part) -> &[Reg] {
        match part {
            Part::Re => &self.re,
            Part::Im => &self.im,
            Part::NegRe => &self.neg_re,
            Part::NegIm => &self.neg_im,
        }
    }
}

/// One set of a lane's fragments for one step: `a[p][s][j]` is A's element
/// of the `j`-th row of the lane's run in block `p`, at stripe row `t +
/// 4s`; `b[q][s][j]` likewise for B's columns.
struct Set {
    a: Vec<Vec<Vec<Frag>>>,
    b: Vec<Vec<Vec<Frag>>>,
}

/// The tensor-core product of a plan with a tensor-core math.
pub(crate) struct Fragments {
    /// Conjugate A's elements as they are multiplied.
    conj_a: bool,
    /// Conjugate B's elements as they are multiplied.
    conj_b: bool,
    math: Math,
    kind: MmaKind,
    shape: MmaShape,
    /// Whether elements are complex.
    complex: bool,
    /// Rows (columns) of a lane's run, `max(lds_width, 2)`.
    run: u32,
    /// Whether a run is contiguous (`lds_width ≥ 2`); c64's rows are 8 apart.
    contiguous: bool,
    /// B's columns 8 apart although A's rows are contiguous
    /// ([`super::layout::b_columns_split`]).
    b_split: bool,
    /// Stripe rows between the k slots of consecutive lanes `t`: 1 (the
    /// ISA's `t + 4i`), or `K/4` when an operand is K-contiguous (`(K/4)·t
    /// + i`, a lane's slots adjacent; see the module doc).
    slot_stride: u32,
    /// Per operand (A, B): the swizzle of a K-contiguous stripe and the
    /// scratch pointer of its steps.
    swizzled: [Option<(Swizzle, Reg)>; 2],
    /// The accumulators, `[i * n_thr + j]`.
    acc: Vec<Elem>,
    n_thr: u32,
    /// One or two sets (`frag_sets`), alternating by step.
    sets: Vec<Set>,
    /// Scratch for the TF32 half place of `x` (see the module doc).
    half: Option<Reg>,
    /// Scratch for `x − big` of the TF32 split.
    rest: Option<Reg>,
    /// tf32x3: zeros, and the fragment a step's three products go into
    /// before a round-to-nearest add joins them to the accumulators.
    step_acc: Option<(Vec<Reg>, Vec<Reg>)>,
}

impl Fragments {
    /// The product, conjugating A's and B's elements as it multiplies them
    /// when asked (for stripes that reach shared memory unconjugated).
    pub fn new(conj_a: bool, conj_b: bool) -> Fragments {
        Fragments {
            conj_a,
            conj_b,
            math: Math::Dmma,
            kind: MmaKind::F64,
            shape: MmaShape::F64[0],
            complex: false,
            run: 2,
            contiguous: true,
            b_split: false,
            slot_stride: 1,
            swizzled: [None; 2],
            acc: Vec::new(),
            n_thr: 0,
            sets: Vec::new(),
            half: None,
            rest: None,
            step_acc: None,
        }
    }

    /// The accumulator of the thread's row `i` and of the column that is
    /// column `2t + e` of n8 tile `run·q + j`.
    fn acc(&self, i: u32, q: u32, j: u32, e: u32) -> Elem {
        let col = if self.run_contiguous(Operand::B) { self.run * e + j } else { 2 * j + e };
        self.acc[(i * self.n_thr + 2 * self.run * q + col) as usize]
    }

    /// The TF32 terms of a part: its registers, and their names' suffixes.
    fn terms(&self) -> &'static [&'static str] {
        match self.math {
            Math::Tf32x3 => &["hi", "lo"],
            Math::Tf32 => &["tf"],
            _ => &[],
        }
    }

    /// `(A's term, B's term)` of each `mma` of one real product: the small
    /// terms first, into the accumulators the big one then joins.
    fn term_pairs(&self) -> &'static [(usize, usize)] {
        match self.math {
            Math::Tf32x3 => &[(0, 1), (1, 0), (0, 0)],
            _ => &[(0, 0)],
        }
    }

    /// A fragment element loaded into `name`, with its operand registers.
    fn frag(&self, cx: &mut Cx<'_>, name: &str, negate: bool) -> Frag {
        let x = cx.elem(name);
        let terms = self.terms();
        let mut part = |reg: Option<Reg>, part: &str| -> Vec<Reg> {
            match reg {
                None => Vec::new(),
                Some(r) if terms.is_empty() => vec![r],
                Some(_) => terms.iter().map(|t| cx.b.reg(format!("{name}{part}_{t}"), Type::B32)).collect(),
            }
        };
        let (re, im) = (part(Some(x.re), ""), part(x.im, "_i"));
        let mut negated = |of: &[Reg], wanted: bool, part: &str| -> Vec<Reg> {
            let suffixes: Vec<String> = if terms.is_empty() {
                vec![String::new()]
            } else {
                terms.iter().map(|t| format!("_{t}")).collect()
            };
            let n = if wanted { of.len() } else { 0 };
            (0..n).map(|i| cx.b.reg(format!("{name}_n{part}{}", suffixes[i]), of[i].ty)).collect()
        };
        let neg_im = negated(&im, negate && self.complex, "im");
        let neg_re = negated(&re, negate && self.complex && self.conj_a, "re");
        Frag { x, re, im, neg_re, neg_im }
    }

    /// Rounds (and splits) the loaded elements of `frags` into their TF32
    /// terms, and negates B's parts where asked.
    fn convert(&self, cx: &mut Cx<'_>, frags: &[Vec<Vec<Frag>>]) {
        for f in frags.iter().flatten().flatten() {
            if let Some(half) = self.half {
                for (x, terms) in [(Some(f.x.re), &f.re), (f.x.im, &f.im)] {
                    let Some(x) = x else { continue };
                    let small = terms.get(1).copied().zip(self.rest);
                    split_tf32(cx, x, half, terms[0], small);
                }
            }
            for (neg, of) in [(&f.neg_im, &f.im), (&f.neg_re, &f.re)] {
                for (&n, &r) in neg.iter().zip(of) {
                    cx.b.push(Instr::neg(n, r));
                }
            }
        }
    }
}

/// `big = tf32(x)` and, with `small = Some((small, rest))`, `small =
/// tf32(x − big)` (see the module doc); `half` and `rest` are scratch.
pub(super) fn split_tf32(cx: &mut Cx<'_>, x: Reg, half: Reg, big: Reg, small: Option<(Reg, Reg)>) {
    // big = tf32(x): x plus its half place (sign and exponent times 2^-11),
    // by an FMA into a fresh register (see the module doc).
    cx.b.push(Instr::binary(BinOp::And, half, x, Op::imm(0xff80_0000_u32)));
    cx.b.push(Instr::fma(big, half, Op::f32(TF32_HALF_PLACE), x));
    cx.b.push(Instr::binary(BinOp::And, big, big, Op::imm(TF32_MASK)));
    if let Some((small, rest)) = small {
        // x − big is exact in f32; rounded to TF32 by adding half its last
        // place and clearing the 13 low bits in two integer operations (it
        // is non-finite only where big is, which then decides C).
        cx.b.push(Instr::binary_as(BinOp::Sub, Type::F32, rest, x, big));
        cx.b.push(Instr::binary_as(BinOp::Add, Type::U32, small, rest, Op::imm(0x1000)));
        cx.b.push(Instr::binary(BinOp::And, small, small, Op::imm(TF32_MASK)));
    }
}

/// The bits of a TF32 value: all but the 13 low ones.
const TF32_MASK: u32 = 0xffff_e000;

/// 2^−11: times an f32's sign and exponent bits (mantissa cleared), half
/// a place of its TF32 rounding.
const TF32_HALF_PLACE: f32 = 1.0 / 2048.0;

/// `f(block, s, j)` for every block, k row `s` and element `j` of a lane's
/// run, as `[block][s][j]`.
fn grid<T>(blocks: u32, subs: u32, run: u32, mut f: impl FnMut(u32, u32, u32) -> T) -> Vec<Vec<Vec<T>>> {
    (0..blocks).map(|p| (0..subs).map(|s| (0..run).map(|j| f(p, s, j)).collect()).collect()).collect()
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
        self.shape = shape;
        self.math = spec.math;
        self.kind = spec.math.mma_kind().expect("a tensor-core math");
        self.complex = cx.precision().is_complex();
        self.n_thr = n_thr;
        // Elements a lane's 16-byte load holds: 2 f64, 1 c64, 4 f32, 2 c32.
        let r = spec.lds_width;
        self.run = r.max(2);
        self.contiguous = r >= 2;
        self.b_split = super::layout::b_columns_split(&spec);

        cx.b.reg_group(format!(
            "inner product: shared-memory read pointers of lane (g, t) = (lane / 4, lane mod 4), \
             warp tile {wm} x {wn} in mma.{}{} steps",
            shape.name(),
            self.kind.suffixes()
        ));
        let a_sptr = cx.b.reg("a_sld", Type::U32);
        let b_sptr = cx.b.reg("b_sld", Type::U32);
        let (g, t) = cx.lane.expect("thread_position places a tensor-core math's lanes");
        let (rw, cw) = (layout.row_width(), layout.col_width());
        let k_contiguous = [Operand::A, Operand::B].iter().any(|&o| cx.plan.layout(o).k_contiguous());
        self.slot_stride = if k_contiguous { shape.k / 4 } else { 1 };
        let slot = if k_contiguous { format!("{} t", self.slot_stride) } else { "t".to_owned() };
        for (operand, ptr, base) in [(Operand::A, a_sptr, cx.smem_a), (Operand::B, b_sptr, cx.smem_b)] {
            // The lane's first row of A (column of B) in the block's tile.
            let first = match operand {
                Operand::A => {
                    let row = cx.b.reg("a_sld_row", Type::U32);
                    cx.b.comment(format!(
                        "A: the lane's first row tx {rw} = warp_m WM + {r} g of its warp's tile"
                    ));
                    cx.b.push(Instr::mul(row, cx.tx, Op::imm(rw)));
                    row
                }
                Operand::B => {
                    let col = cx.b.reg("b_sld_col", Type::U32);
                    // A lane's run of columns, or with split columns its n8 tiles' column g.
                    let r = if self.b_split { 1 } else { r };
                    cx.b.comment(format!(
                        "B: the lane's first column warp_n WN + {r} g, warp_n WN = {cw} (ty - t)"
                    ));
                    cx.b.push(Instr::sub(col, cx.ty, t));
                    cx.b.push(Instr::mul(col, col, Op::imm(cw)));
                    cx.b.push(Instr::mad(col, g, Op::imm(r), col));
                    col
                }
            };
            let (x, stride) = (operand.upper(), cx.plan.stride(operand));
            match cx.plan.layout(operand) {
                StripeLayout::KMajor => {
                    cx.b.comment(format!("{x}s[{slot}][first], K-major"));
                    cx.b.push(Instr::mul(ptr, t, Op::imm(self.slot_stride * stride)));
                    cx.b.push(Instr::add(ptr, ptr, first));
                    cx.b.push(Instr::mul(ptr, ptr, Op::imm(esz)));
                }
                StripeLayout::KContiguous(z) => {
                    cx.b.comment(format!("{x}s[first][{slot}], K-contiguous, its chunk swizzled"));
                    cx.b.push(Instr::mul(ptr, t, Op::imm(self.slot_stride)));
                    cx.b.push(Instr::mad(ptr, first, Op::imm(stride), ptr));
                    cx.b.push(Instr::mul(ptr, ptr, Op::imm(esz)));
                    let scratch = cx.b.reg(format!("{}_sld_step", operand.lower()), Type::U32);
                    cx.swizzle(ptr, first, z, scratch);
                    self.swizzled[operand as usize] = Some((z, scratch));
                }
            }
            let start = cx.b.reg(format!("{}_sld_base", operand.lower()), Type::U32);
            cx.shared_address(start, base);
            cx.b.push(Instr::add(ptr, ptr, start));
        }

        cx.b.reg_group(format!("C accumulators: {m_thr} x {n_thr} per thread, in mma fragments"));
        self.acc = (0..m_thr)
            .flat_map(|i| (0..n_thr).map(move |j| (i, j)))
            .map(|(i, j)| cx.elem(&format!("c_{i}_{j}")))
            .collect();
        let sets = if spec.frag_sets > 1 { 2 } else { 1 };
        let split = match self.math {
            Math::Tf32x3 => ", each split into TF32 parts hi + lo",
            Math::Tf32 => ", each rounded to TF32",
            _ => "",
        };
        cx.b.reg_group(format!(
            "inner product: the lane's elements of A's rows and B's columns at {} k rows, {sets} set(s){split}",
            shape.k / 4
        ));
        let block = crate::constraints::mma_warp_block(spec.precision);
        let (subs, run) = (shape.k / 4, self.run);
        let sets: Vec<Set> = (0..sets)
            .map(|set| {
                let a = grid(wm / block, subs, run, |p, s, j| {
                    self.frag(cx, &format!("a{set}_{p}_{s}_{j}"), false)
                });
                let b = grid(wn / block, subs, run, |q, s, j| {
                    self.frag(cx, &format!("b{set}_{q}_{s}_{j}"), true)
                });
                Set { a, b }
            })
            .collect();
        self.sets = sets;
        if self.kind == MmaKind::Tf32 {
            self.half = Some(cx.b.reg("tf32_half", Type::B32));
        }
        if self.math == Math::Tf32x3 {
            self.rest = Some(cx.b.reg("tf32_rest", Type::B32));
            let n = shape.c_per_lane();
            let zero: Vec<Reg> = (0..n).map(|i| cx.b.reg(format!("tf32_zero{i}"), Type::F32)).collect();
            let step: Vec<Reg> = (0..n).map(|i| cx.b.reg(format!("tf32_step{i}"), Type::F32)).collect();
            for &z in &zero {
                cx.b.push(Instr::mov(z, Op::float_zero(Type::F32)));
            }
            self.step_acc = Some((zero, step));
        }
        (a_sptr, b_sptr)
    }

    fn load(&self, cx: &mut Cx<'_>, set: usize, (a_ptr, b_ptr): (Reg, Reg), step: u32) {
        let set = &self.sets[set];
        self.load_operand(cx, Operand::A, &set.a, a_ptr, step);
        self.load_operand(cx, Operand::B, &set.b, b_ptr, step);
    }

    fn multiply(&self, cx: &mut Cx<'_>, set: usize) {
        let set = &self.sets[set];
        if self.kind == MmaKind::Tf32 {
            // Round (split) the set just before its products, a step after its loads.
            self.convert(cx, &set.a);
            self.convert(cx, &set.b);
        }
        for mt in 0..self.m_tiles(set) {
            for nt in 0..set.b.len() as u32 * self.run {
                self.tile_product(cx, set, mt, nt);
            }
        }
    }

    fn accumulators(&self) -> &[Elem] {
        &self.acc
    }
}

/// A block's fragments, `[s][j]`: k row `s`, element `j` of a lane's run.
type Block = Vec<Vec<Frag>>;

impl Fragments {
    /// Loads the fragments of step `step` of `operand`'s warp-tile blocks
    /// from `ptr` (and negates B's parts where asked).
    fn load_operand(&self, cx: &mut Cx<'_>, operand: Operand, blocks: &[Block], ptr: Reg, step: u32) {
        let shape = self.shape;
        let esz = cx.esz();
        let block = crate::constraints::mma_warp_block(cx.precision());
        let contiguous = self.run_contiguous(operand);
        let stride = cx.plan.stride(operand);
        // Row (column) `j` of a lane's run in block `p`, from its first one.
        let run_row =
            |p: usize, j: usize| p as u32 * block + if contiguous { j as u32 } else { 8 * j as u32 };
        let ld = |cx: &mut Cx<'_>, regs: &[Reg], ptr: Reg, offset: i64| {
            cx.b.push(Instr::ld(Space::Shared, CacheQual::None, regs, Address::reg(ptr, offset)));
        };
        if let Some((z, scratch)) = self.swizzled[operand as usize] {
            // Each row's k slots at once. Step `s` of the row's groups of
            // `R` steps sits at `s ^ mask`: the pointer holds the lane's
            // mask, XORing the step in lands on it.
            let (lo, hi) = (step % z.period, step / z.period);
            let ptr = if lo == 0 {
                ptr
            } else {
                cx.b.push(Instr::binary(BinOp::Xor, scratch, ptr, Op::imm(16 * z.chunks * lo)));
                scratch
            };
            for (p, block_frags) in blocks.iter().enumerate() {
                for j in 0..block_frags[0].len() {
                    let regs: Vec<Reg> = block_frags.iter().flat_map(|run| run[j].x.regs()).collect();
                    ld(cx, &regs, ptr, i64::from(run_row(p, j) * stride) * esz + 128 * i64::from(hi));
                }
            }
        } else {
            for (p, block_frags) in blocks.iter().enumerate() {
                for (s, run) in block_frags.iter().enumerate() {
                    let row = step * shape.k + s as u32 * if self.slot_stride > 1 { 1 } else { 4 };
                    let offset = |col: u32| i64::from(row * stride + p as u32 * block + col) * esz;
                    if !contiguous {
                        // Rows (columns) 8j + g, one element (c64: re and im) per load.
                        for (j, f) in run.iter().enumerate() {
                            ld(cx, &f.x.regs(), ptr, offset(8 * j as u32));
                        }
                    } else {
                        let regs: Vec<Reg> = run.iter().flat_map(|f| f.x.regs()).collect();
                        ld(cx, &regs, ptr, offset(0));
                    }
                }
            }
        }
        if operand == Operand::B && self.kind == MmaKind::F64 {
            // Nothing to round: negate B's parts as they land.
            self.convert(cx, blocks);
        }
    }

    /// Whether a lane's run of `operand`'s rows (columns) is consecutive;
    /// c64's rows and columns, and split B columns, are 8 apart.
    fn run_contiguous(&self, operand: Operand) -> bool {
        self.contiguous && !(operand == Operand::B && self.b_split)
    }

    /// m tiles of a warp tile.
    fn m_tiles(&self, set: &Set) -> u32 {
        // m16: a block holds run/2 tiles; f64 m8: run.
        let per_block = if self.shape.m == 16 { self.run / 2 } else { self.run };
        set.a.len() as u32 * per_block
    }

    /// `C += A·B` of the warp tile's m tile `mt` and n tile `nt` from set
    /// `set`.
    fn tile_product(&self, cx: &mut Cx<'_>, set: &Set, mt: u32, nt: u32) {
        let shape = self.shape;
        let m16 = shape.m == 16;
        let run = self.run;
        let (q, jb) = (nt / run, nt % run);
        // m16: tile mt is rows j = 2 (mt mod run/2) + {0, 1} of block mt / (run/2);
        // f64 m8: tile 2p + j is row j of block p.
        let per_block = if m16 { run / 2 } else { run };
        let p = mt / per_block;
        let a_at = |i: u32| -> (u32, u32) {
            // A's element i: k row s, run element j.
            if m16 { (i / 2, 2 * (mt % per_block) + i % 2) } else { (i, mt % per_block) }
        };
        let a: Vec<&Frag> = (0..shape.a_per_lane())
            .map(|i| {
                let (s, j) = a_at(i);
                &set.a[p as usize][s as usize][j as usize]
            })
            .collect();
        let b: Vec<&Frag> =
            (0..shape.b_per_lane()).map(|i| &set.b[q as usize][i as usize][jb as usize]).collect();
        let c: Vec<Elem> = (0..shape.c_per_lane())
            .map(|i| {
                // Accumulator i: fragment row g (+ 8 for i ≥ 2), column 2t + i mod 2.
                let j = if m16 { 2 * (mt % per_block) + i / 2 } else { mt % per_block };
                self.acc(run * p + j, q, jb, i % 2)
            })
            .collect();
        let c_re: Vec<Reg> = c.iter().map(|e| e.re).collect();
        let mma = |cx: &mut Cx<'_>, acc: &[Reg], a_part: Part, b_part: Part| {
            // tf32x3: the step's products into zeroed fragments, then one
            // round-to-nearest add each (the tensor cores' own sums truncate).
            let (from, into) = match &self.step_acc {
                Some((zero, step)) => (zero.as_slice(), step.as_slice()),
                None => (acc, acc),
            };
            for (i, &(ta, tb)) in self.term_pairs().iter().enumerate() {
                let a_regs: Vec<Reg> = a.iter().map(|f| f.part(a_part)[ta]).collect();
                let b_regs: Vec<Reg> = b.iter().map(|f| f.part(b_part)[tb]).collect();
                let c = if i == 0 { from } else { into };
                cx.b.push(Instr::mma(self.kind, shape, into, &a_regs, &b_regs, c));
            }
            if self.step_acc.is_some() {
                for (&d, &x) in acc.iter().zip(into) {
                    cx.b.push(Instr::add(d, d, x));
                }
            }
        };
        if !self.complex {
            mma(cx, &c_re, Part::Re, Part::Re);
            return;
        }
        let c_im: Vec<Reg> = c.iter().map(|e| e.im.expect("complex")).collect();
        // re += a c − σ_A σ_B b d;  im += σ_B a d + σ_A b c.
        let d_for_re = if self.conj_a != self.conj_b { Part::Im } else { Part::NegIm };
        let d_for_im = if self.conj_b { Part::NegIm } else { Part::Im };
        let c_for_im = if self.conj_a { Part::NegRe } else { Part::Re };
        mma(cx, &c_re, Part::Re, Part::Re);
        mma(cx, &c_im, Part::Re, d_for_im);
        mma(cx, &c_re, Part::Im, d_for_re);
        mma(cx, &c_im, Part::Im, c_for_im);
    }
}
