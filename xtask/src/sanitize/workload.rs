//! The calls `cargo xtask sanitize` adds to verify's sweep, made inside
//! `verify --gpu --sanitize-workload` (the process compute-sanitizer runs):
//! per precision, a split-K call and a strided batch with the kernels
//! `gemm-host`'s dispatch picks, and for `f32` and `f64` one shipped bespoke
//! kernel of `gemm_kernels::bespoke` (aligned, and through its unaligned
//! twin); each checked like verify's cases by [`Case::check`] (guards, C
//! NaN-poisoned for `beta = 0`, the `f64` reference). Also the workload's
//! last line ([`Line`]), which the sanitizer run parses.

use std::fmt;
use std::sync::Arc;

use anyhow::{Context as _, Result, ensure};
use gemm_codegen::bespoke::mtx;
use gemm_host::bespoke::{BespokeCase, BespokeKernel};
use gemm_host::case::Case;
use gemm_host::num_complex::Complex;
use gemm_host::reference::Random;
use gemm_host::validate::StridedBatch;
use gemm_host::{Element, Gemm, GemmConfig, Matrix, Op, Precision};
use gemm_kernels::bespoke::BespokeEntry;

use crate::guarded::on_device;

/// The operator of the bespoke kernels run: the gradient of a p = 3 hex
/// element (192 × 64), as `gemm-kernels` compiles it.
const HEX_P3_GRAD: &str = include_str!("../../../gemm-kernels/data/bespoke/hex-p3-gl-grad.mtx");

/// The shipped bespoke kernel run for `precision`, on [`HEX_P3_GRAD`]:
/// `HexP3GradStaged` (`f32`: B staged through shared memory, two columns a
/// thread, `beta = 0`) and `HexP3Grad` (`f64`: the operator's default form).
/// Bespoke kernels are real: none for `c` and `z`.
pub(crate) fn bespoke_entry(precision: Precision) -> Option<&'static BespokeEntry> {
    let name = match precision {
        Precision::F32 => "HexP3GradStaged",
        Precision::F64 => "HexP3Grad",
        Precision::C32 | Precision::C64 | Precision::F16 | Precision::Bf16 => return None,
    };
    gemm_kernels::bespoke::ALL.iter().find(|e| e.name == name)
}

/// What the calls beyond the sweep ran and found.
#[derive(Debug, Default)]
pub struct Extras {
    /// Names of the kernels they ran.
    pub kernels: Vec<String>,
    /// Calls made.
    pub calls: usize,
    /// Each failed call, described.
    pub failures: Vec<String>,
}

impl Extras {
    fn record(&mut self, what: &str, kernels: &[&str], outcome: Result<f64, String>) {
        self.calls += 1;
        self.kernels.extend(kernels.iter().map(|&k| k.to_owned()));
        if let Err(e) = outcome {
            self.failures.push(format!("{what}: {e}"));
        }
    }
}

/// The workload's last line, `workload: K kernels, C calls, F failed`: the
/// distinct kernels it ran by name (the unaligned twins that odd leading
/// dimensions bring in, and split K's reduction inside the dispatch, are
/// not counted apart), its calls (verify's cases, quick returns included,
/// and the extras) and how many failed their check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    /// Distinct kernels run.
    pub kernels: usize,
    /// GEMM calls made.
    pub calls: usize,
    /// Calls that failed their check.
    pub failed: usize,
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "workload: {} kernels, {} calls, {} failed", self.kernels, self.calls, self.failed)
    }
}

impl Line {
    /// The line [`Line`]'s `Display` writes, or `None` for any other.
    pub fn parse(line: &str) -> Option<Line> {
        let rest = line.trim().strip_prefix("workload: ")?;
        let mut numbers = rest.split(", ").map(|part| {
            let (n, _word) = part.split_once(' ')?;
            n.parse::<usize>().ok()
        });
        let (kernels, calls, failed) = (numbers.next()??, numbers.next()??, numbers.next()??);
        numbers.next().is_none().then_some(Line { kernels, calls, failed })
    }
}

/// Runs the calls beyond verify's sweep for each of `precisions`, ops
/// `op` (split K and the batch; bespoke kernels have their own), and prints
/// each failure.
pub fn extras(gemm: &Gemm, precisions: &[Precision], op: (Op, Op), rng: &mut Random) -> Result<Extras> {
    let mut out = Extras::default();
    for &precision in precisions {
        match precision {
            Precision::F32 => of::<f32>(gemm, op, rng, &mut out),
            Precision::F64 => of::<f64>(gemm, op, rng, &mut out),
            Precision::C32 => of::<Complex<f32>>(gemm, op, rng, &mut out),
            Precision::C64 => of::<Complex<f64>>(gemm, op, rng, &mut out),
            Precision::F16 => of::<gemm_codegen::half::f16>(gemm, op, rng, &mut out),
            Precision::Bf16 => of::<gemm_codegen::half::bf16>(gemm, op, rng, &mut out),
        }?;
    }
    println!(
        "extras: split K, strided batch and bespoke calls: {} calls, {} failed",
        out.calls,
        out.failures.len()
    );
    for f in &out.failures {
        println!("    FAILED {f}");
    }
    Ok(out)
}

/// `cfg` with leading dimensions one, two and one element past the tightest.
fn padded<T: Element>(cfg: GemmConfig<T>) -> GemmConfig<T> {
    cfg.lda(cfg.min_ld(Matrix::A) + 1).ldb(cfg.min_ld(Matrix::B) + 2).ldc(cfg.min_ld(Matrix::C) + 1)
}

fn of<T: Element>(gemm: &Gemm, (op_a, op_b): (Op, Op), rng: &mut Random, out: &mut Extras) -> Result<()> {
    let p = T::PRECISION;

    // Split K: ragged, three slices of unequal depth (352, 352, 327), the
    // partial products then their sum by the split-sum kernel.
    let cfg = padded(GemmConfig::<T>::new(op_a, op_b, 65, 47, 1031).alpha(rng.scalar()).beta(rng.scalar()));
    let entry = gemm.default_kernel(&cfg);
    let kernel = gemm.load(&entry.image())?;
    let case = Case::random(cfg, rng);
    let guarded = [Matrix::A, Matrix::B, Matrix::C].map(|x| case.guarded(x));
    let outcome = on_device(gemm, guarded, |a, b, c| gemm.gemm_split_k_loaded(&kernel, &cfg, 3, a, b, c))
        .map_err(|e| e.to_string())
        .and_then(|[a, b, c]| case.check(&a, &b, &c, entry.spec.math));
    let reduce = gemm_kernels::split_sum(p).name;
    out.record(&format!("{p} split K in 3 slices"), &[entry.name, reduce], outcome);

    // A strided batch of three ragged problems, their guarded buffers end
    // to end, C poisoned (beta = 0).
    let cfg = padded(GemmConfig::<T>::new(op_a, op_b, 17, 15, 19).alpha(rng.scalar()));
    let cases: Vec<Case<T>> = (0..3).map(|_| Case::random(cfg, rng)).collect();
    let joined = |x: Matrix| -> Vec<T> { cases.iter().flat_map(|c| c.guarded(x).to_vec()).collect() };
    let stride = |x: Matrix| cases[0].guarded(x).len();
    let batch = StridedBatch {
        count: 3,
        stride_a: stride(Matrix::A) as i64,
        stride_b: stride(Matrix::B) as i64,
        stride_c: stride(Matrix::C) as i64,
    };
    let entry = gemm.default_batch_kernel(&cfg);
    let [a, b, c] = [Matrix::A, Matrix::B, Matrix::C].map(joined);
    let outcome = on_device(gemm, [&a, &b, &c], |a, b, c| gemm.gemm_strided_batched(&cfg, &batch, a, b, c))
        .map_err(|e| e.to_string())
        .and_then(|[a, b, c]| {
            let part = |v: &[T], x: Matrix, i: usize| v[i * stride(x)..(i + 1) * stride(x)].to_vec();
            let mut worst = 0.0f64;
            for (i, case) in cases.iter().enumerate() {
                let (pa, pb, pc) = (part(&a, Matrix::A, i), part(&b, Matrix::B, i), part(&c, Matrix::C, i));
                let err =
                    case.check(&pa, &pb, &pc, entry.spec.math).map_err(|e| format!("problem {i}: {e}"))?;
                worst = worst.max(err);
            }
            Ok(worst)
        });
    out.record(&format!("{p} strided batch of 3"), &[entry.name], outcome);

    // A shipped bespoke kernel: aligned n, then odd n (its unaligned twin).
    let Some(entry) = bespoke_entry(p) else { return Ok(()) };
    let kernel = shipped_bespoke(entry)?;
    for n in [1000, 1001] {
        let case = BespokeCase::<T>::random(kernel.operator(), n, entry.spec.beta, rng);
        let guarded = [Matrix::A, Matrix::B, Matrix::C].map(|x| case.case.guarded(x));
        let outcome = on_device(gemm, guarded, |_, b, c| gemm.bespoke(&kernel, &case.call, b, c))
            .map_err(|e| e.to_string())
            .and_then(|[_, b, c]| case.check(&b, &c, entry.spec.math()));
        out.record(&format!("bespoke {} n = {n}", entry.name), &[entry.name], outcome);
    }
    Ok(())
}

/// The bespoke kernel `entry` of `gemm_kernels::bespoke` as `gemm-host`
/// runs it: compiled from its operator ([`HEX_P3_GRAD`]) and spec, which
/// must give the shipped image.
pub(crate) fn shipped_bespoke(entry: &BespokeEntry) -> Result<BespokeKernel> {
    let operator = mtx::parse(HEX_P3_GRAD).map_err(|e| anyhow::anyhow!("hex-p3-gl-grad.mtx: {e}"))?;
    let kernel = BespokeKernel::compile(Arc::new(operator), &entry.spec)
        .with_context(|| format!("compiling the bespoke kernel {}", entry.name))?;
    ensure!(
        *kernel.image() == entry.image(),
        "the bespoke kernel {} compiled from hex-p3-gl-grad.mtx differs from the shipped one",
        entry.name
    );
    Ok(kernel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workload_line_round_trips_and_nothing_else_parses() {
        let line = Line { kernels: 131, calls: 9829, failed: 0 };
        assert_eq!(line.to_string(), "workload: 131 kernels, 9829 calls, 0 failed");
        assert_eq!(Line::parse(&line.to_string()), Some(line));
        assert_eq!(
            Line::parse("  workload: 1 kernels, 2 calls, 3 failed\n"),
            Some(Line { kernels: 1, calls: 2, failed: 3 })
        );
        for other in [
            "summary: 131 kernels, 9829 cases, 0 failed",
            "workload: 1 kernels, 2 calls",
            "workload: x kernels, 2 calls, 3 failed",
            "workload: 1 kernels, 2 calls, 3 failed, 4 more",
            "",
        ] {
            assert_eq!(Line::parse(other), None, "{other}");
        }
    }

    /// The bespoke kernels the workload runs are the shipped ones, for the
    /// real precisions only.
    #[test]
    fn bespoke_kernels_are_the_shipped_ones() {
        for p in [Precision::F32, Precision::F64] {
            let entry = bespoke_entry(p).expect("an entry");
            assert_eq!(entry.spec.precision, p);
            let kernel = shipped_bespoke(entry).unwrap();
            assert_eq!(kernel.operator().rows(), 192);
        }
        assert!(bespoke_entry(Precision::C32).is_none() && bespoke_entry(Precision::C64).is_none());
    }
}
