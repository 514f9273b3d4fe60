//! Shared by the GPU integration tests: finding the GPU (or skipping),
//! guarded device buffers, and one checked GEMM case against the CPU
//! reference.
//!
//! Every GPU test returns early, printing `skipping: no CUDA GPU
//! (<reason>)`, when there is no usable GPU, unless `GEMMFORGE_REQUIRE_GPU=1`
//! is set: then it fails instead.

use std::io::Write;
use std::sync::{Mutex, MutexGuard};

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut};
use gemm_codegen::{Element, KernelSpec, Op, Precision};
use gemm_host::case::Case;
use gemm_host::reference::{self, Random};
use gemm_host::{Gemm, GemmConfig, GemmError, Layout, Matrix};

/// Whether `GEMMFORGE_REQUIRE_GPU=1`: a missing GPU fails the test.
pub fn require_gpu() -> bool {
    std::env::var("GEMMFORGE_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// Prints a line past libtest's output capture (which only catches the
/// `print!` family), so that skips are visible in a normal `cargo test`.
pub fn say(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

/// One GPU test at a time: the tests share one process, so the runtime's
/// context and kernel cache, and all of them at once (16 threads on the
/// device machine) ran the H100's 80 GB out of memory.
static TURN: Mutex<()> = Mutex::new(());

/// A test's GPU runner, held with the test's turn on the GPU (until it is
/// dropped); it dereferences to the [`Gemm`].
pub struct Turn {
    gemm: Gemm,
    _turn: MutexGuard<'static, ()>,
}

impl std::ops::Deref for Turn {
    type Target = Gemm;
    fn deref(&self) -> &Gemm {
        &self.gemm
    }
}

/// The GPU runner for a test, once no other test holds the GPU, or `None`
/// after printing why it is skipped.
///
/// # Panics
/// When there is no usable GPU and `GEMMFORGE_REQUIRE_GPU=1`.
pub fn gpu() -> Option<Turn> {
    // A test that failed holding its turn poisons the lock; the next one
    // still runs.
    let turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    match Gemm::open(0) {
        Ok(gemm) => Some(Turn { gemm, _turn: turn }),
        Err(e) => {
            let reason = match e {
                GemmError::NoGpu { reason } => reason,
                other => other.to_string(),
            };
            if require_gpu() {
                panic!("GEMMFORGE_REQUIRE_GPU=1 but there is no usable CUDA GPU: {reason}");
            }
            say(&format!("skipping: no CUDA GPU ({reason})"));
            None
        }
    }
}

pub use gemm_host::case::{GUARD, describe, in_matrix, matrix_buffer, poison};

/// A device buffer with [`GUARD`] sentinel elements on both sides of the
/// part handed to the GEMM.
pub struct Guarded<T: Element> {
    dev: CudaSlice<T>,
    initial: Vec<T>,
    len: usize,
}

impl<T: Element> Guarded<T> {
    /// Uploads `inner` with sentinel padding around it.
    pub fn new(gemm: &Gemm, inner: &[T]) -> Guarded<T> {
        Guarded::upload(gemm, gemm_host::case::guarded(inner))
    }

    /// Uploads a whole buffer that already has its guards.
    pub fn upload(gemm: &Gemm, guarded: Vec<T>) -> Guarded<T> {
        let dev = gemm.upload(&guarded).expect("upload");
        let len = guarded.len() - 2 * gemm_host::case::guard::<T>();
        Guarded { dev, initial: guarded, len }
    }

    /// The part handed to the GEMM.
    pub fn view(&self) -> CudaView<'_, T> {
        self.dev.slice(gemm_host::case::guard::<T>()..gemm_host::case::guard::<T>() + self.len)
    }

    /// The part handed to the GEMM, mutably.
    pub fn view_mut(&mut self) -> CudaViewMut<'_, T> {
        self.dev.slice_mut(gemm_host::case::guard::<T>()..gemm_host::case::guard::<T>() + self.len)
    }

    /// The first `len` elements of the part handed to the GEMM, mutably.
    pub fn prefix_mut(&mut self, len: usize) -> CudaViewMut<'_, T> {
        self.dev.slice_mut(gemm_host::case::guard::<T>()..gemm_host::case::guard::<T>() + len)
    }

    /// What the inner part held before the GEMM.
    pub fn initial_inner(&self) -> &[T] {
        &self.initial[gemm_host::case::guard::<T>()..gemm_host::case::guard::<T>() + self.len]
    }

    /// The whole buffer now, guards included.
    pub fn download(&self, gemm: &Gemm) -> Vec<T> {
        gemm.download(&self.dev).expect("download")
    }

    /// The inner part of a downloaded buffer.
    pub fn inner(full: &[T]) -> &[T] {
        gemm_host::case::inner(full)
    }

    /// Indices (into the whole buffer) whose bits changed.
    pub fn changed(&self, now: &[T]) -> Vec<usize> {
        (0..now.len()).filter(|&i| !reference::same_bits(now[i], self.initial[i])).collect()
    }
}

/// Something that runs one GEMM on views (a gemmforge kernel or cuBLAS).
pub type Launcher<'l, T> = dyn Fn(&GemmConfig<T>, &CudaView<'_, T>, &CudaView<'_, T>, &mut CudaViewMut<'_, T>) -> Result<(), GemmError>
    + 'l;

/// Runs one call on random guarded inputs and checks everything
/// ([`Case::check`]): A and B unchanged, nothing outside C's `m × n` part
/// written, C within the precision's tolerance of the `f64` reference.
/// Returns the relative error, or what went wrong.
pub fn run_case<T: Element>(
    gemm: &Gemm,
    rng: &mut Random,
    cfg: &GemmConfig<T>,
    launch: &Launcher<'_, T>,
) -> Result<f64, String> {
    run_case_with(gemm, rng, cfg, launch, gemmforge::Math::Fma)
}

/// [`run_case`] of a kernel whose inner product is `math` (its error bound).
pub fn run_case_with<T: Element>(
    gemm: &Gemm,
    rng: &mut Random,
    cfg: &GemmConfig<T>,
    launch: &Launcher<'_, T>,
    math: gemmforge::Math,
) -> Result<f64, String> {
    let case = Case::random(*cfg, rng);
    let [a, b, mut c] =
        [Matrix::A, Matrix::B, Matrix::C].map(|m| Guarded::upload(gemm, case.guarded(m).to_vec()));
    launch(cfg, &a.view(), &b.view(), &mut c.view_mut()).map_err(|e| format!("{}: {e}", describe(cfg)))?;
    case.check(&a.download(gemm), &b.download(gemm), &c.download(gemm), math)
}

/// Sizes every kernel is checked on: empty, single, around every tile edge
/// (K_blk 8 and 16, M/N_blk 16, 24, 64, 96) and ragged in every dimension.
pub const SHAPES: &[(i64, i64, i64)] = &[
    (0, 0, 0),
    (0, 7, 5),
    (7, 0, 5),
    (7, 5, 0),
    (1, 1, 1),
    (1, 17, 1),
    (17, 1, 17),
    (17, 17, 17),
    (95, 96, 97),
    (96, 97, 95),
    (97, 95, 96),
    (96, 96, 96),
    (1, 97, 95),
    (97, 1, 17),
    (65, 33, 129),
    (25, 63, 9),
];

/// A few shapes at tile edges, for longer sweeps.
pub const EDGE: &[(i64, i64, i64)] =
    &[(0, 3, 3), (1, 1, 1), (17, 17, 17), (95, 96, 97), (97, 95, 96), (65, 33, 129)];

/// `(alpha, beta)` over {0, 1, random}².
pub fn scalar_pairs<T: Element>(rng: &mut Random) -> Vec<(T, T)> {
    let values = |rng: &mut Random| [T::ZERO, T::ONE, rng.scalar()];
    let alphas = values(rng);
    let betas = values(rng);
    alphas.iter().flat_map(|&a| betas.iter().map(move |&b| (a, b))).collect()
}

/// A call with leading dimensions `extra` above the smallest legal ones.
pub fn config<T: Element>(
    layout: Layout,
    (op_a, op_b): (Op, Op),
    (m, n, k): (i64, i64, i64),
    extra: i64,
    (alpha, beta): (T, T),
) -> GemmConfig<T> {
    let cfg = GemmConfig::with_layout(layout, op_a, op_b, m, n, k).alpha(alpha).beta(beta);
    cfg.lda(cfg.min_ld(Matrix::A) + extra)
        .ldb(cfg.min_ld(Matrix::B) + 2 * extra)
        .ldc(cfg.min_ld(Matrix::C) + extra)
}

/// Every op pair.
pub fn op_pairs() -> impl Iterator<Item = (Op, Op)> {
    Op::ALL.into_iter().flat_map(|a| Op::ALL.into_iter().map(move |b| (a, b)))
}

/// The Table 2 specs of `precision`, one per op pair (from `gemm-kernels`).
pub fn table2_specs(precision: Precision) -> Vec<KernelSpec> {
    op_pairs().map(|(a, b)| gemm_kernels::table2(precision, a, b).spec).collect()
}

/// Table 2 specs with the optional stencil parameters changed (wider
/// shared-memory loads, other cache paths), where still legal.
pub fn variant_specs(precision: Precision) -> Vec<KernelSpec> {
    let mut out = Vec::new();
    for spec in table2_specs(precision) {
        for variant in [
            KernelSpec { lds_width: 2, ..spec },
            KernelSpec { ldg: gemm_codegen::GlobalLoad::Cg, ..spec },
            KernelSpec { lds_width: 2, ldg: gemm_codegen::GlobalLoad::Ca, ..spec },
        ] {
            if gemm_codegen::validate(&variant).is_ok() {
                out.push(variant);
            }
        }
    }
    out
}

/// Collects failures and reports them all at the end.
#[derive(Default)]
pub struct Failures {
    list: Vec<String>,
    cases: usize,
    worst: f64,
}

impl Failures {
    /// Records one case's outcome.
    pub fn record(&mut self, outcome: Result<f64, String>) {
        self.cases += 1;
        match outcome {
            Ok(err) => self.worst = self.worst.max(err),
            Err(msg) => self.list.push(msg),
        }
    }

    /// Panics listing the failures, if any; else prints a summary.
    pub fn finish(self, what: &str) {
        if !self.list.is_empty() {
            let shown: Vec<&str> = self.list.iter().take(25).map(String::as_str).collect();
            panic!(
                "{what}: {} of {} cases failed; first {}:\n{}",
                self.list.len(),
                self.cases,
                shown.len(),
                shown.join("\n")
            );
        }
        say(&format!("{what}: {} cases passed, worst relative error {:e}", self.cases, self.worst));
    }
}
