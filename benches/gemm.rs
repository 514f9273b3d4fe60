//! Criterion benches: per precision, the kernel gemm-host runs for op NN on
//! this GPU (`gemm_kernels::Dispatch::default_kernel`: tuned for the device family if
//! there is one, else Table 2) and cuBLAS, at `m = n = k` ∈ {1024, 2048,
//! 4096}, `C = A·B`.
//!
//! Throughput is in elements, one per floating-point operation, so
//! criterion's "elem/s" reads as FLOP/s. GPU work is timed with CUDA events
//! around each launch (`Gemm::time`) and the events' durations summed
//! (`iter_custom`), never with a host clock around asynchronous launches.
//! Inputs are random and rotated among enough sets to exceed twice the L2.
//!
//! ```text
//! cargo bench --bench gemm                  # every case
//! cargo bench --bench gemm -- sgemm_nn/     # one group
//! ```
//!
//! Group `{s,d,c,z}gemm_nn`, functions `gemmforge` and `cublas`, parameter
//! the size: the ids stay the same when the tuner replaces the kernel, so
//! criterion compares the new kernel with the old one's saved baseline.
//!
//! Without a GPU it prints `skipping: no CUDA GPU (<reason>)` and returns
//! (so `cargo test --benches` passes on CI), unless
//! `GEMMFORGE_REQUIRE_GPU=1`, when it fails. `cargo xtask bench` is the full
//! sweep, with a check against cuBLAS before timing.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use gemm_host::cublas::Cublas;
use gemm_host::cudarc::driver::CudaSlice;
use gemm_host::num_complex::Complex;
use gemm_host::reference::Random;
use gemm_host::{Element, Gemm, GemmConfig, GemmError, Matrix, Op};

/// `m = n = k` of the cases.
const SIZES: [i64; 3] = [1024, 2048, 4096];

fn main() {
    let gemm = match Gemm::open(0) {
        Ok(gemm) => gemm,
        Err(e) => {
            let reason = match e {
                GemmError::NoGpu { reason } => reason,
                other => other.to_string(),
            };
            if std::env::var("GEMMFORGE_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                eprintln!("benches/gemm: GEMMFORGE_REQUIRE_GPU=1 but there is no usable CUDA GPU: {reason}");
                std::process::exit(1);
            }
            eprintln!("benches/gemm: skipping: no CUDA GPU ({reason})");
            return;
        }
    };
    let cublas = match Cublas::new(gemm.stream().clone()) {
        Ok(cublas) => Some(cublas),
        Err(e) => {
            eprintln!("benches/gemm: skipping the cuBLAS cases: {e}");
            None
        }
    };
    let d = gemm.device();
    eprintln!("benches/gemm on {} (sm_{}, {} SMs)", d.name, d.arch(), d.sm_count);
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(10)
        .configure_from_args();
    let mut rng = Random::new(2026);
    let cublas = cublas.as_ref();
    precision::<f32>(&mut c, &gemm, cublas, &mut rng);
    precision::<f64>(&mut c, &gemm, cublas, &mut rng);
    precision::<Complex<f32>>(&mut c, &gemm, cublas, &mut rng);
    precision::<Complex<f64>>(&mut c, &gemm, cublas, &mut rng);
    c.final_summary();
}

/// The cases of one precision: its default NN kernel and cuBLAS at each size.
fn precision<T: Element>(c: &mut Criterion, gemm: &Gemm, cublas: Option<&Cublas>, rng: &mut Random) {
    let p = T::PRECISION;
    let entry = gemm_kernels::Dispatch::TUNED.default_kernel(gemm.device().arch(), p, Op::N, Op::N);
    let table2 = std::ptr::eq(entry, gemm_kernels::table2(p, Op::N, Op::N));
    let group_name = format!("{}gemm_nn", p.blas_letter());
    eprintln!(
        "{group_name}: gemmforge is {} ({}): {}",
        entry.name,
        if table2 { "Table 2" } else { "tuned" },
        entry.spec
    );
    let kernel = gemm.load(&entry.image()).unwrap_or_else(|e| panic!("loading {}: {e}", entry.name));
    if let Err(e) = kernel.launchable() {
        eprintln!("{group_name}: skipping gemmforge, {} cannot launch here: {e}", entry.name);
    }
    let mut group = c.benchmark_group(&group_name);
    // Launches of milliseconds: the same iteration count in every sample.
    group.sampling_mode(SamplingMode::Flat);
    for n in SIZES {
        let cfg = GemmConfig::<T>::new(Op::N, Op::N, n, n, n).alpha(T::ONE).beta(T::ZERO);
        let flops = p.flops_per_fma() * (n * n * n) as u64;
        group.throughput(Throughput::Elements(flops));
        let mut buffers = Buffers::new(gemm, &cfg, rng)
            .unwrap_or_else(|e| panic!("{group_name}: allocating the buffers of {n}³: {e}"));
        if kernel.launchable().is_ok() {
            group.bench_with_input(BenchmarkId::new("gemmforge", n), &n, |bencher, _| {
                bencher.iter_custom(|iters| {
                    buffers
                        .time(gemm, iters, |a, b, c| gemm.gemm_loaded(&kernel, &cfg, a, b, c))
                        .unwrap_or_else(|e| panic!("{group_name}: {} at {n}³: {e}", entry.name))
                })
            });
        }
        if let Some(cublas) = cublas {
            group.bench_with_input(BenchmarkId::new("cublas", n), &n, |bencher, _| {
                bencher.iter_custom(|iters| {
                    buffers
                        .time(gemm, iters, |a, b, c| cublas.gemm(&cfg, a, b, c))
                        .unwrap_or_else(|e| panic!("{group_name}: cuBLAS at {n}³: {e}"))
                })
            });
        }
    }
    group.finish();
}

/// Random A and B, in as many sets as it takes to exceed twice the L2 (1 to
/// 8), and C.
struct Buffers<T> {
    inputs: Vec<(CudaSlice<T>, CudaSlice<T>)>,
    c: CudaSlice<T>,
    /// The next input set.
    next: usize,
}

impl<T: Element> Buffers<T> {
    fn new(gemm: &Gemm, cfg: &GemmConfig<T>, rng: &mut Random) -> Result<Buffers<T>, GemmError> {
        let (a_len, b_len) = (cfg.required_len(Matrix::A) as usize, cfg.required_len(Matrix::B) as usize);
        let bytes = (a_len + b_len) * T::PRECISION.element_bytes() as usize;
        let sets = (2 * gemm.device().l2_bytes as usize).div_ceil(bytes.max(1)).clamp(1, 8);
        let mut inputs = Vec::with_capacity(sets);
        for _ in 0..sets {
            inputs.push((gemm.upload(&rng.matrix::<T>(a_len))?, gemm.upload(&rng.matrix::<T>(b_len))?));
        }
        let c = gemm.upload(&rng.matrix::<T>(cfg.required_len(Matrix::C) as usize))?;
        Ok(Buffers { inputs, c, next: 0 })
    }

    /// Runs `run` `iters` times, each launch between its own CUDA events,
    /// rotating the input sets, and returns the sum of the GPU times.
    fn time(
        &mut self,
        gemm: &Gemm,
        iters: u64,
        mut run: impl FnMut(&CudaSlice<T>, &CudaSlice<T>, &mut CudaSlice<T>) -> Result<(), GemmError>,
    ) -> Result<Duration, GemmError> {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            let (a, b) = &self.inputs[self.next % self.inputs.len()];
            self.next += 1;
            let ((), ms) = gemm.time(|| run(a, b, &mut self.c))?;
            total += Duration::from_secs_f64(f64::from(ms) / 1e3);
        }
        Ok(total)
    }
}
