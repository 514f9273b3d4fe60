//! Shared by the emulator tests: Table 2 specs, random inputs, an f64
//! reference GEMM and the check of one emulated GEMM against it.
#![allow(dead_code)]

use gemm_codegen::num_complex::Complex;
use gemm_codegen::{Element, KernelSpec, Op, Precision};
use gemm_emu::{EmuError, Fault, Gemm, GemmArgs, Options, Stats};

/// Whether `GEMMFORGE_SLOW=1` asks for the long version of the tests.
pub fn slow() -> bool {
    std::env::var("GEMMFORGE_SLOW").is_ok_and(|v| v == "1")
}

/// SplitMix64: small, fast, reproducible.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[-1, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

#[allow(clippy::too_many_arguments)]
pub fn spec(
    precision: Precision,
    ops: (Op, Op),
    tile: (u32, u32, u32),
    threads: (u32, u32),
    load_a: (u32, u32),
    load_b: (u32, u32),
) -> KernelSpec {
    KernelSpec::new(
        precision,
        (ops.0, ops.1),
        (tile.0, tile.1, tile.2),
        (threads.0, threads.1),
        (load_a.0, load_a.1),
        (load_b.0, load_b.1),
    )
}

/// The Table 2 kernel of Kurzak, Tomov and Dongarra for `precision` and the
/// transpose pattern of `(op_a, op_b)` (C counts as T).
pub fn table2(precision: Precision, op_a: Op, op_b: Op) -> KernelSpec {
    use Precision::*;
    let (ta, tb) = (op_a != Op::N, op_b != Op::N);
    let ops = (op_a, op_b);
    // (tile, threads, load A, load B) in the paper's order: AB, AB^T, A^TB^T, A^TB.
    let (tile, threads, la, lb) = match (precision, ta, tb) {
        (F32, false, false) => ((96, 96, 16), (16, 16), (32, 8), (8, 32)),
        (F32, false, true) => ((96, 96, 16), (16, 16), (32, 8), (32, 8)),
        (F32, true, true) => ((96, 96, 16), (16, 16), (16, 16), (32, 8)),
        (F32, true, false) => ((96, 96, 16), (16, 16), (16, 16), (16, 16)),
        (C32, false, false) => ((64, 64, 16), (16, 16), (32, 8), (16, 16)),
        (C32, false, true) => ((64, 64, 16), (16, 16), (16, 16), (16, 16)),
        (C32, true, true) => ((64, 64, 16), (16, 16), (16, 16), (32, 8)),
        (C32, true, false) => ((64, 64, 16), (16, 16), (16, 16), (16, 16)),
        (F64, _, _) => ((64, 64, 16), (16, 16), (16, 16), (16, 16)),
        (C64, false, false) => ((24, 16, 8), (8, 8), (8, 8), (8, 8)),
        (C64, false, true) => ((16, 24, 8), (8, 8), (8, 8), (8, 8)),
        (C64, true, true) => ((16, 24, 8), (8, 8), (4, 16), (8, 8)),
        (C64, true, false) => ((24, 16, 8), (8, 8), (8, 8), (8, 8)),
    };
    spec(precision, ops, tile, threads, la, lb)
}

/// The test's view of an element type.
pub trait TestElem: Element {
    fn random(rng: &mut Rng) -> Self;
    /// A NaN with a recognisable payload, filling guard regions.
    fn sentinel() -> Self;
    /// A NaN that a `beta = 0` GEMM must never read.
    fn poison() -> Self;
    fn to_c(self) -> Complex<f64>;
    fn from_c(c: Complex<f64>) -> Self;
    fn bits(self) -> (u64, u64);
    /// Machine epsilon of the real type.
    const EPS: f64;
    /// The accuracy the tests demand.
    const TOL: f64;
}

macro_rules! real {
    ($t:ty, $bits:ty, $sentinel:expr, $poison:expr, $tol:expr) => {
        impl TestElem for $t {
            fn random(rng: &mut Rng) -> Self {
                rng.unit() as $t
            }
            fn sentinel() -> Self {
                <$t>::from_bits($sentinel)
            }
            fn poison() -> Self {
                <$t>::from_bits($poison)
            }
            fn to_c(self) -> Complex<f64> {
                Complex::new(self.into(), 0.0)
            }
            fn from_c(c: Complex<f64>) -> Self {
                c.re as $t
            }
            fn bits(self) -> (u64, u64) {
                (self.to_bits() as u64, 0)
            }
            const EPS: f64 = <$t>::EPSILON as f64;
            const TOL: f64 = $tol;
        }
    };
}

real!(f32, u32, 0x7fc0_5e17, 0xffc0_0bad, 1e-5);
real!(f64, u64, 0x7ff8_0000_5e17_5e17, 0xfff8_0000_0000_0bad, 1e-12);

macro_rules! complex {
    ($t:ty) => {
        impl TestElem for Complex<$t> {
            fn random(rng: &mut Rng) -> Self {
                Complex::new(<$t>::random(rng), <$t>::random(rng))
            }
            fn sentinel() -> Self {
                Complex::new(<$t>::sentinel(), <$t>::sentinel())
            }
            fn poison() -> Self {
                Complex::new(<$t>::poison(), <$t>::poison())
            }
            fn to_c(self) -> Complex<f64> {
                Complex::new(self.re.into(), self.im.into())
            }
            fn from_c(c: Complex<f64>) -> Self {
                Complex::new(c.re as $t, c.im as $t)
            }
            fn bits(self) -> (u64, u64) {
                (self.re.bits().0, self.im.bits().0)
            }
            const EPS: f64 = <$t>::EPS;
            const TOL: f64 = <$t>::TOL;
        }
    };
}

complex!(f32);
complex!(f64);

/// A value of alpha or beta.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    Zero,
    One,
    Random,
}

impl Scalar {
    pub const ALL: [Scalar; 3] = [Scalar::Zero, Scalar::One, Scalar::Random];

    fn value<T: TestElem>(self, rng: &mut Rng) -> T {
        match self {
            Scalar::Zero => T::ZERO,
            Scalar::One => T::ONE,
            Scalar::Random => T::random(rng),
        }
    }
}

/// One GEMM to run.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub alpha: Scalar,
    pub beta: Scalar,
}

/// The shapes `{0, 1, tile - 1, tile + 1, 2 tile + 3}` of one dimension.
pub fn edge_sizes(tile: u32) -> [u32; 5] {
    [0, 1, tile - 1, tile + 1, 2 * tile + 3]
}

/// Cases where every pair of (m, n, k) sizes from [`edge_sizes`] occurs (a
/// 25-row orthogonal array), alpha and beta cycling through all 9
/// combinations; with `full`, every triple and combination.
pub fn edge_cases(spec: &KernelSpec, full: bool) -> Vec<Case> {
    let (ms, ns, ks) = (edge_sizes(spec.m_blk), edge_sizes(spec.n_blk), edge_sizes(spec.k_blk));
    let ab: Vec<(Scalar, Scalar)> = Scalar::ALL.iter().flat_map(|&a| Scalar::ALL.map(|b| (a, b))).collect();
    let mut out = Vec::new();
    if full {
        for &m in &ms {
            for &n in &ns {
                for &k in &ks {
                    for &(alpha, beta) in &ab {
                        out.push(Case { m, n, k, alpha, beta });
                    }
                }
            }
        }
    } else {
        for i in 0..5 {
            for j in 0..5 {
                let (alpha, beta) = ab[(i + 3 * j) % 9];
                out.push(Case { m: ms[i], n: ns[j], k: ks[(i + j) % 5], alpha, beta });
            }
        }
    }
    out
}

/// Runs `case` on the emulator with random inputs, guard regions of
/// sentinels (column gaps from `ld > rows`, and a tail after each matrix),
/// NaN-poisoned C when beta = 0, and checks the result against an f64
/// reference. Reads before a slice's start are faults of the emulator (each
/// slice is a buffer of its own), so the guard before each matrix is exact.
pub fn check_case<T: TestElem>(gemm: &Gemm, case: &Case, rng: &mut Rng) -> Result<Stats, String> {
    check_case_within::<T>(gemm, case, rng, T::TOL)
}

/// The accuracy a kernel of `spec` must reach: the element type's, but
/// [`TF32_TOL`] for `math = tf32` (tf32x3 keeps f32's).
pub fn tolerance<T: TestElem>(spec: &KernelSpec) -> f64 {
    if spec.math == gemm_codegen::Math::Tf32 { TF32_TOL } else { T::TOL }
}

/// 1xTF32's accuracy: each input rounded to 10 mantissa bits (unit
/// roundoff 2^-11 ≈ 4.9e-4, twice per product), as `gemm_host::reference::
/// tolerance` has it.
pub const TF32_TOL: f64 = 4e-3;

/// [`check_case`] against the relative normwise tolerance `tol`.
pub fn check_case_within<T: TestElem>(
    gemm: &Gemm,
    case: &Case,
    rng: &mut Rng,
    tol: f64,
) -> Result<Stats, String> {
    let requires = *gemm.requires();
    let Case { m, n, k, .. } = *case;
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let (op_a, op_b) = requires.ops;
    let (a_rows, a_cols) = if op_a == Op::N { (m, k) } else { (k, m) };
    let (b_rows, b_cols) = if op_b == Op::N { (k, n) } else { (n, k) };
    let mut pad = || 1 + rng.below(3) as usize;
    // A kernel with `ldg_width = w` needs A's and B's leading dimensions to
    // be multiples of w (the host guarantees it, or picks another kernel).
    let w = requires.operand_alignment as usize;
    let (lda, ldb, ldc) = (
        (a_rows.max(1) + pad()).next_multiple_of(w),
        (b_rows.max(1) + pad()).next_multiple_of(w),
        m.max(1) + pad(),
    );
    let (ta, tb, tc) = (pad(), pad(), pad());

    let matrix =
        |rows: usize, cols: usize, ld: usize, tail: usize, rng: &mut Rng, fill: &dyn Fn(&mut Rng) -> T| {
            let mut v = vec![T::sentinel(); ld * cols + tail];
            for j in 0..cols {
                for i in 0..rows {
                    v[i + j * ld] = fill(rng);
                }
            }
            v
        };
    let a = matrix(a_rows, a_cols, lda, ta, rng, &|r| T::random(r));
    let b = matrix(b_rows, b_cols, ldb, tb, rng, &|r| T::random(r));
    let alpha: T = case.alpha.value(rng);
    let beta: T = case.beta.value(rng);
    let beta_zero = case.beta == Scalar::Zero;
    let c0 = matrix(m, n, ldc, tc, rng, &|r| if beta_zero { T::poison() } else { T::random(r) });
    let mut c = c0.clone();

    let args = GemmArgs {
        m: m as u32,
        n: n as u32,
        k: k as u32,
        lda: lda as u64,
        ldb: ldb as u64,
        ldc: ldc as u64,
        alpha,
        beta,
    };
    let stats = gemm.run(&args, &a, &b, &mut c, &Options::default()).map_err(|e| format!("{case:?}: {e}"))?;

    // Reference, in f64.
    let at = |i: usize, p: usize| match op_a {
        Op::N => a[i + p * lda].to_c(),
        Op::T => a[p + i * lda].to_c(),
        Op::C => a[p + i * lda].to_c().conj(),
    };
    let bt = |p: usize, j: usize| match op_b {
        Op::N => b[p + j * ldb].to_c(),
        Op::T => b[j + p * ldb].to_c(),
        Op::C => b[j + p * ldb].to_c().conj(),
    };
    let (alpha, beta) = (alpha.to_c(), beta.to_c());
    let norm = |f: &dyn Fn(usize, usize) -> Complex<f64>, r: usize, cl: usize| {
        let mut s = 0.0;
        for j in 0..cl {
            for i in 0..r {
                s += f(i, j).norm_sqr();
            }
        }
        s.sqrt()
    };
    let (na, nb) = (norm(&at, m, k), norm(&bt, k, n));
    let nc = if beta_zero { 0.0 } else { norm(&|i, j| c0[i + j * ldc].to_c(), m, n) };
    let scale = alpha.norm() * na * nb + beta.norm() * nc;
    let mut err = 0.0f64;
    for j in 0..n {
        for i in 0..m {
            let mut acc = Complex::new(0.0, 0.0);
            for p in 0..k {
                acc += at(i, p) * bt(p, j);
            }
            let mut want = alpha * acc;
            if !beta_zero {
                want += beta * c0[i + j * ldc].to_c();
            }
            let got = c[i + j * ldc].to_c();
            if !(got.re.is_finite() && got.im.is_finite()) {
                return Err(format!("{case:?}: C[{i}, {j}] = {got} is not finite (expected {want})"));
            }
            err += (got - want).norm_sqr();
        }
    }
    let err = err.sqrt();
    let rel = if scale == 0.0 { err } else { err / scale };
    if rel >= tol {
        return Err(format!("{case:?}: relative normwise error {rel:e} >= {tol:e}"));
    }
    // Everything outside C's m x n is untouched, bit for bit.
    for (idx, (x, y)) in c.iter().zip(&c0).enumerate() {
        let inside = idx < ldc * n && idx % ldc < m;
        if !inside && x.bits() != y.bits() {
            return Err(format!("{case:?}: C's guard element {idx} changed from {y:?} to {x:?}"));
        }
    }
    Ok(stats)
}

/// Runs every case on `spec` with element type `T` within the spec's
/// [`tolerance`], returning the first failure.
pub fn check_spec<T: TestElem>(spec: &KernelSpec, cases: &[Case], seed: u64) -> Result<Stats, String> {
    check_spec_within::<T>(spec, cases, seed, tolerance::<T>(spec))
}

/// [`check_spec`] within the relative normwise tolerance `tol`.
pub fn check_spec_within<T: TestElem>(
    spec: &KernelSpec,
    cases: &[Case],
    seed: u64,
    tol: f64,
) -> Result<Stats, String> {
    let image = gemm_codegen::compile(spec).map_err(|v| format!("{}: {v:?}", spec.entry_name()))?;
    let gemm = Gemm::new(&image).map_err(|e| format!("{}: {e}", spec.entry_name()))?;
    let mut rng = Rng::new(seed);
    let mut total = Stats::default();
    for case in cases {
        total += check_case_within::<T>(&gemm, case, &mut rng, tol)
            .map_err(|e| format!("{}: {e}", spec.entry_name()))?;
    }
    Ok(total)
}

/// Checks every spec of `specs` (legal, and right on the ragged edge cases,
/// all of them with `GEMMFORGE_SLOW=1`), the `i`-th with inputs of seed
/// `seed + i`, and fails listing every spec that is not.
pub fn check_all(specs: &[KernelSpec], seed: u64) {
    let mut failures = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        if let Err(e) = gemm_codegen::validate(s) {
            failures.push(format!("{}: not legal: {e:?}", s.entry_name()));
            continue;
        }
        if let Err(e) = check_spec_any(s, &edge_cases(s, slow()), seed + i as u64) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// [`check_spec`] for the element type of `spec.precision`.
pub fn check_spec_any(spec: &KernelSpec, cases: &[Case], seed: u64) -> Result<Stats, String> {
    match spec.precision {
        Precision::F32 => check_spec::<f32>(spec, cases, seed),
        Precision::F64 => check_spec::<f64>(spec, cases, seed),
        Precision::C32 => check_spec::<Complex<f32>>(spec, cases, seed),
        Precision::C64 => check_spec::<Complex<f64>>(spec, cases, seed),
    }
}

/// A hand-written kernel's run: its text, what the launch returned, and the
/// output buffer's bytes.
pub struct Run {
    pub text: String,
    pub result: Result<Stats, EmuError>,
    pub out: Vec<u8>,
}

impl Run {
    /// The 1-based line of the first line containing `needle`.
    pub fn line_of(&self, needle: &str) -> u32 {
        self.text.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("no line with {needle}"))
            as u32
            + 1
    }

    /// The fault the run ended with.
    pub fn fault(&self) -> &Fault {
        match &self.result {
            Err(EmuError::Fault(f)) => f,
            other => panic!("expected a fault, got {other:?}"),
        }
    }

    /// The output as little-endian words.
    pub fn out_u32(&self) -> Vec<u32> {
        self.out.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
    }
}

/// The arguments of `C = A·B` on packed column-major `m × k`, `k × n` and
/// `m × n` matrices (leading dimensions `m`, `k`, `m`).
pub fn packed_args<T: gemm_codegen::Element>(m: u32, n: u32, k: u32) -> GemmArgs<T> {
    GemmArgs {
        m,
        n,
        k,
        lda: u64::from(m),
        ldb: u64::from(k),
        ldc: u64::from(m),
        alpha: T::ONE,
        beta: T::ZERO,
    }
}
