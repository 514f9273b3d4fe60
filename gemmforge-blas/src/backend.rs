//! Where a checked call runs: configuration from the environment, routing,
//! and the log.
//!
//! | variable | values | default |
//! | --- | --- | --- |
//! | `GEMMFORGE_BLAS_BACKEND` | `auto`: the GPU for calls of at least `GEMMFORGE_BLAS_THRESHOLD` multiply-adds, the CPU BLAS below it or without a GPU; `gpu`, `emulate` (the PTX emulator), `cpu`: every call there | `auto` |
//! | `GEMMFORGE_BLAS_DEVICE` | CUDA device ordinal | `0` |
//! | `GEMMFORGE_BLAS_THRESHOLD` | `m·n·k` (a batch: summed over its problems) below which `auto` runs a call on the CPU, for every precision | [`default_threshold`]: measured per precision |
//! | `GEMMFORGE_BLAS_CHUNK_BYTES` | streamed bytes per chunk of the staging pipeline ([`crate::staging`]) | [`Tuning::default`]'s (8 MiB) |
//! | `GEMMFORGE_BLAS_CPU_LIB` | path of the CPU BLAS when none follows this library | none |
//! | `GEMMFORGE_BLAS_LOG` | `1` or `stderr`: one line per call on stderr; any other value: a file appended to | off |
//!
//! The environment is read once, on the first call. A value that cannot be
//! read is reported once and the default used. The GPU or the emulator
//! failing (no driver, no device, an error) never ends the program: the
//! call runs on the CPU, with one warning per process. A call whose `m`,
//! `n` or `k` is past `i32::MAX` (only the ILP64 symbols can pass one),
//! which the kernels cannot index, runs on the CPU whatever the backend.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use gemm_codegen::Precision;
use gemm_host::validate::StridedBatch;
use gemm_host::{GemmConfig, GemmError, Layout, Matrix};

use crate::cpu::{self, CpuBlas};
use crate::pointers::{self, Memory};
use crate::scalar::Scalar;
use crate::staging::{Operand, Plan, Tuning};
use crate::{emulated, gpu, gpu_batch};

/// `m·n·k` from which `auto` uses the GPU when `GEMMFORGE_BLAS_THRESHOLD`
/// is not set: the smallest square size from which the GPU path, copies
/// included, beat the CPU BLAS at every larger size measured — `cargo
/// xtask blas-bench`'s crossover on an H100 machine against NumPy 2.5's
/// OpenBLAS on its 16 cores (`tuning/sm_90-blas/numpy/`): 1024³ for
/// SGEMM, 512³ DGEMM, 384³ CGEMM, 128³ ZGEMM. A host with a faster (or
/// slower) CPU BLAS moves it; set the variable there.
pub const fn default_threshold(precision: Precision) -> u128 {
    let n: u128 = match precision {
        Precision::F32 => 1024,
        Precision::F64 => 512,
        Precision::C32 => 384,
        Precision::C64 => 128,
        // Not BLAS routines: the library has no CPU path for them.
        Precision::F16 | Precision::Bf16 => 0,
    };
    n * n * n
}

/// `GEMMFORGE_BLAS_BACKEND`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The GPU above the threshold, the CPU below it or without a GPU.
    Auto,
    /// Every call on the GPU (the CPU when there is none).
    Gpu,
    /// Every call in the PTX emulator.
    Emulate,
    /// Every call on the CPU BLAS.
    Cpu,
}

/// Where the log goes.
#[derive(Debug)]
pub enum Log {
    /// No log.
    Off,
    /// Standard error.
    Stderr,
    /// A file, appended to.
    File(Mutex<File>),
}

/// The library's configuration.
#[derive(Debug)]
pub struct Config {
    /// `GEMMFORGE_BLAS_BACKEND`.
    pub backend: Backend,
    /// `GEMMFORGE_BLAS_DEVICE`.
    pub device: usize,
    /// `GEMMFORGE_BLAS_THRESHOLD` (else [`default_threshold`]'s per precision).
    pub threshold: Option<u128>,
    /// `GEMMFORGE_BLAS_CHUNK_BYTES`.
    pub chunk_bytes: usize,
    /// `GEMMFORGE_BLAS_CPU_LIB`.
    pub cpu_lib: Option<PathBuf>,
    /// `GEMMFORGE_BLAS_LOG`.
    pub log: Log,
}

impl Config {
    /// The configuration `var` (an environment) describes, and a message for
    /// each value that could not be used.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> (Config, Vec<String>) {
        let mut problems = Vec::new();
        let backend = match var("GEMMFORGE_BLAS_BACKEND").as_deref().map(str::trim) {
            None | Some("") => Backend::Auto,
            Some(v) => match v.to_ascii_lowercase().as_str() {
                "auto" => Backend::Auto,
                "gpu" => Backend::Gpu,
                "emulate" => Backend::Emulate,
                "cpu" => Backend::Cpu,
                _ => {
                    problems.push(format!(
                        "GEMMFORGE_BLAS_BACKEND={v}: not auto, gpu, emulate or cpu; using auto"
                    ));
                    Backend::Auto
                }
            },
        };
        let mut number = |name: &str, default: u128| match var(name) {
            None => default,
            Some(v) => v.trim().parse().unwrap_or_else(|_| {
                problems.push(format!("{name}={v}: not a non-negative integer; using {default}"));
                default
            }),
        };
        let device = usize::try_from(number("GEMMFORGE_BLAS_DEVICE", 0)).unwrap_or(0);
        let default_chunk = Tuning::default().chunk_bytes;
        let chunk_bytes = usize::try_from(number("GEMMFORGE_BLAS_CHUNK_BYTES", default_chunk as u128))
            .unwrap_or(default_chunk)
            .max(1);
        let threshold = var("GEMMFORGE_BLAS_THRESHOLD").and_then(|v| match v.trim().parse() {
            Ok(t) => Some(t),
            Err(_) => {
                problems.push(format!(
                    "GEMMFORGE_BLAS_THRESHOLD={v}: not a non-negative integer; using the measured defaults"
                ));
                None
            }
        });
        let cpu_lib = var("GEMMFORGE_BLAS_CPU_LIB").filter(|v| !v.is_empty()).map(PathBuf::from);
        let log = match var("GEMMFORGE_BLAS_LOG").as_deref() {
            None | Some("" | "0") => Log::Off,
            Some("1" | "stderr") => Log::Stderr,
            Some(path) => match OpenOptions::new().create(true).append(true).open(path) {
                Ok(f) => Log::File(Mutex::new(f)),
                Err(e) => {
                    problems.push(format!("GEMMFORGE_BLAS_LOG={path}: {e}; logging to stderr"));
                    Log::Stderr
                }
            },
        };
        (Config { backend, device, threshold, chunk_bytes, cpu_lib, log }, problems)
    }

    /// The threshold of `E`'s calls.
    pub fn threshold<E: Scalar>(&self) -> u128 {
        self.threshold.unwrap_or(default_threshold(E::PRECISION))
    }

    /// How the staging pipeline cuts a call.
    pub fn tuning(&self) -> Tuning {
        Tuning { chunk_bytes: self.chunk_bytes, ..Tuning::default() }
    }

    /// Writes one line to the log, if there is one.
    pub fn log(&self, line: fmt::Arguments<'_>) {
        match &self.log {
            Log::Off => {}
            Log::Stderr => eprintln!("gemmforge-blas: {line}"),
            Log::File(f) => {
                if let Ok(mut f) = f.lock() {
                    // A log that cannot be written is not worth failing a GEMM for.
                    let _ = writeln!(f, "gemmforge-blas: {line}");
                }
            }
        }
    }
}

/// The process's configuration, read from the environment on first use.
pub fn config() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(|| {
        let (config, problems) = Config::from_vars(|name| std::env::var(name).ok());
        for p in problems {
            eprintln!("gemmforge-blas: warning: {p}");
        }
        config
    })
}

/// A warning on stderr (and in a log file, if one is set).
pub fn warn(message: &str) {
    eprintln!("gemmforge-blas: warning: {message}");
    let config = config();
    if let Log::File(_) = config.log {
        config.log(format_args!("warning: {message}"));
    }
}

/// [`warn`], once per `flag`.
pub fn warn_once(flag: &AtomicBool, message: &str) {
    if !flag.swap(true, Ordering::Relaxed) {
        warn(message);
    }
}

/// Where a call ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Nothing to compute (BLAS's quick returns).
    QuickReturn,
    /// On the GPU.
    Gpu,
    /// In the PTX emulator.
    Emulate,
    /// On the GPU, with operands in device memory used in place.
    GpuInPlace,
    /// On the CPU.
    Cpu(CpuBlas),
    /// Not run: operands in device memory that no GPU could use (C as it
    /// was, unless the GPU failed part-way through writing it).
    Unrun,
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Path::QuickReturn => "none (quick return)",
            Path::Gpu => "gpu",
            Path::GpuInPlace => "gpu (device memory in place)",
            Path::Unrun => "none (device memory no GPU could use)",
            Path::Emulate => "emulate",
            Path::Cpu(CpuBlas::System) => "cpu (system BLAS)",
            Path::Cpu(CpuBlas::Builtin) => "cpu (built-in reference loops)",
        })
    }
}

/// One checked call: which entry point, and the column-major call it makes.
#[derive(Clone, Copy, Debug)]
pub struct Call<'a, E> {
    /// The entry point, for the log (`"sgemm_"`, `"cblas_sgemm"`).
    pub routine: &'a str,
    /// The column-major call, checked ([`crate::args`]).
    pub cfg: GemmConfig<E>,
    /// A.
    pub a: *const E,
    /// B.
    pub b: *const E,
    /// C.
    pub c: *mut E,
    /// The caller's layout (CBLAS's `Order`), for the log: a row-major call
    /// is logged with the caller's ops and sizes.
    pub layout: Layout,
}

/// Multiply-adds of a call.
fn work<E>(cfg: &GemmConfig<E>) -> u128 {
    // Saturating: three ILP64 sizes can overflow even a u128.
    let d = |v: i64| u128::try_from(v).unwrap_or(0);
    d(cfg.m).saturating_mul(d(cfg.n)).saturating_mul(d(cfg.k))
}

/// Runs `call` where `config` sends it, logs it, and says where it ran.
///
/// Operands in device (or managed) memory ([`pointers::classify`]) make
/// the call run on their GPU whatever the backend: nothing else can read
/// them. Otherwise `emulate` runs it in the PTX emulator, `gpu` and `auto`
/// (from the threshold on) on GPU [`Config::device`], and the rest on the
/// CPU BLAS. The emulator and the GPU run the staging pipeline
/// ([`crate::staging`]); if either fails, the chunks it had not finished
/// run on the CPU.
///
/// # Safety
/// `call`'s pointers hold its matrices ([`GemmConfig::required_len`]
/// elements each; A and B are not read when `alpha = 0` or `k = 0`), C
/// overlapping neither A nor B.
pub unsafe fn run<E: Scalar>(config: &Config, call: &Call<'_, E>) -> Path {
    let cfg = unread_product(&call.cfg);
    let path = if quick_return(&cfg) {
        Path::QuickReturn
    } else {
        // SAFETY: the caller's contract.
        unsafe { route(config, &cfg, (call.a, call.b, call.c)) }
    };
    log_call(config, call, None, path);
    path
}

/// Runs the strided batch `batch` of `call` (problem `i`'s matrices `i`
/// strides past `call`'s pointers, the strides those of `call.cfg`'s
/// column-major A, B and C) where `config` sends it, logs it, and says
/// where it ran. `auto` weighs the whole batch's multiply-adds against the
/// threshold.
///
/// # Safety
/// `call`'s pointers hold every problem's matrices: `(count − 1) · stride`
/// elements and one problem's extent ([`GemmConfig::required_len`]) each
/// (A and B are not read when `alpha = 0` or `k = 0`). `batch` is checked
/// ([`crate::args::batch`]), and C's span overlaps neither A's nor B's.
pub unsafe fn run_batch<E: Scalar>(config: &Config, call: &Call<'_, E>, batch: &StridedBatch) -> Path {
    let cfg = unread_product(&call.cfg);
    // A and B unread: no problem past the first needs them either.
    let unread = if cfg.k == 0 { StridedBatch { stride_a: 0, stride_b: 0, ..*batch } } else { *batch };
    let memory = || pointers::of_call(cfg.k > 0, [call.a.cast(), call.b.cast(), call.c.cast()]);
    let path = if batch.count == 0 || quick_return(&cfg) {
        Path::QuickReturn
    } else if let Some((memory, device)) = Some(memory()).and_then(|m| Some((m, pointers::device_of(&m)?))) {
        // Device memory: its GPU, whatever the backend (nothing else can read it).
        let (a, b, c) = (call.a, call.b, call.c);
        let ran = match device.filter(|_| launchable(&cfg)) {
            // SAFETY: the caller's contract; the device operands are on `ordinal`.
            Some(ordinal) => unsafe { gpu_batch::run(ordinal, &cfg, &unread, (a, b, c), memory) },
            None => false,
        };
        if ran {
            Path::GpuInPlace
        } else {
            static SAID: AtomicBool = AtomicBool::new(false);
            warn_once(&SAID, "a strided batch on device memory could not run on its GPU: C may be unchanged");
            Path::Unrun
        }
    } else {
        let count = u128::try_from(batch.count).unwrap_or(0);
        let on_gpu = launchable(&cfg)
            && match config.backend {
                Backend::Cpu | Backend::Emulate => false,
                Backend::Gpu => true,
                Backend::Auto => work(&cfg).saturating_mul(count) >= config.threshold::<E>(),
            };
        let (a, b, c) = (call.a, call.b, call.c);
        let batch = &unread;
        if config.backend == Backend::Emulate && launchable(&cfg) {
            // SAFETY: the caller's contract.
            let emulated = unsafe { batch_slices(&cfg, batch, a, b, c) }
                .and_then(|slices| gpu_batch::emulate(&cfg, batch, slices));
            match emulated {
                Ok(()) => Path::Emulate,
                Err(e) => {
                    static SAID: AtomicBool = AtomicBool::new(false);
                    warn_once(&SAID, &format!("the PTX emulator failed ({e}); running on the CPU"));
                    // SAFETY: the caller's contract.
                    Path::Cpu(unsafe { cpu::gemm_batch(&cfg, batch, a, b, c) })
                }
            }
        } else if on_gpu && {
            // SAFETY: the caller's contract, every operand in host memory.
            unsafe { gpu_batch::run(config.device, &cfg, batch, (a, b, c), [Memory::Host; 3]) }
        } {
            Path::Gpu
        } else {
            // SAFETY: the caller's contract.
            Path::Cpu(unsafe { cpu::gemm_batch(&cfg, batch, a, b, c) })
        }
    };
    log_call(config, call, Some(batch), path);
    path
}

/// Whether the kernels can index the call: `m`, `n`, `k` ≤ `i32::MAX`
/// (`gemm_host::validate::MAX_DIM`). Larger sizes, which only the ILP64
/// symbols pass, run on the CPU whatever the backend.
fn launchable<E>(cfg: &GemmConfig<E>) -> bool {
    [cfg.m, cfg.n, cfg.k].into_iter().all(|d| d <= gemm_host::validate::MAX_DIM)
}

/// BLAS's quick returns of a call through [`unread_product`]: C empty, or
/// `C = 1·C`.
fn quick_return<E: Scalar>(cfg: &GemmConfig<E>) -> bool {
    cfg.m == 0 || cfg.n == 0 || (cfg.k == 0 && cfg.beta == E::ONE)
}

/// The log line of a call (and its batch): the caller's layout, ops, sizes
/// and strides (a row-major call's, not the column-major call's), flops.
fn log_call<E: Scalar>(config: &Config, call: &Call<'_, E>, batch: Option<&StridedBatch>, path: Path) {
    let c = &call.cfg;
    let complex = if E::PRECISION.is_complex() { 4 } else { 1 };
    let (order, (op_a, op_b), (m, n)) = match call.layout {
        Layout::ColMajor => ("", (c.op_a, c.op_b), (c.m, c.n)),
        Layout::RowMajor => ("row-major ", (c.op_b, c.op_a), (c.n, c.m)),
    };
    let (count, strides) = match batch {
        None => (1, String::new()),
        Some(b) => {
            let (sa, sb) = match call.layout {
                Layout::ColMajor => (b.stride_a, b.stride_b),
                Layout::RowMajor => (b.stride_b, b.stride_a),
            };
            let count = u128::try_from(b.count).unwrap_or(0);
            (count, format!(" batch={} stridea={sa} strideb={sb} stridec={}", b.count, b.stride_c))
        }
    };
    config.log(format_args!(
        "{} {order}transa={op_a:?} transb={op_b:?} m={m} n={n} k={}{strides} flop={} path={path}",
        call.routine,
        c.k,
        (2 * complex * count).saturating_mul(work(c)),
    ));
}

/// [`run`] past the quick returns: `cfg` has `m, n ≥ 1` and has been
/// through [`unread_product`].
///
/// # Safety
/// As for [`run`].
unsafe fn route<E: Scalar>(
    config: &Config,
    cfg: &GemmConfig<E>,
    (a, b, c): (*const E, *const E, *mut E),
) -> Path {
    let tuning = config.tuning();
    let memory = pointers::of_call(cfg.k > 0, [a.cast(), b.cast(), c.cast()]);
    let ld = |v: i64| usize::try_from(v).unwrap_or(0);
    let lds = [ld(cfg.lda), ld(cfg.ldb), ld(cfg.ldc)];
    let ptrs = [a.cast_mut(), b.cast_mut(), c];
    if let Some(device) = pointers::device_of(&memory) {
        let Some(ordinal) = device.filter(|_| launchable(cfg)) else {
            static SAID: AtomicBool = AtomicBool::new(false);
            warn_once(
                &SAID,
                "a GEMM on device memory with operands on different GPUs or sizes past 2^31 - 1: \
                 not supported, C left unchanged",
            );
            return Path::Unrun;
        };
        let operands: [Operand<E>; 3] = std::array::from_fn(|i| match memory[i] {
            Memory::Device { .. } => Operand::Device { addr: ptrs[i] as u64, ld: lds[i] },
            Memory::Host => Operand::Host { ptr: ptrs[i], ld: lds[i] },
        });
        // SAFETY: the caller's contract; the device operands are on `ordinal`.
        return match unsafe { gpu::run(ordinal, cfg, tuning, operands) } {
            gpu::Outcome::Done => Path::GpuInPlace,
            gpu::Outcome::NoGpu | gpu::Outcome::Failed(..) => {
                static SAID: AtomicBool = AtomicBool::new(false);
                warn_once(&SAID, "a GEMM on device memory could not run on its GPU: C may be unchanged");
                Path::Unrun
            }
        };
    }
    let on_gpu = launchable(cfg)
        && match config.backend {
            Backend::Cpu | Backend::Emulate => false,
            Backend::Gpu => true,
            Backend::Auto => work(cfg) >= config.threshold::<E>(),
        };
    // Runs the chunks from `done` on on the CPU.
    let rest = |plan: &Plan, done: usize| {
        let (rest, (a, b, c)) = plan.rest(cfg, done, (a, b, c));
        // SAFETY: the caller's contract, for the part of the call not yet done.
        unsafe { cpu::gemm(&rest, a, b, c) }
    };
    if config.backend == Backend::Emulate && launchable(cfg) {
        // SAFETY: the caller's contract.
        match unsafe { emulated::run(cfg, tuning, (a, b, c)) } {
            Ok(()) => Path::Emulate,
            Err(failed) => {
                let (failure, plan) = *failed;
                static SAID: AtomicBool = AtomicBool::new(false);
                let e = &failure.error;
                warn_once(&SAID, &format!("the PTX emulator failed ({e}); running on the CPU"));
                Path::Cpu(rest(&plan, failure.done))
            }
        }
    } else if on_gpu {
        let operands: [Operand<E>; 3] = std::array::from_fn(|i| Operand::Host { ptr: ptrs[i], ld: lds[i] });
        // SAFETY: the caller's contract.
        match unsafe { gpu::run(config.device, cfg, tuning, operands) } {
            gpu::Outcome::Done => Path::Gpu,
            // SAFETY: the caller's contract.
            gpu::Outcome::NoGpu => Path::Cpu(unsafe { cpu::gemm(cfg, a, b, c) }),
            gpu::Outcome::Failed(failure, plan) => Path::Cpu(rest(&plan, failure.done)),
        }
    } else {
        // SAFETY: the caller's contract.
        Path::Cpu(unsafe { cpu::gemm(cfg, a, b, c) })
    }
}

/// The call with `k = 0` and `alpha = 0` when `alpha = 0` or `k = 0`: the
/// same result (`C = beta·C`, or 0 for `beta = 0`), with A and B empty so
/// that nothing reads them.
pub fn unread_product<E: Scalar>(cfg: &GemmConfig<E>) -> GemmConfig<E> {
    let mut cfg = *cfg;
    if cfg.alpha == E::ZERO || cfg.k == 0 {
        cfg.k = 0;
        cfg.alpha = E::ZERO;
    }
    cfg
}

/// A call's A, B and C as host slices.
pub type HostSlices<'a, E> = (&'a [E], &'a [E], &'a mut [E]);

/// A checked batch's matrices as slices of their spans, from problem 0's
/// first element to the last problem's last (empty for an empty matrix,
/// whatever its pointer); an error for a span no slice can have.
///
/// # Safety
/// As for [`run_batch`], with `cfg` and `batch` through [`unread_product`]
/// (A's and B's strides 0 when they are not read).
pub unsafe fn batch_slices<'a, E: Scalar>(
    cfg: &GemmConfig<E>,
    batch: &StridedBatch,
    a: *const E,
    b: *const E,
    c: *mut E,
) -> Result<HostSlices<'a, E>, GemmError> {
    let [la, lb, lc] = batch_spans(cfg, batch)?;
    // SAFETY: non-null pointers to at least `len` elements (within
    // isize::MAX bytes), by the caller's contract.
    unsafe {
        Ok((
            if la == 0 || a.is_null() { &[] } else { std::slice::from_raw_parts(a, la) },
            if lb == 0 || b.is_null() { &[] } else { std::slice::from_raw_parts(b, lb) },
            if lc == 0 || c.is_null() { &mut [] } else { std::slice::from_raw_parts_mut(c, lc) },
        ))
    }
}

/// Elements of A's, B's and C's spans in a batch: `(count − 1) · stride`
/// and one problem's extent (0 for an empty matrix), or an error when one
/// is past `isize::MAX` bytes.
pub fn batch_spans<E: Scalar>(cfg: &GemmConfig<E>, batch: &StridedBatch) -> Result<[usize; 3], GemmError> {
    let too_large = || GemmError::AllocTooLarge { len: usize::MAX, precision: E::PRECISION };
    let max = isize::MAX as u128 / std::mem::size_of::<E>() as u128;
    let span = |m: Matrix| {
        let (one, stride) = (u128::from(cfg.required_len(m)), u128::try_from(batch.stride(m)).unwrap_or(0));
        let count = u128::try_from(batch.count).unwrap_or(0);
        let span = if one == 0 || count == 0 { 0 } else { (count - 1) * stride + one };
        usize::try_from(span).ok().filter(|&s| s as u128 <= max).ok_or_else(too_large)
    };
    Ok([span(Matrix::A)?, span(Matrix::B)?, span(Matrix::C)?])
}

/// The call's matrices as slices of their extents (empty for an empty
/// matrix, whatever its pointer).
///
/// # Safety
/// As for [`run`], with `cfg` already through [`unread_product`].
pub unsafe fn host_slices<'a, E: Scalar>(
    cfg: &GemmConfig<E>,
    a: *const E,
    b: *const E,
    c: *mut E,
) -> (&'a [E], &'a [E], &'a mut [E]) {
    let len = |m| usize::try_from(cfg.required_len(m)).unwrap_or(usize::MAX);
    let (la, lb, lc) = (len(Matrix::A), len(Matrix::B), len(Matrix::C));
    // SAFETY: non-null pointers to at least `len` elements, by the caller's contract.
    unsafe {
        (
            if la == 0 || a.is_null() { &[] } else { std::slice::from_raw_parts(a, la) },
            if lb == 0 || b.is_null() { &[] } else { std::slice::from_raw_parts(b, lb) },
            if lc == 0 || c.is_null() { &mut [] } else { std::slice::from_raw_parts_mut(c, lc) },
        )
    }
}

#[cfg(test)]
#[path = "backend_tests.rs"]
mod tests;
