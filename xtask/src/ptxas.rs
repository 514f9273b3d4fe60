//! `cargo xtask ptxas`: assemble every kernel of `gemm-kernels` (or the
//! `--spec`s given) with NVIDIA's `ptxas` for several architectures and
//! print a table of registers and spills, marking kernels whose `wgmma`s
//! ptxas serializes. Fails if any kernel does not assemble.
//!
//! `ptxas` comes from PyPI's `nvidia-cuda-nvcc` wheel, installed into
//! `target/cuda-tools` on first use (CUDA 13's ptxas starts at sm_75); set
//! `GEMMFORGE_PTXAS` to use another one.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use anyhow::{Context, Result, bail};

/// The wheel that carries ptxas, pinned to the CUDA of the GPU machines.
const NVCC_WHEEL: &str = "nvidia-cuda-nvcc==13.0.88";

#[derive(clap::Args)]
pub struct Args {
    /// Architectures to assemble for.
    #[arg(long, value_delimiter = ',', default_value = "sm_75,sm_80,sm_90")]
    arch: Vec<String>,
    /// Only kernels whose name contains this.
    #[arg(long)]
    filter: Option<String>,
    /// Assemble these specs (a `gemm_kernel!` body each, repeatable)
    /// instead of gemm-kernels' kernels.
    #[arg(long)]
    spec: Vec<gemm_codegen::KernelSpec>,
}

pub fn run(args: Args) -> Result<()> {
    let ptxas = ensure_ptxas()?;
    let kernels = if args.spec.is_empty() {
        shipped(args.filter.as_deref())
    } else {
        args.spec
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                let image = gemm_codegen::compile(spec)
                    .map_err(|v| anyhow::anyhow!("--spec {spec} is not a legal kernel: {v:?}"))?;
                Ok(Kernel { name: format!("spec{}", i + 1), spec: *spec, ptx: image.ptx.to_string() })
            })
            .collect::<Result<_>>()?
    };
    report(&ptxas, &args.arch, &kernels)
}

/// The report `cargo xtask test` prints: every kernel, sm_75, sm_80, sm_90.
pub fn run_report(ptxas: &Path) -> Result<()> {
    report(ptxas, &DEFAULT_ARCHS.map(str::to_owned), &shipped(None))
}

/// One kernel of a report.
struct Kernel {
    name: String,
    spec: gemm_codegen::KernelSpec,
    ptx: String,
}

/// gemm-kernels' kernels whose name contains `filter`.
fn shipped(filter: Option<&str>) -> Vec<Kernel> {
    gemm_kernels::all()
        .filter(|k| filter.is_none_or(|f| k.name.contains(f)))
        .map(|k| Kernel { name: k.name.to_owned(), spec: k.spec, ptx: k.ptx.to_owned() })
        .collect()
}

const DEFAULT_ARCHS: [&str; 3] = ["sm_75", "sm_80", "sm_90"];

/// The workspace root (xtask lives one level below it).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask is inside the workspace").to_path_buf()
}

/// The ptxas `GEMMFORGE_PTXAS` names, else the one installed in
/// `target/cuda-tools`, without installing anything.
pub fn find_ptxas() -> Result<Option<PathBuf>> {
    if let Some(path) = std::env::var_os("GEMMFORGE_PTXAS") {
        let path = PathBuf::from(path);
        if path.is_file() {
            return Ok(Some(path));
        }
        bail!("GEMMFORGE_PTXAS={} is not a file", path.display());
    }
    let installed = installed_ptxas();
    Ok(installed.is_file().then_some(installed))
}

/// Where [`ensure_ptxas`] installs ptxas.
fn installed_ptxas() -> PathBuf {
    workspace_root().join("target/cuda-tools/nvidia/cu13/bin/ptxas")
}

/// Finds ptxas, installing the pinned wheel into `target/cuda-tools` if needed.
pub fn ensure_ptxas() -> Result<PathBuf> {
    if let Some(ptxas) = find_ptxas()? {
        return Ok(ptxas);
    }
    let tools = workspace_root().join("target/cuda-tools");
    let ptxas = installed_ptxas();
    eprintln!("installing ptxas ({NVCC_WHEEL}) into {}", tools.display());
    let status = Command::new("python3")
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--target"])
        .arg(&tools)
        .arg(NVCC_WHEEL)
        .status()
        .context("running python3 -m pip (python3 with pip is needed to install ptxas)")?;
    if !status.success() || !ptxas.is_file() {
        bail!("could not install {NVCC_WHEEL} with pip into {} ({status})", tools.display());
    }
    Ok(ptxas)
}

/// What ptxas reports for one kernel on one architecture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resources {
    pub registers: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
    pub stack_bytes: u32,
    /// Whether ptxas serializes the kernel's `wgmma`s (C7510–C7520:
    /// "wgmma.mma_async instructions are serialized").
    pub wgmma_serialized: bool,
}

/// Assembles `ptx` for `arch` (e.g. `sm_90`) and parses `ptxas -v`.
pub fn assemble(ptxas: &Path, ptx: &str, arch: &str, scratch: &Path) -> Result<Resources> {
    assemble_to(ptxas, ptx, arch, scratch, Path::new("/dev/null"))
}

/// [`assemble`], keeping the cubin in `cubin`.
pub fn assemble_to(ptxas: &Path, ptx: &str, arch: &str, scratch: &Path, cubin: &Path) -> Result<Resources> {
    let file = scratch.with_extension("ptx");
    std::fs::write(&file, ptx)?;
    let out = Command::new(ptxas)
        .args(["-v", "-arch", arch, "-o"])
        .arg(cubin)
        .arg(&file)
        .output()
        .with_context(|| format!("running {}", ptxas.display()))?;
    let text = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        bail!("ptxas failed for {arch}:\n{text}");
    }
    parse_resources(&text).with_context(|| format!("unexpected ptxas output:\n{text}"))
}

/// The number just before the first `marker` that follows a number (ptxas's
/// notes also say "input registers").
fn number_before(text: &str, marker: &str) -> Option<u32> {
    text.match_indices(marker).find_map(|(at, _)| text[..at].split_whitespace().last()?.parse().ok())
}

fn parse_resources(text: &str) -> Option<Resources> {
    Some(Resources {
        registers: number_before(text, " registers")?,
        spill_stores: number_before(text, " bytes spill stores")?,
        spill_loads: number_before(text, " bytes spill loads")?,
        stack_bytes: number_before(text, " bytes stack frame")?,
        wgmma_serialized: text.contains("wgmma.mma_async instructions are serialized"),
    })
}

fn report(ptxas: &Path, archs: &[String], kernels: &[Kernel]) -> Result<()> {
    if kernels.is_empty() {
        bail!("no kernel matches");
    }
    let scratch = tempdir()?;
    let jobs: Vec<(usize, usize)> =
        (0..kernels.len()).flat_map(|k| (0..archs.len()).map(move |a| (k, a))).collect();
    let results = Mutex::new(vec![None; jobs.len()]);
    let next = Mutex::new(0usize);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for w in 0..workers {
            let (jobs, results, next, kernels, scratch) = (&jobs, &results, &next, &kernels, &scratch);
            s.spawn(move || {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    let Some(&(k, a)) = jobs.get(i) else { break };
                    // A kernel compiled for a newer architecture (`arch = sm_90`)
                    // does not run on an older one: nothing to assemble.
                    let runs = gemm_codegen::ptx::Arch::from_name(&archs[a])
                        .is_some_and(|target| kernels[k].spec.arch.runs_on(target.sm));
                    if !runs {
                        results.lock().unwrap()[i] = Some(Ok(None));
                        continue;
                    }
                    // An architecture-specific kernel (`arch = sm_90a`) assembles for
                    // the `a` target of its column's chip: ptxas refuses it for sm_90.
                    let own = kernels[k].spec.arch.ptx_arch();
                    let target = match gemm_codegen::ptx::Arch::from_name(&archs[a]) {
                        Some(column) if own.specific && column.sm == own.sm => own.to_string(),
                        _ => archs[a].clone(),
                    };
                    let file = scratch.join(format!("w{w}"));
                    let r = assemble(ptxas, &kernels[k].ptx, &target, &file);
                    results.lock().unwrap()[i] = Some(r.map(Some).map_err(|e| format!("{e:#}")));
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    let _ = std::fs::remove_dir_all(&scratch);

    let header: String = archs.iter().map(|a| format!(" | {a:>14}")).collect();
    println!(
        "ptxas {} — registers / spill bytes (stores+loads) per kernel; `s`: its wgmmas serialized; \
         bank: the main loop's shared-memory bank conflicts by the analytic bound's model, in cycles \
         beyond the conflict-free ones",
        ptxas_version(ptxas)
    );
    println!("{:<10} {:<54} {:>5}{header}", "kernel", "spec", "bank");
    let mut failures = Vec::new();
    for (k, kernel) in kernels.iter().enumerate() {
        let bank = bank_conflicts(&kernel.spec).map_or("-".to_owned(), |x| format!("{:.0}%", 100.0 * x));
        let mut row = format!("{:<10} {:<54} {bank:>5}", kernel.name, short_spec(&kernel.spec));
        for a in 0..archs.len() {
            match &results[k * archs.len() + a] {
                Some(Ok(Some(r))) => {
                    let serialized = if r.wgmma_serialized { "s" } else { " " };
                    row += &format!(
                        " | {:>4} regs {:>4}{serialized}",
                        r.registers,
                        r.spill_stores + r.spill_loads
                    )
                }
                Some(Ok(None)) => row += &format!(" | {:>14}", "(newer arch)"),
                Some(Err(e)) => {
                    row += &format!(" | {:>14}", "FAILED");
                    failures.push(format!("{} on {}: {e}", kernel.name, archs[a]));
                }
                None => unreachable!("every job ran"),
            }
        }
        println!("{row}");
    }
    if !failures.is_empty() {
        bail!("{} kernel assemblies failed:\n{}", failures.len(), failures.join("\n"));
    }
    println!("{} kernels x {} architectures assembled", kernels.len(), archs.len());
    Ok(())
}

/// The shared-memory bank conflicts of `spec`'s main loop by the analytic
/// bound's model: the extra cycles a trip's known accesses take, over the
/// cycles they would take without a conflict
/// ([`gemm_codegen::bound::SharedCycles::fewest`]); `None` for a kernel
/// with no known access.
fn bank_conflicts(spec: &gemm_codegen::KernelSpec) -> Option<f64> {
    let shared = gemm_codegen::bound::LoopMix::of_plan(&gemm_codegen::validate(spec).ok()?).shared;
    (shared.fewest > 0).then(|| shared.conflicts() as f64 / shared.fewest as f64)
}

fn short_spec(spec: &gemm_codegen::KernelSpec) -> String {
    let math = spec.mma.map_or(String::new(), |m| format!(" {} {}", spec.math, m.name()));
    format!(
        "{}x{}x{} t{}x{} a{}x{} b{}x{} w{} {}{math}",
        spec.m_blk,
        spec.n_blk,
        spec.k_blk,
        spec.m_dim,
        spec.n_dim,
        spec.load_a.lead,
        spec.load_a.cross,
        spec.load_b.lead,
        spec.load_b.cross,
        spec.lds_width,
        spec.ldg
    )
}

fn ptxas_version(ptxas: &Path) -> String {
    Command::new(ptxas)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .find(|l| l.contains("release"))
                .map(|l| l.split(", ").last().unwrap_or(l).trim().to_owned())
        })
        .unwrap_or_else(|| "(unknown version)".to_owned())
}

/// A fresh scratch folder under `target/xtask-ptxas` for this process.
pub fn tempdir() -> Result<PathBuf> {
    let dir = workspace_root().join("target/xtask-ptxas").join(std::process::id().to_string());
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ptxas_verbose_output() {
        let text = "ptxas info    : Compiling entry function 'k' for 'sm_90'\n\
                    ptxas info    : Function properties for k\n    \
                    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n\
                    ptxas info    : Used 77 registers, used 1 barriers, 12416 bytes smem";
        assert_eq!(
            parse_resources(text),
            Some(Resources {
                registers: 77,
                spill_stores: 4,
                spill_loads: 12,
                stack_bytes: 8,
                wgmma_serialized: false
            })
        );
        let serialized = format!(
            "ptxas info    : (C7513) Potential Performance Loss: wgmma.mma_async instructions are serialized \
             due to non wgmma instructions defining input registers\n{text}"
        );
        assert!(parse_resources(&serialized).is_some_and(|r| r.wgmma_serialized));
        assert_eq!(parse_resources("ptxas fatal"), None);
    }

    /// The report's bank column: none in the shipped DGEMM NT kernel (its
    /// stripes' rows 32 bytes apart), twice the conflict-free cycles in the
    /// shipped f32 NT K = 64 class's `mma.sync` kernel, whose rows are 16
    /// bytes apart (a quarter warp's fragment loads overlap two by two).
    #[test]
    fn the_report_shows_bank_conflicts() {
        let spec = |text: &str| text.parse::<gemm_codegen::KernelSpec>().unwrap();
        let dgemm = spec(
            "precision = f64, op = (N, T), tile = (128, 128, 16), threads = (16, 16), load_a = (64, 4), \
             load_b = (64, 4), lds_width = 2, arch = sm_90, stages = 3, ldg_width = 2, warps = (2, 4), \
             raster = 8, frag_sets = 2, interleave = 4, math = dmma, mma = (16, 8, 4)",
        );
        assert_eq!(bank_conflicts(&dgemm), Some(0.0));
        let sgemm = spec(
            "precision = f32, op = (N, T), tile = (128, 128, 32), threads = (16, 8), load_a = (32, 4), \
             load_b = (32, 4), lds_width = 4, arch = sm_90, stages = 3, ldg_width = 4, warps = (2, 2), \
             raster = 8, math = tf32x3, mma = (16, 8, 8)",
        );
        assert_eq!(bank_conflicts(&sgemm), Some(1.0));
    }

    /// Run 36's TMA kernels (`ldg = tma`, `tuning/sm_90-wgmma/run36/specs.txt`,
    /// their rings cut to the stages a kernel reading both operands in
    /// place may have, `TMA_IN_PLACE_MAX_STAGES`) assemble for sm_90a
    /// without spills: TN 1xTF32, which no shipped kernel is (with a ptxas
    /// at hand; `cargo xtask test` makes sure there is one).
    #[test]
    fn tma_kernels_assemble_for_sm_90a() {
        let Some(ptxas) = find_ptxas().unwrap() else {
            assert!(
                std::env::var_os("GEMMFORGE_REQUIRE_PTXAS").is_none(),
                "GEMMFORGE_REQUIRE_PTXAS is set but no ptxas"
            );
            eprintln!("skipped: no ptxas (run `cargo xtask ptxas` once to install it)");
            return;
        };
        let specs =
            std::fs::read_to_string(workspace_root().join("tuning/sm_90-wgmma/run36/specs.txt")).unwrap();
        let scratch = tempdir().unwrap();
        let mut assembled = 0;
        for line in specs.lines().filter(|l| l.contains("ldg = tma")) {
            let spec: gemm_codegen::KernelSpec = line.parse().unwrap();
            let stages = spec.stages.min(gemm_codegen::constraints::TMA_IN_PLACE_MAX_STAGES);
            let spec = gemm_codegen::KernelSpec { stages, ..spec };
            let image = gemm_codegen::compile(&spec).unwrap_or_else(|v| panic!("{line}: {v:?}"));
            assert!(image.ptx.contains("cp.async.bulk.tensor"), "{line}");
            let r = assemble(&ptxas, &image.ptx, "sm_90a", &scratch.join(&*image.entry)).unwrap();
            assert_eq!(r.spill_stores + r.spill_loads, 0, "{line}: {r:?}");
            assembled += 1;
        }
        assert_eq!(assembled, 3);
        let _ = std::fs::remove_dir_all(&scratch);
    }
}
