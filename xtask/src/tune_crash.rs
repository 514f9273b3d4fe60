//! `cargo xtask tune-crash`: the tuner killed and resumed, to show that a
//! run that dies at any moment loses nothing and duplicates nothing.
//!
//! This binary's own `tune` (the real tuner and journal code) runs as a
//! child with `--resume --out <OUT>` and the tune arguments given after
//! `--`; once it has journaled a new measurement (its start-up — the
//! space, ptxas pruning — is not where a kill proves anything), it is
//! killed with SIGKILL after a random delay (seeded, `--min-seconds` to
//! `--max-seconds`), `--kills` times, then resumed once more and left to
//! finish. After every kill the journal is read back
//! ([`Journal::open`], which skips a torn last line with a warning) and
//! checked: the records of the previous reading are still its first ones,
//! in order (nothing finished is lost or rewritten), and no measurement is
//! in it twice. At the end the winners file the finished run wrote is
//! compared with the one `tune --report-only` writes from the same journal
//! (the winners of an uninterrupted pass over the same measurements). Any
//! failed check, or a run that finishes before the kills are done, fails
//! the task. Writes `<OUT>/tune-crash.log` (one line per kill).

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use rand::{RngExt as _, SeedableRng as _};

use crate::tune::record::Journal;

#[derive(clap::Args)]
pub struct Args {
    /// SIGKILLs before the run is let finish.
    #[arg(long, default_value_t = 20)]
    kills: u32,
    /// Shortest time from a run's first new measurement to its kill, in seconds.
    #[arg(long, default_value_t = 0.1)]
    min_seconds: f64,
    /// Longest time from a run's first new measurement to its kill, in seconds.
    #[arg(long, default_value_t = 4.0)]
    max_seconds: f64,
    /// Seed of the kill times.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    /// The tuner's output folder (emptied first).
    #[arg(long, default_value = "target/tune-crash")]
    out: PathBuf,
    /// The arguments of `tune` (after `--`), without `--out` and `--resume`:
    /// a small space, `--peak FILE`, `--repo` of no workspace.
    #[arg(last = true, required = true)]
    tune: Vec<String>,
}

/// What a reading of the journal found.
struct Reading {
    records: Vec<crate::tune::record::Record>,
}

fn read(journal: &Path) -> Result<Reading> {
    let j = Journal::open(journal)?;
    let records = j.records().to_vec();
    let mut keys = HashSet::new();
    for r in &records {
        ensure!(keys.insert(r.key()), "a measurement is in the journal twice: {:?}", r.key());
    }
    Ok(Reading { records })
}

/// Starts this binary's `tune` with `extra` after the run's arguments.
fn tune(args: &Args, extra: &[&str], log: &Path) -> Result<Child> {
    let exe = std::env::current_exe().context("this binary's path")?;
    let out = std::fs::OpenOptions::new().create(true).append(true).open(log)?;
    Command::new(exe)
        .arg("tune")
        .args(&args.tune)
        .arg("--out")
        .arg(&args.out)
        .args(extra)
        .stdout(Stdio::from(out.try_clone()?))
        .stderr(Stdio::from(out))
        .spawn()
        .context("starting tune")
}

/// The winners file a run wrote into `dir` (`sm_XY.rs`), if any.
fn winners(dir: &Path) -> Result<Option<(PathBuf, String)>> {
    let mut found = None;
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.starts_with("sm_") && name.ends_with(".rs") {
            found = Some((path.clone(), std::fs::read_to_string(&path)?));
        }
    }
    Ok(found)
}

pub fn run(args: Args) -> Result<()> {
    ensure!(
        args.min_seconds > 0.0 && args.max_seconds >= args.min_seconds,
        "--min-seconds ≤ --max-seconds, both > 0"
    );
    for bad in ["--out", "--resume", "--report-only"] {
        ensure!(!args.tune.iter().any(|a| a == bad), "give `{bad}` to tune-crash, not after `--`");
    }
    if args.out.exists() {
        std::fs::remove_dir_all(&args.out).with_context(|| format!("emptying {}", args.out.display()))?;
    }
    std::fs::create_dir_all(&args.out)?;
    let journal = args.out.join("tune.jsonl");
    let child_log = args.out.join("tune-output.log");
    let mut report = String::new();
    let mut rng = rand::rngs::StdRng::seed_from_u64(args.seed);
    let mut before: Vec<crate::tune::record::Record> = Vec::new();
    let started = Instant::now();
    for kill in 1..=args.kills {
        let life = Duration::from_secs_f64(rng.random_range(args.min_seconds..=args.max_seconds));
        let mut child = tune(&args, &["--resume"], &child_log)?;
        // Wait for its first new measurement (or its end), then its life.
        let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        let grown_from = size(&journal);
        while size(&journal) == grown_from && child.try_wait()?.is_none() {
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(life);
        if let Some(status) = child.try_wait()? {
            bail!(
                "tune finished ({status}) before kill {kill} of {}: give it a larger space or shorter lives \
                 (its output: {})",
                args.kills,
                child_log.display()
            );
        }
        // SIGKILL: no handler, no flush; whatever was half written stays half written.
        child.kill().context("killing tune")?;
        child.wait()?;
        let torn = std::fs::read(&journal).map(|b| !b.is_empty() && !b.ends_with(b"\n")).unwrap_or(false);
        let now = read(&journal).with_context(|| format!("after kill {kill}"))?;
        ensure!(
            now.records.len() >= before.len() && now.records[..before.len()] == before[..],
            "after kill {kill}: the journal's first {} records changed",
            before.len()
        );
        ensure!(now.records.len() > before.len(), "kill {kill} came before the run's first new measurement");
        let line = format!(
            "kill {kill:>2} {:>4.2} s after its first new measurement: {} records (+{}){}",
            life.as_secs_f64(),
            now.records.len(),
            now.records.len() - before.len(),
            if torn { ", last line torn" } else { "" }
        );
        println!("{line}");
        writeln!(report, "{line}")?;
        before = now.records;
    }
    let status = tune(&args, &["--resume"], &child_log)?.wait()?;
    ensure!(
        status.success(),
        "the last, uninterrupted resume failed ({status}): see {}",
        child_log.display()
    );
    let last = read(&journal).context("after the run finished")?;
    ensure!(
        last.records.len() >= before.len() && last.records[..before.len()] == before[..],
        "the final run changed earlier records"
    );
    let (path, resumed) = winners(&args.out)?.context("the finished run wrote no winners file")?;

    // The same journal reported in one pass, in a folder of its own.
    let replay = args.out.join("report-only");
    std::fs::create_dir_all(&replay)?;
    std::fs::copy(&journal, replay.join("tune.jsonl"))?;
    for peak in ["peak.json"] {
        if args.out.join(peak).exists() {
            std::fs::copy(args.out.join(peak), replay.join(peak))?;
        }
    }
    let exe = std::env::current_exe()?;
    let out = Command::new(exe)
        .arg("tune")
        .args(&args.tune)
        .args(["--report-only", "--out"])
        .arg(&replay)
        .output()
        .context("tune --report-only")?;
    ensure!(out.status.success(), "tune --report-only failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let (_, replayed) = winners(&replay)?.context("--report-only wrote no winners file")?;
    ensure!(
        resumed == replayed,
        "the resumed run's {} differs from --report-only's on the same journal",
        path.display()
    );
    let line = format!(
        "{} kills survived in {:.0} s: {} records, none lost or duplicated; {} equals --report-only's",
        args.kills,
        started.elapsed().as_secs_f64(),
        last.records.len(),
        path.file_name().and_then(|n| n.to_str()).unwrap_or("the winners file")
    );
    println!("{line}");
    writeln!(report, "{line}")?;
    std::fs::write(args.out.join("tune-crash.log"), report)?;
    Ok(())
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

    #[test]
    fn tune_arguments_follow_the_separator_and_the_out_folder_is_ours() {
        let cli = Cli::try_parse_from(["tune-crash", "--kills", "3", "--", "--precision", "s", "--op", "nn"])
            .unwrap();
        assert_eq!(cli.args.kills, 3);
        assert_eq!(cli.args.tune, ["--precision", "s", "--op", "nn"]);
        assert!(Cli::try_parse_from(["tune-crash"]).is_err(), "tune arguments are required");
        let cli = Cli::try_parse_from(["tune-crash", "--out", "/nonexistent/x", "--", "--out", "y"]).unwrap();
        let err = run(cli.args).unwrap_err().to_string();
        assert!(err.contains("give `--out` to tune-crash"), "{err}");
    }
}
