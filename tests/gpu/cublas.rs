//! On the GPU: the cuBLAS comparison harness (`gemm_host::cublas`) against
//! the `f64` reference, with the same configs, checks and guard regions as
//! gemmforge's kernels, and gemmforge against cuBLAS on the same inputs.
//!
//! Without a GPU each test prints `skipping: no CUDA GPU (<reason>)` and
//! passes; with `GEMMFORGE_REQUIRE_GPU=1` it fails instead, also when
//! libcublas cannot be loaded (put its folder on `LD_LIBRARY_PATH`).

use crate::common::{
    EDGE, Failures, Launcher, config, gpu, op_pairs, require_gpu, run_case, say, scalar_pairs,
};
use gemm_codegen::{Element, Math, Op};
use gemm_host::cublas::Cublas;
use gemm_host::num_complex::Complex;
use gemm_host::reference::{self, Random};
use gemm_host::{Gemm, GemmError, Layout, Matrix};

fn cublas(gemm: &Gemm) -> Option<Cublas> {
    match Cublas::new(gemm.stream().clone()) {
        Ok(c) => Some(c),
        Err(e @ GemmError::LibraryMissing { .. }) if !require_gpu() => {
            say(&format!("skipping: {e}"));
            None
        }
        Err(e) => panic!("cuBLAS: {e}"),
    }
}

fn against_reference<T: Element>(seed: u64) {
    let Some(gemm) = gpu() else { return };
    let Some(blas) = cublas(&gemm) else { return };
    let mut rng = Random::new(seed);
    let mut failures = Failures::default();
    let launch: &Launcher<'_, T> = &|cfg, a, b, c| blas.gemm(cfg, a, b, c);
    for ops in op_pairs() {
        for layout in [Layout::ColMajor, Layout::RowMajor] {
            for (i, &shape) in EDGE.iter().enumerate() {
                for pair in scalar_pairs::<T>(&mut rng) {
                    let cfg = config(layout, ops, shape, i as i64 % 3, pair);
                    failures.record(run_case(&gemm, &mut rng, &cfg, launch));
                }
            }
        }
    }
    failures.finish(&format!("cuBLAS {}gemm against the reference", T::PRECISION.blas_letter()));
}

#[test]
fn cublas_sgemm() {
    against_reference::<f32>(1);
}

#[test]
fn cublas_dgemm() {
    against_reference::<f64>(2);
}

#[test]
fn cublas_cgemm() {
    against_reference::<Complex<f32>>(3);
}

#[test]
fn cublas_zgemm() {
    against_reference::<Complex<f64>>(4);
}

/// gemmforge and cuBLAS on the same inputs agree within the error bound:
/// each within `reference::tolerance` (of its math, at k) of the exact
/// product, componentwise, so at most the sum of the two apart. Checked on
/// every 16th column (the bound's reference costs `m · k` a column).
fn side_by_side<T: Element>(gemm: &Gemm, blas: &Cublas, rng: &mut Random) {
    for ops in [(Op::N, Op::N), (Op::T, Op::C), (Op::C, Op::N)] {
        let cfg = config::<T>(Layout::ColMajor, ops, (1057, 993, 1031), 3, (rng.scalar(), rng.scalar()));
        let a_host = crate::common::matrix_buffer(&cfg, Matrix::A, || rng.element());
        let b_host = crate::common::matrix_buffer(&cfg, Matrix::B, || rng.element());
        let c_host = crate::common::matrix_buffer(&cfg, Matrix::C, || rng.element());
        let (a, b) = (gemm.upload(&a_host).unwrap(), gemm.upload(&b_host).unwrap());
        let mut ours = gemm.upload(&c_host).unwrap();
        let mut theirs = gemm.upload(&c_host).unwrap();
        gemm.gemm_default(&cfg, &a, &b, &mut ours).unwrap();
        blas.gemm(&cfg, &a, &b, &mut theirs).unwrap();
        let cols: Vec<usize> = (0..cfg.n as usize).step_by(16).collect();
        let pick = |c: &[T]| reference::logical_c_columns(&cfg, c, &cols);
        let (ours, theirs) = (pick(&gemm.download(&ours).unwrap()), pick(&gemm.download(&theirs).unwrap()));
        let bound = reference::gemm_bound_columns(&cfg, &a_host, &b_host, &c_host, &cols).unwrap();
        let err = reference::componentwise_error(&ours, &theirs, &bound);
        let k = cfg.k as u64;
        let math = gemm.default_kernel(&cfg).spec.math;
        let tol =
            reference::tolerance(T::PRECISION, math, k) + reference::tolerance(T::PRECISION, Math::Fma, k);
        assert!(err < tol, "{}: gemmforge vs cuBLAS {err:e} (bound {tol:e})", crate::common::describe(&cfg));
        say(&format!("{} op=({}, {}): gemmforge ({math}) vs cuBLAS {err:e}", T::PRECISION, ops.0, ops.1));
    }
}

#[test]
fn gemmforge_matches_cublas() {
    let Some(gemm) = gpu() else { return };
    let Some(blas) = cublas(&gemm) else { return };
    let mut rng = Random::new(7);
    side_by_side::<f32>(&gemm, &blas, &mut rng);
    side_by_side::<f64>(&gemm, &blas, &mut rng);
    side_by_side::<Complex<f32>>(&gemm, &blas, &mut rng);
    side_by_side::<Complex<f64>>(&gemm, &blas, &mut rng);
}
