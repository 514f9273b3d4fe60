//! Every kernel of `gemm-kernels`, run without a GPU: the public
//! [`Emulator`] (the GPU path's argument checking, then the kernel's PTX in
//! the emulator) on ragged shapes, checked like a GPU run by [`Case`]:
//! random inputs, NaN-poisoned C for `beta = 0`, sentinels around every
//! buffer and in every gap, the `f64` reference. Any emulator safety report
//! (out-of-bounds access, race, uninitialised read) fails the case.
//!
//! Shapes: each of m, n, k from {0, 1, tile − 1, tile + 1, 2·tile + 3} of
//! the kernel's tile. By default 25 shapes covering every pair of values of
//! every two dimensions, each with three of the nine (alpha, beta) pairs
//! from {0, 1, random}² (all nine over the shapes); `GEMMFORGE_SLOW=1` runs
//! all 125 shapes with all nine pairs.
//!
//! A stream-K kernel (`schedule = stream_k`) runs every second case as a
//! tile kernel (no share: the grid of a block per tile, as batches and
//! split K run it) and the others shared out over 1, 2, 5 or 16 blocks in
//! turn (`Case::emulate_stream_k`: tiles split between blocks, NaN-filled
//! slots, its counters back at zero after the run).

use gemm_codegen::{Element, KernelSpec, Precision};
use gemm_host::case::Case;
use gemm_host::emulate::Emulator;
use gemm_host::num_complex::Complex;
use gemm_host::reference::{self, Random};
use gemm_host::{GemmConfig, Layout, Matrix};

fn slow() -> bool {
    std::env::var("GEMMFORGE_SLOW").is_ok_and(|v| v == "1")
}

/// {0, 1, tile − 1, tile + 1, 2·tile + 3}.
fn sizes(tile: u32) -> [i64; 5] {
    let t = i64::from(tile);
    [0, 1, t - 1, t + 1, 2 * t + 3]
}

/// `(m, n, k)` shapes for `spec`: an orthogonal array of strength 2 over the
/// five sizes per dimension (every pair of values of every two dimensions
/// appears), or the full product when slow.
fn shapes(spec: &KernelSpec) -> Vec<(i64, i64, i64)> {
    let (sm, sn, sk) = (sizes(spec.m_blk), sizes(spec.n_blk), sizes(spec.k_blk));
    let mut out = Vec::new();
    for x in 0..5 {
        for y in 0..5 {
            if slow() {
                out.extend((0..5).map(|z| (sm[x], sn[y], sk[z])));
            } else {
                out.push((sm[x], sn[y], sk[(x + y) % 5]));
            }
        }
    }
    out
}

fn run_kernels<T: Element>(seed: u64) {
    let emulator = Emulator::new();
    let mut rng = Random::new(seed);
    let mut failures = Vec::new();
    let mut cases = 0;
    let kernels: Vec<_> = gemm_kernels::all().filter(|k| k.spec.precision == T::PRECISION).collect();
    assert!(kernels.len() >= 9, "gemm-kernels has every op pair of {}", T::PRECISION);
    for kernel in &kernels {
        let image = kernel.image();
        let spec = kernel.spec;
        for (i, (m, n, k)) in shapes(&spec).into_iter().enumerate() {
            let values = |rng: &mut Random| [T::ZERO, T::ONE, rng.scalar()];
            let (alphas, betas) = (values(&mut rng), values(&mut rng));
            let pairs: Vec<usize> =
                if slow() { (0..9).collect() } else { (0..3).map(|t| (3 * i + t) % 9).collect() };
            for p in pairs {
                let extra = (i % 3) as i64;
                let cfg =
                    GemmConfig::new(spec.op_a, spec.op_b, m, n, k).alpha(alphas[p / 3]).beta(betas[p % 3]);
                let cfg = cfg
                    .lda(cfg.min_ld(Matrix::A) + extra)
                    .ldb(cfg.min_ld(Matrix::B) + 2 * extra)
                    .ldc(cfg.min_ld(Matrix::C) + extra);
                cases += 1;
                if let Err(e) = run_case(&emulator, &image, &mut rng, cfg, cases) {
                    failures.push(format!("{}: {e}", kernel.name));
                }
            }
        }
        // The row-major path runs the same kernel with A and B swapped.
        let (m, n, k) = (sizes(spec.m_blk)[3], sizes(spec.n_blk)[4], sizes(spec.k_blk)[2]);
        let cfg = GemmConfig::<T>::with_layout(Layout::RowMajor, spec.op_b, spec.op_a, n, m, k)
            .alpha(rng.scalar())
            .beta(rng.scalar());
        cases += 1;
        if let Err(e) = run(&emulator, &image, &mut rng, cfg) {
            failures.push(format!("{} (row-major): {e}", kernel.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed; first ones:\n{}",
        failures.len(),
        failures.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
    eprintln!("{}: {} kernels, {cases} emulated cases passed", T::PRECISION, kernels.len());
}

/// [`run`], or for a stream-K kernel, every second `case` shared out over
/// a few blocks.
fn run_case<T: Element>(
    emulator: &Emulator,
    image: &gemm_codegen::KernelImage,
    rng: &mut Random,
    cfg: GemmConfig<T>,
    case: usize,
) -> Result<f64, String> {
    let stream_k = matches!(image.launch().order, gemm_codegen::BlockOrder::StreamK { .. });
    if stream_k && case % 2 == 1 {
        let blocks = [1, 2, 5, 16][(case / 2) % 4];
        return Case::random(cfg, rng).emulate_stream_k(emulator, image, blocks);
    }
    run(emulator, image, rng, cfg)
}

fn run<T: Element>(
    emulator: &Emulator,
    image: &gemm_codegen::KernelImage,
    rng: &mut Random,
    cfg: GemmConfig<T>,
) -> Result<f64, String> {
    Case::random(cfg, rng).emulate(emulator, image)
}

#[test]
fn sgemm_kernels() {
    run_kernels::<f32>(1);
}

#[test]
fn dgemm_kernels() {
    run_kernels::<f64>(2);
}

#[test]
fn cgemm_kernels() {
    run_kernels::<Complex<f32>>(3);
}

#[test]
fn zgemm_kernels() {
    run_kernels::<Complex<f64>>(4);
}

#[test]
fn rejected_calls_never_reach_the_kernel() {
    let image = gemm_kernels::table2(Precision::F32, gemm_codegen::Op::N, gemm_codegen::Op::N).image();
    let cfg = GemmConfig::<f32>::new(gemm_codegen::Op::N, gemm_codegen::Op::N, 4, 4, 4).lda(3);
    let mut c = vec![1.0f32; 16];
    let err = Emulator::new().gemm_image(&image, &cfg, &[0.0; 16], &[0.0; 16], &mut c).unwrap_err();
    assert!(err.to_string().starts_with("argument `lda` = 3"), "{err}");
    assert!(c.iter().all(|&x| x == 1.0));
}

/// Accuracy against k: at k = 4096 (the bound ~4100 u in f32) the first
/// shipped kernel of each inner product (FMA, DMMA, 3xTF32) of every
/// precision stays within [`reference::tolerance`], the bound that grows
/// with k, on a ragged 3 × 5 C (one block; the emulator runs its whole
/// tile). `--nocapture` prints each error beside its bound.
#[test]
fn deep_k_stays_within_the_bound() {
    fn deep<T: Element>(seed: u64) -> Vec<String> {
        let emulator = Emulator::new();
        let mut rng = Random::new(seed);
        let mut seen = Vec::new();
        let mut report = Vec::new();
        for kernel in gemm_kernels::all().filter(|k| k.spec.precision == T::PRECISION) {
            let math = kernel.spec.math;
            if seen.contains(&math) {
                continue;
            }
            seen.push(math);
            let cfg = GemmConfig::<T>::new(kernel.spec.op_a, kernel.spec.op_b, 3, 5, 4096)
                .alpha(rng.scalar())
                .beta(rng.scalar());
            let err = run(&emulator, &kernel.image(), &mut rng, cfg)
                .unwrap_or_else(|e| panic!("{}: {e}", kernel.name));
            let tol = reference::tolerance(T::PRECISION, math, 4096);
            report.push(format!("{} {math}: error {err:.2e}, bound {tol:.2e}", kernel.name));
        }
        assert!(!seen.is_empty());
        report
    }
    let mut report = deep::<f32>(21);
    report.extend(deep::<f64>(22));
    report.extend(deep::<Complex<f32>>(23));
    report.extend(deep::<Complex<f64>>(24));
    eprintln!("{}", report.join("\n"));
}
