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
    lds_width = 3,
}

// 2 Complex<f64> are 32 bytes; a shared load moves at most 16.
gemm_kernel! {
    name = ZgemmNN,
    precision = c64,
    op = (N, N),
    tile = (24, 16, 8),
    threads = (8, 8),
    load_a = (8, 8),
    load_b = (8, 8),
    lds_width = 2,
}

// Each thread computes 6 × 6 elements of C: 4 does not divide 6.
gemm_kernel! {
    name = SgemmNT,
    precision = f32,
    op = (N, T),
    tile = (96, 96, 16),
    threads = (16, 16),
    load_a = (32, 8),
    load_b = (32, 8),
    lds_width = 4,
}

fn main() {}
