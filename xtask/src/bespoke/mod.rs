//! `cargo xtask bespoke`: bespoke constant-A kernels
//! (`gemm_codegen::bespoke`) on a set of operators, beside cuBLAS and a
//! device-to-device copy, in one run.
//!
//! For each operator and precision, the run-time tuner
//! (`gemm_host::bespoke::BespokeGemm::tune`) compiles every candidate
//! (generation + the driver's JIT, reported), verifies each against the
//! `f64` reference with guard regions and C NaN-poisoned when `beta = 0`
//! (`gemm_host::case::Case`) at `n` of at most 4096 columns — the reference
//! of a large operator at the full `n` would take minutes; the output says
//! at which `n` — and times each at the full `n` (CUDA events, warm-up,
//! median), with the tuned dense GEMM on the operator in device memory.
//! Beside them, on buffers of their own: cuBLAS on the same call as a
//! row-major dense GEMM, and a device-to-device copy of the bytes a call
//! must move (B read once, C written once, and read once when `beta ≠ 0`),
//! whose bandwidth the kernels are measured against.
//!
//! Output, under `--out` (default `target/bespoke`): `bench.csv` (a row per
//! operator and precision, rewritten after each so an interrupted run keeps
//! what it measured), `bespoke.log` (everything printed, every candidate
//! included) and `bespoke.svg` (cuBLAS µs / ours and the fraction of the
//! copy bandwidth per operator); a table and the geometric means of the
//! ratio per precision last.
//!
//! `--emulate` needs no GPU: every candidate is generated and verified in
//! the PTX emulator (`Emulator::bespoke`) at a small `n`; nothing is timed.

mod emulate;
mod plot;
mod report;
mod setup;

use std::fs::File;
use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use gemm_codegen::bespoke::Operator;
use gemm_codegen::{Element, Precision};
use gemm_host::bespoke::{BespokeCall, BespokeGemm, Choice, TuneOptions, TuneReport};
use gemm_host::cublas::Cublas;
use gemm_host::reference::Random;
use gemm_host::{Gemm, GemmError, Matrix, timing};

use self::report::{Best, Row, Status, Tuner, csv, summary, table};
pub use self::setup::Args;
use self::setup::{Setup, setup};
use crate::measure::Timing;

/// Everything printed, also written to `bespoke.log`.
pub(super) struct Log {
    file: File,
}

impl Log {
    fn create(path: &Path) -> Result<Log> {
        Ok(Log { file: File::create(path).with_context(|| format!("creating {}", path.display()))? })
    }

    /// Prints `line` and appends it to the log.
    pub(super) fn say(&mut self, line: &str) {
        println!("{line}");
        let _ = writeln!(self.file, "{line}");
    }
}

pub fn run(args: Args) -> Result<()> {
    let setup = setup(&args)?;
    std::fs::create_dir_all(&setup.out).with_context(|| format!("creating {}", setup.out.display()))?;
    if setup.emulate {
        let mut log = Log::create(&setup.out.join("bespoke.log"))?;
        return emulate::run(&setup, &mut log);
    }
    let gemm = Gemm::open(0).context(
        "cargo xtask bespoke times kernels on a GPU (--emulate verifies them in the emulator without one)",
    )?;
    let cublas = Cublas::new(gemm.stream().clone())?;
    let mut log = Log::create(&setup.out.join("bespoke.log"))?;
    let device = gemm.device();
    let (name, arch) = (device.name.clone(), device.arch());
    let (major, minor) = device.driver_version_pair();
    log.say(&format!(
        "bespoke on {name} (sm_{arch}, {} SMs, driver {major}.{minor}): {} operator(s) × {} precision(s), n = {}, \
         beta = {}; candidates verified against the f64 reference at n = {} (the full n's reference would take \
         minutes), timed at n = {}: median of {} CUDA-event runs after {} warm-up",
        device.sm_count,
        setup.operators.len(),
        setup.precisions.len(),
        setup.n,
        setup.beta.token(),
        gemm_host::bespoke::verify_columns(setup.n),
        setup.n,
        setup.plan.reps,
        setup.plan.warmup,
    ));
    let started = std::time::Instant::now();
    let mut rows = Vec::new();
    for &p in &setup.precisions {
        for (i, (op_name, a)) in setup.operators.iter().enumerate() {
            let seed = setup.seed ^ (i as u64) << 8;
            let runner = Runner { setup: &setup, gemm: &gemm, cublas: &cublas };
            let row = match p {
                Precision::F32 => runner.operator::<f32>(op_name, a, seed, &mut log)?,
                _ => runner.operator::<f64>(op_name, a, seed, &mut log)?,
            };
            rows.push(row);
            std::fs::write(setup.out.join("bench.csv"), csv(&rows, &name, arch))?;
        }
    }
    let plot = setup.out.join("bespoke.svg");
    let title =
        format!("{name} (sm_{arch}): bespoke kernels at n = {}, beta = {}", setup.n, setup.beta.token());
    let plotted = plot::svg(&rows, &title, &plot).is_ok();
    log.say(&format!("\n{}", table(&rows)));
    log.say(&summary(&rows));
    log.say(&format!(
        "{} operator row(s) in {:.1} min; wrote {}, {}{}",
        rows.len(),
        started.elapsed().as_secs_f64() / 60.0,
        setup.out.join("bench.csv").display(),
        setup.out.join("bespoke.log").display(),
        if plotted { format!(", {}", plot.display()) } else { String::new() },
    ));
    let failed = rows.iter().filter(|r| r.status == Status::Failed).count();
    if failed > 0 {
        bail!("{failed} operator(s) failed: see the table");
    }
    Ok(())
}

struct Runner<'a> {
    setup: &'a Setup,
    gemm: &'a Gemm,
    cublas: &'a Cublas,
}

impl Runner<'_> {
    /// Tunes, and times cuBLAS and the copy on, one operator in `E`. The
    /// error is fatal (the CUDA context is unusable); the operator's own
    /// failures are in the row.
    fn operator<E: Element>(&self, name: &str, a: &Arc<Operator>, seed: u64, log: &mut Log) -> Result<Row> {
        let setup = self.setup;
        let mut row = Row::new(name, a, E::PRECISION, setup.n, setup.beta);
        let options = TuneOptions {
            plan: setup.plan,
            max_candidates: setup.max_candidates,
            seed,
            fixed_strides: setup.fixed_strides,
        };
        let mut rng = Random::new(seed.wrapping_add(1));
        log.say(&format!(
            "{name} {} ({}×{}, {} non-zeros, density {:.3}):",
            E::PRECISION.token(),
            a.rows(),
            a.cols(),
            row.nnz,
            row.density
        ));
        let tuned = BespokeGemm::<E>::new(self.gemm, Arc::clone(a), setup.beta)
            .and_then(|t| t.with_options(options).tune(setup.n));
        match tuned {
            Ok(report) => self.record(&report, &mut row, log),
            Err(e) => {
                self.alive(name)?;
                row.status = Status::Failed;
                row.note = format!("tuning: {e}");
            }
        }
        let (cublas, copy) = self.baselines::<E>(a, &row, &mut rng).map_err(|e| {
            anyhow::anyhow!("{name}: cuBLAS or the copy failed ({e}); the CUDA context may be unusable")
        })?;
        (row.cublas, row.copy) = (Some(cublas), Some(copy));
        log.say(&format!(
            "  cuBLAS {:.2} µs; copy of {:.1} MB {:.2} µs ({:.0} GB/s){}",
            cublas.median_ms * 1e3,
            row.bytes / 1e6,
            copy.median_ms * 1e3,
            copy.gbps(row.bytes),
            row.ratio().map_or(String::new(), |r| format!(
                "; best bespoke {r:.2}× cuBLAS, {:.1}% of the copy",
                100.0 * row.copy_fraction().unwrap_or(0.0)
            )),
        ));
        Ok(row)
    }

    /// Copies the tuner's report into `row` and logs every candidate.
    fn record(&self, report: &TuneReport, row: &mut Row, log: &mut Log) {
        row.verify_n = report.verify_n;
        for c in &report.candidates {
            let timing = c.timing.map_or(String::new(), |t| {
                format!(", {:.2} µs, {:.0} GB/s", t.median_ms * 1e3, t.gbps(row.bytes))
            });
            let regs = c.registers.map_or(String::new(), |r| format!(", {r} registers"));
            let error = c.error.map_or(String::new(), |e| format!(", error {e:.1e}"));
            let note = if c.note.is_empty() { String::new() } else { format!(": {}", c.note) };
            log.say(&format!(
                "  {:<118} generate {:>7.1} ms, JIT {:>7.1} ms{regs}{error}{timing}{note}",
                c.choice.to_string(),
                c.generate.as_secs_f64() * 1e3,
                c.jit.as_secs_f64() * 1e3,
            ));
            if c.verified == Some(false) {
                row.status = Status::Failed;
                row.note = format!("{}: {}", c.choice, c.note);
            }
            match c.choice {
                // The fastest of the dense candidates.
                Choice::Dense(_) => {
                    if c.timing.is_some_and(|t| row.dense.is_none_or(|d| t.median_ms < d.median_ms)) {
                        row.dense = c.timing;
                    }
                }
                Choice::Bespoke(_) => {
                    row.candidates += 1;
                    row.compile += c.generate + c.jit;
                    if let Some(e) = c.error {
                        row.verified += 1;
                        row.max_error = Some(row.max_error.unwrap_or(0.0).max(e));
                    }
                }
            }
        }
        if let Some(best) = report.best_bespoke()
            && let (Choice::Bespoke(spec), Some(timing)) = (best.choice, best.timing)
        {
            row.best = Some(Best { spec, timing });
        } else if row.status == Status::Ok {
            row.status = Status::NoBespoke;
            row.note = if row.candidates == 0 {
                "no bespoke kernel takes it (too many non-zeros)".to_owned()
            } else {
                "no bespoke candidate was timed".to_owned()
            };
        }
        row.tuner = Some(Tuner {
            choice: report.winner.choice,
            median_us: report.winner.median_us,
            compile: report.compile,
            benchmark: report.benchmark,
        });
        log.say(&format!(
            "  verified at n = {}, timed at n = {}; the tuner chose {} ({:.2} µs) after {:.2} s compiling and {:.2} s \
             verifying and timing",
            report.verify_n,
            report.key.n,
            report.winner.choice,
            report.winner.median_us,
            report.compile.as_secs_f64(),
            report.benchmark.as_secs_f64(),
        ));
    }

    /// cuBLAS on the call as a dense row-major GEMM, and a device-to-device
    /// copy of the bytes the call moves, each on buffers of its own.
    fn baselines<E: Element>(
        &self,
        a: &Operator,
        row: &Row,
        rng: &mut Random,
    ) -> Result<(Timing, Timing), GemmError> {
        let (gemm, plan) = (self.gemm, self.setup.plan);
        let call = BespokeCall::<E>::new(i64::from(self.setup.n))
            .beta(if row.beta == gemm_codegen::bespoke::BetaMode::One { E::ONE } else { E::ZERO });
        let cfg = call.gemm_config(a.rows(), a.cols());
        let values: Vec<E> = a
            .values()
            .iter()
            .map(|&v| gemm_host::reference::narrow(gemm_host::num_complex::Complex::new(v, 0.0)))
            .collect();
        let cublas = {
            let a = gemm.upload(&values)?;
            let b = gemm.upload(&rng.matrix::<E>(cfg.required_len(Matrix::B) as usize))?;
            let mut c = gemm.upload(&rng.matrix::<E>(cfg.required_len(Matrix::C) as usize))?;
            timing::repeat(gemm.stream(), plan, |_| self.cublas.gemm(&cfg, &a, &b, &mut c))?
        };
        // Half the bytes read, half written.
        let words = (row.bytes / 2.0 / 4.0).ceil() as usize;
        let src = gemm.alloc_zeros::<f32>(words)?;
        let mut dst = gemm.alloc_zeros::<f32>(words)?;
        let stream = gemm.stream();
        let copy = timing::repeat(stream, plan, |_| {
            stream.memcpy_dtod(&src, &mut dst).map_err(GemmError::driver("copying device to device"))
        })?;
        Ok((cublas, copy))
    }

    /// Fails when a failed call left the CUDA context unusable.
    fn alive(&self, after: &str) -> Result<()> {
        if let Err(e) = self.gemm.synchronize() {
            bail!("the CUDA context is unusable after {after} failed ({e}); rerun without that operator");
        }
        Ok(())
    }
}
