//! `cargo xtask tune`: the autotuner of Sections 5.3 and 6 of Kurzak, Tomov
//! and Dongarra — enumerate the pruned search space, benchmark the best
//! candidates against cuBLAS within a GPU-time budget, keep the fastest,
//! and write the winners back into `gemm-kernels` as `gemm_kernel!`
//! invocations.
//!
//! Per kernel type (a precision and a pair of ops):
//! 1. the space of the GPU's architecture with the pipeline parameters
//!    (`stages`, `ldg_width`, `warps`, `raster`; [`Space::for_tuning`])
//!    under its real limits (opt-in shared memory) and the guidelines
//!    ([`Guidelines::pipelined`] unless given), counted;
//! 2. **prune** without a GPU ([`prune`]): a spread sample and the
//!    pipelines of its best tiles, ranked by the analytic bound, spilling
//!    kernels dropped by `ptxas`'s report; cached in `<out>/candidates/`
//!    (`--prune-only --arch sm_90` fills the cache on a machine without a
//!    GPU);
//! 3. **successive halving** ([`halving`]): the first candidates timed on a
//!    small problem (`--small-size`, 4096), the fastest quarter of them and
//!    the Table 2 configuration on the full-size problem; how many is
//!    planned from the bounds so that the type fits its share of
//!    `--gpu-minutes` (25 for all 16 types);
//! 4. each variant is compiled, JIT-loaded (its real registers, spills,
//!    shared memory and occupancy read back), dropped if it cannot launch,
//!    checked against cuBLAS on a small ragged problem (a wrong kernel is
//!    never a winner), and timed with CUDA events as a default call runs
//!    it: with K split as gemm-host's dispatch splits it for the kernel
//!    (`SplitRule::Auto`, one slice unless K is long and the kernel's tiles
//!    leave the GPU idle: a large-K class is tuned with its split); cuBLAS
//!    is timed under the same harness at both sizes;
//! 5. **confirm**: the winner, the Table 2 configuration and cuBLAS are timed
//!    again, back to back with twice the repetitions; the summary and the
//!    generated file report these rates;
//! 6. **split**: a winner whose tiles fill less than one wave of the GPU is
//!    timed unsplit and with K split 2, 3 and 4 ways, back to back; a split
//!    faster by more than 2% becomes its class's (`KernelEntry::split` in
//!    the generated file). `--split-only` runs this step alone for every
//!    class the journal confirmed.
//!
//! Every measurement is appended to `<out>/tune.jsonl` (or to a compressed
//! `tune.jsonl.gz` there, see [`record::Journal`]) as it finishes, with
//! the GPU seconds it took. `--budget-minutes` stops a call before the
//! measurement that would overrun it; the next call with `--resume` plans
//! the same measurements and skips the journaled ones ([`budget`]). At the
//! end: `tune.csv`, `tune.svg`, the GPU time per type, and the winners as
//! `gemm-kernels/src/tuned/sm_XY.rs` (in `<out>` when no gemm-kernels is at
//! hand). The CSV and the closing table set each variant beside the
//! analytic bound of its own loop and the FMA peak (measured at the start
//! of the run, or `--peak FILE`; see `cargo xtask peak`).
//! `--report-only` redoes the end from the journal, without a GPU.

pub mod budget;
mod candidates;
mod closing;
mod confirm;
pub mod halving;
pub mod prune;
pub mod record;
pub mod report;
pub mod winners;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use gemm_codegen::bound::GpuThroughput;
use gemm_codegen::space::Guidelines;
use gemm_codegen::{DeviceLimits, Element, KernelImage, KernelSpec, Op, Precision};
use gemm_host::cublas::Cublas;
use gemm_host::num_complex::Complex;
use gemm_host::reference::Random;
use gemm_host::{Gemm, GemmConfig, GemmError, LoadedKernel};

use self::budget::{Budget, Job, Outcome, run_jobs};
use self::candidates::{candidates, space};
use self::closing::{gpu_seconds, print_gpu_time, report};
use self::halving::{Costs, Problem};
use self::prune::Ranked;
use self::record::{DeviceKey, Journal, KernelType, Phase, Record, Shape, Status, Subject};
use crate::bound;
use crate::cli;
use crate::measure::{Bench, CublasCheck, Plan};
use crate::peak;

#[derive(clap::Args)]
pub struct Args {
    /// Precisions to tune, in this order: s, d, c, z.
    #[arg(long, value_delimiter = ',', default_value = "s,d,c,z", value_parser = cli::parse_precision)]
    precision: Vec<Precision>,
    /// Op pairs to tune (`transposes` = nn, nt, tn, tt; conjugate types reuse
    /// their transpose pattern's winner).
    #[arg(long, value_delimiter = ',', default_value = "transposes")]
    op: Vec<String>,
    /// m = n = k of the full-size problem (default: about 1 GiB of A, B and C
    /// per GEMM, as in the paper; per precision).
    #[arg(long)]
    size: Option<i64>,
    /// m = n = k of the first, small round of successive halving.
    #[arg(long, default_value_t = 4096)]
    small_size: i64,
    /// Tune at the problem `m,n,k` instead of a square (both rounds; e.g.
    /// `8192,8192,64` for the skinny-K class): the winners ship beside those
    /// of the other shapes tuned, each for the calls nearest it.
    #[arg(long, value_name = "M,N,K", conflicts_with_all = ["size", "small_size"], value_parser = parse_shape)]
    shape: Option<Shape>,
    /// Time the update `C = C − A·B` (`alpha = −1`, `beta = 1`, reading C:
    /// the LU trailing update `xtask bench`'s skinny sweep times) instead of
    /// `C = A·B`; for a skinny `--shape`, where C's traffic is most of the
    /// time. A journal holds one form per shape and type.
    #[arg(long)]
    update: bool,
    /// Time every candidate on a packed batch of COUNT problems of
    /// `--shape` in one call (`Gemm::gemm_strided_batched`, against
    /// cuBLAS's strided-batched GEMM): the winners form a batch class of
    /// their own, for small problems that come many at a time.
    #[arg(long, value_name = "COUNT", requires = "shape", value_parser = clap::value_parser!(u64).range(1..))]
    batch: Option<u64>,
    /// Minimum resident threads per SM (default: Table 1's 512).
    #[arg(long)]
    min_threads_per_sm: Option<u32>,
    /// Minimum resident blocks per SM (default: Table 1's 2).
    #[arg(long)]
    min_blocks_per_sm: Option<u32>,
    /// Minimum resident threads per SM of a cp.async ring kernel (default 256).
    #[arg(long)]
    min_threads_per_sm_ring: Option<u32>,
    /// Minimum resident blocks per SM of a cp.async ring kernel (default 1).
    #[arg(long)]
    min_blocks_per_sm_ring: Option<u32>,
    /// Minimum register reuse (default: Table 1's, per precision).
    #[arg(long)]
    min_reuse: Option<f64>,
    /// Most candidates timed on the small problem per kernel type, besides
    /// the seeds and the `interleave` siblings of the best-ranked rings.
    #[arg(long, default_value_t = 48)]
    max_variants: usize,
    /// Follow this many best-ranked candidates, the shipped kernel of the
    /// class tuned and the `--seed` specs by their siblings that read old C
    /// in groups of 2, 4, 8 … columns (`c_batch`): for calls that read C
    /// with a short K, where the epilogue's round trips to memory are in
    /// the way. Needs `--update`: timed as `C = A·B`, C is never read and
    /// the siblings differ by noise alone (`tuning/sm_90-classes`, call 20).
    #[arg(long, default_value_t = 0, requires = "update")]
    c_batched: usize,
    /// One in this many small-problem candidates goes on to the full size.
    #[arg(long, default_value_t = 4)]
    eta: usize,
    /// Specs of the spread sample that pruning bounds per kernel type.
    #[arg(long, default_value_t = 400)]
    sample: usize,
    /// GPU minutes for all the kernel types tuned, split evenly among them
    /// (across calls: the journal keeps what each type spent).
    #[arg(long, default_value_t = 25.0)]
    gpu_minutes: f64,
    /// Stop this call before it has run this many minutes (rerun with
    /// --resume to go on).
    #[arg(long)]
    budget_minutes: Option<f64>,
    /// Timed repetitions per variant (the median is kept).
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Folder for the journal, candidates, CSV, SVG and generated files.
    #[arg(long, default_value = "target/tune")]
    out: PathBuf,
    /// Skip every measurement already in the journal.
    #[arg(long)]
    resume: bool,
    /// No GPU: rebuild the CSV, SVG and generated files from the journal.
    #[arg(long)]
    report_only: bool,
    /// No GPU: prune the space of --arch and cache the candidates in <OUT>.
    #[arg(long, requires = "arch")]
    prune_only: bool,
    /// No search: time the winner of every class the journal in <OUT>
    /// confirmed (of the --precision and --op types; at --shape only, if
    /// given) with K split 2, 3 and 4 ways where its tiles leave the GPU
    /// idle, as a tune does after each confirmation: the classes' splits.
    #[arg(long, conflicts_with_all = ["report_only", "prune_only", "batch"])]
    split_only: bool,
    /// A spec (in `gemm_kernel!` syntax) always timed for its kernel type,
    /// beside Table 2's and the shipped one: a measured winner the sample
    /// may miss. Repeat for more.
    #[arg(long, value_name = "SPEC")]
    seed: Vec<KernelSpec>,
    /// Also search `math = tf32x3` (three TF32 tensor-core products per
    /// product) for f32 and c32: 1.4–1.9× cuBLAS SGEMM's componentwise
    /// error on the H100 (`tuning/sm_90-tf32`); off by default until a tune
    /// shows it ahead of the FMA kernels.
    #[arg(long)]
    tf32x3: bool,
    /// Also search Hopper's warpgroup `wgmma` for f32 and c32 on sm_90
    /// (`math = tf32x3`, `mma = (64, 64, 8)` and, for f32, `(64, 128, 8)`,
    /// `arch = sm_90a`): the large squares' kernels are hand-written ones
    /// of this family (`tuning/sm_90-wgmma`); this lets the tuner try its
    /// smaller tiles.
    #[arg(long)]
    wgmma: bool,
    /// Also time the stream-K twin (`schedule = stream_k`: as many blocks
    /// as the GPU holds, each an equal share of every tile's stripes) of
    /// every seed — the shipped kernels of the type, Table 2's and
    /// `--seed`s: the schedule that lifts large tiles at shapes with few
    /// waves of them (`tuning/sm_90-stream-k`).
    #[arg(long)]
    stream_k: bool,
    /// With --prune-only: the GPU architecture (sm_90, 90, 9.0).
    #[arg(long)]
    arch: Option<String>,
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

/// `m,n,k` of `--shape`, each at least 1.
fn parse_shape(s: &str) -> Result<Shape> {
    let dims: Vec<u64> = s
        .split(',')
        .map(|d| d.trim().parse::<u64>().with_context(|| format!("{d:?} is not a dimension")))
        .collect::<Result<_>>()?;
    match dims[..] {
        [m, n, k] if m > 0 && n > 0 && k > 0 => Ok((m, n, k)),
        _ => bail!("--shape takes three positive dimensions m,n,k, not {s:?}"),
    }
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
        let t = Guidelines::pipelined(precision);
        Guidelines {
            min_threads_per_sm: self.min_threads_per_sm.unwrap_or(t.min_threads_per_sm),
            min_blocks_per_sm: self.min_blocks_per_sm.unwrap_or(t.min_blocks_per_sm),
            min_reuse: self.min_reuse.unwrap_or(t.min_reuse),
            min_threads_per_sm_ring: self.min_threads_per_sm_ring.unwrap_or(t.min_threads_per_sm_ring),
            min_blocks_per_sm_ring: self.min_blocks_per_sm_ring.unwrap_or(t.min_blocks_per_sm_ring),
        }
    }

    /// The full-size problem of `precision`'s types.
    fn shape(&self, precision: Precision) -> Shape {
        self.shape.unwrap_or_else(|| {
            let n = self.size.unwrap_or_else(|| default_size(precision)).max(1) as u64;
            (n, n, n)
        })
    }

    /// The problem of the first round: `--small-size` squared, or the
    /// `--shape` itself.
    fn small_shape(&self, precision: Precision) -> Shape {
        match self.shape {
            Some(shape) => shape,
            None => {
                let n = self.small_size.clamp(1, self.shape(precision).0 as i64) as u64;
                (n, n, n)
            }
        }
    }

    fn prune_config(&self, precision: Precision) -> prune::Config {
        let shape = self.shape(precision);
        prune::Config {
            sample: self.sample,
            top_tiles: 8,
            per_tile: 4,
            interleaved: 24,
            c_batched: self.c_batched,
            keep: self.max_variants,
            shape,
            problems: self.batch.unwrap_or(1),
        }
    }

    fn costs(&self) -> Costs {
        Costs { overhead_s: 0.5, launches: self.plan().warmup + self.plan().reps, efficiency: 0.5 }
    }

    fn plan(&self) -> Plan {
        Plan { warmup: 1, reps: self.reps.max(1) }
    }

    /// GPU seconds per kernel type.
    fn type_budget_s(&self, types: usize) -> f64 {
        self.gpu_minutes * 60.0 / types.max(1) as f64
    }
}

/// What the run did per kernel type, for the closing table.
#[derive(Default)]
struct Tally {
    /// Survivors of the hard constraints and the guidelines.
    space: u64,
}

pub fn run(args: Args) -> Result<()> {
    let started = Instant::now();
    let types = args.kernel_types()?;
    for spec in &args.seed {
        if let Err(violations) = gemm_codegen::validate(spec) {
            let why = violations.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
            bail!("--seed `{spec}` is not a legal kernel: {why}");
        }
    }
    if args.prune_only {
        return prune_only(&args, &types);
    }
    let mut journal = Journal::open(&args.out.join("tune.jsonl"))?;
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
            tallies.insert(kt, Tally { space: count.survivors });
        }
        let peak = peak::for_run(None, args.peak.as_deref(), &args.out)?;
        let machine = bound::machine_for_arch(&device.device, device.arch, peak.as_ref());
        (device, machine)
    } else {
        match tune(&args, &types, &mut journal, &mut tallies, started)? {
            Some(done) => done,
            None => return Ok(()),
        }
    };
    report(&args, &journal, &device, machine.as_ref(), &types, &tallies)?;
    println!("wall-clock time: {:.1} min", started.elapsed().as_secs_f64() / 60.0);
    Ok(())
}

/// The candidates of the first round, in the order they are timed: the
/// seeds (the kernels that ship and Table 2's: the bar the search must
/// beat, so a type whose budget runs out in the round still has them
/// timed), then the best `small` of the others in rank order.
fn round_one(ranked: &[Ranked], small: usize) -> Vec<&Ranked> {
    let seeds = ranked.iter().filter(|r| r.seed);
    seeds.chain(ranked.iter().filter(|r| !r.seed).take(small)).collect()
}

/// The precisions of `types` in the order `--precision` named them: a call
/// cut by its time limit has tuned the precisions its caller put first.
fn precision_order(types: &[KernelType]) -> Vec<Precision> {
    let mut order: Vec<Precision> = Vec::new();
    for t in types {
        if !order.contains(&t.precision) {
            order.push(t.precision);
        }
    }
    order
}

fn prune_only(args: &Args, types: &[KernelType]) -> Result<()> {
    let arch = args.arch.as_deref().context("--prune-only needs --arch")?;
    let limits = DeviceLimits::for_arch(arch)?;
    for &kt in types {
        candidates(args, kt, &limits, &limits.driver.name)?;
    }
    println!("candidates cached in {}", args.out.join("candidates").display());
    Ok(())
}

/// Tunes every type; `None` when the call's budget ran out first.
fn tune(
    args: &Args,
    types: &[KernelType],
    journal: &mut Journal,
    tallies: &mut BTreeMap<KernelType, Tally>,
    started: Instant,
) -> Result<Option<(DeviceKey, Option<GpuThroughput>)>> {
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
    let mut rng = Random::new(0x7e57);
    let run = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let call = Budget::new(args.budget_minutes.map(|m| m * 60.0), 0.0);
    let mut tuner = Tuner {
        args,
        gemm: &gemm,
        cublas: &cublas,
        device: &device,
        limits: &limits,
        run,
        call,
        started,
        type_budget_s: args.type_budget_s(types.len()),
    };
    for precision in precision_order(types) {
        let mine: Vec<KernelType> = types.iter().copied().filter(|t| t.precision == precision).collect();
        let finished = match (precision, args.split_only) {
            (Precision::F32, false) => tuner.precision::<f32>(&mine, journal, tallies, &mut rng)?,
            (Precision::F64, false) => tuner.precision::<f64>(&mine, journal, tallies, &mut rng)?,
            (Precision::C32, false) => tuner.precision::<Complex<f32>>(&mine, journal, tallies, &mut rng)?,
            (Precision::C64, false) => tuner.precision::<Complex<f64>>(&mine, journal, tallies, &mut rng)?,
            (Precision::F32, true) => tuner.split_classes::<f32>(&mine, journal, &mut rng)?,
            (Precision::F64, true) => tuner.split_classes::<f64>(&mine, journal, &mut rng)?,
            (Precision::C32, true) => tuner.split_classes::<Complex<f32>>(&mine, journal, &mut rng)?,
            (Precision::C64, true) => tuner.split_classes::<Complex<f64>>(&mine, journal, &mut rng)?,
            (Precision::F16 | Precision::Bf16, _) => {
                anyhow::bail!("the tuner's space has no {precision} kernels (its types are the BLAS four)")
            }
        };
        if !finished {
            println!(
                "stopped at --budget-minutes after {:.1} min; rerun with --resume to go on",
                started.elapsed().as_secs_f64() / 60.0
            );
            print_gpu_time(journal.records(), &device, types);
            return Ok(None);
        }
    }
    Ok(Some((device, machine)))
}

struct Tuner<'a> {
    args: &'a Args,
    gemm: &'a Gemm,
    cublas: &'a Cublas,
    device: &'a DeviceKey,
    limits: &'a DeviceLimits,
    /// This run's id, for its confirmation records.
    run: u64,
    /// This call's budget.
    call: Budget,
    /// When this call started (its budget counts from there).
    started: Instant,
    /// GPU seconds per kernel type.
    type_budget_s: f64,
}

/// What a job measures: a variant or cuBLAS, at one shape.
#[derive(Clone, Copy)]
struct Work {
    subject: Option<(KernelSpec, bool)>,
    shape: Shape,
}

impl Tuner<'_> {
    /// Tunes the types of one precision; `false` when the call's budget ran
    /// out.
    fn precision<T: Element>(
        &mut self,
        types: &[KernelType],
        journal: &mut Journal,
        tallies: &mut BTreeMap<KernelType, Tally>,
        rng: &mut Random,
    ) -> Result<bool> {
        let n = self.args.shape(T::PRECISION);
        let small = self.args.small_shape(T::PRECISION);
        let minus_one = gemm_host::reference::narrow::<T>(Complex::new(-1.0, 0.0));
        let (alpha, beta) = if self.args.update { (minus_one, T::ONE) } else { (T::ONE, T::ZERO) };
        let problem = |op_a, op_b, (m, n, k): Shape| {
            GemmConfig::<T>::new(op_a, op_b, m as i64, n as i64, k as i64).alpha(alpha).beta(beta)
        };
        let count = self.args.batch.unwrap_or(1);
        let mut bench = Bench::new_batch(self.gemm, problem(Op::N, Op::N, n), count as usize, rng)?;
        for &kt in types {
            let space = space(self.args, kt, self.limits);
            tallies.entry(kt).or_default().space = space.count().survivors;
            let ranked = candidates(self.args, kt, self.limits, &self.device.device)?;
            let check = CublasCheck::<T>::new(self.gemm, self.cublas, kt.op_a, kt.op_b, rng)?;
            let table2 = gemm_kernels::table2(kt.precision, kt.op_a, kt.op_b).spec;
            let flops = |(m, n, k): Shape| {
                count as f64 * kt.precision.flops_per_fma() as f64 * m as f64 * n as f64 * k as f64
            };
            let costs = self.args.costs();
            let top = ranked.first().map_or(1.0, |r| r.bound_tflops);
            // cuBLAS at both sizes, the confirmation (three at twice the reps).
            let fixed_s = costs.seconds(flops(small), top)
                + costs.seconds(flops(n), top)
                + 3.0 * 2.0 * costs.seconds(flops(n), top);
            let bounds: Vec<f64> = ranked.iter().map(|r| r.bound_tflops).collect();
            let halving = halving::plan(
                &Problem {
                    bounds: &bounds,
                    flops: (flops(small), flops(n)),
                    budget_s: self.type_budget_s,
                    fixed_s,
                    eta: self.args.eta,
                    // Pruning kept `max_variants` besides the interleave
                    // siblings and the seeds: all of them may run.
                    max_small: ranked.len(),
                },
                &costs,
            );
            // Round 1: cuBLAS and the first candidates on the small problem,
            // within the type's budget less what round 2 and the
            // confirmation are expected to take.
            let first = round_one(&ranked, halving.small);
            let slowest_full =
                first.iter().map(|r| costs.seconds(flops(n), r.bound_tflops)).fold(0.0, f64::max);
            let reserve_s = (halving.full + 1) as f64 * slowest_full + costs.seconds(flops(n), top);
            let spent = gpu_seconds(journal.records(), self.device, kt);
            let mut kind = Budget::new(Some(self.type_budget_s - reserve_s), spent);
            let mut jobs =
                vec![self.job(kt, Work { subject: None, shape: small }, costs.seconds(flops(small), top))];
            jobs.extend(first.iter().map(|r| {
                self.job(
                    kt,
                    Work { subject: Some((r.spec, r.spec == table2)), shape: small },
                    costs.seconds(flops(small), r.bound_tflops),
                )
            }));
            bench.set_cfg(problem(kt.op_a, kt.op_b, small));
            if !self.round(kt, &jobs, journal, &mut kind, &mut bench, &check)? {
                return Ok(false);
            }
            // Round 2: the fastest of round 1, and Table 2, at full size.
            let measured: Vec<(usize, Option<f64>)> = first
                .iter()
                .enumerate()
                .map(|(i, r)| (i, self.search_tflops(journal, kt, r.spec, small)))
                .collect();
            let mut second: Vec<KernelSpec> =
                halving::survivors(&measured, halving.full).into_iter().map(|i| first[i].spec).collect();
            if !second.contains(&table2) {
                second.push(table2);
            }
            let bound_of =
                |s: &KernelSpec| ranked.iter().find(|r| r.spec == *s).map_or(top, |r| r.bound_tflops);
            let mut jobs = vec![self.job(kt, Work { subject: None, shape: n }, costs.seconds(flops(n), top))];
            jobs.extend(second.iter().map(|&s| {
                self.job(
                    kt,
                    Work { subject: Some((s, s == table2)), shape: n },
                    costs.seconds(flops(n), bound_of(&s)),
                )
            }));
            bench.set_cfg(problem(kt.op_a, kt.op_b, n));
            let spent = gpu_seconds(journal.records(), self.device, kt);
            let mut kind = Budget::new(Some(self.type_budget_s), spent);
            if !self.round(kt, &jobs, journal, &mut kind, &mut bench, &check)? {
                return Ok(false);
            }
            let confirmed =
                self.confirm(journal, &mut bench, kt, n, table2, 3.0 * 2.0 * costs.seconds(flops(n), top))?;
            let Some(confirmed) = confirmed else { return Ok(false) };
            let split_s = 3.0 * 2.0 * costs.seconds(flops(n), top);
            if confirmed.is_some() && !self.split(journal, &mut bench, (kt, table2), n, split_s)? {
                return Ok(false);
            }
            let spent = gpu_seconds(journal.records(), self.device, kt);
            let line = match confirmed {
                Some([winner, t2, cublas]) => format!(
                    "{}: {} small, {} full of {} candidates ({} in the space), {spent:.0} s GPU; \
                     confirmed best {winner:.2} TFLOP/s, Table 2 {t2:.2}, cuBLAS {cublas:.2}",
                    kt.name(),
                    first.len(),
                    second.len(),
                    ranked.len(),
                    tallies[&kt].space,
                ),
                None => format!("{}: nothing verified ({spent:.0} s GPU)", kt.name()),
            };
            println!("{line}");
        }
        Ok(true)
    }

    /// Runs one round's jobs; `false` when the call's budget ran out (a
    /// type whose budget runs out goes on to its next round).
    fn round<T: Element>(
        &mut self,
        kt: KernelType,
        jobs: &[Job<Work>],
        journal: &mut Journal,
        kind: &mut Budget,
        bench: &mut Bench<T>,
        check: &CublasCheck<T>,
    ) -> Result<bool> {
        self.call.used_s = self.started.elapsed().as_secs_f64();
        let mut call = self.call;
        let gemm = self.gemm;
        let outcome = run_jobs(
            jobs,
            self.args.resume,
            journal,
            (&mut call, kind),
            |&work| Ok(self.measure_work(kt, work, bench, check)),
            // A fault in a kernel poisons the CUDA context; other launch
            // errors (resources, configuration) do not. Go on only if the
            // context works.
            |record| match (record.status, &record.subject) {
                (Status::LaunchFailed, Subject::Variant { spec, .. }) => gemm.synchronize().map_err(|e| {
                    anyhow::anyhow!(
                        "{}: the CUDA context is unusable after a failed launch ({e}); rerun with --resume",
                        spec.entry_name()
                    )
                }),
                _ => Ok(()),
            },
        )?;
        self.call = call;
        match outcome {
            Outcome::Done => Ok(true),
            Outcome::TypeBudget { left } => {
                println!("{}: its GPU budget is spent; {left} measurements of this round skipped", kt.name());
                Ok(true)
            }
            Outcome::CallBudget { left } => {
                println!("{}: {left} measurements left for the next call", kt.name());
                Ok(false)
            }
        }
    }

    fn job(&self, kt: KernelType, work: Work, estimate_s: f64) -> Job<Work> {
        Job { key: self.work_record(kt, work).key(), estimate_s, what: work }
    }

    fn work_record(&self, kt: KernelType, work: Work) -> Record {
        let subject = match work.subject {
            Some((spec, table2)) => Subject::Variant { spec, table2 },
            None => Subject::Cublas,
        };
        self.record_base(kt, work.shape, subject)
    }

    /// Measures one job, with the GPU seconds it took.
    fn measure_work<T: Element>(
        &self,
        kt: KernelType,
        work: Work,
        bench: &mut Bench<T>,
        check: &CublasCheck<T>,
    ) -> Record {
        let started = Instant::now();
        let base = self.work_record(kt, work);
        let record = match work.subject {
            Some((spec, _)) => self.measure(bench, check, spec, base),
            None => match bench.time_cublas(self.gemm, self.args.plan(), self.cublas) {
                Ok(t) => Record { median_ms: Some(t.median_ms), ..base },
                Err(e) => Record { status: Status::LaunchFailed, error: Some(format!("{e:#}")), ..base },
            },
        };
        Record { gpu_s: Some(started.elapsed().as_secs_f64()), ..record }
    }

    /// TFLOP/s of `spec`'s search record at `size` (in this run's form and
    /// batch), if it verified and timed.
    fn search_tflops(&self, journal: &Journal, kt: KernelType, spec: KernelSpec, size: Shape) -> Option<f64> {
        let class = self.record_base(kt, size, Subject::Cublas).class();
        journal
            .records()
            .iter()
            .filter(|r| r.class() == class)
            .filter(|r| r.phase == Phase::Search && r.status == Status::Ok)
            .filter(|r| matches!(&r.subject, Subject::Variant { spec: s, .. } if *s == spec))
            .filter_map(Record::tflops)
            .reduce(f64::max)
    }

    /// Loads a candidate of `kt` from the cubin its pruning assembled, else
    /// through the driver's JIT (seconds per large kernel).
    fn load(&self, kt: KernelType, image: &KernelImage) -> Result<Arc<LoadedKernel>, GemmError> {
        match std::fs::read(prune::cubin_path(&prune::cubin_dir(&self.args.out, kt), image)) {
            Ok(cubin) => self.gemm.load_assembled(image, &cubin),
            Err(_) => self.gemm.load(image),
        }
    }

    fn record_base(&self, kernel_type: KernelType, size: (u64, u64, u64), subject: Subject) -> Record {
        Record {
            device: self.device.clone(),
            kernel_type,
            size,
            update: self.args.update,
            batch: self.args.batch,
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
            gpu_s: None,
        }
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
        let loaded = match self.load(base.kernel_type, &image) {
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
        if let Some(why) = check.verdict(rel, spec.math) {
            return Record { rel_error: Some(rel), ..fail(Status::WrongResult, why) };
        }
        let timing = self.time_ours(bench, self.args.plan(), &loaded);
        match timing {
            Ok(t) => Record { rel_error: Some(rel), median_ms: Some(t.median_ms), ..base },
            Err(e) => fail(Status::LaunchFailed, format!("{e:#}")),
        }
    }
}

#[cfg(test)]
mod tests;
