//! `cargo xtask tune`: the autotuner of Sections 5.3 and 6 of Kurzak, Tomov
//! and Dongarra — enumerate the pruned search space, benchmark the survivors
//! against cuBLAS, keep the fastest, and write the winners back into
//! `gemm-kernels` as `gemm_kernel!` invocations.
//!
//! Per kernel type (a precision and a pair of ops):
//! 1. the space under the hardware limits of the GPU found and the
//!    guidelines (Table 1's unless given), counted;
//! 2. **explore**: a spread sample of two thirds of `--max-variants`
//!    ([`Space::sample`]), plus the Table 2 configuration;
//! 3. **refine**: the neighbours (specs differing in one parameter) of the
//!    three fastest so far, for the last third;
//! 4. each variant is compiled, JIT-loaded (its real registers, spills,
//!    shared memory and occupancy read back), dropped if it cannot launch,
//!    checked against cuBLAS on a small ragged problem (a wrong kernel is
//!    never a winner), and timed with CUDA events on the large problem;
//!    cuBLAS is timed under the same harness;
//! 5. **confirm**: the winner, the Table 2 configuration and cuBLAS are timed
//!    again, back to back with twice the repetitions, in this run; the
//!    summary and the generated file report these rates.
//!
//! Every measurement is appended to `<out>/tune.jsonl` as it finishes;
//! `--resume` skips what is there; a further `--resume` run also refines
//! around the new best, so repeated runs climb. At the end: `tune.csv`,
//! `tune.svg`, and the winners as `gemm-kernels/src/tuned/sm_XY.rs` (in
//! `<out>` when no gemm-kernels is at hand). The CSV and the closing table
//! set each variant beside the analytic bound of its own loop and the FMA
//! peak (measured at the start of the run, or `--peak FILE`; see
//! `cargo xtask peak`).
//! `--report-only` redoes the end from the journal, without a GPU.

pub mod record;
pub mod report;
pub mod winners;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use gemm_codegen::bound::GpuThroughput;
use gemm_codegen::space::{Guidelines, Space};
use gemm_codegen::{DeviceLimits, Element, KernelSpec, Op, Precision};
use gemm_host::cublas::Cublas;
use gemm_host::num_complex::Complex;
use gemm_host::reference::Random;
use gemm_host::{Gemm, GemmConfig};
use indicatif::{ProgressBar, ProgressStyle};

use self::record::{DeviceKey, Journal, KernelType, Phase, Record, Status, Subject};
use crate::bound::{self, KernelBound};
use crate::cli;
use crate::measure::{Bench, CublasCheck, Plan};
use crate::peak;

#[derive(clap::Args)]
pub struct Args {
    /// Precisions to tune: s, d, c, z.
    #[arg(long, value_delimiter = ',', default_value = "s,d,c,z", value_parser = cli::parse_precision)]
    precision: Vec<Precision>,
    /// Op pairs to tune (`transposes` = nn, nt, tn, tt; conjugate types reuse
    /// their transpose pattern's winner).
    #[arg(long, value_delimiter = ',', default_value = "transposes")]
    op: Vec<String>,
    /// m = n = k of the timed problem (default: about 1 GiB of A, B and C per
    /// GEMM, as in the paper; per precision).
    #[arg(long)]
    size: Option<i64>,
    /// Minimum resident threads per SM (default: Table 1's 512).
    #[arg(long)]
    min_threads_per_sm: Option<u32>,
    /// Minimum resident blocks per SM (default: Table 1's 2).
    #[arg(long)]
    min_blocks_per_sm: Option<u32>,
    /// Minimum register reuse (default: Table 1's, per precision).
    #[arg(long)]
    min_reuse: Option<f64>,
    /// Variants timed per kernel type, besides the Table 2 configuration.
    #[arg(long, default_value_t = 60)]
    max_variants: usize,
    /// Timed repetitions per variant (the median is kept).
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Folder for the journal, CSV, SVG and generated files.
    #[arg(long, default_value = "target/tune")]
    out: PathBuf,
    /// Skip every measurement already in the journal.
    #[arg(long)]
    resume: bool,
    /// No GPU: rebuild the CSV, SVG and generated files from the journal.
    #[arg(long)]
    report_only: bool,
    /// The peak.json of `cargo xtask peak` to compare with; without it the
    /// peak is measured at the start of the run and written to
    /// <OUT>/peak.json (--report-only reads that file if there is one).
    #[arg(long, value_name = "FILE")]
    peak: Option<PathBuf>,
    /// Workspace root whose gemm-kernels receives the winners (skipped when
    /// it has none, e.g. on a machine that only carries the binary).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
}

/// The paper's problem size: about 1 GiB of A, B and C, rounded down to a
/// multiple of 256.
pub fn default_size(precision: Precision) -> i64 {
    let elements = (1u64 << 30) / (3 * u64::from(precision.element_bytes()));
    ((elements as f64).sqrt() as i64) / 256 * 256
}

impl Args {
    fn kernel_types(&self) -> Result<Vec<KernelType>> {
        let ops = cli::parse_op_list(&self.op)?;
        Ok(self
            .precision
            .iter()
            .flat_map(|&precision| ops.iter().map(move |&(op_a, op_b)| KernelType { precision, op_a, op_b }))
            .collect())
    }

    fn guidelines(&self, precision: Precision) -> Guidelines {
        let t = Guidelines::table1(precision);
        Guidelines {
            min_threads_per_sm: self.min_threads_per_sm.unwrap_or(t.min_threads_per_sm),
            min_blocks_per_sm: self.min_blocks_per_sm.unwrap_or(t.min_blocks_per_sm),
            min_reuse: self.min_reuse.unwrap_or(t.min_reuse),
            ..t
        }
    }

    fn size(&self, precision: Precision) -> i64 {
        self.size.unwrap_or_else(|| default_size(precision))
    }
}

/// What the run did per kernel type, for the closing table.
#[derive(Default)]
struct Tally {
    /// Survivors of the hard constraints and the guidelines.
    space: u64,
    /// Variants timed or tried this run (0 for --report-only).
    planned: usize,
}

pub fn run(args: Args) -> Result<()> {
    let started = Instant::now();
    let mut journal = Journal::open(&args.out.join("tune.jsonl"))?;
    let types = args.kernel_types()?;
    let mut tallies = BTreeMap::new();
    let (device, machine) = if args.report_only {
        let device = journal
            .records()
            .last()
            .map(|r| r.device.clone())
            .context("--report-only: the journal has no records")?;
        let limits = DeviceLimits::for_arch(&device.arch.to_string())?;
        for &kt in &types {
            let count = space(&args, kt, &limits).count();
            tallies.insert(kt, Tally { space: count.survivors, planned: 0 });
        }
        let peak = peak::for_run(None, args.peak.as_deref(), &args.out)?;
        let machine = bound::machine_for_arch(&device.device, device.arch, peak.as_ref());
        (device, machine)
    } else {
        tune(&args, &types, &mut journal, &mut tallies)?
    };
    report(&args, &journal, &device, machine.as_ref(), &types, &tallies)?;
    println!("wall-clock time: {:.1} min", started.elapsed().as_secs_f64() / 60.0);
    Ok(())
}

fn space(args: &Args, kt: KernelType, limits: &DeviceLimits) -> Space {
    Space::new(kt.precision, kt.op_a, kt.op_b, limits.clone()).with_guidelines(args.guidelines(kt.precision))
}

fn tune(
    args: &Args,
    types: &[KernelType],
    journal: &mut Journal,
    tallies: &mut BTreeMap<KernelType, Tally>,
) -> Result<(DeviceKey, Option<GpuThroughput>)> {
    let gemm = Gemm::open(0)?;
    let cublas = Cublas::new(gemm.stream().clone())?;
    let info = gemm.device();
    let device = DeviceKey {
        device: info.name.clone(),
        arch: info.compute_capability.sm(),
        driver: format!("{}.{}", info.driver_version / 1000, info.driver_version % 1000 / 10),
        generator: gemm_codegen::VERSION.to_owned(),
    };
    let limits = info.device_limits()?;
    println!(
        "tuning on {} (sm_{}, {} SMs, driver {}), generator {}",
        device.device, device.arch, info.sm_count, device.driver, device.generator
    );
    let peak = peak::for_run(Some(&gemm), args.peak.as_deref(), &args.out)?;
    let machine = bound::machine(info, peak.as_ref());
    if let Some(m) = &machine {
        println!("analytic bounds and FMA peaks on {m}");
    }
    let total = types.len() * (args.max_variants + 2);
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} ETA {eta} {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    let mut rng = Random::new(0x7e57);
    let run = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    for precision in Precision::ALL {
        let mine: Vec<KernelType> = types.iter().copied().filter(|t| t.precision == precision).collect();
        if mine.is_empty() {
            continue;
        }
        let mut tuner =
            Tuner { args, gemm: &gemm, cublas: &cublas, device: &device, limits: &limits, bar: &bar, run };
        match precision {
            Precision::F32 => tuner.precision::<f32>(&mine, journal, tallies, &mut rng)?,
            Precision::F64 => tuner.precision::<f64>(&mine, journal, tallies, &mut rng)?,
            Precision::C32 => tuner.precision::<Complex<f32>>(&mine, journal, tallies, &mut rng)?,
            Precision::C64 => tuner.precision::<Complex<f64>>(&mine, journal, tallies, &mut rng)?,
        }
    }
    bar.finish_with_message("done");
    Ok((device, machine))
}

struct Tuner<'a> {
    args: &'a Args,
    gemm: &'a Gemm,
    cublas: &'a Cublas,
    device: &'a DeviceKey,
    limits: &'a DeviceLimits,
    bar: &'a ProgressBar,
    /// This run's id, for its confirmation records.
    run: u64,
}

impl Tuner<'_> {
    fn precision<T: Element>(
        &mut self,
        types: &[KernelType],
        journal: &mut Journal,
        tallies: &mut BTreeMap<KernelType, Tally>,
        rng: &mut Random,
    ) -> Result<()> {
        let n = self.args.size(T::PRECISION);
        let square = |op_a, op_b| GemmConfig::<T>::new(op_a, op_b, n, n, n).alpha(T::ONE).beta(T::ZERO);
        let mut bench = Bench::new(self.gemm, square(Op::N, Op::N), rng)?;
        for &kt in types {
            bench.set_cfg(square(kt.op_a, kt.op_b));
            let size = (n as u64, n as u64, n as u64);
            let space = space(self.args, kt, self.limits);
            let count = space.count();
            let tally = tallies.entry(kt).or_default();
            tally.space = count.survivors;
            self.bar.set_message(format!("{}: cuBLAS", kt.name()));
            let cublas_key = self.record_base(kt, size, Subject::Cublas);
            if !(self.args.resume && journal.contains(&cublas_key.key())) {
                let t = bench.time(self.gemm, self.plan(), |cfg, a, b, c| self.cublas.gemm(cfg, a, b, c))?;
                journal.append(Record { status: Status::Ok, median_ms: Some(t.median_ms), ..cublas_key })?;
            }
            self.bar.inc(1);
            let check = CublasCheck::<T>::new(self.gemm, self.cublas, kt.op_a, kt.op_b, rng)?;

            // Explore: a spread sample, and Table 2.
            let table2 = gemm_kernels::table2(kt.precision, kt.op_a, kt.op_b).spec;
            let explore = self.args.max_variants * 2 / 3;
            let mut planned: Vec<(KernelSpec, bool)> = vec![(table2, true)];
            planned
                .extend(space.sample(explore).into_iter().map(|c| (c.spec, false)).filter(|c| c.0 != table2));
            for &(spec, is_table2) in &planned {
                self.variant(journal, &mut bench, &check, kt, size, spec, is_table2)?;
            }
            // Refine: neighbours of the three fastest so far.
            let refine = self.args.max_variants.saturating_sub(planned.len() - 1);
            let best = fastest(journal.records(), self.device, kt, size, 3);
            let tried: Vec<KernelSpec> = planned.iter().map(|p| p.0).collect();
            let neighbours = neighbours(&space, &best, &tried, refine);
            for &spec in &neighbours {
                self.variant(journal, &mut bench, &check, kt, size, spec, false)?;
            }
            tally.planned = planned.len() + neighbours.len();
            let confirmed = self.confirm(journal, &mut bench, kt, size, table2)?;
            // Also when the bar is hidden (no terminal): device logs show progress.
            let line = match confirmed {
                Some([winner, t2, cublas]) => format!(
                    "{}: {} of {} variants tried; confirmed best {winner:.2} TFLOP/s, Table 2 {t2:.2}, cuBLAS {cublas:.2}",
                    kt.name(),
                    tally.planned,
                    count.survivors,
                ),
                None => format!(
                    "{}: {} of {} variants tried; none verified",
                    kt.name(),
                    tally.planned,
                    count.survivors
                ),
            };
            self.bar.suspend(|| println!("{line}"));
            // Keep the bar's total honest when the space was smaller.
            let unused = (self.args.max_variants + 1).saturating_sub(tally.planned);
            self.bar.inc(unused as u64);
        }
        Ok(())
    }

    fn plan(&self) -> Plan {
        Plan { warmup: 1, reps: self.args.reps.max(1) }
    }

    /// Times the search's winner, the Table 2 configuration and cuBLAS back
    /// to back, with twice the repetitions, and journals them as this run's
    /// confirmation. Returns their TFLOP/s, or `None` if nothing verified.
    fn confirm<T: Element>(
        &self,
        journal: &mut Journal,
        bench: &mut Bench<T>,
        kt: KernelType,
        size: (u64, u64, u64),
        table2: KernelSpec,
    ) -> Result<Option<[f64; 3]>> {
        let Some(&winner) = fastest(journal.records(), self.device, kt, size, 1).first() else {
            return Ok(None);
        };
        let plan = Plan { warmup: 1, reps: 2 * self.args.reps.max(1) };
        let mut rates = [0.0; 3];
        let subjects = [
            Subject::Variant { spec: winner, table2: winner == table2 },
            Subject::Variant { spec: table2, table2: true },
            Subject::Cublas,
        ];
        for (rate, subject) in rates.iter_mut().zip(subjects) {
            self.bar.set_message(format!("{}: confirming", kt.name()));
            let timing = match &subject {
                Subject::Variant { spec, .. } => {
                    let image = gemm_codegen::compile(spec).map_err(|v| anyhow::anyhow!("{}", v[0]))?;
                    let loaded = self.gemm.load(&image)?;
                    bench
                        .time(self.gemm, plan, |cfg, a, b, c| self.gemm.gemm_loaded(&loaded, cfg, a, b, c))?
                }
                Subject::Cublas => {
                    bench.time(self.gemm, plan, |cfg, a, b, c| self.cublas.gemm(cfg, a, b, c))?
                }
            };
            let record = Record {
                phase: Phase::Confirm { run: self.run },
                median_ms: Some(timing.median_ms),
                ..self.record_base(kt, size, subject)
            };
            *rate = record.tflops().unwrap_or(0.0);
            journal.append(record)?;
        }
        Ok(Some(rates))
    }

    fn record_base(&self, kernel_type: KernelType, size: (u64, u64, u64), subject: Subject) -> Record {
        Record {
            device: self.device.clone(),
            kernel_type,
            size,
            subject,
            phase: Phase::Search,
            status: Status::Ok,
            error: None,
            registers: None,
            local_bytes: None,
            shared_bytes: None,
            blocks_per_sm: None,
            median_ms: None,
            rel_error: None,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn variant<T: Element>(
        &self,
        journal: &mut Journal,
        bench: &mut Bench<T>,
        check: &CublasCheck<T>,
        kt: KernelType,
        size: (u64, u64, u64),
        spec: KernelSpec,
        table2: bool,
    ) -> Result<()> {
        let base = self.record_base(kt, size, Subject::Variant { spec, table2 });
        self.bar.inc(1);
        if self.args.resume && journal.contains(&base.key()) {
            return Ok(());
        }
        self.bar.set_message(format!("{}: {}", kt.name(), spec.entry_name()));
        let record = self.measure(bench, check, spec, base);
        let failed_launch = record.status == Status::LaunchFailed;
        journal.append(record)?;
        // A fault in a kernel poisons the CUDA context; other launch errors
        // (resources, configuration) do not. Go on only if the context works.
        if failed_launch && let Err(e) = self.gemm.synchronize() {
            bail!(
                "{}: the CUDA context is unusable after a failed launch ({e}); rerun with --resume",
                spec.entry_name()
            );
        }
        Ok(())
    }

    fn measure<T: Element>(
        &self,
        bench: &mut Bench<T>,
        check: &CublasCheck<T>,
        spec: KernelSpec,
        base: Record,
    ) -> Record {
        let fail = |status, error: String| Record { status, error: Some(error), ..base.clone() };
        let image = match gemm_codegen::compile(&spec) {
            Ok(image) => image,
            Err(v) => {
                return fail(
                    Status::CompileFailed,
                    v.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "),
                );
            }
        };
        let loaded = match self.gemm.load(&image) {
            Ok(k) => k,
            Err(e) => return fail(Status::CompileFailed, e.to_string()),
        };
        let info = loaded.info();
        let base = Record {
            registers: Some(info.registers),
            local_bytes: Some(info.local_bytes),
            shared_bytes: Some(info.shared_bytes),
            blocks_per_sm: Some(info.blocks_per_sm),
            ..base
        };
        let fail = |status, error: String| Record { status, error: Some(error), ..base.clone() };
        if let Err(e) = loaded.launchable() {
            return fail(Status::CannotLaunch, e.to_string());
        }
        // Correct first: the small ragged problem, against cuBLAS.
        let rel = match check.difference(self.gemm, &loaded) {
            Ok(rel) => rel,
            Err(e) => return fail(Status::LaunchFailed, e.to_string()),
        };
        if let Some(why) = CublasCheck::<T>::verdict(rel) {
            return Record { rel_error: Some(rel), ..fail(Status::WrongResult, why) };
        }
        let timing =
            bench.time(self.gemm, self.plan(), |cfg, a, b, c| self.gemm.gemm_loaded(&loaded, cfg, a, b, c));
        match timing {
            Ok(t) => Record { rel_error: Some(rel), median_ms: Some(t.median_ms), ..base },
            Err(e) => fail(Status::LaunchFailed, format!("{e:#}")),
        }
    }
}

/// The `n` fastest verified variants of `kt` at `size` on `device`.
fn fastest(
    records: &[Record],
    device: &DeviceKey,
    kt: KernelType,
    size: (u64, u64, u64),
    n: usize,
) -> Vec<KernelSpec> {
    let mut timed: Vec<(f64, KernelSpec)> = records
        .iter()
        .filter(|r| &r.device == device && r.kernel_type == kt && r.size == size && r.status == Status::Ok)
        .filter(|r| r.phase == Phase::Search)
        .filter_map(|r| match &r.subject {
            Subject::Variant { spec, .. } => Some((r.tflops()?, *spec)),
            Subject::Cublas => None,
        })
        .collect();
    timed.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    timed.dedup_by(|a, b| a.1 == b.1);
    timed.into_iter().take(n).map(|t| t.1).collect()
}

/// How many parameters two specs of one kernel type differ in (each tile
/// and thread dimension, each load shape, `lds_width`, `ldg`).
fn distance(a: &KernelSpec, b: &KernelSpec) -> usize {
    [
        a.m_blk != b.m_blk,
        a.n_blk != b.n_blk,
        a.k_blk != b.k_blk,
        a.m_dim != b.m_dim,
        a.n_dim != b.n_dim,
        a.load_a != b.load_a,
        a.load_b != b.load_b,
        a.lds_width != b.lds_width,
        a.ldg != b.ldg,
    ]
    .iter()
    .filter(|&&d| d)
    .count()
}

/// Up to `n` untried specs of the space one parameter away from the best
/// ones, dealt round-robin from the fastest down.
fn neighbours(space: &Space, best: &[KernelSpec], tried: &[KernelSpec], n: usize) -> Vec<KernelSpec> {
    if best.is_empty() || n == 0 {
        return Vec::new();
    }
    let mut per_best: Vec<Vec<KernelSpec>> = vec![Vec::new(); best.len()];
    for c in space.iter() {
        if tried.contains(&c.spec) {
            continue;
        }
        if let Some(i) = best.iter().position(|b| distance(b, &c.spec) == 1) {
            per_best[i].push(c.spec);
        }
    }
    let mut out = Vec::new();
    let mut round = 0;
    while out.len() < n && per_best.iter().any(|v| round < v.len()) {
        for v in &per_best {
            if out.len() < n
                && let Some(&s) = v.get(round)
                && !out.contains(&s)
            {
                out.push(s);
            }
        }
        round += 1;
    }
    out
}

fn report(
    args: &Args,
    journal: &Journal,
    device: &DeviceKey,
    machine: Option<&GpuThroughput>,
    types: &[KernelType],
    tallies: &BTreeMap<KernelType, Tally>,
) -> Result<()> {
    let records: Vec<&Record> = journal.records().iter().filter(|r| &r.device == device).collect();
    std::fs::create_dir_all(&args.out)?;
    std::fs::write(args.out.join("tune.csv"), report::csv(&records, machine))?;
    let title = format!("{} (sm_{}): TFLOP/s of every tuned variant", device.device, device.arch);
    report::svg(&records, &title, &args.out.join("tune.svg"))?;

    let all: Vec<Record> = records.iter().map(|&r| r.clone()).collect();
    let winners = winners::select(&all, device, |p| {
        let n = args.size(p) as u64;
        (n, n, n)
    });
    let family = winners::render_family(device, &winners);
    let file = format!("sm_{}.rs", device.arch);
    let tuned = args.repo.join("gemm-kernels/src/tuned");
    if winners.is_empty() {
        println!("no verified variant: nothing to write back");
    } else if tuned.is_dir() {
        std::fs::write(tuned.join(&file), &family)?;
        let archs = families(&tuned)?;
        std::fs::write(tuned.join("families.rs"), winners::render_families(&archs))?;
        println!("wrote {} and families.rs", tuned.join(&file).display());
    } else {
        // Only the binary travelled (a GPU machine without the sources):
        // keep the file with the journal.
        std::fs::write(args.out.join(&file), &family)?;
        println!("wrote {} (no gemm-kernels under {})", args.out.join(&file).display(), args.repo.display());
    }
    summary(&records, device, machine, types, tallies, &winners);
    Ok(())
}

/// The compute capabilities that have a generated file in `dir`.
fn families(dir: &Path) -> Result<Vec<u32>> {
    let mut archs = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name();
        let name = name.to_string_lossy();
        if let Some(arch) =
            name.strip_prefix("sm_").and_then(|n| n.strip_suffix(".rs")).and_then(|n| n.parse().ok())
        {
            archs.push(arch);
        }
    }
    archs.sort_unstable();
    Ok(archs)
}

fn summary(
    records: &[&Record],
    device: &DeviceKey,
    machine: Option<&GpuThroughput>,
    types: &[KernelType],
    tallies: &BTreeMap<KernelType, Tally>,
    winners: &[winners::Winner],
) {
    println!(
        "\n{} (sm_{}), driver {}, generator {}",
        device.device, device.arch, device.driver, device.generator
    );
    println!(
        "{:<9} {:>11} {:>9} {:>5} {:>6} {:>8} {:>8} {:>8} {:>6} {:>8} {:>6}  winner",
        "type", "size", "space", "run", "failed", "winner", "Table 2", "cuBLAS", "ratio", "bound", "%peak"
    );
    for kt in types {
        let mine: Vec<&&Record> = records
            .iter()
            .filter(|r| r.kernel_type == *kt && r.phase == Phase::Search)
            .filter(|r| matches!(r.subject, Subject::Variant { .. }))
            .collect();
        let failed = mine.iter().filter(|r| r.status != Status::Ok).count();
        let tally = tallies.get(kt);
        let w = winners.iter().find(|w| w.kernel_type == *kt);
        let fmt = |x: Option<f64>| x.map_or("-".to_owned(), |x| format!("{x:.2}"));
        let kb = w.map(|w| KernelBound::of_spec(&w.spec, machine, None)).unwrap_or_default();
        println!(
            "{:<9} {:>11} {:>9} {:>5} {:>6} {:>8} {:>8} {:>8} {:>6} {:>8} {:>6}  {}",
            kt.name(),
            w.map_or("-".to_owned(), |w| format!("{}^3", w.size.0)),
            tally.map_or("-".to_owned(), |t| t.space.to_string()),
            mine.len(),
            failed,
            fmt(w.map(|w| w.tflops)),
            fmt(w.and_then(|w| w.table2_tflops)),
            fmt(w.and_then(|w| w.cublas_tflops)),
            fmt(w.and_then(|w| Some(w.tflops / w.cublas_tflops?))),
            fmt(kb.bound.as_ref().map(|b| b.tflops)),
            kb.pct_of_peak(w.map(|w| w.tflops)).map_or("-".to_owned(), |p| format!("{p:.1}")),
            w.map_or(String::new(), |w| w.spec.to_invocation_body()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::record::tests::{device, record, spec};
    use super::*;

    #[test]
    fn default_sizes_hold_about_a_gibibyte() {
        for p in Precision::ALL {
            let n = default_size(p) as f64;
            let bytes = 3.0 * n * n * f64::from(p.element_bytes());
            assert!(bytes <= f64::from(1u32 << 30) && bytes > 0.85 * f64::from(1u32 << 30), "{p}: {n}");
        }
        assert_eq!(default_size(Precision::F32), 9216);
    }

    #[test]
    fn distance_counts_differing_parameters() {
        let a = spec(64);
        assert_eq!(distance(&a, &a), 0);
        assert_eq!(distance(&a, &KernelSpec { lds_width: 2, ..a }), 1);
        assert_eq!(distance(&a, &KernelSpec { k_blk: 8, m_blk: 32, ..a }), 2);
    }

    #[test]
    fn fastest_ranks_verified_timed_variants_of_the_type() {
        let mut slow = record(spec(32), 4.0);
        slow.kernel_type.op_a = Op::N;
        let mut wrong = record(spec(128), 0.5);
        wrong.status = Status::WrongResult;
        let records = [record(spec(64), 1.0), slow, wrong, record(spec(96), 2.0)];
        let kt = records[0].kernel_type;
        assert_eq!(fastest(&records, &device(), kt, (1024, 1024, 1024), 2), vec![spec(64), spec(96)]);
    }

    #[test]
    fn neighbours_are_one_step_away_and_untried() {
        let limits = DeviceLimits::for_arch("sm_90").unwrap();
        let space = Space::new(Precision::F32, Op::N, Op::N, limits)
            .with_guidelines(Guidelines::table1(Precision::F32));
        let best = space.sample(1)[0].spec;
        let found = neighbours(&space, &[best], &[best], 20);
        assert!(!found.is_empty());
        assert!(found.iter().all(|s| distance(s, &best) == 1 && space.contains(s) && *s != best));
    }
}
