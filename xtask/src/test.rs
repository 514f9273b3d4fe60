//! `cargo xtask test`: everything CI checks, on a machine with or without a
//! GPU. Checks the formatting (`cargo fmt --check`) and the lints (`cargo
//! clippy --all-targets -- -D warnings`) first, installs ptxas when missing
//! (and `cc`, `gfortran` and the netlib BLAS for `gemmforge-blas`'s tests),
//! runs every test of the workspace (unit, integration, trybuild, emulator,
//! doc tests; GPU tests skip with a message unless `GEMMFORGE_REQUIRE_GPU=1`),
//! then assembles every kernel of `gemm-kernels` with ptxas and prints the
//! register table.

use std::process::Command;
use std::time::Instant;

use anyhow::{Result, bail};

use crate::{blas_tools, ptxas};

/// The formatting and lint checks `cargo xtask test` runs before the
/// tests: what each enforces, how to fix a failure, the cargo arguments.
const STYLE_GATES: &[(&str, &str, &[&str])] = &[
    ("formatting", "run `cargo fmt`", &["fmt", "--all", "--check"]),
    (
        "lints, warnings as errors",
        "fix what clippy reports",
        &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"],
    ),
];

#[derive(clap::Args)]
pub struct Args {
    /// Extra arguments for `cargo test` (e.g. a test-name filter after `--`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    cargo_args: Vec<String>,
}

pub fn run(args: Args) -> Result<()> {
    let started = Instant::now();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut steps = Vec::new();

    // The style gates first: short next to the tests, and a failure is
    // cheap to fix before the long run.
    for (what, fix, gate) in STYLE_GATES {
        let t = Instant::now();
        eprintln!("\n==> cargo {} ({what})", gate.join(" "));
        let status = Command::new(&cargo).args(*gate).current_dir(ptxas::workspace_root()).status()?;
        if !status.success() {
            bail!("cargo {} failed ({status}): {fix}, then run the tests again", gate.join(" "));
        }
        steps.push((*what, t.elapsed()));
    }

    let ptxas = ptxas::ensure_ptxas()?;
    // gemmforge-blas's C and Fortran programs and the netlib BLAS they
    // compare with (seconds with apt-get; nothing when present).
    blas_tools::ensure();

    for (what, test_args) in [
        ("unit, integration, trybuild and emulator tests", vec!["--workspace", "--all-targets"]),
        ("doc tests", vec!["--workspace", "--doc"]),
    ] {
        let t = Instant::now();
        eprintln!("\n==> cargo test {} ({what})", test_args.join(" "));
        let status = Command::new(&cargo)
            .arg("test")
            .args(&test_args)
            .args(&args.cargo_args)
            .env("GEMMFORGE_PTXAS", &ptxas)
            .env("GEMMFORGE_REQUIRE_PTXAS", "1")
            .current_dir(ptxas::workspace_root())
            .status()?;
        if !status.success() {
            bail!("cargo test {} failed ({status})", test_args.join(" "));
        }
        steps.push((what, t.elapsed()));
    }

    let t = Instant::now();
    eprintln!("\n==> ptxas: every kernel of gemm-kernels for sm_75, sm_80, sm_90");
    ptxas::run_report(&ptxas)?;
    steps.push(("ptxas report", t.elapsed()));

    eprintln!();
    for (what, took) in steps {
        eprintln!("{what:<50} {:>7.1} s", took.as_secs_f64());
    }
    eprintln!("{:<50} {:>7.1} s", "cargo xtask test", started.elapsed().as_secs_f64());
    Ok(())
}
