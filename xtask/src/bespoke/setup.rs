//! The command line of `cargo xtask bespoke`, resolved into the run's
//! [`Setup`]: the operators, precisions, `beta` and measurement plan.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use gemm_codegen::Precision;
use gemm_codegen::bespoke::{BetaMode, Operator, mtx, operators};

use crate::measure::Plan;

/// Columns `--emulate` runs at most: the emulator interprets every thread.
pub(super) const EMULATE_MAX_N: u32 = 96;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Matrix Market files of operators (their file stems name them).
    #[arg(long = "a", value_name = "FILE.mtx", value_delimiter = ',')]
    a: Vec<PathBuf>,
    /// A named set of operators: `test` (gemm_codegen's 83 operators of
    /// random sparse and high-order element matrices). The default without
    /// --a.
    #[arg(long, value_enum)]
    set: Option<Set>,
    /// Only the operators of these names (of --set or the files' stems).
    #[arg(long, value_delimiter = ',', value_name = "NAME")]
    operator: Vec<String>,
    /// Columns of B and C each operator is timed at.
    #[arg(long, default_value_t = 131072)]
    n: u32,
    /// Precisions: d, s or both.
    #[arg(long, value_enum, default_value = "both")]
    precision: Precisions,
    /// The calls' beta: 0 (C written only) or 1 (C += A·B), the kernels
    /// generated for it.
    #[arg(long, default_value = "0", value_parser = parse_beta)]
    beta: BetaMode,
    /// Bespoke candidates tried per operator at most (in the tuner's order).
    #[arg(long, value_name = "N")]
    max_candidates: Option<usize>,
    /// Untimed runs before each measurement.
    #[arg(long, default_value_t = Plan::DEFAULT.warmup)]
    warmup: usize,
    /// Timed runs per measurement, the median reported.
    #[arg(long, default_value_t = 11)]
    reps: usize,
    /// Folder for bench.csv, bespoke.log and bespoke.svg.
    #[arg(long, default_value = "target/bespoke")]
    out: PathBuf,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    /// Compile each bespoke candidate with B's and C's row strides as
    /// kernel arguments. By default they are fixed in its code at the timed
    /// call's (`ldb = ldc = n`: no multiply per row, faster kernels and a
    /// faster JIT) and verified at those strides, as gemm-host's tuner does.
    #[arg(long)]
    runtime_strides: bool,
    /// No GPU: generate every candidate and verify it in the PTX emulator
    /// against the f64 reference at n = min(--n, 96) columns; nothing is timed.
    #[arg(long)]
    emulate: bool,
}

/// `--precision`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Precisions {
    /// f64.
    D,
    /// f32.
    S,
    /// f64, then f32.
    Both,
}

/// A named set of operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Set {
    /// `gemm_codegen::bespoke::operators::test_set`.
    Test,
}

/// The run, resolved from [`Args`] and checked.
#[derive(Clone, Debug)]
pub(super) struct Setup {
    /// The operators, by name, in the order given.
    pub(super) operators: Vec<(String, Arc<Operator>)>,
    pub(super) n: u32,
    pub(super) precisions: Vec<Precision>,
    pub(super) beta: BetaMode,
    pub(super) max_candidates: Option<usize>,
    pub(super) plan: Plan,
    pub(super) out: PathBuf,
    pub(super) seed: u64,
    pub(super) emulate: bool,
    pub(super) fixed_strides: bool,
}

fn parse_beta(s: &str) -> Result<BetaMode> {
    match BetaMode::from_token(s) {
        Some(beta @ (BetaMode::Zero | BetaMode::One)) => Ok(beta),
        _ => bail!("--beta is 0 or 1, not `{s}`"),
    }
}

pub(super) fn setup(args: &Args) -> Result<Setup> {
    let mut all: Vec<(String, Arc<Operator>)> = Vec::new();
    for path in &args.a {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let a = mtx::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let name =
            path.file_stem().map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into_owned());
        all.push((name, Arc::new(a)));
    }
    if args.set == Some(Set::Test) || args.a.is_empty() {
        all.extend(operators::test_set().into_iter().map(|(name, a)| (name, Arc::new(a))));
    }
    if !args.operator.is_empty() {
        if let Some(unknown) = args.operator.iter().find(|n| !all.iter().any(|(name, _)| name == *n)) {
            bail!("--operator {unknown}: no operator of that name (names: {})", names(&all));
        }
        all.retain(|(name, _)| args.operator.contains(name));
    }
    if args.n == 0 || args.n > i32::MAX as u32 {
        bail!("--n must be 1 to {}, not {}", i32::MAX, args.n);
    }
    if args.reps == 0 {
        bail!("--reps must be at least 1");
    }
    if args.max_candidates == Some(0) {
        bail!("--max-candidates must be at least 1");
    }
    let precisions = match args.precision {
        Precisions::D => vec![Precision::F64],
        Precisions::S => vec![Precision::F32],
        Precisions::Both => vec![Precision::F64, Precision::F32],
    };
    Ok(Setup {
        operators: all,
        n: if args.emulate { args.n.min(EMULATE_MAX_N) } else { args.n },
        precisions,
        beta: args.beta,
        max_candidates: args.max_candidates,
        plan: Plan { warmup: args.warmup, reps: args.reps },
        out: args.out.clone(),
        seed: args.seed,
        emulate: args.emulate,
        fixed_strides: !args.runtime_strides,
    })
}

/// The first names of `all`, for an error.
fn names(all: &[(String, Arc<Operator>)]) -> String {
    let mut list: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).take(8).collect();
    if all.len() > 8 {
        list.push("…");
    }
    list.join(", ")
}

#[cfg(test)]
pub(super) mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    /// The setup of `cargo xtask bespoke ARGV…`.
    pub(in crate::bespoke) fn parse(argv: &[&str]) -> Result<Setup> {
        let cli = Cli::try_parse_from(std::iter::once("bespoke").chain(argv.iter().copied()))?;
        setup(&cli.args)
    }

    #[test]
    fn defaults_are_the_test_set_both_precisions_and_beta_zero() {
        let s = parse(&[]).unwrap();
        assert_eq!(s.operators.len(), operators::test_set().len());
        assert_eq!((s.n, s.beta, s.max_candidates), (131072, BetaMode::Zero, None));
        assert_eq!(s.precisions, [Precision::F64, Precision::F32]);
        assert_eq!(s.out, PathBuf::from("target/bespoke"));
        assert!(!s.emulate);
    }

    #[test]
    fn flags_parse_and_mtx_files_name_their_operators() {
        let dir = std::env::temp_dir().join(format!("gemmforge-bespoke-setup-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("diff2.mtx");
        let a = Operator::from_fn(2, 3, |i, j| {
            if j == i + 1 {
                1.0
            } else if j == i {
                -1.0
            } else {
                0.0
            }
        })
        .unwrap();
        std::fs::write(&path, mtx::write_coordinate(&a)).unwrap();
        let file = path.to_str().unwrap();
        let s =
            parse(&["--a", file, "--precision", "s", "--beta", "1", "--n", "4096", "--max-candidates", "3"])
                .unwrap();
        assert_eq!(s.operators.len(), 1);
        assert_eq!(s.operators[0].0, "diff2");
        assert_eq!(*s.operators[0].1, a);
        assert_eq!(
            (s.n, s.beta, s.max_candidates, s.precisions.as_slice()),
            (4096, BetaMode::One, Some(3), &[Precision::F32][..])
        );
        let s = parse(&["--a", file, "--set", "test", "--operator", "diff2,quad-p1-gl-grad"]).unwrap();
        let names: Vec<&str> = s.operators.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["diff2", "quad-p1-gl-grad"]);
        assert_eq!(parse(&["--emulate"]).unwrap().n, EMULATE_MAX_N);
        assert_eq!(parse(&["--emulate", "--n", "40"]).unwrap().n, 40);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_arguments_are_refused() {
        for argv in [
            &["--precision", "z"][..],
            &["--beta", "2"],
            &["--beta", "runtime"],
            &["--n", "0"],
            &["--reps", "0"],
            &["--max-candidates", "0"],
            &["--operator", "no-such-operator"],
            &["--a", "/nonexistent.mtx"],
        ] {
            assert!(parse(argv).is_err(), "{argv:?} was accepted");
        }
    }
}
