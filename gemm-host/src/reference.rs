//! The CPU reference every GEMM is checked against, and the random inputs.
//!
//! One implementation for the GPU tests, `cargo xtask verify` and the tuner's
//! correctness check: a plain `f64` (or `Complex<f64>`) GEMM with exactly
//! the BLAS semantics of [`crate::validate`] (same argument checks, same
//! quick returns; `beta = 0` never reads C, `alpha = 0` never reads A or B),
//! and the normwise error `‖out − ref‖_F / ‖ref‖_F` with the tolerances the
//! project accepts.

use std::ops::{Add, Mul};

use gemm_codegen::{Element, Math, Op, Precision};
use num_complex::Complex;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::config::{GemmConfig, Layout, Matrix};
use crate::validate::{self, ArgError, BufferInfo, Buffers, Checked};

/// `Complex<f64>`: the reference's element type for every precision.
pub type C64 = Complex<f64>;

/// The largest accepted error ([`componentwise_error`]) of C for a product
/// of depth `k` in `precision` by `math`: a rigorous bound that grows with
/// `k`, so a correct kernel cannot exceed it and a wrong one is caught as
/// early as the arithmetic allows.
///
/// Each element of C is `alpha · Σ a·b + beta · c`: `k` products summed in
/// some order (kernels differ: register blocking, tensor-core fragments,
/// split K), then at most three more roundings (`alpha·`, `beta·`, `+`).
/// Whatever the order, the computed value lies within
/// `γ_n = n·u / (1 − n·u)` of the exact one relative to the same expression
/// in moduli, the denominator of [`componentwise_error`] (Higham, *Accuracy
/// and Stability of Numerical Algorithms*, 2nd ed., §3.1 and §3.6), `u` the
/// unit roundoff (2^-24 for f32 and c32, 2^-53 for f64 and c64), and:
/// - `n = k + 3` for real precisions; a complex product is four real ones,
///   each component of C a real sum of `2k` products, and complex `alpha·`
///   and `beta·` take up to three roundings each, so `n = 2k + 8`, and the
///   error's modulus takes a factor √2;
/// - tensor-core math (`dmma`, `tf32`, `tf32x3`): `2u` per rounding, since
///   the PTX ISA does not promise round-to-nearest inside `mma`;
/// - `tf32x3` sums `3k` products, each off by at most `3 · 2^-22` relative
///   (the dropped small·small term and the TF32 rounding of the small
///   parts); `tf32` rounds both inputs to 10 mantissa bits, each product
///   off by `2^-10 + 2^-22`;
/// - plus the f64 reference's own `γ_n` at 2^-53 (which doubles the bound
///   of f64 and c64).
///
/// At `k = 4` in f32 with FMA this is about 7u (4.2e-7), at `k = 4096`
/// about 4100u (2.4e-4).
pub fn tolerance(precision: Precision, math: Math, k: u64) -> f64 {
    const F64_U: f64 = 1.0 / (1u64 << 53) as f64;
    let u = if precision.compute_bytes() == 4 { 1.0 / (1u64 << 24) as f64 } else { F64_U };
    let terms = if math == Math::Tf32x3 { k.saturating_mul(3) } else { k };
    let n = if precision.is_complex() {
        terms.saturating_mul(2).saturating_add(8)
    } else {
        terms.saturating_add(3)
    } as f64;
    let gamma = |u: f64| if n * u < 0.5 { n * u / (1.0 - n * u) } else { f64::INFINITY };
    let rounding = if math == Math::Fma { u } else { 2.0 * u };
    let product = match math {
        Math::Tf32x3 => 3.0 / (1u64 << 22) as f64,
        Math::Tf32 => 1.0 / 1024.0 + 1.0 / (1u64 << 22) as f64,
        Math::Fma | Math::Dmma | Math::F16 | Math::Bf16 => 0.0,
    };
    // A 16-bit C is the f32 result rounded to nearest once more.
    let stored = match precision {
        Precision::F16 => 1.0 / (1u64 << 11) as f64,
        Precision::Bf16 => 1.0 / (1u64 << 8) as f64,
        _ => 0.0,
    };
    let modulus = if precision.is_complex() { std::f64::consts::SQRT_2 } else { 1.0 };
    modulus * ((1.0 + product) * (1.0 + gamma(rounding)) * (1.0 + stored) - 1.0 + gamma(F64_U))
}

/// [`tolerance`] of a product split into `slices` slices of K, none deeper
/// than `depth` (split K: `crate::pass::slicing`): each slice a product of
/// at most `depth` by `math` into a partial C, then the partials summed in
/// slice order (with `alpha` and `beta`) by an FMA kernel, a product of
/// depth `slices`. The computed C is within `(1 + θ)(1 + φ) − 1` of the
/// exact one relative to `|alpha|·|A|·|B| + |beta|·|C|`, θ the slices'
/// bound and φ the sum's: far below the unsplit bound at large k (at
/// k = 2^20 in 128 slices, complex tf32x3's is about 1e-2 where the
/// unsplit one is infinite). One slice is [`tolerance`] at `depth`.
pub fn split_tolerance(precision: Precision, math: Math, depth: u64, slices: u64) -> f64 {
    let theta = tolerance(precision, math, depth);
    if slices <= 1 {
        return theta;
    }
    let phi = tolerance(precision, Math::Fma, slices);
    // (1 + θ)(1 + φ) − 1, without the cancellation of the − 1.
    theta + phi + theta * phi
}

/// Widens an element to `Complex<f64>` (imaginary part 0 for reals).
pub fn widen<T: Element>(x: T) -> C64 {
    let [re, im] = x.parts();
    let im = if T::PRECISION.is_complex() { im.into() } else { 0.0 };
    Complex::new(re.into(), im)
}

/// How the parts of random inputs are distributed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dist {
    /// Uniform in `[-1, 1)`: every test's inputs.
    Uniform,
    /// Standard normal.
    Normal,
    /// `±2^e · [1, 2)`, `e` uniform in `[-16, 16]`: magnitudes over ten
    /// decades, so that large and small terms meet in every sum.
    Wide,
    /// Uniform in `[-1, 1)` scaled by `2^-118`: normal f32 values whose
    /// TF32 split leaves a small part below f32's smallest normal (`2^-126`).
    Tiny,
    /// Uniform in `[0, 1)`: no cancellation, so C's error relative to
    /// `|A|·|B|` (the check's denominator) is its relative error, and a
    /// wrong C cannot hide under the bound of a deep product as it can
    /// with mean-zero inputs (whose `|AB|` is about `|A|·|B| / √k`).
    Positive,
}

impl Dist {
    /// The largest exponent of [`Dist::Wide`] (either sign).
    pub const WIDE_EXPONENT: i32 = 16;
    /// The scale of [`Dist::Tiny`], `2^TINY_EXPONENT`.
    pub const TINY_EXPONENT: i32 = -118;
}

/// A seeded source of random matrices and scalars (reproducible runs).
#[derive(Clone, Debug)]
pub struct Random {
    rng: SmallRng,
}

impl Random {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Random {
        Random { rng: SmallRng::seed_from_u64(seed) }
    }

    /// `len` elements, each part uniform in `[-1, 1)`.
    pub fn matrix<T: Element>(&mut self, len: usize) -> Vec<T> {
        self.matrix_of(Dist::Uniform, len)
    }

    /// One element, each part uniform in `[-1, 1)`.
    pub fn element<T: Element>(&mut self) -> T {
        self.element_of(Dist::Uniform)
    }

    /// `len` elements, each part drawn from `dist`.
    pub fn matrix_of<T: Element>(&mut self, dist: Dist, len: usize) -> Vec<T> {
        (0..len).map(|_| self.element_of(dist)).collect()
    }

    /// One element, each part drawn from `dist`.
    pub fn element_of<T: Element>(&mut self, dist: Dist) -> T {
        let re = self.part(dist);
        let im = if T::PRECISION.is_complex() { self.part(dist) } else { 0.0 };
        narrow(Complex::new(re, im))
    }

    fn part(&mut self, dist: Dist) -> f64 {
        match dist {
            Dist::Uniform => self.rng.random_range(-1.0..1.0),
            Dist::Normal => {
                // Box–Muller: u in (0, 1] keeps the logarithm finite.
                let u: f64 = 1.0 - self.rng.random_range(0.0..1.0);
                let v: f64 = self.rng.random_range(0.0..1.0);
                (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
            }
            Dist::Wide => {
                let e: i32 = self.rng.random_range(-Dist::WIDE_EXPONENT..=Dist::WIDE_EXPONENT);
                let x: f64 = self.rng.random_range(1.0..2.0);
                let x = x * 2f64.powi(e);
                if self.rng.random_bool(0.5) { x } else { -x }
            }
            Dist::Tiny => self.rng.random_range(-1.0..1.0) * 2f64.powi(Dist::TINY_EXPONENT),
            Dist::Positive => self.rng.random_range(0.0..1.0),
        }
    }

    /// A scalar for `alpha` or `beta` far from 0 and 1: each part's
    /// magnitude uniform in `[0.25, 2)`, with a random sign.
    pub fn scalar<T: Element>(&mut self) -> T {
        let mut part = || {
            let v: f64 = self.rng.random_range(0.25..2.0);
            if self.rng.random_bool(0.5) { v } else { -v }
        };
        let re = part();
        let im = if T::PRECISION.is_complex() { part() } else { 0.0 };
        narrow(Complex::new(re, im))
    }
}

/// Rounds a `Complex<f64>` to an element (dropping the imaginary part for
/// reals): the inverse of [`widen`] up to rounding.
pub fn narrow<T: Element>(z: C64) -> T {
    use std::any::Any;
    let mut out: Option<T> = None;
    let slot: &mut dyn Any = &mut out;
    if let Some(s) = slot.downcast_mut::<Option<f32>>() {
        *s = Some(z.re as f32);
    } else if let Some(s) = slot.downcast_mut::<Option<f64>>() {
        *s = Some(z.re);
    } else if let Some(s) = slot.downcast_mut::<Option<Complex<f32>>>() {
        *s = Some(Complex::new(z.re as f32, z.im as f32));
    } else if let Some(s) = slot.downcast_mut::<Option<C64>>() {
        *s = Some(z);
    } else if let Some(s) = slot.downcast_mut::<Option<half::f16>>() {
        *s = Some(half::f16::from_f64(z.re));
    } else if let Some(s) = slot.downcast_mut::<Option<half::bf16>>() {
        *s = Some(half::bf16::from_f64(z.re));
    }
    out.expect("`Element` is sealed to f32, f64, Complex<f32>, Complex<f64>, f16 and bf16")
}

/// The bits of an element's scalars (`[re, im]`, `im` 0 for reals), for
/// bitwise comparisons that NaN payloads survive.
pub fn to_bits<T: Element>(x: T) -> [u64; 2] {
    use std::any::Any;
    let x: &dyn Any = &x;
    if let Some(v) = x.downcast_ref::<f32>() {
        [u64::from(v.to_bits()), 0]
    } else if let Some(v) = x.downcast_ref::<f64>() {
        [v.to_bits(), 0]
    } else if let Some(v) = x.downcast_ref::<Complex<f32>>() {
        [u64::from(v.re.to_bits()), u64::from(v.im.to_bits())]
    } else if let Some(v) = x.downcast_ref::<C64>() {
        [v.re.to_bits(), v.im.to_bits()]
    } else if let Some(v) = x.downcast_ref::<half::f16>() {
        [u64::from(v.to_bits()), 0]
    } else if let Some(v) = x.downcast_ref::<half::bf16>() {
        [u64::from(v.to_bits()), 0]
    } else {
        unreachable!("`Element` is sealed to f32, f64, Complex<f32>, Complex<f64>, f16 and bf16")
    }
}

/// The element with these scalar bits (the inverse of [`to_bits`]; bits
/// beyond the scalar width are dropped).
pub fn from_bits<T: Element>([re, im]: [u64; 2]) -> T {
    let (f, d) = (|b: u64| f32::from_bits(b as u32), f64::from_bits);
    let mut out: Option<T> = None;
    let slot: &mut dyn std::any::Any = &mut out;
    if let Some(s) = slot.downcast_mut::<Option<f32>>() {
        *s = Some(f(re));
    } else if let Some(s) = slot.downcast_mut::<Option<f64>>() {
        *s = Some(d(re));
    } else if let Some(s) = slot.downcast_mut::<Option<Complex<f32>>>() {
        *s = Some(Complex::new(f(re), f(im)));
    } else if let Some(s) = slot.downcast_mut::<Option<C64>>() {
        *s = Some(Complex::new(d(re), d(im)));
    } else if let Some(s) = slot.downcast_mut::<Option<half::f16>>() {
        *s = Some(half::f16::from_bits(re as u16));
    } else if let Some(s) = slot.downcast_mut::<Option<half::bf16>>() {
        *s = Some(half::bf16::from_bits(re as u16));
    }
    out.expect("`Element` is sealed to f32, f64, Complex<f32>, Complex<f64>, f16 and bf16")
}

/// A quiet NaN with a recognisable payload (`0x5e17`, "sentinel"): filled
/// around and between matrices to detect stray writes (bitwise) and stray
/// reads (they turn results into NaN).
pub fn sentinel<T: Element>() -> T {
    let bits = match T::PRECISION.scalar_bytes() {
        // f16's quiet NaN 0x7e00, bf16's 0x7fc0, each with a payload.
        2 if T::PRECISION == Precision::Bf16 => 0x7fd7,
        2 => 0x7e17,
        4 => 0x7fc0_5e17,
        _ => 0x7ff8_0000_0000_5e17,
    };
    from_bits([bits, bits])
}

/// Whether two elements have identical bits.
pub fn same_bits<T: Element>(x: T, y: T) -> bool {
    to_bits(x) == to_bits(y)
}

/// Index of stored element `(row, col)` of a matrix with leading dimension `ld`.
fn at(layout: Layout, ld: usize, row: usize, col: usize) -> usize {
    match layout {
        Layout::ColMajor => row + col * ld,
        Layout::RowMajor => row * ld + col,
    }
}

/// Reads the `m × n` part of C from its buffer, column by column.
pub fn logical_c<T: Element>(cfg: &GemmConfig<T>, c: &[T]) -> Vec<C64> {
    logical_c_columns(cfg, c, &all_columns(cfg))
}

/// Reads columns `cols` of C's `m × n` part from its buffer, one after the
/// other (what [`gemm_columns`] computes).
///
/// # Panics
/// If a column is not below `n`, or the buffer is shorter than C's extent.
pub fn logical_c_columns<T: Element>(cfg: &GemmConfig<T>, c: &[T], cols: &[usize]) -> Vec<C64> {
    let (m, ldc) = (cfg.m.max(0) as usize, cfg.ldc.max(1) as usize);
    check_columns(cfg, cols);
    let mut out = Vec::with_capacity(m * cols.len());
    for &j in cols {
        for i in 0..m {
            out.push(widen(c[at(cfg.layout, ldc, i, j)]));
        }
    }
    out
}

/// `0, 1, …, n − 1`.
fn all_columns<T: Element>(cfg: &GemmConfig<T>) -> Vec<usize> {
    (0..cfg.n.max(0) as usize).collect()
}

fn check_columns<T: Element>(cfg: &GemmConfig<T>, cols: &[usize]) {
    let n = cfg.n.max(0) as usize;
    assert!(cols.iter().all(|&j| j < n), "a sampled column of C is not below n = {n}");
}

/// Columns `cols` of `op(X)` (`rows` each) as a dense column-major matrix of `W`.
fn dense_op<T: Element, W: Copy>(
    cfg: &GemmConfig<T>,
    matrix: Matrix,
    x: &[T],
    rows: usize,
    cols: &[usize],
    conv: impl Fn(T, bool) -> W,
) -> Vec<W> {
    let (op, ld) = (cfg.op(matrix), cfg.ld(matrix) as usize);
    let conj = op.conjugates(T::PRECISION);
    let mut out = Vec::with_capacity(rows * cols.len());
    for &j in cols {
        for i in 0..rows {
            let idx = if op == Op::N { at(cfg.layout, ld, i, j) } else { at(cfg.layout, ld, j, i) };
            out.push(conv(x[idx], conj));
        }
    }
    out
}

/// The result of `C = alpha · op(A) · op(B) + beta · C`, computed in `f64`
/// (`Complex<f64>`), as the `m × n` part of C column by column
/// ([`logical_c`] reads a GPU result the same way).
///
/// Checks the call with [`validate::check`] first (buffer lengths included)
/// and follows its quick returns.
pub fn gemm<T: Element>(cfg: &GemmConfig<T>, a: &[T], b: &[T], c: &[T]) -> Result<Vec<C64>, ArgError> {
    gemm_columns(cfg, a, b, c, &all_columns(cfg))
}

/// Columns `cols` of [`gemm`]'s result, one after the other: the reference
/// of a problem too large to compute whole on the CPU, on a sample of C's
/// columns (each costs `m · k` products; all of `op(A)` is read).
///
/// # Panics
/// If a column is not below `n`.
pub fn gemm_columns<T: Element>(
    cfg: &GemmConfig<T>,
    a: &[T],
    b: &[T],
    c: &[T],
    cols: &[usize],
) -> Result<Vec<C64>, ArgError> {
    let launch = match checked(cfg, a, b, c)? {
        Checked::Skip(validate::QuickReturn::EmptyC | validate::QuickReturn::EmptyBatch) => {
            return Ok(Vec::new());
        }
        Checked::Skip(validate::QuickReturn::NoUpdate) => return Ok(logical_c_columns(cfg, c, cols)),
        Checked::Launch(l) => l,
    };
    check_columns(cfg, cols);
    let (m, n) = (cfg.m as usize, cols.len());
    // `launch.k` is 0 when alpha = 0 or k = 0: A and B are not read.
    let (k, alpha) = (launch.k as usize, launch.alpha);
    let beta = widen(cfg.beta);
    let c_in = if cfg.beta == T::ZERO { None } else { Some(logical_c_columns(cfg, c, cols)) };
    let all_k: Vec<usize> = (0..k).collect();
    if T::PRECISION.is_complex() {
        let conv = |x: T, conj: bool| if conj { widen(x).conj() } else { widen(x) };
        let op_a = dense_op(cfg, Matrix::A, a, m, &all_k, conv);
        let op_b = dense_op(cfg, Matrix::B, b, k, cols, conv);
        let c_in = c_in.unwrap_or_default();
        let ab = product(&op_a, &op_b, m, n, k);
        Ok(combine(&ab, widen(alpha), beta, &c_in, |x| x))
    } else {
        let conv = |x: T, _: bool| widen(x).re;
        let op_a = dense_op(cfg, Matrix::A, a, m, &all_k, conv);
        let op_b = dense_op(cfg, Matrix::B, b, k, cols, conv);
        let c_in: Vec<f64> = c_in.unwrap_or_default().iter().map(|z| z.re).collect();
        let ab = product(&op_a, &op_b, m, n, k);
        Ok(combine(&ab, widen(alpha).re, beta.re, &c_in, |x| Complex::new(x, 0.0)))
    }
}

/// The scale of every element of the result,
/// `|alpha| · (|op(A)| · |op(B)|) + |beta| · |C|` (moduli for complex), in the
/// order of [`gemm`]: what an
/// element's rounding error is proportional to. The reference BLAS test
/// suite divides by it; unlike `|C_ref|`, it does not vanish when an
/// element's terms cancel. A 16-bit C's is at least the type's
/// [`smallest_normal`].
pub fn gemm_bound<T: Element>(cfg: &GemmConfig<T>, a: &[T], b: &[T], c: &[T]) -> Result<Vec<f64>, ArgError> {
    gemm_bound_columns(cfg, a, b, c, &all_columns(cfg))
}

/// Columns `cols` of [`gemm_bound`], one after the other (the scale of
/// [`gemm_columns`]).
///
/// # Panics
/// If a column is not below `n`.
pub fn gemm_bound_columns<T: Element>(
    cfg: &GemmConfig<T>,
    a: &[T],
    b: &[T],
    c: &[T],
    cols: &[usize],
) -> Result<Vec<f64>, ArgError> {
    let launch = match checked(cfg, a, b, c)? {
        Checked::Skip(validate::QuickReturn::EmptyC | validate::QuickReturn::EmptyBatch) => {
            return Ok(Vec::new());
        }
        Checked::Skip(validate::QuickReturn::NoUpdate) => {
            return Ok(logical_c_columns(cfg, c, cols).iter().map(|z| z.norm()).collect());
        }
        Checked::Launch(l) => l,
    };
    check_columns(cfg, cols);
    let (m, n, k) = (cfg.m as usize, cols.len(), launch.k as usize);
    let modulus = |x: T, _: bool| widen(x).norm();
    let all_k: Vec<usize> = (0..k).collect();
    let op_a = dense_op(cfg, Matrix::A, a, m, &all_k, modulus);
    let op_b = dense_op(cfg, Matrix::B, b, k, cols, modulus);
    let ab = product(&op_a, &op_b, m, n, k);
    let c_in: Vec<f64> = if cfg.beta == T::ZERO {
        Vec::new()
    } else {
        logical_c_columns(cfg, c, cols).iter().map(|z| z.norm()).collect()
    };
    let floor = smallest_normal(T::PRECISION);
    Ok(combine(&ab, widen(launch.alpha).norm(), widen(cfg.beta).norm(), &c_in, |x| Complex::new(x, 0.0))
        .iter()
        .map(|z| z.re.max(floor))
        .collect())
}

/// The smallest normal value of a 16-bit precision (`2^-14` for f16,
/// `2^-126` for bf16), 0 for the others: below it a stored C holds its
/// value to a fixed absolute step (subnormals), not to a relative one, so
/// [`gemm_bound`] floors each element's scale there — the scale at which
/// the step is the type's relative precision. (The BLAS types' subnormals
/// lie far below any product the tests make.)
pub const fn smallest_normal(precision: Precision) -> f64 {
    match precision {
        Precision::F16 => 1.0 / (1u64 << 14) as f64,
        Precision::Bf16 => f32::MIN_POSITIVE as f64,
        _ => 0.0,
    }
}

/// The call checked by [`validate::check`] as on the GPU (host memory has
/// no device alignment rule: lengths only).
fn checked<T: Element>(cfg: &GemmConfig<T>, a: &[T], b: &[T], c: &[T]) -> Result<Checked<T>, ArgError> {
    let host = |s: &[T]| BufferInfo::new(0, s.len());
    validate::check(cfg, &Buffers { a: host(a), b: host(b), c: host(c) }, None)
}

/// The largest componentwise relative error, `max |out − reference| /
/// bound` over the elements ([`gemm_bound`]); an element whose bound is 0
/// must be exact. NaN anywhere in `out` gives NaN, which fails any
/// tolerance.
pub fn componentwise_error(out: &[C64], reference: &[C64], bound: &[f64]) -> f64 {
    assert!(
        out.len() == reference.len() && out.len() == bound.len(),
        "comparing matrices of different sizes"
    );
    let mut worst = 0.0f64;
    for ((o, r), &g) in out.iter().zip(reference).zip(bound) {
        let diff = (o - r).norm();
        if diff.is_nan() {
            return f64::NAN;
        }
        let e = if diff == 0.0 {
            0.0
        } else if g == 0.0 {
            f64::INFINITY
        } else {
            diff / g
        };
        worst = worst.max(e);
    }
    worst
}

/// `alpha · ab + beta · c` (c empty: beta = 0, C not read), widened.
fn combine<W: Copy + Add<Output = W> + Mul<Output = W>>(
    ab: &[W],
    alpha: W,
    beta: W,
    c: &[W],
    to_c64: impl Fn(W) -> C64,
) -> Vec<C64> {
    ab.iter()
        .enumerate()
        .map(|(i, &p)| {
            let v = if c.is_empty() { alpha * p } else { alpha * p + beta * c[i] };
            to_c64(v)
        })
        .collect()
}

/// Dense `(m × k) · (k × n)`, column-major, columns of C spread over threads.
fn product<W>(a: &[W], b: &[W], m: usize, n: usize, k: usize) -> Vec<W>
where
    W: Copy + Default + Send + Sync + Add<Output = W> + Mul<Output = W>,
{
    let mut c = vec![W::default(); m * n];
    if m == 0 || n == 0 {
        return c;
    }
    // Columns `first..` of C, in `cols`.
    let columns = move |first: usize, cols: &mut [W]| {
        for (jj, col) in cols.chunks_mut(m).enumerate() {
            let j = first + jj;
            for l in 0..k {
                let blj = b[l + j * k];
                let a_col = &a[l * m..(l + 1) * m];
                for (ci, &ai) in col.iter_mut().zip(a_col) {
                    *ci = *ci + ai * blj;
                }
            }
        }
    };
    // Threads for large products only: spawning them costs ~0.1 ms, more
    // than a small problem's whole product (a batch test checks 70,000).
    let threads = if m.saturating_mul(n).saturating_mul(k) < PARALLEL_PRODUCT {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |t| t.get()).min(n)
    };
    if threads == 1 {
        columns(0, &mut c);
        return c;
    }
    let cols_per = n.div_ceil(threads);
    std::thread::scope(|s| {
        for (chunk, cols) in c.chunks_mut(cols_per * m).enumerate() {
            s.spawn(move || columns(chunk * cols_per, cols));
        }
    });
    c
}

/// Multiply-adds below which [`product`] runs on the calling thread.
const PARALLEL_PRODUCT: usize = 1 << 16;

/// `‖out − reference‖_F / ‖reference‖_F` (the absolute error when the
/// reference is 0). NaN anywhere in `out` gives NaN, which compares as
/// failing against any tolerance.
pub fn relative_error(out: &[C64], reference: &[C64]) -> f64 {
    assert_eq!(out.len(), reference.len(), "comparing matrices of different sizes");
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    for (o, r) in out.iter().zip(reference) {
        diff += (o - r).norm_sqr();
        norm += r.norm_sqr();
    }
    if norm == 0.0 { diff.sqrt() } else { (diff / norm).sqrt() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed 2 × 2 products.
    #[test]
    fn small_real_products() {
        // A = [1 3; 2 4] column-major, B = [5 7; 6 8].
        let a = [1.0f64, 2.0, 3.0, 4.0];
        let b = [5.0f64, 6.0, 7.0, 8.0];
        let c = [1.0f64, 1.0, 1.0, 1.0];
        let cfg = GemmConfig::new(Op::N, Op::N, 2, 2, 2).alpha(1.0).beta(10.0);
        // A·B = [23 31; 34 46].
        let r = gemm(&cfg, &a, &b, &c).unwrap();
        assert_eq!(r.iter().map(|z| z.re).collect::<Vec<_>>(), [33.0, 44.0, 41.0, 56.0]);
        // Aᵀ·B = [1 2; 3 4]·[5 7; 6 8] = [17 23; 39 53].
        let cfg = GemmConfig::new(Op::T, Op::N, 2, 2, 2);
        let r = gemm(&cfg, &a, &b, &c).unwrap();
        assert_eq!(r.iter().map(|z| z.re).collect::<Vec<_>>(), [17.0, 39.0, 23.0, 53.0]);
        // Row-major: the same buffers read by rows are the transposes, so
        // C_rm = Aᵀ·Bᵀ = (B·A)ᵀ; stored row-major that is B·A column-major.
        let cfg = GemmConfig::row_major(Op::N, Op::N, 2, 2, 2);
        let r = gemm(&cfg, &a, &b, &c).unwrap();
        // r is the logical C column by column: C = Aᵀ·Bᵀ = [1 2; 3 4]·[5 6; 7 8] = [19 22; 43 50].
        assert_eq!(r.iter().map(|z| z.re).collect::<Vec<_>>(), [19.0, 43.0, 22.0, 50.0]);
    }

    #[test]
    fn conjugation_and_complex_scalars() {
        let i = Complex::new(0.0f64, 1.0);
        let one = Complex::new(1.0f64, 0.0);
        // 1 × 1 × 1: C = alpha · op(a) · b + beta · c.
        let (a, b, c) = ([i], [i], [one]);
        let base = GemmConfig::new(Op::N, Op::N, 1, 1, 1).beta(Complex::new(2.0, 0.0));
        assert_eq!(gemm(&base, &a, &b, &c).unwrap(), [Complex::new(1.0, 0.0)]); // i·i + 2 = 1
        let conj = GemmConfig { op_a: Op::C, ..base };
        assert_eq!(gemm(&conj, &a, &b, &c).unwrap(), [Complex::new(3.0, 0.0)]); // -i·i + 2 = 3
        let trans = GemmConfig { op_a: Op::T, ..base };
        assert_eq!(gemm(&trans, &a, &b, &c).unwrap(), [Complex::new(1.0, 0.0)]);
        let scaled = base.alpha(i);
        assert_eq!(gemm(&scaled, &a, &b, &c).unwrap(), [Complex::new(2.0, -1.0)]); // i·(-1) + 2
    }

    #[test]
    fn blas_semantics_for_special_scalars() {
        let nan = f32::NAN;
        // beta = 0: C is not read.
        let cfg = GemmConfig::new(Op::N, Op::N, 1, 1, 1).alpha(2.0f32);
        assert_eq!(gemm(&cfg, &[3.0], &[4.0], &[nan]).unwrap(), [Complex::new(24.0, 0.0)]);
        // alpha = 0: A and B are not read.
        let cfg = GemmConfig::new(Op::N, Op::N, 1, 1, 1).alpha(0.0f32).beta(3.0);
        assert_eq!(gemm(&cfg, &[nan], &[nan], &[2.0]).unwrap(), [Complex::new(6.0, 0.0)]);
        // k = 0 with an infinite alpha: beta · C.
        let cfg = GemmConfig::new(Op::N, Op::N, 1, 1, 0).alpha(f32::INFINITY).beta(3.0);
        assert_eq!(gemm(&cfg, &[], &[], &[2.0]).unwrap(), [Complex::new(6.0, 0.0)]);
        // Quick returns.
        let cfg = GemmConfig::new(Op::N, Op::N, 1, 1, 1).alpha(0.0f32).beta(1.0);
        assert_eq!(gemm(&cfg, &[nan], &[nan], &[5.0]).unwrap(), [Complex::new(5.0, 0.0)]);
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 0, 1, 1);
        assert!(gemm(&cfg, &[], &[1.0], &[]).unwrap().is_empty());
        // Invalid calls are rejected with the same errors as on the GPU.
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 2, 1, 1).lda(1);
        assert_eq!(gemm(&cfg, &[1.0], &[1.0], &[1.0, 1.0]).unwrap_err().arg(), validate::Arg::Lda);
    }

    #[test]
    fn leading_dimension_gaps_are_skipped() {
        // A 2 × 1 inside ld 3; C 2 × 1 inside ld 4.
        let a = [1.0f32, 2.0, f32::NAN];
        let c = [0.0f32, 0.0, f32::NAN, f32::NAN];
        let cfg = GemmConfig::new(Op::N, Op::N, 2, 1, 1).lda(3).ldc(4);
        assert_eq!(gemm(&cfg, &a, &[10.0], &c).unwrap(), [Complex::new(10.0, 0.0), Complex::new(20.0, 0.0)]);
        assert_eq!(logical_c(&cfg, &c).len(), 2);
    }

    #[test]
    fn parallel_product_matches_serial() {
        let mut rng = Random::new(7);
        let (m, n, k) = (13, 37, 11);
        let a: Vec<f64> = rng.matrix(m * k);
        let b: Vec<f64> = rng.matrix(k * n);
        let c = product(&a, &b, m, n, k);
        for j in 0..n {
            for i in 0..m {
                let s: f64 = (0..k).map(|l| a[i + l * m] * b[l + j * k]).sum();
                assert!((c[i + j * m] - s).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn random_values_are_in_range_and_reproducible() {
        let mut r = Random::new(1);
        let x: Vec<Complex<f32>> = r.matrix(1000);
        assert!(x.iter().all(|z| (-1.0..1.0).contains(&z.re) && (-1.0..1.0).contains(&z.im)));
        assert!(x.iter().any(|z| z.im != 0.0));
        assert_eq!(Random::new(1).matrix::<Complex<f32>>(1000), x);
        for _ in 0..100 {
            let s: f64 = r.scalar();
            assert!((0.25..2.0).contains(&s.abs()));
        }
    }

    #[test]
    fn sampled_columns_are_the_whole_references_columns() {
        let mut rng = Random::new(11);
        let (m, n, k) = (7usize, 9usize, 5usize);
        for (op_a, op_b) in [(Op::N, Op::N), (Op::T, Op::C), (Op::C, Op::T)] {
            let cfg = GemmConfig::new(op_a, op_b, m as i64, n as i64, k as i64)
                .lda(9)
                .ldb(10)
                .ldc(8)
                .alpha(rng.scalar::<Complex<f32>>())
                .beta(rng.scalar());
            let (a, b, c) = (rng.matrix(9 * 9), rng.matrix(10 * 9), rng.matrix(8 * n));
            let whole = gemm(&cfg, &a, &b, &c).unwrap();
            let bound = gemm_bound(&cfg, &a, &b, &c).unwrap();
            let cols = [8, 0, 3, 3];
            let sampled = gemm_columns(&cfg, &a, &b, &c, &cols).unwrap();
            let sampled_bound = gemm_bound_columns(&cfg, &a, &b, &c, &cols).unwrap();
            let logical = logical_c(&cfg, &c);
            let sampled_c = logical_c_columns(&cfg, &c, &cols);
            for (s, &j) in cols.iter().enumerate() {
                let (got, want) = (s * m..(s + 1) * m, j * m..(j + 1) * m);
                assert_eq!(sampled[got.clone()], whole[want.clone()], "column {j} of {op_a:?}{op_b:?}");
                assert_eq!(sampled_bound[got.clone()], bound[want.clone()]);
                assert_eq!(sampled_c[got], logical[want]);
            }
        }
        // Quick returns sample C (beta = 1) or nothing (m = 0).
        let cfg = GemmConfig::new(Op::N, Op::N, 2, 3, 4).alpha(0.0f32).beta(1.0);
        let c = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
        let (a, b) = ([0.0; 8], [0.0; 12]);
        assert_eq!(
            gemm_columns(&cfg, &a, &b, &c, &[2]).unwrap(),
            [Complex::new(5.0, 0.0), Complex::new(6.0, 0.0)]
        );
        let cfg = GemmConfig::<f32>::new(Op::N, Op::N, 0, 3, 4);
        assert!(gemm_columns(&cfg, &[], &[0.0; 12], &[], &[1]).unwrap().is_empty());
    }

    #[test]
    #[should_panic(expected = "not below n")]
    fn a_column_past_n_is_a_bug() {
        let cfg = GemmConfig::new(Op::N, Op::N, 1, 2, 1);
        let _ = gemm_columns(&cfg, &[1.0f64], &[1.0, 1.0], &[0.0, 0.0], &[2]);
    }

    #[test]
    fn distributions_have_their_shape() {
        let mut rng = Random::new(5);
        let len = 20_000;
        let normal: Vec<f64> = rng.matrix_of(Dist::Normal, len);
        let mean = normal.iter().sum::<f64>() / len as f64;
        let var = normal.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / len as f64;
        assert!(mean.abs() < 0.03 && (var - 1.0).abs() < 0.05, "normal: mean {mean}, variance {var}");
        assert!(normal.iter().any(|x| x.abs() > 3.0), "normal draws reach past 3 sigma");
        let wide: Vec<f32> = rng.matrix_of(Dist::Wide, len);
        let exps: Vec<i32> = wide.iter().map(|x| x.abs().log2().floor() as i32).collect();
        let w = Dist::WIDE_EXPONENT;
        assert!(exps.iter().all(|e| (-w..=w).contains(e)));
        assert!(exps.contains(&-w) && exps.contains(&w), "wide reaches both ends");
        assert!(wide.iter().any(|x| *x < 0.0) && wide.iter().any(|x| *x > 0.0));
        let tiny: Vec<Complex<f32>> = rng.matrix_of(Dist::Tiny, len);
        let scale = 2f32.powi(Dist::TINY_EXPONENT);
        assert!(tiny.iter().all(|z| z.re.abs() < scale && z.im.abs() < scale));
        assert!(tiny.iter().all(|z| z.re == 0.0 || z.re.abs() >= f32::MIN_POSITIVE / 256.0));
        assert!(
            tiny.iter().filter(|z| z.re.abs() >= f32::MIN_POSITIVE).count() > len * 9 / 10,
            "mostly normal"
        );
    }

    #[test]
    fn error_norms() {
        let r = [Complex::new(3.0, 0.0), Complex::new(0.0, 4.0)];
        assert_eq!(relative_error(&r, &r), 0.0);
        let o = [Complex::new(3.0, 0.0), Complex::new(0.0, 4.5)];
        assert!((relative_error(&o, &r) - 0.1).abs() < 1e-15);
        assert!(relative_error(&[Complex::new(f64::NAN, 0.0)], &[Complex::new(1.0, 0.0)]).is_nan());
        assert_eq!(relative_error(&[Complex::new(0.5, 0.0)], &[Complex::new(0.0, 0.0)]), 0.5);
    }

    #[test]
    fn the_tolerance_is_the_error_bound_of_a_depth_k_product() {
        let u32 = f64::from(f32::EPSILON) / 2.0;
        let u64 = f64::EPSILON / 2.0;
        let close = |got: f64, want: f64| (got - want).abs() <= 1e-9 * want;
        // f32 FMA at k = 4: γ_7 ≈ 7u, plus the reference's 7 · 2^-53.
        let t = tolerance(Precision::F32, Math::Fma, 4);
        assert!(close(t, 7.0 * u32 / (1.0 - 7.0 * u32) + 7.0 * u64 / (1.0 - 7.0 * u64)), "{t:e}");
        // It grows linearly with k.
        let (t1, t2) =
            (tolerance(Precision::F32, Math::Fma, 1000), tolerance(Precision::F32, Math::Fma, 2000));
        assert!((t2 / t1 - 2.0).abs() < 0.01, "{t1:e} {t2:e}");
        // f64: the kernel's and the reference's bounds, equal.
        assert!(close(tolerance(Precision::F64, Math::Fma, 97), 2.0 * 100.0 * u64 / (1.0 - 100.0 * u64)));
        // Complex: 2k + 8 roundings, and √2 for the modulus.
        let z = tolerance(Precision::C64, Math::Fma, 46);
        assert!(close(z, std::f64::consts::SQRT_2 * 2.0 * 100.0 * u64 / (1.0 - 100.0 * u64)), "{z:e}");
        // Tensor-core math counts 2u a rounding; tf32x3 3k terms and 3·2^-22
        // a product; tf32 about 2^-10.
        assert!(tolerance(Precision::F64, Math::Dmma, 98) > 1.4 * tolerance(Precision::F64, Math::Fma, 98));
        let x3 = tolerance(Precision::F32, Math::Tf32x3, 10);
        assert!(x3 > 3.0 / 4194304.0 + 2.0 * 32.0 * u32 && x3 < 1e-5, "{x3:e}");
        let t = tolerance(Precision::C32, Math::Tf32, 10);
        assert!(t > 1.0 / 1024.0 && t < 2e-3, "{t:e}");
        // Past n·u = 1/2 the bound says nothing: infinite, never negative.
        assert_eq!(tolerance(Precision::F32, Math::Fma, 1 << 23), f64::INFINITY);
        assert_eq!(tolerance(Precision::F32, Math::Fma, u64::MAX), f64::INFINITY);
    }

    #[test]
    fn a_split_product_is_bounded_by_its_slices_and_their_sum() {
        let close = |got: f64, want: f64| (got - want).abs() <= 1e-9 * want;
        // One slice is the product itself.
        for s in [0, 1] {
            assert_eq!(
                split_tolerance(Precision::C32, Math::Tf32x3, 1000, s),
                tolerance(Precision::C32, Math::Tf32x3, 1000)
            );
        }
        // Slices of at most `depth`, then their sum by FMA at depth s.
        let (theta, phi) =
            (tolerance(Precision::F64, Math::Dmma, 352), tolerance(Precision::F64, Math::Fma, 3));
        assert!(close(split_tolerance(Precision::F64, Math::Dmma, 352, 3), theta + phi + theta * phi));
        // Where the unsplit bound says nothing, the split one still does:
        // complex tf32x3 at k = 2^20 in 128 slices is about 1e-2.
        assert_eq!(tolerance(Precision::C32, Math::Tf32x3, 1 << 20), f64::INFINITY);
        let t = split_tolerance(Precision::C32, Math::Tf32x3, 1 << 13, 128);
        assert!(t > 5e-3 && t < 1e-2, "{t:e}");
        // A split never loosens the bound of a deep product.
        let (whole, split) = (
            tolerance(Precision::F32, Math::Fma, 1 << 16),
            split_tolerance(Precision::F32, Math::Fma, 1 << 12, 16),
        );
        assert!(split < whole / 10.0, "{split:e} {whole:e}");
    }

    #[test]
    fn bits_round_trip_and_sentinels_are_nan() {
        fn check<T: Element>() {
            let s: T = sentinel();
            assert!(widen(s).re.is_nan());
            assert!(same_bits(s, from_bits(to_bits(s))));
            assert!(!same_bits(s, T::ZERO));
        }
        check::<f32>();
        check::<f64>();
        check::<Complex<f32>>();
        check::<Complex<f64>>();
        assert_eq!(to_bits(sentinel::<f32>()), [0x7fc0_5e17, 0]);
        assert!(sentinel::<Complex<f64>>().im.is_nan());
        assert_eq!(to_bits(-0.0f64), [1 << 63, 0]);
    }

    #[test]
    fn narrow_inverts_widen() {
        let z = Complex::new(1.5, -2.25);
        assert_eq!(narrow::<f32>(z), 1.5);
        assert_eq!(narrow::<f64>(z), 1.5);
        assert_eq!(narrow::<Complex<f32>>(z), Complex::new(1.5, -2.25));
        assert_eq!(widen(narrow::<Complex<f64>>(z)), z);
        assert_eq!(widen(3.0f32), Complex::new(3.0, 0.0));
    }

    #[test]
    fn componentwise_error_ignores_cancellation_but_not_wrong_elements() {
        // 1 x 1 x 2: alpha (a0 b0 + a1 b1) + beta c cancels to 2e-9.
        let cfg = GemmConfig::<f64>::new(Op::N, Op::N, 1, 1, 2).alpha(1.0).beta(1.0);
        let (a, b, c) = ([1.0, 1.0], [0.5, 0.5], [-1.0 + 2e-9]);
        let reference = gemm(&cfg, &a, &b, &c).unwrap();
        let bound = gemm_bound(&cfg, &a, &b, &c).unwrap();
        assert!((reference[0].re - 2e-9).abs() < 1e-15);
        assert!((bound[0] - 2.0).abs() < 1e-8);
        // Off by 1e-16 of the terms: enormous relative to the cancelled
        // result, tiny relative to what was summed.
        let out = [Complex::new(reference[0].re + 2e-16, 0.0)];
        assert!(relative_error(&out, &reference) > 1e-8);
        assert!(componentwise_error(&out, &reference, &bound) < 1e-15);
        assert_eq!(componentwise_error(&[Complex::new(1.0, 0.0)], &[Complex::new(1.0, 0.0)], &[0.0]), 0.0);
        assert_eq!(
            componentwise_error(&[Complex::new(1.0, 0.0)], &[Complex::new(0.0, 0.0)], &[0.0]),
            f64::INFINITY
        );
        assert!(
            componentwise_error(&[Complex::new(f64::NAN, 0.0)], &[Complex::new(0.0, 0.0)], &[1.0]).is_nan()
        );
        // beta = 0: C is neither read nor part of the bound.
        let cfg = cfg.beta(0.0);
        assert!((gemm_bound(&cfg, &a, &b, &[f64::NAN]).unwrap()[0] - 1.0).abs() < 1e-15);
    }
}
