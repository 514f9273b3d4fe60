//! Timing GEMMs on the GPU as `METHOD.md` asks: random inputs (never
//! zeros), rotated among enough sets that the L2 cache cannot hold them, a
//! warm-up, CUDA events around every repetition, and the median. Every
//! measured kernel, cuBLAS included, runs through the same [`Bench`].

use anyhow::{Context as _, Result};
use gemm_codegen::{Math, Precision};
use gemm_host::cublas::Cublas;
use gemm_host::cudarc::driver::CudaSlice;
use gemm_host::num_complex::Complex;
use gemm_host::reference::{self, Random};
use gemm_host::validate::StridedBatch;
use gemm_host::{Element, Gemm, GemmConfig, GemmError, LoadedKernel, Matrix, Op};

pub use gemm_host::timing::{Plan, Timing};

/// Floating-point operations of one `m × n × k` GEMM of `T`.
pub fn flops<T: Element>(cfg: &GemmConfig<T>) -> f64 {
    T::PRECISION.flops_per_fma() as f64 * cfg.m as f64 * cfg.n as f64 * cfg.k as f64
}

/// Bytes one `m × n × k` GEMM of `T` must move at least: A and B read once,
/// C written once, and read once where `beta ≠ 0` (what a kernel bound by
/// memory is measured against: skinny K, batches of small problems).
pub fn bytes<T: Element>(cfg: &GemmConfig<T>) -> f64 {
    let (m, n, k) = (cfg.m as f64, cfg.n as f64, cfg.k as f64);
    let c_times = if cfg.beta == T::ZERO { 1.0 } else { 2.0 };
    T::PRECISION.element_bytes() as f64 * (m * k + k * n + c_times * m * n)
}

/// Device inputs of one problem (or of a packed batch of `count` problems,
/// [`Bench::new_batch`]), reused for every kernel timed on it.
pub struct Bench<T: Element> {
    cfg: GemmConfig<T>,
    /// Problems per call: `set_cfg` checks the buffers hold this many.
    count: usize,
    inputs: Vec<(CudaSlice<T>, CudaSlice<T>)>,
    c: CudaSlice<T>,
}

impl<T: Element> Bench<T> {
    /// Random A, B (several sets when one would fit in twice the L2) and C
    /// for `cfg`.
    pub fn new(gemm: &Gemm, cfg: GemmConfig<T>, rng: &mut Random) -> Result<Bench<T>> {
        Bench::new_batch(gemm, cfg, 1, rng)
    }

    /// Random inputs for `count` problems of `cfg` stored one after another
    /// (`StridedBatch::packed`).
    pub fn new_batch(gemm: &Gemm, cfg: GemmConfig<T>, count: usize, rng: &mut Random) -> Result<Bench<T>> {
        let (a_len, b_len, c_len) = (
            count * cfg.required_len(Matrix::A) as usize,
            count * cfg.required_len(Matrix::B) as usize,
            count * cfg.required_len(Matrix::C) as usize,
        );
        let bytes = ((a_len + b_len) * T::PRECISION.element_bytes() as usize) as u64;
        let sets = input_sets(bytes, u64::from(gemm.device().l2_bytes)) as usize;
        let mut inputs = Vec::with_capacity(sets);
        for _ in 0..sets {
            inputs.push((gemm.upload(&rng.matrix::<T>(a_len))?, gemm.upload(&rng.matrix::<T>(b_len))?));
        }
        let c = gemm.upload(&rng.matrix::<T>(c_len))?;
        Ok(Bench { cfg, count, inputs, c })
    }

    /// The problem.
    pub fn cfg(&self) -> &GemmConfig<T> {
        &self.cfg
    }

    /// Switches to another call on the same buffers (other ops on a square
    /// problem, say).
    ///
    /// # Panics
    /// If `cfg` needs longer buffers than were allocated.
    pub fn set_cfg(&mut self, cfg: GemmConfig<T>) {
        for (matrix, len) in [
            (Matrix::A, self.inputs[0].0.len()),
            (Matrix::B, self.inputs[0].1.len()),
            (Matrix::C, self.c.len()),
        ] {
            assert!(
                self.count * cfg.required_len(matrix) as usize <= len,
                "{matrix:?} needs a longer buffer"
            );
        }
        self.cfg = cfg;
    }

    /// Times `run` (one GEMM on the given buffers) under `plan`.
    pub fn time(
        &mut self,
        gemm: &Gemm,
        plan: Plan,
        mut run: impl FnMut(
            &GemmConfig<T>,
            &CudaSlice<T>,
            &CudaSlice<T>,
            &mut CudaSlice<T>,
        ) -> Result<(), GemmError>,
    ) -> Result<Timing> {
        let sets = self.inputs.len();
        let (inputs, cfg, c) = (&self.inputs, &self.cfg, &mut self.c);
        let timing = gemm_host::timing::repeat(gemm.stream(), plan, |i| {
            let (a, b) = &inputs[i % sets];
            run(cfg, a, b, c)
        })?;
        Ok(timing)
    }
}

impl<T: Element> Bench<T> {
    /// Times `kernel` on the bench's call: its problems as one strided
    /// batch ([`Bench::new_batch`]), or one problem with K split into at
    /// most `slices` slices (1: none).
    pub fn time_ours(
        &mut self,
        gemm: &Gemm,
        plan: Plan,
        kernel: &LoadedKernel,
        slices: u32,
    ) -> Result<Timing> {
        let count = self.count;
        self.time(gemm, plan, |cfg, a, b, c| {
            if count > 1 {
                gemm.gemm_strided_batched_loaded(
                    kernel,
                    cfg,
                    &StridedBatch::packed(cfg, count as i64),
                    a,
                    b,
                    c,
                )
            } else {
                gemm.gemm_split_k_loaded(kernel, cfg, slices, a, b, c)
            }
        })
    }

    /// Times cuBLAS on the same call as [`Bench::time_ours`].
    pub fn time_cublas(&mut self, gemm: &Gemm, plan: Plan, cublas: &Cublas) -> Result<Timing> {
        let count = self.count;
        self.time(gemm, plan, |cfg, a, b, c| {
            if count > 1 {
                cublas.gemm_strided_batched(cfg, &StridedBatch::packed(cfg, count as i64), a, b, c)
            } else {
                cublas.gemm(cfg, a, b, c)
            }
        })
    }
}

/// How many sets of A and B a [`Bench`] rotates among: enough that together
/// they are twice the L2 (so no run finds its inputs cached), at most 8.
pub fn input_sets(ab_bytes: u64, l2_bytes: u64) -> u64 {
    (2 * l2_bytes).div_ceil(ab_bytes.max(1)).clamp(1, 8)
}

/// The small ragged problem a kernel must solve like cuBLAS before it is
/// timed: ragged against every tile, so edges are exercised.
pub const CHECK_SHAPE: (i64, i64, i64) = (389, 271, 157);

/// The check's leading dimensions are rounded up to a multiple of this many
/// elements (64 bytes for `f32`): every operand is as aligned as a kernel's
/// widest loads assume, so the check runs the kernel that is timed, not its
/// unaligned twin (`gemm-host` swaps that in for an odd `lda`).
pub const CHECK_LD_MULTIPLE: u64 = 16;

/// cuBLAS's answer to [`CHECK_SHAPE`] for one op pair, on random inputs and
/// scalars: a wrong kernel is never timed (and never a tuning winner).
pub struct CublasCheck<T: Element> {
    cfg: GemmConfig<T>,
    a: Vec<T>,
    b: Vec<T>,
    c: Vec<T>,
    expected: Vec<Complex<f64>>,
    /// `‖|alpha|·|op(A)|·|op(B)| + |beta|·|C|‖_F / ‖expected‖_F`: the
    /// componentwise error bound ([`reference::tolerance`]) in the normwise
    /// terms [`CublasCheck::difference`] measures in.
    scale: f64,
}

impl<T: Element> CublasCheck<T> {
    /// Draws the inputs and runs cuBLAS on them.
    pub fn new(gemm: &Gemm, cublas: &Cublas, op_a: Op, op_b: Op, rng: &mut Random) -> Result<CublasCheck<T>> {
        let (m, n, k) = CHECK_SHAPE;
        let tight = GemmConfig::<T>::new(op_a, op_b, m, n, k).alpha(rng.scalar()).beta(rng.scalar());
        let padded = |matrix| (tight.ld(matrix) as u64).next_multiple_of(CHECK_LD_MULTIPLE) as i64;
        let cfg = tight.lda(padded(Matrix::A)).ldb(padded(Matrix::B)).ldc(padded(Matrix::C));
        let len = |matrix| cfg.required_len(matrix) as usize;
        let (a, b, c) = (rng.matrix(len(Matrix::A)), rng.matrix(len(Matrix::B)), rng.matrix(len(Matrix::C)));
        let (da, db) = (gemm.upload(&a)?, gemm.upload(&b)?);
        let mut dc = gemm.upload(&c)?;
        cublas.gemm(&cfg, &da, &db, &mut dc)?;
        let expected = reference::logical_c(&cfg, &gemm.download(&dc)?);
        let bound = reference::gemm_bound(&cfg, &a, &b, &c).context("the check problem is a valid call")?;
        let scale = bound_scale(&bound, &expected);
        Ok(CublasCheck { cfg, a, b, c, expected, scale })
    }

    /// Runs `kernel` on the same inputs and returns its normwise relative
    /// difference from cuBLAS; an error is the launch's.
    pub fn difference(&self, gemm: &Gemm, kernel: &LoadedKernel) -> Result<f64, GemmError> {
        let (a, b) = (gemm.upload(&self.a)?, gemm.upload(&self.b)?);
        let mut c = gemm.upload(&self.c)?;
        gemm.gemm_loaded(kernel, &self.cfg, &a, &b, &mut c)?;
        let got = reference::logical_c(&self.cfg, &gemm.download(&c)?);
        Ok(reference::relative_error(&got, &self.expected))
    }

    /// `None` when `difference` is within the error bound of the precision
    /// multiplied by `math` at the check's `k`, else why not: ours and
    /// cuBLAS's, each within the bound of the exact product, are at most
    /// twice it apart.
    pub fn verdict(&self, difference: f64, math: Math) -> Option<String> {
        let (m, n, k) = CHECK_SHAPE;
        versus_cublas(difference, T::PRECISION, math, k as u64, self.scale)
            .map(|why| format!("differs from cuBLAS on {m}x{n}x{k}: {why}"))
    }
}

/// `‖bound‖_F / ‖expected‖_F`: the componentwise error bound of a call
/// ([`reference::gemm_bound`], or some of its columns) in the normwise terms
/// of [`reference::relative_error`] against `expected` (the same columns of
/// the result).
pub fn bound_scale(bound: &[f64], expected: &[Complex<f64>]) -> f64 {
    bound.iter().map(|b| b * b).sum::<f64>().sqrt()
        / expected.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt()
}

/// [`CublasCheck::verdict`] for any call: `None` when `difference`, the
/// normwise relative difference between a kernel's C and cuBLAS's, is below
/// twice the error bound of `precision` multiplied by `math` at depth `k`
/// in normwise terms (`scale`, [`bound_scale`]), else why not.
pub fn versus_cublas(
    difference: f64,
    precision: Precision,
    math: Math,
    k: u64,
    scale: f64,
) -> Option<String> {
    let tol = 2.0 * reference::tolerance(precision, math, k) * scale;
    (difference.is_nan() || difference >= tol)
        .then(|| format!("relative difference {difference:.2e} (tolerance {tol:.1e})"))
}
