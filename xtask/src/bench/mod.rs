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
//! and, asked for by name (`--sweep small,large-k,tall`), the shape classes
//! of issue 11, `C = A·B` on shapes no tile chooses: **small** squares
//! (256, 384, 512, 768, 1024), **large-k** (`m = n` of 256 and 512, `k` of
//! 64 Ki to 1 Mi) and **tall** (one of `m`, `n` of 16 or 64, the other
//! 16384, `k` 4096).
//!
//! By default the kernels are the ones gemm-host runs on this GPU
//! ([`gemm_kernels::Dispatch::default_kernel`]: tuned for the device family if there
//! is one, else Table 2), one per precision and op pair; `--table2` and
//! `--both` bench the Table 2 kernels instead or beside them, `--spec` one
//! spec compiled now. Before any timing each kernel solves a small ragged
//! problem and must agree with cuBLAS; one that does not is reported and
//! skipped.
//!
//! Every timing goes through [`measure::Bench`] (random inputs rotated past
//! the L2, warm-up, CUDA events per run, median), cuBLAS under the same
//! harness on the same buffers right after the kernel, in its default math
//! (FP32 for S and C) or, for a `math = tf32` kernel, in its TF32 mode
//! (`cublas_math` in the CSV). A shape whose buffers
//! would take more than 60% of the GPU's memory is skipped and recorded.
//!
//! Output, under `--out` (default `target/bench`): `bench.csv` (one row per
//! kernel and shape, rewritten after every shape so an interrupted run keeps
//! what it measured), `bench-square.svg`, `bench-skinny.svg` and
//! `bench-small.svg` (TFLOP/s per precision; a solid line per kernel, a
//! dashed one per cuBLAS op pair; large-k and tall are in the CSV and the
//! table);
//! then a table of every measurement and, last, a summary per kernel.

mod plot;
mod report;
mod setup;
mod subjects;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use gemm_codegen::bound::GpuThroughput;
use gemm_codegen::{Element, KernelSpec, Math, Op, Precision};
use gemm_host::cublas::{Cublas, CublasMath};
use gemm_host::num_complex::Complex;
use gemm_host::reference::{self, Random};
use gemm_host::{Gemm, GemmConfig, LoadedKernel, Matrix};
use gemm_kernels::Form;
use indicatif::{ProgressBar, ProgressStyle};

use self::plot::svg;
pub(crate) use self::report::csv_field;
use self::report::{bound_text, csv, shape_text, summary, table, tile_text};
pub use self::setup::Args;
use self::setup::{Choice, Setup, setup, square_sizes, tile};
use self::subjects::{Source, Subject, choose, label};
use crate::bound::{self, KernelBound};
use crate::measure::{self, Bench, CHECK_SHAPE, CublasCheck, Timing};
use crate::peak;

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
    /// m = n = k of 256, 384, 512, 768, 1024, not rounded to the tile.
    Small,
    /// m = n of 256, 512 with k of 64 Ki to 1 Mi.
    LargeK,
    /// One of m, n of 16 or 64, the other 16384; k = 4096.
    Tall,
    /// Strided batches of m = n = k from 8 to 256, as many problems as
    /// fill 768 MiB.
    Batched,
}

impl Sweep {
    /// How its calls use C: the skinny sweep times the trailing update of
    /// an LU factorization, `C = C − A·B`; the others `C = A·B`.
    fn form(self) -> Form {
        match self {
            Sweep::Skinny => Form::Update,
            Sweep::Check | Sweep::Square | Sweep::Small | Sweep::LargeK | Sweep::Tall | Sweep::Batched => {
                Form::Product
            }
        }
    }

    fn name(self) -> &'static str {
        match self {
            Sweep::Check => "check",
            Sweep::Square => "square",
            Sweep::Skinny => "skinny",
            Sweep::Small => "small",
            Sweep::LargeK => "large-k",
            Sweep::Tall => "tall",
            Sweep::Batched => "batched",
        }
    }
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
    /// Floating-point operations of one call ([`measure::flops`]).
    flops: f64,
    /// Bytes one call must move ([`measure::bytes`]), set against the
    /// bound's copy bandwidth ([`KernelBound::copy_gbps`]).
    bytes: f64,
    ours: Option<Timing>,
    cublas: Option<Timing>,
    status: Status,
    note: String,
    /// The kernel's analytic bound and FMA peak on this GPU.
    bound: KernelBound,
}

impl Row {
    /// `subject` (of bound `bound`) on `shape`, not measured yet: one call
    /// does `flops` and moves `bytes` ([`Row::bytes`]).
    fn new(
        sweep: Sweep,
        subject: &Subject,
        bound: &KernelBound,
        shape: (i64, i64, i64),
        (flops, bytes): (f64, f64),
    ) -> Row {
        Row {
            sweep,
            name: subject.name.clone(),
            source: subject.source,
            spec: subject.image.spec,
            shape,
            flops,
            bytes,
            ours: None,
            cublas: None,
            status: Status::Ok,
            note: String::new(),
            bound: bound.clone(),
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

    /// GB/s of the bytes a call must move, ours and cuBLAS's.
    fn gbps(&self) -> [Option<f64>; 2] {
        [self.ours, self.cublas].map(|t| t.map(|t| self.bytes / (t.median_ms * 1e-3) / 1e9))
    }

    /// Ours as a fraction of the copy bandwidth.
    fn copy_fraction(&self) -> Option<f64> {
        Some(self.gbps()[0]? / self.bound.copy_gbps?)
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
    // A 1xTF32 kernel races cuBLAS's TF32 mode; every other math its default.
    let cublas_tf32 = if subjects.iter().any(|s| CublasMath::matching(s.image.spec.math) == CublasMath::Tf32)
    {
        let mut tf32 = Cublas::new(gemm.stream().clone())?;
        tf32.set_math(CublasMath::Tf32)?;
        Some(tf32)
    } else {
        None
    };
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
    let peak = peak::for_run(Some(&gemm), setup.peak.as_deref(), &setup.out)?;
    let machine = bound::machine(device, peak.as_ref());
    if let Some(m) = &machine {
        println!("analytic bounds and FMA peaks on {m}");
    }
    let mut runner = Runner {
        setup: &setup,
        gemm: &gemm,
        machine: machine.as_ref(),
        cublas: &cublas,
        cublas_tf32: cublas_tf32.as_ref(),
        rng: Random::new(setup.seed),
        rows: Vec::new(),
        bar,
    };
    for p in Precision::EVERY {
        let mine: Vec<&Subject> = subjects.iter().filter(|s| s.image.spec.precision == p).collect();
        if mine.is_empty() {
            continue;
        }
        match p {
            Precision::F32 => runner.precision::<f32>(&mine)?,
            Precision::F64 => runner.precision::<f64>(&mine)?,
            Precision::C32 => runner.precision::<Complex<f32>>(&mine)?,
            Precision::C64 => runner.precision::<Complex<f64>>(&mine)?,
            Precision::F16 => runner.precision::<gemm_codegen::half::f16>(&mine)?,
            Precision::Bf16 => runner.precision::<gemm_codegen::half::bf16>(&mine)?,
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
        (Sweep::Small, "bench-small.svg", "small squares m = n = k"),
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
    square + setup.fixed.len()
}

struct Runner<'a> {
    setup: &'a Setup,
    gemm: &'a Gemm,
    cublas: &'a Cublas,
    /// cuBLAS in its TF32 mode, when a kernel is timed against it.
    cublas_tf32: Option<&'a Cublas>,
    rng: Random,
    rows: Vec<Row>,
    bar: ProgressBar,
    /// The GPU's throughput model, for the bounds.
    machine: Option<&'a GpuThroughput>,
}

/// A cuBLAS timing's op pair and math mode.
type CublasKey = (Op, Op, CublasMath);

/// What [`Runner::prepare`] found: the loaded kernel and its relative
/// difference from cuBLAS, or why it is not timed.
type Checked = Result<(Arc<LoadedKernel>, f64), String>;

/// A kernel that passed its check, ready to time.
struct Ready<'s> {
    subject: &'s Subject,
    loaded: Arc<LoadedKernel>,
    bound: KernelBound,
}

impl Runner<'_> {
    /// The cuBLAS a kernel of `math` is timed against ([`CublasMath::matching`]).
    fn cublas_for(&self, math: Math) -> &Cublas {
        match (CublasMath::matching(math), self.cublas_tf32) {
            (CublasMath::Tf32, Some(tf32)) => tf32,
            _ => self.cublas,
        }
    }

    fn precision<T: Element>(&mut self, subjects: &[&Subject]) -> Result<()> {
        let started = Instant::now();
        let mut ready = Vec::new();
        for &subject in subjects {
            self.bar.set_message(format!("{}: check", subject.label()));
            match self.prepare::<T>(subject)? {
                Ok((loaded, rel)) => {
                    let info = loaded.info();
                    let bound =
                        KernelBound::of_spec(&subject.image.spec, self.machine, Some(info.blocks_per_sm));
                    self.say(format!(
                        "{:<16} {:<10} {:>3} registers, {:>5} B shared, {} blocks/SM; matches cuBLAS on {} \
                         (relative difference {rel:.1e}){}",
                        subject.label(),
                        tile_text(&subject.image.spec),
                        info.registers,
                        info.shared_bytes,
                        info.blocks_per_sm,
                        shape_text(CHECK_SHAPE),
                        bound_text(&bound),
                    ));
                    ready.push(Ready { subject, loaded, bound });
                }
                Err(reason) => {
                    self.say(format!("{:<16} FAILED, not timed: {reason}", subject.label()));
                    self.bar.inc(shapes_of(self.setup, &subject.image.spec) as u64);
                    let bound = KernelBound::of_spec(&subject.image.spec, self.machine, None);
                    let row = Row::new(Sweep::Check, subject, &bound, CHECK_SHAPE, (0.0, 0.0));
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
                let users: Vec<&Ready> = ready
                    .iter()
                    .zip(&per_kernel)
                    .filter(|(r, s)| {
                        s.contains(&n) && r.subject.times((n, n, n), Sweep::Square.form(), false)
                    })
                    .map(|(r, _)| r)
                    .collect();
                if !users.is_empty() {
                    self.shapes::<T>(Sweep::Square, &[(n, n, n)], &users)?;
                }
            }
        }
        for &(sweep, shape) in &setup.fixed {
            let users: Vec<&Ready> = ready
                .iter()
                .filter(|r| r.subject.times(shape, sweep.form(), sweep == Sweep::Batched))
                .collect();
            if !users.is_empty() {
                self.shapes::<T>(sweep, &[shape], &users)?;
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
        if let Some(why) = check.verdict(rel, spec.math) {
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
        let (alpha, beta) = match sweep.form() {
            Form::Update => (reference::narrow::<T>(Complex::new(-1.0, 0.0)), T::ONE),
            Form::Product => (T::ONE, T::ZERO),
        };
        let cfg = |(op_a, op_b): (Op, Op), (m, n, k): (i64, i64, i64)| {
            GemmConfig::<T>::new(op_a, op_b, m, n, k).alpha(alpha).beta(beta)
        };
        let biggest = shapes.iter().fold((0, 0, 0), |b, s| (b.0.max(s.0), b.1.max(s.1), b.2.max(s.2)));
        let alloc = cfg((Op::N, Op::N), biggest);
        let device = self.gemm.device();
        let esz = u64::from(T::PRECISION.element_bytes());
        // A batched sweep's shapes come one at a time, each its own count.
        let count = setup::batch_count(sweep, biggest, esz);
        let bytes = footprint(
            count as u64 * alloc.required_len(Matrix::A),
            count as u64 * alloc.required_len(Matrix::B),
            count as u64 * alloc.required_len(Matrix::C),
            esz,
            u64::from(device.l2_bytes),
        );
        let skip = |this: &mut Self, note: String| {
            for &shape in shapes {
                let call = cfg((Op::N, Op::N), shape);
                let cost = (count as f64 * measure::flops(&call), count as f64 * measure::bytes(&call));
                for r in users {
                    let row = Row::new(sweep, r.subject, &r.bound, shape, cost);
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
        let mut bench = match Bench::new_batch(self.gemm, alloc, count, &mut self.rng) {
            Ok(bench) => bench,
            Err(e) => {
                skip(self, format!("allocating {:.1} GiB: {e:#}", bytes as f64 / GIB));
                return Ok(());
            }
        };
        let plan = self.setup.plan;
        for &shape in shapes {
            // cuBLAS per op pair and math mode, timed once per shape.
            let mut cublas_times: Vec<(CublasKey, Result<Timing, String>)> = Vec::new();
            for r in users {
                let spec = r.subject.image.spec;
                let ops = (spec.op_a, spec.op_b);
                let key = (spec.op_a, spec.op_b, CublasMath::matching(spec.math));
                self.bar.set_message(format!("{} {}", r.subject.label(), shape_text(shape)));
                bench.set_cfg(cfg(ops, shape));
                let flops = count as f64 * measure::flops(bench.cfg());
                let theirs = match cublas_times.iter().find(|(o, _)| *o == key) {
                    Some((_, t)) => t.clone(),
                    None => {
                        let cublas = self.cublas_for(spec.math);
                        let t = bench.time_cublas(self.gemm, plan, cublas).map_err(|e| format!("{e:#}"));
                        cublas_times.push((key, t.clone()));
                        t
                    }
                };
                let slices = match &self.setup.slices[..] {
                    // As a default call splits: the class's tuned split
                    // when the dispatch picks this kernel for the shape.
                    [] => {
                        let entry = self.gemm.default_kernel(bench.cfg());
                        vec![if entry.entry == r.subject.image.entry {
                            self.gemm.slices_for(entry, &r.loaded, bench.cfg())
                        } else {
                            self.gemm.default_slices(&r.loaded, bench.cfg())
                        }]
                    }
                    list => list.to_vec(),
                };
                for slices in slices {
                    let ours = bench.time_ours(self.gemm, plan, &r.loaded, slices);
                    if ours.is_err() {
                        self.context_alive(&r.subject.label())?;
                    }
                    let cost = (flops, count as f64 * measure::bytes(bench.cfg()));
                    let mut row = Row::new(sweep, r.subject, &r.bound, shape, cost);
                    if sweep == Sweep::Batched {
                        row.note = format!("batch of {count}");
                    } else if slices > 1 {
                        row.note = format!("K split in up to {slices} slices");
                    }
                    let row = match (ours, theirs.clone()) {
                        (Ok(o), Ok(t)) => Row { ours: Some(o), cublas: Some(t), ..row },
                        (Ok(o), Err(e)) => Row { ours: Some(o), note: format!("cuBLAS failed: {e}"), ..row },
                        (Err(e), t) => {
                            Row { cublas: t.ok(), status: Status::Failed, note: format!("{e:#}"), ..row }
                        }
                    };
                    self.rows.push(row);
                }
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;

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
    pub(super) fn row(
        kernel: (Precision, Op, Op),
        source: Source,
        sweep: Sweep,
        shape: (i64, i64, i64),
        ms: f64,
    ) -> Row {
        let spec = gemm_kernels::table2(kernel.0, kernel.1, kernel.2);
        let t = |ms| Timing { median_ms: ms, min_ms: ms * 0.9, max_ms: ms * 1.1 };
        let bound = KernelBound::of_spec(&spec.spec, Some(&h100()), Some(2));
        let (m, n, k) = shape;
        Row {
            sweep,
            name: spec.name.to_owned(),
            source,
            spec: spec.spec,
            shape,
            flops: kernel.0.flops_per_fma() as f64 * (m * n * k) as f64,
            // A and B read, C written (beta = 0).
            bytes: f64::from(kernel.0.element_bytes()) * (m * k + k * n + m * n) as f64,
            ours: Some(t(ms)),
            cublas: Some(t(ms / 2.0)),
            status: Status::Ok,
            note: String::new(),
            bound,
        }
    }

    /// The datasheet H100 the sample rows are bounded on.
    pub(super) fn h100() -> GpuThroughput {
        bound::machine_for_arch("NVIDIA H100 80GB HBM3", 90, None).unwrap()
    }

    pub(super) fn sample_rows() -> Vec<Row> {
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
}
