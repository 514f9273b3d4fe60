use gemm_macros::gemm_kernel;

// 16 × 16 threads are 8 warps, not 4 × 4.
gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
    warps = (4, 4),
}

// 3 does not divide `threads.0`.
gemm_kernel! {
    name = SgemmNT,
    precision = f32,
    op = (N, T),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (32, 8),
    warps = (3, 1),
}

fn main() {}
