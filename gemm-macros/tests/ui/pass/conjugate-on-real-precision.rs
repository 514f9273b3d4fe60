// `C` on a real precision is accepted and means `T`.
use gemm_codegen::{GemmKernel, Op};
use gemm_macros::gemm_kernel;

gemm_kernel! {
    name = SgemmCT,
    precision = f32,
    op = (C, T),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (32, 8),
}

gemm_kernel! {
    name = SgemmTT,
    precision = f32,
    op = (T, T),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (16, 16),
    load_b = (32, 8),
}

fn main() {
    assert_eq!(SgemmCT::SPEC.op_a, Op::C);
    assert_eq!(SgemmCT::SPEC.eff_op_a(), Op::T);
    assert_eq!(SgemmCT::SPEC.eff_op_b(), Op::T);
    // Same shape of kernel as the T one, under its own entry name.
    assert_eq!(SgemmCT::SHARED_BYTES, SgemmTT::SHARED_BYTES);
    assert_ne!(SgemmCT::ENTRY, SgemmTT::ENTRY);
    assert!(SgemmCT::ENTRY.starts_with("gemmforge_sgemm_ct_"));
    let _: <SgemmCT as GemmKernel>::Elem = 1.0f32;
}
