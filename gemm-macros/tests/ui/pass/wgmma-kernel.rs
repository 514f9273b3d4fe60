use gemm_codegen::GemmKernel;
use gemm_macros::gemm_kernel;

// An SGEMM on Hopper's warpgroup MMA: two warpgroups of 64 x 128, three
// TF32 products per product (FP32 accuracy), lowered for sm_90a.
gemm_kernel! {
    name = SgemmWgmma,
    precision = f32,
    op = (N, T),
    tile = (128, 128, 32),
    threads = (64, 4),
    load_a = (32, 8),
    load_b = (32, 8),
    lds_width = 4,
    ldg_width = 4,
    arch = sm_90a,
    stages = 2,
    warps = (8, 1),
    math = tf32x3,
    mma = (64, 128, 8),
}

// A CGEMM on the warpgroup MMA: each complex product four real ones on
// planes of real and imaginary parts, B conjugated by the signs of its
// products.
gemm_kernel! {
    name = CgemmWgmma,
    precision = c32,
    op = (N, C),
    tile = (128, 64, 16),
    threads = (64, 4),
    load_a = (64, 4),
    load_b = (32, 8),
    lds_width = 2,
    ldg_width = 2,
    arch = sm_90a,
    stages = 3,
    warps = (8, 1),
    math = tf32x3,
    mma = (64, 64, 8),
}

fn main() {
    let image = CgemmWgmma::image();
    assert!(image.ptx.contains("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32"));
    assert!(image.ptx.contains(", -1, 1;"), "a negated product");

    let image = SgemmWgmma::image();
    assert!(image.ptx.contains(".target sm_90a"));
    assert!(image.ptx.contains("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32"));
    assert!(image.ptx.contains("fence.proxy.async.shared::cta"));
    assert_eq!(image.spec.wgmma().map(|s| s.n), Some(128));
}
