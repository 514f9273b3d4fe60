//! `cargo xtask peak`: this GPU's FP32 and FP64 FMA peak and its copy
//! bandwidth, measured with three kernels of our own ([`kernels`]), so that
//! a report can say "x % of the measured peak" next to "x % of the
//! datasheet".
//!
//! Each kernel is launched on one full wave (the SM count times the blocks
//! per SM the occupancy calculator allows), timed with CUDA events after a
//! warm-up, and its median kept:
//!
//! - FFMA and DFMA: `threads × trips × UNROLL × CHAINS` FMAs, 2 flops each;
//!   the DFMA loop runs half the trips (half the lanes on sm_80/sm_90);
//! - copy: two buffers of `--copy-mib` MiB (far past the L2), bytes read
//!   plus bytes written.
//!
//! Output: a table, and `<out>/peak.json` ([`PeakReport`]), which `bench`
//! and `tune` read with `--peak FILE`. Without `--peak` they measure the
//! peak themselves at the start of their run (the same kernels, through
//! [`measure`]) and write it into their own `--out`.
//!
//! `--ptxas ARCH,...` assembles the three kernels with ptxas instead and
//! prints their registers (no GPU needed).

pub mod kernels;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use gemm_codegen::bound::Pipe;
use gemm_codegen::ptx;
use gemm_host::Gemm;
use gemm_host::cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};
use gemm_host::cudarc::nvrtc::Ptx;
use gemm_host::timing;
use serde::{Deserialize, Serialize};

use crate::measure::{Plan, Timing};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Folder for peak.json.
    #[arg(long, default_value = "target/peak")]
    out: PathBuf,
    /// Trips of the FFMA loop per thread (the DFMA loop runs half as many);
    /// the default takes about 20 ms per launch on an H100.
    #[arg(long, default_value_t = Settings::DEFAULT.trips)]
    trips: u32,
    /// MiB of each of the copy's two buffers.
    #[arg(long, default_value_t = Settings::DEFAULT.copy_mib)]
    copy_mib: u64,
    /// Untimed runs before each measurement.
    #[arg(long, default_value_t = Plan::DEFAULT.warmup)]
    warmup: usize,
    /// Timed runs per measurement, the median reported.
    #[arg(long, default_value_t = Plan::DEFAULT.reps)]
    reps: usize,
    /// No GPU: assemble the kernels with ptxas for these architectures and
    /// print their registers.
    #[arg(long, value_delimiter = ',', value_name = "ARCH")]
    ptxas: Option<Vec<String>>,
}

/// How much work each measurement does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Trips of the FFMA loop.
    pub trips: u32,
    /// MiB of each copy buffer.
    pub copy_mib: u64,
    /// Repetitions.
    pub plan: Plan,
}

impl Settings {
    /// About 20 ms per FMA launch and 0.35 ms per copy on an H100.
    pub const DEFAULT: Settings = Settings { trips: 8192, copy_mib: 512, plan: Plan::DEFAULT };
}

/// What `cargo xtask peak` measured: `peak.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeakReport {
    /// The device name.
    pub device: String,
    /// Its compute capability as `sm_XY`'s number.
    pub arch: u32,
    /// Its SMs.
    pub sm_count: u32,
    /// Its peak SM clock as the driver reports it, kHz.
    pub clock_khz: Option<u32>,
    /// The CUDA driver, `major.minor`.
    pub driver: String,
    /// The generator version that built the kernels.
    pub generator: String,
    /// FP32 FMA throughput, TFLOP/s.
    pub fp32_tflops: f64,
    /// FP64 FMA throughput, TFLOP/s.
    pub fp64_tflops: f64,
    /// Copy bandwidth, GB/s of bytes read plus written.
    pub copy_gbps: f64,
    /// Each kernel's measurement.
    pub runs: Vec<PeakRun>,
}

/// One kernel's measurement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeakRun {
    /// Its entry name.
    pub kernel: String,
    /// Blocks launched (one full wave).
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
    /// Registers per thread after the JIT.
    pub registers: u32,
    /// Flops (FMA kernels) or bytes read plus written (copy) per launch.
    pub work: f64,
    /// Median, fastest and slowest launch, milliseconds.
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
}

impl PeakRun {
    /// Work per second at the median, in units of 10¹² (TFLOP/s) or 10⁹
    /// (GB/s) as `scale` says.
    fn rate(&self, scale: f64) -> f64 {
        self.work / (self.median_ms * 1e-3) / scale
    }
}

impl PeakReport {
    /// Reads a `peak.json`.
    pub fn read(path: &Path) -> Result<PeakReport> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{} is not a peak.json", path.display()))
    }

    /// Writes `peak.json` into `dir` and returns its path.
    pub fn write(&self, dir: &Path) -> Result<PathBuf> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let path = dir.join("peak.json");
        std::fs::write(&path, serde_json::to_string_pretty(self)? + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(path)
    }

    /// A few lines for a terminal: the device, the three rates, and how far
    /// each is from the datasheet.
    pub fn summary(&self) -> String {
        let clock =
            self.clock_khz.map_or("clock unknown".to_owned(), |k| format!("{:.3} GHz", f64::from(k) / 1e6));
        let sheet = crate::bound::machine_for_arch(&self.device, self.arch, None);
        let of = |x: f64, sheet: Option<f64>| {
            sheet.map_or(String::new(), |s| format!("  ({:.1}% of the datasheet's {s:.1})", 100.0 * x / s))
        };
        let mut out = format!(
            "{} (sm_{}, {} SMs, {clock}, driver {}):\n",
            self.device, self.arch, self.sm_count, self.driver
        );
        out += &format!(
            "  FP32 FMA {:>8.2} TFLOP/s{}\n",
            self.fp32_tflops,
            of(self.fp32_tflops, sheet.as_ref().map(|g| g.peak_tflops(Pipe::Fp32)))
        );
        out += &format!(
            "  FP64 FMA {:>8.2} TFLOP/s{}\n",
            self.fp64_tflops,
            of(self.fp64_tflops, sheet.as_ref().map(|g| g.peak_tflops(Pipe::Fp64)))
        );
        out += &format!("  copy     {:>8.1} GB/s (read + written)\n", self.copy_gbps);
        for r in &self.runs {
            out += &format!(
                "  {:<10} {:>6} blocks x {} threads, {:>3} registers, median {:.3} ms (min {:.3}, max {:.3})\n",
                r.kernel, r.grid, r.block, r.registers, r.median_ms, r.min_ms, r.max_ms
            );
        }
        out
    }
}

pub fn run(args: Args) -> Result<()> {
    if let Some(archs) = &args.ptxas {
        return assemble(archs);
    }
    let settings = Settings {
        trips: args.trips,
        copy_mib: args.copy_mib,
        plan: Plan { warmup: args.warmup, reps: args.reps },
    };
    let gemm = Gemm::open(0).context("cargo xtask peak measures a GPU")?;
    let report = measure(&gemm, settings)?;
    print!("{}", report.summary());
    let path = report.write(&args.out)?;
    println!("wrote {}", path.display());
    Ok(())
}

/// The peak a `bench` or `tune` run compares with: `file` when given,
/// else measured now on `gemm` (with [`Settings::DEFAULT`]) and written to
/// `<out>/peak.json`, else (no GPU) `<out>/peak.json` if there is one.
pub fn for_run(gemm: Option<&Gemm>, file: Option<&Path>, out: &Path) -> Result<Option<PeakReport>> {
    if let Some(file) = file {
        return PeakReport::read(file).map(Some);
    }
    match gemm {
        Some(gemm) => {
            let report =
                measure(gemm, Settings::DEFAULT).context("measuring the peak (or pass --peak FILE)")?;
            print!("measured peak: {}", report.summary());
            report.write(out)?;
            Ok(Some(report))
        }
        None => {
            let path = out.join("peak.json");
            if path.is_file() { PeakReport::read(&path).map(Some) } else { Ok(None) }
        }
    }
}

/// Measures the three kernels on `gemm`'s device and stream.
pub fn measure(gemm: &Gemm, settings: Settings) -> Result<PeakReport> {
    if settings.trips == 0 || settings.copy_mib == 0 || settings.plan.reps == 0 {
        bail!("--trips, --copy-mib and --reps must be at least 1");
    }
    let device = gemm.device();
    let (major, minor) = device.driver_version_pair();
    let mut runs = Vec::new();
    let fp32 = measure_fma(gemm, Pipe::Fp32, settings.trips, settings.plan)?;
    let fp64 = measure_fma(gemm, Pipe::Fp64, settings.trips.div_ceil(2), settings.plan)?;
    let copy = measure_copy(gemm, settings.copy_mib, settings.plan)?;
    let (fp32_tflops, fp64_tflops, copy_gbps) = (fp32.rate(1e12), fp64.rate(1e12), copy.rate(1e9));
    runs.extend([fp32, fp64, copy]);
    Ok(PeakReport {
        device: device.name.clone(),
        arch: device.arch(),
        sm_count: device.sm_count,
        clock_khz: device.clock_khz,
        driver: format!("{major}.{minor}"),
        generator: gemm_codegen::VERSION.to_owned(),
        fp32_tflops,
        fp64_tflops,
        copy_gbps,
        runs,
    })
}

/// Loads `module`'s kernel `entry` and returns it with a one-wave grid.
fn load(gemm: &Gemm, module: &ptx::Module, entry: &str) -> Result<(CudaFunction, u32, u32)> {
    let text = ptx::write_string(module);
    let loaded =
        gemm.context().load_module(Ptx::from_src(text)).with_context(|| format!("loading {entry}"))?;
    let function = loaded.load_function(entry).with_context(|| format!("finding {entry}"))?;
    let per_sm = function
        .occupancy_max_active_blocks_per_multiprocessor(kernels::BLOCK, 0, None)
        .with_context(|| format!("occupancy of {entry}"))?;
    if per_sm == 0 {
        bail!("{entry}: no block of {} threads fits on an SM", kernels::BLOCK);
    }
    let registers = function.num_regs().with_context(|| format!("registers of {entry}"))?.max(0) as u32;
    Ok((function, gemm.device().sm_count * per_sm, registers))
}

/// Times `launch` (queueing one launch) under `plan`.
fn time(
    gemm: &Gemm,
    plan: Plan,
    mut launch: impl FnMut() -> Result<(), gemm_host::GemmError>,
) -> Result<Timing> {
    Ok(timing::repeat(gemm.stream(), plan, |_| launch())?)
}

fn config(grid: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (kernels::BLOCK, 1, 1), shared_mem_bytes: 0 }
}

fn measure_fma(gemm: &Gemm, pipe: Pipe, trips: u32, plan: Plan) -> Result<PeakRun> {
    let entry = kernels::fma_entry(pipe);
    let (function, grid, registers) = load(gemm, &kernels::fma(pipe), entry)?;
    let threads = u64::from(grid) * u64::from(kernels::BLOCK);
    let stream = gemm.stream();
    let driver = |what: &'static str| gemm_host::GemmError::driver(format!("{what} {entry}"));
    // a = 1, b = 1/2: acc_i = i + n/2, so the result can be checked.
    let (a, b) = (1.0, 0.5);
    let (timing, got) = match pipe {
        Pipe::Fp32 => {
            let mut out = stream.alloc_zeros::<f32>(threads as usize).map_err(driver("allocating for"))?;
            let (af, bf) = (a as f32, b as f32);
            let timing = time(gemm, plan, || {
                let mut launch = stream.launch_builder(&function);
                launch.arg(&mut out).arg(&trips).arg(&af).arg(&bf);
                // SAFETY: the arguments are `peak_ffma`'s (out: one f32 per
                // thread of the grid, trips, a, b), in its order; `out` has
                // `threads` elements and the kernel writes one per thread.
                unsafe { launch.launch(config(grid)) }.map(drop).map_err(driver("launching"))
            })?;
            (timing, f64::from(stream.clone_dtoh(&out).map_err(driver("reading the output of"))?[0]))
        }
        Pipe::Fp64 => {
            let mut out = stream.alloc_zeros::<f64>(threads as usize).map_err(driver("allocating for"))?;
            let timing = time(gemm, plan, || {
                let mut launch = stream.launch_builder(&function);
                launch.arg(&mut out).arg(&trips).arg(&a).arg(&b);
                // SAFETY: as for `peak_ffma`, with f64 values.
                unsafe { launch.launch(config(grid)) }.map(drop).map_err(driver("launching"))
            })?;
            (timing, stream.clone_dtoh(&out).map_err(driver("reading the output of"))?[0])
        }
    };
    let want = kernels::fma_expected(pipe, trips, a, b);
    if got != want {
        bail!("{entry} computed {got}, not {want}: its timing would not mean anything");
    }
    let flops = 2.0 * threads as f64 * kernels::fmas_per_thread(trips) as f64;
    Ok(run_of(entry, grid, registers, flops, timing))
}

fn measure_copy(gemm: &Gemm, mib: u64, plan: Plan) -> Result<PeakRun> {
    let entry = kernels::COPY_ENTRY;
    let (function, grid, registers) = load(gemm, &kernels::copy(), entry)?;
    let stream = gemm.stream();
    let driver = |what: &'static str| gemm_host::GemmError::driver(format!("{what} {entry}"));
    let vectors = mib * (1 << 20) / 16;
    let words = (vectors * 4) as usize;
    let src: Vec<u32> = (0..words as u32).collect();
    let src = stream.clone_htod(&src).map_err(driver("uploading the source of"))?;
    let mut dst = stream.alloc_zeros::<u32>(words).map_err(driver("allocating for"))?;
    let timing = time(gemm, plan, || {
        let mut launch = stream.launch_builder(&function);
        launch.arg(&src).arg(&mut dst).arg(&vectors);
        // SAFETY: `peak_copy(src, dst, n)` reads and writes `n` 16-byte
        // vectors; both buffers hold `4 n` u32 words, and they do not overlap.
        unsafe { launch.launch(config(grid)) }.map(drop).map_err(driver("launching"))
    })?;
    let back = stream.clone_dtoh(&dst).map_err(driver("reading the output of"))?;
    if let Some(i) = back.iter().enumerate().position(|(i, &w)| w != i as u32) {
        bail!("{entry} left word {i} of the destination wrong: its timing would not mean anything");
    }
    Ok(run_of(entry, grid, registers, 2.0 * 16.0 * vectors as f64, timing))
}

fn run_of(kernel: &str, grid: u32, registers: u32, work: f64, t: Timing) -> PeakRun {
    PeakRun {
        kernel: kernel.to_owned(),
        grid,
        block: kernels::BLOCK,
        registers,
        work,
        median_ms: t.median_ms,
        min_ms: t.min_ms,
        max_ms: t.max_ms,
    }
}

/// The three kernels' PTX, by entry name.
pub fn ptx_texts() -> [(&'static str, String); 3] {
    [
        (kernels::fma_entry(Pipe::Fp32), ptx::write_string(&kernels::fma(Pipe::Fp32))),
        (kernels::fma_entry(Pipe::Fp64), ptx::write_string(&kernels::fma(Pipe::Fp64))),
        (kernels::COPY_ENTRY, ptx::write_string(&kernels::copy())),
    ]
}

/// `--ptxas`: assembles each kernel for each architecture and prints its
/// registers and spills.
fn assemble(archs: &[String]) -> Result<()> {
    let ptxas = crate::ptxas::ensure_ptxas()?;
    let scratch = crate::ptxas::tempdir()?;
    for (entry, text) in ptx_texts() {
        for arch in archs {
            let r = crate::ptxas::assemble(&ptxas, &text, arch, &scratch.join(entry))?;
            println!(
                "{entry:<10} {arch:<6} {:>3} registers, {} bytes spilled",
                r.registers,
                r.spill_stores + r.spill_loads
            );
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PeakReport {
        PeakReport {
            device: "NVIDIA H100 80GB HBM3".into(),
            arch: 90,
            sm_count: 132,
            clock_khz: Some(1_980_000),
            driver: "13.0".into(),
            generator: gemm_codegen::VERSION.into(),
            fp32_tflops: 59.5,
            fp64_tflops: 29.8,
            copy_gbps: 2950.0,
            runs: vec![PeakRun {
                kernel: "peak_ffma".into(),
                grid: 1056,
                block: 256,
                registers: 24,
                work: 1.1e12,
                median_ms: 18.5,
                min_ms: 18.4,
                max_ms: 18.7,
            }],
        }
    }

    #[test]
    fn peak_json_round_trips_and_reads_back() {
        let dir = std::env::temp_dir().join(format!("gemmforge-peak-{}", std::process::id()));
        let report = sample();
        let path = report.write(&dir).unwrap();
        assert_eq!(PeakReport::read(&path).unwrap(), report);
        // Without a GPU a run finds it in its --out; --peak names any file.
        assert_eq!(for_run(None, None, &dir).unwrap(), Some(report.clone()));
        assert_eq!(for_run(None, Some(&path), Path::new("/nonexistent")).unwrap(), Some(report));
        assert_eq!(for_run(None, None, Path::new("/nonexistent")).unwrap(), None);
        std::fs::write(&path, "{}").unwrap();
        let err = PeakReport::read(&path).unwrap_err();
        assert!(format!("{err:#}").contains("is not a peak.json"), "{err:#}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn summary_compares_with_the_datasheet() {
        let text = sample().summary();
        assert!(
            text.starts_with("NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 1.980 GHz, driver 13.0):"),
            "{text}"
        );
        assert!(text.contains("FP32 FMA    59.50 TFLOP/s  (88.9% of the datasheet's 66.9)"), "{text}");
        assert!(text.contains("FP64 FMA    29.80 TFLOP/s  (89.1% of the datasheet's 33.5)"), "{text}");
        assert!(text.contains("copy       2950.0 GB/s"), "{text}");
        assert!(
            text.contains("peak_ffma    1056 blocks x 256 threads,  24 registers, median 18.500 ms"),
            "{text}"
        );
        assert!((sample().runs[0].rate(1e12) - 1.1e12 / 18.5e-3 / 1e12).abs() < 1e-12);
    }

    /// Every peak kernel assembles for sm_90 (with a ptxas at hand; `cargo
    /// xtask test` makes sure there is one), spills nothing and keeps at
    /// least half the SM's threads resident (64 registers or fewer).
    #[test]
    fn kernels_assemble_for_sm_90() {
        let Some(ptxas) = crate::ptxas::find_ptxas().unwrap() else {
            assert!(
                std::env::var_os("GEMMFORGE_REQUIRE_PTXAS").is_none(),
                "GEMMFORGE_REQUIRE_PTXAS is set but no ptxas"
            );
            eprintln!("skipped: no ptxas (run `cargo xtask ptxas` once to install it)");
            return;
        };
        let scratch = crate::ptxas::tempdir().unwrap();
        for (entry, text) in ptx_texts() {
            let r = crate::ptxas::assemble(&ptxas, &text, "sm_90", &scratch.join(entry)).unwrap();
            assert_eq!(r.spill_stores + r.spill_loads, 0, "{entry}");
            assert!(r.registers <= 64, "{entry}: {} registers", r.registers);
        }
        let _ = std::fs::remove_dir_all(&scratch);
    }
}
