//! Shared by the emulator tests: Table 2 specs, ragged cases, and the run
//! of one emulated GEMM checked by gemm-host's `case::Case` (the project's
//! one f64 reference and result check; a dev-dependency, so no cycle).

use gemm_codegen::num_complex::Complex;
use gemm_codegen::{Element, KernelSpec, Math, Op, Precision};
use gemm_emu::{EmuError, Fault, Gemm, GemmArgs, Options, Stats};
use gemm_host::case::{Case as HostCase, GUARD};
use gemm_host::reference::Random;
use gemm_host::{GemmConfig, Layout, Matrix};

/// Whether `GEMMFORGE_SLOW=1` asks for the long version of the tests.
pub fn slow() -> bool {
    std::env::var("GEMMFORGE_SLOW").is_ok_and(|v| v == "1")
}

/// SplitMix64: small, fast, reproducible; picks the tests' shapes and
/// scalars and seeds gemm-host's `Random`, which draws the inputs.
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

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
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
        (F16 | Bf16, _, _) => {
            panic!("Table 2 has no {precision} kernel: the 16-bit precisions are wgmma kernels only")
        }
    };
    KernelSpec::new(precision, ops, tile, threads, la, lb)
}

/// A value of alpha or beta.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    Zero,
    One,
    Random,
}

impl Scalar {
    pub const ALL: [Scalar; 3] = [Scalar::Zero, Scalar::One, Scalar::Random];

    fn value<T: Element>(self, random: &mut Random) -> T {
        match self {
            Scalar::Zero => T::ZERO,
            Scalar::One => T::ONE,
            Scalar::Random => random.element(),
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

/// Runs `case` on the emulator and checks it as every generated kernel's
/// run is checked (`gemm_host::case::Case::check`: the one f64 reference
/// and its bound for a kernel multiplying by `math`): random inputs, leading
/// dimensions 1 to 3 past the rows (multiples of the kernel's operand
/// alignment for A and B) with sentinels in the gaps, C NaN-poisoned when
/// beta = 0. Each matrix is handed over exactly as long as the call
/// requires, a buffer of its own, so any read or write past it is a fault
/// of the emulator.
pub fn check_case<T: Element>(gemm: &Gemm, case: &Case, rng: &mut Rng, math: Math) -> Result<Stats, String> {
    let requires = *gemm.requires();
    let (op_a, op_b) = requires.ops;
    let Case { m, n, k, .. } = *case;
    let (a_rows, b_rows) = (if op_a == Op::N { m } else { k }, if op_b == Op::N { k } else { n });
    let mut pad = || 1 + rng.below(3) as u32;
    // A kernel with `ldg_width = w` needs A's and B's leading dimensions to
    // be multiples of w (the host guarantees it, or picks another kernel).
    let w = requires.operand_alignment;
    let (lda, ldb, ldc) = (
        (a_rows.max(1) + pad()).next_multiple_of(w),
        (b_rows.max(1) + pad()).next_multiple_of(w),
        m.max(1) + pad(),
    );
    let mut random = Random::new(rng.next_u64());
    let (alpha, beta): (T, T) = (case.alpha.value(&mut random), case.beta.value(&mut random));
    let cfg = GemmConfig {
        layout: Layout::ColMajor,
        op_a,
        op_b,
        m: m.into(),
        n: n.into(),
        k: k.into(),
        alpha,
        lda: lda.into(),
        ldb: ldb.into(),
        beta,
        ldc: ldc.into(),
    };
    let checked = HostCase::random(cfg, &mut random);
    let mut c = checked.guarded(Matrix::C).to_vec();
    let len = c.len();
    let args = GemmArgs { m, n, k, lda: lda.into(), ldb: ldb.into(), ldc: ldc.into(), alpha, beta };
    let stats = gemm
        .run(
            &args,
            checked.input(Matrix::A),
            checked.input(Matrix::B),
            &mut c[GUARD..len - GUARD],
            &Options::default(),
        )
        .map_err(|e| format!("{case:?}: {e}"))?;
    checked.check(checked.guarded(Matrix::A), checked.guarded(Matrix::B), &c, math)?;
    Ok(stats)
}

/// Runs every case on `spec` with element type `T`, each against the bound
/// of the spec's `math`, returning the first failure.
pub fn check_spec<T: Element>(spec: &KernelSpec, cases: &[Case], seed: u64) -> Result<Stats, String> {
    check_spec_as::<T>(spec, cases, seed, spec.math)
}

/// [`check_spec`] against the bound of `math`.
pub fn check_spec_as<T: Element>(
    spec: &KernelSpec,
    cases: &[Case],
    seed: u64,
    math: Math,
) -> Result<Stats, String> {
    let image = gemm_codegen::compile(spec).map_err(|v| format!("{}: {v:?}", spec.entry_name()))?;
    let gemm = Gemm::new(&image).map_err(|e| format!("{}: {e}", spec.entry_name()))?;
    let mut rng = Rng::new(seed);
    let mut total = Stats::default();
    for case in cases {
        total += check_case::<T>(&gemm, case, &mut rng, math)
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
        Precision::F16 => check_spec::<gemm_codegen::half::f16>(spec, cases, seed),
        Precision::Bf16 => check_spec::<gemm_codegen::half::bf16>(spec, cases, seed),
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
