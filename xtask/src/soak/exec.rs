//! One soak [`Call`] on the GPU: its inputs drawn from its seed as guarded
//! [`Case`]s (one per problem of a batch: each problem's guarded buffers
//! end to end), run by our dispatch and by cuBLAS on the same device
//! buffers, then checked.
//!
//! - Calls whose `m · n · k` (over all problems) is at most
//!   `--reference-max`, and every batch: [`Case::check`] of each problem,
//!   the project's one check (A and B untouched, nothing outside C's `m ×
//!   n` part written, C within [`reference::tolerance`] of the `f64`
//!   reference, element by element). cuBLAS's C is measured against the
//!   same reference, for the record.
//! - Larger calls, whose `f64` reference would take minutes: the same
//!   buffer checks ([`Case::check_buffers`]), C's first, last and two
//!   random columns against the `f64` reference with the same tolerance
//!   ([`reference::gemm_columns`]: `m · k` each), and all of C against
//!   cuBLAS's as `cargo xtask bench` and `tune` check a kernel
//!   ([`measure::versus_cublas`]: normwise, within twice the bound, scaled
//!   by the sampled columns' bound).

use gemm_codegen::Math;
use gemm_host::case::{self, Case, GUARD};
use gemm_host::cublas::Cublas;
use gemm_host::num_complex::Complex;
use gemm_host::reference::{self, Random};
use gemm_host::validate::StridedBatch;
use gemm_host::{Element, Gemm, GemmConfig, GemmError, Matrix, Precision};

use super::call::{Call, Form, SplitMix64};
use crate::measure;

/// A worker's GPU side: our runner on its stream and cuBLAS on the same.
#[derive(Debug)]
pub struct Runner {
    /// Our GEMMs, on the worker's stream.
    pub gemm: Gemm,
    cublas: Cublas,
}

impl Runner {
    /// A runner on `gemm`'s stream, with a cuBLAS handle of its own there.
    pub fn new(gemm: Gemm) -> Result<Runner, GemmError> {
        let cublas = Cublas::new(gemm.stream().clone())?;
        Ok(Runner { gemm, cublas })
    }
}

/// What C was compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reference {
    /// The whole `f64` reference ([`Case::check`]).
    F64,
    /// Sampled columns of the `f64` reference, and cuBLAS's C.
    Cublas,
}

/// How a call ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Every check passed.
    Pass,
    /// A check failed: what and where.
    Mismatch(String),
    /// A GEMM, copy or allocation failed.
    Error(String),
}

/// One call, done.
#[derive(Clone, Debug)]
pub struct Done {
    /// Floating-point operations of our GEMM (all problems).
    pub flops: f64,
    /// What C was compared with.
    pub reference: Reference,
    /// The outcome.
    pub verdict: Verdict,
    /// Whether cuBLAS's own C was outside the tolerance of the `f64`
    /// reference (calls checked against it only; not a failure of ours).
    pub cublas_outside: bool,
}

/// Runs `call` on `runner` and checks it; calls of more than
/// `reference_max` multiply-adds (not batches) are compared with cuBLAS.
pub fn run(runner: &Runner, call: &Call, reference_max: u64) -> Done {
    match call.precision {
        Precision::F32 => run_as::<f32>(runner, call, reference_max),
        Precision::F64 => run_as::<f64>(runner, call, reference_max),
        Precision::C32 => run_as::<Complex<f32>>(runner, call, reference_max),
        Precision::C64 => run_as::<Complex<f64>>(runner, call, reference_max),
        Precision::F16 => run_as::<gemm_codegen::half::f16>(runner, call, reference_max),
        Precision::Bf16 => run_as::<gemm_codegen::half::bf16>(runner, call, reference_max),
    }
}

fn run_as<T: Element>(runner: &Runner, call: &Call, reference_max: u64) -> Done {
    let (cfg, mut rng) = call.inputs::<T>();
    let flops = measure::flops(&cfg) * f64::from(call.count());
    let (reference, outcome) = match call.strided_batch(&cfg) {
        Some(batch) => (Reference::F64, batch_call(runner, call, &cfg, &batch, &mut rng)),
        None if call.work() <= reference_max => {
            (Reference::F64, single_call(runner, call, &cfg, &mut rng, true))
        }
        None => (Reference::Cublas, single_call(runner, call, &cfg, &mut rng, false)),
    };
    let (verdict, cublas_outside) = match outcome {
        Ok(Checked { mismatch: Some(why), cublas_outside }) => (Verdict::Mismatch(why), cublas_outside),
        Ok(Checked { mismatch: None, cublas_outside }) => (Verdict::Pass, cublas_outside),
        Err(e) => (Verdict::Error(e), false),
    };
    Done { flops, reference, verdict, cublas_outside }
}

/// A run's checks: why it failed, if it did, and whether cuBLAS was outside
/// the tolerance.
struct Checked {
    mismatch: Option<String>,
    cublas_outside: bool,
}

/// The part of a guarded buffer's range handed to the GEMM.
fn inner(len: usize) -> std::ops::Range<usize> {
    GUARD..len.saturating_sub(GUARD).max(GUARD)
}

/// A plain or split-K call: ours and cuBLAS's on the same device A and B,
/// each into its own copy of C; checked against the whole `f64` reference
/// when `whole`, else as the module docs say.
fn single_call<T: Element>(
    runner: &Runner,
    call: &Call,
    cfg: &GemmConfig<T>,
    rng: &mut Random,
    whole: bool,
) -> Result<Checked, String> {
    let gemm = &runner.gemm;
    let case = Case::random(*cfg, rng);
    let entry = gemm.default_kernel(cfg);
    let fail = |step: &str, e: GemmError| format!("{}: {step}: {e}", case::describe(cfg));
    let up = |x: Matrix| gemm.upload(case.guarded(x)).map_err(|e| fail("upload", e));
    let (a, b, mut ours, mut theirs) = (up(Matrix::A)?, up(Matrix::B)?, up(Matrix::C)?, up(Matrix::C)?);
    let (av, bv) = (a.slice(inner(a.len())), b.slice(inner(b.len())));
    let c_part = inner(ours.len());
    match call.form {
        Form::Split { slices } => {
            let kernel = gemm.load(&entry.image()).map_err(|e| fail("loading the default kernel", e))?;
            gemm.gemm_split_k_loaded(&kernel, cfg, slices, &av, &bv, &mut ours.slice_mut(c_part.clone()))
        }
        Form::Plain | Form::Batch { .. } => {
            gemm.gemm_default(cfg, &av, &bv, &mut ours.slice_mut(c_part.clone()))
        }
    }
    .map_err(|e| fail("gemmforge", e))?;
    runner.cublas.gemm(cfg, &av, &bv, &mut theirs.slice_mut(c_part)).map_err(|e| fail("cuBLAS", e))?;
    let down = |s| gemm.download(s).map_err(|e| fail("download", e));
    let (a, b, ours, theirs) = (down(&a)?, down(&b)?, down(&ours)?, down(&theirs)?);
    let math = entry.spec.math;
    if whole {
        let mismatch = case.check(&a, &b, &ours, math).err();
        let tol = reference::tolerance(T::PRECISION, math, cfg.k.max(0) as u64);
        // `Case::error` counts NaN as infinitely wrong.
        let cublas_outside = mismatch.is_none() && case.error(case::inner(&theirs)) >= tol;
        return Ok(Checked { mismatch, cublas_outside });
    }
    let mismatch =
        case.check_buffers(&a, &b, &ours).err().or_else(|| large(&case, &ours, &theirs, math, call.seed));
    Ok(Checked { mismatch, cublas_outside: false })
}

/// The checks of C of a call too large for the whole `f64` reference:
/// sampled columns against the reference, all of C against cuBLAS's.
fn large<T: Element>(case: &Case<T>, ours: &[T], theirs: &[T], math: Math, seed: u64) -> Option<String> {
    let cfg = case.cfg();
    let what = case::describe(cfg);
    let cols = sample_columns(cfg.n, seed);
    if cols.is_empty() {
        return None;
    }
    let (a, b, c) = (case.input(Matrix::A), case.input(Matrix::B), case.input(Matrix::C));
    let reference = reference::gemm_columns(cfg, a, b, c, &cols)
        .and_then(|r| Ok((r, reference::gemm_bound_columns(cfg, a, b, c, &cols)?)));
    let (expected, bound) = match reference {
        Ok(x) => x,
        Err(e) => return Some(format!("{what}: the f64 reference refused the call: {e}")),
    };
    let (ours, theirs) = (case::inner(ours), case::inner(theirs));
    let got = reference::logical_c_columns(cfg, ours, &cols);
    let err = reference::componentwise_error(&got, &expected, &bound);
    let k = cfg.k.max(0) as u64;
    let tol = reference::tolerance(T::PRECISION, math, k);
    // NaN fails too.
    if err.is_nan() || err >= tol {
        return Some(format!(
            "{what}: columns {cols:?} of C: relative error {err:e} against the f64 reference (tolerance {tol:e})"
        ));
    }
    let difference =
        reference::relative_error(&reference::logical_c(cfg, ours), &reference::logical_c(cfg, theirs));
    if difference == 0.0 {
        return None;
    }
    let scale = measure::bound_scale(&bound, &expected);
    if !scale.is_finite() {
        return Some(format!("{what}: C should be 0, differs from cuBLAS's by {difference:e}"));
    }
    measure::versus_cublas(difference, T::PRECISION, math, k, scale)
        .map(|why| format!("{what}: differs from cuBLAS: {why}"))
}

/// The columns of C checked against the `f64` reference in a large call:
/// the first, the last and two drawn from the call's seed, in order.
pub fn sample_columns(n: i64, seed: u64) -> Vec<usize> {
    let n = usize::try_from(n).unwrap_or(0);
    if n == 0 {
        return Vec::new();
    }
    let mut rng = SplitMix64::new(seed ^ 0xC01_u64.rotate_left(40));
    let mut cols = vec![0, n - 1, rng.next_u64() as usize % n, rng.next_u64() as usize % n];
    cols.sort_unstable();
    cols.dedup();
    cols
}

/// A strided batch: each problem's guarded buffers end to end (A's one
/// buffer when shared), ours and cuBLAS's into their own C; each problem
/// checked by its [`Case`].
fn batch_call<T: Element>(
    runner: &Runner,
    call: &Call,
    cfg: &GemmConfig<T>,
    batch: &StridedBatch,
    rng: &mut Random,
) -> Result<Checked, String> {
    let gemm = &runner.gemm;
    let count = usize::try_from(batch.count).unwrap_or(0);
    let shared_a = matches!(call.form, Form::Batch { shared_a: true, .. });
    let cases: Vec<Case<T>> = if shared_a {
        let first = Case::random(*cfg, rng);
        let a = first.input(Matrix::A).to_vec();
        let rest: Vec<Case<T>> = (1..count).map(|_| Case::with_a(*cfg, &a, rng)).collect();
        std::iter::once(first).chain(rest).collect()
    } else {
        (0..count).map(|_| Case::random(*cfg, rng)).collect()
    };
    let Some(first) = cases.first() else { return Ok(Checked { mismatch: None, cublas_outside: false }) };
    let joined = |x: Matrix| -> Vec<T> { cases.iter().flat_map(|c| c.guarded(x).iter().copied()).collect() };
    let a_host = if shared_a { first.guarded(Matrix::A).to_vec() } else { joined(Matrix::A) };
    let what = format!("batch of {count} {}", case::describe(cfg));
    let fail = |step: &str, e: GemmError| format!("{what}: {step}: {e}");
    let up = |host: &[T]| gemm.upload(host).map_err(|e| fail("upload", e));
    let c_host = joined(Matrix::C);
    let (a, b, mut ours, mut theirs) = (up(&a_host)?, up(&joined(Matrix::B))?, up(&c_host)?, up(&c_host)?);
    let (av, bv) = (a.slice(inner(a.len())), b.slice(inner(b.len())));
    let c_part = inner(ours.len());
    gemm.gemm_strided_batched(cfg, batch, &av, &bv, &mut ours.slice_mut(c_part.clone()))
        .map_err(|e| fail("gemmforge", e))?;
    runner
        .cublas
        .gemm_strided_batched(cfg, batch, &av, &bv, &mut theirs.slice_mut(c_part))
        .map_err(|e| fail("cuBLAS", e))?;
    let down = |s| gemm.download(s).map_err(|e| fail("download", e));
    let (a, b, ours, theirs) = (down(&a)?, down(&b)?, down(&ours)?, down(&theirs)?);
    let math = gemm.default_batch_kernel(cfg).spec.math;
    let tol = reference::tolerance(T::PRECISION, math, cfg.k.max(0) as u64);
    let part = |v: &[T], x: Matrix, i: usize| {
        let len = first.guarded(x).len();
        if x == Matrix::A && shared_a { v.to_vec() } else { v[i * len..(i + 1) * len].to_vec() }
    };
    let mut cublas_outside = false;
    for (i, case) in cases.iter().enumerate() {
        let (pa, pb, pc) = (part(&a, Matrix::A, i), part(&b, Matrix::B, i), part(&ours, Matrix::C, i));
        if let Err(e) = case.check(&pa, &pb, &pc, math) {
            return Ok(Checked {
                mismatch: Some(format!("problem {i} of {count}: {e}")),
                cublas_outside: false,
            });
        }
        let theirs = part(&theirs, Matrix::C, i);
        cublas_outside |= case.error(case::inner(&theirs)) >= tol;
    }
    Ok(Checked { mismatch: None, cublas_outside })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampled_columns_hold_the_edges_and_stay_in_range() {
        assert!(sample_columns(0, 1).is_empty());
        assert_eq!(sample_columns(1, 1), [0]);
        for seed in 0..200 {
            let cols = sample_columns(8191, seed);
            assert_eq!((cols[0], *cols.last().unwrap()), (0, 8190));
            assert!(cols.len() >= 2 && cols.windows(2).all(|w| w[0] < w[1]), "{cols:?}");
        }
        assert_eq!(sample_columns(500, 9), sample_columns(500, 9));
    }
}
