//! `cargo xtask verify --gpu | --emulate`: chosen kernels over a sweep of
//! shapes, scalars and leading dimensions, each case checked by
//! [`gemm_host::case::Case`] against the `f64` CPU reference (A and B
//! untouched, nothing outside C's `m × n` part written, C poisoned with NaN
//! when `beta = 0`). On the GPU cuBLAS runs on the same inputs in the same
//! run, and its error and the difference between the two are reported; in
//! the emulator every safety check is on. `--perf N` then times each kernel
//! and cuBLAS at `m = n = k = N`.
//!
//! `cargo xtask sanitize` runs this sweep under compute-sanitizer with the
//! hidden `--sanitize-workload`: no cuBLAS (the sanitizer's reports must be
//! about gemmforge's kernels), then the calls the sweep does not make
//! ([`crate::sanitize::workload`]: split K, a strided batch, a bespoke
//! kernel per precision), and a last `workload:` line that it parses.
//!
//! The binary runs on a GPU machine without a Rust toolchain: build it with
//! `cargo build --release -p xtask` and carry `target/release/xtask`.

use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use gemm_codegen::{Element, KernelImage, KernelSpec, Math, Op, Precision};
use gemm_host::case::{self, Case, guard};
use gemm_host::cublas::Cublas;
use gemm_host::emulate::Emulator;
use gemm_host::num_complex::Complex;
use gemm_host::reference::{self, Random};
use gemm_host::{Gemm, GemmConfig, Matrix};

use crate::cli;
use crate::measure::{self, Bench, Plan};
use crate::sanitize::workload;

#[derive(clap::Args)]
pub struct Args {
    /// Run on the GPU, with cuBLAS on the same inputs.
    #[arg(long, required_unless_present = "emulate", conflicts_with = "emulate")]
    gpu: bool,
    /// Run in the CPU PTX emulator (every safety check on).
    #[arg(long)]
    emulate: bool,
    /// Precisions: s, d, c, z.
    #[arg(long, value_delimiter = ',', default_value = "s,d,c,z", value_parser = cli::parse_precision)]
    precision: Vec<Precision>,
    /// Op pairs: nn, nt, …, cc; `all`; `transposes` (nn, nt, tn, tt).
    #[arg(long, value_delimiter = ',', default_value = "all")]
    op: Vec<String>,
    /// Only the kernels of gemm-kernels with these names (default: all of them).
    #[arg(long, value_delimiter = ',', conflicts_with = "spec")]
    kernel: Vec<String>,
    /// One spec in `gemm_kernel!` syntax, compiled now, instead of gemm-kernels.
    #[arg(long)]
    spec: Option<KernelSpec>,
    /// Shape sweep: `none`, `tiny` (3 ragged cases: (97, 95, 97), (17, 1, 95),
    /// (1, 97, 17)), `quick` (25 ragged shapes), `small` (each of m, n, k
    /// from {0, 1, 17, 95, 96, 97}), `full` (small, plus 1000 in each
    /// dimension and (1057, 993, 1031)). Default: full on the GPU, quick in
    /// the emulator.
    #[arg(long, value_enum)]
    shapes: Option<Shapes>,
    /// Also time each kernel and cuBLAS at m = n = k = N (GPU only).
    #[arg(long, value_name = "N")]
    perf: Option<i64>,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    /// `cargo xtask sanitize`'s workload (GPU only): no cuBLAS, then split K,
    /// a strided batch and a bespoke kernel per precision, and a last line
    /// `workload: K kernels, C calls, F failed`.
    #[arg(long, hide = true, conflicts_with_all = ["emulate", "perf"])]
    sanitize_workload: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Shapes {
    None,
    Tiny,
    Quick,
    Small,
    Full,
}

/// One call of the sweep: a shape, the leading-dimension slack, and which
/// (alpha, beta) pairs of {0, 1, random}² to run it with.
struct Shape {
    mnk: (i64, i64, i64),
    extra_ld: i64,
    /// Indices into the nine pairs, `3 * alpha + beta`.
    pairs: Vec<usize>,
}

fn sweep(shapes: Shapes) -> Vec<Shape> {
    const SMALL: [i64; 6] = [0, 1, 17, 95, 96, 97];
    let all: Vec<usize> = (0..9).collect();
    let mut out = Vec::new();
    match shapes {
        Shapes::None => {}
        Shapes::Tiny => {
            // Ragged against every tile, several k-steps: (random, random),
            // (random, 0) with C poisoned, (1, 1).
            for (mnk, pair) in [((97, 95, 97), 8), ((17, 1, 95), 6), ((1, 97, 17), 4)] {
                out.push(Shape { mnk, extra_ld: 1, pairs: vec![pair] });
            }
        }
        Shapes::Quick => {
            // Strength-2 orthogonal array over five sizes: every pair of
            // values of every two dimensions appears once.
            let v = [0i64, 1, 17, 95, 97];
            for x in 0..5 {
                for y in 0..5 {
                    let i = 5 * x + y;
                    out.push(Shape {
                        mnk: (v[x], v[y], v[(x + y) % 5]),
                        extra_ld: (i % 3) as i64,
                        pairs: (0..3).map(|t| (3 * i + t) % 9).collect(),
                    });
                }
            }
        }
        Shapes::Small | Shapes::Full => {
            for (i, &m) in SMALL.iter().enumerate() {
                for (j, &n) in SMALL.iter().enumerate() {
                    for (l, &k) in SMALL.iter().enumerate() {
                        out.push(Shape {
                            mnk: (m, n, k),
                            extra_ld: ((i + j + l) % 3) as i64,
                            pairs: all.clone(),
                        });
                    }
                }
            }
            if shapes == Shapes::Full {
                // Random, random; random, 0 (C poisoned); 1, 1.
                let big = vec![8, 6, 4];
                for mnk in
                    [(1000, 17, 95), (17, 1000, 96), (97, 95, 1000), (1000, 1000, 1000), (1057, 993, 1031)]
                {
                    out.push(Shape { mnk, extra_ld: 3, pairs: big.clone() });
                }
            }
        }
    }
    out
}

/// A kernel to verify.
struct Chosen {
    name: String,
    image: KernelImage,
}

fn choose(args: &Args) -> Result<Vec<Chosen>> {
    if let Some(spec) = &args.spec {
        let image = gemm_codegen::compile(spec).map_err(|v| {
            anyhow::anyhow!(
                "--spec is not a legal kernel:\n{}",
                v.iter().map(|v| format!("  {v}")).collect::<Vec<_>>().join("\n")
            )
        })?;
        return Ok(vec![Chosen { name: "spec".into(), image }]);
    }
    check_names(&args.kernel)?;
    let ops = cli::parse_op_list(&args.op)?;
    let chosen: Vec<Chosen> = gemm_kernels::all()
        .filter(|k| args.precision.contains(&k.spec.precision))
        .filter(|k| ops.contains(&(k.spec.op_a, k.spec.op_b)))
        .filter(|k| args.kernel.is_empty() || args.kernel.iter().any(|n| n == k.name))
        .map(|k| Chosen { name: k.name.to_owned(), image: k.image() })
        .collect();
    if chosen.is_empty() {
        bail!("no kernel of gemm-kernels matches the given precisions, ops and names");
    }
    Ok(chosen)
}

/// Every name given to `--kernel` names a kernel of gemm-kernels (a typo
/// among several names would otherwise verify fewer kernels than asked and
/// pass); an unknown one is an error suggesting the names it may have
/// meant. A Table 2 name that a tuned kernel also ends with (`SgemmNN`,
/// `sm_90::SgemmNN`) gets a note saying which one runs.
fn check_names(names: &[String]) -> Result<()> {
    let short = |name: &str| name.rsplit("::").next().unwrap_or(name).to_owned();
    for name in names {
        let others: Vec<&str> =
            gemm_kernels::all().map(|k| k.name).filter(|k| *k != name && short(k) == short(name)).collect();
        if gemm_kernels::all().any(|k| k.name == name) {
            if !others.is_empty() {
                println!(
                    "note: --kernel {name} names that kernel alone, not {} (give the full name for that)",
                    others.join(", ")
                );
            }
            continue;
        }
        let hint =
            if others.is_empty() { String::new() } else { format!(" (did you mean {}?)", others.join(", ")) };
        bail!("--kernel {name}: no kernel of gemm-kernels has this name{hint}");
    }
    Ok(())
}

enum Backend {
    /// The GPU, with cuBLAS on the same inputs unless it is `None`
    /// (`--sanitize-workload`).
    Gpu {
        gemm: Gemm,
        cublas: Option<Cublas>,
    },
    Emulate(Emulator),
}

/// What one kernel's sweep found.
#[derive(Default)]
struct Row {
    name: String,
    precision: Option<Precision>,
    cases: usize,
    failures: Vec<String>,
    worst: f64,
    worst_cublas: Option<f64>,
    worst_diff: Option<f64>,
    seconds: f64,
}

pub fn run(args: Args) -> Result<()> {
    let chosen = choose(&args)?;
    let shapes = sweep(args.shapes.unwrap_or(if args.gpu { Shapes::Full } else { Shapes::Quick }));
    let backend = if args.gpu {
        let gemm = Gemm::open(0).context("cargo xtask verify --gpu runs kernels on a GPU")?;
        let cublas = if args.sanitize_workload { None } else { Some(Cublas::new(gemm.stream().clone())?) };
        let d = gemm.device();
        println!(
            "verify --gpu on {} (sm_{}, {} SMs, driver {}.{})",
            d.name,
            d.compute_capability.sm(),
            d.sm_count,
            d.driver_version / 1000,
            d.driver_version % 1000 / 10
        );
        Backend::Gpu { gemm, cublas }
    } else {
        if args.perf.is_some() {
            bail!("--perf needs --gpu");
        }
        println!("verify --emulate: the PTX emulator, every safety check on");
        Backend::Emulate(Emulator::new())
    };

    let started = Instant::now();
    let mut rng = Random::new(args.seed);
    let mut rows = Vec::new();
    if !shapes.is_empty() {
        for kernel in &chosen {
            let row = match kernel.image.spec.precision {
                Precision::F32 => verify_kernel::<f32>(&backend, kernel, &shapes, &mut rng),
                Precision::F64 => verify_kernel::<f64>(&backend, kernel, &shapes, &mut rng),
                Precision::C32 => verify_kernel::<Complex<f32>>(&backend, kernel, &shapes, &mut rng),
                Precision::C64 => verify_kernel::<Complex<f64>>(&backend, kernel, &shapes, &mut rng),
                Precision::F16 => {
                    verify_kernel::<gemm_codegen::half::f16>(&backend, kernel, &shapes, &mut rng)
                }
                Precision::Bf16 => {
                    verify_kernel::<gemm_codegen::half::bf16>(&backend, kernel, &shapes, &mut rng)
                }
            }?;
            print_row(&row);
            rows.push(row);
        }
        summary(&rows, started.elapsed().as_secs_f64());
    }
    let mut failed: usize = rows.iter().map(|r| r.failures.len()).sum();
    if let (true, Backend::Gpu { gemm, .. }) = (args.sanitize_workload, &backend) {
        let ops = cli::parse_op_list(&args.op)?;
        let op = *ops.first().context("--op names no op pair")?;
        let extra = workload::extras(gemm, &args.precision, op, &mut rng)?;
        let mut names: Vec<&str> = chosen.iter().map(|k| k.name.as_str()).collect();
        names.extend(extra.kernels.iter().map(String::as_str));
        names.sort_unstable();
        names.dedup();
        let cases: usize = rows.iter().map(|r| r.cases).sum();
        failed += extra.failures.len();
        println!("{}", workload::Line { kernels: names.len(), calls: cases + extra.calls, failed });
    }
    if let (Some(n), Backend::Gpu { gemm, cublas: Some(cublas) }) = (args.perf, &backend) {
        perf(gemm, cublas, &chosen, n, &mut rng)?;
    }
    if failed > 0 {
        bail!("{failed} case(s) failed");
    }
    Ok(())
}

fn verify_kernel<T: Element>(
    backend: &Backend,
    kernel: &Chosen,
    shapes: &[Shape],
    rng: &mut Random,
) -> Result<Row> {
    let started = Instant::now();
    let spec = kernel.image.spec;
    let mut row = Row { name: kernel.name.clone(), precision: Some(spec.precision), ..Row::default() };
    let loaded = match backend {
        Backend::Gpu { gemm, .. } => Some(gemm.load(&kernel.image)?),
        Backend::Emulate(_) => None,
    };
    for shape in shapes {
        let (m, n, k) = shape.mnk;
        let values = |rng: &mut Random| [T::ZERO, T::ONE, rng.scalar()];
        let (alphas, betas) = (values(rng), values(rng));
        for &p in &shape.pairs {
            let cfg = GemmConfig::new(spec.op_a, spec.op_b, m, n, k).alpha(alphas[p / 3]).beta(betas[p % 3]);
            let e = shape.extra_ld;
            // A 16-bit kernel takes A and B only with leading dimensions of
            // whole 16 bytes (`GemmError::TmaOperands`): rounded up to them.
            let lead = |ld: i64| gemm_host::operand_ld(spec.precision, ld);
            let cfg = cfg
                .lda(lead(cfg.min_ld(Matrix::A) + e))
                .ldb(lead(cfg.min_ld(Matrix::B) + 2 * e))
                .ldc(cfg.min_ld(Matrix::C) + e);
            let case = Case::random(cfg, rng);
            row.cases += 1;
            let outcome = match backend {
                Backend::Gpu { gemm, cublas } => {
                    let kernel = loaded.as_deref().expect("loaded for the GPU");
                    gpu_case(gemm, cublas.as_ref(), kernel, spec.math, &case, &mut row)
                }
                Backend::Emulate(emulator) => emulate_case(emulator, &kernel.image, &case),
            };
            match outcome {
                Ok(err) => row.worst = row.worst.max(err),
                Err(e) => row.failures.push(e),
            }
        }
    }
    row.seconds = started.elapsed().as_secs_f64();
    Ok(row)
}

fn gpu_case<T: Element>(
    gemm: &Gemm,
    cublas: Option<&Cublas>,
    kernel: &gemm_host::LoadedKernel,
    math: Math,
    case: &Case<T>,
    row: &mut Row,
) -> Result<f64, String> {
    let cfg = *case.cfg();
    let what = || case::describe(&cfg);
    let up = |m: Matrix| gemm.upload(case.guarded(m)).map_err(|e| format!("{}: upload: {e}", what()));
    let (a, b, mut c) = (up(Matrix::A)?, up(Matrix::B)?, up(Matrix::C)?);
    let inner = |len: usize| guard::<T>()..len - guard::<T>();
    let (al, bl, cl) = (a.len(), b.len(), c.len());
    gemm.gemm_loaded(kernel, &cfg, &a.slice(inner(al)), &b.slice(inner(bl)), &mut c.slice_mut(inner(cl)))
        .map_err(|e| format!("{}: {e}", what()))?;
    let down = |s: &gemm_host::cudarc::driver::CudaSlice<T>| {
        gemm.download(s).map_err(|e| format!("{}: download: {e}", what()))
    };
    let ours = down(&c)?;
    let err = case.check(&down(&a)?, &down(&b)?, &ours, math)?;

    // cuBLAS on the same inputs.
    let Some(cublas) = cublas else { return Ok(err) };
    let mut c2 = up(Matrix::C)?;
    cublas
        .gemm(&cfg, &a.slice(inner(al)), &b.slice(inner(bl)), &mut c2.slice_mut(inner(cl)))
        .map_err(|e| format!("{}: cuBLAS: {e}", what()))?;
    let theirs = down(&c2)?;
    let cublas_err = case.error(case::inner(&theirs));
    row.worst_cublas = Some(row.worst_cublas.unwrap_or(0.0).max(cublas_err));
    let diff = reference::relative_error(
        &reference::logical_c(&cfg, case::inner(&ours)),
        &reference::logical_c(&cfg, case::inner(&theirs)),
    );
    row.worst_diff = Some(row.worst_diff.unwrap_or(0.0).max(diff));
    Ok(err)
}

fn emulate_case<T: Element>(emulator: &Emulator, image: &KernelImage, case: &Case<T>) -> Result<f64, String> {
    let mut c = case.guarded(Matrix::C).to_vec();
    let len = c.len();
    emulator
        .gemm_image(
            image,
            case.cfg(),
            case.input(Matrix::A),
            case.input(Matrix::B),
            &mut c[guard::<T>()..len - guard::<T>()],
        )
        .map_err(|e| format!("{}: {e}", case::describe(case.cfg())))?;
    case.check(case.guarded(Matrix::A), case.guarded(Matrix::B), &c, image.spec.math)
}

fn print_row(row: &Row) {
    let opt = |x: Option<f64>| x.map_or("-".to_owned(), |x| format!("{x:.2e}"));
    println!(
        "{:<10} {:>6} cases  {:>4} failed  worst error {:.2e}  cuBLAS {:>8}  gemmforge vs cuBLAS {:>8}  {:>6.1} s",
        row.name,
        row.cases,
        row.failures.len(),
        row.worst,
        opt(row.worst_cublas),
        opt(row.worst_diff),
        row.seconds
    );
    for f in row.failures.iter().take(5) {
        println!("    FAILED {f}");
    }
}

fn summary(rows: &[Row], seconds: f64) {
    let cases: usize = rows.iter().map(|r| r.cases).sum();
    let failed: usize = rows.iter().map(|r| r.failures.len()).sum();
    let worst_of =
        |p: Precision| rows.iter().filter(|r| r.precision == Some(p)).map(|r| r.worst).fold(0.0, f64::max);
    println!(
        "summary: {} kernels, {cases} cases, {failed} failed, in {seconds:.1} s; worst relative error \
         S {:.2e} D {:.2e} C {:.2e} Z {:.2e} H {:.2e} B {:.2e} (each case's bound grows with its k; at k = 1024: \
         {:.1e} / {:.1e})",
        rows.len(),
        worst_of(Precision::F32),
        worst_of(Precision::F64),
        worst_of(Precision::C32),
        worst_of(Precision::C64),
        worst_of(Precision::F16),
        worst_of(Precision::Bf16),
        reference::tolerance(Precision::F32, Math::Fma, 1024),
        reference::tolerance(Precision::F64, Math::Fma, 1024),
    );
}

/// Times every chosen kernel and cuBLAS at `n³`, one precision at a time on
/// shared inputs.
fn perf(gemm: &Gemm, cublas: &Cublas, chosen: &[Chosen], n: i64, rng: &mut Random) -> Result<()> {
    println!(
        "\nperformance at m = n = k = {n}: median of {} timed runs after {} warm-up, CUDA events",
        Plan::DEFAULT.reps,
        Plan::DEFAULT.warmup
    );
    println!("{:<10} {:>12} {:>12} {:>8}", "kernel", "TFLOP/s", "cuBLAS", "ratio");
    for p in Precision::EVERY {
        let kernels: Vec<&Chosen> = chosen.iter().filter(|k| k.image.spec.precision == p).collect();
        if kernels.is_empty() {
            continue;
        }
        match p {
            Precision::F32 => perf_precision::<f32>(gemm, cublas, &kernels, n, rng)?,
            Precision::F64 => perf_precision::<f64>(gemm, cublas, &kernels, n, rng)?,
            Precision::C32 => perf_precision::<Complex<f32>>(gemm, cublas, &kernels, n, rng)?,
            Precision::C64 => perf_precision::<Complex<f64>>(gemm, cublas, &kernels, n, rng)?,
            Precision::F16 => perf_precision::<gemm_codegen::half::f16>(gemm, cublas, &kernels, n, rng)?,
            Precision::Bf16 => perf_precision::<gemm_codegen::half::bf16>(gemm, cublas, &kernels, n, rng)?,
        }
    }
    Ok(())
}

fn perf_precision<T: Element>(
    gemm: &Gemm,
    cublas: &Cublas,
    kernels: &[&Chosen],
    n: i64,
    rng: &mut Random,
) -> Result<()> {
    let square = |op_a: Op, op_b: Op| GemmConfig::<T>::new(op_a, op_b, n, n, n).alpha(T::ONE).beta(T::ZERO);
    let mut bench = Bench::new(gemm, square(Op::N, Op::N), rng)?;
    for kernel in kernels {
        let spec = kernel.image.spec;
        bench.set_cfg(square(spec.op_a, spec.op_b));
        let loaded = gemm.load(&kernel.image)?;
        let flops = measure::flops(bench.cfg());
        let ours = bench.time(gemm, Plan::DEFAULT, |cfg, a, b, c| gemm.gemm_loaded(&loaded, cfg, a, b, c))?;
        let theirs = bench.time(gemm, Plan::DEFAULT, |cfg, a, b, c| cublas.gemm(cfg, a, b, c))?;
        println!(
            "{:<10} {:>12.2} {:>12.2} {:>8.2}",
            kernel.name,
            ours.tflops(flops),
            theirs.tflops(flops),
            ours.tflops(flops) / theirs.tflops(flops)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An unknown name is an error with the names it may have meant; known
    /// names pass, Table 2's and tuned ones alike.
    #[test]
    fn every_kernel_name_must_name_a_kernel() {
        let names = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        check_names(&names(&["SgemmNN", "DgemmTT"])).unwrap();
        let tuned = gemm_kernels::all().find(|k| k.name.contains("::")).map(|k| k.name.to_owned());
        if let Some(tuned) = &tuned {
            check_names(std::slice::from_ref(tuned)).unwrap();
            let bare = tuned.rsplit("::").next().unwrap();
            let e = check_names(&names(&["SgemmNN", &format!("sm_00::{bare}")])).unwrap_err().to_string();
            assert!(
                e.contains("no kernel of gemm-kernels has this name") && e.contains(tuned.as_str()),
                "{e}"
            );
        }
        let e = check_names(&names(&["SgemmNX"])).unwrap_err().to_string();
        assert_eq!(e, "--kernel SgemmNX: no kernel of gemm-kernels has this name");
    }
}
