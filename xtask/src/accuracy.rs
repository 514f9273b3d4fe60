//! `cargo xtask accuracy`: how far kernels land from the `f64` reference,
//! beside cuBLAS on the same inputs, per input distribution and size.
//!
//! For each precision among the kernels, each size `n` (`m = n = k`, `C =
//! A·B`, `beta = 0` with C poisoned by NaN before every run) and each
//! distribution, A and B are drawn once (`n × n`, seeded) and every kernel
//! of that precision runs on them, then cuBLAS on the same buffers in its
//! default math and, for S and C, in its TF32 mode
//! ([`CublasMath`]). A whole `f64` reference at `n = 16384` would take
//! hours on the CPU, so it is computed on `--columns` columns of C spread
//! evenly over `0 … n − 1` (the last included, where a ragged tile ends):
//! each sampled column is exact, and every result is compared on the same
//! columns.
//!
//! Two errors per result, both [`gemm_host::reference`]'s: the componentwise
//! `max |C − R| / (|A|·|B|)` (what `verify` and the tests bound, the
//! bound per precision, math and k) and the normwise `‖C − R‖_F / ‖R‖_F`.
//! `ratio` is ours over cuBLAS's default math, componentwise.
//!
//! Distributions ([`Dist`]): `uniform` in `[-1, 1)`; `normal`; `wide`,
//! magnitudes `2^±16`; `tiny`, A uniform times `2^-118` and B uniform: the
//! products are normal f32 numbers but the TF32 split's small part of A
//! lies below f32's smallest normal, where tensor cores may flush it.
//!
//! Output: a table, and `<OUT>/accuracy.csv`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use gemm_codegen::{Element, KernelImage, KernelSpec, Op, Precision};
use gemm_host::cublas::{Cublas, CublasMath};
use gemm_host::num_complex::Complex;
use gemm_host::reference::{self, Dist, Random};
use gemm_host::{Gemm, GemmConfig, LoadedKernel};
use rayon::prelude::*;

use crate::bench::csv_field;

#[derive(clap::Args)]
pub struct Args {
    /// A kernel spec in `gemm_kernel!` syntax, compiled now (repeat the flag for several).
    #[arg(long)]
    spec: Vec<KernelSpec>,
    /// Also the kernel gemm-host uses on this GPU for each precision and op
    /// pair of the specs (the shipped one, for comparison).
    #[arg(long)]
    shipped: bool,
    /// Sizes n of the square problems m = n = k.
    #[arg(long, value_delimiter = ',', default_values_t = [1024, 4096, 16384])]
    sizes: Vec<i64>,
    /// Input distributions.
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["uniform", "normal", "wide", "tiny"])]
    dist: Vec<DistArg>,
    /// Columns of C the f64 reference is computed on, spread evenly.
    #[arg(long, default_value_t = 64)]
    columns: usize,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    /// Output folder (accuracy.csv).
    #[arg(long, default_value = "target/accuracy")]
    out: PathBuf,
}

/// `--dist` values, A's distribution (B's too, except for `tiny`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum DistArg {
    Uniform,
    Normal,
    Wide,
    Tiny,
}

impl DistArg {
    fn name(self) -> &'static str {
        match self {
            DistArg::Uniform => "uniform",
            DistArg::Normal => "normal",
            DistArg::Wide => "wide",
            DistArg::Tiny => "tiny",
        }
    }

    /// The distributions of A and of B.
    fn of(self) -> (Dist, Dist) {
        match self {
            DistArg::Uniform => (Dist::Uniform, Dist::Uniform),
            DistArg::Normal => (Dist::Normal, Dist::Normal),
            DistArg::Wide => (Dist::Wide, Dist::Wide),
            DistArg::Tiny => (Dist::Tiny, Dist::Uniform),
        }
    }
}

/// A kernel to measure.
struct Subject {
    name: String,
    image: KernelImage,
}

/// The errors of one result on the sampled columns.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Errors {
    componentwise: f64,
    normwise: f64,
}

/// One kernel on one size and distribution, with cuBLAS on the same inputs.
struct Row {
    name: String,
    spec: KernelSpec,
    dist: DistArg,
    n: i64,
    ours: Result<Errors, String>,
    cublas: Option<Errors>,
    cublas_tf32: Option<Errors>,
}

impl Row {
    fn ratio(&self) -> Option<f64> {
        Some(self.ours.as_ref().ok()?.componentwise / self.cublas?.componentwise)
    }

    /// `ok`, `over` (past the tolerance of the precision and math) or `failed`.
    fn status(&self) -> &'static str {
        match &self.ours {
            Err(_) => "failed",
            Ok(e) => {
                let tol = reference::tolerance(self.spec.precision, self.spec.math, self.n as u64);
                if e.componentwise <= tol { "ok" } else { "over" }
            }
        }
    }
}

pub fn run(args: Args) -> Result<()> {
    if args.columns == 0 {
        bail!("--columns must be at least 1");
    }
    if let Some(n) = args.sizes.iter().find(|&&n| n < 1) {
        bail!("--sizes: {n} is not a positive size");
    }
    let gemm = Gemm::open(0).context("cargo xtask accuracy runs kernels on a GPU")?;
    let subjects = choose(&args, gemm.device().arch())?;
    let cublas = Cublas::new(gemm.stream().clone())?;
    let mut cublas_tf32 = Cublas::new(gemm.stream().clone())?;
    cublas_tf32.set_math(CublasMath::Tf32)?;
    let d = gemm.device();
    println!(
        "accuracy on {} (sm_{}, {} SMs): {} kernel(s), sizes {:?}, f64 reference on {} column(s) of C",
        d.name,
        d.arch(),
        d.sm_count,
        subjects.len(),
        args.sizes,
        args.columns
    );
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    let started = Instant::now();
    let path = args.out.join("accuracy.csv");
    let mut run = Run {
        args: &args,
        gemm: &gemm,
        cublas: &cublas,
        cublas_tf32: &cublas_tf32,
        rows: Vec::new(),
        csv: (path.clone(), d.name.clone(), d.arch()),
    };
    for p in Precision::EVERY {
        let mine: Vec<&Subject> = subjects.iter().filter(|s| s.image.spec.precision == p).collect();
        if mine.is_empty() {
            continue;
        }
        match p {
            Precision::F32 => run.precision::<f32>(&mine)?,
            Precision::F64 => run.precision::<f64>(&mine)?,
            Precision::C32 => run.precision::<Complex<f32>>(&mine)?,
            Precision::C64 => run.precision::<Complex<f64>>(&mine)?,
            Precision::F16 => run.precision::<gemm_codegen::half::f16>(&mine)?,
            Precision::Bf16 => run.precision::<gemm_codegen::half::bf16>(&mine)?,
        }
    }
    let rows = run.rows;
    print!("\n{}", table(&rows));
    let over = rows.iter().filter(|r| r.status() != "ok").count();
    println!(
        "\n{} result(s), {over} over their tolerance or failed, in {:.1} min; wrote {}",
        rows.len(),
        started.elapsed().as_secs_f64() / 60.0,
        path.display()
    );
    Ok(())
}

fn choose(args: &Args, arch: u32) -> Result<Vec<Subject>> {
    let mut out = Vec::new();
    for spec in &args.spec {
        let image = gemm_codegen::compile(spec).map_err(|v| {
            anyhow::anyhow!(
                "--spec is not a legal kernel:\n{}",
                v.iter().map(|v| format!("  {v}")).collect::<Vec<_>>().join("\n")
            )
        })?;
        out.push(Subject { name: format!("spec{}", out.len() + 1), image });
    }
    if out.is_empty() {
        bail!("name the kernels to measure with --spec");
    }
    if args.shipped {
        let mut types: Vec<(Precision, Op, Op)> = Vec::new();
        for s in &out {
            let t = (s.image.spec.precision, s.image.spec.op_a, s.image.spec.op_b);
            if !types.contains(&t) {
                types.push(t);
            }
        }
        for (precision, op_a, op_b) in types {
            let k = gemm_kernels::Dispatch::TUNED.default_kernel(arch, precision, op_a, op_b);
            out.push(Subject { name: k.name.to_owned(), image: k.image() });
        }
    }
    Ok(out)
}

/// `count` columns of `0 … n − 1`, evenly spread, the first and last included.
fn sample_columns(n: usize, count: usize) -> Vec<usize> {
    if count >= n {
        return (0..n).collect();
    }
    if count == 1 {
        return vec![n - 1];
    }
    let mut cols: Vec<usize> = (0..count).map(|s| s * (n - 1) / (count - 1)).collect();
    cols.dedup();
    cols
}

/// A `len`-element matrix drawn from `dist`, in parallel chunks, each with
/// its own generator seeded from `seed` and the chunk's index: the same
/// seed gives the same matrix on any machine.
fn draw<T: Element>(dist: Dist, len: usize, seed: u64) -> Vec<T> {
    const CHUNK: usize = 1 << 20;
    let mut out = vec![T::ZERO; len];
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(i, chunk)| {
        let mut rng = Random::new(seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        for x in chunk {
            *x = rng.element_of(dist);
        }
    });
    out
}

struct Run<'a> {
    args: &'a Args,
    gemm: &'a Gemm,
    cublas: &'a Cublas,
    cublas_tf32: &'a Cublas,
    rows: Vec<Row>,
    /// Where the CSV goes, the device's name and arch: rewritten after every
    /// size and distribution, so an interrupted run keeps what it measured.
    csv: (PathBuf, String, u32),
}

impl Run<'_> {
    fn precision<T: Element>(&mut self, subjects: &[&Subject]) -> Result<()> {
        let loaded: Vec<(&Subject, Result<std::sync::Arc<LoadedKernel>, String>)> = subjects
            .iter()
            .map(|s| (*s, self.gemm.load(&s.image).map_err(|e| format!("loading: {e}"))))
            .collect();
        let mut ops: Vec<(Op, Op)> = Vec::new();
        for s in subjects {
            let pair = (s.image.spec.op_a, s.image.spec.op_b);
            if !ops.contains(&pair) {
                ops.push(pair);
            }
        }
        let tf32_too = matches!(T::PRECISION, Precision::F32 | Precision::C32);
        for &n in &self.args.sizes {
            let len = (n * n) as usize;
            let cols = sample_columns(n as usize, self.args.columns);
            for (di, &dist) in self.args.dist.iter().enumerate() {
                let (da, db) = dist.of();
                let seed = self.args.seed ^ ((n as u64) << 20) ^ ((di as u64) << 8);
                let (a, b): (Vec<T>, Vec<T>) = (draw(da, len, seed), draw(db, len, !seed));
                let (dev_a, dev_b) = (self.gemm.upload(&a)?, self.gemm.upload(&b)?);
                let poison = vec![reference::sentinel::<T>(); len];
                let mut dev_c = self.gemm.upload(&poison)?;
                for &(op_a, op_b) in &ops {
                    let cfg = GemmConfig::<T>::new(op_a, op_b, n, n, n);
                    let expected = reference::gemm_columns(&cfg, &a, &b, &poison, &cols)?;
                    let bound = reference::gemm_bound_columns(&cfg, &a, &b, &poison, &cols)?;
                    let errors = |c: &[T]| -> Errors {
                        let got = reference::logical_c_columns(&cfg, c, &cols);
                        Errors {
                            componentwise: reference::componentwise_error(&got, &expected, &bound),
                            normwise: reference::relative_error(&got, &expected),
                        }
                    };
                    let mut run_cublas = |cublas: &Cublas| -> Result<Errors> {
                        self.gemm.upload_into(&poison, &mut dev_c)?;
                        cublas.gemm(&cfg, &dev_a, &dev_b, &mut dev_c)?;
                        Ok(errors(&self.gemm.download(&dev_c)?))
                    };
                    let theirs = run_cublas(self.cublas).context("cuBLAS")?;
                    let theirs_tf32 = if tf32_too {
                        Some(run_cublas(self.cublas_tf32).context("cuBLAS TF32")?)
                    } else {
                        None
                    };
                    for (subject, kernel) in &loaded {
                        let spec = subject.image.spec;
                        if (spec.op_a, spec.op_b) != (op_a, op_b) {
                            continue;
                        }
                        let ours = match kernel {
                            Err(e) => Err(e.clone()),
                            Ok(k) => (|| -> Result<Errors, gemm_host::GemmError> {
                                self.gemm.upload_into(&poison, &mut dev_c)?;
                                self.gemm.gemm_loaded(k, &cfg, &dev_a, &dev_b, &mut dev_c)?;
                                Ok(errors(&self.gemm.download(&dev_c)?))
                            })()
                            .map_err(|e| e.to_string()),
                        };
                        let row = Row {
                            name: subject.name.clone(),
                            spec,
                            dist,
                            n,
                            ours,
                            cublas: Some(theirs),
                            cublas_tf32: theirs_tf32,
                        };
                        println!("{}", line(&row));
                        self.rows.push(row);
                    }
                }
                let (path, device, arch) = &self.csv;
                std::fs::write(path, csv(&self.rows, device, *arch))?;
            }
        }
        Ok(())
    }
}

const COLUMNS: [&str; 18] = [
    "device",
    "arch",
    "kernel",
    "precision",
    "op",
    "math",
    "dist",
    "m",
    "n",
    "k",
    "ours_cw",
    "cublas_cw",
    "cublas_tf32_cw",
    "ours_nw",
    "cublas_nw",
    "cublas_tf32_nw",
    "ratio",
    "status",
];

fn ops_text(spec: &KernelSpec) -> String {
    format!("{}{}", spec.op_a.letter(), spec.op_b.letter()).to_ascii_lowercase()
}

fn csv(rows: &[Row], device: &str, arch: u32) -> String {
    let mut out = COLUMNS.join(",");
    out.push_str(",note,spec\n");
    let e = |x: Option<f64>| x.map_or(String::new(), |x| format!("{x:.3e}"));
    for r in rows {
        let ours = r.ours.as_ref().ok();
        let fields = [
            device.to_owned(),
            arch.to_string(),
            r.name.clone(),
            r.spec.precision.token().to_owned(),
            ops_text(&r.spec),
            r.spec.math.token().to_owned(),
            r.dist.name().to_owned(),
            r.n.to_string(),
            r.n.to_string(),
            r.n.to_string(),
            e(ours.map(|o| o.componentwise)),
            e(r.cublas.map(|c| c.componentwise)),
            e(r.cublas_tf32.map(|c| c.componentwise)),
            e(ours.map(|o| o.normwise)),
            e(r.cublas.map(|c| c.normwise)),
            e(r.cublas_tf32.map(|c| c.normwise)),
            r.ratio().map_or(String::new(), |x| format!("{x:.3}")),
            r.status().to_owned(),
            r.ours.as_ref().err().cloned().unwrap_or_default(),
            r.spec.to_invocation_body(),
        ];
        let quoted: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        let _ = writeln!(out, "{}", quoted.join(","));
    }
    out
}

fn line(r: &Row) -> String {
    let e = |x: Option<f64>| x.map_or("-".to_owned(), |x| format!("{x:.2e}"));
    let ours = r.ours.as_ref().ok();
    format!(
        "{:<16} {:<4} {:<2} {:<7} {:<7} {:>6} {:>9} {:>9} {:>9} {:>7} {:>9} {:>9} {}{}",
        r.name,
        r.spec.precision.token(),
        ops_text(&r.spec),
        r.spec.math.token(),
        r.dist.name(),
        r.n,
        e(ours.map(|o| o.componentwise)),
        e(r.cublas.map(|c| c.componentwise)),
        e(r.cublas_tf32.map(|c| c.componentwise)),
        r.ratio().map_or("-".to_owned(), |x| format!("{x:.2}")),
        e(ours.map(|o| o.normwise)),
        e(r.cublas.map(|c| c.normwise)),
        r.status(),
        r.ours.as_ref().err().map_or(String::new(), |e| format!(": {e}"))
    )
}

/// Every row: componentwise errors (ours, cuBLAS default, cuBLAS TF32),
/// their ratio, normwise errors (ours, cuBLAS default).
fn table(rows: &[Row]) -> String {
    let mut out = format!(
        "{:<16} {:<4} {:<2} {:<7} {:<7} {:>6} {:>9} {:>9} {:>9} {:>7} {:>9} {:>9} status\n",
        "kernel",
        "prec",
        "op",
        "math",
        "dist",
        "n",
        "ours",
        "cuBLAS",
        "cuBLAS-tf",
        "ratio",
        "ours-nw",
        "cuBLAS-nw"
    );
    for r in rows {
        let _ = writeln!(out, "{}", line(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampled_columns_span_the_matrix() {
        assert_eq!(sample_columns(10, 4), [0, 3, 6, 9]);
        assert_eq!(sample_columns(5, 9), [0, 1, 2, 3, 4]);
        assert_eq!(sample_columns(7, 1), [6]);
        let cols = sample_columns(16384, 64);
        assert_eq!((cols.len(), cols[0], cols[63]), (64, 0, 16383));
        assert!(cols.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn draws_repeat_with_the_seed_and_not_across_seeds() {
        let a: Vec<f32> = draw(Dist::Normal, 3 << 20, 9);
        assert_eq!(a, draw::<f32>(Dist::Normal, 3 << 20, 9));
        let b: Vec<f32> = draw(Dist::Normal, 3 << 20, 10);
        assert_ne!(a, b);
        // Chunks differ from one another (each its own generator).
        assert_ne!(a[..16], a[1 << 20..(1 << 20) + 16]);
    }

    #[test]
    fn tiny_leaves_b_uniform() {
        assert_eq!(DistArg::Tiny.of(), (Dist::Tiny, Dist::Uniform));
        assert_eq!(DistArg::Wide.of(), (Dist::Wide, Dist::Wide));
    }

    #[test]
    fn a_row_past_its_tolerance_is_over() {
        let spec: KernelSpec = "precision = f32, op = (N, N), tile = (64, 64, 16), threads = (16, 16), \
                                load_a = (64, 4), load_b = (16, 16)"
            .parse()
            .unwrap();
        let row = |cw: f64| Row {
            name: "k".into(),
            spec,
            dist: DistArg::Uniform,
            n: 64,
            ours: Ok(Errors { componentwise: cw, normwise: cw }),
            cublas: Some(Errors { componentwise: 2e-7, normwise: 1e-7 }),
            cublas_tf32: None,
        };
        assert_eq!(row(4e-7).status(), "ok");
        assert_eq!(row(4e-7).ratio(), Some(2.0));
        assert_eq!(row(2e-5).status(), "over");
        assert_eq!(row(f64::NAN).status(), "over");
        let failed = Row { ours: Err("launch".into()), ..row(0.0) };
        assert_eq!(failed.status(), "failed");
        assert!(csv(&[failed], "dev", 90).lines().nth(1).unwrap().contains("failed,launch"));
    }
}
