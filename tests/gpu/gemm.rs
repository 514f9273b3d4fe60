//! GEMMs on the GPU against the `f64` CPU reference: every precision, every
//! op pair, both layouts, sizes around every tile edge, alpha and beta in
//! {0, 1, random}, NaN-poisoned C when beta = 0, and sentinel guard regions
//! around and between the columns of every buffer.
//!
//! Without a GPU each test prints `skipping: no CUDA GPU (<reason>)` and
//! passes; with `GEMMFORGE_REQUIRE_GPU=1` it fails instead.

use crate::common::{
    Failures, Launcher, SHAPES, config, gpu, op_pairs, run_case, run_case_with, say, scalar_pairs,
    table2_specs, variant_specs,
};
use cudarc::driver::{CudaView, CudaViewMut};
use gemm_codegen::constraints::TMA_IN_PLACE_MAX_STAGES;
use gemm_codegen::{Element, GemmKernel, KernelSpec, Precision};
use gemm_host::num_complex::Complex;
use gemm_host::reference::Random;
use gemm_host::{Gemm, GemmConfig, GemmError, Layout};

/// Runs every shape and scalar pair through `launch` for a kernel with ops
/// `spec_ops`, column-major, and row-major with the ops swapped (which runs
/// the same column-major kernel) on every other shape.
fn sweep<T: Element>(
    gemm: &Gemm,
    rng: &mut Random,
    failures: &mut Failures,
    spec: &KernelSpec,
    shapes: &[(i64, i64, i64)],
    launch: &Launcher<'_, T>,
) {
    for (i, &shape) in shapes.iter().enumerate() {
        let extra = [0, 3, 1][i % 3];
        for pair in scalar_pairs::<T>(rng) {
            let cfg = config(Layout::ColMajor, (spec.op_a, spec.op_b), shape, extra, pair);
            failures.record(run_case_with(gemm, rng, &cfg, launch, spec.math));
            if i % 2 == 0 {
                let cfg = config(Layout::RowMajor, (spec.op_b, spec.op_a), shape, extra, pair);
                failures.record(run_case_with(gemm, rng, &cfg, launch, spec.math));
            }
        }
    }
}

/// Every Table 2 spec of `T`'s precision, compiled at run time and launched
/// through `Gemm::gemm_image`.
fn runtime_kernels<T: Element>(seed: u64) {
    let Some(gemm) = gpu() else { return };
    let mut rng = Random::new(seed);
    let mut failures = Failures::default();
    for spec in table2_specs(T::PRECISION) {
        let image = gemm_codegen::compile(&spec).expect("a Table 2 spec compiles");
        let launch: &Launcher<'_, T> = &|cfg, a, b, c| gemm.gemm_image(&image, cfg, a, b, c);
        sweep::<T>(&gemm, &mut rng, &mut failures, &spec, SHAPES, launch);
    }
    failures.finish(&format!("{} runtime-compiled Table 2 kernels", T::PRECISION));
}

#[test]
fn sgemm_runtime_kernels() {
    runtime_kernels::<f32>(1);
}

#[test]
fn dgemm_runtime_kernels() {
    runtime_kernels::<f64>(2);
}

#[test]
fn cgemm_runtime_kernels() {
    runtime_kernels::<Complex<f32>>(3);
}

#[test]
fn zgemm_runtime_kernels() {
    runtime_kernels::<Complex<f64>>(4);
}

/// Fewer shapes, for specs with the optional stencil parameters changed.
const EDGE_SHAPES: &[(i64, i64, i64)] = crate::common::EDGE;

fn variant_kernels<T: Element>(seed: u64) {
    let Some(gemm) = gpu() else { return };
    let mut rng = Random::new(seed);
    let mut failures = Failures::default();
    for spec in variant_specs(T::PRECISION) {
        let image = gemm_codegen::compile(&spec).expect("variants are validated");
        let launch: &Launcher<'_, T> = &|cfg, a, b, c| gemm.gemm_image(&image, cfg, a, b, c);
        sweep::<T>(&gemm, &mut rng, &mut failures, &spec, EDGE_SHAPES, launch);
    }
    failures.finish(&format!("{} stencil variants (lds_width, ldg)", T::PRECISION));
}

#[test]
fn variant_kernels_all_precisions() {
    variant_kernels::<f32>(11);
    variant_kernels::<f64>(12);
    variant_kernels::<Complex<f32>>(13);
    variant_kernels::<Complex<f64>>(14);
}

/// How a named function is called: `Gemm::sgemm` and its siblings.
type Named<T> = fn(
    &Gemm,
    &GemmConfig<T>,
    &CudaView<'_, T>,
    &CudaView<'_, T>,
    &mut CudaViewMut<'_, T>,
) -> Result<(), GemmError>;

/// The named BLAS functions with the default (compiled-in) kernels, every
/// op pair, both layouts.
fn named<T: Element>(seed: u64, call: Named<T>) {
    let Some(gemm) = gpu() else { return };
    let mut rng = Random::new(seed);
    let mut failures = Failures::default();
    let launch: &Launcher<'_, T> = &|cfg, a, b, c| call(&gemm, cfg, a, b, c);
    for ops in op_pairs() {
        for (layout, shapes) in [(Layout::ColMajor, SHAPES), (Layout::RowMajor, EDGE_SHAPES)] {
            for (i, &shape) in shapes.iter().enumerate() {
                for pair in scalar_pairs::<T>(&mut rng) {
                    let cfg = config(layout, ops, shape, [1, 0, 2][i % 3], pair);
                    failures.record(run_case(&gemm, &mut rng, &cfg, launch));
                }
            }
        }
    }
    failures.finish(&format!("{}gemm with default kernels", T::PRECISION.blas_letter()));
}

#[test]
fn sgemm_default_kernels() {
    named::<f32>(21, |g, cfg, a, b, c| g.sgemm(cfg, a, b, c));
}

#[test]
fn dgemm_default_kernels() {
    named::<f64>(22, |g, cfg, a, b, c| g.dgemm(cfg, a, b, c));
}

#[test]
fn cgemm_default_kernels() {
    named::<Complex<f32>>(23, |g, cfg, a, b, c| g.cgemm(cfg, a, b, c));
}

#[test]
fn zgemm_default_kernels() {
    named::<Complex<f64>>(24, |g, cfg, a, b, c| g.zgemm(cfg, a, b, c));
}

/// `gemm_kernel!` types through `Gemm::gemm::<K>`.
#[test]
fn typed_kernels() {
    use gemm_kernels::{CgemmCT, DgemmTN, SgemmNT, ZgemmCC};
    let Some(gemm) = gpu() else { return };
    let mut rng = Random::new(31);
    let mut failures = Failures::default();
    let shapes = &[(96, 97, 95), (17, 1, 33)];
    let s: &Launcher<'_, f32> = &|cfg, a, b, c| gemm.gemm::<SgemmNT>(cfg, a, b, c);
    let d: &Launcher<'_, f64> = &|cfg, a, b, c| gemm.gemm::<DgemmTN>(cfg, a, b, c);
    let cc: &Launcher<'_, Complex<f32>> = &|cfg, a, b, c| gemm.gemm::<CgemmCT>(cfg, a, b, c);
    let z: &Launcher<'_, Complex<f64>> = &|cfg, a, b, c| gemm.gemm::<ZgemmCC>(cfg, a, b, c);
    sweep(&gemm, &mut rng, &mut failures, &SgemmNT::SPEC, shapes, s);
    sweep(&gemm, &mut rng, &mut failures, &DgemmTN::SPEC, shapes, d);
    sweep(&gemm, &mut rng, &mut failures, &CgemmCT::SPEC, shapes, cc);
    sweep(&gemm, &mut rng, &mut failures, &ZgemmCC::SPEC, shapes, z);
    failures.finish("gemm::<K> on gemm_kernel! types");
}

/// The large ragged problem, (m, n, k) = (1057, 993, 1031), for each
/// precision with random alpha and beta.
fn large<T: Element>(seed: u64) {
    let Some(gemm) = gpu() else { return };
    let mut rng = Random::new(seed);
    let mut failures = Failures::default();
    let launch: &Launcher<'_, T> = &|cfg, a, b, c| gemm.gemm_default(cfg, a, b, c);
    use gemm_codegen::Op;
    let cases = [
        (Layout::ColMajor, (Op::N, Op::N)),
        (Layout::ColMajor, (Op::C, Op::T)),
        (Layout::RowMajor, (Op::T, Op::N)),
    ];
    for (layout, ops) in cases {
        let pair = (rng.scalar(), rng.scalar());
        let cfg = config(layout, ops, (1057, 993, 1031), 5, pair);
        failures.record(run_case(&gemm, &mut rng, &cfg, launch));
    }
    failures.finish(&format!("{} at (1057, 993, 1031)", T::PRECISION));
}

#[test]
fn large_ragged_problem() {
    large::<f32>(41);
    large::<f64>(42);
    large::<Complex<f32>>(43);
    large::<Complex<f64>>(44);
}

/// Runs without a GPU: the specs the GPU tests use are legal and compile.
#[test]
fn test_specs_compile() {
    for p in Precision::ALL {
        let table = table2_specs(p);
        assert_eq!(table.len(), 9);
        let variants = variant_specs(p);
        assert!(!variants.is_empty(), "no legal variant for {p}");
        for spec in table.iter().chain(&variants) {
            if let Err(v) = gemm_codegen::compile(spec) {
                panic!("{spec}: {v:?}");
            }
        }
        say(&format!("{p}: {} Table 2 specs, {} variants", table.len(), variants.len()));
    }
    for spec in tma_specs() {
        gemm_codegen::compile(&spec).unwrap_or_else(|v| panic!("{spec}: {v:?}"));
    }
}

/// Run 36's TMA kernels (`ldg = tma`, TN 1xTF32, `tuning/sm_90-wgmma/run36/specs.txt`),
/// run 43's NN and NT, whose consumers load A's fragments from the ring into registers
/// (`tuning/sm_90-wgmma/run43/specs.txt`, lines 1 and 2), and run 48's TT as the kernel NN
/// with swapped operands (`operands = ba`, `tuning/sm_90-wgmma/run48/specs.txt`, line 1).
fn tma_specs() -> Vec<KernelSpec> {
    let text = include_str!("../../tuning/sm_90-wgmma/run36/specs.txt");
    // Their rings cut to the stages of a kernel reading both operands in place.
    let cut = |s: KernelSpec| KernelSpec { stages: s.stages.min(TMA_IN_PLACE_MAX_STAGES), ..s };
    let mut specs: Vec<KernelSpec> =
        text.lines().filter(|l| l.contains("ldg = tma")).map(|l| cut(l.parse().expect("a spec"))).collect();
    assert_eq!(specs.len(), 3);
    let run43 = include_str!("../../tuning/sm_90-wgmma/run43/specs.txt");
    specs.extend(run43.lines().take(2).map(|l| l.parse::<KernelSpec>().expect("a spec")));
    let run48 = include_str!("../../tuning/sm_90-wgmma/run48/specs.txt");
    specs.extend(run48.lines().take(1).map(|l| l.parse::<KernelSpec>().expect("a spec")));
    assert!(specs[5].swaps_operands());
    assert!(specs[3..].iter().all(gemm_codegen::constraints::wgmma_a_regs));
    specs
}

/// The TMA kernels on the edge shapes (three of them loading A's fragments into registers):
/// tensor maps encoded by the driver, boxes past the matrix landing zeros; leading dimensions
/// that are not multiples of 16 bytes run the `cp.async` twin. They need compute capability 9.0
/// (`sm_90a`): skipped on other GPUs.
#[test]
fn tma_kernels() {
    let Some(gemm) = gpu() else { return };
    if gemm.device().arch() != 90 {
        return say(&format!("skipping the TMA kernels: sm_{} is not sm_90a", gemm.device().arch()));
    }
    let mut rng = Random::new(36);
    let mut failures = Failures::default();
    for spec in tma_specs() {
        let image = gemm_codegen::compile(&spec).expect("run 36's specs are legal");
        let launch: &Launcher<'_, f32> = &|cfg, a, b, c| gemm.gemm_image(&image, cfg, a, b, c);
        sweep::<f32>(&gemm, &mut rng, &mut failures, &spec, EDGE_SHAPES, launch);
    }
    failures.finish("TMA kernels (ldg = tma)");
}
