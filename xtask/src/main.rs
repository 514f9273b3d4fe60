//! `cargo xtask <task>`: the project's own commands, one module per task.
//!
//! Every device run of the project goes through here, so any measurement in
//! a closing note can be repeated with the command it names.

mod accuracy;
mod bench;
mod bespoke;
mod blas_bench;
mod blas_tools;
mod bound;
mod cli;
mod guarded;
mod measure;
mod peak;
mod ptxas;
mod sanitize;
mod soak;
mod space;
mod test;
mod tune;
mod tune_crash;
mod verify;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "cargo xtask", about = "gemmforge's project tasks")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Install what the tests need (ptxas), run every test, print the ptxas report.
    Test(test::Args),
    /// Assemble every kernel of gemm-kernels with ptxas and print registers and spills.
    Ptxas(ptxas::Args),
    /// Check kernels against the f64 reference (and cuBLAS) on the GPU or in the PTX emulator.
    Verify(verify::Args),
    /// Tune kernels on this machine's GPU and write the winners into gemm-kernels.
    Tune(tune::Args),
    /// Kill the tuner with SIGKILL at random moments, resume it each time, then check its journal and winners.
    ///
    /// Runs this binary's `tune` (arguments after `--`) with `--resume --out <OUT>`, --kills times killed after a
    /// seeded random life, then to the end; after each kill the journal must keep every earlier record, in order,
    /// with none twice; at the end the winners file must equal `tune --report-only`'s from the same journal.
    TuneCrash(tune_crash::Args),
    /// Count or list the pruned search space of one kernel type (no GPU needed); --figure5 for all 16.
    Space(space::Args),
    /// Time chosen kernels against cuBLAS over square sizes (Figure 6) and skinny K (Section 8): table, CSV, SVG.
    ///
    /// Each kernel (by default the one gemm-host uses on this GPU, per precision and op pair) is first
    /// checked against cuBLAS on a small ragged problem, then timed beside cuBLAS on the same buffers
    /// (random inputs rotated past the L2, warm-up, CUDA events, median). Writes <OUT>/bench.csv,
    /// bench-square.svg and bench-skinny.svg, prints every measurement, and a summary per kernel last.
    Bench(bench::Args),
    /// Measure this GPU's FP32 and FP64 FMA peak and its copy bandwidth with kernels of our own; writes <OUT>/peak.json.
    ///
    /// `bench` and `tune` compare every kernel with this peak (and with the analytic bound of its own
    /// instruction mix); without `--peak FILE` they measure it themselves at the start of their run.
    /// `--ptxas sm_90` only assembles the three kernels and prints their registers (no GPU).
    Peak(peak::Args),
    /// Bespoke constant-A kernels on a set of operators beside cuBLAS and a device-to-device copy.
    ///
    /// For each operator and precision every candidate is compiled (generation + JIT), verified against the f64
    /// reference (guards, C NaN-poisoned for beta = 0) at n of at most 4096, and timed at --n beside the dense
    /// GEMM, cuBLAS and a copy of the bytes a call moves. Writes <OUT>/bench.csv, bespoke.log, bespoke.svg, and the
    /// geometric mean of cuBLAS µs / ours per precision. --emulate verifies the candidates in the PTX emulator
    /// without a GPU.
    Bespoke(bespoke::Args),
    /// libgemmforge_blas.so host to host: NumPy's `a @ b` with it in LD_PRELOAD beside NumPy's own BLAS and torch.
    ///
    /// Each mode runs in its own Python process (gpu backend for the preloaded one, whose GEMMs must all be
    /// logged as run on the GPU); square sizes, every precision, medians; a small-size sweep gives the crossover
    /// with the CPU BLAS. Writes <OUT>/blas.csv and prints a table.
    BlasBench(blas_bench::Args),
    /// Errors of kernels against the f64 reference beside cuBLAS's (default and TF32 math), per input distribution and size.
    ///
    /// The reference is computed on a sample of C's columns (`--columns`), so n = 16384 takes seconds.
    /// Writes <OUT>/accuracy.csv and prints a table.
    Accuracy(accuracy::Args),
    /// Run compute-sanitizer's memcheck, racecheck, initcheck and synccheck over the shipped kernels.
    ///
    /// Each tool runs this binary again as the workload: verify's sweep of every chosen kernel (without cuBLAS;
    /// `quick` shapes, `tiny` for racecheck, the slowest tool), then per precision a split-K call and a strided
    /// batch and, for s and d, a shipped bespoke kernel, each checked against the f64 reference. Writes
    /// <OUT>/sanitize.csv and <OUT>/<tool>.log, prints a summary table; fails when a tool reports an error or
    /// the workload fails. --sanitizer PATH names compute-sanitizer when it is not on PATH or in /usr/local/cuda.
    Sanitize(sanitize::Args),
    /// Random GEMMs from several threads on several streams for --minutes, each checked; memory watched.
    ///
    /// Each thread draws calls from its own seeded generator (precision, ops, layout, shapes up to --max-size from
    /// tiny and ragged to skinny and large, leading-dimension gaps, alpha and beta from {0, 1, random} with C
    /// NaN-poisoned for beta = 0, strided batches, explicit split K), runs each with the default dispatch and
    /// cuBLAS on the same inputs, and checks it against the f64 reference (sampled columns and cuBLAS's C for
    /// large calls). Writes <OUT>/soak.csv (a row per --interval: calls, GFLOP, mismatches, host RSS, device
    /// memory), prints every mismatch with the line --replay runs again, and a summary with the memory's growth;
    /// fails on any mismatch or error.
    Soak(soak::Args),
}

fn main() -> std::process::ExitCode {
    match run(Cli::parse().task) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(task: Task) -> anyhow::Result<()> {
    match task {
        Task::Test(args) => test::run(args),
        Task::Ptxas(args) => ptxas::run(args),
        Task::Space(args) => space::run(args),
        Task::Verify(args) => verify::run(args),
        Task::Tune(args) => tune::run(args),
        Task::TuneCrash(args) => tune_crash::run(args),
        Task::Bench(args) => bench::run(args),
        Task::Peak(args) => peak::run(args),
        Task::Accuracy(args) => accuracy::run(args),
        Task::BlasBench(args) => blas_bench::run(args),
        Task::Bespoke(args) => bespoke::run(args),
        Task::Sanitize(args) => sanitize::run(args),
        Task::Soak(args) => soak::run(args),
    }
}
