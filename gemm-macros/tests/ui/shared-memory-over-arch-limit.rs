use gemm_macros::gemm_kernel;

// 64 × (128 + 1 + 128 + 1) floats: 66,048 bytes, over sm_75's 64 KiB.
gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (128, 128, 64),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
    arch = sm_75,
}

fn main() {}
