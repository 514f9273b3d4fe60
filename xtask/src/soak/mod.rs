//! `cargo xtask soak --minutes N`: random GEMMs from several host threads
//! at once for N minutes, each checked, with the process's and the
//! device's memory watched.
//!
//! Each of `--threads` workers gets its own stream of the one context
//! (`Gemm::with_stream`: the runners share the loaded kernels, each has its
//! own split-K workspace) and a cuBLAS handle on it, and draws calls from
//! its own seeded generator ([`call::Draw`]: precision, ops, layout, ragged
//! to skewed shapes up to `--max-size`, leading-dimension gaps, `alpha` and
//! `beta` from {0, 1, random} with C NaN-poisoned for `beta = 0`, and
//! sometimes a strided batch or an explicit split K). Each call runs
//! through the default dispatch and through cuBLAS on the same inputs and
//! is checked ([`exec`]: the whole `f64` reference by `Case::check` up to
//! `--reference-max` multiply-adds, else sampled columns of it and cuBLAS's
//! C). A failed check prints the call's line, which `--replay` runs again
//! alone; the same `--seed` and `--threads` draw the same calls again.
//!
//! Memory is read when no call is in flight: at the start, and after each
//! pass over the calls. The first pass loads what first use loads (our
//! kernels, cuBLAS's, the driver's caches); `--repeat N` makes each
//! worker's calls N times again, on new streams, runners and cuBLAS
//! handles, so what a repeated pass adds is what no first use explains: a
//! leak grows memory by the same amount every pass, a cache does not. The
//! host's side is read twice: its resident set, and the heap in use
//! (`mallinfo2`: bytes allocated and not freed, by us, cuBLAS or the
//! driver), which tells memory held from memory the allocator keeps.
//!
//! Output, under `--out` (default `target/soak`): `soak.csv`, a row every
//! `--interval` seconds and at the end of each pass (minutes, calls, GFLOP,
//! mismatches, host RSS and device memory in use in MiB, errors, heap in
//! use in MiB), rewritten
//! each time; a progress line per row; and a summary with the memory at
//! start, between the passes and at the end. The task fails on any mismatch
//! or error (after 10 errors the workers stop: a failed launch can leave the
//! context unusable).

mod call;
mod exec;
mod report;

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use gemm_codegen::Precision;
use gemm_host::Gemm;

use self::call::{Call, Draw, SplitMix64};
use self::exec::{Reference, Runner, Verdict};
use self::report::{Memory, Sample, Totals};
use crate::cli;

/// Errors after which the workers stop.
const MAX_ERRORS: u64 = 10;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Minutes to draw calls for (calls in flight then finish).
    #[arg(long, default_value_t = 10.0)]
    minutes: f64,
    /// Host threads, each with its own stream and cuBLAS handle.
    #[arg(long, default_value_t = 4)]
    threads: usize,
    /// Largest m, n and k drawn.
    #[arg(long, default_value_t = 8192)]
    max_size: i64,
    /// Precisions drawn: s, d, c, z.
    #[arg(long, value_delimiter = ',', default_value = "s,d,c,z", value_parser = cli::parse_precision)]
    precision: Vec<Precision>,
    /// Seed of the calls (default: from the clock; printed, so that the run can be repeated with the same
    /// --threads).
    #[arg(long)]
    seed: Option<u64>,
    /// Calls of more multiply-adds (m·n·k) than this are checked on sampled columns of the f64 reference and
    /// against cuBLAS, not against the whole reference (batches always against it).
    #[arg(long, default_value_t = 1 << 27, value_name = "MNK")]
    reference_max: u64,
    /// Seconds between rows of soak.csv.
    #[arg(long, default_value_t = 60.0)]
    interval: f64,
    /// Run only this call (the line a mismatch printed) on one stream, check it, and stop.
    #[arg(long, value_name = "CALL")]
    replay: Option<Call>,
    /// Then make every worker's calls this many times again (the same count from the same seed), and report
    /// the memory each repeated pass adds, which no first use of a kernel or library explains.
    #[arg(long, default_value_t = 0)]
    repeat: u32,
    /// Folder for soak.csv.
    #[arg(long, default_value = "target/soak")]
    out: PathBuf,
}

/// When a worker stops drawing calls.
#[derive(Clone, Copy, Debug)]
enum Until {
    /// At this instant (calls in flight finish).
    Deadline(Instant),
    /// After this many calls.
    Calls(u64),
}

pub fn run(args: Args) -> Result<()> {
    check_args(&args)?;
    let gemm = open()?;
    if let Some(call) = &args.replay {
        return replay(&gemm, call, args.reference_max);
    }
    let seed = args.seed.unwrap_or_else(clock_seed);
    let d = gemm.device();
    println!(
        "soak on {} (sm_{}, {} SMs): {} threads for {} min, sizes up to {}, seed {seed} \
         (repeat with --seed {seed} --threads {})",
        d.name,
        d.arch(),
        d.sm_count,
        args.threads,
        args.minutes,
        args.max_size,
        args.threads
    );
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    let csv = args.out.join("soak.csv");
    let write = |samples: &[Sample]| {
        std::fs::write(&csv, report::csv(samples)).with_context(|| format!("writing {}", csv.display()))
    };

    let start = Memory::now(&gemm);
    let mut samples = vec![Sample::of(0.0, &Totals::default(), start)];
    println!("{}", report::progress(&samples[0]));
    write(&samples)?;
    let totals = Mutex::new(Totals::default());
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let deadline = Until::Deadline(started + Duration::from_secs_f64(args.minutes * 60.0));
    let pass = Pass { gemm: &gemm, args: &args, seed, totals: &totals, stop: &stop, started };
    let (counts, mut failures) = pass.run(&vec![deadline; args.threads], &mut samples, &write)?;
    let first = *samples.last().expect("pushed");
    let mut memory = vec![start, first.memory];
    for again in 1..=args.repeat {
        if !failures.is_empty() || stop.load(Ordering::Relaxed) {
            break;
        }
        println!(
            "pass {}: the same {} calls again, on new streams, runners and cuBLAS handles",
            again + 1,
            first.calls
        );
        let same: Vec<Until> = counts.iter().map(|&n| Until::Calls(n)).collect();
        failures = pass.run(&same, &mut samples, &write)?.1;
        memory.push(samples.last().expect("pushed").memory);
    }
    let seconds = started.elapsed().as_secs_f64();
    let totals = totals.into_inner().unwrap_or_else(|p| p.into_inner());
    print!("{}", report::summary(&totals, seconds, &memory));
    println!("  seed {seed}, {} threads; soak.csv in {}", args.threads, args.out.display());
    if !failures.is_empty() {
        bail!("workers failed to start or stopped: {}", failures.join("; "));
    }
    if totals.mismatches + totals.errors > 0 {
        bail!(
            "{} mismatch(es), {} error(s): each call's line above replays it",
            totals.mismatches,
            totals.errors
        );
    }
    Ok(())
}

/// What every pass of the workers shares.
struct Pass<'a> {
    gemm: &'a Gemm,
    args: &'a Args,
    seed: u64,
    totals: &'a Mutex<Totals>,
    stop: &'a AtomicBool,
    started: Instant,
}

impl Pass<'_> {
    /// Runs one worker per entry of `until` (worker i on its own stream,
    /// drawing from its own seed), pushing a sample every interval and one
    /// when all have finished and the device is idle; returns the calls
    /// each made and the workers that failed to start or panicked.
    fn run(
        &self,
        until: &[Until],
        samples: &mut Vec<Sample>,
        write: &dyn Fn(&[Sample]) -> Result<()>,
    ) -> Result<(Vec<u64>, Vec<String>)> {
        let Pass { gemm, args, seed, totals, stop, started } = *self;
        let sample = || {
            let t = totals.lock().unwrap_or_else(|p| p.into_inner()).clone();
            Sample::of(started.elapsed().as_secs_f64() / 60.0, &t, Memory::now(gemm))
        };
        let interval = Duration::from_secs_f64(args.interval);
        let mut counts = vec![0; until.len()];
        let failures: Vec<String> = std::thread::scope(|s| {
            let workers: Vec<_> = until
                .iter()
                .enumerate()
                .map(|(i, &until)| {
                    s.spawn(move || worker(i, gemm, args, thread_seed(seed, i), until, totals, stop))
                })
                .collect();
            let mut next = Instant::now() + interval;
            while !workers.iter().all(|w| w.is_finished()) {
                std::thread::sleep(Duration::from_millis(200));
                if Instant::now() >= next {
                    next += interval;
                    samples.push(sample());
                    println!("{}", report::progress(samples.last().expect("pushed")));
                    if let Err(e) = write(samples) {
                        eprintln!("{e:#}");
                    }
                }
            }
            let joined = workers.into_iter().enumerate().map(|(i, w)| match w.join() {
                Ok(Ok(made)) => {
                    counts[i] = made;
                    None
                }
                Ok(Err(e)) => Some(format!("thread {i}: {e:#}")),
                Err(_) => Some(format!("thread {i} panicked")),
            });
            joined.flatten().collect()
        });
        gemm.synchronize()?;
        samples.push(sample());
        write(samples)?;
        println!("{}", report::progress(samples.last().expect("pushed")));
        Ok((counts, failures))
    }
}

/// Checks the arguments before the GPU is touched.
fn check_args(args: &Args) -> Result<()> {
    if !(args.minutes > 0.0 && args.minutes.is_finite()) {
        bail!("--minutes must be positive, not {}", args.minutes);
    }
    if !(1..=256).contains(&args.threads) {
        bail!("--threads is 1 to 256, not {}", args.threads);
    }
    if !(1..=i64::from(i32::MAX)).contains(&args.max_size) {
        bail!("--max-size is 1 to {}, not {}", i32::MAX, args.max_size);
    }
    if !(args.interval > 0.0 && args.interval.is_finite()) {
        bail!("--interval must be positive, not {}", args.interval);
    }
    if args.precision.is_empty() {
        bail!("--precision names no precision");
    }
    Ok(())
}

/// The runner of the default stream of device 0, or the typed error saying
/// why there is none ([`gemm_host::GemmError::NoGpu`]).
fn open() -> Result<Gemm> {
    Gemm::open(0).context("cargo xtask soak runs GEMMs on a GPU")
}

/// A seed from the clock.
fn clock_seed() -> u64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    SplitMix64::new(now.as_nanos() as u64).next_u64() % 1_000_000_000
}

/// Worker `index`'s generator seed, from the run's.
fn thread_seed(seed: u64, index: usize) -> u64 {
    SplitMix64::new(seed ^ (index as u64).wrapping_mul(0xA076_1D64_78BD_642F)).next_u64()
}

/// One worker: its own stream and cuBLAS handle, calls from its own
/// generator until `until` (or `stop`), each counted in `totals`; every
/// failed call printed with its line. Returns the calls it made.
fn worker(
    index: usize,
    gemm: &Gemm,
    args: &Args,
    seed: u64,
    until: Until,
    totals: &Mutex<Totals>,
    stop: &AtomicBool,
) -> Result<u64> {
    let stream = gemm.context().new_stream().context("creating a stream")?;
    let runner = Runner::new(gemm.with_stream(stream)?)?;
    let mut draw = Draw::new(seed, &args.precision, args.max_size);
    let mut made = 0;
    for n in 0.. {
        let done = match until {
            Until::Deadline(at) => Instant::now() >= at,
            Until::Calls(calls) => n >= calls,
        };
        if done || stop.load(Ordering::Relaxed) {
            break;
        }
        made += 1;
        let call = draw.call();
        let done = exec::run(&runner, &call, args.reference_max);
        let errors = {
            let mut t = totals.lock().unwrap_or_else(|p| p.into_inner());
            t.add(call.precision, call.form, &done);
            t.errors
        };
        let (what, why) = match &done.verdict {
            Verdict::Pass => continue,
            Verdict::Mismatch(why) => ("MISMATCH", why),
            Verdict::Error(why) => ("ERROR", why),
        };
        println!("{what} (thread {index}, call {n}): {why}\n    replay: soak --replay '{call}'");
        if errors >= MAX_ERRORS && !stop.swap(true, Ordering::Relaxed) {
            println!("{MAX_ERRORS} errors: stopping every worker");
        }
    }
    Ok(made)
}

/// Runs one call on `gemm`'s stream and says how it ended.
fn replay(gemm: &Gemm, call: &Call, reference_max: u64) -> Result<()> {
    let runner = Runner::new(gemm.clone())?;
    println!("replay: {call}");
    let done = exec::run(&runner, call, reference_max);
    let against = match done.reference {
        Reference::F64 => "the f64 reference",
        Reference::Cublas => "sampled columns of the f64 reference and cuBLAS",
    };
    match done.verdict {
        Verdict::Pass => {
            println!("pass: checked against {against}");
            Ok(())
        }
        Verdict::Mismatch(why) => bail!("mismatch (checked against {against}): {why}"),
        Verdict::Error(why) => bail!("error: {why}"),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn parse(line: &[&str]) -> Result<Args, clap::Error> {
        Cli::try_parse_from(std::iter::once("soak").chain(line.iter().copied())).map(|c| c.args)
    }

    #[test]
    fn arguments_parse_and_bad_ones_fail_before_the_gpu() {
        let args = parse(&["--minutes", "0.5"]).unwrap();
        assert_eq!((args.threads, args.max_size, args.precision.len()), (4, 8192, 4));
        check_args(&args).unwrap();
        assert_eq!((args.repeat, parse(&["--repeat", "3"]).unwrap().repeat), (0, 3));
        let line = "z row cn 17x4000x33 gaps=0,3,120 alpha=r beta=0 batch=3:shared-a seed=1234";
        let args = parse(&["--replay", line]).unwrap();
        assert_eq!(args.replay.unwrap().to_string(), line);
        assert!(parse(&["--replay", "z row cn"]).is_err());
        assert!(parse(&["--precision", "q"]).is_err());
        for bad in [["--minutes", "0"], ["--threads", "0"], ["--max-size", "0"], ["--interval", "0"]] {
            assert!(check_args(&parse(&bad).unwrap()).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn thread_seeds_differ_and_repeat() {
        assert_eq!(thread_seed(5, 2), thread_seed(5, 2));
        assert_ne!(thread_seed(5, 0), thread_seed(5, 1));
        assert_ne!(thread_seed(5, 0), thread_seed(6, 0));
    }

    /// Without a GPU the task stops before any call, with the typed error
    /// of gemm-host.
    #[test]
    fn without_a_gpu_the_error_is_no_gpu() {
        if gemm_host::device::device_count().is_ok() {
            return;
        }
        let e = open().unwrap_err();
        assert!(
            matches!(e.downcast_ref::<gemm_host::GemmError>(), Some(gemm_host::GemmError::NoGpu { .. })),
            "{e:#}"
        );
        let e = run(parse(&["--minutes", "0.01", "--out", "/nonexistent/soak"]).unwrap()).unwrap_err();
        assert!(format!("{e:#}").contains("cargo xtask soak runs GEMMs on a GPU"), "{e:#}");
    }
}
