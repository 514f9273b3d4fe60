//! The 16-bit GEMMs (`f16`, `bf16`: Hopper's `wgmma` fed by the tensor
//! memory accelerator) on the GPU against the `f64` CPU reference: the
//! default kernels of every op pair through `Gemm::hgemm` and
//! `Gemm::bgemm`, both layouts, sizes around every tile edge, leading
//! dimensions of whole 16 bytes; and the typed refusal of operands the
//! tensor maps cannot describe, C untouched. They need compute capability
//! 9.0 (`sm_90a`): skipped on other GPUs.

use gemm_codegen::Element;
use gemm_host::config::Matrix;
use gemm_host::half::{bf16, f16};
use gemm_host::reference::Random;
use gemm_host::{Gemm, GemmConfig, GemmError, Layout};

use crate::common::{EDGE, Failures, Guarded, Launcher, SHAPES, gpu, op_pairs, run_case, say, scalar_pairs};

/// `cfg`'s shape and scalars with A's and B's leading dimensions the
/// smallest multiples of 8 elements (16 bytes) at least `extra` past the
/// minimum, C's `extra` past it.
fn config<T: Element>(
    layout: Layout,
    ops: (gemm_codegen::Op, gemm_codegen::Op),
    (m, n, k): (i64, i64, i64),
    extra: i64,
    (alpha, beta): (T, T),
) -> GemmConfig<T> {
    let cfg = GemmConfig::with_layout(layout, ops.0, ops.1, m, n, k).alpha(alpha).beta(beta);
    let lead = |ld: i64| gemm_host::operand_ld(T::PRECISION, ld + extra);
    cfg.lda(lead(cfg.min_ld(Matrix::A))).ldb(lead(cfg.min_ld(Matrix::B))).ldc(cfg.min_ld(Matrix::C) + extra)
}

fn on_hopper() -> Option<crate::common::Turn> {
    let gemm = gpu()?;
    if gemm.device().arch() != 90 {
        say(&format!("skipping the 16-bit kernels: sm_{} is not sm_90a", gemm.device().arch()));
        return None;
    }
    Some(gemm)
}

fn default_kernels<T: Element>(seed: u64, launch: &Launcher<'_, T>, gemm: &Gemm) {
    let mut rng = Random::new(seed);
    let mut failures = Failures::default();
    for ops in op_pairs() {
        for (layout, shapes) in [(Layout::ColMajor, SHAPES), (Layout::RowMajor, EDGE)] {
            for (i, &shape) in shapes.iter().enumerate() {
                for pair in scalar_pairs::<T>(&mut rng) {
                    let cfg = config(layout, ops, shape, [1, 0, 9][i % 3], pair);
                    failures.record(run_case(gemm, &mut rng, &cfg, launch));
                }
            }
        }
    }
    failures.finish(&format!("{}gemm with default kernels", T::PRECISION.blas_letter()));
}

#[test]
fn hgemm_default_kernels() {
    let Some(gemm) = on_hopper() else { return };
    default_kernels::<f16>(61, &|cfg, a, b, c| gemm.hgemm(cfg, a, b, c), &gemm);
}

#[test]
fn bgemm_default_kernels() {
    let Some(gemm) = on_hopper() else { return };
    default_kernels::<bf16>(62, &|cfg, a, b, c| gemm.bgemm(cfg, a, b, c), &gemm);
}

/// A leading dimension of A that is not a multiple of 8 elements, or a B
/// that starts off 16 bytes, is refused with `TmaOperands` before any
/// launch: C keeps its bits.
#[test]
fn operands_the_tensor_maps_cannot_describe_are_refused() {
    let Some(gemm) = on_hopper() else { return };
    let mut rng = Random::new(63);
    let cfg = GemmConfig::<f16>::new(gemm_codegen::Op::N, gemm_codegen::Op::N, 64, 64, 64);
    let odd = cfg.lda(67).ldb(64).ldc(64);
    let a = Guarded::new(&gemm, &rng.matrix::<f16>(odd.required_len(Matrix::A) as usize + 8));
    let b = Guarded::new(&gemm, &rng.matrix::<f16>(odd.required_len(Matrix::B) as usize + 8));
    let mut c = Guarded::new(&gemm, &rng.matrix::<f16>(odd.required_len(Matrix::C) as usize));
    let refused = |r: Result<(), GemmError>| matches!(r, Err(GemmError::TmaOperands { lead: 8, .. }));
    assert!(refused(gemm.hgemm(&odd, &a.view(), &b.view(), &mut c.view_mut())), "lda = 67");
    let aligned = cfg.lda(64).ldb(64).ldc(64);
    let shifted = b.view().slice(1..);
    assert!(refused(gemm.hgemm(&aligned, &a.view(), &shifted, &mut c.view_mut())), "B one element in");
    assert_eq!(c.changed(&c.download(&gemm)), Vec::<usize>::new(), "C written by a refused call");
}
