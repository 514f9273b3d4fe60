//! `cargo xtask bench`: chosen kernels against cuBLAS in one run, over the
//! two sweeps of Kurzak, Tomov and Dongarra:
//!
//! - **square** (their Figure 6): `m = n = k`, multiples of the kernel's
//!   tile (the lcm of `M_blk` and `N_blk`, so no border tile is partly
//!   filled), about a dozen sizes spread geometrically up to `--max-size`;
//!   `C = A·B` (`alpha = 1`, `beta = 0`), as the tuner times;
//! - **skinny** (their Section 8, the trailing update of a right-looking LU
//!   factorization): `K` = 32 and 64 with large `M = N`, as the
//!   factorization calls it: `C = C − A·B` (`alpha = −1`, `beta = 1`). `M`
//!   and `N` are not rounded to the tile; the factorization does not choose
//!   them.
//!
//! By default the kernels are the ones gemm-host runs on this GPU
//! ([`gemm_kernels::default_kernel`]: tuned for the device family if there
//! is one, else Table 2), one per precision and op pair; `--table2` and
//! `--both` bench the Table 2 kernels instead or beside them, `--spec` one
//! spec compiled now. Before any timing each kernel solves a small ragged
//! problem and must agree with cuBLAS; one that does not is reported and
//! skipped.
//!
//! Every timing goes through [`measure::Bench`] (random inputs rotated past
//! the L2, warm-up, CUDA events per run, median), cuBLAS under the same
//! harness on the same buffers right after the kernel. A shape whose buffers
//! would take more than 60% of the GPU's memory is skipped and recorded.
//!
//! Output, under `--out` (default `target/bench`): `bench.csv` (one row per
//! kernel and shape, rewritten after every shape so an interrupted run keeps
//! what it measured), `bench-square.svg` and `bench-skinny.svg` (TFLOP/s per
//! precision; a solid line per kernel, a dashed one per cuBLAS op pair);
//! then a table of every measurement and, last, a summary per kernel.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use gemm_codegen::{Element, KernelImage, KernelSpec, Op, Precision};
use gemm_host::cublas::Cublas;
use gemm_host::num_complex::Complex;
use gemm_host::reference::{self, Random};
use gemm_host::{Gemm, GemmConfig, LoadedKernel, Matrix};
use indicatif::{ProgressBar, ProgressStyle};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use crate::cli;
use crate::measure::{self, Bench, CHECK_SHAPE, CublasCheck, Plan, Timing};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Precisions: s, d, c, z.
    #[arg(long, value_delimiter = ',', default_value = "s,d,c,z", value_parser = cli::parse_precision)]
    precision: Vec<Precision>,
    /// Op pairs: nn, nt, …, cc; `all` (nine); `transposes` (nn, nt, tn, tt).
    #[arg(long, value_delimiter = ',', default_value = "transposes")]
    op: Vec<String>,
    /// Bench the Table 2 kernels instead of the ones gemm-host uses on this GPU.
    #[arg(long, conflicts_with = "both")]
    table2: bool,
    /// Bench the kernels gemm-host uses on this GPU and the Table 2 ones, side
    /// by side (once when they are the same kernel).
    #[arg(long)]
    both: bool,
    /// One spec in `gemm_kernel!` syntax, compiled now (its precision and ops
    /// replace --precision and --op).
    #[arg(long, conflicts_with_all = ["table2", "both"])]
    spec: Option<KernelSpec>,
    /// Sweeps to run.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "square,skinny")]
    sweep: Vec<Sweep>,
    /// Largest square size, rounded down to a multiple of each kernel's tile
    /// [default: 8192; 4096 with --quick].
    #[arg(long, value_name = "N")]
    max_size: Option<i64>,
    /// Smallest square size, rounded to a multiple of each kernel's tile.
    #[arg(long, value_name = "N", default_value_t = 256)]
    min_size: i64,
    /// Square sizes per kernel, spread geometrically from --min-size to
    /// --max-size [default: 12; 4 with --quick].
    #[arg(long, value_name = "COUNT")]
    sizes: Option<usize>,
    /// K of the skinny sweep.
    #[arg(long, value_delimiter = ',', value_name = "K", default_value = "32,64")]
    skinny_k: Vec<i64>,
    /// M = N of the skinny sweep [default: 4096,8192,16384; 8192 with --quick].
    #[arg(long, value_delimiter = ',', value_name = "MN")]
    skinny_mn: Option<Vec<i64>>,
    /// A short run: 4 square sizes up to 4096, skinny at M = N = 8192, 1
    /// warm-up and 3 timed runs (each flag given explicitly still wins).
    #[arg(long)]
    quick: bool,
    /// Untimed runs before each measurement [default: 2; 1 with --quick].
    #[arg(long)]
    warmup: Option<usize>,
    /// Timed runs per measurement, the median reported [default: 7; 3 with --quick].
    #[arg(long)]
    reps: Option<usize>,
    /// Folder for bench.csv, bench-square.svg and bench-skinny.svg.
    #[arg(long, default_value = "target/bench")]
    out: PathBuf,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
}

/// Which part of the run a row comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
enum Sweep {
    /// The check against cuBLAS before any timing (a row only when it fails).
    #[value(skip)]
    Check,
    /// m = n = k, multiples of the tile (Figure 6).
    Square,
    /// K = 32, 64 with large M = N (Section 8).
    Skinny,
}

impl Sweep {
    fn name(self) -> &'static str {
        match self {
            Sweep::Check => "check",
            Sweep::Square => "square",
            Sweep::Skinny => "skinny",
        }
    }
}

/// Where a benched kernel comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    /// `gemm-kernels/src/tuned/`, for this GPU's family.
    Tuned,
    /// Table 2 of the paper.
    Table2,
    /// `--spec`.
    Spec,
}

impl Source {
    fn name(self) -> &'static str {
        match self {
            Source::Tuned => "tuned",
            Source::Table2 => "table2",
            Source::Spec => "spec",
        }
    }
}

/// Which kernels to bench.
#[derive(Clone, Debug, PartialEq)]
enum Choice {
    /// What gemm-host runs on this GPU.
    Default,
    Table2,
    Both,
    Spec(KernelSpec),
}

/// The run, resolved from [`Args`] (defaults, `--quick`) and checked.
#[derive(Clone, Debug)]
struct Setup {
    precisions: Vec<Precision>,
    ops: Vec<(Op, Op)>,
    choice: Choice,
    square: bool,
    skinny: bool,
    min_size: i64,
    max_size: i64,
    sizes: usize,
    skinny_k: Vec<i64>,
    skinny_mn: Vec<i64>,
    plan: Plan,
    out: PathBuf,
    seed: u64,
}

fn setup(args: &Args) -> Result<Setup> {
    let quick = args.quick;
    let positive = |what: &str, values: &[i64]| -> Result<()> {
        if let Some(v) = values.iter().find(|&&v| v <= 0) {
            bail!("{what} must be positive, got {v}");
        }
        Ok(())
    };
    let max_size = args.max_size.unwrap_or(if quick { 4096 } else { 8192 });
    positive("--max-size", &[max_size])?;
    positive("--min-size", &[args.min_size])?;
    if args.min_size > max_size {
        bail!("--min-size ({}) must not exceed --max-size ({max_size})", args.min_size);
    }
    let sizes = args.sizes.unwrap_or(if quick { 4 } else { 12 });
    if sizes == 0 {
        bail!("--sizes must be at least 1");
    }
    let skinny_mn =
        args.skinny_mn.clone().unwrap_or_else(|| if quick { vec![8192] } else { vec![4096, 8192, 16384] });
    positive("--skinny-mn", &skinny_mn)?;
    positive("--skinny-k", &args.skinny_k)?;
    let sorted = |mut v: Vec<i64>| {
        v.sort_unstable();
        v.dedup();
        v
    };
    let default_plan = if quick { Plan { warmup: 1, reps: 3 } } else { Plan::DEFAULT };
    let plan = Plan {
        warmup: args.warmup.unwrap_or(default_plan.warmup),
        reps: args.reps.unwrap_or(default_plan.reps),
    };
    if plan.reps == 0 {
        bail!("--reps must be at least 1");
    }
    let choice = match (&args.spec, args.table2, args.both) {
        (Some(spec), _, _) => Choice::Spec(*spec),
        (None, true, _) => Choice::Table2,
        (None, false, true) => Choice::Both,
        (None, false, false) => Choice::Default,
    };
    let (precisions, ops) = match &choice {
        Choice::Spec(spec) => (vec![spec.precision], vec![(spec.op_a, spec.op_b)]),
        _ => (args.precision.clone(), cli::parse_op_list(&args.op)?),
    };
    if precisions.is_empty() || ops.is_empty() {
        bail!("no precision or no op pair to bench");
    }
    let (square, skinny) = (args.sweep.contains(&Sweep::Square), args.sweep.contains(&Sweep::Skinny));
    if !square && !skinny {
        bail!("--sweep: name at least one of square, skinny");
    }
    Ok(Setup {
        precisions,
        ops,
        choice,
        square,
        skinny,
        min_size: args.min_size,
        max_size,
        sizes,
        skinny_k: sorted(args.skinny_k.clone()),
        skinny_mn: sorted(skinny_mn),
        plan,
        out: args.out.clone(),
        seed: args.seed,
    })
}

/// A kernel to bench.
#[derive(Clone, Debug)]
struct Subject {
    /// `SgemmNN`, or `spec`.
    name: String,
    source: Source,
    image: KernelImage,
}

impl Subject {
    fn label(&self) -> String {
        label(&self.name, self.source)
    }
}

/// `SgemmNN/tuned`, `SgemmNN/table2`, `spec`.
fn label(name: &str, source: Source) -> String {
    if source == Source::Spec { name.to_owned() } else { format!("{name}/{}", source.name()) }
}

/// The kernels of `setup` on a GPU of compute capability `arch`, in
/// precision then op order (tuned before Table 2 with `--both`).
fn choose(setup: &Setup, arch: u32) -> Result<Vec<Subject>> {
    if let Choice::Spec(spec) = &setup.choice {
        let image = gemm_codegen::compile(spec).map_err(|v| {
            anyhow!(
                "--spec is not a legal kernel:\n{}",
                v.iter().map(|v| format!("  {v}")).collect::<Vec<_>>().join("\n")
            )
        })?;
        return Ok(vec![Subject { name: "spec".into(), source: Source::Spec, image }]);
    }
    let entry =
        |k: &gemm_kernels::KernelEntry, source| Subject { name: k.name.to_owned(), source, image: k.image() };
    let mut out = Vec::new();
    for &p in &setup.precisions {
        for &(op_a, op_b) in &setup.ops {
            let table2 = gemm_kernels::table2(p, op_a, op_b);
            let default = gemm_kernels::default_kernel(arch, p, op_a, op_b);
            let tuned = (!std::ptr::eq(default, table2)).then_some(default);
            match (&setup.choice, tuned) {
                (Choice::Default | Choice::Both, Some(tuned)) => {
                    out.push(entry(tuned, Source::Tuned));
                    if setup.choice == Choice::Both {
                        out.push(entry(table2, Source::Table2));
                    }
                }
                _ => out.push(entry(table2, Source::Table2)),
            }
        }
    }
    Ok(out)
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The square sizes that fill every tile of `spec`: multiples of the lcm of
/// `M_blk` and `N_blk`.
fn tile(spec: &KernelSpec) -> i64 {
    let (m, n) = (i64::from(spec.m_blk), i64::from(spec.n_blk));
    m / gcd(m, n) * n
}

/// Up to `count` multiples of `tile` spread geometrically from `min` to
/// `max` (each rounded to the nearest multiple, at least one tile, the
/// largest `max` rounded down), ascending, without repeats.
fn square_sizes(tile: i64, min: i64, max: i64, count: usize) -> Vec<i64> {
    let top = (max / tile).max(1);
    let bottom = ((min as f64 / tile as f64).round() as i64).clamp(1, top);
    if count <= 1 {
        return vec![top * tile];
    }
    let ratio = top as f64 / bottom as f64;
    let mut out: Vec<i64> = (0..count)
        .map(|i| {
            let j = bottom as f64 * ratio.powf(i as f64 / (count - 1) as f64);
            (j.round() as i64).clamp(bottom, top) * tile
        })
        .collect();
    out.dedup();
    out
}

/// Device bytes [`Bench::new`] allocates for a problem with these buffer
/// lengths: as many sets of A and B as it takes to cover twice the L2 (1 to
/// 8), and one C.
fn footprint(a_len: u64, b_len: u64, c_len: u64, element_bytes: u64, l2_bytes: u64) -> u64 {
    let ab = (a_len + b_len) * element_bytes;
    ab * measure::input_sets(ab, l2_bytes) + c_len * element_bytes
}

/// The share of the GPU's memory a shape may use.
const MEMORY_SHARE: f64 = 0.6;

/// What happened to one kernel on one shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Ok,
    /// Not run (memory, a failed check).
    Skipped,
    /// Run and failed.
    Failed,
}

impl Status {
    fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Skipped => "skipped",
            Status::Failed => "failed",
        }
    }
}

/// One kernel on one shape, with cuBLAS on the same shape and buffers.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    sweep: Sweep,
    name: String,
    source: Source,
    spec: KernelSpec,
    /// `(m, n, k)`.
    shape: (i64, i64, i64),
    /// Floating-point operations of one GEMM ([`measure::flops`]).
    flops: f64,
    ours: Option<Timing>,
    cublas: Option<Timing>,
    status: Status,
    note: String,
}

impl Row {
    /// `subject` on `shape`, not measured yet.
    fn new(sweep: Sweep, subject: &Subject, shape: (i64, i64, i64), flops: f64) -> Row {
        Row {
            sweep,
            name: subject.name.clone(),
            source: subject.source,
            spec: subject.image.spec,
            shape,
            flops,
            ours: None,
            cublas: None,
            status: Status::Ok,
            note: String::new(),
        }
    }

    fn label(&self) -> String {
        label(&self.name, self.source)
    }

    fn ours_tflops(&self) -> Option<f64> {
        self.ours.map(|t| t.tflops(self.flops))
    }

    fn cublas_tflops(&self) -> Option<f64> {
        self.cublas.map(|t| t.tflops(self.flops))
    }

    fn ratio(&self) -> Option<f64> {
        Some(self.ours_tflops()? / self.cublas_tflops()?)
    }

    /// `4416³` or `16384×16384×32`.
    fn shape_text(&self) -> String {
        let (m, n, k) = self.shape;
        if m == n && n == k { format!("{m}³") } else { format!("{m}×{n}×{k}") }
    }

    /// Display order: precision, ops, source, sweep, k, then size.
    fn order(&self) -> (Precision, Op, Op, Source, Sweep, i64, i64) {
        (
            self.spec.precision,
            self.spec.op_a,
            self.spec.op_b,
            self.source,
            self.sweep,
            self.shape.2,
            self.shape.0,
        )
    }
}

pub fn run(args: Args) -> Result<()> {
    let setup = setup(&args)?;
    let gemm = Gemm::open(0).context("cargo xtask bench times kernels on a GPU")?;
    let cublas = Cublas::new(gemm.stream().clone())?;
    let device = gemm.device();
    let subjects = choose(&setup, device.arch())?;
    let (major, minor) = device.driver_version_pair();
    let what = match setup.choice {
        Choice::Default => "the kernels gemm-host uses here",
        Choice::Table2 => "the Table 2 kernels",
        Choice::Both => "the kernels gemm-host uses here and the Table 2 ones",
        Choice::Spec(_) => "--spec",
    };
    let tuned = subjects.iter().filter(|s| s.source == Source::Tuned).count();
    println!(
        "bench on {} (sm_{}, {} SMs, {:.0} GiB, driver {major}.{minor}): {} kernel(s), {what} ({tuned} tuned); \
         median of {} runs after {} warm-up, CUDA events",
        device.name,
        device.arch(),
        device.sm_count,
        device.total_memory as f64 / GIB,
        subjects.len(),
        setup.plan.reps,
        setup.plan.warmup,
    );
    std::fs::create_dir_all(&setup.out).with_context(|| format!("creating {}", setup.out.display()))?;

    let started = Instant::now();
    let total: usize = subjects.iter().map(|s| shapes_of(&setup, &s.image.spec)).sum();
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} ETA {eta} {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    let mut runner = Runner {
        setup: &setup,
        gemm: &gemm,
        cublas: &cublas,
        rng: Random::new(setup.seed),
        rows: Vec::new(),
        bar,
    };
    for p in Precision::ALL {
        let mine: Vec<&Subject> = subjects.iter().filter(|s| s.image.spec.precision == p).collect();
        if mine.is_empty() {
            continue;
        }
        match p {
            Precision::F32 => runner.precision::<f32>(&mine)?,
            Precision::F64 => runner.precision::<f64>(&mine)?,
            Precision::C32 => runner.precision::<Complex<f32>>(&mine)?,
            Precision::C64 => runner.precision::<Complex<f64>>(&mine)?,
        }
    }
    runner.bar.finish_and_clear();
    let mut rows = runner.rows;
    rows.sort_by_key(|r| r.order());

    let csv_path = setup.out.join("bench.csv");
    std::fs::write(&csv_path, csv(&rows, &device.name, device.arch()))?;
    let mut written = vec![csv_path];
    let plan = format!("median of {} CUDA-event runs", setup.plan.reps);
    for (sweep, file, what) in [
        (Sweep::Square, "bench-square.svg", "square m = n = k, multiples of the tile"),
        (Sweep::Skinny, "bench-skinny.svg", "skinny C -= A·B, K ≪ M = N"),
    ] {
        if rows.iter().any(|r| r.sweep == sweep && r.ours.is_some()) {
            let path = setup.out.join(file);
            let title = format!("{} (sm_{}): {what}; {plan}", device.name, device.arch());
            svg(&rows, sweep, &title, &path)?;
            written.push(path);
        }
    }
    print!("\n{}", table(&rows));
    print!("\n{}", summary(&rows, &setup.skinny_k));
    println!(
        "\n{} measurements in {:.1} min; wrote {}",
        rows.iter().filter(|r| r.ours.is_some()).count(),
        started.elapsed().as_secs_f64() / 60.0,
        written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    );
    let failed = rows.iter().filter(|r| r.status == Status::Failed).count();
    if failed > 0 {
        bail!("{failed} kernel check(s) or measurement(s) failed: see the table");
    }
    Ok(())
}

const GIB: f64 = (1u64 << 30) as f64;

/// Shapes `setup` times for a kernel of `spec` (for the progress bar).
fn shapes_of(setup: &Setup, spec: &KernelSpec) -> usize {
    let square = if setup.square {
        square_sizes(tile(spec), setup.min_size, setup.max_size, setup.sizes).len()
    } else {
        0
    };
    let skinny = if setup.skinny { setup.skinny_k.len() * setup.skinny_mn.len() } else { 0 };
    square + skinny
}

struct Runner<'a> {
    setup: &'a Setup,
    gemm: &'a Gemm,
    cublas: &'a Cublas,
    rng: Random,
    rows: Vec<Row>,
    bar: ProgressBar,
}

/// What [`Runner::prepare`] found: the loaded kernel and its relative
/// difference from cuBLAS, or why it is not timed.
type Checked = Result<(Arc<LoadedKernel>, f64), String>;

/// A kernel that passed its check, ready to time.
struct Ready<'s> {
    subject: &'s Subject,
    loaded: Arc<LoadedKernel>,
}

impl Runner<'_> {
    fn precision<T: Element>(&mut self, subjects: &[&Subject]) -> Result<()> {
        let started = Instant::now();
        let mut ready = Vec::new();
        for &subject in subjects {
            self.bar.set_message(format!("{}: check", subject.label()));
            match self.prepare::<T>(subject)? {
                Ok((loaded, rel)) => {
                    let info = loaded.info();
                    self.say(format!(
                        "{:<16} {:<10} {:>3} registers, {:>5} B shared, {} blocks/SM; matches cuBLAS on {} \
                         (relative difference {rel:.1e})",
                        subject.label(),
                        tile_text(&subject.image.spec),
                        info.registers,
                        info.shared_bytes,
                        info.blocks_per_sm,
                        shape_text(CHECK_SHAPE),
                    ));
                    ready.push(Ready { subject, loaded });
                }
                Err(reason) => {
                    self.say(format!("{:<16} FAILED, not timed: {reason}", subject.label()));
                    self.bar.inc(shapes_of(self.setup, &subject.image.spec) as u64);
                    let row = Row::new(Sweep::Check, subject, CHECK_SHAPE, 0.0);
                    self.rows.push(Row { status: Status::Failed, note: reason, ..row });
                }
            }
        }
        if ready.is_empty() {
            return Ok(());
        }
        let setup = self.setup;
        if setup.square {
            let per_kernel: Vec<Vec<i64>> = ready
                .iter()
                .map(|r| {
                    square_sizes(tile(&r.subject.image.spec), setup.min_size, setup.max_size, setup.sizes)
                })
                .collect();
            let all: BTreeSet<i64> = per_kernel.iter().flatten().copied().collect();
            for n in all {
                let users: Vec<&Ready> =
                    ready.iter().zip(&per_kernel).filter(|(_, s)| s.contains(&n)).map(|(r, _)| r).collect();
                self.shapes::<T>(Sweep::Square, &[(n, n, n)], &users)?;
            }
        }
        if setup.skinny {
            let users: Vec<&Ready> = ready.iter().collect();
            for &mn in &setup.skinny_mn {
                let shapes: Vec<(i64, i64, i64)> = setup.skinny_k.iter().map(|&k| (mn, mn, k)).collect();
                self.shapes::<T>(Sweep::Skinny, &shapes, &users)?;
            }
        }
        self.say(format!(
            "{}gemm: {} kernel(s) done in {:.1} s",
            T::PRECISION.blas_letter(),
            ready.len(),
            started.elapsed().as_secs_f64()
        ));
        Ok(())
    }

    fn say(&self, line: String) {
        self.bar.suspend(|| println!("{line}"));
    }

    /// Loads a kernel and checks it against cuBLAS on [`CHECK_SHAPE`] with
    /// fresh random inputs and scalars. The outer error is fatal (cuBLAS
    /// failed, the context is gone), the inner one the kernel's.
    fn prepare<T: Element>(&mut self, subject: &Subject) -> Result<Checked> {
        let gemm = self.gemm;
        let loaded = match gemm.load(&subject.image) {
            Ok(k) => k,
            Err(e) => return Ok(Err(format!("loading: {e}"))),
        };
        if let Err(e) = loaded.launchable() {
            return Ok(Err(e.to_string()));
        }
        let spec = subject.image.spec;
        let check = CublasCheck::<T>::new(gemm, self.cublas, spec.op_a, spec.op_b, &mut self.rng)
            .context("cuBLAS on the check problem")?;
        let rel = match check.difference(gemm, &loaded) {
            Ok(rel) => rel,
            Err(e) => {
                self.context_alive(&subject.label())?;
                return Ok(Err(format!("running the check problem: {e}")));
            }
        };
        if let Some(why) = CublasCheck::<T>::verdict(rel) {
            return Ok(Err(why));
        }
        Ok(Ok((loaded, rel)))
    }

    /// Fails when a failed launch left the CUDA context unusable (a fault
    /// in a kernel does; resource and configuration errors do not).
    fn context_alive(&self, after: &str) -> Result<()> {
        if let Err(e) = self.gemm.synchronize() {
            bail!("the CUDA context is unusable after {after} failed ({e}); rerun without that kernel");
        }
        Ok(())
    }

    /// Times every kernel of `users` and cuBLAS on each of `shapes`, all on
    /// one set of buffers sized for the largest.
    fn shapes<T: Element>(
        &mut self,
        sweep: Sweep,
        shapes: &[(i64, i64, i64)],
        users: &[&Ready],
    ) -> Result<()> {
        let (alpha, beta) = match sweep {
            Sweep::Skinny => (reference::narrow::<T>(Complex::new(-1.0, 0.0)), T::ONE),
            Sweep::Square | Sweep::Check => (T::ONE, T::ZERO),
        };
        let cfg = |(op_a, op_b): (Op, Op), (m, n, k): (i64, i64, i64)| {
            GemmConfig::<T>::new(op_a, op_b, m, n, k).alpha(alpha).beta(beta)
        };
        let biggest = shapes.iter().fold((0, 0, 0), |b, s| (b.0.max(s.0), b.1.max(s.1), b.2.max(s.2)));
        let alloc = cfg((Op::N, Op::N), biggest);
        let device = self.gemm.device();
        let bytes = footprint(
            alloc.required_len(Matrix::A),
            alloc.required_len(Matrix::B),
            alloc.required_len(Matrix::C),
            u64::from(T::PRECISION.element_bytes()),
            u64::from(device.l2_bytes),
        );
        let skip = |this: &mut Self, note: String| {
            for &shape in shapes {
                let flops = measure::flops(&cfg((Op::N, Op::N), shape));
                for r in users {
                    let row = Row::new(sweep, r.subject, shape, flops);
                    this.rows.push(Row { status: Status::Skipped, note: note.clone(), ..row });
                    this.bar.inc(1);
                }
            }
        };
        if bytes as f64 > MEMORY_SHARE * device.total_memory as f64 {
            let note = format!(
                "needs {:.1} GiB, over {:.0}% of the GPU's {:.0} GiB",
                bytes as f64 / GIB,
                MEMORY_SHARE * 100.0,
                device.total_memory as f64 / GIB
            );
            skip(self, note);
            return Ok(());
        }
        let mut bench = match Bench::new(self.gemm, alloc, &mut self.rng) {
            Ok(bench) => bench,
            Err(e) => {
                skip(self, format!("allocating {:.1} GiB: {e:#}", bytes as f64 / GIB));
                return Ok(());
            }
        };
        let plan = self.setup.plan;
        for &shape in shapes {
            // cuBLAS per op pair, timed once per shape.
            let mut cublas_times: Vec<((Op, Op), Result<Timing, String>)> = Vec::new();
            for r in users {
                let spec = r.subject.image.spec;
                let ops = (spec.op_a, spec.op_b);
                self.bar.set_message(format!("{} {}", r.subject.label(), shape_text(shape)));
                bench.set_cfg(cfg(ops, shape));
                let flops = measure::flops(bench.cfg());
                let ours = bench
                    .time(self.gemm, plan, |c, a, b, out| self.gemm.gemm_loaded(&r.loaded, c, a, b, out));
                if ours.is_err() {
                    self.context_alive(&r.subject.label())?;
                }
                let theirs = match cublas_times.iter().find(|(o, _)| *o == ops) {
                    Some((_, t)) => t.clone(),
                    None => {
                        let t = bench
                            .time(self.gemm, plan, |c, a, b, out| self.cublas.gemm(c, a, b, out))
                            .map_err(|e| format!("{e:#}"));
                        cublas_times.push((ops, t.clone()));
                        t
                    }
                };
                let row = Row::new(sweep, r.subject, shape, flops);
                let row = match (ours, theirs) {
                    (Ok(o), Ok(t)) => Row { ours: Some(o), cublas: Some(t), ..row },
                    (Ok(o), Err(e)) => Row { ours: Some(o), note: format!("cuBLAS failed: {e}"), ..row },
                    (Err(e), t) => {
                        Row { cublas: t.ok(), status: Status::Failed, note: format!("{e:#}"), ..row }
                    }
                };
                self.rows.push(row);
                self.bar.inc(1);
            }
        }
        // Keep what was measured even if a later shape kills the process.
        let device = self.gemm.device();
        let mut sorted = self.rows.clone();
        sorted.sort_by_key(|r| r.order());
        std::fs::write(self.setup.out.join("bench.csv"), csv(&sorted, &device.name, device.arch()))?;
        Ok(())
    }
}

fn shape_text((m, n, k): (i64, i64, i64)) -> String {
    format!("{m}×{n}×{k}")
}

/// `nt`.
fn ops_text(spec: &KernelSpec) -> String {
    format!("{}{}", spec.op_a, spec.op_b).to_lowercase()
}

/// `96×96×16`.
fn tile_text(spec: &KernelSpec) -> String {
    format!("{}×{}×{}", spec.m_blk, spec.n_blk, spec.k_blk)
}

/// CSV header, in column order.
const COLUMNS: [&str; 23] = [
    "device",
    "arch",
    "sweep",
    "kernel",
    "source",
    "precision",
    "op",
    "m",
    "n",
    "k",
    "flops",
    "median_ms",
    "min_ms",
    "max_ms",
    "tflops",
    "cublas_median_ms",
    "cublas_min_ms",
    "cublas_max_ms",
    "cublas_tflops",
    "ratio",
    "status",
    "note",
    "spec",
];

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_owned() }
}

/// Renders `rows` as CSV, one line per row after the header.
fn csv(rows: &[Row], device: &str, arch: u32) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    for r in rows {
        let ms =
            |t: Option<Timing>, f: fn(&Timing) -> f64| t.map_or(String::new(), |t| format!("{:.4}", f(&t)));
        let num = |x: Option<f64>, digits: usize| x.map_or(String::new(), |x| format!("{x:.digits$}"));
        let spec = r.spec;
        let fields = [
            device.to_owned(),
            arch.to_string(),
            r.sweep.name().to_owned(),
            r.name.clone(),
            r.source.name().to_owned(),
            spec.precision.token().to_owned(),
            ops_text(&spec),
            r.shape.0.to_string(),
            r.shape.1.to_string(),
            r.shape.2.to_string(),
            format!("{:.0}", r.flops),
            ms(r.ours, |t| t.median_ms),
            ms(r.ours, |t| t.min_ms),
            ms(r.ours, |t| t.max_ms),
            num(r.ours_tflops(), 3),
            ms(r.cublas, |t| t.median_ms),
            ms(r.cublas, |t| t.min_ms),
            ms(r.cublas, |t| t.max_ms),
            num(r.cublas_tflops(), 3),
            num(r.ratio(), 3),
            r.status.name().to_owned(),
            r.note.clone(),
            spec.to_invocation_body(),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        let _ = writeln!(out, "{}", line.join(","));
    }
    out
}

/// Every row: kernel, sweep, shape, TFLOP/s of ours and cuBLAS, the ratio,
/// and why a row has no number.
fn table(rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<16} {:<6} {:>16} {:>8} {:>8} {:>6}  (TFLOP/s)",
        "kernel", "sweep", "shape", "ours", "cuBLAS", "ratio"
    );
    let num = |x: Option<f64>| x.map_or("-".to_owned(), |x| format!("{x:.2}"));
    for r in rows {
        let _ = writeln!(
            out,
            "{:<16} {:<6} {:>16} {:>8} {:>8} {:>6}{}",
            r.label(),
            r.sweep.name(),
            r.shape_text(),
            num(r.ours_tflops()),
            num(r.cublas_tflops()),
            num(r.ratio()),
            if r.note.is_empty() { String::new() } else { format!("  {}: {}", r.status.name(), r.note) }
        );
    }
    out
}

/// One line per kernel: the largest square size run (ours, cuBLAS, ratio),
/// the best square TFLOP/s and where, and the ratio to cuBLAS per skinny K
/// at the largest M = N run.
fn summary(rows: &[Row], skinny_k: &[i64]) -> String {
    let mut kernels: Vec<(String, &Row)> = Vec::new();
    for r in rows {
        if !kernels.iter().any(|(l, _)| *l == r.label()) {
            kernels.push((r.label(), r));
        }
    }
    let mut out = String::new();
    let skinny_head: String = skinny_k.iter().map(|k| format!(" {:>7}", format!("K={k}"))).collect();
    let _ = writeln!(
        out,
        "summary (TFLOP/s): square at its largest size; best square; skinny: ours / cuBLAS at the largest M = N"
    );
    let _ = writeln!(
        out,
        "{:<16} {:<10} {:>6} {:>7} {:>7} {:>6} {:>7} {:>6} {:>6}{skinny_head}",
        "kernel", "tile", "n", "ours", "cuBLAS", "ratio", "best", "at n", "M=N"
    );
    let num = |x: Option<f64>| x.map_or("-".to_owned(), |x| format!("{x:.2}"));
    for (name, first) in &kernels {
        let mine: Vec<&Row> = rows.iter().filter(|r| &r.label() == name).collect();
        if let Some(failed) = mine.iter().find(|r| r.sweep == Sweep::Check) {
            let _ =
                writeln!(out, "{name:<16} {:<10} failed its check: {}", tile_text(&first.spec), failed.note);
            continue;
        }
        let square: Vec<&&Row> =
            mine.iter().filter(|r| r.sweep == Sweep::Square && r.ours.is_some()).collect();
        let last = square.iter().max_by_key(|r| r.shape.0);
        let best = square
            .iter()
            .max_by(|a, b| a.ours_tflops().unwrap_or(0.0).total_cmp(&b.ours_tflops().unwrap_or(0.0)));
        let skinny: Vec<&&Row> =
            mine.iter().filter(|r| r.sweep == Sweep::Skinny && r.ours.is_some()).collect();
        let mn = skinny.iter().map(|r| r.shape.0).max();
        let per_k: String = skinny_k
            .iter()
            .map(|&k| {
                let r = skinny.iter().find(|r| Some(r.shape.0) == mn && r.shape.2 == k);
                format!(" {:>7}", num(r.and_then(|r| r.ratio())))
            })
            .collect();
        let _ = writeln!(
            out,
            "{name:<16} {:<10} {:>6} {:>7} {:>7} {:>6} {:>7} {:>6} {:>6}{per_k}",
            tile_text(&first.spec),
            last.map_or("-".to_owned(), |r| r.shape.0.to_string()),
            num(last.and_then(|r| r.ours_tflops())),
            num(last.and_then(|r| r.cublas_tflops())),
            num(last.and_then(|r| r.ratio())),
            num(best.and_then(|r| r.ours_tflops())),
            best.map_or("-".to_owned(), |r| r.shape.0.to_string()),
            mn.map_or("-".to_owned(), |m| m.to_string()),
        );
    }
    out
}

/// One line of a panel.
#[derive(Debug)]
struct Series {
    label: String,
    /// The op pair's position in BLAS order: the line's colour.
    color: usize,
    /// `None` for cuBLAS (dashed).
    source: Option<Source>,
    points: Vec<(f64, f64)>,
}

/// The lines of one panel: a line per kernel through its TFLOP/s, and one
/// per cuBLAS op pair (once, however many kernels of the pair were run).
fn series(rows: &[&Row], x_of: impl Fn(&Row) -> f64) -> Vec<Series> {
    let all_ops = cli::all_ops();
    let color = |r: &Row| all_ops.iter().position(|&o| o == (r.spec.op_a, r.spec.op_b)).unwrap_or(0);
    let mut out: Vec<Series> = Vec::new();
    let mut cublas: Vec<Series> = Vec::new();
    for r in rows {
        let x = x_of(r);
        if let Some(t) = r.ours_tflops() {
            let label = r.label();
            match out.iter_mut().find(|s| s.label == label) {
                Some(s) => s.points.push((x, t)),
                None => {
                    out.push(Series { label, color: color(r), source: Some(r.source), points: vec![(x, t)] })
                }
            }
        }
        if let Some(t) = r.cublas_tflops() {
            let label = format!("cuBLAS {}", ops_text(&r.spec));
            match cublas.iter_mut().find(|s| s.label == label) {
                Some(s) if !s.points.iter().any(|p| p.0 == x) => s.points.push((x, t)),
                Some(_) => {}
                None => cublas.push(Series { label, color: color(r), source: None, points: vec![(x, t)] }),
            }
        }
    }
    out.extend(cublas);
    for s in &mut out {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// Draws `sweep`'s rows into an SVG: a panel per precision for the square
/// sweep (TFLOP/s against the size), per precision and K for the skinny one
/// (TFLOP/s against M = N).
fn svg(rows: &[Row], sweep: Sweep, title: &str, path: &Path) -> Result<()> {
    let mine: Vec<&Row> = rows.iter().filter(|r| r.sweep == sweep && r.ours.is_some()).collect();
    if mine.is_empty() {
        bail!("no {} results to plot", sweep.name());
    }
    let precisions: Vec<Precision> =
        mine.iter().map(|r| r.spec.precision).collect::<BTreeSet<_>>().into_iter().collect();
    let ks: Vec<i64> = mine.iter().map(|r| r.shape.2).collect::<BTreeSet<_>>().into_iter().collect();
    let mns: Vec<i64> = mine.iter().map(|r| r.shape.0).collect::<BTreeSet<_>>().into_iter().collect();
    // Panels: (title, rows of the panel).
    let mut panels: Vec<(String, Vec<&Row>)> = Vec::new();
    for &p in &precisions {
        let of_p = mine.iter().copied().filter(|r| r.spec.precision == p);
        let name = format!("{}gemm", p.blas_letter());
        if sweep == Sweep::Skinny {
            for &k in &ks {
                panels.push((format!("{name}, K = {k}"), of_p.clone().filter(|r| r.shape.2 == k).collect()));
            }
        } else {
            panels.push((name, of_p.collect()));
        }
    }
    let cols = if sweep == Sweep::Skinny { ks.len() } else { precisions.len().min(2) };
    let grid_rows = panels.len().div_ceil(cols);
    let (w, h) = (620u32, 440u32);
    let err = |e: DrawingAreaErrorKind<_>| anyhow!("drawing {}: {e:?}", path.display());
    let root = SVGBackend::new(path, (w * cols as u32, h * grid_rows as u32 + 40)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let root = root.titled(title, ("sans-serif", 18)).map_err(err)?;
    let areas = root.split_evenly((grid_rows, cols));
    for ((name, rows), area) in panels.iter().zip(&areas) {
        let ymax =
            rows.iter().flat_map(|r| [r.ours_tflops(), r.cublas_tflops()]).flatten().fold(0.1f64, f64::max)
                * 1.1;
        if sweep == Sweep::Skinny {
            let x_of = |r: &Row| mns.iter().position(|&m| m == r.shape.0).unwrap_or(0) as f64;
            let labels =
                |x: &f64| mns.get(x.round().max(0.0) as usize).map_or(String::new(), |m| m.to_string());
            let x = XAxis {
                desc: "M = N",
                range: -0.3..mns.len() as f64 - 0.7,
                labels: mns.len(),
                format: &labels,
            };
            panel(area, name, x, ymax, &series(rows, x_of)).map_err(err)?;
        } else {
            let xmax = rows.iter().map(|r| r.shape.0).max().unwrap_or(1) as f64 * 1.03;
            let labels = |x: &f64| format!("{x:.0}");
            let x = XAxis { desc: "m = n = k", range: 0.0..xmax, labels: 8, format: &labels };
            panel(area, name, x, ymax, &series(rows, |r| r.shape.0 as f64)).map_err(err)?;
        }
    }
    root.present().map_err(err)?;
    Ok(())
}

/// The x axis of a panel.
struct XAxis<'a> {
    desc: &'a str,
    range: std::ops::Range<f64>,
    /// How many labels to draw.
    labels: usize,
    format: &'a dyn Fn(&f64) -> String,
}

/// One chart: the lines of `lines` over `x`, TFLOP/s from 0 to `ymax`.
fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    name: &str,
    x: XAxis,
    ymax: f64,
    lines: &[Series],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let mut chart = ChartBuilder::on(area)
        .caption(name, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(x.range, 0f64..ymax)?;
    chart
        .configure_mesh()
        .x_labels(x.labels)
        .x_label_formatter(x.format)
        .x_desc(x.desc)
        .y_desc("TFLOP/s")
        .draw()?;
    for s in lines {
        let color = Palette99::pick(s.color).to_rgba();
        let points = s.points.clone();
        match s.source {
            None => {
                chart
                    .draw_series(DashedLineSeries::new(points, 6, 4, color.stroke_width(1)))?
                    .label(&s.label)
                    .legend(move |(x, y)| {
                        DashedPathElement::new(vec![(x - 8, y), (x + 8, y)], 4, 2, color.stroke_width(1))
                    });
            }
            Some(source) => {
                let width = if source == Source::Table2 { 1 } else { 2 };
                chart
                    .draw_series(LineSeries::new(points.clone(), color.stroke_width(width)))?
                    .label(&s.label)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x - 8, y), (x + 8, y)], color.stroke_width(width))
                    });
                if source == Source::Table2 {
                    chart.draw_series(points.iter().map(|&p| TriangleMarker::new(p, 4, color.filled())))?;
                } else {
                    chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
                }
            }
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 11))
        .position(SeriesLabelPosition::LowerRight)
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn parse(argv: &[&str]) -> Result<Setup> {
        let cli = Cli::try_parse_from(std::iter::once("bench").chain(argv.iter().copied()))?;
        setup(&cli.args)
    }

    #[test]
    fn defaults_are_the_sixteen_kernel_types_and_both_sweeps() {
        let s = parse(&[]).unwrap();
        assert_eq!(s.precisions, Precision::ALL);
        assert_eq!(s.ops, [(Op::N, Op::N), (Op::N, Op::T), (Op::T, Op::N), (Op::T, Op::T)]);
        assert_eq!(s.choice, Choice::Default);
        assert!(s.square && s.skinny);
        assert_eq!((s.min_size, s.max_size, s.sizes), (256, 8192, 12));
        assert_eq!(s.skinny_k, [32, 64]);
        assert_eq!(s.skinny_mn, [4096, 8192, 16384]);
        assert_eq!((s.plan.warmup, s.plan.reps), (Plan::DEFAULT.warmup, Plan::DEFAULT.reps));
        assert_eq!(s.out, PathBuf::from("target/bench"));
    }

    #[test]
    fn quick_shortens_the_run_and_explicit_flags_win() {
        let s = parse(&["--quick"]).unwrap();
        assert_eq!((s.max_size, s.sizes, s.skinny_mn.as_slice()), (4096, 4, &[8192][..]));
        assert_eq!((s.plan.warmup, s.plan.reps), (1, 3));
        let s = parse(&["--quick", "--max-size", "2048", "--reps", "5", "--skinny-mn", "16384,4096,4096"])
            .unwrap();
        assert_eq!((s.max_size, s.sizes, s.plan.reps), (2048, 4, 5));
        assert_eq!(s.skinny_mn, [4096, 16384]);
    }

    #[test]
    fn kernel_choices_and_lists_parse() {
        let s = parse(&["--precision", "z,s", "--op", "all", "--both", "--sweep", "skinny"]).unwrap();
        assert_eq!(s.precisions, [Precision::C64, Precision::F32]);
        assert_eq!(s.ops.len(), 9);
        assert_eq!(s.choice, Choice::Both);
        assert!(!s.square && s.skinny);
        assert_eq!(parse(&["--table2"]).unwrap().choice, Choice::Table2);
        let body = gemm_kernels::table2(Precision::C32, Op::T, Op::N).spec.to_invocation_body();
        let s = parse(&["--spec", &body, "--precision", "s"]).unwrap();
        assert_eq!(s.precisions, [Precision::C32]);
        assert_eq!(s.ops, [(Op::T, Op::N)]);
        assert!(matches!(s.choice, Choice::Spec(spec) if spec.m_blk == 64));
    }

    #[test]
    fn bad_arguments_are_refused() {
        for argv in [
            &["--table2", "--both"][..],
            &["--spec", "precision = f32", "--table2"],
            &["--spec", "tile = (1, 2)"],
            &["--op", "nx"],
            &["--precision", "h"],
            &["--max-size", "0"],
            &["--min-size", "9000"],
            &["--sizes", "0"],
            &["--skinny-k", "32,-1"],
            &["--reps", "0"],
            &["--sweep", "check"],
        ] {
            assert!(parse(argv).is_err(), "{argv:?} was accepted");
        }
    }

    #[test]
    fn choose_finds_a_kernel_per_type() {
        let s = parse(&[]).unwrap();
        let chosen = choose(&s, 90).unwrap();
        assert_eq!(chosen.len(), 16);
        for (subject, (p, (a, b))) in
            chosen.iter().zip(Precision::ALL.iter().flat_map(|&p| s.ops.iter().map(move |&o| (p, o))))
        {
            let spec = subject.image.spec;
            assert_eq!((spec.precision, spec.op_a, spec.op_b), (p, a, b));
            let default = gemm_kernels::default_kernel(90, p, a, b);
            assert_eq!(subject.image.ptx, default.ptx);
            let is_table2 = std::ptr::eq(default, gemm_kernels::table2(p, a, b));
            assert_eq!(subject.source, if is_table2 { Source::Table2 } else { Source::Tuned });
        }
        let table2 = choose(&parse(&["--table2"]).unwrap(), 90).unwrap();
        assert!(table2.iter().all(|k| k.source == Source::Table2));
        assert_eq!(table2[0].label(), "SgemmNN/table2");
        // Both: each type's Table 2 kernel, after its tuned one if any.
        let both = choose(&parse(&["--both"]).unwrap(), 90).unwrap();
        assert_eq!(both.iter().filter(|k| k.source == Source::Table2).count(), 16);
        assert_eq!(both.len(), 16 + chosen.iter().filter(|k| k.source == Source::Tuned).count());
        let spec =
            choose(&parse(&["--spec", &table2[5].image.spec.to_invocation_body()]).unwrap(), 90).unwrap();
        assert_eq!(
            (spec.len(), spec[0].label(), spec[0].image.spec),
            (1, "spec".to_owned(), table2[5].image.spec)
        );
    }

    #[test]
    fn square_sizes_are_tile_multiples_spread_geometrically() {
        let sizes = square_sizes(96, 256, 8192, 12);
        assert_eq!(sizes.len(), 12);
        assert_eq!((sizes[0], sizes[11]), (288, 8160));
        assert!(sizes.iter().all(|n| n % 96 == 0));
        assert!(sizes.windows(2).all(|w| w[0] < w[1]));
        // Roughly constant ratio, (8160 / 288)^(1/11) ≈ 1.355, up to rounding
        // to the tile: 288, 384, 576, 672, 960, …, 6048, 8160.
        for w in sizes.windows(2) {
            let r = w[1] as f64 / w[0] as f64;
            assert!((1.15..1.55).contains(&r), "{sizes:?}");
        }
        assert_eq!(square_sizes(64, 256, 8192, 12).last(), Some(&8192));
        assert_eq!(square_sizes(48, 256, 4096, 4), [240, 624, 1584, 4080]);
        // Few tiles: repeats dropped; the top never exceeds max unless one
        // tile does.
        assert_eq!(square_sizes(96, 100, 300, 12), [96, 192, 288]);
        assert_eq!(square_sizes(96, 10, 50, 3), [96]);
        assert_eq!(square_sizes(64, 256, 8192, 1), [8192]);
    }

    #[test]
    fn tiles_are_the_lcm_of_the_block() {
        let mut spec = gemm_kernels::table2(Precision::C64, Op::N, Op::N).spec;
        assert_eq!((spec.m_blk, spec.n_blk, tile(&spec)), (24, 16, 48));
        spec.n_blk = 24;
        assert_eq!(tile(&spec), 24);
        assert_eq!(tile(&gemm_kernels::table2(Precision::F32, Op::N, Op::N).spec), 96);
    }

    #[test]
    fn footprint_counts_the_rotated_sets() {
        let l2 = 50 << 20;
        // 8192² f32: A and B are 512 MiB together, one set.
        let n = 8192 * 8192;
        assert_eq!(footprint(n, n, n, 4, l2), 3 * n * 4);
        // Small problems: at most 8 sets of A and B.
        assert_eq!(footprint(100, 100, 100, 8, l2), 8 * 1600 + 800);
        // 40 MiB of A and B: three sets cover 100 MiB.
        assert_eq!(footprint(5 << 20, 5 << 20, 0, 4, l2), 3 * (40 << 20));
    }

    /// A measured row of `kernel` (its Table 2 spec) at `shape`.
    fn row(
        kernel: (Precision, Op, Op),
        source: Source,
        sweep: Sweep,
        shape: (i64, i64, i64),
        ms: f64,
    ) -> Row {
        let spec = gemm_kernels::table2(kernel.0, kernel.1, kernel.2);
        let t = |ms| Timing { median_ms: ms, min_ms: ms * 0.9, max_ms: ms * 1.1 };
        Row {
            sweep,
            name: spec.name.to_owned(),
            source,
            spec: spec.spec,
            shape,
            flops: kernel.0.flops_per_fma() as f64 * (shape.0 * shape.1 * shape.2) as f64,
            ours: Some(t(ms)),
            cublas: Some(t(ms / 2.0)),
            status: Status::Ok,
            note: String::new(),
        }
    }

    fn sample_rows() -> Vec<Row> {
        let (s, z) = ((Precision::F32, Op::N, Op::N), (Precision::C64, Op::T, Op::N));
        let mut rows = Vec::new();
        for (i, n) in [960, 1920, 3840].into_iter().enumerate() {
            rows.push(row(s, Source::Tuned, Sweep::Square, (n, n, n), 1.0 + i as f64));
            rows.push(row(s, Source::Table2, Sweep::Square, (n, n, n), 2.0 + i as f64));
            rows.push(row(z, Source::Table2, Sweep::Square, (n, n, n), 4.0 + i as f64));
        }
        for mn in [4096, 8192] {
            for k in [32, 64] {
                rows.push(row(s, Source::Tuned, Sweep::Skinny, (mn, mn, k), 1.0));
                rows.push(row(z, Source::Table2, Sweep::Skinny, (mn, mn, k), 2.0));
            }
        }
        let mut skipped = row(z, Source::Table2, Sweep::Square, (32640, 32640, 32640), 0.0);
        (skipped.ours, skipped.cublas, skipped.status) = (None, None, Status::Skipped);
        skipped.note = "needs 47.6 GiB, over 60% of the GPU's 79 GiB".into();
        rows.push(skipped);
        let mut failed = row(s, Source::Spec, Sweep::Check, CHECK_SHAPE, 0.0);
        (failed.ours, failed.cublas, failed.status, failed.name) =
            (None, None, Status::Failed, "spec".into());
        failed.note =
            "differs from cuBLAS on 389×271×157: relative difference 1.00e0 (tolerance 1e-5)".into();
        rows.push(failed);
        rows.sort_by_key(|r| r.order());
        rows
    }

    #[test]
    fn csv_has_a_row_per_measurement_and_quotes_specs() {
        let rows = sample_rows();
        let text = csv(&rows, "NVIDIA H100 80GB HBM3", 90);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), rows.len() + 1);
        assert_eq!(lines[0], COLUMNS.join(","));
        // Sorted: SgemmNN tuned square first; 2 TFLOP/s per ms at 960³…
        let first = lines[1];
        assert!(
            first.starts_with("NVIDIA H100 80GB HBM3,90,square,SgemmNN,tuned,f32,nn,960,960,960,1769472000,")
        );
        assert!(
            first.ends_with(
                ",1.0000,0.9000,1.1000,1.769,0.5000,0.4500,0.5500,3.539,0.500,ok,,\"precision = f32, op = (N, N), \
                 tile = (96, 96, 16), threads = (16, 16), load_a = (32, 8), load_b = (8, 32)\""
            ),
            "{first}"
        );
        let skipped = lines.iter().find(|l| l.contains(",skipped,")).unwrap();
        assert!(
            skipped.contains("32640,32640,32640")
                && skipped.contains("\"needs 47.6 GiB, over 60% of the GPU's 79 GiB\"")
        );
        let failed = lines.iter().find(|l| l.contains(",failed,")).unwrap();
        assert!(failed.contains(",check,spec,spec,"));
        // Every line has every column (quoted fields hold the commas).
        for line in &lines[1..] {
            let mut fields = 0;
            let mut quoted = false;
            for c in line.chars() {
                match c {
                    '"' => quoted = !quoted,
                    ',' if !quoted => fields += 1,
                    _ => {}
                }
            }
            assert_eq!(fields + 1, COLUMNS.len(), "{line}");
        }
    }

    #[test]
    fn table_and_summary_list_every_kernel() {
        let rows = sample_rows();
        let table = table(&rows);
        assert_eq!(table.lines().count(), rows.len() + 1);
        assert!(
            table.contains("SgemmNN/tuned    square             960³     1.77     3.54   0.50"),
            "{table}"
        );
        assert!(
            table.contains("ZgemmTN/table2   skinny     8192×8192×64    17.18    34.36   0.50\n"),
            "{table}"
        );
        assert!(table.contains("32640³        -        -      -  skipped: needs 47.6 GiB"), "{table}");
        let summary = summary(&rows, &[32, 64]);
        let lines: Vec<&str> = summary.lines().collect();
        assert_eq!(lines.len(), 2 + 4, "{summary}");
        assert!(lines[1].ends_with("M=N    K=32    K=64"), "{}", lines[1]);
        assert_eq!(
            lines[2],
            "SgemmNN/tuned    96×96×16     3840   37.75   75.50   0.50   37.75   3840   8192    0.50    0.50"
        );
        // No skinny rows: dashes.
        assert!(lines[3].starts_with("SgemmNN/table2") && lines[3].ends_with("3840      -       -       -"));
        assert!(lines[4].starts_with("spec             96×96×16   failed its check: differs from cuBLAS"));
        // The skipped size does not count as the largest.
        assert!(lines[5].starts_with("ZgemmTN/table2   24×16×8      3840   75.50"), "{}", lines[5]);
    }

    #[test]
    fn series_share_cublas_per_op_pair() {
        let rows = sample_rows();
        let square: Vec<&Row> =
            rows.iter().filter(|r| r.sweep == Sweep::Square && r.spec.precision == Precision::F32).collect();
        let lines = series(&square, |r| r.shape.0 as f64);
        let labels: Vec<&str> = lines.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["SgemmNN/tuned", "SgemmNN/table2", "cuBLAS nn"]);
        assert!(lines.iter().all(|s| s.points.len() == 3 && s.color == 0));
        assert_eq!(lines[2].source, None);
    }

    #[test]
    fn svgs_are_written() {
        let dir = std::env::temp_dir().join(format!("gemmforge-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rows = sample_rows();
        for (sweep, file) in [(Sweep::Square, "square.svg"), (Sweep::Skinny, "skinny.svg")] {
            let path = dir.join(file);
            svg(&rows, sweep, "test", &path).unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                text.starts_with("<svg") && text.contains("cuBLAS tn") && text.contains("zgemm"),
                "{file}"
            );
        }
        assert!(text_of(&dir.join("skinny.svg")).contains("K = 64"));
        assert!(svg(&rows, Sweep::Check, "test", &dir.join("check.svg")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn text_of(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap()
    }
}
