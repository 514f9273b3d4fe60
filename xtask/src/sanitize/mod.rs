//! `cargo xtask sanitize`: NVIDIA compute-sanitizer's tools over the
//! shipped kernels. Each tool runs this binary again as the workload
//! (`std::env::current_exe()`), `verify --gpu --sanitize-workload`: verify's
//! sweep of every chosen kernel of `gemm-kernels` against the `f64`
//! reference (guards, C NaN-poisoned for `beta = 0`) without cuBLAS, whose
//! kernels the sanitizer would check too, then per precision a split-K call
//! and a strided batch with the kernels the dispatch picks and, for `s` and
//! `d`, a shipped bespoke kernel ([`workload`]).
//!
//! | tool | flags | shapes |
//! | --- | --- | --- |
//! | memcheck | `--leak-check full` | verify's `quick` (25 ragged shapes, 75 cases a kernel) |
//! | racecheck | `--racecheck-report all` | verify's `tiny` (3 cases a kernel) |
//! | initcheck | | `quick` |
//! | synccheck | | `quick` |
//!
//! Racecheck gets the smallest set because it is the slowest tool by far
//! (it tracks every shared-memory access of every thread): three ragged
//! cases of several k-steps reach every kernel's loads, barriers and
//! epilogue; `--shapes` sets one set for all tools. Every tool runs with
//! `--check-exit-code no`, so that the workload's own failures are told
//! apart from the sanitizer's errors by its exit status.
//!
//! Output, under `--out` (default `target/sanitize`): each tool's whole log
//! (`<tool>.log`: the sanitizer's lines, prefixed `=========`, among the
//! workload's), `sanitize.csv` (tool, kernels, calls, errors, hazards,
//! seconds, command; rewritten after each tool), and a summary table. The
//! task fails when a tool reports an error (racecheck: a hazard of error
//! severity; its warnings are shown, not failed), prints no summary, or the
//! workload fails.
//!
//! The sanitizer is `--sanitizer PATH`, else `compute-sanitizer` on `PATH`,
//! in `/usr/local/cuda/bin` or in `/usr/local/cuda-13.0/bin`.

mod report;
pub mod workload;

use std::ffi::OsStr;
use std::io::{BufRead as _, BufReader, Read, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use clap::ValueEnum as _;
use gemm_codegen::Precision;

use self::report::Outcome;
use crate::cli;
use crate::verify::Shapes;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The sanitizer's tools, run one after another.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "memcheck,racecheck,initcheck,synccheck")]
    tools: Vec<Tool>,
    /// Precisions: s, d, c, z (the sweep's kernels and the extra calls).
    #[arg(long, value_delimiter = ',', default_value = "s,d,c,z", value_parser = cli::parse_precision)]
    precision: Vec<Precision>,
    /// Op pairs of the sweep's kernels: nn, nt, …, cc; `all`; `transposes`
    /// (the extra calls use the first).
    #[arg(long, value_delimiter = ',', default_value = "all")]
    op: Vec<String>,
    /// Only the kernels of gemm-kernels with these names in the sweep
    /// (default: all of them; the extra calls always run).
    #[arg(long, value_delimiter = ',')]
    kernel: Vec<String>,
    /// verify's shape set for every tool (default: `quick`, `tiny` for racecheck).
    #[arg(long, value_enum)]
    shapes: Option<Shapes>,
    /// The compute-sanitizer executable (default: on PATH, then
    /// /usr/local/cuda/bin, /usr/local/cuda-13.0/bin).
    #[arg(long, value_name = "PATH")]
    sanitizer: Option<PathBuf>,
    /// Stop a tool's run after this many minutes (the run then fails; its log and row are kept). The default
    /// stays under a 10-minute limit on one command.
    #[arg(long, default_value_t = 9.0)]
    timeout_minutes: f64,
    /// Folder for sanitize.csv and the logs.
    #[arg(long, default_value = "target/sanitize")]
    out: PathBuf,
    /// Seed of the workload's random inputs.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
}

/// A compute-sanitizer tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Tool {
    /// Out-of-bounds and misaligned accesses, hardware exceptions, leaks.
    Memcheck,
    /// Shared-memory data hazards.
    Racecheck,
    /// Reads of uninitialized global memory.
    Initcheck,
    /// Invalid uses of barriers and other synchronization.
    Synccheck,
}

impl Tool {
    /// The name `--tool` takes.
    pub const fn name(self) -> &'static str {
        match self {
            Tool::Memcheck => "memcheck",
            Tool::Racecheck => "racecheck",
            Tool::Initcheck => "initcheck",
            Tool::Synccheck => "synccheck",
        }
    }

    /// The sanitizer's arguments for this tool.
    fn flags(self) -> Vec<&'static str> {
        let mut flags = vec!["--tool", self.name(), "--check-exit-code", "no"];
        match self {
            Tool::Memcheck => flags.extend(["--leak-check", "full"]),
            Tool::Racecheck => flags.extend(["--racecheck-report", "all"]),
            Tool::Initcheck | Tool::Synccheck => {}
        }
        flags
    }

    /// The shape set this tool's workload sweeps, unless `--shapes` sets one.
    const fn default_shapes(self) -> Shapes {
        match self {
            Tool::Racecheck => Shapes::Tiny,
            Tool::Memcheck | Tool::Initcheck | Tool::Synccheck => Shapes::Quick,
        }
    }
}

pub fn run(args: Args) -> Result<()> {
    check_args(&args)?;
    let gpus = check_gpu()?;
    let sanitizer = find_sanitizer(args.sanitizer.as_deref(), std::env::var_os("PATH").as_deref())?;
    let exe = std::env::current_exe().context("finding this program, to run it under the sanitizer")?;
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    println!(
        "sanitize: {} on {gpus} GPU(s), tools {}, workload {}",
        sanitizer.display(),
        args.tools.iter().map(|t| t.name()).collect::<Vec<_>>().join(", "),
        exe.display()
    );
    let started = Instant::now();
    let mut outcomes = Vec::new();
    for &tool in &args.tools {
        let mut argv: Vec<String> = tool.flags().into_iter().map(str::to_owned).collect();
        argv.push(exe.display().to_string());
        argv.extend(workload_args(&args, tool));
        let outcome = run_tool(&sanitizer, tool, &argv, &args.out, args.timeout_minutes)?;
        outcomes.push(outcome);
        let csv = args.out.join("sanitize.csv");
        std::fs::write(&csv, report::csv(&outcomes)).with_context(|| format!("writing {}", csv.display()))?;
    }
    println!("\n{}", report::table(&outcomes));
    let failed: Vec<&Outcome> = outcomes.iter().filter(|o| !o.problems().is_empty()).collect();
    println!(
        "sanitize: {} tool(s), {} failed, in {:.1} s; logs and sanitize.csv in {}",
        outcomes.len(),
        failed.len(),
        started.elapsed().as_secs_f64(),
        args.out.display()
    );
    if !failed.is_empty() {
        let names: Vec<&str> = failed.iter().map(|o| o.tool.name()).collect();
        bail!("{} failed (see {}/<tool>.log)", names.join(", "), args.out.display());
    }
    Ok(())
}

/// Checks the arguments the workload will get, before any GPU time is spent.
fn check_args(args: &Args) -> Result<()> {
    if args.tools.is_empty() {
        bail!("--tools names no tool");
    }
    if !(args.timeout_minutes > 0.0 && args.timeout_minutes.is_finite()) {
        bail!("--timeout-minutes must be positive, not {}", args.timeout_minutes);
    }
    if cli::parse_op_list(&args.op)?.is_empty() {
        bail!("--op names no op pair");
    }
    if let Some(unknown) = args.kernel.iter().find(|n| !gemm_kernels::all().any(|k| k.name == n.as_str())) {
        bail!("--kernel {unknown}: gemm-kernels has no kernel of that name");
    }
    Ok(())
}

/// The number of GPUs, or the typed error saying why there is none
/// ([`gemm_host::GemmError::NoGpu`]).
fn check_gpu() -> Result<usize> {
    gemm_host::device::device_count().context("cargo xtask sanitize runs kernels on a GPU")
}

/// The workload's command line after the program: `verify --gpu
/// --sanitize-workload` with the task's selection and `tool`'s shapes.
fn workload_args(args: &Args, tool: Tool) -> Vec<String> {
    let shapes = args.shapes.unwrap_or(tool.default_shapes());
    let shapes = shapes.to_possible_value().map_or_else(String::new, |v| v.get_name().to_owned());
    let precisions: Vec<String> = args.precision.iter().map(|p| p.blas_letter().to_string()).collect();
    let mut out: Vec<String> = ["verify", "--gpu", "--sanitize-workload", "--shapes", &shapes]
        .into_iter()
        .map(str::to_owned)
        .collect();
    out.extend(["--precision".into(), precisions.join(",")]);
    out.extend(["--op".into(), args.op.join(",")]);
    out.extend(["--seed".into(), args.seed.to_string()]);
    if !args.kernel.is_empty() {
        out.extend(["--kernel".into(), args.kernel.join(",")]);
    }
    out
}

/// The sanitizer to run: `explicit` when given (it must be a file), else
/// the first `compute-sanitizer` among the folders of `path` (PATH's
/// value), `/usr/local/cuda/bin` and `/usr/local/cuda-13.0/bin`.
fn find_sanitizer(explicit: Option<&Path>, path: Option<&OsStr>) -> Result<PathBuf> {
    if let Some(file) = explicit {
        if !file.is_file() {
            bail!("--sanitizer {}: no such file", file.display());
        }
        return Ok(file.to_owned());
    }
    let mut folders: Vec<PathBuf> = path.map(|p| std::env::split_paths(p).collect()).unwrap_or_default();
    folders.extend(["/usr/local/cuda/bin", "/usr/local/cuda-13.0/bin"].map(PathBuf::from));
    folders.iter().map(|f| f.join("compute-sanitizer")).find(|f| is_executable(f)).with_context(|| {
        format!(
            "compute-sanitizer is not on PATH nor in /usr/local/cuda/bin or /usr/local/cuda-13.0/bin: \
             install the CUDA toolkit's compute-sanitizer or name it with --sanitizer PATH (looked in {})",
            folders.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
        )
    })
}

/// Whether `file` is a file someone may execute.
fn is_executable(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    file.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `argv` as one shell line (arguments quoted where the shell would split
/// or expand them).
fn shell_line(program: &Path, argv: &[String]) -> String {
    let quote = |s: &str| {
        let plain = |c: char| c.is_ascii_alphanumeric() || "_-./=,:+@%".contains(c);
        if !s.is_empty() && s.chars().all(plain) {
            s.to_owned()
        } else {
            format!("'{}'", s.replace('\'', "'\\''"))
        }
    };
    std::iter::once(program.display().to_string())
        .chain(argv.iter().cloned())
        .map(|s| quote(&s))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs the sanitizer with `argv`, its output (stdout and stderr, line by
/// line as they come) printed with the tool's name and written to
/// `<out>/<tool>.log`; stops it and the workload after `timeout_minutes`.
fn run_tool(
    sanitizer: &Path,
    tool: Tool,
    argv: &[String],
    out: &Path,
    timeout_minutes: f64,
) -> Result<Outcome> {
    let command = shell_line(sanitizer, argv);
    let log_path = out.join(format!("{}.log", tool.name()));
    let mut log =
        std::fs::File::create(&log_path).with_context(|| format!("creating {}", log_path.display()))?;
    println!("\n==> {}: {command}", tool.name());
    writeln!(log, "$ {command}")?;
    let started = Instant::now();
    let mut child = Command::new(sanitizer)
        .args(argv)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {}", sanitizer.display()))?;
    let (send, lines) = mpsc::channel::<String>();
    let readers = [
        child.stdout.take().map(|s| forward(s, send.clone())),
        child.stderr.take().map(|s| forward(s, send.clone())),
    ];
    drop(send);
    let deadline = started + Duration::from_secs_f64(timeout_minutes * 60.0);
    let mut text = String::new();
    let mut timed_out = false;
    loop {
        let wait = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(10));
        match lines.recv_timeout(wait) {
            Ok(line) => {
                println!("[{}] {line}", tool.name());
                writeln!(log, "{line}")?;
                text.push_str(&line);
                text.push('\n');
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) if Instant::now() >= deadline && !timed_out => {
                timed_out = true;
                eprintln!("{}: past --timeout-minutes {timeout_minutes}, stopping it", tool.name());
                stop_tree(&mut child);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
    for reader in readers.into_iter().flatten() {
        let _ = reader.join();
    }
    let status = child.wait().with_context(|| format!("waiting for {}", sanitizer.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    writeln!(log, "# exit status {status}, {seconds:.1} s")?;
    // A run stopped at the timeout has no status of its own: whatever the
    // shell or the sanitizer returned came from our SIGKILL (a shell whose
    // child was killed first exits 137 before it is killed itself).
    let exit = if timed_out { None } else { status.code() };
    Ok(Outcome { tool, command, findings: report::parse(&text), exit, timed_out, seconds })
}

/// Sends each line `from` gives over `to`, on a thread of its own.
fn forward(from: impl Read + Send + 'static, to: mpsc::Sender<String>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            if to.send(line).is_err() {
                break;
            }
        }
    })
}

/// Kills `child` (the sanitizer) and every process it started (the
/// workload), the latter first, so that none is left running.
fn stop_tree(child: &mut std::process::Child) {
    for pid in descendants(child.id()).into_iter().rev() {
        let Ok(pid) = libc::pid_t::try_from(pid) else { continue };
        // SAFETY: `kill` only sends a signal; `pid` is a process that the
        // child started (read from /proc just now), never 0 or negative.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let _ = child.kill();
}

/// The processes descended from `root`, parents before children, from
/// `/proc/<pid>/stat`.
fn descendants(root: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            Some((pid, parent_of(&stat)?))
        })
        .collect();
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        let parent = out[i];
        out.extend(parents.iter().filter(|&&(_, pp)| pp == parent).map(|&(pid, _)| pid));
        i += 1;
    }
    out.remove(0);
    out
}

/// The parent's pid in a `/proc/<pid>/stat` line: the second field after
/// the command, which is in parentheses and may hold spaces and `)`.
fn parent_of(stat: &str) -> Option<u32> {
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use clap::Parser as _;

    use super::*;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn parse(line: &[&str]) -> Result<Args, clap::Error> {
        Cli::try_parse_from(std::iter::once("sanitize").chain(line.iter().copied())).map(|c| c.args)
    }

    #[test]
    fn defaults_run_every_tool_and_racecheck_gets_the_smallest_sweep() {
        let args = parse(&[]).unwrap();
        assert_eq!(args.tools, [Tool::Memcheck, Tool::Racecheck, Tool::Initcheck, Tool::Synccheck]);
        check_args(&args).unwrap();
        let quick = workload_args(&args, Tool::Memcheck);
        assert_eq!(
            quick,
            [
                "verify",
                "--gpu",
                "--sanitize-workload",
                "--shapes",
                "quick",
                "--precision",
                "s,d,c,z",
                "--op",
                "all",
                "--seed",
                "2026"
            ]
        );
        assert_eq!(workload_args(&args, Tool::Racecheck)[4], "tiny");
        assert_eq!(
            Tool::Memcheck.flags(),
            ["--tool", "memcheck", "--check-exit-code", "no", "--leak-check", "full"]
        );
        assert_eq!(Tool::Racecheck.flags()[4..], ["--racecheck-report", "all"]);
        assert_eq!(Tool::Synccheck.flags(), ["--tool", "synccheck", "--check-exit-code", "no"]);
    }

    #[test]
    fn selections_pass_through_and_bad_ones_fail_early() {
        let args = parse(&[
            "--tools",
            "racecheck",
            "--precision",
            "z,s",
            "--kernel",
            "SgemmNN,ZgemmNN",
            "--shapes",
            "small",
        ])
        .unwrap();
        check_args(&args).unwrap();
        let argv = workload_args(&args, Tool::Racecheck);
        assert_eq!(argv[3..7], ["--shapes", "small", "--precision", "z,s"]);
        assert_eq!(argv[argv.len() - 2..], ["--kernel", "SgemmNN,ZgemmNN"]);

        assert!(parse(&["--tools", "leakcheck"]).is_err());
        assert!(parse(&["--precision", "q"]).is_err());
        let unknown = check_args(&parse(&["--kernel", "NoSuchKernel"]).unwrap()).unwrap_err();
        assert!(unknown.to_string().contains("NoSuchKernel"), "{unknown}");
        assert!(check_args(&parse(&["--op", "nx"]).unwrap()).is_err());
        assert!(check_args(&parse(&["--timeout-minutes", "0"]).unwrap()).is_err());
    }

    #[test]
    fn finds_the_sanitizer_on_path_or_as_named() {
        let dir = std::env::temp_dir().join(format!("xtask-sanitize-{}", std::process::id()));
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let tool = bin.join("compute-sanitizer");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        let path = std::env::join_paths([dir.join("empty"), bin.clone()]).unwrap();

        // Not executable: not taken.
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o644)).unwrap();
        let only_ours = std::env::join_paths([bin.clone()]).unwrap();
        if !Path::new("/usr/local/cuda/bin/compute-sanitizer").exists()
            && !Path::new("/usr/local/cuda-13.0/bin/compute-sanitizer").exists()
        {
            let e = find_sanitizer(None, Some(&only_ours)).unwrap_err().to_string();
            assert!(e.contains("--sanitizer PATH"), "{e}");
            assert!(find_sanitizer(None, None).is_err());
        }
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(find_sanitizer(None, Some(&path)).unwrap(), tool);

        assert_eq!(find_sanitizer(Some(&tool), None).unwrap(), tool);
        let missing = dir.join("nowhere/compute-sanitizer");
        let e = find_sanitizer(Some(&missing), Some(&path)).unwrap_err().to_string();
        assert!(e.contains("no such file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reads_the_parent_from_proc_stat() {
        assert_eq!(parent_of("4242 (compute-sanitizer) S 4200 4242 4200 34816 ..."), Some(4200));
        assert_eq!(parent_of("77 (odd) name (x)) R 1 77 77 0 -1"), Some(1));
        assert_eq!(parent_of("77 odd"), None);
        // This test's own process is a descendant of its parent.
        let me = std::process::id();
        let parent = parent_of(&std::fs::read_to_string("/proc/self/stat").unwrap()).unwrap();
        assert!(descendants(parent).contains(&me));
    }

    #[test]
    fn command_lines_are_quoted_for_the_shell() {
        let argv: Vec<String> = ["--tool", "memcheck", "/x/xtask", "--op", "all", "it's odd", ""]
            .into_iter()
            .map(str::to_owned)
            .collect();
        assert_eq!(
            shell_line(Path::new("/usr/local/cuda/bin/compute-sanitizer"), &argv),
            "/usr/local/cuda/bin/compute-sanitizer --tool memcheck /x/xtask --op all 'it'\\''s odd' ''"
        );
    }

    /// Without a GPU the task stops before running anything, with the
    /// typed error of gemm-host.
    #[test]
    fn without_a_gpu_the_error_is_no_gpu() {
        if gemm_host::device::device_count().is_ok() {
            return;
        }
        let e = check_gpu().unwrap_err();
        assert!(
            matches!(e.downcast_ref::<gemm_host::GemmError>(), Some(gemm_host::GemmError::NoGpu { .. })),
            "{e:#}"
        );
        assert!(format!("{e:#}").contains("cargo xtask sanitize runs kernels on a GPU"), "{e:#}");
    }

    /// The tool runner against a stand-in sanitizer (a shell script that
    /// prints what a clean run prints), and one that never finishes.
    #[test]
    fn runs_a_tool_logs_it_and_stops_it_at_the_timeout() {
        let dir = std::env::temp_dir().join(format!("xtask-sanitize-run-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fake = dir.join("fake-sanitizer");
        std::fs::write(
            &fake,
            "#!/bin/sh\necho '========= COMPUTE-SANITIZER'\necho 'workload: 3 kernels, 9 calls, 0 failed'\n\
             echo 'to stderr' >&2\necho '========= ERROR SUMMARY: 0 errors'\nexit 0\n",
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let argv = vec!["--tool".to_owned(), "initcheck".to_owned()];
        let outcome = run_tool(&fake, Tool::Initcheck, &argv, &dir, 1.0).unwrap();
        assert!(outcome.problems().is_empty(), "{:?}", outcome.problems());
        assert_eq!(outcome.findings.workload.map(|w| w.calls), Some(9));
        let log = std::fs::read_to_string(dir.join("initcheck.log")).unwrap();
        assert!(log.contains("to stderr") && log.contains("# exit status"), "{log}");

        let hang = dir.join("hang");
        std::fs::write(&hang, "#!/bin/sh\necho '========= COMPUTE-SANITIZER'\nsleep 30\n").unwrap();
        std::fs::set_permissions(&hang, std::fs::Permissions::from_mode(0o755)).unwrap();
        let outcome = run_tool(&hang, Tool::Synccheck, &argv, &dir, 0.01).unwrap();
        assert!(outcome.timed_out && outcome.exit.is_none(), "{outcome:?}");
        assert!(outcome.seconds < 20.0, "{}", outcome.seconds);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
