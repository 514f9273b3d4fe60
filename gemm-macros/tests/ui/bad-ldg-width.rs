use gemm_macros::gemm_kernel;

// Not 1, 2 or 4.
gemm_kernel! {
    name = SgemmNN,
    precision = f32,
    op = (N, N),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
    ldg_width = 3,
}

// B's stored stripe is 16 deep (K leads for op N): 8 threads × 4 elements
// do not fit it.
gemm_kernel! {
    name = SgemmNN4,
    precision = f32,
    op = (N, N),
    tile = (128, 128, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (8, 32),
    ldg_width = 4,
}

// One Complex<f64> is already 16 bytes.
gemm_kernel! {
    name = ZgemmNN,
    precision = c64,
    op = (N, N),
    tile = (32, 32, 8),
    threads = (8, 8),
    load_a = (32, 2),
    load_b = (8, 8),
    ldg_width = 2,
}

fn main() {}
