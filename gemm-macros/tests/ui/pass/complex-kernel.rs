use gemm_codegen::num_complex::Complex;
use gemm_codegen::{GemmKernel, Op, Precision};
use gemm_macros::gemm_kernel;

gemm_kernel! {
    name = ZgemmCC,
    precision = c64,
    op = (C, C),
    tile = (16, 24, 8),
    threads = (8, 8),
    load_a = (4, 16),
    load_b = (8, 8),
}

gemm_kernel! {
    name = CgemmNC,
    precision = c32,
    op = (N, C),
    tile = (64, 64, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (16, 16),
}

/// Only compiles for kernels on `Complex<f64>`.
fn zgemm_only<K: GemmKernel<Elem = Complex<f64>>>() -> &'static str {
    K::ENTRY
}

fn main() {
    assert_eq!(ZgemmCC::SPEC.precision, Precision::C64);
    assert_eq!(ZgemmCC::SPEC.eff_op_b(), Op::C);
    assert_eq!(zgemm_only::<ZgemmCC>(), ZgemmCC::ENTRY);
    assert_eq!(ZgemmCC::launch().block, (64, 1, 1));
    // 8 × (16 + 1 + 24 + 1) Complex<f64> elements.
    assert_eq!(ZgemmCC::SHARED_BYTES, 8 * (17 + 25) * 16);
    assert_eq!(CgemmNC::SPEC.precision, Precision::C32);
    let _: <CgemmNC as GemmKernel>::Elem = Complex::new(1.0f32, -1.0);
}
