//! The epilogue (Algorithm 1, line 23): `C = alpha · C_regs + beta · C`,
//! each thread storing its elements of the tile in the strided layout of
//! [`CLayout`], so that consecutive threads store consecutive rows.
//!
//! Two paths, chosen by a uniform test at run time:
//! - **runs**: a thread's elements come in runs of consecutive rows
//!   (`lds_width` of them, or 2 for a tensor-core math). When the block's
//!   tile lies wholly inside C and C's base address and `ldc` are multiples
//!   of the run, each run is read and written with one vector access
//!   (`ld.global.v2`/`.v4`, `st.global.v2`/`.v4`) and no element needs a
//!   bounds predicate. (Kernels with runs of one row, or of more than 16
//!   bytes, have only the other path.)
//! - **elements**: every element on its own, each guarded by whether its row
//!   and column exist: the tiles on C's edges, and any C the caller did not
//!   align. No caller's alignment is ever assumed.
//!
//! A 16-bit C (`f16`, `bf16`) takes the elements path only: each old value
//! is loaded as 16 bits into a `.b32` register (`ld.global.b16`) and
//! widened to f32 exactly (`cvt.f32.f16`; a bf16's bits shifted up 16 are
//! its f32), and each new one rounded to nearest even
//! (`cvt.rn.{f16x2,bf16x2}.f32`, the low half kept) and stored as 16 bits
//! (`st.global.b16`).
//!
//! A kernel with swapped operands (`operands = ba`) computes a tile of Cᵀ
//! and stores it transposed: the epilogue works on the transposed view of
//! the thread's elements ([`Store`]) — its rows are the product's columns,
//! which C holds consecutively — so both paths, the runs included, are the
//! same code in that view.
//!
//! BLAS semantics: when `beta = 0`, C is never read (it may hold NaN); the
//! branch on `beta` is uniform, taken by every thread alike. Elements outside
//! the matrix are neither read nor written.

use crate::ptx::{Address, BinOp, CacheQual, Cmp, Instr, Label, Operand as Op, Reg, Space, Type};

use super::{CLayout, Cx, Elem, Epilogue};

pub(crate) struct Strided;

/// The widest vector access to global memory, in bytes.
const MAX_VECTOR_BYTES: i64 = 16;

/// The thread's elements as C holds them: the product's tile, or for a
/// kernel with swapped operands its transpose. Everything the paths below
/// read about the tile is in this view.
struct Store {
    layout: CLayout,
    /// The accumulators, `[i * n_thr + j]` in this view.
    acc: Vec<Elem>,
    /// The thread's rows and columns of C.
    m_thr: u32,
    n_thr: u32,
    /// C's rows and columns (`m`, `n`).
    extent: (Reg, Reg),
    /// The block's first row and column of C.
    origin: (Reg, Reg),
    /// Rows and columns of C the block's tile covers.
    tile: (u32, u32),
}

impl Store {
    /// The view of the kernel's tile `acc` (`[i * n_thr + j]`, the plan's
    /// layout) that C holds.
    fn new(cx: &Cx<'_>, acc: &[Elem]) -> Store {
        let plan = cx.plan;
        let spec = plan.spec();
        let (m_thr, n_thr) = (plan.m_thr(), plan.n_thr());
        let layout = CLayout::new(plan);
        let p = cx.params;
        if !spec.swaps_operands() {
            return Store {
                layout,
                acc: acc.to_vec(),
                m_thr,
                n_thr,
                extent: (p.m, p.n),
                origin: (cx.blk_m0, cx.blk_n0),
                tile: (spec.m_blk, spec.n_blk),
            };
        }
        // Element (i, j) of the product is (j, i) of C.
        let acc = (0..n_thr).flat_map(|j| (0..m_thr).map(move |i| acc[(i * n_thr + j) as usize])).collect();
        Store {
            layout: layout.transposed(),
            acc,
            m_thr: n_thr,
            n_thr: m_thr,
            extent: (p.n, p.m),
            origin: (cx.blk_n0, cx.blk_m0),
            tile: (spec.n_blk, spec.m_blk),
        }
    }
}

/// What every path of the epilogue shares.
struct Shared<'a> {
    view: &'a Store,
    esz: i64,
    ldc_bytes: Reg,
    base: Reg,
    col_ptr: Reg,
    alpha_nim: Option<Reg>,
    beta_nim: Option<Reg>,
    /// A 16-bit C: its bits in a `.b32` register (loaded, or to store),
    /// and whether they are bf16's.
    half: Option<Half>,
}

/// The registers of a 16-bit C's conversions.
#[derive(Clone, Copy)]
struct Half {
    bits: Reg,
    bf16: bool,
}

/// How one path stores.
enum Path {
    /// One vector access per run of rows; the tile is inside C.
    Runs,
    /// Element by element, each under `row_ok[i] ∧ col_ok[j]` (in `ok`).
    Elements { row_ok: Vec<Reg>, col_ok: Vec<Reg>, ok: Reg },
}

impl Epilogue for Strided {
    fn emit(&mut self, cx: &mut Cx<'_>, acc: &[Elem]) {
        let view = Store::new(cx, acc);
        let kernel = CLayout::new(cx.plan);
        let (m_thr, n_thr) = (view.m_thr, view.n_thr);
        let esz = cx.esz();
        let w = i64::from(view.layout.row_width());
        let params = cx.params;

        cx.b.reg_group("epilogue");
        let row0 = cx.b.reg("c_row0", Type::U32);
        let col0 = cx.b.reg("c_col0", Type::U32);
        let row_lim = cx.b.reg("c_row_lim", Type::S32);
        let col_lim = cx.b.reg("c_col_lim", Type::S32);
        let ldc_bytes = cx.b.reg("ldc_bytes", Type::U64);
        let row_bytes = cx.b.reg("c_row_bytes", Type::U64);
        let base = cx.b.reg("c_base", Type::U64);
        let col_ptr = cx.b.reg("c_col_ptr", Type::U64);
        let beta_zero = cx.b.reg("p_beta_zero", Type::Pred);
        let neg_im = |cx: &mut Cx<'_>, e: Elem, name: &str| {
            e.im.map(|im| {
                let r = cx.b.reg(name, cx.scalar);
                cx.b.push(Instr::neg(r, im));
                r
            })
        };

        // The product's first row and column, C's column and row when the
        // operands are swapped.
        let (mut first, mut second) = (row0, col0);
        if cx.plan.spec().swaps_operands() {
            cx.b.comment("the thread's first element of C: the product's (row, column) is C's (column, row)");
            (first, second) = (col0, row0);
        } else {
            cx.b.comment("the thread's first element of C");
        }
        cx.b.push(Instr::mad(first, cx.tx, Op::imm(kernel.row_width()), cx.blk_m0));
        cx.b.push(Instr::mad(second, cx.ty, Op::imm(kernel.col_width()), cx.blk_n0));
        cx.b.push(Instr::mul(ldc_bytes, params.ldc, Op::imm(esz)));
        cx.b.push(Instr::mul_wide(row_bytes, row0, Op::imm(esz)));
        cx.b.push(Instr::add(row_bytes, row_bytes, params.c_ptr));
        cx.index_times_stride(base, col0, ldc_bytes, Some(row_bytes));

        let alpha_nim = neg_im(cx, params.alpha, "alpha_nim");
        let beta_nim = neg_im(cx, params.beta, "beta_nim");
        cx.b.comment("beta = 0: C is not read");
        let zero = Op::float_zero(cx.scalar);
        cx.b.push(Instr::setp(Cmp::Eq, cx.scalar, beta_zero, params.beta.re, zero));
        if let Some(im) = params.beta.im {
            let im_zero = cx.b.reg("p_beta_im_zero", Type::Pred);
            cx.b.push(Instr::setp(Cmp::Eq, cx.scalar, im_zero, im, zero));
            cx.b.push(Instr::and_pred(beta_zero, beta_zero, im_zero));
        }
        let half = cx.precision().is_half().then(|| Half {
            bits: cx.b.reg("c_half_bits", Type::B32),
            bf16: cx.precision() == crate::spec::Precision::Bf16,
        });
        let shared = Shared { view: &view, esz, ldc_bytes, base, col_ptr, alpha_nim, beta_nim, half };

        let runs = (w > 1 && w * esz <= MAX_VECTOR_BYTES && half.is_none()).then(|| {
            let runs = cx.b.label("epilogue_runs");
            let p = runs_test(cx, &view, w * esz, w);
            cx.b.push_if(p, Instr::bra_uni(runs));
            runs
        });

        cx.b.comment("element by element: which of the thread's rows and columns exist");
        let row_ok: Vec<Reg> = (0..m_thr).map(|i| cx.b.reg(format!("c_row_ok_{i}"), Type::Pred)).collect();
        let col_ok: Vec<Reg> = (0..n_thr).map(|j| cx.b.reg(format!("c_col_ok_{j}"), Type::Pred)).collect();
        let ok = cx.b.reg("c_ok", Type::Pred);
        cx.b.push(Instr::sub(row_lim, view.extent.0, row0));
        cx.b.push(Instr::sub(col_lim, view.extent.1, col0));
        for (i, &p) in row_ok.iter().enumerate() {
            cx.b.push(Instr::setp(Cmp::Gt, Type::S32, p, row_lim, Op::imm(view.layout.row_offset(i as u32))));
        }
        for (j, &p) in col_ok.iter().enumerate() {
            cx.b.push(Instr::setp(Cmp::Gt, Type::S32, p, col_lim, Op::imm(view.layout.col_offset(j as u32))));
        }
        let elements = Path::Elements { row_ok, col_ok, ok };
        let done = runs.map(|_| cx.b.label("epilogue_done"));
        emit_path(cx, &shared, &elements, beta_zero, "elements", done);
        if let (Some(runs), Some(done)) = (runs, done) {
            cx.b.place(runs);
            emit_path(cx, &shared, &Path::Runs, beta_zero, "runs", None);
            cx.b.place(done);
        }
    }
}

/// The uniform test of the runs path: the block's tile lies inside C, and
/// C's base address and `ldc` are multiples of the run (`bytes`, `w`
/// elements), so that every run is aligned (a thread's runs start at rows
/// that are multiples of `w`).
fn runs_test(cx: &mut Cx<'_>, view: &Store, bytes: i64, w: i64) -> Reg {
    let params = cx.params;
    let p = cx.b.reg("p_c_runs", Type::Pred);
    let q = cx.b.reg("p_c_runs_part", Type::Pred);
    let bits = cx.b.reg("c_align_bits", Type::U64);
    let room = cx.b.reg("c_room", Type::S32);
    cx.b.comment(format!(
        "runs of {w} rows in one access: the tile inside C, C's base and ldc multiples of {w} elements"
    ));
    cx.b.push(Instr::binary(BinOp::And, bits, params.c_ptr, Op::imm(bytes - 1)));
    cx.b.push(Instr::setp(Cmp::Eq, Type::U64, p, bits, Op::imm(0)));
    cx.b.push(Instr::binary(BinOp::And, bits, params.ldc, Op::imm(w - 1)));
    cx.b.push(Instr::setp(Cmp::Eq, Type::U64, q, bits, Op::imm(0)));
    cx.b.push(Instr::and_pred(p, p, q));
    cx.b.push(Instr::sub(room, view.extent.0, view.origin.0));
    cx.b.push(Instr::setp(Cmp::Ge, Type::S32, q, room, Op::imm(view.tile.0)));
    cx.b.push(Instr::and_pred(p, p, q));
    cx.b.push(Instr::sub(room, view.extent.1, view.origin.1));
    cx.b.push(Instr::setp(Cmp::Ge, Type::S32, q, room, Op::imm(view.tile.1)));
    cx.b.push(Instr::and_pred(p, p, q));
    p
}

/// One path, `C = alpha · C_regs + beta · C` then `C = alpha · C_regs`
/// behind the uniform branch on `beta_zero`, both ending at `done` (the
/// second falls through to the end of the path without one).
///
/// Reading C, the thread's columns go in groups of `c_batch`: the old
/// values of a group are all loaded before any of them is combined and
/// stored. `ptxas` cannot move a load above a store it might alias (the
/// columns lie `ldc` apart, a run-time value), so with groups of one each
/// column's loads wait for the previous column's stores.
fn emit_path(cx: &mut Cx<'_>, s: &Shared<'_>, path: &Path, beta_zero: Reg, name: &str, done: Option<Label>) {
    let end = done.is_none().then(|| cx.b.label(&format!("epilogue_{name}_done")));
    let target = done.or(end).expect("a label to end at");
    let (m_thr, n_thr) = (s.view.m_thr, s.view.n_thr);
    let batch = cx.plan.spec().c_batch.clamp(1, n_thr.max(1));
    let w = match path {
        Path::Runs => s.view.layout.row_width(),
        Path::Elements { .. } => 1,
    };
    // Old values: one run's worth with groups of one (each run's load beside
    // its store, the PTX the shipped kernels were measured with), else a
    // group's worth (column `c` of the group, row `i` of the thread at
    // `c · m_thr + i`, [`old_at`]).
    let olds: Vec<Elem> = if batch == 1 {
        (0..w).map(|e| cx.elem(&format!("c_{name}_old_{e}"))).collect()
    } else {
        (0..batch * m_thr).map(|e| cx.elem(&format!("c_{name}_old_{}_{}", e / m_thr, e % m_thr))).collect()
    };
    let news: Vec<Elem> = (0..w).map(|e| cx.elem(&format!("c_{name}_new_{e}"))).collect();
    let overwrite = cx.b.label(&format!("epilogue_{name}_beta_zero"));
    cx.b.push_if(beta_zero, Instr::bra_uni(overwrite));
    for read_c in [true, false] {
        if read_c {
            cx.b.comment(format!("{name}: C = alpha * C_regs + beta * C"));
        } else {
            cx.b.place(overwrite);
            cx.b.comment(format!("{name}: C = alpha * C_regs"));
        }
        let batched = read_c && batch > 1;
        let group = if batched { batch } else { 1 };
        for first_col in (0..n_thr).step_by(group as usize) {
            let cols = first_col..(first_col + group).min(n_thr);
            if batched {
                cx.b.comment(format!(
                    "{name}: old C of columns {}..{} before any is written",
                    cols.start, cols.end
                ));
                for j in cols.clone() {
                    for_each_run(cx, s, path, j, w, |cx, first, addr, push| {
                        let at = old_at(j - first_col, first, m_thr);
                        load_old(cx, s, &olds[at..at + w as usize], addr, push);
                    });
                }
            }
            for j in cols {
                for_each_run(cx, s, path, j, w, |cx, first, addr, push| {
                    let at = if batched { old_at(j - first_col, first, m_thr) } else { 0 };
                    let old = &olds[at..at + w as usize];
                    if read_c && !batched {
                        load_old(cx, s, old, addr, push);
                    }
                    // The arithmetic is guarded only where it reads C's old
                    // value (which exists where it was loaded).
                    let guard = match path {
                        Path::Elements { ok, .. } if read_c => Some(*ok),
                        _ => None,
                    };
                    for (e, (new, old)) in news.iter().zip(old).enumerate() {
                        let c = s.view.acc[((first + e as u32) * n_thr + j) as usize];
                        combine(cx, s, guard, *new, c, read_c.then_some(*old));
                    }
                    store_new(cx, s, &news, addr, push);
                });
            }
        }
        if read_c || end.is_none() {
            cx.b.push(Instr::bra_uni(target));
        }
    }
    if let Some(end) = end {
        cx.b.place(end);
    }
}

/// Loads the old values of a run at `addr` into `old` (through `push`, which
/// guards): one vector access, or a 16-bit C's element widened to f32.
fn load_old(cx: &mut Cx<'_>, s: &Shared<'_>, old: &[Elem], addr: Address, push: &dyn Fn(&mut Cx<'_>, Instr)) {
    let Some(Half { bits, bf16 }) = s.half else {
        let regs: Vec<Reg> = old.iter().flat_map(Elem::regs).collect();
        return push(cx, Instr::ld(Space::Global, CacheQual::None, &regs, addr));
    };
    for (e, old) in old.iter().enumerate() {
        let at = Address { offset: addr.offset + e as i64 * s.esz, ..addr };
        push(cx, Instr::ld_b16(Space::Global, bits, at));
        if bf16 {
            push(cx, Instr::binary(BinOp::Shl, bits, bits, Op::imm(16)));
            push(cx, Instr::mov(old.re, bits));
        } else {
            push(cx, Instr::cvt_f32_f16(old.re, bits));
        }
    }
}

/// Stores a run's new values at `addr` (through `push`): one vector
/// access, or a 16-bit C's element rounded to nearest even.
fn store_new(
    cx: &mut Cx<'_>,
    s: &Shared<'_>,
    new: &[Elem],
    addr: Address,
    push: &dyn Fn(&mut Cx<'_>, Instr),
) {
    let Some(Half { bits, bf16 }) = s.half else {
        let regs: Vec<Reg> = new.iter().flat_map(Elem::regs).collect();
        return push(cx, Instr::st(Space::Global, addr, &regs));
    };
    for (e, new) in new.iter().enumerate() {
        let at = Address { offset: addr.offset + e as i64 * s.esz, ..addr };
        push(cx, Instr::cvt_pack_half(bits, new.re, new.re, bf16));
        push(cx, Instr::st_b16(Space::Global, at, bits));
    }
}

/// Where the old value of row `first` of column `col` of a group lies in
/// the group's registers.
fn old_at(col: u32, first: u32, m_thr: u32) -> usize {
    (col * m_thr + first) as usize
}

/// Column `j`'s runs of `w` rows: points `col_ptr` at the column, then
/// calls `body` with each run's first row, its address and a push that
/// guards an instruction by whether the run's element exists (elements
/// path; the runs path needs no guard).
fn for_each_run(
    cx: &mut Cx<'_>,
    s: &Shared<'_>,
    path: &Path,
    j: u32,
    w: u32,
    mut body: impl FnMut(&mut Cx<'_>, u32, Address, &dyn Fn(&mut Cx<'_>, Instr)),
) {
    let m_thr = s.view.m_thr;
    let col_offset = i64::from(s.view.layout.col_offset(j));
    cx.b.push(Instr::mad(s.col_ptr, s.ldc_bytes, Op::imm(col_offset), s.base));
    for first in (0..m_thr).step_by(w as usize) {
        let addr = Address::reg(s.col_ptr, i64::from(s.view.layout.row_offset(first)) * s.esz);
        let guard = match path {
            Path::Runs => None,
            Path::Elements { row_ok, col_ok, ok } => {
                cx.b.push(Instr::and_pred(*ok, row_ok[first as usize], col_ok[j as usize]));
                Some(*ok)
            }
        };
        body(cx, first, addr, &|cx, instr| push_guarded(cx, guard, instr));
    }
}

/// `instr`, predicated on `guard` if there is one.
fn push_guarded(cx: &mut Cx<'_>, guard: Option<Reg>, instr: Instr) {
    match guard {
        Some(p) => cx.b.push_if(p, instr),
        None => cx.b.push(instr),
    }
}

/// `new = alpha · c (+ beta · old)`, complex where the elements are.
fn combine(cx: &mut Cx<'_>, s: &Shared<'_>, guard: Option<Reg>, new: Elem, c: Elem, old: Option<Elem>) {
    let params = cx.params;
    let push = |cx: &mut Cx<'_>, instr| push_guarded(cx, guard, instr);
    push(cx, Instr::mul(new.re, params.alpha.re, c.re));
    if let (Some(n_im), Some(c_im), Some(a_im), Some(a_nim)) = (new.im, c.im, params.alpha.im, s.alpha_nim) {
        push(cx, Instr::fma(new.re, a_nim, c_im, new.re));
        push(cx, Instr::mul(n_im, params.alpha.re, c_im));
        push(cx, Instr::fma(n_im, a_im, c.re, n_im));
    }
    if let Some(old) = old {
        push(cx, Instr::fma(new.re, params.beta.re, old.re, new.re));
        if let (Some(n_im), Some(o_im), Some(b_im), Some(b_nim)) =
            (new.im, old.im, params.beta.im, s.beta_nim)
        {
            push(cx, Instr::fma(new.re, b_nim, o_im, new.re));
            push(cx, Instr::fma(n_im, params.beta.re, o_im, n_im));
            push(cx, Instr::fma(n_im, b_im, old.re, n_im));
        }
    }
}
