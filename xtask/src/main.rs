//! `cargo xtask <task>`: the project's own commands, one module per task.
//!
//! Every device run of the project goes through here, so any measurement in
//! a closing note can be repeated with the command it names.

mod ptxas;
mod space;
mod test;

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
    /// Count or list the pruned search space of one kernel type (no GPU needed); --figure5 for all 16.
    Space(space::Args),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().task {
        Task::Test(args) => test::run(args),
        Task::Ptxas(args) => ptxas::run(args),
        Task::Space(args) => space::run(args),
    }
}
