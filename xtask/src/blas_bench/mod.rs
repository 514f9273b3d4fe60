//! `cargo xtask blas-bench`: `libgemmforge_blas.so` as programs see it —
//! NumPy's `a @ b` host to host, with the library in `LD_PRELOAD` (gpu
//! backend), beside the same NumPy on its own BLAS and torch's cuBLAS
//! (copies to and from the device included, from pageable and from pinned
//! tensors), all on this machine in one run; and, at small sizes, where the GPU starts to beat the CPU BLAS
//! (the crossover behind `GEMMFORGE_BLAS_THRESHOLD`'s default).
//!
//! Each mode runs in a process of its own (`numpy_time.py`, embedded):
//! `LD_PRELOAD` is per process. The preloaded run logs every call; the task
//! fails unless every GEMM it timed went to the GPU. Writes `<OUT>/blas.csv`
//! (bench.csv's leading columns: sweep, precision, op, m, n, k, ratio,
//! status, spec, then each mode's seconds and error) and prints a table.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

/// The timing script, written to `<OUT>` before it runs.
const SCRIPT: &str = include_str!("numpy_time.py");

#[derive(clap::Args)]
pub struct Args {
    /// The library to preload.
    #[arg(long, default_value = "target/release/libgemmforge_blas.so")]
    lib: PathBuf,
    /// Folder for blas.csv, the script and the call log.
    #[arg(long, default_value = "target/blas-bench")]
    out: PathBuf,
    /// Square sizes of the main sweep (NumPy on gemmforge, NumPy's own BLAS, torch).
    #[arg(long, value_delimiter = ',', default_value = "1024,2048,4096,8192")]
    sizes: Vec<u32>,
    /// Square sizes of the crossover sweep (NumPy on gemmforge's GPU path against NumPy's own BLAS).
    #[arg(long, value_delimiter = ',', default_value = "64,96,128,192,256,384,512,768")]
    small: Vec<u32>,
    /// The Python with NumPy (and torch, for the torch column).
    #[arg(long, default_value = "python3")]
    python: String,
    /// Extra environment for the preloaded run, `NAME=VALUE` (e.g. `GEMMFORGE_BLAS_CHUNK_BYTES=...`).
    #[arg(long = "env", value_name = "NAME=VALUE")]
    env: Vec<String>,
}

/// One timed product.
#[derive(Clone, Copy, Debug, serde::Deserialize)]
struct Row {
    seconds: f64,
    rel_err: f64,
}

type Key = (String, u32);

/// Runs the script in `mode` over `sizes`; `preload`: the library and the log file.
fn run_mode(
    args: &Args,
    script: &Path,
    mode: &str,
    sizes: &[u32],
    preload: Option<&Path>,
) -> anyhow::Result<BTreeMap<Key, Row>> {
    let list = sizes.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    let mut cmd = Command::new(&args.python);
    cmd.arg(script).arg(mode).arg(&list);
    if let Some(log) = preload {
        let lib = std::fs::canonicalize(&args.lib).with_context(|| format!("{}", args.lib.display()))?;
        cmd.env("LD_PRELOAD", lib).env("GEMMFORGE_BLAS_BACKEND", "gpu").env("GEMMFORGE_BLAS_LOG", log);
        for pair in &args.env {
            let (name, value) =
                pair.split_once('=').with_context(|| format!("--env {pair}: not NAME=VALUE"))?;
            cmd.env(name, value);
        }
    }
    let what = format!("{} {mode}{}", args.python, if preload.is_some() { " (preloaded)" } else { "" });
    eprintln!("running {what} over {list}");
    let out = cmd.output().with_context(|| format!("running {what}"))?;
    if !out.status.success() {
        bail!("{what} failed ({}):\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    }
    let mut rows = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        #[derive(serde::Deserialize)]
        struct Line {
            precision: String,
            n: u32,
            #[serde(flatten)]
            row: Row,
        }
        let l: Line = serde_json::from_str(line).with_context(|| format!("{what} printed {line:?}"))?;
        rows.insert((l.precision, l.n), l.row);
    }
    Ok(rows)
}

/// Calls in the log by path, and the total.
fn log_paths(log: &Path) -> anyhow::Result<(BTreeMap<String, usize>, usize)> {
    let text = std::fs::read_to_string(log).with_context(|| format!("reading {}", log.display()))?;
    let mut paths = BTreeMap::new();
    let mut total = 0;
    for line in text.lines().filter(|l| l.contains(" path=")) {
        total += 1;
        let path = line.split(" path=").nth(1).unwrap_or_default().to_owned();
        *paths.entry(path).or_default() += 1;
    }
    Ok((paths, total))
}

pub fn run(args: Args) -> anyhow::Result<()> {
    std::fs::create_dir_all(&args.out)?;
    let script = args.out.join("numpy_time.py");
    std::fs::write(&script, SCRIPT)?;
    let log = args.out.join("calls.log");
    let _ = std::fs::remove_file(&log);
    let all: Vec<u32> = args.small.iter().chain(&args.sizes).copied().collect();
    let ours = run_mode(&args, &script, "numpy", &all, Some(&log))?;
    let cpu = run_mode(&args, &script, "numpy", &all, None)?;
    let torch_mode = |mode: &str| match run_mode(&args, &script, mode, &args.sizes, None) {
        Ok(rows) => rows,
        Err(e) => {
            eprintln!("no {mode} column: {e:#}");
            BTreeMap::new()
        }
    };
    let (torch, pinned) = (torch_mode("torch"), torch_mode("torch-pinned"));
    let (paths, total) = log_paths(&log)?;
    eprintln!("preloaded run: {total} GEMM calls logged: {paths:?}");
    if paths.keys().any(|p| p != "gpu") || total == 0 {
        bail!("the preloaded run's GEMMs did not all run on the GPU ({paths:?}): see {}", log.display());
    }

    let mut csv = String::from(
        "sweep,precision,op,m,n,k,ratio,status,spec,gemmforge_s,numpy_blas_s,torch_s,torch_pinned_s,vs_numpy_blas,\
         vs_torch,vs_torch_pinned,gemmforge_rel_err,numpy_blas_rel_err,torch_rel_err,torch_pinned_rel_err\n",
    );
    let mut table = String::new();
    writeln!(
        table,
        "{:>6} {:>4} {:>6} {:>12} {:>12} {:>10} {:>10} {:>8} {:>8} {:>8} {:>9}",
        "sweep",
        "prec",
        "n",
        "gemmforge s",
        "NumPy BLAS s",
        "torch s",
        "pinned s",
        "vs BLAS",
        "vs torch",
        "vs pinned",
        "rel err"
    )?;
    let mut crossover: BTreeMap<String, Option<u32>> = BTreeMap::new();
    for ((precision, n), o) in &ours {
        let sweep = if args.sizes.contains(n) { "numpy" } else { "small" };
        let c = cpu.get(&(precision.clone(), *n));
        let t = torch.get(&(precision.clone(), *n));
        let tp = pinned.get(&(precision.clone(), *n));
        let vs = |r: Option<&Row>| r.map(|r| r.seconds / o.seconds);
        let cell = |x: Option<f64>, p: usize| x.map_or("-".to_owned(), |x| format!("{x:.p$}"));
        let ratio = vs(t).or(vs(c));
        let err = |r: Option<&Row>| r.map_or("-".to_owned(), |r| format!("{:.2e}", r.rel_err));
        let letter = precision.as_str();
        writeln!(
            csv,
            "{sweep},{letter},nn,{n},{n},{n},{},ok,LD_PRELOAD numpy a@b (row-major),{:.6},{},{},{},{},{},{},{:.2e},{},{},{}",
            cell(ratio, 3),
            o.seconds,
            cell(c.map(|r| r.seconds), 6),
            cell(t.map(|r| r.seconds), 6),
            cell(tp.map(|r| r.seconds), 6),
            cell(vs(c), 3),
            cell(vs(t), 3),
            cell(vs(tp), 3),
            o.rel_err,
            err(c),
            err(t),
            err(tp),
        )?;
        writeln!(
            table,
            "{sweep:>6} {letter:>4} {n:>6} {:>12.5} {:>12} {:>10} {:>10} {:>8} {:>8} {:>8} {:>9.1e}",
            o.seconds,
            cell(c.map(|r| r.seconds), 5),
            cell(t.map(|r| r.seconds), 5),
            cell(tp.map(|r| r.seconds), 5),
            cell(vs(c), 2),
            cell(vs(t), 2),
            cell(vs(tp), 2),
            o.rel_err
        )?;
        // The crossover: the smallest size from which the GPU path is never slower.
        if let Some(c) = c {
            let entry = crossover.entry(precision.clone()).or_insert(None);
            if o.seconds <= c.seconds {
                entry.get_or_insert(*n);
            } else {
                *entry = None;
            }
        }
    }
    std::fs::write(args.out.join("blas.csv"), csv)?;
    print!("{table}");
    for (p, n) in &crossover {
        match n {
            Some(n) => println!(
                "{p}gemm: the GPU path beats NumPy's BLAS from n = {n} on (m·n·k = {})",
                u64::from(*n).pow(3)
            ),
            None => println!("{p}gemm: the GPU path does not beat NumPy's BLAS at the largest size"),
        }
    }
    println!("wrote {}", args.out.join("blas.csv").display());
    Ok(())
}
